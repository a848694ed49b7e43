// page.test.mjs - the team web page in headless Chromium (Debian's
// /usr/bin/chromium driven by playwright-core), against the real server and
// its PostgreSQL.  Every figure the page shows is checked against the API
// answer for the same request, fetched by the test itself.
//
// Environment:
//   GPUPLAN_TEST_URL        the server's base URL (required), e.g. http://127.0.0.1:8080/
//   GPUPLAN_TEST_NGINX_URL  the page through nginx under the /gpuplan/ sub-path; when
//                           unset, the harness's startNginx() runs deploy/nginx.conf on a
//                           free loopback port in front of GPUPLAN_TEST_URL
// Every API answer the test fetches itself goes through the integration
// harness (tests/integration/lib.mjs), which checks it against openapi.yaml.
// Screenshots of every view at desktop and phone width go to tests/artifacts/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { request, startNginx } from '../integration/lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const artifacts = join(root, 'tests', 'artifacts');
const withSlash = (u) => (u.endsWith('/') ? u : u + '/');

if (!process.env.GPUPLAN_TEST_URL)
        throw new Error('GPUPLAN_TEST_URL is not set: run the page tests through scripts/test.sh, ' +
                        'or start the server and export its base URL');
const BASE = withSlash(process.env.GPUPLAN_TEST_URL);
let NGINX = process.env.GPUPLAN_TEST_NGINX_URL ? withSlash(process.env.GPUPLAN_TEST_NGINX_URL) : null;

let browser;
let nginx = null;
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 375, height: 812 };

before(async () => {
        // static/vendor/ is generated from node_modules (npm run vendor), never
        // committed: refresh it so the page under test uses the locked Chart.js.
        execFileSync(process.execPath, [join(root, 'scripts', 'vendor.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
        assert.ok(existsSync(join(root, 'static', 'vendor', 'chart.umd.min.js')));
        mkdirSync(artifacts, { recursive: true });
        browser = await chromium.launch({
                executablePath: '/usr/bin/chromium',
                args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
                        '--disable-component-update', '--disable-sync', '--no-first-run'],
        });
        if (!NGINX) {
                nginx = await startNginx({ upstreamUrl: BASE.replace(/\/$/, '') });
                NGINX = nginx.url + '/gpuplan/';
        }
});

after(async () => {
        if (browser) await browser.close();
        if (nginx) await nginx.stop();
});

// ---- helpers --------------------------------------------------------------

// path relative to the base ('api/v1/gpus'); a body makes it a POST.
async function api(path, body) {
        const res = await request(body === undefined ? 'GET' : 'POST', '/' + path,
                { body, base: BASE.replace(/\/$/, '') });
        return { status: res.status, json: res.json };
}

// A page that records every console error, uncaught exception and
// Content-Security-Policy violation.  allow: regexps of expected messages
// (the browser logs a failed fetch, e.g. a deliberate 400, as an error).
async function openPage(viewport = DESKTOP) {
        const context = await browser.newContext({ viewport, acceptDownloads: true });
        const page = await context.newPage();
        page.problems = [];
        page.allow = [];
        page.on('console', (m) => {
                if (m.type() === 'error' && !page.allow.some((re) => re.test(m.text())))
                        page.problems.push(`console: ${m.text()}`);
        });
        page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
        page.close_ = async () => {
                await context.close();
                assert.deepEqual(page.problems, [], 'the page logged errors');
        };
        return page;
}

// Run action and return the POST to path ('/api/v1/estimate') the page sends
// for it (the first one that satisfies want) and the status of its answer.
async function postAfter(page, path, action, want) {
        const waiting = page.waitForResponse((res) => {
                const r = res.request();
                if (!r.url().endsWith(path) || r.method() !== 'POST') return false;
                try {
                        return want(JSON.parse(r.postData()));
                } catch {
                        return false;
                }
        }, { timeout: 15000 });
        await action();
        const res = await waiting;
        return { body: JSON.parse(res.request().postData()), status: res.status() };
}

const estimateAfter = (page, action, want) => postAfter(page, '/api/v1/estimate', action, want);
const servingAfter = (page, action, want) => postAfter(page, '/api/v1/serving_plan', action, want);

async function componentBytesShown(page) {
        return page.$$eval('#components-table tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
                const cells = Array.from(tr.children).map((c) => c.textContent.trim());
                return [cells[0], cells[3]];
        })));
}

function expectedComponentBytes(res) {
        const out = {};
        for (const [k, v] of Object.entries(res.per_gpu.components)) out[k.replace(/_/g, ' ')] = v.toLocaleString('en-US');
        out.total = res.per_gpu.total_bytes.toLocaleString('en-US');
        return out;
}

// The calculator has answered; unless allowed, its answer was not a problem.
async function ready(page, { problemOk = false } = {}) {
        await page.waitForSelector('#calc-results[data-ready="true"][aria-busy="false"]', { timeout: 15000 });
        if (!problemOk)
                assert.equal(await page.isVisible('#calc-problem'), false,
                        `the calculator shows a problem: ${await page.textContent('#calc-problem')}`);
}

// ---- calculator -----------------------------------------------------------

