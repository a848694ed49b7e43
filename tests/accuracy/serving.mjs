// serving.mjs - score the serving planner against published load tests:
// every row of tests/data/serving_loadtests.json is posted to
// POST /api/v1/serving_plan as a deployment (GPU, tensor-parallel degree,
// engine and its settings) at the row's load; the answer's time to first
// token and time per output token (the statistic the row measured: median
// or mean) are compared with the measured ones.  Prints each case, then
// the median and p90 of |error| per engine and over all.  Closed loops
// also print the answer's burst TTFT (every user at once on an idle
// replica, load.ttft_burst_mean_ms), its error as "ttft burst" (not part
// of the per-engine TTFT figures) and how many measured TTFTs lie
// between the steady state and the burst.
// Usage: node serving.mjs BASE_URL [tests/data/serving_loadtests.json] [--summary]
// (--summary: the summary lines only, for long files)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { servingRequest } from './serving_request.mjs';

const args = process.argv.slice(2).filter((a) => a !== '--summary');
const summaryOnly = process.argv.includes('--summary');
const base = (args[0] || 'http://127.0.0.1:8080').replace(/\/$/, '');
const file = args[1] || fileURLToPath(new URL('../data/serving_loadtests.json', import.meta.url));
const log = (line) => { if (!summaryOnly) console.log(line); };
const data = JSON.parse(readFileSync(file, 'utf8'));

const pick = (load, metric, stat) => {
        if (metric === 'ttft_ms') return stat === 'median' ? load.ttft_p50_ms : load.ttft_mean_ms;
        return stat === 'median' ? load.tpot_p50_ms : load.tpot_mean_ms;
};

const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
const stats = (xs) => {
        const a = xs.map(Math.abs).sort((x, y) => x - y);
        if (!a.length) return { n: 0, median: NaN, p90: NaN };
        const median = a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
        return { n: a.length, median, p90: a[Math.max(0, Math.ceil(0.9 * a.length) - 1)] };
};

const errors = {};
const bracket = { n: 0, inside: 0 };
let failed = 0;
log(`${'case'.padEnd(48)} ${'metric'.padEnd(15)} ${'measured'.padStart(9)} ${'model'.padStart(9)} ${'error'.padStart(8)}` +
            ` ${'burst'.padStart(9)} ${'error'.padStart(8)}`);
for (const c of data.cases) {
        const body = servingRequest(c, data.lengths);
        const res = await fetch(`${base}/api/v1/serving_plan`, { method: 'POST', body: JSON.stringify(body) });
        const ans = await res.json();
        const dep = ans.deployment;
        if (!res.ok || !dep || !dep.servable) {
                failed++;
                log(`${c.id.padEnd(48)} FAILED ${res.status} ${JSON.stringify(dep ? dep.reason : ans).slice(0, 200)}`);
                continue;
        }
        for (const metric of ['ttft_ms', 'tpot_ms']) {
                const m = c.measured[metric];
                if (!m) continue;
                const est = pick(dep.load, metric, m.statistic);
                const err = est / m.value - 1;
                const key = `${c.engine}/${metric.replace('_ms', '')}`;
                (errors[key] ||= []).push(err);
                (errors[`all/${metric.replace('_ms', '')}`] ||= []).push(err);
                let burst = '';
                if (metric === 'ttft_ms' && dep.load.ttft_burst_mean_ms > 0) {
                        const b = dep.load.ttft_burst_mean_ms;
                        burst = `${b.toFixed(2).padStart(10)} ${pct(b / m.value - 1).padStart(8)}`;
                        const lo = Math.min(est, b), hi = Math.max(est, b);
                        bracket.n++;
                        if (m.value >= lo * 0.9 && m.value <= hi * 1.1) bracket.inside++;
                        (errors[`${c.engine}/ttft burst`] ||= []).push(b / m.value - 1);
                }
                log(`${c.id.padEnd(48)} ${(metric.replace('_ms', '') + ' ' + m.statistic).padEnd(15)} ` +
                            `${m.value.toFixed(2).padStart(9)} ${est.toFixed(2).padStart(9)} ${pct(err).padStart(8)}${burst}`);
        }
}
console.log(`\nclosed loops: measured TTFT between the steady state and the burst (10% slack either side): ` +
            `${bracket.inside} of ${bracket.n}`);
console.log(`\n${'engine/metric'.padEnd(22)} ${'cases'.padStart(5)} ${'median'.padStart(8)} ${'p90'.padStart(8)}`);
for (const [k, xs] of Object.entries(errors).sort()) {
        const s = stats(xs);
        console.log(`${k.padEnd(22)} ${String(s.n).padStart(5)} ${(100 * s.median).toFixed(1).padStart(7)}% ${(100 * s.p90).toFixed(1).padStart(7)}%`);
}
process.exit(failed ? 1 : 0);
