// cost.js - the Cost comparison view: POST api/v1/compare with the
// calculator's workload plus constraints (ranked plans as a table and a bar
// chart, the excluded options with their reasons), and rent versus buy.

import { apiFetch } from '../api.js';
import { $, el } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { barChart, lineChart, hideChart } from '../charts.js';
import { bindForm, fillForm, showProblem, clearProblems } from '../forms.js';
import { estimateRequest } from '../request.js';
import { params, href } from '../state.js';
import * as data from '../catalogdata.js';

let sort = null;
let inflight = null;
let rentInflight = null;

const COST_DEFAULTS = { k_pricing: 'on_demand', k_rank: 'cost', r_jobs: '2-3', r_hours: '4-6', r_gpus: '1' };

function num(v) {
        if (v === undefined || v === null || v === '') return undefined;
        const n = Number(v);
        return Number.isFinite(n) ? n : v;
}

function compareRequest() {
        const p = { ...COST_DEFAULTS, ...params() };
        const req = estimateRequest(p);
        const c = { pricing: p.k_pricing, rank_by: p.k_rank };
        if (num(p.k_deadline) !== undefined) c.deadline_hours = num(p.k_deadline);
        if (num(p.k_budget) !== undefined) c.budget_usd = num(p.k_budget);
        if (num(p.k_maxgpus) !== undefined) c.max_gpus = num(p.k_maxgpus);
        if (p.k_providers) c.providers = p.k_providers.split(',').filter(Boolean);
        // Exactly the calculator's setup: no memory saver added behind its back.
        c.memory_savers = [];
        req.constraints = c;
        return req;
}

// The same question with the savers the search may add: offered as a
// suggestion beside the plans, never applied to them.
function variantRequest(req) {
        const { memory_savers: _drop, ...c } = req.constraints;
        return { ...req, constraints: c };
}

const providerNames = new Map();

// "2× NVIDIA H100 SXM 80GB · RunPod · 2x H100 SXM": names for people.
function planName(p) {
        return [`${p.gpus}× ${p.gpu_name || p.gpu}`, providerNames.get(p.provider) || p.provider,
                p.instance_type || p.offering].filter(Boolean).join(' · ');
}

// The figure plans are ranked by: dollars per job when hours are known,
// else dollars per million tokens.
function planCost(p) {
        return fmt.isNum(p.cost_usd) ? p.cost_usd : p.usd_per_million_tokens;
}

function suggestion(res, variant) {
        const box = $('#cost-suggestion');
        const best = (r) => (r && Array.isArray(r.plans) && r.plans.length ? r.plans[0] : null);
        const a = best(res), b = best(variant);
        if (!b || (a && !(planCost(b) < planCost(a) * 0.95))) {
                box.replaceChildren();
                return;
        }
        const added = (b.memory_savers || []).map(fmt.words).join(' and ') || 'more GPUs';
        const ratio = a ? planCost(a) / planCost(b) : null;
        box.replaceChildren(el('p', { class: 'suggest' },
                el('strong', {}, 'Suggestion: '),
                a ? `with ${added}, ${fmt.decimal(ratio, 1)}× cheaper` : `with ${added} it fits`,
                ` (${planName(b)}, ${fmt.isNum(b.cost_usd) ? fmt.usd(b.cost_usd) + ' per job' : fmt.usd(b.usd_per_million_tokens) + ' per million tokens'}). `,
                'The plans below price your settings as they are; ',
                el('a', { href: href('calculator') }, 'change them in the calculator'), ' to use it.'));
}

function workloadSummary(req) {
        const m = req.model.id || (req.model.parameters ? `${fmt.count(req.model.parameters)} parameters` : 'custom model');
        const w = req.workload;
        const box = $('#cost-workload');
        box.replaceChildren(
                'Workload: ', el('strong', {}, m), `, ${fmt.words(w.mode)}, batch ${w.batch_size ?? '—'}`,
                w.sequence_length ? `, sequence ${w.sequence_length}` : '',
                w.dataset ? `, ${w.dataset.tokens ? fmt.count(w.dataset.tokens) + ' tokens' : fmt.integer(w.dataset.samples) + ' samples'} × ${w.dataset.epochs ?? 1} epoch(s)` : ', no dataset size (cost per million tokens)',
                `, ${req.precision}${req.optimizer ? ', ' + req.optimizer : ''}. `,
                el('a', { href: href('calculator') }, 'Change it in the calculator'));
}

