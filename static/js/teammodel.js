// teammodel.js - the catalog view's admin form for a team's own model:
// PUT api/v1/models/{id} with its name, family, licence, note and either a
// pasted config.json or a Hub id.  The admin token lives in sessionStorage
// (this tab only, gone when it closes), never in the address or on disk.
// The API's problem details are shown next to the field they name.

import { ApiError, apiUrl } from './api.js';
import { $, $$ } from './dom.js';
import * as fmt from './format.js';
import { plainDetail } from './forms.js';

const TOKEN_KEY = 'gpuplan.adminToken';

function readToken() {
        try {
                return sessionStorage.getItem(TOKEN_KEY) || '';
        } catch {
                return '';
        }
}

function keepToken(token) {
        try {
                if (token) sessionStorage.setItem(TOKEN_KEY, token);
                else sessionStorage.removeItem(TOKEN_KEY);
        } catch {
                // Storage refused (private mode): the field still holds it.
        }
}

function from(form) {
        return $('input[name="t_from"]:checked', form).value;
}

function showFrom(form) {
        for (const e of $$('[data-team-from]', form)) e.hidden = e.dataset.teamFrom !== from(form);
}

function clear(form) {
        for (const s of $$('.error', form)) s.textContent = '';
        for (const c of $$('[aria-invalid]', form)) {
                c.removeAttribute('aria-invalid');
                c.removeAttribute('aria-describedby');
        }
        const general = $('#team-problem');
        general.hidden = true;
        general.textContent = '';
        $('#team-status').textContent = '';
}

// The slot for a pointer: its own, or the closest enclosing one
// (/hf_config/num_key_value_heads goes next to the config); null if none.
function slotFor(form, pointer) {
        let best = null;
        for (const s of $$('.error', form)) {
                const p = s.dataset.for;
                if (s.closest('[hidden]')) continue;
                if ((pointer === p || pointer.startsWith(p + '/')) && (!best || p.length > best.dataset.for.length)) best = s;
        }
        return best;
}

function mark(form, slot, text) {
        slot.textContent = plainDetail(text);
        if (!slot.id) slot.id = 'err-' + Math.random().toString(36).slice(2);
        const control = $$('[data-pointer]', form).find((c) => c.dataset.pointer === slot.dataset.for);
        if (control) {
                control.setAttribute('aria-invalid', 'true');
                control.setAttribute('aria-describedby', slot.id);
        }
}

// Each field the problem names next to its control; the rest in one line
// of plain words (the API's detail, never the document itself).
function showProblem(form, err) {
        const p = err.problem || {};
        // A token refused (401, 403 without a field) belongs to the token field.
        const fields = typeof err.fields === 'function' ? err.fields() : [];
        if (!fields.length && (err.status === 401 || (err.status === 403 && p.pointer === undefined)))
                fields.push({ pointer: '#auth', detail: err.status === 401
                        ? `The server refused the token: ${p.detail || 'it is missing or wrong'}.` : p.detail || p.title });
        const rest = [];
        for (const f of fields) {
                const slot = slotFor(form, f.pointer || '');
                if (slot) mark(form, slot, f.detail);
                else rest.push(f.detail);
        }
        if (!fields.length) rest.push(p.detail || err.message);
        if (rest.length) {
                const general = $('#team-problem');
                general.textContent = [...new Set(rest)].join(' ');
                general.hidden = false;
        }
}

function body(form) {
        const b = { name: $('#t-name').value.trim(), family: $('#t-family').value.trim() };
        const licence = $('#t-licence').value.trim();
        const note = $('#t-note').value.trim();
        if (licence) b.licence = licence;
        if (note) b.notes = note;
        if (from(form) === 'hub') {
                b.hub_id = $('#t-hub').value.trim();
        } else {
                try {
                        b.hf_config = JSON.parse($('#t-config').value);
                } catch (e) {
                        throw new ApiError(400, { pointer: '/hf_config', detail: `config.json is not valid JSON: ${e.message}` });
                }
        }
        return b;
}

async function save(form) {
        clear(form);
        const token = $('#t-token').value.trim();
        const id = $('#t-id').value.trim();
        const missing = [];
        if (!token) missing.push({ pointer: '#auth', detail: 'Enter the server\'s admin token (GPUPLAN_ADMIN_TOKEN).' });
        if (!id) missing.push({ pointer: '/id', detail: 'Enter an id: lower-case letters, digits, dots and dashes.' });
        if (missing.length) {
                showProblem(form, new ApiError(400, { errors: missing }));
                return;
        }
        keepToken(token);
        const button = $('#t-save');
        button.disabled = true;
        form.setAttribute('aria-busy', 'true');
        try {
                const res = await fetch(apiUrl(`api/v1/models/${encodeURIComponent(id)}`), {
                        method: 'PUT',
                        headers: { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
                        body: JSON.stringify(body(form)),
                });
                let data = null;
                try {
                        data = await res.json();
                } catch {
                        data = null;
                }
                if (!res.ok) throw new ApiError(res.status, { title: res.statusText, ...(data || {}) });
                $('#team-status').textContent = `${res.status === 201 ? 'Added' : 'Replaced'} ${data.id}: ${data.name}, ` +
                        `${fmt.count(data.published_parameters || data.parameters)} parameters. ` +
                        'The calculator\'s model field finds it now.';
        } catch (e) {
                showProblem(form, e instanceof ApiError ? e : new ApiError(0, { detail: String(e.message || e) }));
        } finally {
                button.disabled = false;
                form.setAttribute('aria-busy', 'false');
        }
}

export function initTeamForm() {
        const form = $('#team-form');
        if (!form) return;
        $('#t-token').value = readToken();
        for (const r of $$('input[name="t_from"]', form)) r.addEventListener('change', () => showFrom(form));
        showFrom(form);
        form.addEventListener('submit', (e) => {
                e.preventDefault();
                save(form);
        });
}
