// price_import.test.mjs - SkyPilot catalog imports against the real server and
// PostgreSQL, on real catalog files (tests/data/skypilot/README.md names each
// file's repository path and commit): a round trip, re-import as a no-op, a
// newer file appending only its changes, an unknown accelerator reported by
// name, a malformed row refused with its line number; then the prices a fresh
// install ships with, and how plans treat stale quotes and free tiers.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { get, post, request, assertProblem, adminToken, startServer, psql, createDatabase, ROOT } from './lib.mjs';

const DATA = join(ROOT, 'tests', 'data', 'skypilot');
const admin = { Authorization: `Bearer ${adminToken()}`, 'Content-Type': 'text/csv' };
const file = (rel) => readFileSync(join(DATA, rel), 'utf8');
const LAMBDA_V7 = { commit: '11580132cea293395776b033c8533714d42abb4e', path: 'catalogs/v7/lambda/vms.csv' };
const LAMBDA_V8 = { commit: '0f4070387edc953d7004cff197940e1918a1d6aa', path: 'catalogs/v8/lambda/vms.csv' };

function importCsv(base, cloud, csv, { commit, path, asOf = '2026-11-20' } = {}) {
        const q = new URLSearchParams({ cloud, as_of: asOf });
        if (commit)
                q.set('commit', commit);
        if (path)
                q.set('file', path);
        return request('POST', `/api/v1/prices/import/skypilot?${q}`, { base, body: csv, headers: admin });
}

// One private database without the shipped snapshot, so every count below
// is the import's own.
let srv, db;
test.before(async () => {
        db = createDatabase('price_import');
        srv = await startServer({ env: { DATABASE_URL: db, GPUPLAN_IMPORT_SHIPPED_PRICES: '0', GPUPLAN_ADMIN_TOKEN: adminToken() } });
});
test.after(async () => {
        await srv?.stop();
});

test('import round trip: the Lambda file\'s rows become offerings and prices with file, commit and date', async () => {
        const res = await importCsv(srv.url, 'lambda', file('v7/lambda/vms.csv'), LAMBDA_V7);
        assert.equal(res.status, 200, res.text);
        // 52 lines: header + 17 CPU rows + 17 regions x (gpu_8x_v100, gpu_4x_a6000), on-demand only.
        assert.deepEqual([res.json.rows, res.json.cpu_rows, res.json.offerings], [51, 17, 34]);
        assert.deepEqual([res.json.added, res.json.changed, res.json.unchanged, res.json.unknown], [34, 0, 0, 0]);
        assert.equal(res.json.commit, LAMBDA_V7.commit);
        assert.match(res.json.sha256, /^[0-9a-f]{64}$/);
        // Read back through the API: the offering in us-east-1, 8 V100s, $4.40 an hour as the file says.
        const prices = await get('/api/v1/prices?offering=lambda-gpu_8x_v100-us-east-1', { base: srv.url });
        assert.equal(prices.status, 200, prices.text);
        const p = prices.json.prices.find((x) => x.pricing === 'on_demand');
        assert.equal(p.usd_per_hour, 4.4);
        assert.equal(p.as_of, '2026-11-20');
        assert.ok(p.source.includes(LAMBDA_V7.commit) && p.source.includes(LAMBDA_V7.path), p.source);
        const row = psql("SELECT o.accelerator_id, o.gpus_per_instance, o.vcpus, o.ram_bytes, p.source_file, p.source_commit " +
                         "FROM offerings o JOIN prices p ON p.offering_id = o.id WHERE o.id = 'lambda-gpu_8x_v100-us-east-1'", { url: db });
        // 448 GiB of RAM = 448 x 2^30 bytes; Lambda's V100 shapes are SXM2 16 GB.
        assert.deepEqual(row, [`v100-sxm2-16gb|8|92|${448 * 2 ** 30}|${LAMBDA_V7.path}|${LAMBDA_V7.commit}`]);
});