function planLabel(p) {
        return planName(p);
}

function renderPlans(res) {
        const plans = Array.isArray(res.plans) ? res.plans : [];
        const excluded = Array.isArray(res.excluded) ? res.excluded : [];
        const first = plans[0];
        const pricing = (res.constraints && res.constraints.pricing) || 'on_demand';
        $('#cost-summary').replaceChildren(...[
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Plans'), el('strong', { id: 'cost-count' }, fmt.integer(plans.length))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, first && fmt.isNum(first.cost_usd) ? 'Cheapest, per job' : 'Cheapest, per million tokens'),
                        el('strong', { id: 'cost-cheapest' }, first ? fmt.usd(planCost(first), planCost(first) < 1 ? 4 : 2) : '—')),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Its price per hour'),
                        el('strong', {}, first ? `${fmt.usd(first.usd_per_gpu_hour * first.gpus)}/h` : '—')),
                first && fmt.isNum(first.hours) ? el('div', { class: 'big' }, el('span', { class: 'label' }, 'How long it takes'),
                        el('strong', { id: 'cost-hours' }, fmt.duration(first.hours * 3600))) : null,
                first ? el('p', { class: 'muted wide' }, `Cheapest: ${planName(first)}.`) : null,
                !plans.length ? el('p', { class: 'bad wide', id: 'cost-none' },
                        res.constraints && (res.constraints.budget_usd || res.constraints.deadline_hours)
                                ? 'No plan meets the budget or deadline: raise the budget, allow more time or more GPUs, or change the settings in the calculator.'
                                : 'No priced GPU holds this setup: allow more GPUs or change the settings in the calculator.') : null,
                pricing === 'spot' ? el('p', { class: 'muted wide' },
                        'Spot prices are for capacity the provider can take back at short notice; they are set per provider, so a spot price can be dearer than another provider\'s on-demand one.') : null].filter(Boolean));
        const top = plans.slice(0, 15);
        if (!top.length) hideChart($('#cost-chart'));
        else barChart($('#cost-chart'), top.map(planLabel), top.map(planCost),
                        first && fmt.isNum(first.cost_usd) ? 'Cost per job' : 'Cost per million tokens', 'USD', (i) => i === 0);
        renderTable($('#cost-table'), {
                id: 'plans-table',
                caption: 'Ranked plans (rank as the API returned them)',
                csvName: 'gpuplan-plans.csv',
                rows: plans.map((p, i) => ({ ...p, rank: i + 1 })),
                sort, onSort: (s) => { sort = s; },
                columns: [
                        { key: 'rank', label: '#', numeric: true, value: (p) => p.rank },
                        { key: 'gpu', label: 'GPU', value: (p) => p.gpu_name || p.gpu },
                        { key: 'provider', label: 'Provider', value: (p) => providerNames.get(p.provider) || p.provider },
                        { key: 'offering', label: 'Instance', value: (p) => p.instance_type || p.offering },
                        { key: 'gpus', label: 'GPUs', numeric: true, value: (p) => p.gpus },
                        { key: 'strategy', label: 'Strategy', value: (p) => p.strategy, render: (p) => fmt.words(p.strategy) },
                        { key: 'savers', label: 'Memory savers', value: (p) => savers(p.memory_savers) },
                        { key: 'mem', label: 'Per GPU (GiB)', numeric: true, value: (p) => p.per_gpu_bytes, render: (p) => fmt.gib(p.per_gpu_bytes, 1),
                          csv: (p) => p.per_gpu_bytes },
                        { key: 'hours', label: 'Hours', numeric: true, value: (p) => p.hours, render: (p) => fmt.hours(p.hours) },
                        { key: 'cost', label: 'Cost (USD)', numeric: true, value: (p) => p.cost_usd, render: (p) => fmt.usd(p.cost_usd) },
                        { key: 'per_mtok', label: 'USD per million tokens', numeric: true, value: (p) => p.usd_per_million_tokens,
                          render: (p) => fmt.usd(p.usd_per_million_tokens, 4) },
                        { key: 'rate', label: 'USD per GPU-hour', numeric: true, value: (p) => p.usd_per_gpu_hour, render: (p) => fmt.usd(p.usd_per_gpu_hour, 3) },
                        { key: 'asof', label: 'Price as of', value: (p) => p.price_as_of },
                ],
        });
        const ex = $('#cost-excluded');
        if (!excluded.length) {
                ex.replaceChildren();
                return;
        }
        const holder = el('div');
        ex.replaceChildren(el('details', {}, el('summary', {}, `Excluded options (${excluded.length}) and why`), holder));
        renderTable(holder, {
                id: 'excluded-table', csvName: 'gpuplan-excluded.csv', rows: excluded,
                columns: [
                        { key: 'gpu', label: 'GPU', value: (x) => x.gpu },
                        { key: 'provider', label: 'Provider', value: (x) => x.provider },
                        { key: 'reason', label: 'Reason', value: (x) => x.reason },
                ],
        });
}

