// tables.js - the Requirement tables view.
//
// 1. The two XLM-RoBERTa tables of the hardware-requirements article
//    (fine-tuning: 4 rows, pre-training: 9 rows), from GET api/v1/scenarios:
//    the reported figures verbatim, the engine's estimate for the same setup
//    beside them, disagreements highlighted, the assumed setup one click
//    away (a <details> per row, and a link that opens it in the calculator).
// 2. A table builder: one estimate per model of a family for one workload.

import { apiFetch } from '../api.js';
import { $, el, list, noteText } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable, toCsv, downloadText } from '../table.js';
import { COMMON_GPU_GB } from '../charts.js';
import { bindForm, fillForm, showProblem, clearProblems } from '../forms.js';
import { params, href, update } from '../state.js';
import { CALC_DEFAULTS } from '../request.js';
import * as data from '../catalogdata.js';

// The article's column headings, in its order.
const SEED_COLUMNS = [
        ['model', 'Model Dimension'], ['training_type', 'Training Type'], ['parameters', 'Num. Parameters'],
        ['gpus', 'Num. GPUs'], ['per_gpu_gb', 'Max. per GPU Size Usage'], ['batch_size', 'Batch Size per GPU'],
        ['gradient_accumulation', 'Gradient Accumulation'], ['global_batch_size', 'Global Batch Size'],
        ['gpu_type', 'GPU Type'], ['hours_per_epoch', 'Time for One Epoch (hours)'],
        ['cpu_gb', 'Additional CPU Memory (GB)'],
];

const pick = (o, ...keys) => {
        for (const k of keys) if (o && o[k] !== undefined && o[k] !== null) return o[k];
        return null;
};

// The size bracket a per-GPU figure falls in: (next smaller common size, size].
function bracketOf(gib) {
        return COMMON_GPU_GB.find((g) => gib <= g) || null;
}

// Which of the article's two tables a scenario belongs to.
function groupOf(s) {
        const t = String(pick(s, 'table_name', 'table', 'kind') || (s.request && s.request.workload && s.request.workload.mode) || '');
        return /pre/i.test(t) ? 'pre_train' : (/fine/i.test(t) ? 'fine_tune' : t);
}

function reportedOf(s) {
        return s.reported || s.reported_values || s.seed || {};
}

// The names a scenario's "reported" object may use for each column: the
// article's own heading, or a snake_case form of it.
const REPORTED_ALIASES = {
        model: ['model', 'model_dimension', 'dimension', 'size'],
        training_type: ['training_type', 'type', 'strategy'],
        parameters: ['parameters', 'num_parameters', 'params'],
        gpus: ['gpus', 'num_gpus', 'gpu_count'],
        per_gpu_gb: ['per_gpu_gb', 'max_per_gpu_size_usage', 'max_per_gpu_gb', 'max_per_gpu_size_gb', 'gpu_size_gb',
                'per_gpu_size_gb', 'gpu_memory_gb'],
        batch_size: ['batch_size', 'batch_size_per_gpu'],
        gradient_accumulation: ['gradient_accumulation', 'grad_accumulation', 'accumulation'],
        global_batch_size: ['global_batch_size', 'global_batch'],
        gpu_type: ['gpu_type', 'gpu'],
        hours_per_epoch: ['hours_per_epoch', 'time_for_one_epoch_hours', 'epoch_hours', 'time_hours', 'hours'],
        cpu_gb: ['cpu_gb', 'additional_cpu_memory_gb', 'additional_cpu_gb', 'cpu_memory_gb'],
};

const squash = (k) => String(k).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');

function reportedText(s, key) {
        const r = reportedOf(s);
        const byName = new Map(Object.entries(r).map(([k, v]) => [squash(k), v]));
        for (const name of [key, ...(REPORTED_ALIASES[key] || [])]) {
                const v = byName.get(name);
                if (v !== undefined && v !== null) return String(v);
        }
        return '';
}

function reportedNumber(s, key) {
        const t = reportedText(s, key).replace(/[*,\s]/g, '');
        const n = Number(t);
        return t !== '' && Number.isFinite(n) ? n : null;
}

