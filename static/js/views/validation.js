// validation.js - the Validation view: GET api/v1/validation, the engine's
// published accuracy.  Every measured case with its source, measurement
// kind, measured and estimated figures and the error; the median and
// 90th-percentile error the API reports on top, overall and per category
// (inference, one GPU, PEFT over several GPUs, pre-training over several
// GPUs), and the cases grouped by category.

import { apiFetch } from '../api.js';
import { $, el } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { showProblem, clearProblems } from '../forms.js';
import { caseKind, kindLabel } from '../accuracy.js';
import { params, href } from '../state.js';

let sort = null;

const CATEGORY_NAMES = {
        inference: 'Inference',
        single_gpu: 'Training on one GPU',
        multi_gpu_peft: 'LoRA / QLoRA over several GPUs',
        multi_gpu_pretrain: 'Full training over several GPUs',
        pretrain: 'Pre-training',
        finetune: 'Full fine-tuning',
        peft: 'LoRA / QLoRA',
        prefill: 'Prefill and time to first token',
        decode: 'Decode',
};

// How a throughput metric reads, and its unit.
const METRICS = {
        tokens_per_second_per_gpu: ['tokens/s per GPU', (v) => fmt.integer(Math.round(v))],
        mfu: ['MFU', (v) => fmt.percent(v)],
        tflops_per_gpu: ['TFLOP/s per GPU', (v) => v.toFixed(0)],
        seconds_per_step: ['s per step', (v) => v.toFixed(2)],
        samples_per_second: ['samples/s', (v) => v.toFixed(1)],
        decode_tokens_per_second: ['decode tokens/s', (v) => v.toFixed(1)],
        tpot_ms: ['ms per output token', (v) => v.toFixed(1)],
        ttft_ms: ['ms to first token', (v) => v.toFixed(0)],
        prefill_tokens_per_second: ['prompt tokens/s', (v) => fmt.integer(Math.round(v))],
        output_tokens_per_second: ['output tokens/s', (v) => fmt.integer(Math.round(v))],
};
const metricValue = (c, v) => (typeof v === 'number' && METRICS[c.metric] ? `${METRICS[c.metric][1](v)} ${METRICS[c.metric][0]}` : '—');
const categoryName = (c) => CATEGORY_NAMES[c] || (c ? fmt.words(c) : '—');

const pick = (o, ...keys) => {
        for (const k of keys) if (o && o[k] !== undefined && o[k] !== null) return o[k];
        return null;
};

function casesOf(d) {
        if (Array.isArray(d)) return d;
        return pick(d, 'cases', 'measurements', 'results') || [];
}

// The error as a signed fraction ((estimate - measured) / measured), read
// from whichever field the API names it by.
function errorOf(c) {
        const e = pick(c, 'error', 'relative_error', 'error_fraction');
        if (typeof e === 'number') return e;
        if (e && typeof e === 'object') return pick(e, 'relative', 'fraction', 'value');
        return null;
}

function measured(c) {
        return pick(c, 'measured_bytes', 'measured');
}

function estimated(c) {
        return pick(c, 'estimated_bytes', 'estimate_bytes', 'estimated');
}

function bytesOrNumber(v) {
        if (typeof v === 'number') return `${fmt.gib(v)} GiB`;
        if (v && typeof v === 'object') return bytesOrNumber(pick(v, 'bytes', 'total_bytes', 'value'));
        return v == null ? '—' : String(v);
}

function numberOf(v) {
        if (typeof v === 'number') return v;
        if (v && typeof v === 'object') return pick(v, 'bytes', 'total_bytes', 'value');
        return null;
}

