// calculator.js - the Calculator view: one estimate request built from the
// form, sent as the inputs change, and its answer rendered as a headline,
// a component chart and table, compute and time, notes, and the fit table.

import { apiFetch, ApiError } from '../api.js';
import { $, el, list } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { memoryChart } from '../charts.js';
import { bindForm, fillForm, applyRelevance, showProblem, clearProblems } from '../forms.js';
import { estimateRequest, ModelInputError, relevant } from '../request.js';
import { params, href } from '../state.js';
import * as data from '../catalogdata.js';

let inflight = null;
// The GPU list comes from the first answer's fit table (every catalog GPU
// with its name and memory), so the first view needs no GET api/v1/gpus.
let gpuListFilled = false;
let fitSort = null;

// The order components are listed in (the API's contract order).
const COMPONENT_ORDER = ['weights', 'gradients', 'optimizer_states', 'master_weights', 'activations',
        'logits', 'kv_cache', 'communication_buffers', 'workspace', 'framework_overhead'];

function componentRows(components) {
        const keys = Object.keys(components || {});
        keys.sort((a, b) => {
                const ia = COMPONENT_ORDER.indexOf(a), ib = COMPONENT_ORDER.indexOf(b);
                return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
        });
        return keys.map((k) => ({ name: k, bytes: components[k] }));
}

function componentTable(container, id, caption, total, components, csvName) {
        const rows = componentRows(components);
        rows.push({ name: 'total', bytes: total, total: true });
        renderTable(container, {
                id, caption, csvName, rows,
                rowClass: (r) => r.total ? 'total' : null,
                columns: [
                        { key: 'name', label: 'Component', value: (r) => r.name, render: (r) => fmt.words(r.name) },
                        { key: 'gib', label: 'GiB', numeric: true, value: (r) => r.bytes, render: (r) => fmt.gib(r.bytes),
                          csv: (r) => (typeof r.bytes === 'number' ? r.bytes / fmt.GIB : null) },
                        { key: 'gb', label: 'GB', numeric: true, value: (r) => r.bytes, render: (r) => fmt.gb(r.bytes),
                          csv: (r) => (typeof r.bytes === 'number' ? r.bytes / fmt.GB : null) },
                        { key: 'bytes', label: 'Bytes', numeric: true, value: (r) => r.bytes, render: (r) => fmt.integer(r.bytes) },
                        { key: 'share', label: 'Share', numeric: true, sortable: false,
                          value: (r) => (total ? r.bytes / total : null), render: (r) => fmt.percent(total ? r.bytes / total : null) },
                ],
        });
}

// The shape the importer read, in one line: what decides memory.
function archText(a) {
        const parts = [`${a.layers} layers`, `hidden ${a.hidden_size}`,
                `${a.heads} heads${a.kv_heads && a.kv_heads !== a.heads ? ` (${a.kv_heads} KV)` : ''}`,
                `FFN ${a.ffn_size}${a.gated_mlp ? ' gated' : ''}`, `vocabulary ${a.vocab_size}`];
        if (a.decoder_layers) parts.splice(1, 0, `${a.decoder_layers} decoder layers`);
        if (a.experts > 1) parts.push(`${a.experts} experts, ${a.active_experts} active`);
        if (a.shared_expert_ffn) parts.push(`shared expert ${a.shared_expert_ffn}`);
        if (a.sliding_window) parts.push(`window ${a.sliding_window}${a.global_every ? `, global attention every ${a.global_every} layers` : ''}`);
        if (a.kv_lora_rank) parts.push(`latent KV ${a.kv_lora_rank} + ${a.qk_rope_head_dim}`);
        if (a.generic) parts.push('unknown type: a generic decoder');
        return parts.join(', ');
}

