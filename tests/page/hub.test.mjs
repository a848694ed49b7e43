// hub.test.mjs - the model field beyond the catalog, in headless Chromium
// (Debian's /usr/bin/chromium through playwright-core): words of a name
// find a catalog model; a Hub id the catalog lacks offers a look-up on the
// Hub stand-in (tests/integration/hub/standin.mjs), which shows what was read
// and fills the calculator; the Hub's refusals read as the API says them;
// the catalog view's admin form stores a team model the search then finds.
// axe-core checks each new state, and the look-up and the form are
// photographed at 1366x900 and 390x844 into tests/artifacts/.
//
// The shared test server runs with GPUPLAN_HUB=off, so this file starts its
// own: pointed at the stand-in by HF_ENDPOINT, without HF_TOKEN (gated
// repositories are refused), with a database of its own.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer, request, adminToken, createDatabase } from '../integration/lib.mjs';
import { startHub, loadFixtures } from '../integration/hub/standin.mjs';
import { openCheckedPage } from './checked_page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const artifacts = join(root, 'tests', 'artifacts');
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

const SMOL = loadFixtures().find((f) => f.repo === 'HuggingFaceTB/SmolLM2-1.7B');
const VL = loadFixtures().find((f) => f.repo === 'Qwen/Qwen2.5-VL-7B-Instruct');

let hub, server, browser, BASE;

