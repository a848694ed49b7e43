// cost.js - the Cost comparison view: POST api/v1/compare with the
// calculator's workload plus constraints (ranked plans as a table and a bar
// chart, the excluded options with their reasons), and rent versus buy.

import { apiFetch } from '../api.js';
import { $, el } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { barChart, lineChart } from '../charts.js';
import { bindForm, fillForm, showProblem, clearProblems } from '../forms.js';
import { estimateRequest } from '../request.js';
import { params, href, update } from '../state.js';
import * as data from '../catalogdata.js';

let sort = null;
let inflight = null;
let rentInflight = null;

const COST_DEFAULTS = { k_pricing: 'on_demand', k_rank: 'cost', r_jobs: '2.5', r_hours: '5', r_gpus: '1' };

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
        req.constraints = c;
        return req;
}

function workloadSummary(req) {
        const m = req.model.id || (req.model.parameters ? `${fmt.count(req.model.parameters)} parameters` : 'custom model');
        const w = req.workload;
        const box = $('#cost-workload');
        box.replaceChildren(
                'Workload: ', el('strong', {}, m), `, ${fmt.words(w.mode)}, batch ${w.batch_size ?? '—'}`,
                w.sequence_length ? `, sequence ${w.sequence_length}` : '',
                w.dataset ? `, ${fmt.integer(w.dataset.samples)} samples × ${w.dataset.epochs ?? 1} epoch(s)` : '',
                `, ${req.precision}${req.optimizer ? ', ' + req.optimizer : ''}. `,
                el('a', { href: href('calculator') }, 'Change it in the calculator'));
}

function planLabel(p) {
        return `${p.gpus}× ${p.gpu} · ${p.provider}`;
}

