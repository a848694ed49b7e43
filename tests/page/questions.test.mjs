// questions.test.mjs - six questions a team asks the page, each answered from
// the default page with only the changes the question itself names, in
// headless Chromium (Debian's /usr/bin/chromium through playwright-core)
// against the real server.  Then axe-core checks every view for serious and
// critical accessibility violations, and every view is photographed at
// 1366x900 and 390x844 into tests/artifacts/.
//
// Environment: GPUPLAN_TEST_URL, the server's base URL (scripts/test.sh sets it).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { request } from '../integration/lib.mjs';
import { openCheckedPage } from './checked_page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const artifacts = join(root, 'tests', 'artifacts');
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

if (!process.env.GPUPLAN_TEST_URL)
        throw new Error('GPUPLAN_TEST_URL is not set: run the page tests through scripts/test.sh');
const BASE = process.env.GPUPLAN_TEST_URL.replace(/\/?$/, '/');
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const VIEWS = ['calculator', 'tables', 'catalog', 'validation', 'cost', 'serving'];

let browser;

before(async () => {
        execFileSync(process.execPath, [join(root, 'scripts', 'vendor.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
        mkdirSync(artifacts, { recursive: true });
        browser = await chromium.launch({
                executablePath: '/usr/bin/chromium',
                args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
        });
});

after(async () => {
        if (browser) await browser.close();
});

async function api(method, path, body) {
        const res = await request(method, '/' + path, { body, base: BASE.replace(/\/$/, '') });
        return res.json;
}

// A checked page that also records every POST it sends.
async function openPage(viewport = DESKTOP) {
        const page = await openCheckedPage(browser, viewport);
        page.posts = [];
        page.on('request', (r) => {
                if (r.method() === 'POST') page.posts.push({ url: r.url(), body: r.postData() });
        });
        return page;
}

const calcReady = (page) => page.waitForSelector('#calc-results[data-ready="true"][aria-busy="false"]', { timeout: 20000 });

// The body of the last POST to path the page sent.
function lastPost(page, path) {
        const hits = page.posts.filter((p) => p.url.endsWith(path));
        return hits.length ? JSON.parse(hits[hits.length - 1].body) : null;
}

// Wait until the estimate the page shows answers the request the page sent last.
async function settled(page) {
        await page.waitForTimeout(400);
        await calcReady(page);
        await page.waitForTimeout(200);
        await calcReady(page);
}

test('Can I fine-tune an 8B decoder with LoRA on a 24 GB GPU, and what do I change when it does not fit?', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator');
        await calcReady(page);
        // The question's own words: the model, LoRA, a 24 GB card.
        await page.fill('#f-model-search', 'llama 3.1 8b');
        await page.selectOption('#f-mode', 'lora');
        await page.selectOption('#f-gpu', 'rtx-4090');
        await settled(page);
        const sent = lastPost(page, '/api/v1/estimate');
        assert.equal(sent.model.id, 'llama-3.1-8b');
        // A practitioner's starting settings, and the form says so.
        assert.equal(sent.precision, 'bf16_mixed');
        assert.equal(sent.memory_savers.flash_attention, true);
        assert.equal(sent.workload.batch_size, 2);
        assert.equal(await page.inputValue('#f-precision'), 'bf16_mixed');
        assert.equal(await page.isChecked('#f-flash'), true);
        // No invented dataset: no total time, time per million tokens instead.
        assert.equal(sent.workload.dataset, undefined);
        assert.equal(await page.locator('#calc-total-time').count(), 0);
        assert.match(await page.textContent('#calc-per-million'), /\d/);
        // One headline, and a verdict the API agrees with.
        const res = await api('POST', 'api/v1/estimate', sent);
        const row = res.fits.find((f) => f.gpu === 'rtx-4090');
        assert.equal(row.fits, true, 'LoRA of Llama 3.1 8B at these settings fits 24 GB');
        assert.equal(await page.getAttribute('#calc-total', 'data-bytes'), String(res.per_gpu.total_bytes));
        assert.equal(await page.textContent('#calc-fits-verdict'), 'Fits');
        assert.equal(await page.getAttribute('#calc-capacity', 'data-fits'), 'true');
        // The classes of a task head do not belong to a decoder's LoRA.
        assert.equal(await page.isVisible('#f-labels'), false);

        // The same job as a full fine-tune does not fit: the page lists what to change.
        await page.selectOption('#f-mode', 'fine_tune');
        await page.waitForSelector('#calc-fit-options li.fit-option', { timeout: 20000 });
        assert.equal(await page.textContent('#calc-fits-verdict'), 'Does not fit');
        assert.equal(await page.getAttribute('#calc-capacity', 'data-fits'), 'false');
        const sentences = await page.$$eval('#calc-fit-options li.fit-option strong', (ss) => ss.map((s) => s.textContent));
        assert.ok(sentences.length >= 1);
        for (const s of sentences) assert.doesNotMatch(s, /_|\d{9,}/, `plain words: ${s}`);
        const notes = await page.textContent('#calc-notes');
        assert.doesNotMatch(notes, /per_gpu_bytes/);
        // One click applies the first set; the answer then fits.
        await page.click('#calc-fit-options button.apply');
        await settled(page);
        await page.waitForFunction(() => document.querySelector('#calc-fits-verdict')?.textContent === 'Fits', null, { timeout: 20000 });
        const applied = lastPost(page, '/api/v1/estimate');
        const again = await api('POST', 'api/v1/estimate', applied);
        assert.equal(again.fits.find((f) => f.gpu === 'rtx-4090').fits, true);
        // The global batch is kept: 2 x 8 before, batch x accumulation after.
        assert.equal(applied.workload.batch_size * applied.workload.gradient_accumulation, 16);
        await page.done();
});

test('What is the cheapest way to pre-train an encoder on a billion tokens, and how long does it take?', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator');
        await calcReady(page);
        // The default page is XLM-RoBERTa Large pre-training; the question adds the token count.
        await page.fill('#f-tokens', '1000000000');
        await settled(page);
        assert.match(await page.textContent('#calc-total-time'), /\d/);
        await page.click('#calc-to-cost');
        await page.waitForSelector('#cost-cheapest', { timeout: 30000 });
        await page.waitForFunction(() => /\$/.test(document.querySelector('#cost-cheapest')?.textContent || ''), null, { timeout: 30000 });
        const sent = lastPost(page, '/api/v1/compare');
        const exact = page.posts.filter((p) => p.url.endsWith('/api/v1/compare'))
                .map((p) => JSON.parse(p.body)).find((b) => Array.isArray(b.constraints.memory_savers));
        // The calculator's setup, priced as it is.
        assert.ok(exact, 'the plans are asked with no saver added');
        assert.deepEqual(exact.constraints.memory_savers, []);
        assert.equal(exact.workload.dataset.tokens, 1000000000);
        assert.equal(exact.precision, sent.precision);
        const res = await api('POST', 'api/v1/compare', exact);
        assert.ok(res.plans.length > 0);
        const cheapest = res.plans[0];
        const shown = await page.textContent('#cost-cheapest');
        const digits = cheapest.cost_usd < 1 ? 4 : 2;
        assert.equal(shown, '$' + cheapest.cost_usd.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
        assert.ok(cheapest.hours > 0, 'how long: the hours of the cheapest plan');
        assert.match(await page.textContent('#cost-hours'), /\d/);
        // Names for people: GPU name, provider, instance.
        assert.match(await page.textContent('#cost-summary'), new RegExp(cheapest.gpu_name.replace(/[()]/g, '.')));
        await page.done();
});

test('What does serving a 7B instruct model at 5 requests/s within latency targets cost per month?', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/serving');
        await page.waitForSelector('#serving-results[data-ready="true"]', { timeout: 30000 });
        const before = page.posts.length;
        await page.fill('#s-model', 'Qwen/Qwen2.5-7B-Instruct');
        await page.fill('#s-rps', '5');
        await page.fill('#s-ttft95', '1000');
        await page.fill('#s-tpot', '50');
        await page.click('#serving-submit');
        await page.waitForFunction(() => /\$/.test(document.querySelector('#serving-monthly')?.textContent || ''), null, { timeout: 30000 });
        await page.waitForTimeout(800);
        const posts = page.posts.slice(before).filter((p) => p.url.endsWith('/api/v1/serving_plan'));
        const bodies = posts.map((p) => p.body);
        assert.equal(new Set(bodies).size, bodies.length, 'no identical POST twice');
        const sent = JSON.parse(bodies[bodies.length - 1]);
        assert.equal(sent.model.id, 'Qwen/Qwen2.5-7B-Instruct');
        const res = await api('POST', 'api/v1/serving_plan', sent);
        assert.ok(res.plans.length > 0);
        // The price columns are on screen at 1366 px, not scrolled off to the right.
        for (const key of ['usd_h', 'usd_month']) {
                const right = await page.$eval(`#serving-plans-table thead th[data-key="${key}"]`, (th) => th.getBoundingClientRect().right);
                assert.ok(right <= DESKTOP.width, `${key} ends at ${right} px`);
        }
        const monthly = res.plans[0].usd_per_hour * 730;
        assert.equal(await page.textContent('#serving-monthly'),
                '$' + monthly.toLocaleString('en-US', { maximumFractionDigits: 0, minimumFractionDigits: 0 }));
        await page.done();
});

test('How much memory does a pasted config.json need at a 32k context?', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator');
        await calcReady(page);
        // Mistral 7B v0.1's config.json (mistralai/Mistral-7B-v0.1 on the Hub).
        const cfg = { architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
                num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
                max_position_embeddings: 32768, rms_norm_eps: 1e-5, rope_theta: 10000.0, sliding_window: 4096, tie_word_embeddings: false };
        await page.selectOption('#f-source', 'hf_config');
        await page.fill('#f-hf', JSON.stringify(cfg, null, 2));
        await page.selectOption('#f-mode', 'inference');
        await page.fill('#f-prompt', '32000');
        await page.fill('#f-gen', '768');
        await settled(page);
        const sent = lastPost(page, '/api/v1/estimate');
        assert.equal(sent.workload.prompt_tokens, 32000);
        assert.equal(sent.workload.dataset, undefined, 'no dataset in inference');
        assert.equal(await page.isVisible('#f-samples'), false);
        assert.equal(await page.isVisible('#f-epochs'), false);
        const res = await api('POST', 'api/v1/estimate', sent);
        await page.waitForSelector(`#calc-total[data-bytes="${res.per_gpu.total_bytes}"]`);
        assert.match(await page.textContent('#calc-arch'), /mistral decoder/);
        assert.ok(res.per_gpu.components.kv_cache > 0);
        await page.done();
});