function savers(ms) {
        if (!ms) return '';
        if (typeof ms === 'string') return ms;
        if (Array.isArray(ms)) return ms.join(', ');
        return Object.entries(ms).filter(([, v]) => v && v !== 'none').map(([k, v]) => (v === true ? fmt.words(k) : `${fmt.words(k)}: ${fmt.words(v)}`)).join(', ') || 'none';
}

async function runCompare() {
        const form = $('#cost-form');
        let req;
        try {
                req = compareRequest();
        } catch (e) {
                showProblem(form, e, $('#cost-problem'));
                return;
        }
        workloadSummary(req);
        if (inflight) inflight.abort();
        const ctl = new AbortController();
        inflight = ctl;
        try {
                const [res, variant] = await Promise.all([
                        apiFetch('api/v1/compare', { method: 'POST', body: req, signal: ctl.signal }),
                        apiFetch('api/v1/compare', { method: 'POST', body: variantRequest(req), signal: ctl.signal }).catch(() => null),
                ]);
                clearProblems(form, $('#cost-problem'));
                renderPlans(res);
                suggestion(res, variant);
        } catch (e) {
                if (e.name === 'AbortError') return;
                hideChart($('#cost-chart'));
                for (const id of ['#cost-summary', '#cost-table', '#cost-excluded']) $(id).replaceChildren();
                showProblem(form, e, $('#cost-problem'));
        } finally {
                if (inflight === ctl) inflight = null;
        }
}

// ---- rent versus buy -----------------------------------------------------
// POST api/v1/rent_vs_buy: usage as a number or a [low, high] range (the "Hardware for ML Practitioners" guide
// asks about "2-3 jobs a week of 4-6 hours"), the monthly cost of renting
// each priced offering and of owning, and the break-even hours per month.

// "2-3" -> [2, 3]; "2.5" -> 2.5; anything else goes to the API as typed.
function usage(text) {
        const t = String(text ?? '').trim();
        const m = /^(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)$/.exec(t);
        if (m) return [Number(m[1]), Number(m[2])];
        return num(t);
}

// Defaults when nothing is chosen: the example of the "Hardware for ML Practitioners" guide, an A100 - the
// first one with a cloud price to rent, and the first with a purchase price.
let rentGpuFallback = '';
let buyGpuFallback = '';
let boughtIds = new Set();

function rentRequest() {
        const p = { ...COST_DEFAULTS, ...params() };
        const req = {};
        const calcGpu = p.gpu && p.gpu !== 'none' ? p.gpu : '';
        const gpu = p.r_gpu || calcGpu || rentGpuFallback;
        if (gpu) req.gpu = gpu;
        const buy = p.r_buy || (boughtIds.has(gpu) ? gpu : buyGpuFallback);
        if (buy && buy !== gpu) req.buy_gpu = buy;
        if (num(p.r_usd) !== undefined) req.purchase_usd = num(p.r_usd);
        if (num(p.r_gpus) !== undefined) req.gpus = num(p.r_gpus);
        if (usage(p.r_jobs) !== undefined) req.jobs_per_week = usage(p.r_jobs);
        if (usage(p.r_hours) !== undefined) req.hours_per_job = usage(p.r_hours);
        if (p.k_pricing) req.pricing = p.k_pricing;
        return req;
}

