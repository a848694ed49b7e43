// serving.js - the Serving view: "we expect R requests/s, prompts of about P
// tokens and answers of about G; p95 time to first token must stay under X ms
// and time per output token under Y ms: what is the cheapest deployment?"
// POST api/v1/serving_plan; shows the question as the API restates it (so a
// misread input shows at once), the ranked plans as a table, the
// latency-throughput frontier of the best configurations as a chart, the
// excluded options with their reasons, and the assumptions.

import { apiFetch } from '../api.js';
import { $, $$, el, list } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { curveChart, hideChart } from '../charts.js';
import { bindForm, fillForm, showProblem, clearProblems } from '../forms.js';
import { params, update, href } from '../state.js';
import * as data from '../catalogdata.js';
import { loadAccuracy, timeAccuracy } from '../accuracy.js';

// The view's inputs in the shared address map carry an "s_" prefix (the cost
// view's are "k_"), so they never collide with the calculator's.  The
// defaults ask a chat-sized question that the seed catalog can answer.
const SERVING_DEFAULTS = {
        s_model: 'llama-3.1-8b', s_rps: '5', s_prompt: '1000', s_output: '200',
        s_ttft95: '500', s_tpot: '50', s_quant: 'none', s_prec: 'bf16', s_pricing: 'on_demand',
};

// Checkbox groups (quantization, precision) keep one comma-separated input
// each ("s_quant=none,fp8") rather than one per box; forms.js binds named
// controls one to one, so these boxes carry data-group instead of a name.
const GROUPS = ['s_quant', 's_prec'];

let sort = null;
let inflight = null;

function inputs() {
        return { ...SERVING_DEFAULTS, ...params() };
}

// As typed: a number when it is one, else the raw text for the API to judge.
function num(v) {
        if (v === undefined || v === null || String(v).trim() === '') return undefined;
        const n = Number(v);
        return Number.isFinite(n) ? n : v;
}

function put(obj, key, value) {
        if (value !== undefined) obj[key] = value;
}

const listOf = (v) => String(v || '').split(',').filter(Boolean);

function servingRequest() {
        const p = inputs();
        const traffic = {};
        put(traffic, 'requests_per_second', num(p.s_rps));
        put(traffic, 'prompt_tokens', num(p.s_prompt));
        put(traffic, 'output_tokens', num(p.s_output));
        const slo = {};
        put(slo, 'ttft_p50_ms', num(p.s_ttft50));
        put(slo, 'ttft_p95_ms', num(p.s_ttft95));
        put(slo, 'tpot_ms', num(p.s_tpot));
        const req = { model: { id: String(p.s_model || '').trim() }, traffic, slo };
        // Every combination of the chosen precisions and quantizations is one
        // option the API compares; none chosen leaves its default (bf16, none).
        if (listOf(p.s_prec).length) req.precision = listOf(p.s_prec);
        if (listOf(p.s_quant).length) req.quantization = listOf(p.s_quant);
        const c = { pricing: p.s_pricing };
        if (p.s_providers) c.providers = listOf(p.s_providers);
        put(c, 'max_gpus', num(p.s_maxgpus));
        put(c, 'budget_usd_per_hour', num(p.s_budget));
        req.constraints = c;
        return req;
}

function groupValue(form, group) {
        return $$(`input[data-group="${group}"]`, form).filter((b) => b.checked).map((b) => b.value).join(',');
}

function fillGroups(form, p) {
        for (const g of GROUPS) {
                const on = new Set(listOf(p[g]));
                for (const b of $$(`input[data-group="${g}"]`, form)) b.checked = on.has(b.value);
        }
}

// "bf16", "bf16 fp8", "bf16 fp8, KV fp8": the weights as the API's frontier labels write them.
function weights(w) {
        if (!w) return '—';
        return [w.precision, w.quantization !== 'none' ? w.quantization : null].filter(Boolean).join(' ') +
                (w.kv_cache_precision && w.kv_cache_precision !== 'auto' ? `, KV ${w.kv_cache_precision}` : '');
}

