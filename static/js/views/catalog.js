// catalog.js - the GPU catalog view: GET api/v1/gpus (filters passed to the
// API as query arguments) joined with the current prices from
// GET api/v1/prices to show the cheapest current offer per provider.

import { apiFetch } from '../api.js';
import { $, el } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { bindForm, fillForm, showProblem, clearProblems } from '../forms.js';
import { lineChart, hideChart } from '../charts.js';
import { params } from '../state.js';
import * as data from '../catalogdata.js';
import { initTeamForm } from '../teammodel.js';

let sort = null;
let allGpus = [];

function query() {
        const p = params();
        const q = {};
        if (p.c_vendor) q.vendor = p.c_vendor;
        if (p.c_kind) q.kind = p.c_kind;
        if (p.c_min !== undefined && p.c_min !== '') {
                const n = Number(p.c_min);
                q.min_memory = Number.isFinite(n) ? String(Math.round(n * fmt.GIB)) : p.c_min;
        }
        if (p.c_train === '1') q.can_train = 'true';
        return q;
}

// Cheapest current usd_per_gpu_hour per provider for one GPU, cheapest first.
function cheapestByProvider(priceRows, gpuId) {
        const best = new Map();
        for (const r of priceRows) {
                if (r.gpu !== gpuId || typeof r.usd_per_gpu_hour !== 'number') continue;
                const old = best.get(r.provider);
                if (!old || r.usd_per_gpu_hour < old.usd_per_gpu_hour) best.set(r.provider, r);
        }
        return Array.from(best.values()).sort((a, b) => a.usd_per_gpu_hour - b.usd_per_gpu_hour);
}

// Whole days from a YYYY-MM-DD date to today (UTC); null when unreadable.
function ageDays(date) {
        const t = Date.parse(`${date}T00:00:00Z`);
        return Number.isFinite(t) ? Math.floor((Date.now() - t) / 86400e3) : null;
}

function priceCell(offers) {
        if (!offers.length) return '—';
        return el('ul', { class: 'plain' }, offers.map((o) => {
                const age = ageDays(o.as_of);
                return el('li', {}, `${o.provider} ${fmt.usd(o.usd_per_gpu_hour)}/GPU·h`,
                        el('span', { class: age !== null && age > 180 ? 'muted stale' : 'muted' },
                                ` ${o.pricing ? fmt.words(o.pricing) : ''} ${o.as_of || ''}${age !== null ? ` (${age} days old)` : ''}`));
        }));
}

// GET api/v1/prices?gpu=&history=all: every recorded price of the GPU's
// offerings, drawn as USD per GPU-hour over time, one line per provider
// (its cheapest offering on each date).
async function drawHistory(gpuId) {
        const canvas = $('#history-chart');
        const note = $('#history-note');
        if (!gpuId) {
                hideChart(canvas);
                note.textContent = '';
                return;
        }
        let rows = [];
        try {
                const d = await apiFetch('api/v1/prices', { query: { gpu: gpuId, history: 'all', pricing: 'on_demand' } });
                rows = (d && d.prices) || [];
        } catch (e) {
                note.textContent = `price history unavailable: ${e.message || e}`;
                hideChart(canvas);
                return;
        }
        const byProvider = new Map();
        for (const r of rows) {
                const t = Date.parse(`${r.as_of}T00:00:00Z`);
                if (!Number.isFinite(t) || typeof r.usd_per_gpu_hour !== 'number') continue;
                const day = Math.floor(t / 86400e3);
                const m = byProvider.get(r.provider) || new Map();
                if (!m.has(day) || r.usd_per_gpu_hour < m.get(day)) m.set(day, r.usd_per_gpu_hour);
                byProvider.set(r.provider, m);
        }
        if (!byProvider.size) {
                note.textContent = 'No on-demand price recorded for this accelerator.';
                hideChart(canvas);
                return;
        }
        // x: days before today (0 = today), so the newest quote sits at the right edge.
        const today = Math.floor(Date.now() / 86400e3);
        const series = Array.from(byProvider, ([provider, m]) => ({
                label: provider,
                points: Array.from(m, ([day, y]) => ({ x: day - today, y })).sort((a, b) => a.x - b.x),
        }));
        note.textContent = `${rows.length} recorded on-demand prices; the cheapest offering of each provider on each date.`;
        lineChart(canvas, series, [], 'days before today (quote date)', 'USD per GPU-hour');
}

