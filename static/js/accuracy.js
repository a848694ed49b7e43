// accuracy.js - how close the engine's memory estimates have been, by kind
// of job, from GET api/v1/validation (every published measurement the
// project holds, with the engine's estimate and the error).  A result on
// the calculator says how its kind has fared: "LoRA, one GPU: median 3 %
// off over 12 measured runs", linked to those cases in the Validation view.

import { apiGetCached } from './api.js';

const MODE_NAMES = {
        inference: 'Inference', fine_tune: 'Full fine-tune', lora: 'LoRA', qlora: 'QLoRA', pre_train: 'Pre-training',
};

let groups = null;
let timeGroups = new Map();
let loading = null;

// The time cases' categories (GET api/v1/validation time.summary) for each mode.
const TIME_CATEGORY = { inference: 'decode', fine_tune: 'finetune', lora: 'peft', qlora: 'peft', pre_train: 'pretrain' };

// The kind of a case or a result: its mode and one GPU or several.
export function kindKey(mode, gpus) {
        return `${mode}-${gpus > 1 ? 'multi' : 'one'}`;
}

export function kindLabel(key) {
        const [mode, n] = key.split('-');
        return `${MODE_NAMES[mode] || mode}, ${n === 'multi' ? 'several GPUs' : 'one GPU'}`;
}

export function caseKind(c) {
        const r = (c && c.request) || {};
        const mode = (r.workload && r.workload.mode) || 'pre_train';
        const gpus = (r.parallelism && Number(r.parallelism.gpus)) || 1;
        return kindKey(mode, gpus);
}

function median(xs) {
        const s = [...xs].sort((a, b) => a - b);
        const m = s.length >> 1;
        return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Median absolute error and count per kind.
export function summarize(cases) {
        const by = new Map();
        for (const c of cases || []) {
                if (typeof c.error !== 'number' || !Number.isFinite(c.error)) continue;
                const k = caseKind(c);
                if (!by.has(k)) by.set(k, []);
                by.get(k).push(Math.abs(c.error));
        }
        const out = new Map();
        for (const [k, errs] of by) out.set(k, { key: k, label: kindLabel(k), count: errs.length, median: median(errs) });
        return out;
}

// Start loading (once); resolves when the figures are in.
export function loadAccuracy() {
        if (!loading)
                loading = apiGetCached('api/v1/validation').then((d) => {
                        groups = summarize(d && d.cases);
                        const byCat = (d && d.time && d.time.summary && d.time.summary.by_category) || [];
                        timeGroups = new Map(byCat.map((g) => [g.category, { count: g.count, median: g.median_abs_error }]));
                        return groups;
                }, () => {
                        groups = new Map();
                        return groups;
                });
        return loading;
}

// The figures for a result's kind, or null (not loaded, or no case of it):
// memory by mode and GPU count, and time by the mode's time category.
export function accuracyFor(mode, gpus) {
        const mem = (groups && groups.get(kindKey(mode, gpus))) || null;
        if (!mem) return null;
        return { ...mem, time: timeGroups.get(TIME_CATEGORY[mode]) || null };
}

// The time figures of one category ('decode', 'prefill', ...), or null.
export function timeAccuracy(category) {
        return timeGroups.get(category) || null;
}
