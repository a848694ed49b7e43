// The HTTP transport: routing, problem documents, headers, limits, metrics.
import test from 'node:test';
import assert from 'node:assert/strict';

import { request, get, assertProblem, rawRequest, validateResponse, baseUrl } from './lib.mjs';

const SECURITY = {
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
};

test('GET /healthz answers 200 with security headers and a request id', async () => {
        const r = await get('/healthz');
        assert.equal(r.status, 200);
        assert.deepEqual(r.json, { status: 'ok' });
        for (const [k, v] of Object.entries(SECURITY))
                assert.equal(r.headers.get(k), v, k);
        const csp = r.headers.get('content-security-policy');
        assert.match(csp, /default-src 'self'/);
        assert.match(csp, /frame-ancestors 'none'/);
        assert.match(r.headers.get('x-request-id'), /^[0-9a-f]{16}$/);
});

test('X-Request-Id is echoed when plain, replaced when not', async () => {
        const ok = await get('/healthz', { headers: { 'X-Request-Id': 'nb-42.a:b_c' } });
        assert.equal(ok.headers.get('x-request-id'), 'nb-42.a:b_c');
        const bad = await get('/healthz', { headers: { 'X-Request-Id': 'has space<script>' } });
        assert.match(bad.headers.get('x-request-id'), /^[0-9a-f]{16}$/);
        const long = await get('/healthz', { headers: { 'X-Request-Id': 'a'.repeat(64) } });
        assert.match(long.headers.get('x-request-id'), /^[0-9a-f]{16}$/);
});

test('GET /readyz answers 200 when migrated and loaded', async () => {
        const r = await get('/readyz');
        assert.equal(r.status, 200);
        assert.equal(r.json.status, 'ready');
        assert.ok(r.json.migrations >= 1);
});

test('unknown API path: 404 problem document', async () => {
        const r = await get('/api/v1/no-such-thing');
        assertProblem(r, 404);
        assert.equal(r.json.type, 'about:blank');
        assert.equal(r.json.title, 'Not Found');
});

test('wrong method: 405 with Allow', async () => {
        const r = await request('DELETE', '/healthz');
        assertProblem(r, 405);
        assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
        const p = await request('POST', '/metrics', { body: {} });
        assertProblem(p, 405);
});

test('HEAD gives the GET headers without a body', async () => {
        const g = await get('/healthz');
        const h = await request('HEAD', '/healthz');
        assert.equal(h.status, 200);
        assert.equal(h.text, '');
        assert.equal(h.headers.get('content-type'), g.headers.get('content-type'));
        assert.equal(h.headers.get('content-length'), String(g.text.length));
});