const lowHigh = (v, f) => {
        if (v && typeof v === 'object' && 'low' in v)
                return v.low === v.high ? f(v.low) : `${f(v.low)} – ${f(v.high)}`;
        return f(v);
};
const high = (v) => (v && typeof v === 'object' && 'high' in v ? v.high : v);

function renderRent(res) {
        const buy = res.buy || {};
        const offers = Array.isArray(res.rent) ? res.rent : [];
        const hpm = res.usage ? res.usage.hours_per_month : null;
        const cheapest = offers.slice().sort((a, b) => high(a.monthly_usd) - high(b.monthly_usd))[0];
        $('#rent-summary').replaceChildren(
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Use per month'),
                        el('strong', {}, `${lowHigh(hpm, (v) => fmt.hours(v, 0))} h`)),
                el('div', { class: 'big' }, el('span', { class: 'label' }, `Owning ${buy.boards ?? ''}× ${buy.gpu_name || buy.gpu || ''} per month`),
                        el('strong', { id: 'rent-own' }, lowHigh(buy.monthly_usd, (v) => fmt.usd(v, 0)))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Cheapest rent per month'),
                        el('strong', {}, cheapest ? lowHigh(cheapest.monthly_usd, (v) => fmt.usd(v, 0)) : '—')),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Break-even against it'),
                        el('strong', {}, cheapest ? `${fmt.hours(cheapest.break_even_hours_per_month, 0)} h/month` : '—')));
        renderTable($('#rent-table'), {
                id: 'rent-offers', csvName: 'gpuplan-rent-vs-buy.csv', rows: offers,
                caption: `Renting each offering against owning (purchase ${fmt.usd(buy.purchase_usd, 0)}` +
                        `${buy.purchase_as_of ? ' as of ' + buy.purchase_as_of : ''}, amortised ${fmt.usd(buy.amortised_monthly_usd, 0)}/month, ` +
                        `power ${fmt.usd(buy.energy_usd_per_hour, 3)}/hour)`,
                columns: [
                        { key: 'provider', label: 'Provider', value: (o) => o.provider },
                        { key: 'offering', label: 'Offering', value: (o) => o.instance_type || o.offering },
                        { key: 'instances', label: 'Instances', numeric: true, value: (o) => o.instances },
                        { key: 'rate', label: 'USD per hour', numeric: true, value: (o) => o.usd_per_hour, render: (o) => fmt.usd(o.usd_per_hour, 3) },
                        { key: 'monthly', label: 'Rent per month (USD)', numeric: true, value: (o) => high(o.monthly_usd),
                          render: (o) => lowHigh(o.monthly_usd, (v) => fmt.usd(v, 0)), csv: (o) => JSON.stringify(o.monthly_usd) },
                        { key: 'owned', label: 'Owned GPUs (like for like)', numeric: true, value: (o) => (o.own ? o.own.gpus : null) },
                        { key: 'own', label: 'Own per month (USD)', numeric: true, value: (o) => (o.own ? high(o.own.monthly_usd) : null),
                          render: (o) => (o.own ? lowHigh(o.own.monthly_usd, (v) => fmt.usd(v, 0)) : '—'), csv: (o) => (o.own ? JSON.stringify(o.own.monthly_usd) : '') },
                        { key: 'breakeven', label: 'Break-even (hours/month)', numeric: true, value: (o) => o.break_even_hours_per_month,
                          render: (o) => (o.break_even_hours_per_month === null ? 'never' : fmt.hours(o.break_even_hours_per_month, 0)) },
                        { key: 'cheaper', label: 'Cheaper at this use', value: (o) => (o.cheaper ? `${o.cheaper.low}/${o.cheaper.high}` : null),
                          render: (o) => (o.cheaper ? (o.cheaper.low === o.cheaper.high ? o.cheaper.low : `${o.cheaper.low} – ${o.cheaper.high}`) : '—') },
                        { key: 'asof', label: 'Price as of', value: (o) => o.price_as_of },
                ],
        });
        // Like for like: the API's break_even_series sets the offering with the
        // lowest price per GPU-hour against owning the same GPUs (servers, power
        // at PUE, hosting, depreciation to resale), both monthly costs against
        // utilisation; mark the break-even and the requested use.
        const series = res.break_even_series;
        if (series && Array.isArray(series.points) && series.points.length) {
                const pct = (u) => u * 100;
                const marks = [];
                const last = series.points[series.points.length - 1];
                if (fmt.isNum(series.break_even_utilisation) && series.break_even_utilisation <= 1) {
                        // Renting is proportional to use, so its line gives the break-even's height.
                        const u = series.break_even_utilisation;
                        marks.push({ label: `Break-even: ${fmt.hours(u * 100, 0)}% utilisation`, x: pct(u),
                                y: last.rent_monthly_usd * u / last.utilisation });
                }
                lineChart($('#rent-chart'), [
                        { label: `Rent: ${series.provider} ${series.offering}`, points: series.points.map((p) => ({ x: pct(p.utilisation), y: p.rent_monthly_usd })) },
                        { label: `Own the same ${series.gpus} GPU${series.gpus === 1 ? '' : 's'}`, points: series.points.map((p) => ({ x: pct(p.utilisation), y: p.own_monthly_usd })) },
                ], marks, 'utilisation (% of the hours in a month)', 'USD per month');
        } else {
                hideChart($('#rent-chart'));
        }
}

