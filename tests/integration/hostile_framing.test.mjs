// hostile_framing.test.mjs - request framing a hostile client tries, sent
// over raw sockets straight to gpuplan and through deploy/nginx.conf.
//
// gpuplan answers from the headers, before any body byte is read, and
// closes the connection (server/http/framing.h): duplicate or conflicting
// Content-Length, Transfer-Encoding beside Content-Length, any transfer
// coding but one "chunked" (501), control characters in header values or
// names outside the token set.  Whatever follows such headers never runs
// as a second request.
//
// Two cases libmicrohttpd 0.9.75 settles before gpuplan sees a header: a
// NUL inside a header value ends the value there, and a chunk size is
// parsed by the library (FFFFFFFFFFFFFFFF is a valid 64-bit size it waits
// for).  Directly, the first is answered as the value before the NUL and
// the second is closed when the body pauses (BODY_TIMEOUT_S, 5 s, in
// server/http/server.c) - never held for the idle timeout.  nginx in front
// refuses both itself, which the last tests check with the real nginx.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';

import { baseUrl, startNginx, socketExchange, headerFields } from './lib.mjs';

const E = '/api/v1/estimate';
const BODY = '{"model":{"id":"xlm-roberta-large"},"workload":{"mode":"inference"}}';

/**
 * Write bytes on a new connection and collect everything until the server
 * closes it or waitMs passes.  Resolves { responses: [{status, headers,
 * body}], closed, ms }, responses parsed one after another from the bytes.
 */
function exchange(bytes, { url = baseUrl(), waitMs = 4000 } = {}) {
        const t0 = Date.now();
        let firstMs = null;
        const noteFirst = (data) => {
                if (firstMs === null && parseAll(data.toString('latin1')).length > 0)
                        firstMs = Date.now() - t0;
                return false;
        };
        return socketExchange(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes,
                { url, waitMs, enough: noteFirst })
                .then(({ data, closed }) => ({ responses: parseAll(data.toString('latin1')), closed, ms: Date.now() - t0, firstMs }));
}

function parseAll(s) {
        const out = [];
        while (s.startsWith('HTTP/')) {
                const end = s.indexOf('\r\n\r\n');
                if (end < 0)
                        break;
                const lines = s.slice(0, end).split('\r\n');
                const headers = headerFields(lines.slice(1));
                const n = Number(headers['content-length'] ?? 0);
                out.push({ status: Number(lines[0].split(' ')[1]), headers, body: s.slice(end + 4, end + 4 + n) });
                s = s.slice(end + 4 + n);
        }
        return out;
}