function headline(res, gpu) {
        const total = res.per_gpu && res.per_gpu.total_bytes;
        const box = $('#calc-headline');
        const items = [
                el('div', { class: 'big' },
                        el('span', { class: 'label' }, 'Memory per GPU'),
                        el('strong', { id: 'calc-total', 'data-bytes': String(total) }, `${fmt.gib(total)} GiB`),
                        el('span', { class: 'muted' }, ` (${fmt.gb(total)} GB)`)),
        ];
        if (gpu && gpu.memory_bytes) {
                const fits = total <= gpu.memory_bytes;
                const meter = el('meter', { min: '0', max: String(gpu.memory_bytes), value: String(Math.min(total, gpu.memory_bytes)),
                        'aria-label': `share of ${gpu.name} memory used` });
                items.push(el('div', { class: 'big' },
                        el('span', { class: 'label' }, `${gpu.name} memory`),
                        el('strong', {}, `${fmt.gib(gpu.memory_bytes)} GiB`),
                        meter,
                        el('span', { class: fits ? 'ok' : 'bad', id: 'calc-fits-verdict' },
                                fits ? ' fits' : ' does not fit')));
        }
        if (res.model)
                items.push(el('div', { class: 'big' },
                        el('span', { class: 'label' }, res.model.name || 'Model'),
                        el('strong', {}, fmt.count(res.model.parameters)), ' parameters',
                        res.model.trainable_parameters !== undefined && res.model.trainable_parameters !== res.model.parameters
                                ? el('span', { class: 'muted' }, ` (${fmt.count(res.model.trainable_parameters)} trainable)`) : null));
        const a = res.model && res.model.architecture;
        if (a && params().source === 'hf_config')
                items.push(el('div', { class: 'big', id: 'calc-arch' },
                        el('span', { class: 'label' }, 'config.json understood as'),
                        el('strong', {}, `${a.model_type || 'model'} ${fmt.words(a.kind || '')}`),
                        ' ', archText(a)));
        const peak = res.per_gpu && (res.per_gpu.peak_phase || res.per_gpu.phase);
        if (peak) items.push(el('div', { class: 'big' }, el('span', { class: 'label' }, 'Peak phase'), el('strong', {}, fmt.words(peak))));
        const alloc = res.per_gpu && res.per_gpu.allocated_bytes;
        if (fmt.isNum(alloc))
                items.push(el('div', { class: 'big' },
                        el('span', { class: 'label' }, 'Allocated by tensors (max_memory_allocated)'),
                        el('strong', { id: 'calc-allocated' }, `${fmt.gib(alloc)} GiB`)));
        const reserved = res.per_gpu && res.per_gpu.reserved_bytes;
        if (fmt.isNum(reserved))
                items.push(el('div', { class: 'big' },
                        el('span', { class: 'label' }, 'Reserved by the caching allocator (max_memory_reserved)'),
                        el('strong', { id: 'calc-reserved' }, `${fmt.gib(reserved)} GiB`)));
        const needed = res.per_gpu && res.per_gpu.needed_bytes;
        if (fmt.isNum(needed))
                items.push(el('div', { class: 'big' },
                        el('span', { class: 'label' }, 'Needed to fit (cached segments released before an OOM)'),
                        el('strong', { id: 'calc-needed' }, `${fmt.gib(needed)} GiB`)));
        box.replaceChildren(...items);
}

