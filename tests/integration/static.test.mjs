// Static files: types, ETag/304, gzip, and no way out of the directory.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';

import { request, get, startServer, rawRequest } from './lib.mjs';

let srv;
let dir;
let outside;
const PAGE = '<!doctype html><title>t</title>' + '<p>gpuplan</p>'.repeat(200);

before(async () => {
        const base = mkdtempSync(join(process.env.GPUPLAN_TEST_TMP ?? tmpdir(), 'static-'));
        dir = join(base, 'www');
        outside = join(base, 'secret');
        mkdirSync(join(dir, 'js'), { recursive: true });
        mkdirSync(outside);
        writeFileSync(join(outside, 'key.txt'), 'SECRET');
        writeFileSync(join(dir, 'index.html'), PAGE);
        writeFileSync(join(dir, 'js', 'app.js'), 'export const x = 1;\n'.repeat(100));
        writeFileSync(join(dir, 'tiny.css'), 'p{}');
        writeFileSync(join(dir, 'data.bin'), Buffer.from([0, 1, 2, 3]));
        writeFileSync(join(dir, '.hidden'), 'hidden');
        symlinkSync(join(outside, 'key.txt'), join(dir, 'link.txt'));
        symlinkSync(outside, join(dir, 'linkdir'));
        srv = await startServer({ env: { GPUPLAN_STATIC_DIR: dir }, wait: 'listening' });
});

after(async () => {
        await srv?.stop();
        rmSync(join(dir, '..'), { recursive: true, force: true });
});

const opts = () => ({ base: srv.url });

test('/ serves index.html with its type, a strong ETag and no-cache', async () => {
        const r = await get('/', opts());
        assert.equal(r.status, 200);
        assert.equal(r.contentType, 'text/html; charset=utf-8');
        assert.equal(r.text, PAGE);
        assert.match(r.headers.get('etag'), /^"[^"]+"$/);
        assert.equal(r.headers.get('cache-control'), 'no-cache');
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
});

test('content types by extension', async () => {
        assert.equal((await get('/js/app.js', opts())).contentType, 'text/javascript; charset=utf-8');
        assert.equal((await get('/tiny.css', opts())).contentType, 'text/css; charset=utf-8');
        assert.equal((await get('/data.bin', opts())).contentType, 'application/octet-stream');
});

test('If-None-Match with the ETag gives 304 without a body', async () => {
        const r = await get('/js/app.js', opts());
        const etag = r.headers.get('etag');
        const again = await get('/js/app.js', { ...opts(), headers: { 'If-None-Match': etag } });
        assert.equal(again.status, 304);
        assert.equal(again.text, '');
        assert.equal(again.headers.get('etag'), etag);
        const list = await get('/js/app.js', { ...opts(), headers: { 'If-None-Match': `"nope", W/${etag}` } });
        assert.equal(list.status, 304, 'weak comparison over a list (RFC 9110 13.1.2)');
        const other = await get('/js/app.js', { ...opts(), headers: { 'If-None-Match': '"other"' } });
        assert.equal(other.status, 200);
});

test('gzip when accepted, identity when not or when q=0', async () => {
        const raw = (ae) => rawRequest(`GET /js/app.js HTTP/1.1\r\nHost: t\r\nAccept-Encoding: ${ae}\r\nConnection: close\r\n\r\n`,
                                       { url: srv.url });
        const gz = await raw('gzip, deflate');
        assert.equal(gz.status, 200);
        assert.equal(gz.headers['content-encoding'], 'gzip');
        assert.equal(gz.headers.vary, 'Accept-Encoding');
        const body = gunzipSync(Buffer.from(gz.body, 'latin1')).toString();
        assert.equal(body, 'export const x = 1;\n'.repeat(100));
        assert.ok(Number(gz.headers['content-length']) < body.length);
        const plain = await raw('identity');
        assert.equal(plain.headers['content-encoding'], undefined);
        assert.equal(plain.body.length, body.length);
        const refused = await raw('gzip;q=0');
        assert.equal(refused.headers['content-encoding'], undefined);
        // The gzip representation has its own validator, and it revalidates too.
        assert.notEqual(gz.headers.etag, plain.headers.etag);
        const again = await rawRequest(`GET /js/app.js HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n` +
                                       `If-None-Match: ${gz.headers.etag}\r\nConnection: close\r\n\r\n`, { url: srv.url });
        assert.equal(again.status, 304);
});

test('no way out of the static directory', async () => {
        const attempts = [
                '/../secret/key.txt',
                '/js/../../secret/key.txt',
                '/%2e%2e/secret/key.txt',
                '/%2E%2E%2Fsecret%2Fkey.txt',
                '/js%2f..%2f..%2fsecret%2fkey.txt',
                '/..%5csecret%5ckey.txt',
                '//etc/passwd',
                '/etc/passwd',
                '/link.txt',
                '/linkdir/key.txt',
                '/.hidden',
                '/%2ehidden',
                '/js/./app.js',
        ];
        for (const path of attempts) {
                const r = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`, { url: srv.url });
                assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
                assert.ok(!r.body.includes('SECRET') && !r.body.includes('root:'), `${path} leaked`);
                assert.match(r.headers['content-type'], /^application\/problem\+json/, path);
        }
        // An encoded NUL never reaches the file system.
        const nul = await rawRequest('GET /index.html%00.js HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n', { url: srv.url });
        assert.equal(nul.status, 400);
        // An absolute URI in the request line is not a path into the file system.
        const abs = await rawRequest('GET http://t/etc/passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n', { url: srv.url });
        assert.ok(!abs.body.includes('root:'));
});

test('static files accept GET and HEAD only', async () => {
        const r = await request('POST', '/index.html', { ...opts(), body: {} });
        assert.equal(r.status, 405);
        assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
        const h = await request('HEAD', '/index.html', { ...opts(), headers: { 'Accept-Encoding': 'identity' } });
        assert.equal(h.status, 200);
        assert.equal(h.headers.get('content-length'), String(PAGE.length));
});

test('a missing file is a 404 problem document', async () => {
        const r = await get('/nope.js', opts());
        assert.equal(r.status, 404);
        assert.equal(r.json.status, 404);
});