async function runRent() {
        const form = $('#rent-form');
        if (rentInflight) rentInflight.abort();
        const ctl = new AbortController();
        rentInflight = ctl;
        try {
                const res = await apiFetch('api/v1/rent_vs_buy', { method: 'POST', body: rentRequest(), signal: ctl.signal });
                clearProblems(form, $('#rent-problem'));
                renderRent(res);
        } catch (e) {
                if (e.name === 'AbortError') return;
                hideChart($('#rent-chart'));
                for (const id of ['#rent-summary', '#rent-table']) $(id).replaceChildren();
                showProblem(form, e, $('#rent-problem'));
        } finally {
                if (rentInflight === ctl) rentInflight = null;
        }
}

export default {
        id: 'cost',
        async init() {
                const [gs, ps, prs, pps] = await Promise.allSettled([data.gpus(), data.providers(), data.prices(),
                        data.purchasePrices(), data.models()]);
                if (gs.status === 'fulfilled') {
                        const priced = new Set(prs.status === 'fulfilled' ? prs.value.map((r) => r.gpu) : []);
                        const bought = new Set(pps.status === 'fulfilled' ? pps.value.map((r) => r.gpu) : []);
                        boughtIds = bought;
                        const rentable = gs.value.filter((g) => priced.has(g.id));
                        const buyable = gs.value.filter((g) => bought.has(g.id));
                        const a100 = (list) => (list.find((g) => /a100/i.test(g.id)) || list[0] || {}).id || '';
                        rentGpuFallback = a100(rentable);
                        buyGpuFallback = a100(buyable);
                        data.fillGpuSelect($('#r-gpu'), rentable.length ? rentable : gs.value,
                                `the calculator's GPU, else ${rentGpuFallback}`);
                        data.fillGpuSelect($('#r-buy'), buyable.length ? buyable : gs.value,
                                `the rented GPU if priced, else ${buyGpuFallback}`);
                }
                if (ps.status === 'fulfilled')
                        for (const pr of ps.value) providerNames.set(pr.id, pr.name || pr.id);
                if (ps.status === 'fulfilled')
                        $('#k-providers').replaceChildren(...ps.value.map((p) => new Option(p.name || p.id, p.id)));
                bindForm($('#cost-form'), runCompare, 400);
                bindForm($('#rent-form'), runRent, 400);
        },
        async show() {
                const p = { ...COST_DEFAULTS, ...params() };
                fillForm($('#cost-form'), p);
                fillForm($('#rent-form'), p);
                await Promise.all([runCompare(), runRent()]);
        },
        request() {
                return { method: 'POST', path: 'api/v1/compare', body: compareRequest() };
        },
        rentRequest() {
                return { method: 'POST', path: 'api/v1/rent_vs_buy', body: rentRequest() };
        },
};
