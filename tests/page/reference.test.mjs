// reference.test.mjs - the API reference view (static/reference.html) in
// headless Chromium (Debian's /usr/bin/chromium via playwright-core): it
// renders the document the server serves, with every path of the
// repository's openapi.yaml, under the page's Content-Security-Policy,
// directly and through nginx's /gpuplan/ sub-path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { parse as parseYaml } from 'yaml';
import { startNginx } from '../integration/lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const artifacts = join(root, 'tests', 'artifacts');
if (!process.env.GPUPLAN_TEST_URL)
        throw new Error('GPUPLAN_TEST_URL is not set: run the page tests through scripts/test.sh');
const BASE = process.env.GPUPLAN_TEST_URL.replace(/\/?$/, '/');
const spec = parseYaml(readFileSync(join(root, 'openapi.yaml'), 'utf8'));

let browser;
let nginx;

before(async () => {
        execFileSync(process.execPath, [join(root, 'scripts', 'vendor.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
        mkdirSync(artifacts, { recursive: true });
        browser = await chromium.launch({
                executablePath: '/usr/bin/chromium',
                args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
                        '--disable-component-update', '--disable-sync', '--no-first-run'],
        });
        nginx = await startNginx({ upstreamUrl: BASE.replace(/\/$/, '') });
});

after(async () => {
        await browser?.close();
        await nginx?.stop();
});

async function renderReference(url, shot) {
        const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
        const page = await context.newPage();
        const problems = [];
        page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
        page.on('pageerror', (e) => problems.push(e.message));
        try {
                await page.goto(url);
                await page.waitForSelector('.opblock', { timeout: 20000 });
                const shown = await page.$$eval('.opblock-summary-path', (els) =>
                        els.map((e) => e.getAttribute('data-path') ?? e.textContent.trim()));
                await page.screenshot({ path: join(artifacts, shot), fullPage: false });
                return { shown, problems, title: await page.textContent('.title') };
        } finally {
                await context.close();
        }
}

test('the reference view renders every path of openapi.yaml, with no CSP violation', async () => {
        const r = await renderReference(BASE + 'reference.html', 'reference-1366.png');
        assert.deepEqual(r.problems, []);
        assert.match(r.title, new RegExp(spec.info.title));
        for (const path of Object.keys(spec.paths))
                assert.ok(r.shown.some((p) => p.replace(/\u200b/g, '') === path), `the view lists ${path}`);
});

test('the page links to the reference, and it renders under nginx\'s sub-path', async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        try {
                await page.goto(nginx.url + '/gpuplan/');
                await page.click('text=API reference');
                await page.waitForSelector('.opblock', { timeout: 20000 });
                assert.match(page.url(), /\/gpuplan\/reference\.html/);
        } finally {
                await context.close();
        }
});
