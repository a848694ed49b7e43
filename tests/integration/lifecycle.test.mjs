// Process lifecycle: graceful shutdown with a request in flight, base path,
// the --healthcheck mode, the thread models, and blocking handlers kept off
// the event loop.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';

import { get, post, startServer, parseRaw, rawRequest, waitFor, createDatabase, psql } from './lib.mjs';

const ESTIMATE = {
        model: { id: 'xlm-roberta-large' },
        workload: { mode: 'pre_train', batch_size: 16, sequence_length: 128 },
        precision: 'fp32',
        optimizer: 'adamw',
};

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

test('the default model is the epoll pool; a thread per connection is still available', async () => {
        for (const [threads, model] of [[undefined, 'epoll-pool'], ['per-connection', 'per-connection']]) {
                const srv = await startServer({ env: { GPUPLAN_THREADS: threads } });
                try {
                        const rs = await Promise.all(Array.from({ length: 40 }, () => get('/healthz', { base: srv.url })));
                        assert.ok(rs.every((r) => r.status === 200));
                        assert.ok(srv.logs.some((l) => l.msg === 'listening' && l.threads === model), model);
                } finally {
                        assert.equal((await srv.stop()).code, 0);
                }
        }
});

// Handlers that wait on PostgreSQL run on worker threads of their own, so a
// readiness check stuck behind a lock holds up nothing else.  The assertion
// is an order, not a time: every estimate and catalog read is answered while
// the four /readyz requests are still waiting for the lock.
test('a /readyz blocked on a table lock does not hold up estimates or catalog reads', async () => {
        const url = createDatabase('lifecycle_lock');
        const srv = await startServer({ env: { DATABASE_URL: url, GPUPLAN_THREADS: '2' } });
        let locker;
        try {
                locker = spawn('psql', ['-X', '-q', '-d', url, '-c',
                        'BEGIN; LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;'],
                               { stdio: 'ignore' });
                await waitFor(() => psql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation " +
                                         "WHERE c.relname = 'schema_migrations' AND l.mode = 'AccessExclusiveLock' AND l.granted",
                                         { url })[0] === '1', { intervalMs: 20, what: 'the lock' });
                const ready = Array.from({ length: 4 }, () => get('/readyz', { base: srv.url, validate: false })
                        .then((r) => ({ status: r.status, at: process.hrtime.bigint() })));
                // The four checks (and this /metrics request) are in flight.
                await waitFor(async () => /gpuplan_http_requests_in_flight ([5-9]|[1-9][0-9])/.test(
                        (await get('/metrics', { base: srv.url })).text), { intervalMs: 10, what: 'readiness checks in flight' });
                const answered = [];
                for (let i = 0; i < 10; i++) {
                        const e = await post('/api/v1/estimate', { ...ESTIMATE, workload: { ...ESTIMATE.workload, batch_size: 1 + i } },
                                             { base: srv.url });
                        const g = await get('/api/v1/gpus', { base: srv.url });
                        assert.equal(e.status, 200);
                        assert.equal(g.status, 200);
                        answered.push(process.hrtime.bigint());
                }
                const checks = await Promise.all(ready);
                const firstCheck = checks.reduce((m, c) => (c.at < m ? c.at : m), checks[0].at);
                assert.ok(answered[answered.length - 1] < firstCheck,
                          'every estimate and catalog read was answered before the first blocked /readyz');
                // Blocked checks end as the lock goes (or the statement times out), never as a crash.
                assert.ok(checks.every((c) => c.status === 200 || c.status === 503), JSON.stringify(checks.map((c) => c.status)));
        } finally {
                locker?.kill();
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