function sourceCell(g) {
        const date = g.source_date || g.as_of || '';
        if (typeof g.source === 'string' && /^https?:\/\//.test(g.source))
                return el('span', {}, el('a', { href: g.source, rel: 'noopener noreferrer', target: '_blank' }, 'source'),
                        date ? ` ${date}` : '');
        return `${g.source || '—'}${date ? ' ' + date : ''}`;
}

function tput(g, k) {
        return g.throughput_flops ? g.throughput_flops[k] : null;
}

function fillFilters(list) {
        const p = params();
        for (const [id, key, name] of [['#c-vendor', 'vendor', 'c_vendor'], ['#c-kind', 'kind', 'c_kind']]) {
                const sel = $(id);
                const values = Array.from(new Set(list.map((g) => g[key]).filter(Boolean))).sort();
                sel.replaceChildren(new Option('any', ''), ...values.map((v) => new Option(v, v)));
                sel.value = p[name] || '';
        }
}

async function run() {
        const form = $('#catalog-form');
        let gpus, priceRows = [];
        try {
                const d = await apiFetch('api/v1/gpus', { query: query() });
                gpus = (d && d.gpus) || [];
                clearProblems(form, $('#catalog-problem'));
        } catch (e) {
                showProblem(form, e, $('#catalog-problem'));
                return;
        }
        try {
                priceRows = await data.prices();
        } catch (e) {
                console.warn('prices unavailable', e);
        }
        const text = (params().c_q || '').trim().toLowerCase();
        const rows = gpus.filter((g) => !text || `${g.name} ${g.id} ${g.vendor}`.toLowerCase().includes(text))
                .map((g) => ({ ...g, offers: cheapestByProvider(priceRows, g.id) }));
        renderTable($('#catalog-table'), {
                id: 'gpu-table',
                caption: `Accelerators (${rows.length} of ${allGpus.length || gpus.length})`,
                csvName: 'gpuplan-gpus.csv',
                rows, sort,
                onSort: (s) => { sort = s; },
                columns: [
                        { key: 'name', label: 'Accelerator', value: (g) => g.name, render: (g) => el('span', {}, g.name, el('br'), el('code', { class: 'muted' }, g.id)),
                          csv: (g) => g.name },
                        { key: 'id', label: 'Id', value: (g) => g.id, hidden: true },
                        { key: 'vendor', label: 'Vendor', value: (g) => g.vendor },
                        { key: 'kind', label: 'Kind', value: (g) => g.kind },
                        { key: 'memory', label: 'Memory (GiB)', numeric: true, value: (g) => g.memory_bytes, render: (g) => fmt.gib(g.memory_bytes, 0),
                          csv: (g) => g.memory_bytes },
                        { key: 'bandwidth', label: 'Bandwidth (GB/s)', numeric: true, value: (g) => g.memory_bandwidth_bytes_per_s,
                          render: (g) => fmt.gbps(g.memory_bandwidth_bytes_per_s) },
                        ...['fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'int8'].map((k) => ({
                                key: k, label: `${k.toUpperCase()} dense (T${k === 'int8' ? 'OP' : 'FLOP'}/s)`, numeric: true,
                                value: (g) => tput(g, k), render: (g) => fmt.tflops(tput(g, k)),
                                optional: k === 'tf32' || k === 'int8',
                        })),
                        { key: 'tdp', label: 'TDP (W)', numeric: true, optional: true, value: (g) => g.tdp_watts, render: (g) => fmt.integer(g.tdp_watts) },
                        { key: 'interconnect', label: 'Interconnect', value: (g) => g.interconnect,
                          render: (g) => g.interconnect ? `${g.interconnect}${g.interconnect_bytes_per_s ? ` (${fmt.gbps(g.interconnect_bytes_per_s)} GB/s)` : ''}` : '—' },
                        { key: 'year', label: 'Launch', numeric: true, optional: true, value: (g) => g.launch_year },
                        { key: 'launch_price', label: 'Launch price', numeric: true, optional: true, value: (g) => g.launch_price_usd, render: (g) => fmt.usd(g.launch_price_usd, 0) },
                        { key: 'price', label: 'Cheapest per provider', value: (g) => (g.offers[0] ? g.offers[0].usd_per_gpu_hour : null),
                          render: (g) => priceCell(g.offers),
                          csv: (g) => g.offers.map((o) => `${o.provider} ${o.usd_per_gpu_hour} (${o.as_of || ''})`).join('; ') },
                        { key: 'source', label: 'Source', value: (g) => g.source, render: sourceCell,
                          csv: (g) => `${g.source || ''}${g.source_date ? ' ' + g.source_date : ''}` },
                ].filter((c) => !c.hidden),
        });
}

export default {
        id: 'catalog',
        async init() {
                try {
                        allGpus = await data.gpus();
                        fillFilters(allGpus);
                } catch (e) {
                        showProblem($('#catalog-form'), e, $('#catalog-problem'));
                }
                bindForm($('#catalog-form'), run, 250);
                const sel = $('#h-gpu');
                sel.replaceChildren(new Option('choose one', ''), ...allGpus.map((g) => new Option(g.name, g.id)));
                sel.addEventListener('change', () => drawHistory(sel.value));
                initTeamForm();
        },
        async show() {
                fillForm($('#catalog-form'), params());
                await run();
        },
        request() {
                return { method: 'GET', path: 'api/v1/gpus', query: query() };
        },
};