test('re-importing the same file changes nothing', async () => {
        const before = psql('SELECT count(*) FROM prices', { url: db })[0];
        const res = await importCsv(srv.url, 'lambda', file('v7/lambda/vms.csv'), LAMBDA_V7);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([res.json.added, res.json.changed, res.json.unchanged], [0, 0, 34]);
        assert.equal(psql('SELECT count(*) FROM prices', { url: db })[0], before);
});

test('a newer file appends only what changed, and the history keeps the old price', async () => {
        const res = await importCsv(srv.url, 'lambda', file('v8/lambda/vms.csv'), { ...LAMBDA_V8, asOf: '2026-11-27' });
        assert.equal(res.status, 200, res.text);
        // gpu_8x_v100 4.40 -> 6.32 and gpu_4x_a6000 3.20 -> 4.36 in 17 regions each: 34 changed;
        // gpu_8x_v100_n is new in 17 regions: 17 added.
        assert.deepEqual([res.json.offerings, res.json.added, res.json.changed, res.json.unchanged], [51, 17, 34, 0]);
        const hist = await get('/api/v1/prices?offering=lambda-gpu_8x_v100-us-east-1&history=true', { base: srv.url });
        assert.equal(hist.status, 200, hist.text);
        const usd = hist.json.prices.map((p) => p.usd_per_hour).sort();
        assert.deepEqual(usd, [4.4, 6.32]);
});

test('an accelerator without a catalog GPU is reported by name and its rows are skipped', async () => {
        const res = await importCsv(srv.url, 'cudo', file('v8/cudo/vms.csv'), { path: 'catalogs/v8/cudo/vms.csv' });
        assert.equal(res.status, 200, res.text);
        // 24 one-GPU rows: A800 and RTX A5000 have no catalog GPU (2 offerings each), and
        // Cudo's V100 part is not stated (2 offerings); the other 18 are priced.
        const unknown = Object.fromEntries(res.json.unknown_accelerators.map((u) => [u.name, u.offerings]));
        assert.deepEqual(unknown, { RTXA5000: 2, A800: 2, V100: 2 });
        assert.equal(res.json.unknown, 6);
        assert.equal(res.json.added, 18);
        assert.equal(psql("SELECT count(*) FROM offerings WHERE provider_id = 'cudo' AND instance_type LIKE '%a800%'", { url: db })[0], '0');
});

test('a malformed row refuses the whole file with its line number', async () => {
        const before = psql('SELECT count(*) FROM prices', { url: db })[0];
        const lines = file('v8/nebius/vms.csv').split('\r\n');
        // Line 45 (1-based) is a GPU row; its price becomes text.
        assert.match(lines[44], /^gpu-/);
        const cells = lines[44].split(',');
        cells[5] = 'abc';
        lines[44] = cells.join(',');
        const bad = await importCsv(srv.url, 'nebius', lines.join('\r\n'));
        assertProblem(bad, 422);
        assert.match(bad.json.detail, /^line 45: Price is "abc"/);
        // An unclosed quote on line 50 is refused too, with the line where its row starts.
        const lines2 = file('v8/nebius/vms.csv').split('\r\n');
        lines2[49] = lines2[49].replace('"{', '"{"x');
        const bad2 = await importCsv(srv.url, 'nebius', lines2.join('\r\n'));
        assertProblem(bad2, 422);
        assert.match(bad2.json.detail, /^line 50: /);
        // A row with a field missing.
        const lines3 = file('v8/nebius/vms.csv').split('\r\n');
        lines3[2] = lines3[2].split(',').slice(0, -1).join(',');
        const bad3 = await importCsv(srv.url, 'nebius', lines3.join('\r\n'));
        assertProblem(bad3, 422);
        assert.match(bad3.json.detail, /^line 3: 8 fields where the header has 9/);
        assert.equal(psql('SELECT count(*) FROM prices', { url: db })[0], before, 'nothing was written');
        // The unmodified file imports: 21 GPU offerings, 21 on-demand and 8 spot prices.
        const good = await importCsv(srv.url, 'nebius', file('v8/nebius/vms.csv'));
        assert.equal(good.status, 200, good.text);
        assert.deepEqual([good.json.offerings, good.json.added], [21, 29]);
});