test('calculator: XLM-R Large pre-train, batch 16, sequence 128 shows what the API computes; batch 8 updates it',
        async () => {
                const page = await openPage();
                // Start from other inputs, then enter the seed's setup through the form.
                await page.goto(BASE + '#/calculator?mode=inference&batch=2');
                await ready(page);
                const want16 = (b) => b.model.id === 'xlm-roberta-large' && b.workload.mode === 'pre_train' &&
                        b.workload.batch_size === 16 && b.workload.sequence_length === 128;
                const first = await estimateAfter(page, async () => {
                        await page.selectOption('#f-source', 'catalog');
                        await page.selectOption('#f-model', 'xlm-roberta-large');
                        await page.selectOption('#f-mode', 'pre_train');
                        await page.fill('#f-batch', '16');
                        await page.fill('#f-seq', '128');
                }, want16);
                assert.equal(first.status, 200);
                const api16 = await api('api/v1/estimate', first.body);
                assert.equal(api16.status, 200);
                await page.waitForSelector(`#calc-total[data-bytes="${api16.json.per_gpu.total_bytes}"]`);
                assert.deepEqual(await componentBytesShown(page), expectedComponentBytes(api16.json));
                // max_memory_allocated and max_memory_reserved as the API gives them.
                const gib = (b) => new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
                        .format(b / 1073741824);
                assert.equal(await page.textContent('#calc-allocated'), `${gib(api16.json.per_gpu.allocated_bytes)} GiB`);
                assert.equal(await page.textContent('#calc-reserved'), `${gib(api16.json.per_gpu.reserved_bytes)} GiB`);
                assert.equal(await page.textContent('#calc-needed'), `${gib(api16.json.per_gpu.needed_bytes)} GiB`);
                // The fit table lists every GPU the API assessed.
                assert.equal(await page.locator('#fits-table tbody tr').count(), api16.json.fits.length);

                const second = await estimateAfter(page, () => page.fill('#f-batch', '8'),
                        (b) => b.workload.batch_size === 8 && b.workload.sequence_length === 128);
                const api8 = await api('api/v1/estimate', second.body);
                assert.equal(api8.status, 200);
                assert.ok(api8.json.per_gpu.total_bytes < api16.json.per_gpu.total_bytes,
                        'half the batch needs less memory (activations and logits scale with it)');
                await page.waitForSelector(`#calc-total[data-bytes="${api8.json.per_gpu.total_bytes}"]`);
                assert.deepEqual(await componentBytesShown(page), expectedComponentBytes(api8.json));
                assert.match(page.url(), /#\/calculator\?.*batch=8/);
                await page.close_();
        });

test('calculator: the model search box finds catalog models by Hub id and size; a pasted config shows what was understood',
        async () => {
                const page = await openPage();
                await page.goto(BASE + '#/calculator?mode=inference');
                await ready(page);
                await page.selectOption('#f-source', 'catalog');
                const hub = await estimateAfter(page, () => page.fill('#f-model-search', 'meta-llama/Llama-2-7b-hf'),
                        (b) => b.model.id === 'llama-2-7b');
                assert.equal(hub.status, 200);
                assert.equal(await page.inputValue('#f-model'), 'llama-2-7b');
                // Every remaining option matches; a family and a size narrow to one.
                await estimateAfter(page, () => page.fill('#f-model-search', 'qwen3 30b'),
                        (b) => b.model.id === 'qwen3-30b-a3b');
                const left = await page.$$eval('#f-model option', (os) => os.map((o) => o.value));
                assert.deepEqual(left, ['qwen3-30b-a3b']);

                // Gemma 2 9B's config.json: the page says how it was read.
                const cfg = { model_type: 'gemma2', vocab_size: 256000, hidden_size: 3584, intermediate_size: 14336,
                        num_hidden_layers: 42, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 256,
                        sliding_window: 4096, max_position_embeddings: 8192 };
                await page.selectOption('#f-source', 'hf_config');
                const pasted = await estimateAfter(page, () => page.fill('#f-hf', JSON.stringify(cfg)),
                        (b) => b.model.hf_config && b.model.hf_config.model_type === 'gemma2');
                assert.equal(pasted.status, 200);
                const shown = await page.textContent('#calc-arch');
                assert.match(shown, /gemma2 decoder/);
                assert.match(shown, /42 layers/);
                assert.match(shown, /16 heads \(8 KV\)/);
                assert.match(shown, /window 4096, global attention every 2 layers/);
                await page.close_();
        });

test('calculator: the framework comes first; choosing torchtitan lets its defaults fill what was left alone', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?model=llama-3.1-8b&mode=pre_train&batch=2&seq=4096');
        await ready(page);
        // The first control of the form is the framework.
        assert.equal(await page.$eval('#calc-form', (f) => f.querySelector('select, input, textarea').id), 'f-framework');
        const chosen = await estimateAfter(page, () => page.selectOption('#f-framework', 'torchtitan'),
                (b) => b.framework === 'torchtitan');
        assert.equal(chosen.status, 200);
        // Precision and checkpointing were at the page's defaults: not sent, so torchtitan's apply.
        assert.equal(chosen.body.precision, undefined);
        assert.equal((chosen.body.memory_savers || {}).activation_checkpointing, undefined);
        const answer = (await api('api/v1/estimate', chosen.body)).json;
        assert.equal(answer.input.activation_checkpointing, 'selective_op');
        await page.waitForSelector(`#calc-total[data-bytes="${answer.per_gpu.total_bytes}"]`);
        assert.match(await page.textContent('#calc-results'), /activation_checkpointing = selective_op: the framework's default/);
        // A setting the user changes is sent and wins over the framework's.
        const full = await estimateAfter(page, () => page.selectOption('#f-ckpt', 'full'),
                (b) => b.framework === 'torchtitan' && b.memory_savers && b.memory_savers.activation_checkpointing === 'full');
        assert.equal(full.status, 200);
        await page.close_();
});

test('calculator: an encoder-decoder takes a target length, a decoder does not', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?model=llama-3.1-8b&mode=fine_tune&batch=2&seq=512');
        await ready(page);
        assert.equal(await page.isVisible('#f-target'), false);
        await page.goto(BASE + '#/calculator?model=flan-t5-large&mode=fine_tune&batch=8&seq=512');
        await ready(page);
        assert.equal(await page.isVisible('#f-target'), true);
        const sent = await estimateAfter(page, () => page.fill('#f-target', '64'),
                (b) => b.workload.target_length === 64);
        assert.equal(sent.status, 200);
        assert.equal(sent.body.workload.sequence_length, 512);
        // what the page shows is what the API answers for that body, which
        // holds fewer decoder activations than with 512 target tokens
        const answer = (await api('api/v1/estimate', sent.body)).json;
        await page.waitForSelector(`#calc-total[data-bytes="${answer.per_gpu.total_bytes}"]`);
        const whole = (await api('api/v1/estimate', { ...sent.body,
                workload: { ...sent.body.workload, target_length: 512 } })).json;
        assert.ok(answer.per_gpu.components.activations < whole.per_gpu.components.activations);
        await page.close_();
});

