// dom.js - a tiny element builder so views never assemble HTML strings
// (everything the API sends is shown as text, never parsed as markup).

export function el(tag, attrs = {}, ...children) {
        const e = document.createElement(tag);
        for (const [k, v] of Object.entries(attrs || {})) {
                if (v === null || v === undefined || v === false) continue;
                if (k === 'class') e.className = v;
                else if (k === 'text') e.textContent = v;
                else if (k === 'hidden') e.hidden = Boolean(v);
                else e.setAttribute(k, v === true ? '' : String(v));
        }
        for (const c of children.flat()) {
                if (c === null || c === undefined || c === false) continue;
                e.append(c instanceof Node ? c : String(c));
        }
        return e;
}

export function $(sel, root = document) {
        return root.querySelector(sel);
}

export function $$(sel, root = document) {
        return Array.from(root.querySelectorAll(sel));
}

// An API note (suggestion, assumption, warning) may be a string or an
// object; show its words, whichever field carries them.
export function noteText(n) {
        if (typeof n === 'string') return n;
        if (n && typeof n === 'object') {
                for (const k of ['text', 'detail', 'message', 'description', 'assumption', 'suggestion', 'warning']) {
                        // The sentence alone: the other members (per_gpu_bytes, gpus) are
                        // data for programs, already said in words.
                        if (typeof n[k] === 'string') return n[k];
                }
                return JSON.stringify(n);
        }
        return String(n);
}

export function list(items, cls) {
        return el('ul', { class: cls }, (items || []).map((n) => el('li', {}, noteText(n))));
}