function clearResults() {
        $('#serving-question').textContent = '';
        for (const id of ['#serving-summary', '#serving-table', '#serving-excluded', '#serving-assumptions'])
                $(id).replaceChildren();
        hideChart($('#serving-chart'));
        $('#serving-frontier').hidden = true;
}

// How close the speed estimates behind these plans have been.
function servingAccuracy() {
        const box = $('#serving-accuracy');
        loadAccuracy().then(() => {
                const decode = timeAccuracy('decode'), prefill = timeAccuracy('prefill');
                if (!decode && !prefill) return;
                const part = (name, g) => (g ? `${name} median ${fmt.decimal(g.median * 100, 1)} % off over ${g.count} measured runs` : null);
                box.replaceChildren(`How close the speed estimates behind these plans have been: ${[part('decode speed', decode),
                        part('prefill and time to first token', prefill)].filter(Boolean).join('; ')}. `,
                el('a', { href: href('validation') }, 'See the measured cases'));
        });
}

function renderSummary(res, plans) {
        const best = plans[0];
        servingAccuracy();
        $('#serving-summary').replaceChildren(
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Plans that meet every target'),
                        el('strong', { id: 'serving-count' }, fmt.integer(plans.length))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Cheapest per hour'),
                        el('strong', {}, best ? fmt.usd(best.usd_per_hour) : '—')),
                // A month of serving: 730 hours (8,760 hours a year / 12).
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Per month (730 h)'),
                        el('strong', { id: 'serving-monthly' }, best ? fmt.usd(best.usd_per_hour * 730, 0) : '—')),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Its cost per million output tokens'),
                        el('strong', {}, best ? fmt.usd(best.usd_per_million_output_tokens, 3) : '—')),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'GPU configurations evaluated (each priced at every offering)'),
                        el('strong', {}, fmt.integer(res.configurations_evaluated))));
}

function renderPlans(plans, req) {
        if (!plans.length) {
                const budget = req && req.constraints && req.constraints.budget_usd_per_hour;
                $('#serving-table').replaceChildren(el('p', { class: 'problem', id: 'serving-none' },
                        budget ? `No deployment meets every target within ${fmt.usd(budget)} per hour: raise the budget or relax a target. The excluded options below say why each failed.`
                                : 'No deployment meets every target at this rate. The excluded options below say why each failed.'));
                return;
        }
        renderTable($('#serving-table'), {
                id: 'serving-plans-table',
                caption: 'Ranked plans, cheapest per hour first (rank as the API returned them)',
                csvName: 'gpuplan-serving-plans.csv',
                rows: plans,
                sort, onSort: (s) => { sort = s; },
                // The answer's columns first (what, where, how fast, what it costs);
                // the rest behind the column chooser.
                columns: [
                        { key: 'rank', label: '#', numeric: true, value: (p) => p.rank },
                        { key: 'gpu', label: 'GPU', value: (p) => p.gpu_name || p.gpu, cellClass: () => 'nowrap' },
                        { key: 'provider', label: 'Provider', value: (p) => providerNames.get(p.provider) || p.provider, cellClass: () => 'nowrap' },
                        { key: 'usd_h', label: 'USD per hour', numeric: true, value: (p) => p.usd_per_hour, render: (p) => fmt.usd(p.usd_per_hour) },
                        { key: 'usd_month', label: 'USD per month (730 h)', numeric: true, value: (p) => p.usd_per_hour * 730,
                          render: (p) => fmt.usd(p.usd_per_hour * 730, 0) },
                        { key: 'shape', label: 'TP × replicas = GPUs', numeric: true, value: (p) => p.gpus,
                          render: (p) => `${p.tensor_parallel} × ${p.replicas} = ${p.gpus}`,
                          csv: (p) => `${p.tensor_parallel}x${p.replicas}=${p.gpus}` },
                        { key: 'weights', label: 'Weights', value: (p) => weights(p.weights) },
                        { key: 'ttft', label: 'TTFT p50 / p95 (ms)', numeric: true, value: (p) => p.ttft_p95_ms,
                          render: (p) => `${fmt.decimal(p.ttft_p50_ms, 0)} / ${fmt.decimal(p.ttft_p95_ms, 0)}`,
                          csv: (p) => `${p.ttft_p50_ms}/${p.ttft_p95_ms}` },
                        { key: 'tpot', label: 'TPOT (ms)', numeric: true, value: (p) => p.tpot_ms, render: (p) => fmt.decimal(p.tpot_ms, 1) },
                        { key: 'instance', label: 'Instance', value: (p) => p.offering, optional: true,
                          render: (p) => el('span', { class: 'instance' }, p.instance_type || '', el('code', {}, p.offering)) },
                        { key: 'conc', label: 'Concurrency per replica / max', numeric: true, value: (p) => p.concurrency_per_replica, optional: true,
                          render: (p) => `${fmt.decimal(p.concurrency_per_replica, 1)} / ${fmt.integer(p.max_concurrency_per_replica)}`,
                          csv: (p) => `${p.concurrency_per_replica}/${p.max_concurrency_per_replica}` },
                        { key: 'capacity', label: 'Capacity (req/s)', numeric: true, value: (p) => p.capacity_requests_per_second, optional: true,
                          render: (p) => fmt.decimal(p.capacity_requests_per_second, 2) },
                        { key: 'headroom', label: 'Headroom', numeric: true, value: (p) => p.headroom, render: (p) => fmt.percent(p.headroom, 0), optional: true },
                        { key: 'usd_m', label: 'USD per M output tokens', numeric: true, value: (p) => p.usd_per_million_output_tokens, optional: true,
                          render: (p) => fmt.usd(p.usd_per_million_output_tokens, 3) },
                        { key: 'asof', label: 'Price as of', value: (p) => p.price_as_of, optional: true },
                ],
        });
}

