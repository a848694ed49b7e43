// main.js - starts the page: routes "#/<view>?<inputs>" to one of the views,
// keeps the navigation links carrying the current inputs, and runs the
// "Copy as curl / Copy as Python" dialog for whichever request a view shows.

import { $, $$ } from './dom.js';
import { curlCommand, pythonSnippet } from './api.js';
import { parseLocation, current, href, VIEWS } from './state.js';
// Each view's module loads when the view is first opened, so the first
// view fetches only its own code.
const loaders = {
        calculator: () => import('./views/calculator.js'),
        tables: () => import('./views/tables.js'),
        catalog: () => import('./views/catalog.js'),
        validation: () => import('./views/validation.js'),
        cost: () => import('./views/cost.js'),
        serving: () => import('./views/serving.js'),
};
const views = {};
const started = new Map();

async function load(name) {
        if (!views[name]) views[name] = (await loaders[name]()).default;
        return views[name];
}

function setStatus(text) {
        $('#status').textContent = text || '';
}

function updateNav() {
        const s = current();
        for (const a of $$('nav a[data-view]')) {
                a.setAttribute('href', href(a.dataset.view));
                if (a.dataset.view === s.view) a.setAttribute('aria-current', 'page');
                else a.removeAttribute('aria-current');
        }
}

async function route(event) {
        const s = parseLocation();
        const previous = document.body.dataset.view;
        updateNav();
        document.title = `${$('#h-' + s.view).textContent} — gpuplan`;
        try {
                const view = await load(s.view);
                // The view's init lays its form out synchronously before its first
                // await; only then is the view shown, so nothing jumps.
                if (!started.has(s.view)) started.set(s.view, view.init());
                for (const v of VIEWS) $('#view-' + v).hidden = v !== s.view;
                await started.get(s.view);
                await view.show();
                setStatus('');
        } catch (e) {
                for (const v of VIEWS) $('#view-' + v).hidden = v !== s.view;
                console.warn('view failed', e);
                setStatus(`Could not load this view: ${e.message || e}`);
        }
        document.body.dataset.view = s.view;
        // After following a link to another view, put keyboard and screen-reader
        // focus on its heading rather than leaving it on the link.
        if (event && previous && previous !== s.view) {
                const h = $('#h-' + s.view);
                h.setAttribute('tabindex', '-1');
                h.focus({ preventScroll: false });
        }
}

// The snippet dialog: the exact request the view makes, as curl or Python.
async function snippet(kind, target) {
        const view = await load(target === 'rent' ? 'cost' : (loaders[target] ? target : current().view));
        let text;
        try {
                const r = (target === 'rent' ? view.rentRequest() : view.request());
                text = kind === 'curl' ? curlCommand(r.method, r.path, r.body, r.query)
                        : pythonSnippet(r.method, r.path, r.body, r.query);
        } catch (e) {
                text = `# the request cannot be built yet: ${e.message}`;
        }
        const dlg = $('#snippet-dialog');
        $('#snippet-title').textContent = kind === 'curl' ? 'Copy as curl' : 'Copy as Python';
        $('#snippet-text').value = text;
        $('#snippet-status').textContent = '';
        dlg.showModal();
        $('#snippet-text').select();
        copy(text);
}

async function copy(text) {
        const status = $('#snippet-status');
        try {
                if (!navigator.clipboard || !window.isSecureContext) throw new Error('clipboard needs https or localhost');
                await navigator.clipboard.writeText(text);
                status.textContent = 'Copied to the clipboard.';
        } catch {
                status.textContent = 'Select the text and copy it (Ctrl+C); this browser did not allow the page to copy.';
        }
}

document.addEventListener('click', (e) => {
        const b = e.target.closest('button[data-copy]');
        if (b) snippet(b.dataset.copy, b.dataset.target);
});
$('#snippet-copy').addEventListener('click', () => copy($('#snippet-text').value));
document.addEventListener('gpuplan:state', updateNav);
window.addEventListener('hashchange', route);
route();
