// deploy/nginx.conf, run for real on loopback in front of the test server:
// the page and the API at / and under /gpuplan/, forwarded headers, gzip,
// caching, rate limiting and problem+json for nginx's own errors.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';

import { get, request, startNginx, startServer, rawRequest } from './lib.mjs';

let nginx;

before(async () => {
        nginx = await startNginx();
});
after(async () => {
        await nginx?.stop();
});

test('page and API through nginx at the root', async () => {
        const page = await get('/', { base: nginx.url });
        assert.equal(page.status, 200);
        assert.match(page.contentType, /^text\/html/);
        assert.match(page.text, /<html|<!doctype/i);
        assert.equal(page.headers.get('content-security-policy')?.includes("default-src 'self'"), true);
        const ready = await get('/readyz', { base: nginx.url });
        assert.equal(ready.status, 200);
        const api = await get('/api/v1/gpus', { base: nginx.url });
        assert.equal(api.status, 200);
});

test('the whole app under /gpuplan/', async () => {
        const redirect = await fetch(nginx.url + '/gpuplan', { redirect: 'manual' });
        assert.equal(redirect.status, 301);
        assert.match(redirect.headers.get('location'), /\/gpuplan\/$/);
        const page = await fetch(nginx.url + '/gpuplan/');
        assert.equal(page.status, 200);
        const html = await page.text();
        // Every script and stylesheet the page links resolves under the prefix.
        const refs = [...html.matchAll(/(?:src|href)="([^"#:]+)"/g)].map((m) => m[1]).filter((u) => !u.startsWith('/'));
        assert.ok(refs.length > 0, 'the page links relative assets');
        for (const ref of refs) {
                const r = await fetch(new URL(ref, nginx.url + '/gpuplan/'));
                assert.equal(r.status, 200, ref);
        }
        const api = await fetch(nginx.url + '/gpuplan/api/v1/gpus');
        assert.equal(api.status, 200);
        const health = await fetch(nginx.url + '/gpuplan/healthz');
        assert.equal(health.status, 200);
});

test('X-Request-Id passes through, or nginx makes one', async () => {
        const mine = await get('/healthz', { base: nginx.url, headers: { 'X-Request-Id': 'from-client-1' } });
        assert.equal(mine.headers.get('x-request-id'), 'from-client-1');
        const made = await get('/healthz', { base: nginx.url });
        assert.match(made.headers.get('x-request-id'), /^[0-9a-f]{32}$/);
});

test('gzip for JSON and long caching for assets', async () => {
        const r = await rawRequest('GET /api/v1/gpus HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n',
                                   { url: nginx.url });
        assert.equal(r.status, 200);
        assert.equal(r.headers['content-encoding'], 'gzip');
        const html = await fetch(nginx.url + '/');
        assert.equal(html.headers.get('cache-control'), 'no-cache');
        const js = [...(await html.text()).matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]);
        assert.ok(js.length > 0);
        const asset = await fetch(new URL(js[0], nginx.url + '/'));
        assert.equal(asset.status, 200);
        assert.match(asset.headers.get('cache-control'), /max-age=(86400|2592000)/);
});

test('oversized bodies get the app\'s problem+json 413 through nginx', async () => {
        const body = 'x'.repeat(1024 * 1024 + 10);
        const r = await request('POST', '/api/v1/prices', { base: nginx.url, body, headers: { 'Content-Type': 'application/json' } });
        assert.equal(r.status, 413);
        assert.match(r.contentType, /^application\/problem\+json/);
        const far = await request('POST', '/api/v1/prices', { base: nginx.url, body: 'x'.repeat(2 * 1024 * 1024) });
        assert.equal(far.status, 413);
        assert.equal(far.json.status, 413);
});

test('API rate limiting answers 429 as problem+json', async () => {
        const rs = await Promise.all(Array.from({ length: 400 }, () =>
                request('GET', '/api/v1/no-such-route', { base: nginx.url, validate: false })));
        const limited = rs.filter((r) => r.status === 429);
        assert.ok(limited.length > 0, 'some requests limited');
        assert.ok(rs.some((r) => r.status === 404), 'some requests passed');
        assert.match(limited[0].contentType, /^application\/problem\+json/);
        assert.equal(limited[0].json.status, 429);
        assert.equal(limited[0].headers.get('retry-after'), '1');
});

test('upstream down: 502 as problem+json', async () => {
        const srv = await startServer({ wait: 'listening' });
        const own = await startNginx({ upstreamUrl: srv.url });
        try {
                await srv.stop();
                const r = await get('/healthz', { base: own.url, validate: false });
                assert.equal(r.status, 502);
                assert.match(r.contentType, /^application\/problem\+json/);
                assert.equal(r.json.status, 502);
        } finally {
                await own.stop();
        }
});
