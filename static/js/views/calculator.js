// calculator.js - the Calculator view: one estimate request built from the
// form, sent as the inputs change, and its answer rendered as a headline,
// a component chart and table, compute and time, notes, and the fit table.

import { apiFetch, ApiError } from '../api.js';
import { $, el, list } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { memoryChart } from '../charts.js';
import { bindForm, fillForm, applyRelevance, showProblem, clearProblems, debounce } from '../forms.js';
import { estimateRequest, ModelInputError, relevant, startingSettings, modelKind, addModels, STARTING_KEYS } from '../request.js';
import { params, href, update, explicitKeys } from '../state.js';
import { accuracyFor, loadAccuracy } from '../accuracy.js';
import * as data from '../catalogdata.js';
import { archText, hubFacts, sourceLine } from '../modelinfo.js';

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

// The one figure: what each GPU needs, as nvidia-smi would show it, and
// whether the chosen GPU holds it (the API's own verdict for that GPU).
function headline(res, gpu) {
        const pg = res.per_gpu || {};
        const total = pg.total_bytes;
        const box = $('#calc-headline');
        const items = [
                el('p', { class: 'answer' },
                        el('span', { class: 'label' }, 'Needs '),
                        el('strong', { id: 'calc-total', 'data-bytes': String(total) }, `${fmt.gib(total)} GiB`),
                        el('span', {}, ' on each GPU'),
                        el('span', { class: 'muted' }, ` (${fmt.gb(total)} GB; what nvidia-smi would show)`)),
        ];
        if (gpu && gpu.memory_bytes) {
                const fits = Boolean(gpu.fits);
                // The verdict's own figure: what must fit (needed) over usable memory.
                const needed = fmt.isNum(pg.needed_bytes) ? pg.needed_bytes : total;
                const share = fmt.isNum(gpu.utilization) ? gpu.utilization : needed / gpu.memory_bytes;
                // The width through the CSSOM: the page's CSP refuses style attributes.
                const fill = el('span');
                fill.style.width = `${Math.min(100, share * 100).toFixed(1)}%`;
                const verdict = fits ? 'fits' : (gpu.reason && gpu.reason !== 'too_small' ? fmt.words(gpu.reason) : 'does not fit');
                items.push(el('div', { class: 'capacity' },
                        el('p', { class: 'verdict' },
                                el('span', { class: fits ? 'ok' : 'bad', id: 'calc-fits-verdict' }, fits ? 'Fits' : 'Does not fit'),
                                ` the ${gpu.name} (${fmt.gib(gpu.memory_bytes)} GiB usable): it needs ${fmt.percent(share, 0)} of it`,
                                !fits && verdict !== 'does not fit' ? ` — ${verdict}` : '',
                                total > needed * 1.01 ? el('span', { class: 'muted' },
                                        ` (${fmt.gib(needed)} GiB; nvidia-smi shows more because PyTorch keeps cached blocks it would free before running out)`) : ''),
                        el('div', { class: `bar ${fits ? 'ok' : 'bad'}`, id: 'calc-capacity', 'data-fits': String(fits), 'aria-hidden': 'true' },
                                fill)));
        }
        if (res.model) {
                const trainable = res.model.trainable_parameters;
                const lora = (res.assumptions || []).find((a) => a && a.code === 'default_lora');
                const why = lora ? String(lora.text).replace(/^lora not given:\s*/, '') : loraReason(res.input || {});
                items.push(el('p', { class: 'model-line' },
                        el('strong', {}, res.model.name || 'Model'), ': ', fmt.count(res.model.parameters), ' parameters',
                        trainable !== undefined && trainable !== res.model.parameters
                                ? el('span', { id: 'calc-trainable' }, `, ${fmt.count(trainable)} trained${why ? ` (${why})` : ''}`) : null));
        }
        const a = res.model && res.model.architecture;
        const source = res.model && sourceLine(res.model.source);
        if (source) items.push(source);
        if (a && (params().source === 'hf_config' || source))
                items.push(el('p', { class: 'model-line', id: 'calc-arch' },
                        'config.json understood as ', el('strong', {}, `${a.model_type || 'model'} ${fmt.words(a.kind || '')}`),
                        ': ', archText(a)));
        // The accuracy line, or its place until the validation figures arrive.
        items.push(accuracyLine(res) || el('p', { class: 'accuracy', id: 'calc-accuracy' }, '\u00a0'));
        // The other memory figures, each with what it means.
        const rows = [];
        const fact = (id, label, bytes, why) => {
                if (fmt.isNum(bytes))
                        rows.push(el('div', {}, el('dt', {}, label), el('dd', { id }, `${fmt.gib(bytes)} GiB`), el('dd', { class: 'why' }, why)));
        };
        fact('calc-allocated', 'Allocated by tensors', pg.allocated_bytes,
                'What torch.cuda.max_memory_allocated() reports: the bytes live tensors hold at the peak.');
        fact('calc-reserved', 'Reserved by PyTorch', pg.reserved_bytes,
                'What torch.cuda.max_memory_reserved() reports: allocated plus blocks the caching allocator keeps for reuse.');
        fact('calc-needed', 'Needed to fit', pg.needed_bytes,
                'Reserved plus the CUDA context, less cached blocks the allocator frees before it gives up: the figure compared with the GPU.');
        const peak = pg.peak_phase || pg.phase;
        if (peak) rows.push(el('div', {}, el('dt', {}, 'Peak phase'), el('dd', {}, fmt.words(peak)),
                el('dd', { class: 'why' }, 'The moment of the step when memory is highest; the figures above are taken there.')));
        if (rows.length)
                items.push(el('details', { class: 'memory-details', id: 'calc-memory-details' },
                        el('summary', {}, 'Allocated, reserved and needed: what each figure means'),
                        el('dl', { class: 'facts explained' }, rows)));
        box.replaceChildren(...items);
}