test('the import refuses without the admin token, an unknown cloud and bad query values', async () => {
        const csv = file('v8/hyperbolic/vms.csv');
        const noAuth = await request('POST', '/api/v1/prices/import/skypilot?cloud=hyperbolic',
                                     { base: srv.url, body: csv, headers: { 'Content-Type': 'text/csv' } });
        assertProblem(noAuth, 401);
        const unknown = await importCsv(srv.url, 'nosuchcloud', csv);
        assertProblem(unknown, 422);
        assert.match(unknown.json.detail, /nosuchcloud is not a provider/);
        assertProblem(await importCsv(srv.url, 'Hyper Bolic', csv), 400, '?cloud');
        assertProblem(await importCsv(srv.url, 'hyperbolic', csv, { commit: 'not-hex' }), 400, '?commit');
        assertProblem(await importCsv(srv.url, 'hyperbolic', csv, { asOf: '2026-13-01' }), 400, '?as_of');
});

test('the command line imports the same files and prints the summary', () => {
        const out = execFileSync(process.env.GPUPLAN_BIN, ['prices', 'import', 'skypilot', '--commit', '0082b0435f3912ae4c566856b272455cc78f4f61',
                                                           join(DATA, 'v8', 'hyperbolic', 'vms.csv'), join(DATA, 'v8', 'hyperbolic', 'vms.csv')],
                                 { env: { ...process.env, DATABASE_URL: db }, encoding: 'utf8' });
        const lines = out.trim().split('\n');
        assert.equal(lines.length, 2);
        assert.match(lines[0], /cloud hyperbolic, 3 rows .* 3 offerings: 3 added, 0 changed, 0 unchanged, 0 unknown/);
        assert.match(lines[1], /0 added, 0 changed, 3 unchanged/);
});

// ---- the shipped snapshot, on the suite's shared server ----------------------

// The day ages are reckoned from: the server's GPUPLAN_TODAY when scripts/test.sh
// pins it to the snapshot's date, else the real date.
const TODAY = process.env.GPUPLAN_TODAY || new Date().toISOString().slice(0, 10);

test('a fresh install ranks at least 300 prices no older than 180 days, from at least 12 providers, on-demand and spot', () => {
        const [fresh, providers, spot, onDemand] = psql(
                "SELECT count(*), count(DISTINCT o.provider_id), count(*) FILTER (WHERE p.pricing = 'spot')," +
                " count(*) FILTER (WHERE p.pricing = 'on_demand')" +
                ' FROM current_prices p JOIN offerings o ON o.id = p.offering_id' +
                ` WHERE p.as_of >= date '${TODAY}' - 180`)[0].split('|').map(Number);
        assert.ok(fresh >= 300, `${fresh} fresh prices`);
        assert.ok(providers >= 12, `${providers} providers`);
        assert.ok(spot > 0 && onDemand > 0, `${spot} spot, ${onDemand} on-demand`);
        for (const cloud of ['aws', 'azure', 'gcp', 'lambda', 'runpod', 'nebius'])
                assert.ok(Number(psql(`SELECT count(*) FROM current_prices p JOIN offerings o ON o.id = p.offering_id WHERE o.provider_id = '${cloud}' AND p.source_commit IS NOT NULL`)[0]) > 0, cloud);
});

// The shipped files, read here without the importer: prices/skypilot/SOURCES.csv
// names each file, its cloud, the commit it was read at and its date.
const SNAPSHOT = join(ROOT, 'prices', 'skypilot');
const SOURCES = readFileSync(join(SNAPSHOT, 'SOURCES.csv'), 'utf8').trim().split('\n').slice(1)
        .map((l) => { const [path, cloud, commit, asOf] = l.split(','); return { path, cloud, commit, asOf }; });