function sourceCell(c) {
        if (typeof c.url === 'string' && /^https?:\/\//.test(c.url))
                return el('a', { href: c.url, rel: 'noopener noreferrer', target: '_blank' }, c.source || new URL(c.url).hostname);
        const src = pick(c, 'source', 'citation', 'url');
        if (typeof src === 'string' && /^https?:\/\//.test(src))
                return el('a', { href: src, rel: 'noopener noreferrer', target: '_blank' }, new URL(src).hostname);
        if (src && typeof src === 'object' && src.url)
                return el('a', { href: src.url, rel: 'noopener noreferrer', target: '_blank' }, src.title || new URL(src.url).hostname);
        return src == null ? '—' : String(src);
}

// The measured setup in a few words, from the case's own estimate request.
function configText(c) {
        const r = c.request;
        if (!r || typeof r !== 'object') return pick(c, 'configuration', 'notes') || '—';
        const m = r.model || {};
        const model = m.id || (m.parameters ? `${fmt.count(m.parameters)} params` : (m.hf_config ? (m.hf_config._name_or_path || m.hf_config.model_type || 'config.json') : 'architecture'));
        const w = r.workload || {};
        const par = r.parallelism || {};
        const bits = [model, fmt.words(w.mode), w.batch_size !== undefined ? `batch ${w.batch_size}` : null,
                w.sequence_length ? `seq ${w.sequence_length}` : null,
                w.prompt_tokens ? `${w.prompt_tokens}+${w.generated_tokens || 0} tokens` : null,
                r.precision, r.quantization && r.quantization !== 'none' ? r.quantization : null, r.optimizer,
                r.memory_savers && r.memory_savers.activation_checkpointing && r.memory_savers.activation_checkpointing !== 'none'
                        ? `${r.memory_savers.activation_checkpointing} checkpointing` : null,
                par.strategy && par.strategy !== 'single' ? `${par.strategy} × ${par.gpus || 1}` : null];
        return bits.filter(Boolean).join(', ');
}

function requestDetails(c) {
        const parts = [el('summary', {}, configText(c))];
        if (c.notes) parts.push(el('p', {}, c.notes));
        if (c.problem) parts.push(el('p', { class: 'bad' }, `the engine refused this case: ${c.problem.pointer || ''} ${c.problem.detail || ''}`));
        if (c.request) parts.push(el('pre', { class: 'json' }, JSON.stringify(c.request, null, 2)));
        return el('details', { class: 'setup' }, ...parts);
}

function summary(d) {
        const s = (d && (d.summary || d.stats)) || d || {};
        const med = pick(s, 'median_abs_error', 'median_absolute_error', 'median_error', 'median');
        const p90 = pick(s, 'p90_abs_error', 'p90_absolute_error', 'p90_error', 'p90');
        const n = pick(s, 'count', 'cases', 'n');
        const box = $('#validation-summary');
        box.replaceChildren(
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Median absolute error'),
                        el('strong', { id: 'val-median' }, fmt.percent(med))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, '90th-percentile absolute error'),
                        el('strong', { id: 'val-p90' }, fmt.percent(p90))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Measured cases'),
                        el('strong', {}, fmt.integer(typeof n === 'number' ? n : casesOf(d).length))),
                coverageBox(s.interval_coverage, 'val-coverage'),
                s.comparison ? el('p', { class: 'muted' }, `Compared: ${s.comparison}.`) : null,
                byCategory(s.by_category));
}

// The error bars' leave-one-out coverage: how often the measured value fell
// inside the interval an estimate would have shown without that case.
function coverageBox(c, id) {
        if (!c || typeof c.leave_one_out !== 'number') return null;
        return el('div', { class: 'big', title: `Each estimate shows the 10th-90th percentile of measured / estimated over similar measured runs (target ${fmt.percent(c.target)}); here every case was left out in turn and checked against the interval built from the others.` },
                el('span', { class: 'label' }, 'Error bars held the measured value (leave-one-out)'),
                el('strong', { id }, `${fmt.percent(c.leave_one_out)} of ${fmt.integer(c.cases)}`));
}

// The per-category figures: one row per category the API reports.
function byCategory(list, id = 'validation-categories') {
        if (!Array.isArray(list) || !list.length) return null;
        return el('table', { id, class: 'compact' },
                el('caption', {}, 'Error by kind of run'),
                el('thead', {}, el('tr', {},
                        el('th', { scope: 'col' }, 'Category'), el('th', { scope: 'col', class: 'num' }, 'Cases'),
                        el('th', { scope: 'col', class: 'num' }, 'Median |error|'),
                        el('th', { scope: 'col', class: 'num' }, '90th percentile'))),
                el('tbody', {}, ...list.map((g) => el('tr', { 'data-category': g.category },
                        el('th', { scope: 'row' }, categoryName(g.category)),
                        el('td', { class: 'num' }, fmt.integer(g.count)),
                        el('td', { class: 'num' }, fmt.percent(g.median_abs_error)),
                        el('td', { class: 'num' }, fmt.percent(g.p90_abs_error))))));
}