function computeBlock(res, req) {
        const c = res.compute || {};
        if (!c.gpu) {
                $('#calc-compute').replaceChildren(el('h3', {}, 'Compute and time'),
                        el('p', { class: 'muted', id: 'calc-no-gpu' }, 'Choose a GPU to get time per step, per epoch and the bottleneck.'),
                        el('dl', { class: 'facts' }, el('div', {}, el('dt', {}, 'FLOPs per step'),
                                el('dd', {}, fmt.isNum(c.flops_per_step) ? c.flops_per_step.toExponential(3) : '—'))));
                return;
        }
        const epochs = req.workload && req.workload.dataset && req.workload.dataset.epochs;
        const rows = [
                ['Time per step', fmt.duration(c.seconds_per_step)],
        ];
        if (fmt.isNum(c.seconds_per_epoch)) rows.push(['Time per epoch', fmt.duration(c.seconds_per_epoch)]);
        rows.push([`Total time${epochs ? ` (${epochs} epoch${epochs === 1 ? '' : 's'})` : ''}`, fmt.duration(c.total_seconds), 'calc-total-time'],
                ['Steps', fmt.integer(c.steps)],
                ['FLOPs per step', fmt.isNum(c.flops_per_step) ? c.flops_per_step.toExponential(3) : '—'],
                ['FLOPs total', fmt.isNum(c.flops_total) ? c.flops_total.toExponential(3) : '—'],
                ['Tokens per second', fmt.decimal(c.tokens_per_second, 0)],
                ['MFU assumed', fmt.percent(c.mfu)]);
        const dl = el('dl', { class: 'facts' });
        for (const [k, v, id] of rows) dl.append(el('div', {}, el('dt', {}, k), el('dd', { id }, v)));
        let bottleneck = c.bottleneck;
        let why = null;
        if (bottleneck && typeof bottleneck === 'object') {
                why = bottleneck;
                bottleneck = bottleneck.kind || bottleneck.name || bottleneck.limit || JSON.stringify(bottleneck);
        }
        dl.append(el('div', { class: 'bottleneck' }, el('dt', {}, 'Bottleneck'),
                el('dd', { id: 'calc-bottleneck' }, fmt.words(bottleneck))));
        const extra = [];
        const deciding = why || c.bottleneck_detail || c.bottleneck_seconds || null;
        if (deciding && typeof deciding === 'object') {
                const pairs = Object.entries(deciding).filter(([, v]) => typeof v !== 'object');
                if (pairs.length)
                        extra.push(el('p', { class: 'muted', id: 'calc-bottleneck-detail' }, 'Deciding numbers: ' +
                                pairs.map(([k, v]) => `${fmt.words(k)} ${fmt.byName(k, v)}`).join(', ')));
        }
        for (const [key, title] of [['inference', 'Inference: prefill and decode'], ['serving', 'Serving (engine reserving a share of GPU memory for KV cache)']]) {
                const block = res[key];
                if (!block || typeof block !== 'object') continue;
                const sp = Object.entries(block).filter(([, v]) => v === null || typeof v !== 'object');
                extra.push(el('h4', {}, title), el('dl', { class: 'facts', id: `calc-${key}` },
                        sp.map(([k, v]) => el('div', {}, el('dt', {}, fmt.words(k)),
                                el('dd', {}, fmt.byName(k, v))))));
        }
        $('#calc-compute').replaceChildren(el('h3', {}, 'Compute and time'), dl, ...extra);
}

function notes(res) {
        const parts = [];
        const add = (title, items, cls) => {
                if (Array.isArray(items) && items.length)
                        parts.push(el('section', { class: 'notes ' + cls },
                                el('h3', {}, `${title} (${items.length})`), list(items)));
        };
        add('Warnings', res.warnings, 'warn');
        add('Suggestions', res.suggestions, 'suggest');
        add('Assumptions', res.assumptions, 'assume');
        $('#calc-notes').replaceChildren(...parts);
}

function fitTable(res) {
        const rows = Array.isArray(res.fits) ? res.fits : [];
        renderTable($('#calc-fits'), {
                id: 'fits-table',
                caption: 'Every catalog GPU: does this workload fit, and how many are needed',
                csvName: 'gpuplan-fit.csv',
                rows,
                sort: fitSort,
                onSort: (s) => { fitSort = s; },
                rowClass: (r) => (r.fits ? 'fits' : 'nofit'),
                columns: [
                        { key: 'name', label: 'GPU', value: (r) => r.name || r.gpu },
                        { key: 'memory', label: 'Memory (GiB)', numeric: true, value: (r) => r.memory_bytes, render: (r) => fmt.gib(r.memory_bytes, 0),
                          csv: (r) => r.memory_bytes },
                        { key: 'fits', label: 'Fits', value: (r) => r.fits, render: (r) => (r.fits ? 'yes' : 'no') },
                        { key: 'reason', label: 'Why', value: (r) => r.reason, render: (r) => fmt.words(r.reason) },
                        { key: 'gpus_needed', label: 'GPUs needed', numeric: true, value: (r) => r.gpus_needed, render: (r) => fmt.integer(r.gpus_needed) },
                        { key: 'utilization', label: 'Utilisation', numeric: true, value: (r) => r.utilization, render: (r) => fmt.percent(r.utilization) },
                        { key: 'max_batch', label: 'Largest batch', numeric: true, value: (r) => r.max_batch_size, render: (r) => fmt.integer(r.max_batch_size) },
                ],
        });
}