// Map an estimate request back onto calculator inputs, so a row's setup can
// be opened in the calculator (only the parts the calculator has inputs for).
export function requestToParams(req) {
        const p = { ...CALC_DEFAULTS };
        const m = req.model || {};
        if (m.id) { p.source = 'catalog'; p.model = m.id; }
        else if (m.parameters) { p.source = 'parameters'; p.parameters = String(m.parameters); }
        else if (m.hf_config) { p.source = 'hf_config'; p.hf = JSON.stringify(m.hf_config); }
        const w = req.workload || {};
        const set = (k, v) => { if (v !== undefined && v !== null) p[k] = typeof v === 'boolean' ? (v ? '1' : '0') : String(v); };
        set('mode', w.mode); set('batch', w.batch_size); set('seq', w.sequence_length);
        set('accum', w.gradient_accumulation); set('labels', w.num_labels);
        set('prompt', w.prompt_tokens); set('gen', w.generated_tokens);
        if (w.lora) { set('lora_rank', w.lora.rank); set('lora_alpha', w.lora.alpha); }
        if (w.dataset) { set('samples', w.dataset.samples); set('epochs', w.dataset.epochs); }
        set('precision', req.precision); set('quant', req.quantization); set('optimizer', req.optimizer);
        const ms = req.memory_savers || {};
        set('ckpt', ms.activation_checkpointing); set('flash', ms.flash_attention); set('chunked', ms.chunked_loss);
        set('opt_bwd', ms.optimizer_in_backward); set('act_off', ms.activation_offload);
        const par = req.parallelism || {};
        set('strategy', par.strategy); set('sharding', par.fsdp_sharding); set('gpus', par.gpus); set('nodes', par.nodes);
        set('tp', par.tensor_parallel); set('pp', par.pipeline_parallel); set('offload', par.offload);
        set('gpu', req.gpu);
        return p;
}

function estimateFigures(s, est) {
        const total = est && est.per_gpu ? est.per_gpu.total_bytes : pick(s, 'estimated_per_gpu_bytes');
        const c = (est && est.compute) || {};
        const seconds = fmt.isNum(c.seconds_per_epoch) ? c.seconds_per_epoch : c.total_seconds;
        const cpu = est && est.cpu ? est.cpu.total_bytes : null;
        return { total, hours: fmt.isNum(seconds) ? seconds / 3600 : null, cpu };
}

// Does the estimate land where the article says?  Memory: in the reported
// bracket (above the next smaller common size, at most the reported size).
// Time and CPU memory: within a factor of 1.5 either way.
function verdicts(s, f) {
        const v = {};
        const rep = reportedNumber(s, 'per_gpu_gb');
        if (rep !== null && fmt.isNum(f.total)) {
                const gib = f.total / fmt.GIB;
                const i = COMMON_GPU_GB.indexOf(rep);
                const lower = i > 0 ? COMMON_GPU_GB[i - 1] : 0;
                v.memory = gib <= rep && gib > lower ? 'lands' : (gib > rep ? 'above' : 'below');
        }
        const within = (a, b) => a / b <= 1.5 && b / a <= 1.5;
        const h = reportedNumber(s, 'hours_per_epoch');
        if (h !== null && fmt.isNum(f.hours) && f.hours > 0) v.time = within(f.hours, h) ? 'lands' : 'off';
        const cpu = reportedNumber(s, 'cpu_gb');
        if (cpu !== null && fmt.isNum(f.cpu) && f.cpu > 0) v.cpu = within(f.cpu / fmt.GB, cpu) ? 'lands' : 'off';
        return v;
}

const VERDICT_TEXT = {
        lands: 'agrees with the article',
        above: 'above the size the article reports',
        below: 'below the article\'s bracket (under the next smaller common size)',
        off: 'differs from the article by more than a factor of 1.5',
};

function pair(reported, estimate, verdict, title) {
        const said = verdict ? `${title}: ${VERDICT_TEXT[verdict] || verdict}` : title;
        return el('span', { class: 'pair' },
                el('span', { class: 'reported', title: 'reported in the article' }, reported === '' ? '—' : reported),
                el('span', { class: 'estimate ' + (verdict && verdict !== 'lands' ? 'diff' : (verdict ? 'same' : '')),
                        title: said, 'data-verdict': verdict || null }, estimate),
                verdict && verdict !== 'lands' ? el('span', { class: 'visually-hidden' }, ` (${VERDICT_TEXT[verdict]})`) : null);
}

// Assumption codes behind the time estimate (server/core/notes.c).
const TIME_NOTES = new Set(['speed_model', 'host_dispatch', 'serving_step_overhead', 'mfu',
        'data_loading_throughput', 'inter_node_bandwidth', 'dataset_unknown']);