async function run() {
        let d;
        try {
                d = await apiFetch('api/v1/validation');
                clearProblems(null, $('#validation-problem'));
        } catch (e) {
                showProblem(null, e, $('#validation-problem'));
                return;
        }
        summary(d);
        // Grouped by category (in the order the summary lists them), then by id.
        const order = new Map(((d.summary && d.summary.by_category) || []).map((g, i) => [g.category, i]));
        // Opened from a result's accuracy line: only the cases of its kind.
        const kind = params().vkind;
        const all = casesOf(d);
        const chosen = kind ? all.filter((c) => caseKind(c) === kind) : all;
        $('#validation-filter').replaceChildren(...(kind ? [
                `Showing the ${chosen.length} cases of the kind "${kindLabel(kind)}". `,
                el('a', { href: href('validation', { ...params(), vkind: '' }) }, 'Show every case')] : []));
        const rows = chosen.slice().sort((a, b) =>
                (order.get(a.category) ?? 99) - (order.get(b.category) ?? 99) || String(a.id).localeCompare(String(b.id)));
        renderTable($('#validation-table'), {
                id: 'validation-cases',
                caption: 'Published measurements against the engine',
                csvName: 'gpuplan-validation.csv',
                rows, sort,
                onSort: (s) => { sort = s; },
                rowClass: (c) => (Math.abs(errorOf(c) || 0) > 0.25 ? 'off' : null),
                columns: [
                        { key: 'category', label: 'Category', value: (c) => categoryName(c.category) },
                        { key: 'case', label: 'Case', value: (c) => pick(c, 'name', 'id', 'title') },
                        { key: 'config', label: 'Configuration', value: configText, render: requestDetails },
                        { key: 'kind', label: 'Measured as', value: (c) => pick(c, 'measurement_kind', 'measurement', 'kind'),
                          render: (c) => fmt.words(pick(c, 'measurement_kind', 'measurement', 'kind')) },
                        { key: 'measured', label: 'Measured', numeric: true, value: (c) => numberOf(measured(c)),
                          render: (c) => el('span', { title: c.measured !== undefined ? `as published: ${c.measured} ${c.unit || ''}` : null },
                                bytesOrNumber(measured(c))) },
                        { key: 'estimated', label: 'Estimated', numeric: true, value: (c) => numberOf(estimated(c)), render: (c) => bytesOrNumber(estimated(c)) },
                        { key: 'error', label: 'Error', numeric: true, value: errorOf, render: (c) => fmt.percent(errorOf(c)),
                          cellClass: (c) => (Math.abs(errorOf(c) || 0) > 0.25 ? 'diff' : null) },
                        { key: 'source', label: 'Source', value: (c) => pick(c, 'source', 'url'), render: sourceCell,
                          csv: (c) => [c.source, c.url].filter(Boolean).join(' ') },
                ],
        });
        if (d.time) timeSection(d.time);
}

let timeSort = null;

// The throughput cases: the same layout, with each case's own metric.
function timeSection(t) {
        const s = t.summary || {};
        $('#validation-time-summary').replaceChildren(
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Median absolute error'),
                        el('strong', { id: 'val-time-median' }, fmt.percent(s.median_abs_error))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, '90th-percentile absolute error'),
                        el('strong', { id: 'val-time-p90' }, fmt.percent(s.p90_abs_error))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Measured cases'),
                        el('strong', {}, fmt.integer(s.count))),
                coverageBox(s.interval_coverage, 'val-time-coverage'),
                byCategory(s.by_category, 'validation-time-categories'));
        const order = new Map((s.by_category || []).map((g, i) => [g.category, i]));
        const rows = (t.cases || []).slice().sort((a, b) =>
                (order.get(a.category) ?? 99) - (order.get(b.category) ?? 99) || String(a.id).localeCompare(String(b.id)));
        renderTable($('#validation-time-table'), {
                id: 'validation-time-cases',
                caption: 'Published throughput against the time model',
                csvName: 'gpuplan-validation-time.csv',
                rows, sort: timeSort,
                onSort: (v) => { timeSort = v; },
                rowClass: (c) => (Math.abs(errorOf(c) || 0) > 0.3 ? 'off' : null),
                columns: [
                        { key: 'category', label: 'Category', value: (c) => categoryName(c.category) },
                        { key: 'case', label: 'Case', value: (c) => c.id },
                        { key: 'config', label: 'Configuration', value: configText, render: requestDetails },
                        { key: 'hardware', label: 'Hardware', value: (c) => c.hardware || '—' },
                        { key: 'measured', label: 'Measured', numeric: true, value: (c) => c.measured, render: (c) => metricValue(c, c.measured) },
                        { key: 'estimated', label: 'Estimated', numeric: true, value: (c) => c.estimated, render: (c) => metricValue(c, c.estimated) },
                        { key: 'error', label: 'Error', numeric: true, value: errorOf, render: (c) => fmt.percent(errorOf(c)),
                          cellClass: (c) => (Math.abs(errorOf(c) || 0) > 0.3 ? 'diff' : null) },
                        { key: 'source', label: 'Source', value: (c) => c.source, render: sourceCell,
                          csv: (c) => [c.source, c.url].filter(Boolean).join(' ') },
                ],
        });
}

export default {
        id: 'validation',
        async init() {},
        async show() {
                await run();
        },
        request() {
                return { method: 'GET', path: 'api/v1/validation' };
        },
};
