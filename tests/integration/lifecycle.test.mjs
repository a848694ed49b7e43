// Process lifecycle: graceful shutdown with a request in flight, base path,
// the --healthcheck mode, and the epoll thread model.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawnSync } from 'node:child_process';

import { get, startServer, parseRaw, rawRequest, waitFor } from './lib.mjs';

test('SIGTERM lets the request in flight finish, refuses new connections, exits 0', async () => {
        const srv = await startServer();
        const sock = net.connect(srv.port, '127.0.0.1');
        let data = '';
        sock.on('data', (d) => {
                data += d;
        });
        const closed = new Promise((r) => sock.on('close', r));
        await new Promise((r) => sock.on('connect', r));
        // Headers and half of the body: the request has started and is now in flight.
        const body = '{"not":"finished yet"}';
        sock.write(`POST /api/v1/prices HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n` +
                   `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
        // The /metrics request counts itself, so "in flight" must reach 2.
        await waitFor(async () => /gpuplan_http_requests_in_flight ([2-9]|[1-9][0-9])/.test((await get('/metrics', { base: srv.url })).text),
                      { what: 'the request to be in flight' });
        srv.proc.kill('SIGTERM');
        await waitFor(() => srv.logs.some((l) => /^received SIGTERM/.test(l.msg ?? '')), { what: 'SIGTERM logged' });
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(srv.proc.exitCode, null, 'still draining');
        // New connections are refused once the listening socket is closed
        // (a raw connection: fetch would reuse its kept-alive one).
        await assert.rejects(rawRequest('GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n', { url: srv.url }),
                             /ECONNREFUSED/);
        sock.write(body.slice(5));
        await closed;
        const res = parseRaw(data);
        assert.ok(res.status >= 200 && res.status < 600, data.slice(0, 200));
        assert.equal(res.headers.connection?.toLowerCase(), 'close');
        const { code } = await srv.exit;
        assert.equal(code, 0);
        assert.ok(srv.logs.some((l) => l.msg === 'stopped'));
        assert.ok(srv.logs.some((l) => l.msg === 'request' && l.path === '/api/v1/prices'), 'the drained request was logged');
});

test('SIGINT stops an idle server with exit 0', async () => {
        const srv = await startServer({ wait: 'listening' });
        const { code } = await srv.stop('SIGINT');
        assert.equal(code, 0);
});

test('GPUPLAN_BASE_PATH serves the app under a prefix', async () => {
        const srv = await startServer({ env: { GPUPLAN_BASE_PATH: '/gpuplan/' } });
        try {
                const r = await get('/gpuplan/healthz', { base: srv.url, validate: false });
                assert.equal(r.status, 200);
                const redirect = await fetch(srv.url + '/gpuplan', { redirect: 'manual' });
                assert.equal(redirect.status, 301);
                assert.equal(redirect.headers.get('location'), '/gpuplan/');
                const page = await fetch(srv.url + '/gpuplan/');
                assert.equal(page.status, 200);
                assert.match(page.headers.get('content-type'), /^text\/html/);
                // Unprefixed paths keep working (probes inside the container).
                assert.equal((await get('/healthz', { base: srv.url })).status, 200);
                const hc = spawnSync(process.env.GPUPLAN_BIN, ['--healthcheck'], {
                        env: { ...process.env, GPUPLAN_LISTEN: `127.0.0.1:${srv.port}`, GPUPLAN_BASE_PATH: '/gpuplan' },
                        encoding: 'utf8',
                });
                assert.equal(hc.status, 0, hc.stderr);
        } finally {
                await srv.stop();
        }
});

test('--healthcheck exits 1 when nothing listens', () => {
        const r = spawnSync(process.env.GPUPLAN_BIN, ['--healthcheck'], {
                env: { ...process.env, GPUPLAN_LISTEN: '127.0.0.1:1' }, encoding: 'utf8',
        });
        assert.equal(r.status, 1);
});

test('the epoll pool model (GPUPLAN_THREADS=2) serves and drains too', async () => {
        const srv = await startServer({ env: { GPUPLAN_THREADS: '2' } });
        try {
                const rs = await Promise.all(Array.from({ length: 40 }, () => get('/healthz', { base: srv.url })));
                assert.ok(rs.every((r) => r.status === 200));
                assert.ok(srv.logs.some((l) => l.msg === 'listening' && l.threads === 'epoll-pool'));
        } finally {
                assert.equal((await srv.stop()).code, 0);
        }
});

test('one JSON access-log line per request, with the request id', async () => {
        const srv = await startServer({ wait: 'listening' });
        try {
                await get('/healthz', { base: srv.url, headers: { 'X-Request-Id': 'log-check-1', 'X-Real-IP': '10.9.8.7' } });
                await get('/api/v1/nope', { base: srv.url });
                const line = await waitFor(() => srv.logs.find((l) => l.msg === 'request' && l.request_id === 'log-check-1'),
                                           { what: 'the access-log line' });
                assert.equal(line.method, 'GET');
                assert.equal(line.path, '/healthz');
                assert.equal(line.status, 200);
                assert.equal(line.bytes, 15);
                assert.equal(typeof line.duration_ms, 'number');
                assert.equal(line.remote, '127.0.0.1');
                assert.equal(line.real_ip, '10.9.8.7');
                assert.match(line.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
                const miss = await waitFor(() => srv.logs.find((l) => l.msg === 'request' && l.path === '/api/v1/nope'));
                assert.equal(miss.status, 404);
                assert.match(miss.request_id, /^[0-9a-f]{16}$/);
                assert.ok(srv.logs.every((l) => !('unparsed' in l)), 'every stdout line is JSON');
        } finally {
                await srv.stop();
        }
});