before(async () => {
        execFileSync(process.execPath, [join(root, 'scripts', 'vendor.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
        mkdirSync(artifacts, { recursive: true });
        const db = createDatabase('hub_page_test');
        hub = await startHub();
        server = await startServer({ env: { DATABASE_URL: db, HF_ENDPOINT: hub.url, HF_TOKEN: undefined,
                GPUPLAN_HUB: undefined, GPUPLAN_HUB_TIMEOUT_S: '5', GPUPLAN_THREADS: '2',
                GPUPLAN_ADMIN_TOKEN: adminToken() } });
        BASE = server.url.replace(/\/?$/, '/');
        browser = await chromium.launch({
                executablePath: '/usr/bin/chromium',
                args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
        });
});

after(async () => {
        if (browser) await browser.close();
        await server?.stop();
        await hub?.close();
});

const openPage = (viewport = DESKTOP) => openCheckedPage(browser, viewport);

const calcReady = (page) => page.waitForSelector('#calc-results[data-ready="true"][aria-busy="false"]', { timeout: 20000 });

// Run action; return the first estimate the page sends that satisfies want,
// with its answer.
async function estimateAfter(page, action, want) {
        const waiting = page.waitForResponse((res) => {
                const r = res.request();
                if (!r.url().endsWith('/api/v1/estimate') || r.method() !== 'POST') return false;
                try {
                        return want(JSON.parse(r.postData()));
                } catch {
                        return false;
                }
        }, { timeout: 30000 });
        await action();
        const res = await waiting;
        const body = JSON.parse(res.request().postData());
        // A later estimate may supersede this one (the page aborts it): ask again.
        const json = await res.json().catch(() => null) ??
                (await request('POST', '/api/v1/estimate', { base: server.url, body })).json;
        return { body, status: res.status(), json };
}

// No serious or critical axe-core violation, and every visible control labelled.
async function accessible(page, what) {
        await page.evaluate(AXE);
        const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
        const found = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
                .map((v) => `${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
        assert.deepEqual(found, [], `${what}: axe-core violations`);
        const unlabelled = await page.$$eval('input, select, textarea, button', (cs) => cs
                .filter((c) => c.type !== 'hidden' && c.offsetParent !== null)
                .filter((c) => !(c.labels && c.labels.length) && !c.getAttribute('aria-label') &&
                        !c.getAttribute('aria-labelledby') && !(c.tagName === 'BUTTON' && c.textContent.trim()))
                .map((c) => c.id || c.name));
        assert.deepEqual(unlabelled, [], `${what}: controls without a label`);
}

// The label of the <optgroup> holding the chosen model: where it comes from.
const chosenGroup = (page) => page.$eval('#f-model', (s) => s.selectedOptions[0]?.parentElement?.label || '');

async function lookUp(page, id) {
        await page.fill('#f-model-search', id);
        await page.waitForSelector('#f-hub-lookup:not([hidden])', { timeout: 10000 });
        assert.match(await page.textContent('#f-hub-lookup'), /Look up .* on the Hugging Face Hub/);
        await page.click('#f-hub-lookup');
}

test('the words of a name find the catalog model, and the list says where each result comes from', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?mode=inference');
        await calcReady(page);
        const est = await estimateAfter(page, () => page.fill('#f-model-search', 'qwen2.5 7b instruct'),
                (b) => b.model.id === 'qwen2.5-7b');
        assert.equal(est.status, 200);
        assert.equal(await page.inputValue('#f-model'), 'qwen2.5-7b');
        assert.match(await chosenGroup(page), /\(catalog\)$/);
        await page.waitForFunction(() => /\d+ match(es)?: \d+ catalog/.test(document.querySelector('#f-model-matches').textContent));
        // A name the catalog knows offers no look-up.
        assert.equal(await page.isVisible('#f-hub-lookup'), false);
        await page.done();
});

test('a Hub id the catalog lacks: the look-up shows what was read and fills the calculator', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?mode=inference');
        await calcReady(page);
        assert.equal(await page.isVisible('#f-images'), false, 'no images field for a text model');
        const est = await estimateAfter(page, () => lookUp(page, `https://huggingface.co/${SMOL.repo}`),
                (b) => b.model.id === SMOL.repo);
        assert.equal(est.status, 200);
        assert.equal(est.body.model.revision, undefined, 'no revision pinned');
        await page.waitForSelector('#hub-read-parameters');
        // The stand-in's fixture: SmolLM2-1.7B has 1.71B parameters (its paper).
        const shown = Number((/\(([\d,]+)\)/.exec(await page.textContent('#hub-read-parameters')))[1].replace(/,/g, ''));
        const published = SMOL.published_parameters - (SMOL.tied_head_parameters || 0);
        assert.ok(Math.abs(shown - published) / published < 0.01, `${shown} against ${published}`);
        assert.equal(shown, est.json.model.checkpoint_parameters);
        assert.match(await page.textContent('#hub-read-arch'), /^llama decoder$/);
        assert.match(await page.textContent('#hub-read-revision'), new RegExp(`main at ${SMOL.sha.slice(0, 12)}`));
        assert.equal(await page.textContent('#hub-read-quantization'), 'none');
        assert.match(await page.textContent('#hub-read-vision'), /none/);
        // The calculator now estimates it, and says what was read.
        await calcReady(page);
        assert.equal(await page.inputValue('#f-model'), SMOL.repo);
        assert.match(await chosenGroup(page), /Hugging Face Hub/);
        assert.match(await page.textContent('#calc-source'), new RegExp(`${SMOL.repo} at main.*${SMOL.sha.slice(0, 12)}`));
        assert.match(await page.textContent('#calc-headline'), /1\.71B parameters/);
        assert.equal(await page.isVisible('#f-images'), false);
        await accessible(page, 'look-up result');
        // Done: the look-up is not offered again for the model it shows.
        assert.equal(await page.isVisible('#f-hub-lookup'), false);
        await page.$eval('#f-model-search', (e) => e.scrollIntoView({ block: 'start' }));
        await page.screenshot({ path: join(artifacts, 'hub-lookup-1366x900.png') });

        // A vision model: the images field appears, and its images reach the estimate.
        await estimateAfter(page, () => lookUp(page, VL.repo), (b) => b.model.id === VL.repo);
        await page.waitForFunction(() => /parameters/.test(document.querySelector('#hub-read-vision')?.textContent || ''));
        assert.match(await page.textContent('#hub-read-vision'), /^677M parameters$/);
        await page.waitForSelector('#f-images', { state: 'visible' });
        const images = await estimateAfter(page, () => page.fill('#f-images', '2'),
                (b) => b.workload.images_per_sample === 2);
        assert.equal(images.status, 200);
        assert.equal(images.json.input.image_tokens, 2 * 1024);
        await accessible(page, 'vision look-up');
        // A Hub model read before is found by its words, and has no images.
        const back = await estimateAfter(page, () => page.fill('#f-model-search', 'smollm2 1.7b'),
                (b) => b.model.id === SMOL.repo);
        assert.equal(back.status, 200);
        assert.equal(back.body.workload.images_per_sample, undefined);
        assert.equal(await page.isVisible('#f-images'), false);
        await page.done();

        const phone = await openPage(PHONE);
        await phone.goto(BASE + '#/calculator?mode=inference');
        await calcReady(phone);
        await estimateAfter(phone, () => lookUp(phone, VL.repo), (b) => b.model.id === VL.repo);
        await phone.waitForSelector('#hub-read-vision');
        await phone.$eval('#f-model-search', (e) => e.scrollIntoView({ block: 'start' }));
        await phone.screenshot({ path: join(artifacts, 'hub-lookup-390x844.png') });
        assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
                'no horizontal scrolling on a phone');
        await phone.done();
});

test('a huggingface.co URL of a commit pins that revision in the look-up and the estimate', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?mode=inference');
        await calcReady(page);
        const est = await estimateAfter(page, () => lookUp(page, `https://huggingface.co/${SMOL.repo}/tree/${SMOL.sha}`),
                (b) => b.model.id === SMOL.repo && b.model.revision === SMOL.sha);
        assert.equal(est.status, 200);
        assert.equal(est.json.model.source.revision, SMOL.sha);
        await page.waitForSelector('#hub-read-revision');
        assert.equal(await page.textContent('#hub-read-revision'), SMOL.sha.slice(0, 12));
        assert.match(page.url(), new RegExp(`rev=${SMOL.sha}`));
        // Choosing another model drops the pin, and what was read.
        const other = await estimateAfter(page, () => page.fill('#f-model-search', 'qwen2.5 7b instruct'),
                (b) => b.model.id === 'qwen2.5-7b');
        assert.equal(other.body.model.revision, undefined);
        assert.equal(await page.isVisible('#f-hub-read'), false);
        await page.done();
});

