// time.mjs - print the time model's validation: every throughput case of
// GET /api/v1/validation (the rows of tests/data/throughput.json), its
// measured and estimated figure and error, then the median and p90 of
// |error| per category and over all, and the leave-one-out coverage of the
// error bars.  Usage: node time.mjs BASE_URL
const base = (process.argv[2] || 'http://127.0.0.1:8080').replace(/\/$/, '');
const res = await fetch(`${base}/api/v1/validation`);
if (!res.ok) {
        console.error(`GET /api/v1/validation: ${res.status} ${await res.text()}`);
        process.exit(1);
}
const validation = await res.json();
const { time } = validation;
const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
console.log(`${'case'.padEnd(58)} ${'metric'.padEnd(26)} ${'measured'.padStart(11)} ${'estimated'.padStart(11)} ${'error'.padStart(8)}`);
let failed = 0;
for (const c of time.cases) {
        if (c.error === null) {
                failed++;
                console.log(`${c.id.padEnd(58)} FAILED ${JSON.stringify(c.problem)}`);
                continue;
        }
        console.log(`${c.id.padEnd(58)} ${c.metric.padEnd(26)} ${c.measured.toPrecision(5).padStart(11)} ` +
                    `${c.estimated.toPrecision(5).padStart(11)} ${pct(c.error).padStart(8)}`);
}
console.log(`\n${'category'.padEnd(12)} ${'cases'.padStart(5)} ${'median'.padStart(8)} ${'p90'.padStart(8)}`);
for (const k of time.summary.by_category)
        console.log(`${k.category.padEnd(12)} ${String(k.count).padStart(5)} ${(100 * k.median_abs_error).toFixed(1).padStart(7)}% ${(100 * k.p90_abs_error).toFixed(1).padStart(7)}%`);
const s = time.summary;
console.log(`${'all'.padEnd(12)} ${String(s.count).padStart(5)} ${(100 * s.median_abs_error).toFixed(1).padStart(7)}% ${(100 * s.p90_abs_error).toFixed(1).padStart(7)}%`);
// The error bars (GET /api/v1/estimate's "uncertainty"): how often the
// measured value fell inside the interval built without its own case.
console.log(`\nerror bars, leave-one-out coverage (target ${100 * 0.8}%)`);
for (const [name, sec] of [['memory', validation], ['time', time]]) {
        const c = sec.summary.interval_coverage;
        if (c)
                console.log(`${name.padEnd(12)} ${String(c.cases).padStart(5)} ${(100 * c.leave_one_out).toFixed(1).padStart(7)}%`);
}
process.exit(failed ? 1 : 0);