test('every shipped file gave prices with its path, commit and date; one provider per file', () => {
        assert.ok(SOURCES.length >= 17, `${SOURCES.length} files`);
        for (const s of SOURCES) {
                const n = Number(psql('SELECT count(*) FROM prices p JOIN offerings o ON o.id = p.offering_id' +
                        ` WHERE o.provider_id = '${s.cloud}' AND p.source_file = '${s.path}'` +
                        ` AND p.source_commit = '${s.commit}' AND p.as_of = date '${s.asOf}'`)[0]);
                assert.ok(n > 0, `${s.path}: ${n} prices`);
        }
        const clouds = new Set(SOURCES.map((s) => s.cloud));
        assert.equal(Number(psql('SELECT count(DISTINCT o.provider_id) FROM prices p JOIN offerings o ON o.id = p.offering_id' +
                                 ' WHERE p.source_commit IS NOT NULL')[0]), clouds.size);
});


// The lowest on-demand and spot quote of a row's instance type and region
// (a file lists one row per zone), as the import is to record them.
function lowestQuote(want, key, f, col) {
        const w = want.get(key) ?? {};
        for (const [pricing, c] of [['on_demand', col.Price], ['spot', col.SpotPrice]]) {
                const v = Number(f[c]);
                if (f[c] !== '' && v > 0 && !(w[pricing] <= v))
                        w[pricing] = v;
        }
        want.set(key, w);
}

// The prices the import recorded from one source commit, by instance type
// and region; a pricing recorded twice fails.
function recordedPrices(commit) {
        const got = new Map();
        for (const r of psql('SELECT o.instance_type, o.region, p.pricing, p.usd_per_hour FROM prices p' +
                             ` JOIN offerings o ON o.id = p.offering_id WHERE p.source_commit = '${commit}'`)) {
                const [type, region, pricing, usd] = r.split('|');
                const g = got.get(`${type}|${region}`) ?? {};
                assert.equal(g[pricing], undefined, `${type} ${region} ${pricing} twice`);
                g[pricing] = Number(usd);
                got.set(`${type}|${region}`, g);
        }
        return got;
}

// Every expected quote recorded, to the 6 decimals the database keeps.
function samePrices(got, want) {
        for (const [key, w] of want)
                for (const pricing of ['on_demand', 'spot'])
                        assert.equal(got.get(key)[pricing], w[pricing] === undefined ? undefined : Math.round(w[pricing] * 1e6) / 1e6, `${key} ${pricing}`);
}

test('AWS: the shipped prices are the file\'s GPU rows, the lowest quote per instance type and region', () => {
        // Folded here from the CSV itself: one offering per (InstanceType, Region),
        // the lowest non-zero Price and SpotPrice over its availability zones,
        // for the accelerator names the mapping table knows (for AWS it narrows
        // none of them by instance type).
        const aws = SOURCES.find((s) => s.cloud === 'aws');
        const names = new Set(psql("SELECT name FROM skypilot_accelerators WHERE cloud IN ('aws', '*') AND instance_like = '%'"));
        assert.equal(psql("SELECT count(*) FROM skypilot_accelerators WHERE cloud = 'aws' AND instance_like <> '%'")[0], '0');
        const [head, ...rows] = readFileSync(join(SNAPSHOT, aws.path), 'utf8').trim().split('\n');
        const col = Object.fromEntries(head.split(',').map((h, i) => [h, i]));
        const want = new Map();
        const skipped = new Set();
        for (const line of rows) {
                const f = line.split(',');
                if (!names.has(f[col.AcceleratorName])) {
                        skipped.add(f[col.AcceleratorName]);
                        continue;
                }
                const key = `${f[col.InstanceType]}|${f[col.Region]}`;
                lowestQuote(want, key, f, col);
        }
        const got = recordedPrices(aws.commit);
        // The file's names without a catalog GPU, reported by the import and skipped.
        assert.deepEqual([...skipped].sort(), ['B300', 'RTX PRO Server 6000']);
        assert.ok(want.size > 500, `${want.size} offerings`);
        assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
        samePrices(got, want);
});