test('the Hub\'s refusals are shown next to the field in the API\'s words', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/calculator?mode=inference');
        await calcReady(page);
        await lookUp(page, 'gpuplan-test/gated-tiny');
        await page.waitForFunction(() => document.querySelector('#e-hub').textContent !== '');
        const gated = await page.textContent('#e-hub');
        assert.match(gated, /HF_TOKEN must be set on the server/);
        assert.equal(await page.getAttribute('#f-model-search', 'aria-invalid'), 'true');
        assert.equal(await page.isVisible('#f-hub-read'), false);
        await accessible(page, 'gated look-up');

        await lookUp(page, 'nobody/nothing-here');
        await page.waitForFunction(() => !/HF_TOKEN/.test(document.querySelector('#e-hub').textContent) &&
                document.querySelector('#e-hub').textContent !== '');
        const api = await request('GET', '/api/v1/hub/nobody/nothing-here', { base: server.url });
        assert.equal(api.status, 404);
        assert.equal(await page.textContent('#e-hub'), api.json.detail);
        // Typing again clears the message.
        await page.fill('#f-model-search', 'llama');
        assert.equal(await page.textContent('#e-hub'), '');
        assert.equal(await page.getAttribute('#f-model-search', 'aria-invalid'), null);
        await page.done();
});