function render(res, req) {
        const fits = Array.isArray(res.fits) ? res.fits : [];
        if (!gpuListFilled && fits.length) {
                data.fillGpuSelect($('#f-gpu'), fits.map((f) => ({ id: f.gpu, name: f.name, memory_bytes: f.memory_bytes })),
                        'none (fit table only, no time)', 'none');
                gpuListFilled = true;
        }
        const gpu = req.gpu ? (fits.find((f) => f.gpu === req.gpu) || null) : null;
        headline(res, gpu);
        const comps = (res.per_gpu && res.per_gpu.components) || {};
        memoryChart($('#calc-chart'), comps, gpu);
        const box = $('#calc-components');
        box.replaceChildren(el('h3', {}, 'Memory per GPU by component'), el('div', { id: 'calc-components-gpu' }));
        componentTable($('#calc-components-gpu'), 'components-table', 'GPU memory, per GPU, at the peak',
                res.per_gpu && res.per_gpu.total_bytes, comps, 'gpuplan-memory-per-gpu.csv');
        if (res.cpu && (res.cpu.total_bytes || Object.keys(res.cpu.components || {}).length)) {
                const cpuBox = el('div', { id: 'calc-components-cpu' });
                box.append(el('h3', {}, 'CPU memory'), cpuBox);
                componentTable(cpuBox, 'cpu-table', 'Host (CPU) memory', res.cpu.total_bytes, res.cpu.components || {},
                        'gpuplan-cpu-memory.csv');
        }
        const phases = res.per_gpu && res.per_gpu.phases;
        if (phases && typeof phases === 'object' && Object.keys(phases).length) {
                const dl = el('dl', { class: 'facts', id: 'calc-phases' });
                for (const [k, v] of Object.entries(phases))
                        dl.append(el('div', { class: k === (res.per_gpu.peak_phase || '') ? 'bottleneck' : null },
                                el('dt', {}, fmt.words(k)), el('dd', {}, `${fmt.gib(v)} GiB`)));
                box.append(el('h3', {}, 'Memory in each phase (the peak sets the total)'), dl);
        }
        computeBlock(res, req);
        notes(res);
        fitTable(res);
}

function requestOrProblem() {
        try {
                return estimateRequest(params());
        } catch (e) {
                if (e instanceof ModelInputError) {
                        showProblem($('#calc-form'), new ApiError(400, { pointer: e.pointer, detail: e.message }),
                                $('#calc-problem'));
                        return null;
                }
                throw e;
        }
}

async function run() {
        const form = $('#calc-form');
        applyRelevance(form, params(), relevant);
        $('#calc-to-cost').setAttribute('href', href('cost'));
        const req = requestOrProblem();
        if (!req) return;
        if (inflight) inflight.abort();
        const ctl = new AbortController();
        inflight = ctl;
        const results = $('#calc-results');
        results.setAttribute('aria-busy', 'true');
        try {
                const res = await apiFetch('api/v1/estimate', { method: 'POST', body: req, signal: ctl.signal });
                if (ctl.signal.aborted) return;
                clearProblems(form, $('#calc-problem'));
                results.classList.remove('stale');
                render(res, req);
                if (!performance.getEntriesByName('gpuplan:first-result').length)
                        performance.mark('gpuplan:first-result');
        } catch (e) {
                if (e.name === 'AbortError') return;
                results.classList.add('stale');
                showProblem(form, e, $('#calc-problem'));
        } finally {
                if (inflight === ctl) {
                        inflight = null;
                        results.setAttribute('aria-busy', 'false');
                        results.dataset.ready = 'true';
                }
        }
}

let catalogModels = [];

// The search box narrows the model list; a changed choice re-estimates.
function searchModels() {
        const select = $('#f-model');
        const before = select.value;
        data.fillModelSelect(select, catalogModels, $('#f-model-search').value);
        if (select.value && select.value !== before)
                select.dispatchEvent(new Event('change', { bubbles: true }));
}

async function loadLists() {
        const [ms] = await Promise.allSettled([data.models()]);
        if (ms.status === 'fulfilled') {
                catalogModels = ms.value;
                data.fillModelSelect($('#f-model'), ms.value);
        }
        const none = $('#f-gpu');
        if (!none.options.length) none.add(new Option('none (fit table only, no time)', 'none'));
        fillForm($('#calc-form'), params());
}

export default {
        id: 'calculator',
        async init() {
                bindForm($('#calc-form'), run, 300);
                $('#f-model-search').addEventListener('input', searchModels);
                await loadLists();
        },
        async show() {
                fillForm($('#calc-form'), params());
                await run();
        },
        request() {
                const req = estimateRequest(params());
                return { method: 'POST', path: 'api/v1/estimate', body: req };
        },
};