test('RunPod: the whole v7 file is shipped; its prices are the lowest quote per instance type and region', () => {
        // prices/skypilot/catalogs/v7/runpod/vms.csv is the complete file (CRLF line
        // ends, as in the repository): 2 750 rows, 750 of them CPU-only, the GPU rows
        // of 20 accelerator names in 4 shapes (1x, 2x, 4x, 8x) and 8 regions, one row
        // per zone; 8x_RTXA6000_SECURE is listed in 7 regions only (no US row).
        const runpod = SOURCES.find((s) => s.cloud === 'runpod');
        assert.equal(runpod.path, 'catalogs/v7/runpod/vms.csv');
        const names = new Set(psql("SELECT name FROM skypilot_accelerators WHERE cloud IN ('runpod', '*') AND instance_like = '%'"));
        assert.equal(psql("SELECT count(*) FROM skypilot_accelerators WHERE cloud = 'runpod' AND instance_like <> '%'")[0], '0');
        const [head, ...rows] = readFileSync(join(SNAPSHOT, runpod.path), 'utf8').trim().split('\r\n');
        assert.equal(rows.length, 2750);
        const col = Object.fromEntries(head.split(',').map((h, i) => [h, i]));
        const want = new Map();
        const skipped = new Set();
        const offerings = new Set();
        for (const line of rows) {
                const f = line.split(',');
                assert.equal(f.length, 10, line);
                const name = f[col.AcceleratorName];
                if (name === '')
                        continue;
                const key = `${f[col.InstanceType]}|${f[col.Region]}`;
                offerings.add(key);
                if (!names.has(name)) {
                        skipped.add(name);
                        continue;
                }
                lowestQuote(want, key, f, col);
        }
        // 20 names x 4 shapes x 8 regions, less the missing US 8x RTX A6000.
        assert.equal(offerings.size, 20 * 4 * 8 - 1);
        // Without a catalog GPU: RTX 4000 Ada, RTX A4000, A4500 and A5000.
        assert.deepEqual([...skipped].sort(), ['RTX4000-Ada', 'RTXA4000', 'RTXA4500', 'RTXA5000']);
        const got = recordedPrices(runpod.commit);
        assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
        samePrices(got, want);
        // 16 names mapped: 16 x 32 offerings less one = 511 on-demand prices; spot
        // quotes only for A100-80GB, H100-SXM, H200-SXM, L40, L40S, RTX4090 and
        // RTXA6000: 7 x 32 - 1 = 223.
        const [onDemand, spot] = ['on_demand', 'spot'].map((k) => [...got.values()].filter((g) => g[k] !== undefined).length);
        assert.equal(onDemand, 511);
        assert.equal(spot, 223);
        // Read off the file by hand: "1x_H100_SECURE,H100,1.0,16.0,80.0,H100,US,,2.39,US-CA-1"
        // (RunPod's "H100" is the PCIe card, migrations/0038) and
        // "8x_H200-SXM_SECURE,...,SE,28.72,31.92,EU-SE-1".
        assert.deepEqual(psql("SELECT o.accelerator_id || ' ' || p.pricing || ' ' || p.usd_per_hour FROM prices p" +
                              " JOIN offerings o ON o.id = p.offering_id WHERE o.provider_id = 'runpod'" +
                              ` AND p.source_commit = '${runpod.commit}' AND o.region IN ('US', 'SE')` +
                              " AND o.instance_type IN ('1x_H100_SECURE', '8x_H200-SXM_SECURE')" +
                              ' ORDER BY o.instance_type, o.region, p.pricing'),
                         ['h100-pcie-80gb on_demand 2.390000', 'h100-pcie-80gb on_demand 2.390000',
                          'h200-sxm-141gb on_demand 31.920000', 'h200-sxm-141gb spot 28.720000',
                          'h200-sxm-141gb on_demand 31.920000', 'h200-sxm-141gb spot 28.720000']);
});

