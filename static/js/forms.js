// forms.js - two-way binding between a form's named controls and the shared
// inputs in the address, and the display of API problem documents next to
// the control whose data-pointer matches the problem's JSON pointer.

import { $$ } from './dom.js';
import { params, update } from './state.js';

export function debounce(fn, ms) {
        let t = null;
        return (...args) => {
                clearTimeout(t);
                t = setTimeout(() => fn(...args), ms);
        };
}

function readControl(c) {
        if (c.type === 'checkbox') return c.checked ? '1' : '0';
        if (c.multiple) return Array.from(c.selectedOptions).map((o) => o.value).join(',');
        return c.value;
}

function writeControl(c, v) {
        if (v === undefined) return;
        if (c.type === 'checkbox') {
                c.checked = v === '1' || v === 'true';
        } else if (c.multiple) {
                const set = new Set(String(v).split(',').filter(Boolean));
                for (const o of c.options) o.selected = set.has(o.value);
        } else if (c.tagName === 'SELECT' && v !== '' &&
                   !Array.from(c.options).some((o) => o.value === v)) {
                // A value from a link that the list does not (yet) hold: keep it
                // visible and selectable, so the API can say what is wrong with it.
                c.add(new Option(v, v));
                c.value = v;
        } else {
                c.value = v;
        }
}

function controls(form) {
        return $$('input[name], select[name], textarea[name]', form);
}

// Put the shared inputs into the form's controls.
export function fillForm(form, p = params()) {
        for (const c of controls(form)) writeControl(c, p[c.name]);
}

/*
 * Keep the address in step with the form; call onChange (debounced, ms)
 * after each edit.  Typing in a number field waits for the pause; selects
 * and checkboxes act at once.
 */
// What is wrong with a number as typed, in plain words, or null.  The
// browser judges it against the control's min, max and step, so no
// request is sent for a value the API would refuse.
export function localProblem(c) {
        if (c.tagName !== 'INPUT' || c.type !== 'number') return null;
        const v = c.validity;
        if (v.badInput) return 'Enter a number.';
        if (v.rangeUnderflow) return `Enter ${c.min} or more.`;
        if (v.rangeOverflow) return `Enter ${c.max} or less.`;
        if (v.stepMismatch) return c.step === '1' ? 'Enter a whole number.' : 'Enter a valid number.';
        return null;
}

function markLocal(c, text) {
        const field = c.closest('.field');
        const slot = field && field.querySelector('.error');
        if (!slot) return;
        if (text) {
                slot.textContent = text;
                slot.dataset.local = '1';
                if (!slot.id) slot.id = 'err-' + Math.random().toString(36).slice(2);
                c.setAttribute('aria-invalid', 'true');
                c.setAttribute('aria-describedby', slot.id);
        } else if (slot.dataset.local) {
                slot.textContent = '';
                delete slot.dataset.local;
                c.removeAttribute('aria-invalid');
        }
}

export function bindForm(form, onChange, ms = 300) {
        const later = debounce(onChange, ms);
        const handler = (e) => {
                const c = e.target;
                if (!c.name) return;
                const local = localProblem(c);
                markLocal(c, local);
                if (local) return;
                // Selects and checkboxes fire "input" and "change" together: act once, on change.
                if (e.type === 'input' && (c.tagName === 'SELECT' || c.type === 'checkbox')) return;
                update({ [c.name]: readControl(c) });
                if (e.type === 'change' && c.tagName !== 'INPUT') onChange();
                else later();
        };
        form.addEventListener('input', handler);
        form.addEventListener('change', handler);
        form.addEventListener('submit', (e) => {
                e.preventDefault();
                onChange();
        });
}

// Show or hide the fields that only matter for some inputs
// (data-modes="...", data-source="...", data-strategies="...").
// relevant(name, inputs), if given, hides each field whose control it rejects.
export function applyRelevance(form, p = params(), relevant = null) {
        for (const [attr, key] of [['modes', 'mode'], ['source', 'source'], ['strategies', 'strategy']])
                for (const e of $$(`[data-${attr}]`, form))
                        e.hidden = !e.dataset[attr].split(' ').includes(p[key]);
        // A field shown for its mode may still not belong (a task head's
        // classes on a decoder): relevant() has the last word.
        if (relevant)
                for (const c of controls(form)) {
                        const field = c.closest('.field');
                        if (!field) continue;
                        const byAttr = ['modes', 'source', 'strategies'].some((a) => {
                                const e = field.closest(`[data-${a}]`);
                                return e && e.hidden;
                        });
                        field.hidden = byAttr || !relevant(c.name, p);
                }
}

export function clearProblems(form, general) {
        if (form) {
                for (const e of $$('.error', form)) e.textContent = '';
                for (const c of $$('[aria-invalid]', form)) {
                        c.removeAttribute('aria-invalid');
                        c.removeAttribute('aria-describedby');
                }
        }
        if (general) {
                general.hidden = true;
                general.textContent = '';
        }
}

// The API's rule in plain words for the person at the field
// ("batch_size must be 1..1048576" -> "Enter a whole number from 1 to
// 1,048,576."); anything else as the API said it.
export function plainDetail(detail) {
        const t = String(detail || '');
        let m = /^[a-z_]+ must be (-?[\d.]+)\.\.(-?[\d.]+)$/.exec(t);
        if (m) return `Enter a whole number from ${Number(m[1]).toLocaleString('en-US')} to ${Number(m[2]).toLocaleString('en-US')}.`;
        m = /^[a-z_]+ must be an integer$/.exec(t);
        if (m) return 'Enter a whole number.';
        m = /^[a-z_]+ must be a number$/.exec(t);
        if (m) return 'Enter a number.';
        return t;
}

/*
 * Place each field the problem names next to its control; anything that
 * names no visible control goes to the general line, with its pointer.
 * Returns true if at least one message landed next to a field.
 */
export function showProblem(form, err, general) {
        clearProblems(form, general);
        const problem = err.problem || {};
        const fields = typeof err.fields === 'function' ? err.fields() : [];
        const leftovers = [];
        let placed = false;
        for (const f of fields) {
                const slot = form && $$('.error', form).find((s) => s.dataset.for === f.pointer &&
                                                                 !s.closest('[hidden]'));
                if (slot) {
                        slot.textContent = plainDetail(f.detail);
                        if (!slot.id) slot.id = 'err-' + Math.random().toString(36).slice(2);
                        const control = $$('[data-pointer]', form).find((c) => c.dataset.pointer === f.pointer);
                        if (control) {
                                control.setAttribute('aria-invalid', 'true');
                                control.setAttribute('aria-describedby', slot.id);
                        }
                        placed = true;
                } else {
                        leftovers.push(`${f.pointer || '(request)'}: ${f.detail}`);
                }
        }
        if (general && (!placed || leftovers.length)) {
                const head = problem.title && problem.status ? `${problem.status} ${problem.title}` : 'Request failed';
                const text = leftovers.length ? leftovers.join('; ')
                        : (problem.detail || err.message || 'no detail given');
                general.textContent = `${head}: ${text}`;
                general.hidden = false;
        }
        return placed;
}