function setupDetails(s, est) {
        const notes = pick(s, 'assumptions', 'assumed_setup', 'setup', 'notes');
        const items = Array.isArray(notes) ? notes : (notes ? [notes] : []);
        const req = s.request;
        const children = [el('summary', {}, 'Setup')];
        if (items.length) children.push(list(items.map((n) => (typeof n === 'string' ? n : noteText(n)))));
        const expl = pick(s, 'explanation', 'discrepancy');
        if (expl) children.push(el('p', {}, el('strong', {}, 'Memory: '), noteText(expl)));
        const texpl = pick(s, 'time_explanation');
        if (texpl) children.push(el('p', { class: 'time-explanation' }, el('strong', {}, 'Time: '), noteText(texpl)));
        // The assumptions behind the estimated hours, as the engine states them.
        const timeNotes = ((est && est.assumptions) || []).filter((a) => TIME_NOTES.has(a.code));
        if (timeNotes.length)
                children.push(el('p', {}, 'The estimated hours assume:'),
                              list(timeNotes.map((a) => a.text), 'time-assumptions'));
        if (req) {
                children.push(el('pre', { class: 'json' }, JSON.stringify(req, null, 2)));
                const link = el('a', { href: '#' }, 'Open this row in the calculator');
                link.addEventListener('click', (e) => {
                        e.preventDefault();
                        location.hash = href('calculator', { ...params(), ...requestToParams(req) }).slice(1);
                });
                children.push(link);
        }
        return el('details', { class: 'setup' }, ...children);
}

async function seedTables() {
        const box = $('#tables-seed');
        let d;
        try {
                d = await apiFetch('api/v1/scenarios');
        } catch (e) {
                box.replaceChildren(el('p', { class: 'problem', role: 'alert' },
                        `The seed scenarios could not be loaded (${e.status || 'network'}): ${e.message}`));
                return;
        }
        const scenarios = Array.isArray(d) ? d : (d.scenarios || []);
        // Estimates: from the scenario itself if the API includes them, else
        // one POST api/v1/estimate per row with the row's own request.
        const results = await Promise.all(scenarios.map(async (s) => {
                if (s.estimate && s.estimate.per_gpu) return s.estimate;
                if (!s.request) return null;
                try {
                        return await apiFetch('api/v1/estimate', { method: 'POST', body: s.request });
                } catch (e) {
                        return { error: e };
                }
        }));
        const groups = [['fine_tune', 'Fine-tuning requirements (3-class sentiment analysis, 10 thousand tweets, one epoch)'],
                ['pre_train', 'Pre-training requirements (one million tweets, one epoch)']];
        const parts = [];
        for (const [table, caption] of groups) {
                const rows = scenarios.map((s, i) => ({ s, est: results[i] }))
                        .filter(({ s }) => groupOf(s) === table);
                const holder = el('div', { id: `seed-${table}` });
                parts.push(holder);
                renderSeed(holder, table, caption, rows);
                // Why the amber hours differ, in view under the table rather than
                // only inside each row's Setup cell.
                const why = [...new Set(rows.map(({ s }) => pick(s, 'time_explanation')).filter(Boolean).map(noteText))];
                if (why.length)
                        holder.append(el('div', { class: 'why-hours' }, el('h4', {}, 'Why the estimated hours differ from the article\'s'),
                                ...why.map((t) => el('p', {}, t))));
        }
        box.replaceChildren(el('p', { class: 'legend' },
                'In each pair the bold figure is the article\'s, verbatim; beside it the engine\'s estimate for the row\'s setup ',
                el('span', { class: 'estimate same' }, 'green'), ' where it agrees and ',
                el('span', { class: 'estimate diff' }, 'amber'), ' where it does not (memory: in the article\'s size ' +
                'bracket, i.e. above the next smaller common GPU size and at most the reported one; time and CPU memory: ' +
                'within a factor of 1.5). Multi-GPU rows only need to stay at or under the reported size. ' +
                'A memory pair such as "6.5 → 8" reads: the engine estimates 6.5 GiB per GPU, which needs a GPU of the next ' +
                'common size, 8 GB - the size the article reports.'), ...parts);
}