test('OPTIONS lists the methods of a path', async () => {
        const r = await request('OPTIONS', '/healthz');
        assert.equal(r.status, 204);
        assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
        const page = await request('OPTIONS', '/');
        assert.equal(page.status, 204);
        assert.equal(page.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

test('a malformed %-escape or an encoded NUL in the path is a 400 problem', async () => {
        for (const path of ['/api/v1/gpus/%zz', '/api/v1/gpus/a%00b', '/x%0']) {
                const r = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
                assert.equal(r.status, 400, path);
                assert.match(r.headers['content-type'], /^application\/problem\+json/);
                assert.equal(JSON.parse(r.body).status, 400);
        }
});

test('the absolute-form of a request target routes by its path; other forms are a 400 that says why', async () => {
        // RFC 9112 section 3.2.2: "A server MUST accept the absolute-form in requests".
        const abs = await rawRequest('GET http://example.org/healthz?x=1 HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n');
        assert.equal(abs.status, 200, abs.body);
        assert.equal(JSON.parse(abs.body).status, 'ok');
        const api = await rawRequest('GET HTTPS://example.org/api/v1/nope HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n');
        assert.equal(api.status, 404, 'the path of an absolute URI is routed like any other');
        for (const target of ['*', 'healthz', 'ftp://example.org/healthz']) {
                const r = await rawRequest(`OPTIONS ${target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
                assert.equal(r.status, 400, target);
                assert.match(r.headers['content-type'], /^application\/problem\+json/);
                assert.match(JSON.parse(r.body).detail, /must be a path that begins with/, target);
        }
});

test('an encoded slash stays inside its path segment', async () => {
        // /healthz%2Fx is one segment "healthz/x": no route, and it is not /healthz.
        const r = await rawRequest('GET /healthz%2Fx HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
        assert.equal(r.status, 404);
        // A trailing slash is another path as well.
        const t = await get('/healthz/');
        assert.equal(t.status, 404);
});

// The request body cap (GPUPLAN_BODY_LIMIT_BYTES, 1 MiB by default) applies to
// every route that reads a body; POST /api/v1/prices is one.
const BODY_ROUTE = '/api/v1/prices';
const LIMIT = 1024 * 1024;

test('413 from Content-Length before the body is read', async () => {
        // Announce 2 MiB but send nothing: the answer must come from the headers alone.
        const r = await rawRequest(`POST ${BODY_ROUTE} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n` +
                                   `Content-Length: ${2 * LIMIT}\r\n\r\n`);
        assert.equal(r.status, 413);
        assert.match(r.headers['content-type'], /^application\/problem\+json/);
        validateResponse('POST', BODY_ROUTE, r.status, r.body, r.headers['content-type']);
        const huge = await rawRequest(`POST ${BODY_ROUTE} HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999999\r\n\r\n`);
        assert.equal(huge.status, 413);
});

test('413 for a chunked body that crosses the cap', async () => {
        const chunk = 'x'.repeat(64 * 1024);
        let text = `POST ${BODY_ROUTE} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n` +
                   'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
        for (let sent = 0; sent <= LIMIT; sent += chunk.length)
                text += `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
        text += '0\r\n\r\n';
        const r = await rawRequest(text);
        assert.equal(r.status, 413);
        const doc = JSON.parse(r.body);
        assert.equal(doc.status, 413);
        assert.match(doc.detail, /1048576 bytes/);
});

test('415 for a body that is not sent as JSON', async () => {
        const r = await request('POST', BODY_ROUTE, { body: 'a=1', headers: { 'Content-Type': 'multipart/form-data; boundary=x' } });
        assertProblem(r, 415);
});

test('GET /metrics counts requests by route pattern and status', async () => {
        await get('/healthz');
        await get('/api/v1/no-such-thing');
        const r = await get('/metrics');
        assert.equal(r.status, 200);
        assert.match(r.contentType, /^text\/plain; version=0\.0\.4/);
        const line = (re) => r.text.split('\n').find((l) => re.test(l));
        const healthz = line(/^gpuplan_http_requests_total\{route="\/healthz",method="GET",status="200"\} \d+$/);
        assert.ok(healthz, 'healthz counter');
        assert.ok(Number(healthz.split(' ')[1]) >= 1);
        assert.ok(line(/^gpuplan_http_requests_total\{route="unmatched",method="GET",status="404"\} \d+$/));
        assert.ok(line(/^gpuplan_http_request_duration_seconds_bucket\{route="\/healthz",le="\+Inf"\} \d+$/));
        assert.ok(line(/^gpuplan_http_requests_in_flight [1-9]\d*$/), 'the metrics request itself is in flight');
        assert.ok(line(/^gpuplan_db_pool_connections\{state="max"\} \d+$/));
        assert.ok(line(/^gpuplan_db_up 1$/));
        // Exposition format: every sample line is "name{labels} value".
        for (const l of r.text.split('\n').filter((x) => x && !x.startsWith('#')))
                assert.match(l, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-z_]+="[^"]*",?)*\})? [0-9.e+-]+$/, l);
});

test('oversized request headers get libmicrohttpd\'s own 431', async () => {
        // Documented in openapi.yaml as outside the contract (HTML from the library).
        const r = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`);
        assert.ok(r.status === 431 || r.status === 413, `status ${r.status}`);
});

test('keep-alive: many requests over one connection', async () => {
        // fetch reuses connections; 50 sequential requests must all succeed.
        for (let i = 0; i < 50; i++)
                assert.equal((await get('/healthz')).status, 200);
        assert.ok(baseUrl().startsWith('http://127.0.0.1:'));
});