test('Do the requirement tables read as reported against estimated, with the key column in view?', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/tables');
        await page.waitForSelector('#seed-table-pre_train tbody tr', { timeout: 30000 });
        const scen = (await api('GET', 'api/v1/scenarios')).scenarios;
        const rows = await page.locator('#seed-table-fine_tune tbody tr, #seed-table-pre_train tbody tr').count();
        assert.equal(rows, scen.length);
        const headers = await page.$$eval('#seed-table-pre_train thead th', (ths) => ths.map((t) => t.textContent.toLowerCase()).join(' | '));
        assert.match(headers, /report/);
        assert.match(headers, /estimat/);
        // The first column stays in view while the rest scroll, at 1366 px.
        const pos = await page.$eval('#seed-table-pre_train tbody tr > :first-child', (c) => getComputedStyle(c).position);
        assert.equal(pos, 'sticky');
        // And at 1366 px the whole table fits: no column hides off-screen.
        for (const id of ['seed-table-fine_tune', 'seed-table-pre_train']) {
                const [w, room] = await page.$eval(`#${id}`, (t) => [t.scrollWidth, t.parentElement.clientWidth]);
                assert.ok(w <= room, `${id}: ${w} px in ${room} px`);
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page itself does not scroll sideways (${overflow} px)`);
        await page.done();
});

test('How accurate is the tool for this kind of job?', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator');
        await calcReady(page);
        await page.waitForSelector('#calc-accuracy a', { timeout: 20000 });
        const text = await page.textContent('#calc-accuracy');
        // The default job is pre-training on one GPU: its cases, as the validation endpoint holds them.
        const cases = (await api('GET', 'api/v1/validation')).cases.filter((c) =>
                (c.request.workload?.mode || 'pre_train') === 'pre_train' && (Number(c.request.parallelism?.gpus) || 1) === 1 &&
                typeof c.error === 'number');
        const errs = cases.map((c) => Math.abs(c.error)).sort((a, b) => a - b);
        const m = errs.length % 2 ? errs[errs.length >> 1] : (errs[errs.length / 2 - 1] + errs[errs.length / 2]) / 2;
        assert.match(text, new RegExp(`Pre-training, one GPU: median ${(m * 100).toFixed(1)} % off over ${cases.length} measured run`));
        await page.click('#calc-accuracy a');
        await page.waitForSelector('#validation-cases tbody tr', { timeout: 20000 });
        assert.equal(await page.locator('#validation-cases tbody tr').count(), cases.length);
        await page.done();
});

test('a chosen framework fills the form with the values the answer used', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?model=llama-3.1-8b&mode=lora&gpu=rtx-4090');
        await calcReady(page);
        await page.selectOption('#f-framework', 'torchtune');
        await settled(page);
        const sent = lastPost(page, '/api/v1/estimate');
        assert.equal(sent.framework, 'torchtune');
        assert.equal(sent.precision, undefined, 'the preset decides the precision');
        const res = await api('POST', 'api/v1/estimate', sent);
        // torchtune's LoRA recipes run pure bf16 with activation checkpointing.
        assert.equal(res.input.precision, 'bf16');
        await page.waitForFunction((p) => document.querySelector('#f-precision').value === p, res.input.precision);
        assert.equal(await page.inputValue('#f-ckpt'), res.input.activation_checkpointing);
        assert.equal(await page.isChecked('#f-flash'), res.input.flash_attention);
        assert.equal(await page.getAttribute('#calc-total', 'data-bytes'), String(res.per_gpu.total_bytes));
        // Setting one by hand takes it back from the framework.
        await page.selectOption('#f-precision', 'bf16_mixed');
        await settled(page);
        assert.equal(lastPost(page, '/api/v1/estimate').precision, 'bf16_mixed');
        await page.done();
});

// ---- every view: accessibility and screenshots ---------------------------------

async function viewReady(page, view) {
        const sel = {
                calculator: '#calc-results[data-ready="true"]', tables: '#seed-table-pre_train tbody tr',
                catalog: '#catalog-table tbody tr', validation: '#validation-cases tbody tr',
                cost: '#cost-summary .big', serving: '#serving-results[data-ready="true"]',
        }[view];
        await page.waitForSelector(sel, { timeout: 30000 });
        await page.waitForTimeout(500);
}

test('axe-core finds no serious or critical violation on any view; every control has a label', async () => {
        const page = await openPage();
        const found = [];
        for (const view of VIEWS) {
                await page.goto(BASE + `#/${view}?model=llama-3.1-8b&mode=fine_tune&gpu=rtx-4090`);
                await viewReady(page, view);
                await page.evaluate(AXE);
                const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
                for (const v of result.violations)
                        if (v.impact === 'serious' || v.impact === 'critical')
                                found.push(`${view}: ${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
                const unlabelled = await page.$$eval('input, select, textarea', (cs) => cs
                        .filter((c) => c.type !== 'hidden' && c.offsetParent !== null)
                        .filter((c) => !(c.labels && c.labels.length) && !c.getAttribute('aria-label') && !c.getAttribute('aria-labelledby'))
                        .map((c) => c.id || c.name));
                assert.deepEqual(unlabelled, [], `${view}: controls without a label`);
        }
        assert.deepEqual(found, []);
        await page.done();
});

test('screenshots of every view at 1366x900 and 390x844; on a phone the answer comes before the form', async () => {
        for (const [name, viewport] of [['1366x900', DESKTOP], ['390x844', PHONE]]) {
                const page = await openPage(viewport);
                for (const view of VIEWS) {
                        await page.goto(BASE + `#/${view}`);
                        await viewReady(page, view);
                        await page.screenshot({ path: join(artifacts, `question-${view}-${name}.png`) });
                }
                if (viewport === PHONE) {
                        await page.goto(BASE + '#/calculator');
                        await calcReady(page);
                        const answer = await page.$eval('#calc-headline', (e) => e.getBoundingClientRect().top);
                        const form = await page.$eval('#calc-form', (e) => e.getBoundingClientRect().top);
                        assert.ok(answer < form, 'the answer is above the form');
                        assert.ok(answer < viewport.height, 'the answer is on the first screen');
                }
                await page.done();
        }
});