// Each frontier entry is one configuration (GPU x TP x weights) at
// concurrency 1, 2, 4, ... up to its KV capacity: a line from few fast
// sequences to many slower ones.  The TPOT target is drawn across it, so the
// usable part of each line is the part under the dashed line.
function renderFrontier(frontier, req) {
        const box = $('#serving-frontier');
        if (!frontier.length) {
                hideChart($('#serving-chart'));
                box.hidden = true;
                return;
        }
        box.hidden = false;     // before drawing: Chart.js sizes itself from its box
        const series = frontier.map((f) => ({
                label: f.label,
                points: (f.points || []).map((pt) => ({
                        x: pt.output_tokens_per_second_per_gpu, y: pt.tpot_ms,
                        tip: `${fmt.decimal(pt.concurrency, 0)} in flight: ${fmt.decimal(pt.output_tokens_per_second_per_gpu, 0)} tokens/s per GPU, ` +
                                `TPOT ${fmt.decimal(pt.tpot_ms, 1)} ms, TTFT ${fmt.decimal(pt.ttft_ms, 0)} ms`,
                })),
        }));
        const target = req.slo.tpot_ms;
        const limits = fmt.isNum(target) ? [{ label: `TPOT target (${fmt.decimal(target, 0)} ms)`, y: target }] : [];
        curveChart($('#serving-chart'), series, limits, 'output tokens per second per GPU', 'time per output token (ms)');
}

function renderExcluded(excluded, openIt) {
        const box = $('#serving-excluded');
        if (!excluded.length) {
                box.replaceChildren();
                return;
        }
        // Keep the list open across re-runs once the user has opened it.
        const wasOpen = Boolean($('details[open]', box));
        const holder = el('div');
        box.replaceChildren(el('details', { open: wasOpen || openIt },
                el('summary', {}, `Excluded options (${excluded.length}) and why`), holder));
        renderTable(holder, {
                id: 'serving-excluded-table', csvName: 'gpuplan-serving-excluded.csv', rows: excluded,
                columns: [
                        { key: 'gpu', label: 'GPU', value: (x) => x.gpu },
                        { key: 'offering', label: 'Offering', value: (x) => x.offering },
                        { key: 'tp', label: 'TP', numeric: true, value: (x) => x.tensor_parallel },
                        { key: 'weights', label: 'Weights', value: (x) => (x.weights ? weights(x.weights) : null) },
                        { key: 'reason', label: 'Reason', value: (x) => x.reason },
                ],
        });
}

