// charts.js - the page's charts, drawn by Chart.js (npm "chart.js", copied
// into vendor/ by scripts/vendor.mjs and loaded as window.Chart).  This file
// only chooses chart types, scales and colours; Chart.js draws.

import { GIB } from './format.js';

// The GPU memory sizes the hardware article calls common, plus the H200's
// 141 GB ("Common GPU Sizes" in the article "Hardware Requirements for Training of Language Models").  GPU memory marketed as "40 GB" is
// 40 GiB of HBM, so these are drawn on a GiB axis.
export const COMMON_GPU_GB = [8, 16, 24, 32, 40, 80, 141];

export const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2',
        '#db2777', '#65a30d', '#475569', '#ea580c'];

const charts = new Map();

function chartLib() {
        return window.Chart || null;
}

function draw(canvas, config) {
        const Chart = chartLib();
        if (!Chart || !canvas) return null;
        canvas.parentElement.hidden = false;
        const old = charts.get(canvas);
        if (old) old.destroy();
        const c = new Chart(canvas, config);
        charts.set(canvas, c);
        return c;
}

// Remove a chart and hide its box (when there is nothing to draw).
export function hideChart(canvas) {
        const old = charts.get(canvas);
        if (old) old.destroy();
        charts.delete(canvas);
        if (canvas) canvas.parentElement.hidden = true;
}

function baseOptions() {
        return {
                responsive: true,
                maintainAspectRatio: false,
                animation: false,       // numbers change as the user types: no motion, no lag
                plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        };
}

// One colour per memory component, the same in every view and chart (the
// component tables' swatches use it too).
// No component is green or red: those mean fits / does not fit.
const COMPONENT_COLORS = {
        weights: '#2563eb', gradients: '#db2777', optimizer_states: '#ca8a04', master_weights: '#7c2d12',
        activations: '#7c3aed', logits: '#0891b2', kv_cache: '#c026d3', communication_buffers: '#64748b',
        workspace: '#a3a3a3', framework_overhead: '#ea580c',
};

export function componentColor(name, i = 0) {
        return COMPONENT_COLORS[name] || PALETTE[i % PALETTE.length];
}

// Fits and does-not-fit, as the headline's verdict colours them.
export const FIT_COLORS = { fits: '#15803d', nofit: '#b91c1c' };

// Grid values for an axis from 0 to max: the common GPU sizes while they
// fit on it; past 141 GiB, about six round steps (1, 2, 5 x 10^k), so the
// labels never run together.
export function memoryTicks(max) {
        if (max <= 160) return COMMON_GPU_GB.filter((g) => g <= max);
        const raw = max / 6;
        const p = 10 ** Math.floor(Math.log10(raw));
        const step = [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw);
        const out = [];
        for (let v = step; v <= max + 1e-9; v += step) out.push(v);
        return out;
}

/*
 * Stacked horizontal bar of the memory components of one GPU (bytes), and a
 * second bar for the chosen GPU's usable memory, coloured by the verdict
 * (green when the estimate fits it, red when not).
 */
