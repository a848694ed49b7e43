// state.js - the page's state lives in the address: "#/<view>?<inputs>".
// One flat map of inputs is shared by every view (the cost view prices the
// calculator's workload), so switching views keeps the inputs, and a copied
// link reopens the same view with the same inputs.

import { CALC_DEFAULTS, relevant } from './request.js';

export const VIEWS = ['calculator', 'tables', 'catalog', 'validation', 'cost', 'serving'];

const state = { view: 'calculator', params: { ...CALC_DEFAULTS }, explicit: new Set() };

export function parseLocation() {
        const h = location.hash.replace(/^#\/?/, '');
        const q = h.indexOf('?');
        const view = (q < 0 ? h : h.slice(0, q)) || 'calculator';
        const params = { ...CALC_DEFAULTS };
        state.explicit = new Set();
        for (const [k, v] of new URLSearchParams(q < 0 ? '' : h.slice(q + 1))) {
                params[k] = v;
                state.explicit.add(k);
        }
        state.view = VIEWS.includes(view) ? view : 'calculator';
        state.params = params;
        return state;
}

export function current() {
        return state;
}

// The inputs the address named (the others took their defaults).
export function explicitKeys() {
        return state.explicit;
}

export function params() {
        return state.params;
}

// The query string for the current inputs: every calculator input that
// matters for this workload (so a link keeps meaning the same thing even if
// defaults change), plus any other non-empty input.
export function queryString(p = state.params) {
        const q = new URLSearchParams();
        for (const k of Object.keys(CALC_DEFAULTS))
                if (relevant(k, p) && p[k] !== undefined && p[k] !== '') q.set(k, p[k]);
        for (const [k, v] of Object.entries(p))
                if (!(k in CALC_DEFAULTS) && v !== undefined && v !== '') q.set(k, v);
        return q.toString();
}

export function href(view, p = state.params) {
        const qs = queryString(p);
        return '#/' + view + (qs ? '?' + qs : '');
}

// Merge inputs and rewrite the address without adding a history entry (typing
// should not fill the back button); view changes go through links instead.
export function update(patch) {
        Object.assign(state.params, patch);
        const target = href(state.view);
        if (location.hash !== target) history.replaceState(null, '', target);
        document.dispatchEvent(new CustomEvent('gpuplan:state'));
}
