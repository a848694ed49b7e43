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

/*
 * Stacked horizontal bar of the memory components of one GPU (bytes), with a
 * second bar for the chosen GPU's memory, on a GiB axis whose grid lines sit
 * at the common GPU sizes.
 */
export function memoryChart(canvas, components, gpu) {
        const names = Object.keys(components).filter((k) => components[k] > 0);
        const total = names.reduce((a, k) => a + components[k], 0) / GIB;
        const gpuGib = gpu && gpu.memory_bytes ? gpu.memory_bytes / GIB : 0;
        const top = Math.max(total, gpuGib);
        const max = COMMON_GPU_GB.find((g) => g >= top * 1.02) || Math.ceil(top * 1.1);
        const ticks = COMMON_GPU_GB.filter((g) => g <= max);
        if (!ticks.includes(max)) ticks.push(max);
        const labels = ['Estimate', gpu ? gpu.name : 'GPU'];
        const datasets = names.map((k, i) => ({
                label: k.replace(/_/g, ' '),
                data: [components[k] / GIB, null],
                backgroundColor: PALETTE[i % PALETTE.length],
                stack: 'mem',
        }));
        if (gpuGib) datasets.push({ label: 'GPU memory', data: [null, gpuGib], backgroundColor: '#94a3b8', stack: 'mem' });
        const opts = baseOptions();
        opts.indexAxis = 'y';
        opts.scales = {
                x: {
                        stacked: true, min: 0, max,
                        title: { display: true, text: 'GiB per GPU — grid lines at the common GPU sizes (8 … 141 GB)' },
                        afterBuildTicks: (axis) => {
                                axis.ticks = [0, ...ticks].map((v) => ({ value: v }));
                        },
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
        opts.scales = { x: { beginAtZero: true, title: { display: true, text: label + (unit ? ` (${unit})` : '') } } };
        opts.plugins.tooltip = { callbacks: { label: (ctx) => `${label}: ${ctx.parsed.x.toFixed(2)} ${unit || ''}` } };
        return draw(canvas, {
                type: 'bar',
                data: {
                        labels,
                        datasets: [{
                                label, data: values,
                                backgroundColor: labels.map((_, i) => (highlight && highlight(i)) ? PALETTE[1] : PALETTE[0]),
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