export function memoryChart(canvas, components, gpu) {
        const names = Object.keys(components).filter((k) => components[k] > 0);
        const total = names.reduce((a, k) => a + components[k], 0) / GIB;
        const gpuGib = gpu && gpu.memory_bytes ? gpu.memory_bytes / GIB : 0;
        const top = Math.max(total, gpuGib);
        const ticks = memoryTicks(top * 1.05);
        const max = top <= 141 ? (COMMON_GPU_GB.find((g) => g >= top * 1.02) || Math.ceil(top * 1.1))
                : Math.ceil(top * 1.05);
        if (top <= 141 && !ticks.includes(max)) ticks.push(max);
        const labels = ['Estimate', gpu ? gpu.name : 'GPU'];
        const datasets = names.map((k, i) => ({
                label: k.replace(/_/g, ' '),
                data: [components[k] / GIB, null],
                backgroundColor: componentColor(k, i),
                stack: 'mem',
        }));
        if (gpuGib) {
                const fits = Boolean(gpu.fits);
                datasets.push({ label: fits ? 'GPU memory (fits)' : 'GPU memory (does not fit)', data: [null, gpuGib],
                        backgroundColor: fits ? FIT_COLORS.fits : FIT_COLORS.nofit, stack: 'mem' });
        }
        const opts = baseOptions();
        opts.indexAxis = 'y';
        opts.scales = {
                x: {
                        stacked: true, min: 0, max,
                        title: { display: true, text: top <= 141 ? 'GiB per GPU — grid lines at the common GPU sizes' : 'GiB per GPU' },
                        afterBuildTicks: (axis) => {
                                axis.ticks = [0, ...ticks.filter((v) => v <= max)].map((v) => ({ value: v }));
                        },
                        ticks: { autoSkip: true, maxRotation: 0 },
                        grid: { color: (ctx) => (ctx.tick && COMMON_GPU_GB.includes(ctx.tick.value)) ? '#64748b' : '#e2e8f0' },
                },
                y: { stacked: true },
        };
        opts.plugins.tooltip = {
                callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.x.toFixed(2)} GiB` },
        };
        if (!gpuGib) labels.pop();
        return draw(canvas, { type: 'bar', data: { labels, datasets }, options: opts });
}

// One bar per label; values already in display units.
export function barChart(canvas, labels, values, label, unit, highlight) {
        const opts = baseOptions();
        opts.indexAxis = 'y';
        opts.plugins.legend.display = false;
        // Every bar keeps its label (Chart.js would skip every other one).
        opts.scales = { x: { beginAtZero: true, title: { display: true, text: label + (unit ? ` (${unit})` : '') } },
                y: { ticks: { autoSkip: false } } };
        opts.plugins.tooltip = { callbacks: { label: (ctx) => `${label}: ${ctx.parsed.x.toFixed(2)} ${unit || ''}` } };
        return draw(canvas, {
                type: 'bar',
                data: {
                        labels,
                        datasets: [{
                                label, data: values,
                                // The best bar in the verdict's green: red means "does not fit" everywhere.
                                backgroundColor: labels.map((_, i) => (highlight && highlight(i)) ? FIT_COLORS.fits : PALETTE[0]),
                        }],
                },
                options: opts,
        });
}

/*
 * Lines through given points ({label, points: [{x, y}]}) on linear axes, and
 * optional marked points ({label, x, y}) drawn as large dots - the
 * break-even point of rent versus buy.
 */
export function lineChart(canvas, series, marks, xTitle, yTitle) {
        const opts = baseOptions();
        opts.scales = {
                x: { type: 'linear', beginAtZero: true, title: { display: true, text: xTitle } },
                y: { beginAtZero: true, title: { display: true, text: yTitle } },
        };
        const datasets = series.map((s, i) => ({
                label: s.label, data: s.points, borderColor: PALETTE[i % PALETTE.length],
                backgroundColor: PALETTE[i % PALETTE.length], pointRadius: 0, borderWidth: 2, tension: 0,
        }));
        for (const m of marks || [])
                datasets.push({
                        label: m.label, data: [{ x: m.x, y: m.y }], type: 'scatter', pointRadius: 7,
                        pointStyle: m.style || 'rectRot', borderColor: '#111827', backgroundColor: m.color || '#facc15',
                });
        return draw(canvas, { type: 'line', data: { datasets }, options: opts });
}

/*
 * Curves through computed points ({label, points: [{x, y, tip}]}), each point
 * drawn so the steps stay visible, and optional horizontal limits ({label,
 * y}) drawn dashed across the whole x range - the serving frontier with its
 * TPOT target.  A point's tip, if given, is its tooltip text.
 */
export function curveChart(canvas, series, limits, xTitle, yTitle) {
        const opts = baseOptions();
        opts.scales = {
                x: { type: 'linear', beginAtZero: true, title: { display: true, text: xTitle } },
                // grace: a limit at the top of the data stays off the chart's edge.
                y: { beginAtZero: true, grace: '8%', title: { display: true, text: yTitle } },
        };
        opts.plugins.tooltip = {
                callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.raw.tip || `${ctx.parsed.x.toFixed(0)}, ${ctx.parsed.y.toFixed(1)}`}` },
        };
        const datasets = series.map((s, i) => ({
                label: s.label, data: s.points, borderColor: PALETTE[i % PALETTE.length],
                backgroundColor: PALETTE[i % PALETTE.length], pointRadius: 3, borderWidth: 2, tension: 0,
        }));
        const xmax = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.x)));
        for (const l of limits || [])
                datasets.push({
                        label: l.label, data: [{ x: 0, y: l.y }, { x: xmax, y: l.y }], borderColor: '#111827',
                        backgroundColor: '#111827', borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0, pointHitRadius: 0,
                });
        return draw(canvas, { type: 'line', data: { datasets }, options: opts });
}
