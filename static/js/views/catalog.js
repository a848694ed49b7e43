// catalog.js - the GPU catalog view: GET api/v1/gpus (filters passed to the
// API as query arguments) joined with the current prices from
// GET api/v1/prices to show the cheapest current offer per provider.

import { apiFetch } from '../api.js';
import { $, el } from '../dom.js';
import * as fmt from '../format.js';
import { renderTable } from '../table.js';
import { bindForm, fillForm, showProblem, clearProblems } from '../forms.js';
import { params } from '../state.js';
import * as data from '../catalogdata.js';

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

function priceCell(offers) {
        if (!offers.length) return '—';
        return el('ul', { class: 'plain' }, offers.map((o) =>
                el('li', {}, `${o.provider} ${fmt.usd(o.usd_per_gpu_hour)}/GPU·h`,
                        el('span', { class: 'muted' }, ` ${o.pricing ? fmt.words(o.pricing) : ''} ${o.as_of || ''}`))));
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
        },
        async show() {
                fillForm($('#catalog-form'), params());
                await run();
        },
        request() {
                return { method: 'GET', path: 'api/v1/gpus', query: query() };
        },
};