test('Vast: the file\'s SpotPrice of 0.00 is no spot quote; every offer has its on-demand price', () => {
        const vast = SOURCES.find((s) => s.cloud === 'vast');
        const rows = psql("SELECT p.pricing, min(p.usd_per_hour) FROM prices p" +
                          ` WHERE p.source_commit = '${vast.commit}' GROUP BY p.pricing`);
        assert.equal(rows.length, 1, rows.join());
        assert.match(rows[0], /^on_demand\|/);
        assert.ok(Number(rows[0].split('|')[1]) > 0);
});

test('GCP: a T4 is priced with the N1 VM SkyPilot would attach it to', () => {
        // prices/skypilot/catalogs/v8/gcp/vms.csv, us-central1 (every zone alike): the T4 x1
        // row is 0.35 $/h (spot 0.175); SkyPilot asks 4 vCPUs and 16 GiB of an N1 host
        // for one T4, and n1-highmem-4 (4 vCPUs, 26 GiB) is the cheapest that fits at
        // 0.23661 (spot 0.07183): 0.35 + 0.23661 = 0.58661; 0.175 + 0.07183 = 0.24683.
        // Two T4s: n1-highmem-8 (0.47321, spot 0.14366) + 0.7 (spot 0.35) = 1.17321 and 0.49366.
        // Four T4s ask 48 vCPUs and 192 GiB: n1-standard-64 (240 GiB) at 3.03998 beats
        // n1-highmem-64 at 3.7857; with the T4 x4 row (1.4, spot 0.7): 4.43998 and 1.6284.
        const rows = psql("SELECT o.id, p.pricing, p.usd_per_hour FROM current_prices p JOIN offerings o ON o.id = p.offering_id" +
                          " WHERE o.provider_id = 'gcp' AND o.region = 'us-central1' AND o.accelerator_id = 't4' ORDER BY o.gpus_per_instance, p.pricing");
        assert.deepEqual(rows.map((r) => r.split('|')).map(([id, k, v]) => [id, k, Number(v)]), [
                ['gcp-n1-highmem-4-with-1x-t4-us-central1', 'on_demand', 0.58661],
                ['gcp-n1-highmem-4-with-1x-t4-us-central1', 'spot', 0.24683],
                ['gcp-n1-highmem-8-with-2x-t4-us-central1', 'on_demand', 1.17321],
                ['gcp-n1-highmem-8-with-2x-t4-us-central1', 'spot', 0.49366],
                ['gcp-n1-standard-64-with-4x-t4-us-central1', 'on_demand', 4.43998],
                ['gcp-n1-standard-64-with-4x-t4-us-central1', 'spot', 1.6284],
        ]);
});

test('GCP: a shipped A100 row is priced with its a2 host VM, as SkyPilot joins them', () => {
        // prices/skypilot/catalogs/v8/gcp/vms.csv: in every us-central1 zone the A100 x1 row
        // is 2.93391 $/h (spot 1.4341) and a2-highgpu-1g 0.73948 (spot 0.36975):
        // 2.93391 + 0.73948 = 3.67339; 1.4341 + 0.36975 = 1.80385.
        const rows = psql("SELECT p.pricing, p.usd_per_hour FROM current_prices p" +
                " WHERE p.offering_id = 'gcp-a2-highgpu-1g-us-central1' ORDER BY p.pricing");
        assert.deepEqual(rows.map((r) => r.split('|')).map(([k, v]) => [k, Number(v)]),
                         [['on_demand', 3.67339], ['spot', 1.80385]]);
});