function render(res, req) {
        const plans = Array.isArray(res.plans) ? res.plans : [];
        $('#serving-question').textContent = res.question || '';
        renderSummary(res, plans);
        renderPlans(plans, req);
        renderFrontier(Array.isArray(res.frontier) ? res.frontier : [], req);
        renderExcluded(Array.isArray(res.excluded) ? res.excluded : [], !plans.length);
        const notes = Array.isArray(res.assumptions) ? res.assumptions : [];
        $('#serving-assumptions').replaceChildren(...(notes.length ? [el('h3', {}, 'Assumptions'), list(notes)] : []));
}

let lastKey = null;
const providerNames = new Map();

async function run() {
        const form = $('#serving-form');
        const results = $('#serving-results');
        const req = servingRequest();
        // One request per action: a click that follows the edit it submits
        // (the field's change and the form's submit) asks once.
        const key = JSON.stringify(req);
        if (key === lastKey) return;
        lastKey = key;
        if (inflight) inflight.abort();
        const ctl = new AbortController();
        inflight = ctl;
        results.setAttribute('aria-busy', 'true');
        try {
                const res = await apiFetch('api/v1/serving_plan', { method: 'POST', body: req, signal: ctl.signal });
                clearProblems(form, $('#serving-problem'));
                render(res, req);
        } catch (e) {
                if (e.name === 'AbortError') return;
                lastKey = null;
                clearResults();
                showProblem(form, e, $('#serving-problem'));
        } finally {
                // A newer request aborted this one: it is the one still busy.
                if (inflight === ctl) {
                        inflight = null;
                        results.setAttribute('aria-busy', 'false');
                        results.dataset.ready = 'true';
                }
        }
}

export default {
        id: 'serving',
        async init() {
                const form = $('#serving-form');
                const [ms, ps] = await Promise.allSettled([data.models(), data.providers()]);
                // Generation needs a decoder: encoder-only models are left out of
                // the suggestions (the API would refuse them with a 400).
                if (ms.status === 'fulfilled') {
                        const decoders = ms.value.filter((m) => !(m.architecture && m.architecture.kind === 'encoder'));
                        // The calculator's search: every word against id, name, family,
                        // Hub ids and size ("llama 8b").
                        const suggest = () => {
                                const q = $('#s-model').value;
                                const hits = decoders.filter((m) => data.modelMatches(m, q));
                                $('#s-models').replaceChildren(...(hits.length ? hits : decoders)
                                        .flatMap((m) => [m.id, ...(m.hub_ids || [])].map((id) => el('option', { value: id, label: m.name || m.id }))));
                        };
                        suggest();
                        $('#s-model').addEventListener('input', suggest);
                }
                if (ps.status === 'fulfilled')
                        for (const pr of ps.value) providerNames.set(pr.id, pr.name || pr.id);
                if (ps.status === 'fulfilled')
                        $('#s-providers').replaceChildren(...ps.value.map((p) => new Option(p.name || p.id, p.id)));
                bindForm(form, run, 400);
                form.addEventListener('change', (e) => {
                        const g = e.target.dataset && e.target.dataset.group;
                        if (!g) return;
                        update({ [g]: groupValue(form, g) });
                        run();
                });
        },
        async show() {
                const p = inputs();
                fillForm($('#serving-form'), p);
                fillGroups($('#serving-form'), p);
                await run();
        },
        request() {
                return { method: 'POST', path: 'api/v1/serving_plan', body: servingRequest() };
        },
};