// Why LoRA and QLoRA train different numbers of parameters at one rank:
// the page sends no target modules, so each mode takes the engine's
// default targets - PEFT's query and value projections for LoRA, every
// linear layer for QLoRA (Dettmers et al. 2023, section 4).
function loraReason(input) {
        if (input.mode === 'lora')
                return `rank ${input.lora_rank} adapters on the query and value projections, PEFT's default targets`;
        if (input.mode === 'qlora')
                return `rank ${input.lora_rank} adapters on every linear layer, as the QLoRA paper trains them: more than LoRA's default query and value projections`;
        return null;
}

// "LoRA, one GPU: median 2.5 % off over 12 measured runs", linked to them.
function accuracyLine(res) {
        const input = res.input || {};
        const acc = accuracyFor(input.mode, input.gpus || 1);
        if (!acc) return null;
        return el('p', { class: 'accuracy', id: 'calc-accuracy' },
                `How close such estimates have been — ${acc.label}: median ${fmt.decimal(acc.median * 100, 1)} % off over ${acc.count} measured run${acc.count === 1 ? '' : 's'}`,
                acc.time ? `; its time: median ${fmt.decimal(acc.time.median * 100, 1)} % off over ${acc.time.count}. ` : '. ',
                el('a', { href: `#/validation?vkind=${encodeURIComponent(acc.key)}` }, 'See those cases'));
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
        const dataset = req.workload && req.workload.dataset;
        const epochs = dataset && dataset.epochs;
        const training = req.workload && req.workload.mode !== 'inference';
        const rows = [
                ['Time per step', fmt.duration(c.seconds_per_step), 'calc-step-time'],
        ];
        if (training && fmt.isNum(c.tokens_per_second) && c.tokens_per_second > 0)
                rows.push(['Time per million tokens', fmt.duration(1e6 / c.tokens_per_second), 'calc-per-million']);
        // A total only for a dataset size someone entered.
        if (training && dataset) {
                if (fmt.isNum(c.seconds_per_epoch)) rows.push(['Time per epoch', fmt.duration(c.seconds_per_epoch)]);
                rows.push([`Total time (${epochs || 1} epoch${(epochs || 1) === 1 ? '' : 's'})`, fmt.duration(c.total_seconds), 'calc-total-time'],
                        ['Steps', fmt.integer(c.steps)],
                        ['FLOPs total', fmt.isNum(c.flops_total) ? c.flops_total.toExponential(3) : '—']);
        }
        rows.push(['FLOPs per step', fmt.isNum(c.flops_per_step) ? c.flops_per_step.toExponential(3) : '—'],
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
        if (training && !dataset)
                extra.unshift(el('p', { class: 'muted', id: 'calc-no-dataset' },
                        'Enter a dataset size (tokens or samples) for the total time; until then time is per step and per million tokens.'));
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
        // The heading arrives with the table, so nothing above it moves it twice.
        const box = $('#calc-fits');
        const holder = el('div');
        box.replaceChildren(el('h3', {}, 'Fit over the catalog'), holder);
        renderTable(holder, {
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

let lastRes = null;
let accuracyAsked = false;

// The accuracy line arrives when the validation figures do; they are asked
// for after the first answer is on screen (about 300 KB: they must not
// delay it).
function askAccuracy() {
        if (accuracyAsked) return;
        accuracyAsked = true;
        loadAccuracy().then(() => {
                const line = lastRes && accuracyLine(lastRes);
                const old = $('#calc-accuracy');
                if (line && old) old.replaceWith(line);
        });
}

function render(res, req) {
        lastRes = res;
        // An answer may reveal a vision tower the model list did not show.
        const arch = res.model && res.model.architecture;
        if (req.model && req.model.id && arch && arch.vision_parameters > 0 && !relevant('images', params())) {
                addModels([{ id: req.model.id, architecture: arch }]);
                applyRelevance($('#calc-form'), params(), relevant);
        }
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
        syncForm(res);
        fitOptions(req, gpu);
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


// ---- the form shows the values in force -------------------------------

// Settings a framework's preset may fill, as the page names them and as
// the answer's "input" reports them.
const FRAMEWORK_KEYS = { precision: 'precision', ckpt: 'activation_checkpointing', flash: 'flash_attention', strategy: 'strategy' };
// Blank number fields show what the engine used, as their placeholder.
const PLACEHOLDER_KEYS = { batch: 'batch_size', seq: 'sequence_length', accum: 'gradient_accumulation', lora_rank: 'lora_rank' };

function fwKeys(p = params()) {
        return String(p.fw_keys || '').split(',').filter(Boolean);
}

// Write the settings the answer used into the form: those a framework
// filled (so the form never shows fp32 while the result used bf16), and the
// defaults behind blank fields as placeholders.
function syncForm(res) {
        const input = res.input || {};
        const p = params();
        const patch = {};
        for (const k of fwKeys(p)) {
                const v = input[FRAMEWORK_KEYS[k]];
                if (v === undefined) continue;
                const text = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
                if (p[k] !== text) patch[k] = text;
        }
        if (Object.keys(patch).length) {
                update(patch);
                fillForm($('#calc-form'), params());
        }
        for (const [k, name] of Object.entries(PLACEHOLDER_KEYS)) {
                const c = $(`#calc-form [name="${k}"]`);
                if (c && input[name] !== undefined) c.placeholder = `default ${input[name]}`;
        }
        for (const k of Object.keys(FRAMEWORK_KEYS)) {
                const help = $(`#calc-form [name="${k}"]`);
                const field = help && help.closest('.field');
                if (field) field.classList.toggle('from-framework', fwKeys(p).includes(k));
        }
}

// ---- make it fit ----------------------------------------------------------

let fitInflight = null;

// The settings an option lists, as the page's inputs.
function optionPatch(settings) {
        const map = { mode: 'mode', precision: 'precision', quantization: 'quant', batch_size: 'batch',
                gradient_accumulation: 'accum', optimizer: 'optimizer', activation_checkpointing: 'ckpt',
                offload: 'offload', lora_rank: 'lora_rank', strategy: 'strategy', gpus: 'gpus', tensor_parallel: 'tp' };
        const patch = {};
        for (const [k, name] of Object.entries(map))
                if (settings[k] !== undefined) patch[name] = String(settings[k]);
        if (settings.flash_attention !== undefined) patch.flash = settings.flash_attention ? '1' : '0';
        // What the option sets is no longer the framework's to fill.
        patch.fw_keys = fwKeys().filter((k) => !(k in patch)).join(',');
        return patch;
}

function applyOption(settings) {
        update(optionPatch(settings));
        fillForm($('#calc-form'), params());
        run();
        $('#calc-headline').scrollIntoView({ block: 'nearest' });
}

async function fitOptions(req, gpu) {
        const box = $('#calc-fit-options');
        if (fitInflight) fitInflight.abort();
        if (!gpu || gpu.fits || (gpu.reason && gpu.reason !== 'too_small')) {
                box.replaceChildren();
                box.hidden = true;
                return;
        }
        const ctl = new AbortController();
        fitInflight = ctl;
        const p = params();
        const allow = relevant('allow_peft', p) && p.allow_peft === '1';
        box.hidden = false;
        box.setAttribute('aria-busy', 'true');
        try {
                const res = await apiFetch('api/v1/fit_options', { method: 'POST', body: { ...req, fit: { allow_adapters: allow } }, signal: ctl.signal });
                if (ctl.signal.aborted) return;
                const items = (res.options || []).map((o, i) => el('li', { class: 'fit-option' },
                        el('p', {}, el('strong', {}, o.summary)),
                        el('p', { class: 'muted' },
                                `Needs ${fmt.gib(o.per_gpu_bytes)} GiB on each of ${o.settings.gpus || 1} GPU${(o.settings.gpus || 1) > 1 ? 's' : ''}`,
                                fmt.isNum(o.seconds_per_step) ? `; ${fmt.duration(o.seconds_per_step)} per step` : '',
                                fmt.isNum(o.gpu_seconds_per_million_tokens) ? `; ${fmt.duration(o.gpu_seconds_per_million_tokens)} of GPU time per million tokens` : '',
                                fmt.isNum(o.slowdown) ? ` (${o.slowdown >= 1 ? `${fmt.decimal(o.slowdown, 2)}× the GPU time of your settings` : `${fmt.decimal(1 / o.slowdown, 2)}× faster than your settings would run`})` : ''),
                        el('button', { type: 'button', class: 'apply', 'data-option': String(i) }, i === 0 ? 'Apply these changes' : 'Apply')));
                const list = el('ol', { class: 'fit-list' }, items);
                list.addEventListener('click', (e) => {
                        const b = e.target.closest('button.apply');
                        if (b) applyOption(res.options[Number(b.dataset.option)].settings);
                });
                box.replaceChildren(el('h3', { id: 'h-fit' }, `Make it fit the ${res.gpu_name || gpu.name}`),
                        items.length
                                ? el('p', { class: 'muted' }, 'The smallest sets of changes that fit, cheapest in GPU time first. Each was checked with the full estimate.')
                                : el('p', { class: 'bad', id: 'calc-fit-none' }, res.note || 'Nothing searched fits this GPU.'),
                        items.length ? list : null,
                        relevant('allow_peft', p) ? el('p', { class: 'muted' }, allow
                                ? 'LoRA and QLoRA are allowed as changes (untick "Allow LoRA / QLoRA" to keep full training).'
                                : 'Tick "Allow LoRA / QLoRA" to let the search train adapters instead.') : null);
        } catch (e) {
                if (e.name === 'AbortError') return;
                box.replaceChildren(el('p', { class: 'muted' }, `The fit search failed: ${e.message}`));
        } finally {
                if (fitInflight === ctl) fitInflight = null;
                box.setAttribute('aria-busy', 'false');
        }
}

// ---- starting settings ------------------------------------------------------

// A new mode or model kind starts from the settings a practitioner would
// use (request.js startingSettings); a chosen framework fills its own.
function onStartingChange(e) {
        const c = e.target;
        if (!c.name || !['mode', 'model', 'source', 'kind', 'framework', 'hf'].includes(c.name)) return;
        if (e.type === 'input' && c.tagName === 'SELECT') return;
        const before = params();
        const next = { ...before, [c.name]: c.type === 'checkbox' ? (c.checked ? '1' : '0') : c.value };
        const patch = {};
        if (c.name === 'framework') {
                patch.fw_keys = next.framework === 'none' ? '' : Object.keys(FRAMEWORK_KEYS).join(',');
        } else if (next.mode !== before.mode || modelKind(next) !== modelKind(before)) {
                const start = startingSettings(next);
                for (const k of STARTING_KEYS) if (start[k] !== undefined) patch[k] = start[k];
                // Settings the framework fills stay its own.
                for (const k of fwKeys(before)) delete patch[k];
        }
        if (Object.keys(patch).length) {
                update(patch);
                fillForm($('#calc-form'), { ...params(), [c.name]: next[c.name] });
        }
}

// Keys a link leaves out take the starting settings of its mode and model.
function startFromLink() {
        const p = params();
        const start = startingSettings(p);
        const given = explicitKeys();
        const patch = {};
        for (const k of STARTING_KEYS)
                if (!given.has(k) && start[k] !== undefined && p[k] !== start[k]) patch[k] = start[k];
        if (Object.keys(patch).length) update(patch);
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
                askAccuracy();
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
// Models beyond the list loaded with the page, by id: team models stored
// since, and Hub models the server has read (origin "hub").
const foundModels = new Map();

function allModels() {
        const ids = new Set(catalogModels.map((m) => m.id));
        return [...catalogModels, ...[...foundModels.values()].filter((m) => !ids.has(m.id))];
}

// "3 matches: 2 catalog, 1 team model" for the search text.
function matchesText(text, counts) {
        if (!String(text).trim()) return '';
        if (!counts.total) return 'No catalog, team or Hub-read model matches.';
        const parts = [];
        if (counts.catalog) parts.push(`${counts.catalog} catalog`);
        if (counts.team) parts.push(`${counts.team} team model${counts.team === 1 ? '' : 's'}`);
        if (counts.hub) parts.push(`${counts.hub} read from the Hub`);
        return `${counts.total} match${counts.total === 1 ? '' : 'es'}: ${parts.join(', ')}`;
}

function setHubProblem(text) {
        const search = $('#f-model-search');
        const slot = $('#e-hub');
        slot.textContent = text || '';
        if (text) {
                search.setAttribute('aria-invalid', 'true');
                search.setAttribute('aria-describedby', 'e-hub');
        } else {
                search.removeAttribute('aria-invalid');
                search.removeAttribute('aria-describedby');
        }
}

// The search box narrows the model list; a changed choice re-estimates.
// An id that reads as a Hub repository no catalog or team model has offers
// a look-up.
function showMatches(text) {
        const select = $('#f-model');
        const before = select.value;
        const counts = data.fillModelSelect(select, allModels(), text);
        $('#f-model-matches').textContent = matchesText(text, counts);
        const hub = data.hubId(text);
        // A model read from the Hub before is listed, and its look-up (from the
        // server's memory) still shows what was read.
        const offer = Boolean(hub) && hub.id.toLowerCase() !== shownHubId &&
                !data.knownId(allModels().filter((m) => m.origin !== 'hub'), hub.id);
        const button = $('#f-hub-lookup');
        button.hidden = !offer;
        $('#f-hub-lookup-help').hidden = !offer;
        if (offer) button.textContent = `Look up ${hub.id} on the Hugging Face Hub`;
        if (select.value && select.value !== before)
                select.dispatchEvent(new Event('change', { bubbles: true }));
}

// The server's search (GET api/v1/models?q=) adds the team models stored
// after the page loaded and the Hub models it has read.
let searchInflight = null;
async function searchServer(text) {
        const hub = data.hubId(text);
        const q = (hub ? hub.id : String(text)).trim();
        if (searchInflight) searchInflight.abort();
        if (!q || q.length > 128) return;
        const ctl = new AbortController();
        searchInflight = ctl;
        try {
                const d = await apiFetch('api/v1/models', { query: { q, limit: 100 }, signal: ctl.signal });
                const found = [...(d.models || []),
                        ...(d.hub_models || []).map((m) => ({ ...m, name: m.name || m.id, origin: 'hub' }))];
                for (const m of found) foundModels.set(m.id, m);
                addModels(found);
                if ($('#f-model-search').value === text) showMatches(text);
        } catch (e) {
                // The list the page loaded still answers; the search is a bonus.
                if (e.name !== 'AbortError') $('#f-model-matches').textContent += ' (the server search did not answer)';
        } finally {
                if (searchInflight === ctl) searchInflight = null;
        }
}
const searchLater = debounce(searchServer, 250);

function searchModels() {
        const text = $('#f-model-search').value;
        setHubProblem('');
        showMatches(text);
        searchLater(text);
}

// The Hub id whose look-up is on screen (lower case), so it is not offered again.
let shownHubId = '';

// The revision a look-up pinned (a /tree/{rev} URL), for the model choice
// the look-up makes; any other choice of model clears it.
let pendingRevision = null;

// GET api/v1/hub/{org}/{name}: show what was read, then estimate that id.
async function lookUp() {
        const hub = data.hubId($('#f-model-search').value);
        if (!hub) return;
        const box = $('#f-hub-read');
        const button = $('#f-hub-lookup');
        setHubProblem('');
        button.disabled = true;
        box.hidden = false;
        box.setAttribute('aria-busy', 'true');
        box.replaceChildren(el('p', { class: 'muted' }, `Reading ${hub.id} from the Hugging Face Hub…`));
        try {
                const [org, name] = hub.id.split('/');
                const r = await apiFetch(`api/v1/hub/${encodeURIComponent(org)}/${encodeURIComponent(name)}`,
                        { query: { revision: hub.revision } });
                const m = { id: r.id, name: r.id, origin: 'hub',
                        architecture: { ...(r.architecture || {}), vision_parameters: r.vision_parameters } };
                foundModels.set(m.id, m);
                addModels([m]);
                box.replaceChildren(...hubFacts(r));
                shownHubId = r.id.toLowerCase();
                // Fill the calculator: the list narrows to this model and it is chosen.
                $('#f-model-search').value = r.id;
                showMatches(r.id);
                const select = $('#f-model');
                select.value = r.id;
                pendingRevision = hub.revision;
                select.dispatchEvent(new Event('change', { bubbles: true }));
                // Narrowing the list can choose another match for a moment (the
                // first option, before the look-up's own model is set), and that
                // choice hides the box: the model on screen now is the one read.
                box.hidden = false;
        } catch (e) {
                box.hidden = true;
                box.replaceChildren();
                shownHubId = '';
                // The API's own sentence: it says what to do (set HF_TOKEN, paste the config).
                setHubProblem(e.problem && e.problem.detail ? e.problem.detail : e.message);
        } finally {
                button.disabled = false;
                box.setAttribute('aria-busy', 'false');
        }
}

async function loadLists() {
        const [ms] = await Promise.allSettled([data.models()]);
        if (ms.status === 'fulfilled') {
                catalogModels = ms.value;
                data.fillModelSelect($('#f-model'), ms.value);
                startFromLink();
        }
        const none = $('#f-gpu');
        if (!none.options.length) none.add(new Option('none (fit table only, no time)', 'none'));
        fillForm($('#calc-form'), params());
}

export default {
        id: 'calculator',
        async init() {
                const form = $('#calc-form');
                fillForm(form, params());
                applyRelevance(form, params(), relevant);
                // A model chosen by hand drops a revision a Hub look-up pinned,
                // and what the look-up read.
                form.addEventListener('change', (e) => {
                        if (e.target.name !== 'model') return;
                        update({ rev: pendingRevision || '' });
                        pendingRevision = null;
                        // What a look-up read stays on screen while its model is chosen.
                        if (e.target.value.toLowerCase() !== shownHubId) {
                                shownHubId = '';
                                $('#f-hub-read').hidden = true;
                        }
                });
                form.addEventListener('change', onStartingChange);
                form.addEventListener('input', onStartingChange);
                form.addEventListener('change', (e) => {
                        const k = e.target.name;
                        if (k in FRAMEWORK_KEYS && fwKeys().includes(k))
                                update({ fw_keys: fwKeys().filter((x) => x !== k).join(',') });
                });
                bindForm(form, run, 300);

                $('#f-model-search').addEventListener('input', searchModels);
                $('#f-hub-lookup').addEventListener('click', lookUp);
                await loadLists();
        },
        async show() {
                // A link followed later (a requirement-table row) also gets the
                // starting settings for what it leaves out.
                startFromLink();
                fillForm($('#calc-form'), params());
                await run();
        },
        request() {
                const req = estimateRequest(params());
                return { method: 'POST', path: 'api/v1/estimate', body: req };
        },
};