test('the admin form stores a team model, shows refusals at their fields, and the search then finds it', async () => {
        const page = await openPage();
        await page.goto(BASE + '#/catalog');
        await page.waitForSelector('#catalog-table tbody tr', { timeout: 30000 });
        assert.equal(await page.isVisible('#team-form'), false, 'collapsed until opened');
        await page.click('#team-model summary');
        // Nothing filled in: the token and the id are asked for at their fields.
        await page.click('#t-save');
        assert.match(await page.textContent('[data-for="#auth"]'), /admin token/);
        assert.match(await page.textContent('[data-for="/id"]'), /Enter an id/);
        await page.fill('#t-token', 'not-the-token');
        await page.fill('#t-id', 'acme-smol-support');
        await page.fill('#t-name', 'Acme Smol (support tickets)');
        await page.fill('#t-family', 'llama');
        await page.fill('#t-licence', 'apache-2.0');
        await page.fill('#t-note', 'fine-tuned on our tickets');
        await page.fill('#t-hub', SMOL.repo);
        await page.click('#t-save');
        await page.waitForFunction(() => document.querySelector('[data-for="#auth"]').textContent !== '');
        assert.match(await page.textContent('[data-for="#auth"]'), /admin token is not valid/);
        assert.equal(await page.getAttribute('#t-token', 'aria-invalid'), 'true');

        // A config.json the importer refuses: the API names its key, shown at the config.
        await page.fill('#t-token', adminToken());
        await page.check('#t-from-config');
        assert.equal(await page.isVisible('#t-hub'), false);
        await page.fill('#t-config', JSON.stringify({ ...SMOL.config, num_key_value_heads: 0 }));
        await page.click('#t-save');
        await page.waitForFunction(() => document.querySelector('[data-for="/hf_config"]').textContent !== '');
        assert.match(await page.textContent('[data-for="/hf_config"]'), /num_key_value_heads/);
        assert.equal(await page.getAttribute('#t-config', 'aria-invalid'), 'true');
        await accessible(page, 'admin form with a refusal');

        // From the Hub id: stored, and the token kept for this tab only.
        await page.check('#t-from-hub');
        await page.click('#t-save');
        await page.waitForFunction(() => /Added acme-smol-support/.test(document.querySelector('#team-status').textContent));
        assert.match(await page.textContent('#team-status'), /1\.71B parameters/);
        assert.equal(await page.textContent('[data-for="/hf_config"]'), '');
        assert.equal(await page.evaluate(() => sessionStorage.getItem('gpuplan.adminToken')), adminToken());
        assert.equal(await page.evaluate(() => localStorage.length), 0);
        assert.doesNotMatch(page.url(), /token/);
        await accessible(page, 'admin form saved');
        await page.$eval('#team-model', (e) => e.scrollIntoView({ block: 'start' }));
        await page.screenshot({ path: join(artifacts, 'team-model-form-1366x900.png') });

        // The calculator's model field finds it by its words.
        await page.goto(BASE + '#/calculator?mode=inference');
        await calcReady(page);
        const est = await estimateAfter(page, () => page.fill('#f-model-search', 'acme smol'),
                (b) => b.model.id === 'acme-smol-support');
        assert.equal(est.status, 200);
        assert.equal(await chosenGroup(page), 'Team models');
        assert.match(await page.textContent('#f-model-matches'), /1 match: 1 team model/);
        await page.done();

        const phone = await openPage(PHONE);
        await phone.goto(BASE + '#/catalog');
        await phone.waitForSelector('#catalog-table tbody tr', { timeout: 30000 });
        await phone.click('#team-model summary');
        assert.equal(await phone.inputValue('#t-token'), '', 'a new tab starts without the token');
        await phone.fill('#t-id', 'acme-smol-support');
        await phone.click('#t-save');
        await phone.$eval('#team-model', (e) => e.scrollIntoView({ block: 'start' }));
        await phone.screenshot({ path: join(artifacts, 'team-model-form-390x844.png') });
        assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
                'no horizontal scrolling on a phone');
        await phone.done();
});