function renderSeed(holder, group, caption, rows) {
        for (const r of rows) {
                r.f = estimateFigures(r.s, r.est && !r.est.error ? r.est : null);
                r.v = verdicts(r.s, r.f);
        }
        const text = (k) => (r) => reportedText(r.s, k);
        const columns = SEED_COLUMNS.map(([k, label]) => ({ key: k, label, value: text(k) }));
        const col = (k) => columns.find((c) => c.key === k);
        Object.assign(col('per_gpu_gb'), {
                label: 'Max. per GPU Size Usage (reported | estimate GiB)',
                render: (r) => pair(reportedText(r.s, 'per_gpu_gb'),
                        r.est && r.est.error ? `error: ${r.est.error.message}` : `${fmt.gib(r.f.total, 1)} → ${bracketOf(r.f.total / fmt.GIB) || '>141'}`,
                        r.v.memory, 'engine estimate in GiB → the common GPU size it needs'),
                cellClass: (r) => (r.v.memory && r.v.memory !== 'lands' ? 'diffcell' : null),
                csv: (r) => reportedText(r.s, 'per_gpu_gb'),
        });
        Object.assign(col('hours_per_epoch'), {
                label: 'Time for One Epoch (hours) (reported | estimate)',
                render: (r) => pair(reportedText(r.s, 'hours_per_epoch'), fmt.hours(r.f.hours, 1), r.v.time, 'engine estimate, hours'),
                cellClass: (r) => (r.v.time === 'off' ? 'diffcell' : null),
                csv: (r) => reportedText(r.s, 'hours_per_epoch'),
        });
        Object.assign(col('cpu_gb'), {
                label: 'Additional CPU Memory (GB) (reported | estimate)',
                render: (r) => pair(reportedText(r.s, 'cpu_gb'), fmt.gb(r.f.cpu, 0), r.v.cpu, 'engine estimate, GB'),
                cellClass: (r) => (r.v.cpu === 'off' ? 'diffcell' : null),
                csv: (r) => reportedText(r.s, 'cpu_gb'),
        });
        columns.push(
                { key: 'est_bytes', label: 'Estimate per GPU (bytes)', numeric: true, value: (r) => r.f.total, render: (r) => fmt.integer(r.f.total) },
                { key: 'est_hours', label: 'Estimate hours', numeric: true, value: (r) => r.f.hours, hiddenInTable: true },
                { key: 'est_cpu', label: 'Estimate CPU bytes', numeric: true, value: (r) => r.f.cpu, hiddenInTable: true },
                { key: 'setup', label: 'Setup', sortable: false, value: (r) => JSON.stringify(r.s.request || null), render: (r) => setupDetails(r.s, r.est) },
        );
        const shown = columns.filter((c) => !c.hiddenInTable);
        const table = renderTable(holder, {
                id: `seed-table-${group}`, caption, rows,
                csvName: `gpuplan-xlmr-${group}.csv`,
                rowClass: (r) => (Object.values(r.v).some((x) => x !== 'lands') ? 'has-diff' : null),
                columns: shown,
        });
        // The CSV carries the hidden estimate columns too.
        const csvButton = holder.querySelector('button.csv');
        if (csvButton) {
                const fresh = csvButton.cloneNode(true);
                csvButton.replaceWith(fresh);
                fresh.addEventListener('click', () => {
                        downloadText(`gpuplan-xlmr-${group}.csv`, toCsv(columns.filter((c) => c.key !== 'setup'), rows));
                });
        }
        return table;
}

// ---- the builder ----------------------------------------------------------

let builderRun = 0;

function builderRequest(model, p) {
        const n = (v) => (v === undefined || v === '' ? undefined : (Number.isFinite(Number(v)) ? Number(v) : v));
        const req = {
                model: { id: model.id },
                workload: { mode: p.b_mode },
                precision: p.b_precision,
                parallelism: { strategy: p.b_strategy },
        };
        if (n(p.b_batch) !== undefined) req.workload.batch_size = n(p.b_batch);
        if (n(p.b_seq) !== undefined) req.workload.sequence_length = n(p.b_seq);
        if (n(p.b_samples) !== undefined) req.workload.dataset = { samples: n(p.b_samples), epochs: 1 };
        if (p.b_mode !== 'inference') req.optimizer = p.b_optimizer;
        if (n(p.b_gpus) !== undefined) req.parallelism.gpus = n(p.b_gpus);
        if (p.b_gpu && p.b_gpu !== 'none') req.gpu = p.b_gpu;
        return req;
}

const BUILDER_DEFAULTS = { b_family: '', b_mode: 'fine_tune', b_batch: '16', b_seq: '128', b_precision: 'bf16_mixed',
        b_optimizer: 'adamw', b_strategy: 'single', b_gpus: '1', b_gpu: 'a100-sxm-40gb', b_samples: '10000' };