const post = (headers, body = '') => `POST ${E} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        headers.map((h) => h + '\r\n').join('') + '\r\n' + body;
// A request hidden in a body: it must never be answered.
const SMUGGLED = 'GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\n\r\n';

// One answer, the problem document gpuplan sends, and the connection closed.
function assertRefused(r, status, detail) {
        assert.equal(r.responses.length, 1, `expected one response, got ${r.responses.map((x) => x.status)}`);
        const [res] = r.responses;
        assert.equal(res.status, status, res.body.slice(0, 300));
        assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
        assert.equal(res.headers.connection, 'close');
        const doc = JSON.parse(res.body);
        assert.equal(doc.status, status);
        if (detail)
                assert.match(doc.detail, detail);
        assert.equal(r.closed, true, 'the connection stayed open');
        assert.ok(r.ms < 2000, `answered after ${r.ms} ms`);
}

const refused = [
        { name: 'two equal Content-Length headers', status: 400, detail: /more than one Content-Length/,
          bytes: post([`Content-Length: ${BODY.length}`, `Content-Length: ${BODY.length}`], BODY) },
        { name: 'conflicting Content-Length headers hiding a second request', status: 400, detail: /more than one/,
          bytes: post([`Content-Length: ${BODY.length}`, `Content-Length: ${BODY.length + SMUGGLED.length}`], BODY + SMUGGLED) },
        { name: 'the larger Content-Length first', status: 400, detail: /more than one/,
          bytes: post([`Content-Length: ${BODY.length + SMUGGLED.length}`, `content-length: ${BODY.length}`], BODY + SMUGGLED) },
        { name: 'Transfer-Encoding: gzip, chunked', status: 501, detail: /chunked/,
          bytes: post(['Transfer-Encoding: gzip, chunked'], `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`) },
        { name: 'an unknown Transfer-Encoding', status: 501, bytes: post(['Transfer-Encoding: x-custom'], BODY) },
        { name: 'Transfer-Encoding: identity', status: 501, bytes: post(['Transfer-Encoding: identity'], BODY) },
        { name: 'two Transfer-Encoding: chunked headers', status: 501,
          bytes: post(['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], '0\r\n\r\n') },
        { name: 'an unknown Transfer-Encoding beside Content-Length', status: 400, detail: /both/,
          bytes: post(['Transfer-Encoding: x-custom', `Content-Length: ${BODY.length}`], BODY) },
        { name: 'chunked beside Content-Length hiding a second request', status: 400, detail: /both/,
          bytes: post(['Content-Length: 5', 'Transfer-Encoding: chunked'], '0\r\n\r\n' + SMUGGLED) },
        { name: 'a control character in a header value', status: 400, detail: /X-Note header holds a control character \(0x01\)/,
          bytes: 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n' },
        { name: 'a bare CR in a header value', status: 400, detail: /0x0D/,
          bytes: 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\rb\r\n\r\n' },
        { name: 'DEL in a header value', status: 400, detail: /0x7F/,
          bytes: 'GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\nAccept: \x7f\r\n\r\n' },
        { name: 'ESC in the Content-Type of a POST', status: 400,
          bytes: `POST ${E} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\x1b\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
        { name: 'a header name with a separator', status: 400, detail: /name/,
          bytes: 'GET /healthz HTTP/1.1\r\nHost: x\r\nX(Note): a\r\n\r\n' },
        // RFC 9112 section 3.2: "MUST respond with a 400" to both.
        { name: 'an HTTP/1.1 request without Host', status: 400, detail: /must carry a Host header/,
          bytes: 'GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n' },
        { name: 'a space before the colon hides the Host', status: 400,
          bytes: 'GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n' },
        { name: 'two Host headers', status: 400, detail: /more than one Host/,
          bytes: 'GET /api/v1/gpus HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\n\r\n' },
];

for (const c of refused) {
        test(`framing refused directly: ${c.name} -> ${c.status}, closed`, async () => {
                assertRefused(await exchange(c.bytes), c.status, c.detail);
        });
}

// The neighbours that must keep working.
test('chunked (any case) and one Content-Length are still read, and the connection is kept', async () => {
        const chunk = `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`;
        const r = await exchange(post(['Transfer-Encoding: Chunked'], chunk) +
                                 post([`Content-Length: ${BODY.length}`], BODY), { waitMs: 3000 });
        assert.deepEqual(r.responses.map((x) => x.status), [200, 200]);
        assert.equal(r.closed, false, 'a well-framed request closed the connection');
        const tab = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: a\tb caf\xe9\r\nConnection: close\r\n\r\n');
        assert.equal(tab.responses[0]?.status, 200, 'HTAB and obs-text are allowed in a value');
        const old = await exchange('GET /healthz HTTP/1.0\r\n\r\n');
        assert.equal(old.responses[0]?.status, 200, 'HTTP/1.0 needs no Host');
});

test('a keep-alive connection outlives the body timeout once its request is answered', async () => {
        const u = new URL(baseUrl());
        const sock = net.connect(Number(u.port), u.hostname);
        const got = [];
        let buf = '';
        sock.on('data', (d) => {
                buf += d.toString('latin1');
                const all = parseAll(buf);
                while (got.length < all.length)
                        got.push(all[got.length].status);
        });
        await new Promise((resolve) => sock.on('connect', resolve));
        sock.write(post([`Content-Length: ${BODY.length}`], BODY));
        await new Promise((resolve) => setTimeout(resolve, 6500)); // past BODY_TIMEOUT_S
        sock.write(post([`Content-Length: ${BODY.length}`], BODY));
        await new Promise((resolve) => setTimeout(resolve, 1500));
        sock.destroy();
        assert.deepEqual(got, [200, 200]);
});