test('no plan ranked first is a free tier or a stale quote; each exclusion says why; a request can ask for them', async () => {
        // int4 weights of a 7B model fit a T4: before this rule the free Colab T4 ranked first.
        const body = {
                model: { id: 'llama-2-7b' }, quantization: 'int4',
                workload: { mode: 'inference', batch_size: 1, prompt_tokens: 512, generated_tokens: 128 },
        };
        const res = await post('/api/v1/compare', body);
        assert.equal(res.status, 200, res.text.slice(0, 400));
        const today = Date.parse(TODAY) / 86400e3;
        for (const p of res.json.plans.slice(0, 5)) {
                assert.notEqual(p.provider, 'colab');
                assert.ok(p.price_age_days <= 180, `${p.offering}: ${p.price_age_days} days`);
                assert.ok(Math.abs(today - Date.parse(p.price_as_of) / 86400e3 - p.price_age_days) < 1.01);
        }
        const free = res.json.excluded.find((e) => e.offering === 'colab-free-t4');
        assert.ok(free, 'the free tier is listed as excluded');
        assert.match(free.reason, /free tier .*include_notebooks/);
        const stale = res.json.excluded.find((e) => /^quote of \d{4}-\d\d-\d\d, older than 180 days/.test(e.reason));
        assert.ok(stale, 'a stale quote is listed with its date');
        // Asked for: the free tier and stale quotes come back.
        const asked = await post('/api/v1/compare', { ...body, constraints: { include_notebooks: true, include_stale_prices: true } });
        assert.equal(asked.status, 200);
        // (The free T4 itself still does not fit: 12.7 GiB of RAM; Colab Pro's T4 comes back.)
        assert.ok(asked.json.plans.some((p) => p.offering === 'colab-pro-t4'));
        assert.equal(asked.json.constraints.include_notebooks, true);
        // serving_plan follows the same rule.
        const serve = await post('/api/v1/serving_plan', {
                model: { id: 'llama-2-7b' }, quantization: 'int4',
                traffic: { requests_per_second: 0.1, prompt_tokens: 256, output_tokens: 64 },
                slo: { ttft_p95_ms: 5000, tpot_ms: 500 },
        });
        assert.equal(serve.status, 200, serve.text.slice(0, 400));
        assert.ok(serve.json.plans.length > 0);
        for (const p of serve.json.plans)
                assert.ok(p.provider !== 'colab' && p.price_age_days <= 180, `${p.offering} ${p.price_as_of}`);
});

test('regions: a filter keeps those regions; per_region gives one plan per region; spot plans say interruptible', async () => {
        const body = {
                model: { id: 'llama-2-7b' },
                workload: { mode: 'inference', batch_size: 1, prompt_tokens: 512, generated_tokens: 128 },
                constraints: { providers: ['aws'], regions: ['us-east-1', 'eu-west-2'], per_region: true },
        };
        const res = await post('/api/v1/compare', body);
        assert.equal(res.status, 200, res.text.slice(0, 400));
        const regions = new Set(res.json.plans.map((p) => p.region));
        assert.ok(regions.size === 2 && regions.has('us-east-1') && regions.has('eu-west-2'), [...regions].join());
        // Without per_region the p5.48xlarge is planned once, in its cheaper region (us-east-1, $55.04 vs $71.552).
        const once = await post('/api/v1/compare', { ...body, constraints: { providers: ['aws'], regions: ['us-east-1', 'eu-west-2'] } });
        const p5 = once.json.plans.filter((p) => p.instance_type === 'p5.48xlarge');
        assert.equal(p5.length, 1);
        assert.equal(p5[0].usd_per_hour, 55.04);
        // Folded in: the snapshot's eu-west-2 row and the hand-typed us-east-1 row of the seed.
        assert.ok(p5[0].price_regions >= 2, `${p5[0].price_regions}`);
        assertProblem(await post('/api/v1/compare', { ...body, constraints: { regions: ['mars-north-1'] } }), 400, '/constraints/regions/0');
        // Spot: interruptible, and a training plan's hours include the restart overhead.
        const spot = await post('/api/v1/compare', {
                model: { id: 'llama-2-7b' },
                workload: { mode: 'lora', batch_size: 8, sequence_length: 512, lora: { rank: 8, targets: ['q_proj', 'v_proj'] },
                            dataset: { samples: 10000, epochs: 1 } },
                constraints: { providers: ['aws'], pricing: 'spot' },
        });
        assert.equal(spot.status, 200, spot.text.slice(0, 400));
        assert.ok(spot.json.plans.length > 0);
        assert.ok(spot.json.plans.every((p) => p.interruptible === true && p.restart_overhead_fraction > 0));
        assert.ok(spot.json.assumptions.some((a) => /interruptible.*restart overhead/.test(a)));
});