async function buildTable() {
        const p = { ...BUILDER_DEFAULTS, ...params() };
        const form = $('#builder-form');
        const all = await data.models();
        const family = p.b_family || (all[0] && all[0].family);
        const models = all.filter((m) => m.family === family);
        const run = ++builderRun;
        const answers = await Promise.all(models.map(async (m) => {
                const req = builderRequest(m, p);
                try {
                        return { m, req, res: await apiFetch('api/v1/estimate', { method: 'POST', body: req }) };
                } catch (e) {
                        return { m, req, err: e };
                }
        }));
        if (run !== builderRun) return;
        const failed = answers.find((a) => a.err);
        if (failed) showProblem(form, failed.err, $('#builder-problem'));
        else clearProblems(form, $('#builder-problem'));
        const rows = answers.filter((a) => a.res).map(({ m, req, res }) => {
                const c = res.compute || {};
                const secs = fmt.isNum(c.seconds_per_epoch) ? c.seconds_per_epoch : c.total_seconds;
                const fit = req.gpu && Array.isArray(res.fits) ? res.fits.find((f) => f.gpu === req.gpu) : null;
                return { m, req, res, total: res.per_gpu.total_bytes, hours: fmt.isNum(secs) ? secs / 3600 : null,
                        cpu: res.cpu ? res.cpu.total_bytes : null, fit };
        });
        renderTable($('#builder-table'), {
                id: 'builder-result',
                caption: `${family || 'No family'}: ${fmt.words(p.b_mode)}, batch ${p.b_batch}, sequence ${p.b_seq}, ${p.b_precision}, ${p.b_strategy} × ${p.b_gpus}`,
                csvName: `gpuplan-table-${family || 'models'}.csv`,
                rows,
                columns: [
                        { key: 'model', label: 'Model', value: (r) => r.m.name || r.m.id },
                        { key: 'params', label: 'Num. Parameters', numeric: true, value: (r) => r.res.model ? r.res.model.parameters : null,
                          render: (r) => fmt.count(r.res.model ? r.res.model.parameters : null) },
                        { key: 'gpus', label: 'Num. GPUs', numeric: true, value: (r) => r.req.parallelism.gpus },
                        { key: 'gib', label: 'Per GPU (GiB)', numeric: true, value: (r) => r.total, render: (r) => fmt.gib(r.total, 1),
                          csv: (r) => r.total },
                        { key: 'bracket', label: 'Common GPU size (GB)', numeric: true, value: (r) => bracketOf(r.total / fmt.GIB),
                          render: (r) => String(bracketOf(r.total / fmt.GIB) || '> 141') },
                        { key: 'batch', label: 'Batch Size per GPU', numeric: true, value: (r) => r.req.workload.batch_size },
                        { key: 'fit', label: 'Fits chosen GPU', value: (r) => (r.fit ? r.fit.fits : null),
                          render: (r) => (r.fit ? (r.fit.fits ? 'yes' : `no — needs ${fmt.integer(r.fit.gpus_needed)}`) : '—') },
                        { key: 'hours', label: 'Time for One Epoch (hours)', numeric: true, value: (r) => r.hours, render: (r) => fmt.hours(r.hours, 1) },
                        { key: 'cpu', label: 'CPU Memory (GB)', numeric: true, value: (r) => r.cpu, render: (r) => fmt.gb(r.cpu, 0) },
                ],
        });
}

export default {
        id: 'tables',
        async init() {
                const [ms, gs] = await Promise.allSettled([data.models(), data.gpus()]);
                if (ms.status === 'fulfilled') {
                        const fams = Array.from(new Set(ms.value.map((m) => m.family).filter(Boolean)));
                        $('#b-family').replaceChildren(...fams.map((f) => new Option(f, f)));
                }
                if (gs.status === 'fulfilled') data.fillGpuSelect($('#b-gpu'), gs.value, 'none (no time)', 'none');
                bindForm($('#builder-form'), () => buildTable(), 300);
                await seedTables();
        },
        async show() {
                const fam = $('#b-family');
                const first = Array.from(fam.options).find((o) => /xlm/i.test(o.value)) || fam.options[0];
                if (!params().b_family && first) update({ b_family: first.value });
                fillForm($('#builder-form'), { ...BUILDER_DEFAULTS, ...params() });
                await buildTable();
        },
        request() {
                return { method: 'GET', path: 'api/v1/scenarios' };
        },
};