test('a chunk size of FFFFFFFFFFFFFFFF is not held for the idle timeout', async () => {
        // libmicrohttpd parses the size; gpuplan never sees it.  The body
        // pauses, so the connection is closed at BODY_TIMEOUT_S (5 s).
        const r = await exchange(post(['Transfer-Encoding: chunked'], 'FFFFFFFFFFFFFFFF\r\n{"model":'), { waitMs: 15000 });
        assert.equal(r.closed, true);
        assert.ok(r.ms < 9000, `held for ${r.ms} ms`);
        assert.equal(r.responses.filter((x) => x.status === 200).length, 0);
});

test('a malformed chunk size and a Content-Length that never arrives are not held either', async () => {
        const bad = await exchange(post(['Transfer-Encoding: chunked'], 'zz\r\n' + BODY + '\r\n0\r\n\r\n'), { waitMs: 15000 });
        assert.equal(bad.closed, true);
        assert.ok(bad.ms < 9000, `held for ${bad.ms} ms`);
        assert.ok(bad.responses.every((x) => x.status === 400), 'libmicrohttpd answers 400 or closes');
        const short = await exchange(post(['Content-Length: 1000'], BODY), { waitMs: 15000 });
        assert.equal(short.closed, true);
        assert.ok(short.ms < 9000, `held for ${short.ms} ms`);
        assert.equal(short.responses.length, 0);
});

test('a NUL in a header value reaches gpuplan cut at the NUL (libmicrohttpd 0.9.75), never past it', async () => {
        // The value after the NUL is invisible to the handler: "chunked\0x"
        // frames the body as chunked, exactly as libmicrohttpd reads it.
        const r = await exchange(post(['Transfer-Encoding: chunked\0, gzip'], `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`) + SMUGGLED,
                                 { waitMs: 3000 });
        assert.deepEqual(r.responses.map((x) => x.status), [200, 200], 'one estimate, then the pipelined request');
        assert.match(r.responses[1].body, /"gpus"/);
});

// ------------------------------------------------------------ through nginx

let nginx;
before(async () => {
        nginx = await startNginx();
});
after(async () => {
        await nginx?.stop();
});

// nginx's own refusals are HTML; the point is that nothing reaches gpuplan
// as two requests and nothing hangs.
const viaNginx = [
        { name: 'two Content-Length headers', status: [400],
          bytes: post([`Content-Length: ${BODY.length}`, `Content-Length: ${BODY.length + SMUGGLED.length}`], BODY + SMUGGLED) },
        { name: 'Transfer-Encoding: gzip, chunked', status: [501],
          bytes: post(['Transfer-Encoding: gzip, chunked'], `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`) },
        { name: 'chunked beside Content-Length', status: [400],
          bytes: post(['Content-Length: 5', 'Transfer-Encoding: chunked'], '0\r\n\r\n' + SMUGGLED) },
        { name: 'a chunk size of FFFFFFFFFFFFFFFF', status: [400, 413],
          bytes: post(['Transfer-Encoding: chunked'], 'FFFFFFFFFFFFFFFF\r\n{"model":') },
        { name: 'a chunk size past the body limit', status: [413],
          bytes: post(['Transfer-Encoding: chunked'], '10000000\r\n{"model":') },
        { name: 'a NUL in a header value', status: [400],
          bytes: post(['Transfer-Encoding: chunked\0, gzip'], '0\r\n\r\n') },
        { name: 'a control character in a header value (passed on, refused by gpuplan)', status: [400],
          bytes: 'GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n' },
];

for (const c of viaNginx) {
        test(`framing through nginx: ${c.name} -> ${c.status.join('/')}`, async () => {
                const r = await exchange(c.bytes, { url: nginx.url, waitMs: 3000 });
                assert.ok(r.responses.length >= 1, `no answer after ${r.ms} ms`);
                assert.ok(c.status.includes(r.responses[0].status), `got ${r.responses[0].status}`);
                assert.ok(r.firstMs !== null && r.firstMs < 2000, `first answer after ${r.firstMs} ms`);
                assert.ok(!r.responses.some((x) => x.status === 200), 'a smuggled request was answered');
        });
}