function renderPlans(res) {
        const plans = Array.isArray(res.plans) ? res.plans : [];
        const excluded = Array.isArray(res.excluded) ? res.excluded : [];
        $('#cost-summary').replaceChildren(
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Plans'), el('strong', { id: 'cost-count' }, fmt.integer(plans.length))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Cheapest'),
                        el('strong', {}, plans.length ? fmt.usd(Math.min(...plans.map((p) => p.cost_usd))) : '—')),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Options evaluated'), el('strong', {}, fmt.integer(res.evaluated))));
        const top = plans.slice(0, 15);
        barChart($('#cost-chart'), top.map(planLabel), top.map((p) => p.cost_usd), 'Total cost', 'USD', (i) => i === 0);
        renderTable($('#cost-table'), {
                id: 'plans-table',
                caption: 'Ranked plans (rank as the API returned them)',
                csvName: 'gpuplan-plans.csv',
                rows: plans.map((p, i) => ({ ...p, rank: i + 1 })),
                sort, onSort: (s) => { sort = s; },
                columns: [
                        { key: 'rank', label: '#', numeric: true, value: (p) => p.rank },
                        { key: 'gpu', label: 'GPU', value: (p) => p.gpu },
                        { key: 'provider', label: 'Provider', value: (p) => p.provider },
                        { key: 'offering', label: 'Offering', value: (p) => p.offering },
                        { key: 'gpus', label: 'GPUs', numeric: true, value: (p) => p.gpus },
                        { key: 'strategy', label: 'Strategy', value: (p) => p.strategy, render: (p) => fmt.words(p.strategy) },
                        { key: 'savers', label: 'Memory savers', value: (p) => savers(p.memory_savers) },
                        { key: 'mem', label: 'Per GPU (GiB)', numeric: true, value: (p) => p.per_gpu_bytes, render: (p) => fmt.gib(p.per_gpu_bytes, 1),
                          csv: (p) => p.per_gpu_bytes },
                        { key: 'hours', label: 'Hours', numeric: true, value: (p) => p.hours, render: (p) => fmt.hours(p.hours) },
                        { key: 'cost', label: 'Cost (USD)', numeric: true, value: (p) => p.cost_usd, render: (p) => fmt.usd(p.cost_usd) },
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
                const res = await apiFetch('api/v1/compare', { method: 'POST', body: req, signal: ctl.signal });
                clearProblems(form, $('#cost-problem'));
                renderPlans(res);
        } catch (e) {
                if (e.name === 'AbortError') return;
                showProblem(form, e, $('#cost-problem'));
        } finally {
                if (inflight === ctl) inflight = null;
        }
}

// ---- rent versus buy -----------------------------------------------------

function rentRequest() {
        const p = { ...COST_DEFAULTS, ...params() };
        const req = {};
        const gpu = p.r_gpu || p.gpu;
        if (gpu) req.gpu = gpu;
        if (num(p.r_gpus) !== undefined) req.gpus = num(p.r_gpus);
        if (num(p.r_jobs) !== undefined) req.jobs_per_week = num(p.r_jobs);
        if (num(p.r_hours) !== undefined) req.hours_per_job = num(p.r_hours);
        if (p.k_pricing) req.pricing = p.k_pricing;
        return req;
}

function renderRent(res) {
        const own = res.own || res.owning || {};
        const offers = res.offerings || res.rent || res.cloud || [];
        const usage = res.usage || {};
        const hoursPerMonth = usage.hours_per_month ?? res.hours_per_month;
        $('#rent-summary').replaceChildren(
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Use per month'), el('strong', {}, `${fmt.hours(hoursPerMonth, 1)} h`)),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Owning per month'),
                        el('strong', { id: 'rent-own' }, fmt.usd(own.monthly_usd ?? own.usd_per_month))),
                el('div', { class: 'big' }, el('span', { class: 'label' }, 'Cheapest rent per month'),
                        el('strong', {}, offers.length ? fmt.usd(Math.min(...offers.map((o) => o.monthly_usd ?? o.usd_per_month))) : '—')));
        renderTable($('#rent-table'), {
                id: 'rent-offers', csvName: 'gpuplan-rent-vs-buy.csv', rows: offers,
                caption: 'Monthly cost of renting each offering against owning',
                columns: [
                        { key: 'provider', label: 'Provider', value: (o) => o.provider },
                        { key: 'offering', label: 'Offering', value: (o) => o.offering },
                        { key: 'rate', label: 'USD per hour', numeric: true, value: (o) => o.usd_per_hour ?? o.usd_per_gpu_hour, render: (o) => fmt.usd(o.usd_per_hour ?? o.usd_per_gpu_hour, 3) },
                        { key: 'monthly', label: 'Rent per month (USD)', numeric: true, value: (o) => o.monthly_usd ?? o.usd_per_month, render: (o) => fmt.usd(o.monthly_usd ?? o.usd_per_month) },
                        { key: 'breakeven', label: 'Break-even (hours/month)', numeric: true, value: (o) => o.break_even_hours_per_month,
                          render: (o) => fmt.hours(o.break_even_hours_per_month, 1) },
                        { key: 'asof', label: 'Price as of', value: (o) => o.as_of ?? o.price_as_of },
                ],
        });
        // The chart draws the API's two cost lines (rent: hourly price × hours;
        // own: fixed monthly cost + running cost × hours) and their crossing.
        const best = offers.slice().sort((a, b) => (a.monthly_usd ?? a.usd_per_month) - (b.monthly_usd ?? b.usd_per_month))[0];
        const fixed = own.fixed_monthly_usd ?? own.amortization_usd_per_month;
        const running = own.usd_per_hour ?? own.running_usd_per_hour;
        if (best && fmt.isNum(fixed) && fmt.isNum(running)) {
                const rate = best.usd_per_hour ?? best.usd_per_gpu_hour;
                const be = best.break_even_hours_per_month;
                const xmax = Math.max(730, (hoursPerMonth || 0) * 1.2);
                lineChart($('#rent-chart'), [
                        { label: `Rent: ${best.provider} ${best.offering}`, points: [{ x: 0, y: 0 }, { x: xmax, y: rate * xmax }] },
                        { label: 'Own', points: [{ x: 0, y: fixed }, { x: xmax, y: fixed + running * xmax }] },
                ], fmt.isNum(be) ? [{ label: `Break-even: ${fmt.hours(be, 0)} h/month`, x: be, y: fixed + running * be }] : [],
                'hours of use per month', 'USD per month');
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
                showProblem(form, e, $('#rent-problem'));
        } finally {
                if (rentInflight === ctl) rentInflight = null;
        }
}

export default {
        id: 'cost',
        async init() {
                const [gs, ps] = await Promise.allSettled([data.gpus(), data.providers()]);
                if (gs.status === 'fulfilled') data.fillGpuSelect($('#r-gpu'), gs.value, 'the calculator\'s GPU');
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
        update,
};