test('permalink reproduces the view and its inputs; "copy as curl" returns the same numbers', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator');
        await ready(page);
        const req = await estimateAfter(page, async () => {
                await page.selectOption('#f-model', 'xlm-roberta-base');
                await page.selectOption('#f-mode', 'fine_tune');
                await page.fill('#f-batch', '12');
                await page.selectOption('#f-precision', 'bf16_mixed');
        }, (b) => b.model.id === 'xlm-roberta-base' && b.workload.batch_size === 12 && b.precision === 'bf16_mixed');
        const expected = (await api('api/v1/estimate', req.body)).json.per_gpu.total_bytes;
        await page.waitForSelector(`#calc-total[data-bytes="${expected}"]`);
        const link = page.url();

        // A fresh browser context opening the link sees the same view and inputs.
        const other = await openPage();
        await other.goto(link);
        await ready(other);
        assert.equal(await other.inputValue('#f-model'), 'xlm-roberta-base');
        assert.equal(await other.inputValue('#f-mode'), 'fine_tune');
        assert.equal(await other.inputValue('#f-batch'), '12');
        assert.equal(await other.inputValue('#f-precision'), 'bf16_mixed');
        await other.waitForSelector(`#calc-total[data-bytes="${expected}"]`);
        assert.equal(await other.isVisible('#view-calculator'), true);
        await other.close_();

        // Copy as curl: the command, run by a shell, answers the same total.
        await page.click('button[data-copy="curl"][data-target="calculator"]');
        await page.waitForSelector('#snippet-dialog[open]');
        const curl = await page.inputValue('#snippet-text');
        assert.match(curl, /^curl -s -X POST '/);
        const out = JSON.parse(execFileSync('bash', ['-c', curl], { encoding: 'utf8' }));
        assert.equal(out.per_gpu.total_bytes, expected);
        assert.deepEqual(out.per_gpu.components, (await api('api/v1/estimate', req.body)).json.per_gpu.components);
        await page.click('#snippet-dialog button[value="close"]');

        // Copy as Python carries the same payload (True/False for JSON booleans).
        await page.click('button[data-copy="python"][data-target="calculator"]');
        const py = await page.inputValue('#snippet-text');
        assert.match(py, /^import requests\n/);
        assert.match(py, /requests\.post\("http:\/\/[^"]+\/api\/v1\/estimate", json=payload, timeout=30\)/);
        assert.match(py, /"batch_size": 12,/);
        assert.match(py, /"flash_attention": (True|False),/);
        await page.close_();
});

test('a bad input: batch 0 is refused in plain words with no request; a value the API refuses shows its problem next to the field', async () => {
        const page = await openPage();
        page.allow.push(/status of 400/);
        await page.goto(BASE + '#/calculator');
        await ready(page);
        // The browser judges 0 against min="1": a plain message, and nothing is sent.
        const before = [];
        page.on('request', (r) => {
                if (r.url().endsWith('/api/v1/estimate')) before.push(JSON.parse(r.postData()));
        });
        await page.fill('#f-batch', '0');
        await page.waitForFunction(() => document.querySelector('#e-batch').textContent === 'Enter 1 or more.');
        await page.waitForTimeout(700);
        assert.equal(before.filter((b) => b.workload.batch_size === 0).length, 0, 'no request for an invalid value');
        assert.equal(await page.getAttribute('#f-batch', 'aria-invalid'), 'true');
        // A number the form accepts but the API does not: its problem sits beside the field.
        const sent = await estimateAfter(page, () => page.fill('#f-batch', '2000000'), (b) => b.workload.batch_size === 2000000);
        assert.equal(sent.status, 400);
        const problem = (await api('api/v1/estimate', sent.body)).json;
        const pointers = [problem.pointer, ...(problem.errors || []).map((e) => e.pointer)];
        assert.ok(pointers.includes('/workload/batch_size'), `problem names the field: ${JSON.stringify(problem)}`);
        // The API's rule, in plain words beside the field.
        assert.equal((problem.errors || []).find((e) => e.pointer === '/workload/batch_size')?.detail, 'batch_size must be 1..1048576');
        const detail = 'Enter a whole number from 1 to 1,048,576.';
        await page.waitForFunction((d) => document.querySelector('#e-batch').textContent === d, detail);
        assert.equal(await page.getAttribute('#f-batch', 'aria-invalid'), 'true');
        const describedBy = await page.getAttribute('#f-batch', 'aria-describedby');
        assert.equal(await page.textContent('#' + describedBy), detail);
        // The message sits right beside the field, in the same form group.
        assert.equal(await page.evaluate(() => document.querySelector('#e-batch').previousElementSibling.id), 'f-batch');
        // Fixing the value clears it.
        await estimateAfter(page, () => page.fill('#f-batch', '4'), (b) => b.workload.batch_size === 4);
        await page.waitForFunction(() => document.querySelector('#e-batch').textContent === '');
        await page.close_();
});

// ---- requirement tables -------------------------------------------------------

// The reported columns of the article ("Hardware Requirements for Training of
// Language Models"), transcribed from the article: Num. GPUs, Max. per GPU
// Size Usage, Batch Size per GPU, Gradient Accumulation, Global Batch Size,
// Time for One Epoch (hours), Additional CPU Memory (GB).
const SEED_FINE_TUNE = [
        ['1', '8', '16', '1', '16', '1', '8'],
        ['1', '16', '16', '1', '16', '3', '12'],
        ['2', '32', '16', '1', '32', '50', '96'],
        ['4', '40', '16', '1', '64', '25', '200'],
];
const SEED_PRE_TRAIN = [
        ['1', '16', '16', '512', '8192', '5.1', '8'],
        ['1', '24', '26', '316', '8216', '3.3', '8'],
        ['1', '40', '52', '158', '8216', '2.3', '8'],
        ['1', '16', '8', '1024', '8192', '15.3', '12'],
        ['1', '24', '16', '512', '8192', '8.4', '12'],
        ['1', '40', '36', '228', '8208', '4.7', '12'],
        ['2', '40', '8', '256', '4096', '33.2', '96'],
        ['4', '40', '8', '256', '8192', '18.3', '120'],
        ['8', '80', '4', '256', '8192', '13.6', '200'],
];

async function seedRows(page, id) {
        return page.$$eval(`#${id} tbody tr:not(.expand)`, (trs) => trs.map((tr) => {
                const cells = Array.from(tr.children);
                const text = (i) => {
                        const r = cells[i].querySelector('.reported');
                        return (r ? r.textContent : cells[i].textContent).trim();
                };
                const est = (i) => (cells[i].querySelector('.estimate') || {}).textContent || '';
                return {
                        reported: [3, 4, 5, 6, 7, 9, 10].map(text),
                        estimates: [est(4), est(9), est(10)],
                        setup: Boolean(cells[cells.length - 1].querySelector('details')),
                };
        }));
}

test('requirement tables: 4 fine-tune and 9 pre-train rows, reported values verbatim beside the estimates', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/tables');
        await page.waitForSelector('#seed-table-fine_tune tbody tr', { timeout: 20000 });
        await page.waitForSelector('#seed-table-pre_train tbody tr');
        const ft = await seedRows(page, 'seed-table-fine_tune');
        const pt = await seedRows(page, 'seed-table-pre_train');
        assert.deepEqual(ft.map((r) => r.reported), SEED_FINE_TUNE);
        assert.deepEqual(pt.map((r) => r.reported), SEED_PRE_TRAIN);
        for (const r of [...ft, ...pt]) {
                assert.match(r.estimates[0], /\d/, 'each row shows the per-GPU estimate');
                assert.ok(r.setup, 'each row has its assumed setup one click away');
        }
        // The assumption is one click away, with why the hours differ and the
        // time assumptions behind the estimate.
        const details = page.locator('#seed-table-pre_train details.setup').first();
        await details.locator('summary').click();
        assert.equal(await details.evaluate((d) => d.open), true);
        assert.match(await details.textContent(), /\S+/);
        const scen = (await api('api/v1/scenarios')).json.scenarios.find((s) => s.table_name === 'pre_train');
        assert.ok(scen.time_explanation);
        assert.match(await details.locator('.time-explanation').textContent(), new RegExp(scen.time_explanation.slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        assert.ok(await details.locator('.time-assumptions li').count() >= 1, 'the time assumptions are listed');
        // The builder makes the same kind of table for a family.
        await page.waitForSelector('#builder-result tbody tr');
        await page.close_();
});

// ---- catalog ------------------------------------------------------------------

test('catalog lists every GPU the API returns; sorting by memory works; CSV downloads', async () => {
        const { json } = await api('api/v1/gpus');
        const memory = new Map(json.gpus.map((g) => [g.id, g.memory_bytes]));
        const page = await openPage();
        await page.goto(BASE + '#/catalog');
        await page.waitForSelector('#gpu-table tbody tr');
        const ids = () => page.$$eval('#gpu-table tbody tr th code', (cs) => cs.map((c) => c.textContent));
        assert.deepEqual((await ids()).slice().sort(), json.gpus.map((g) => g.id).sort());

        const memHeader = page.locator('#gpu-table thead th[data-key="memory"] button');
        const ordered = (list, dir) => {
                const known = list.map((id) => memory.get(id)).filter((v) => v !== null);
                for (let i = 1; i < known.length; i++)
                        assert.ok(dir > 0 ? known[i - 1] <= known[i] : known[i - 1] >= known[i], `memory order at ${i}`);
        };
        await memHeader.click();
        assert.equal(await page.getAttribute('#gpu-table thead th[data-key="memory"]', 'aria-sort'), 'ascending');
        ordered(await ids(), 1);
        await memHeader.press('Enter');         // keyboard works too
        assert.equal(await page.getAttribute('#gpu-table thead th[data-key="memory"]', 'aria-sort'), 'descending');
        ordered(await ids(), -1);

        const [download] = await Promise.all([
                page.waitForEvent('download'),
                page.click('#catalog-table button.csv'),
        ]);
        const csv = readFileSync(await download.path(), 'utf8').trim().split(/\r\n/);
        assert.equal(csv.length, json.gpus.length + 1);
        assert.match(csv[0], /^Accelerator,Vendor,Kind,Memory \(GiB\)/);

        // A filter goes to the API and into the link.
        await page.fill('#c-min', '80');
        await page.waitForURL(/c_min=80/);
        const { json: big } = await api('api/v1/gpus?min_memory=' + 80 * 1024 ** 3);
        await page.waitForFunction((n) => document.querySelectorAll('#gpu-table tbody tr').length === n, big.gpus.length);
        await page.close_();
});

// ---- validation ---------------------------------------------------------------

test('validation view shows every measured case', async () => {
        const { json } = await api('api/v1/validation');
        const page = await openPage();
        await page.goto(BASE + '#/validation');
        await page.waitForSelector('#validation-cases');
        const cases = json.cases || json.measurements || [];
        assert.ok(cases.length > 0);
        assert.equal(await page.locator('#validation-cases tbody tr').count(), cases.length);
        assert.match(await page.textContent('#val-median'), /\d/);
        // One row per category the API reports, with its own median; the
        // cases come grouped: a category's rows are contiguous.
        const groups = json.summary.by_category;
        assert.ok(groups.length >= 4, JSON.stringify(groups));
        assert.equal(await page.locator('#validation-categories tbody tr').count(), groups.length);
        for (const g of groups) {
                const row = page.locator(`#validation-categories tr[data-category="${g.category}"]`);
                assert.equal(await row.count(), 1, g.category);
                assert.match(await row.textContent(), new RegExp(`${g.count}`));
        }
        // The throughput cases beside them, with their own figures per category.
        await page.waitForSelector('#validation-time-cases');
        assert.equal(await page.locator('#validation-time-cases tbody tr').count(), json.time.cases.length);
        assert.ok(json.time.cases.length >= 30);
        assert.ok((await page.textContent('#val-time-median')).includes((100 * json.time.summary.median_abs_error).toFixed(1)),
                  'the median the API reports');
        // The error bars' leave-one-out coverage, as the API reports it.
        for (const [id, c] of [['#val-coverage', json.summary.interval_coverage],
                               ['#val-time-coverage', json.time.summary.interval_coverage]]) {
                const text = await page.textContent(id);
                assert.ok(text.includes((100 * c.leave_one_out).toFixed(1)) && text.includes(`${c.cases}`), text);
        }
        for (const g of json.time.summary.by_category) {
                const row = page.locator(`#validation-time-categories tr[data-category="${g.category}"]`);
                assert.equal(await row.count(), 1, g.category);
                assert.match(await row.textContent(), new RegExp(`${g.count}`));
        }
        const shown = await page.$$eval('#validation-cases tbody tr > :first-child', (tds) => tds.map((td) => td.textContent));
        const seen = new Set();
        for (let i = 0; i < shown.length; i++) {
                if (i > 0 && shown[i] !== shown[i - 1]) {
                        assert.ok(!seen.has(shown[i]), `category ${shown[i]} appears in two places`);
                        seen.add(shown[i - 1]);
                }
        }
        await page.close_();
});

// ---- cost ---------------------------------------------------------------------

test('cost view shows the ranked plans POST /api/v1/compare returns', async () => {
        const page = await openPage();
        // The plans price the calculator's setup as it is (no saver added).
        const waiting = page.waitForResponse((r) => r.url().endsWith('/api/v1/compare') &&
                Array.isArray(JSON.parse(r.request().postData()).constraints.memory_savers), { timeout: 20000 });
        await page.goto(BASE + '#/cost?model=xlm-roberta-large&mode=fine_tune&batch=16&seq=128&labels=3&samples=10000');
        const res = await waiting;
        assert.equal(res.status(), 200);
        const body = JSON.parse(res.request().postData());
        assert.equal(body.model.id, 'xlm-roberta-large');
        assert.equal(body.constraints.rank_by, 'cost');
        const { json } = await api('api/v1/compare', body);
        assert.ok(json.plans.length > 0, 'XLM-R Large fine-tuning has plans');
        await page.waitForSelector('#plans-table tbody tr');
        const shown = await page.$$eval('#plans-table tbody tr', (trs) => trs.map((tr) =>
                Array.from(tr.children).map((c) => c.textContent.trim())));
        assert.equal(shown.length, json.plans.length);
        const names = new Map((await api('api/v1/providers')).json.providers.map((p) => [p.id, p.name]));
        json.plans.forEach((p, i) => {
                // Names for people: the GPU's name, the provider's, the instance type.
                assert.equal(shown[i][1], p.gpu_name);
                assert.equal(shown[i][2], names.get(p.provider));
                assert.equal(shown[i][3], p.instance_type || p.offering);
                assert.equal(shown[i][4], String(p.gpus));
                assert.equal(shown[i][9], '$' + p.cost_usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
        });
        // A deadline is a constraint the API applies.
        const again = page.waitForResponse((r) => r.url().endsWith('/api/v1/compare') &&
                JSON.parse(r.request().postData()).constraints.deadline_hours === 1 &&
                Array.isArray(JSON.parse(r.request().postData()).constraints.memory_savers));
        await page.fill('#k-deadline', '1');
        assert.equal((await again).status(), 200);
        await page.close_();
});

// ---- serving ------------------------------------------------------------------

// The serving view has answered its latest request (plans or a problem).
async function servingReady(page) {
        await page.waitForSelector('#serving-results[data-ready="true"][aria-busy="false"]', { timeout: 15000 });
}

// The plans table as text: rank, GPU, provider, USD per hour and per month,
// shape (the key columns, shown first), and the offering once the column
// chooser shows the instance.
async function servingRows(page) {
        return page.$$eval('#serving-plans-table tbody tr', (trs) => trs.map((tr) => {
                const c = Array.from(tr.children).map((td) => td.textContent.trim());
                const code = tr.querySelector('code');
                return {
                        rank: c[0], gpu: c[1], provider: c[2], usdPerHour: c[3], usdPerMonth: c[4], shape: c[5],
                        offering: code ? code.textContent : null,
                };
        }));
}

const usd2 = (v) => '$' + v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

test('serving view: the question, ranked plans and frontier POST /api/v1/serving_plan returns; a zero rate names its field',
        async () => {
                const page = await openPage();
                page.allow.push(/status of 400/);
                // Start from another question, then ask this one through the form.
                await page.goto(BASE + '#/serving?s_model=llama-3.1-70b&s_rps=1&s_quant=int4');
                await servingReady(page);
                // The model field suggests catalog ids and Hub ids of models that generate.
                const offered = await page.$$eval('#s-models option', (os) => os.map((o) => o.value));
                assert.ok(offered.includes('llama-3.1-8b') && offered.includes('meta-llama/Llama-3.1-8B'));
                assert.ok(!offered.includes('xlm-roberta-large'), 'an encoder generates no tokens');
                const want = (b) => b.model.id === 'llama-3.1-8b' && b.traffic.requests_per_second === 5 &&
                        b.traffic.prompt_tokens === 1000 && b.traffic.output_tokens === 200 &&
                        b.slo.ttft_p95_ms === 500 && b.slo.tpot_ms === 50 && b.slo.ttft_p50_ms === undefined &&
                        JSON.stringify(b.quantization) === '["none","fp8"]';
                const sent = await servingAfter(page, async () => {
                        await page.fill('#s-model', 'llama-3.1-8b');
                        await page.fill('#s-rps', '5');
                        await page.fill('#s-prompt', '1000');
                        await page.fill('#s-output', '200');
                        await page.fill('#s-ttft95', '500');
                        await page.fill('#s-ttft50', '');
                        await page.fill('#s-tpot', '50');
                        await page.uncheck('#s-q-int4');
                        await page.check('#s-q-none');
                        await page.check('#s-q-fp8');
                        await page.click('#serving-submit');
                }, want);
                assert.equal(sent.status, 200);
                const { json } = await api('api/v1/serving_plan', sent.body);
                assert.ok(json.plans.length > 0 && json.frontier.length > 0, 'Llama 3.1 8B at 5 req/s has plans');

                // (a) The question in plain words, exactly as the API restates it.
                await page.waitForFunction((q) => document.querySelector('#serving-question').textContent === q, json.question);
                assert.match(json.question, /5 requests\/s/);

                // (b) The ranked plans, in the API's order.
                // The instance column sits behind the column chooser; turn it on.
                await page.click('#serving-table details.columns summary');
                await page.check('#serving-plans-table-col-instance');
                const names = new Map((await api('api/v1/providers')).json.providers.map((p) => [p.id, p.name]));
                const rows = await servingRows(page);
                assert.equal(rows.length, json.plans.length);
                json.plans.forEach((p, i) => {
                        assert.equal(rows[i].rank, String(p.rank), `row ${i}`);
                        assert.equal(rows[i].gpu, p.gpu_name, `row ${i}`);
                        assert.equal(rows[i].provider, names.get(p.provider), `row ${i}`);
                        assert.equal(rows[i].offering, p.offering, `row ${i}`);
                        assert.equal(rows[i].shape, `${p.tensor_parallel} × ${p.replicas} = ${p.gpus}`, `row ${i}`);
                        assert.equal(rows[i].usdPerHour, usd2(p.usd_per_hour), `row ${i}`);
                        assert.equal(rows[i].usdPerMonth, '$' + (p.usd_per_hour * 730).toLocaleString('en-US', { maximumFractionDigits: 0 }), `row ${i}`);
                });

                // (c) The frontier: one Chart.js dataset per configuration, with its
                // points, and the TPOT target as one more (dashed) line.
                assert.equal(await page.isVisible('#serving-chart'), true);
                const drawn = await page.evaluate(() => Chart.getChart(document.querySelector('#serving-chart')).data.datasets
                        .map((d) => ({ label: d.label, points: d.data.length })));
                assert.deepEqual(drawn, [...json.frontier.map((f) => ({ label: f.label, points: f.points.length })),
                        { label: 'TPOT target (50 ms)', points: 2 }]);

                // The exclusions are one click away; the assumptions are listed.
                const excluded = page.locator('#serving-excluded details');
                assert.match(await excluded.locator('summary').textContent(), new RegExp(`\\(${json.excluded.length}\\)`));
                await excluded.locator('summary').click();
                assert.equal(await page.locator('#serving-excluded-table tbody tr').count(), json.excluded.length);
                assert.equal(await page.locator('#serving-assumptions li').count(), json.assumptions.length);

                // The inputs are in the address: a fresh page opening it asks the same question.
                assert.match(page.url(), /#\/serving\?.*s_rps=5/);
                const other = await openPage();
                await other.goto(page.url());
                await servingReady(other);
                assert.equal(await other.inputValue('#s-model'), 'llama-3.1-8b');
                assert.equal(await other.isChecked('#s-q-fp8'), true);
                assert.equal(await other.isChecked('#s-q-int4'), false);
                assert.equal(await other.textContent('#serving-question'), json.question);
                await other.close_();

                // Copy as curl: the command, run by a shell, asks the same question.
                await page.click('button[data-copy="curl"][data-target="serving"]');
                await page.waitForSelector('#snippet-dialog[open]');
                const curl = await page.inputValue('#snippet-text');
                assert.match(curl, /^curl -s -X POST '[^']+\/api\/v1\/serving_plan'/);
                assert.equal(JSON.parse(execFileSync('bash', ['-c', curl], { encoding: 'utf8' })).question, json.question);
                await page.click('#snippet-dialog button[value="close"]');
                await page.screenshot({ path: join(artifacts, 'page-serving-question-desktop.png'), fullPage: true });

                // (d) A zero rate: the API's problem sits next to the rate field.
                const bad = await servingAfter(page, () => page.fill('#s-rps', '0'), (b) => b.traffic.requests_per_second === 0);
                assert.equal(bad.status, 400);
                const problem = (await api('api/v1/serving_plan', bad.body)).json;
                const pointers = [problem.pointer, ...(problem.errors || []).map((e) => e.pointer)];
                assert.ok(pointers.includes('/traffic/requests_per_second'), `problem names the field: ${JSON.stringify(problem)}`);
                const detail = (problem.errors || []).find((e) => e.pointer === '/traffic/requests_per_second')?.detail || problem.detail;
                const slot = '#view-serving .error[data-for="/traffic/requests_per_second"]';
                await page.waitForFunction(([sel, d]) => document.querySelector(sel).textContent === d, [slot, detail]);
                assert.equal(await page.getAttribute('#s-rps', 'aria-invalid'), 'true');
                assert.equal(await page.textContent('#' + await page.getAttribute('#s-rps', 'aria-describedby')), detail);
                // The answer to the earlier question is gone, not left standing beside the problem.
                assert.equal(await page.locator('#serving-plans-table').count(), 0);
                assert.equal(await page.textContent('#serving-question'), '');
                assert.equal(await page.isVisible('#serving-chart'), false);
                await page.close_();
        });

test('serving view works through nginx under the /gpuplan/ sub-path', async () => {
        const page = await openPage();
        const seen = [];
        page.on('request', (r) => seen.push(new URL(r.url()).pathname));
        await page.goto(NGINX + '#/serving');
        await page.waitForSelector('#serving-plans-table tbody tr', { timeout: 15000 });
        assert.ok(seen.includes(new URL('api/v1/serving_plan', NGINX).pathname), `requests: ${seen.join(' ')}`);
        assert.ok(seen.every((p) => p.startsWith(new URL(NGINX).pathname)), 'every request stays under the sub-path');
        await page.close_();
});

// ---- behind nginx under /gpuplan/ ---------------------------------------------

test('the page works through nginx under the /gpuplan/ sub-path', async () => {
        const page = await openPage();
        const seen = [];
        page.on('request', (r) => seen.push(new URL(r.url()).pathname));
        await page.goto(NGINX + '#/calculator');
        await ready(page);
        assert.match(await page.textContent('#calc-total'), /\d/);
        assert.ok(seen.includes(new URL('api/v1/estimate', NGINX).pathname), `requests: ${seen.join(' ')}`);
        assert.ok(seen.every((p) => p.startsWith(new URL(NGINX).pathname)), 'every request stays under the sub-path');
        await page.goto(NGINX + '#/catalog');
        await page.waitForSelector('#gpu-table tbody tr');
        await page.screenshot({ path: join(artifacts, 'page-subpath-catalog-desktop.png'), fullPage: true });
        await page.close_();
});

// ---- accessibility and screenshots --------------------------------------------

// What each view shows once every request it makes has been answered.
const VIEW_READY = {
        calculator: '#calc-results[data-ready="true"]',
        tables: '#seed-table-pre_train tbody tr',
        catalog: '#gpu-table tbody tr',
        validation: '#validation-cases',
        cost: '#view-cost:has(#plans-table tbody tr):has(#rent-offers tbody tr)',
        serving: '#view-serving:has(#serving-plans-table tbody tr)',
};

test('keyboard and labels: every control is labelled, the views are reachable by keyboard', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator');
        await ready(page);
        for (const [view, sel] of Object.entries(VIEW_READY)) {
                await page.goto(BASE + '#/' + view);
                await page.waitForSelector(sel, { timeout: 20000 });   // leave no request in flight
                const unlabelled = await page.$$eval(`#view-${view} input, #view-${view} select, #view-${view} textarea`,
                        (els) => els.filter((e) => !e.labels.length && !e.getAttribute('aria-label')).map((e) => e.outerHTML));
                assert.deepEqual(unlabelled, [], `${view}: unlabelled controls`);
        }
        await page.goto(BASE + '#/calculator');
        await page.reload();                    // Tab from the top of a freshly opened page
        await ready(page);
        let reached = false;
        for (let i = 0; i < 12 && !reached; i++) {
                await page.keyboard.press('Tab');
                reached = await page.evaluate(() => document.activeElement?.dataset?.view === 'catalog');
        }
        assert.ok(reached, 'the catalog link is reachable with Tab');
        await page.keyboard.press('Enter');
        await page.waitForSelector('#view-catalog:not([hidden]) #gpu-table');
        // Focus follows to the new view's heading.
        await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'h-catalog');
        await page.close_();
});

test('screenshots of every view at desktop and phone width; no horizontal overflow at 375 px', async () => {
        for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
                const page = await openPage(viewport);
                for (const [view, sel] of Object.entries(VIEW_READY)) {
                        await page.goto(BASE + '#/' + view);
                        await page.waitForSelector(sel, { timeout: 20000 });
                        if (view === 'calculator') await ready(page);
                        await page.waitForTimeout(400);         // let chart animations settle for the picture
                        await page.screenshot({ path: join(artifacts, `page-${view}-${name}.png`), fullPage: true });
                        if (name === 'phone') {
                                const wide = await page.evaluate(() => document.documentElement.scrollWidth);
                                assert.ok(wide <= 375, `${view} is ${wide}px wide at 375px`);
                        }
                }
                await page.close_();
        }
});

test('figures for the report: first-view weight and time to first result', async () => {
        const page = await openPage();
        const client = await page.context().newCDPSession(page);
        await client.send('Network.enable');
        let bytes = 0;
        client.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
        await page.goto(BASE + '#/calculator');
        await ready(page);
        const ms = await page.evaluate(() => performance.getEntriesByName('gpuplan:first-result')[0].startTime);
        console.log(`# first view: ${(bytes / 1024).toFixed(1)} KB transferred, first result after ${ms.toFixed(0)} ms`);
        assert.ok(bytes > 0);
        await page.close_();
});

// ---- price history and rent-or-buy charts --------------------------------------

test('catalog: a GPU\'s price history is drawn from the recorded prices; rent or buy draws owning the same GPUs', async () => {
        const { json } = await api('api/v1/prices?gpu=h100-sxm-80gb&history=all&pricing=on_demand');
        assert.ok(json.prices.length > 0, 'the H100 SXM has recorded prices');
        const page = await openPage();
        await page.goto(BASE + '#/catalog');
        await page.waitForSelector('#gpu-table tbody tr');
        // Every cheapest-offer line says how old its quote is.
        const ages = await page.$$eval('#gpu-table tbody td li span', (ss) => ss.map((s) => s.textContent));
        assert.ok(ages.length > 0 && ages.every((t) => /\(\d+ days old\)/.test(t)), ages.slice(0, 3).join(' | '));
        await page.selectOption('#h-gpu', 'h100-sxm-80gb');
        await page.waitForSelector('#history-chart', { state: 'visible' });
        assert.match(await page.textContent('#history-note'), new RegExp(`^${json.prices.length} recorded on-demand prices`));

        await page.goto(BASE + '#/cost');
        await page.waitForSelector('#rent-offers tbody tr', { timeout: 20000 });
        await page.waitForSelector('#rent-chart', { state: 'visible' });
        const head = await page.$$eval('#rent-offers thead th', (ths) => ths.map((t) => t.textContent));
        assert.ok(head.some((t) => /Owned GPUs/.test(t)), head.join(', '));
        await page.close_();
});
