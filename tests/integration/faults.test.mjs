// faults.test.mjs - the service under load while things break.
//
//   1. PostgreSQL stopped under load: reads keep answering from the
//      in-memory snapshot, writes get 503 with Retry-After and leave no
//      trace, /readyz says why; PostgreSQL started again: the same process
//      recovers, and every write that got a 2xx is in the database.
//   2. SIGTERM under load: requests in flight complete, new connections are
//      refused, exit status 0.
//   3. Two replicas behind the real nginx (deploy/nginx.conf), one killed
//      with SIGKILL under load: failed requests are counted by kind; only
//      requests nginx may not retry (a POST already sent to the dead
//      replica) may fail; the survivor carries on.
//   4. Three servers migrating one empty database at once: one schema,
//      each migration applied once, the same catalog everywhere.
//
// Tests assert behaviour, not time: the "within seconds" of recovery is a
// waitFor bound, not a measurement.  Every server started here is a
// sanitized build; its stderr must stay free of sanitizer reports.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, chmodSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

import { ROOT, request, get, startServer, pgStop, pgStart, psql, createDatabase, waitFor, freePort, adminToken } from './lib.mjs';

const ESTIMATE = {
        model: { id: 'xlm-roberta-large' },
        workload: { mode: 'pre_train', batch_size: 16, sequence_length: 128 },
        precision: 'fp32',
        optimizer: 'adamw',
};
const SANITIZER = /AddressSanitizer|LeakSanitizer|runtime error:/;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function noSanitizerReport(srv) {
        assert.doesNotMatch(srv.stderr, SANITIZER, srv.stderr.slice(0, 3000));
}

/** Run fn in `workers` loops until stop() is called; collects every outcome. */
function load(workers, fn) {
        let running = true;
        const outcomes = [];
        const loops = Array.from({ length: workers }, async (_, w) => {
                for (let i = 0; running; i++) {
                        try {
                                outcomes.push(await fn(w, i));
                        } catch (e) {
                                outcomes.push({ kind: 'error', error: e.cause?.code ?? e.message });
                        }
                }
        });
        return {
                outcomes,
                async stop() {
                        running = false;
                        await Promise.all(loops);
                        return outcomes;
                },
        };
}

// ------------------------------------------------------------------ 1

test('PostgreSQL stopped under load: reads stay 200, writes 503 and atomic, recovery without a restart', async () => {
        const token = adminToken();
        const srv = await startServer({ env: { GPUPLAN_ADMIN_TOKEN: token } });
        const marker = `faults-${randomUUID()}`;
        const prices = await get('/api/v1/prices', { base: srv.url });
        assert.equal(prices.status, 200);
        const offering = prices.json.prices[0].offering;
        let phase = 'up';
        let pgDown = false;
        try {
                const reads = load(4, async (w, i) => {
                        const r = w % 2
                                ? await request('POST', '/api/v1/estimate', { base: srv.url, body: ESTIMATE, validate: false })
                                : await request('GET', '/api/v1/gpus', { base: srv.url, validate: false });
                        return { kind: 'read', phase, status: r.status };
                });
                const writes = load(2, async (w, i) => {
                        const source = `${marker}-${w}-${i}`;
                        const p = phase;
                        // Back-dated, so the row joins the history without becoming the current price.
                        const r = await request('POST', '/api/v1/prices', {
                                base: srv.url, validate: false,
                                headers: { Authorization: `Bearer ${token}` },
                                body: { offering, pricing: 'on_demand', usd_per_hour: 1 + i / 1000, as_of: '2001-01-01', source },
                        });
                        await sleep(20);
                        return { kind: 'write', phase: p, status: r.status, source, retryAfter: r.headers.get('retry-after'), body: r.text };
                });
                await sleep(1500);
                phase = 'down';
                pgStop();
                pgDown = true;
                // While it is down: readiness says why.
                const ready = await waitFor(async () => {
                        const r = await get('/readyz', { base: srv.url });
                        return r.status === 503 ? r : null;
                }, { what: '/readyz 503 with PostgreSQL stopped' });
                assert.match(ready.json.detail, /database|postgres|connect/i, ready.text);
                assert.match(ready.headers.get('retry-after') ?? '', /^\d+$/);
                await sleep(3000);
                phase = 'restarting';
                pgStart();
                pgDown = false;
                await waitFor(async () => (await get('/readyz', { base: srv.url })).status === 200,
                              { timeoutMs: 30000, what: '/readyz 200 again without a server restart' });
                phase = 'recovered';
                await sleep(1500);
                const readResults = await reads.stop();
                const writeResults = await writes.stop();

                // Reads never failed, whatever the database did.
                const badReads = readResults.filter((r) => r.status !== 200);
                assert.deepEqual(badReads, [], `reads that did not get 200: ${JSON.stringify(badReads.slice(0, 5))}`);
                const downReads = readResults.filter((r) => r.phase === 'down').length;
                assert.ok(downReads > 0, 'no read happened while the database was down');

                // Writes: 2xx or 503 with Retry-After, nothing else.
                const ok = writeResults.filter((r) => r.status >= 200 && r.status < 300);
                const refused = writeResults.filter((r) => r.status === 503);
                const other = writeResults.filter((r) => !(r.status >= 200 && r.status < 300) && r.status !== 503);
                assert.deepEqual(other.map((r) => `${r.status} ${r.phase} ${r.body?.slice(0, 120)}`), []);
                for (const r of refused)
                        assert.match(r.retryAfter ?? '', /^\d+$/, 'a 503 without Retry-After');
                assert.ok(refused.some((r) => r.phase === 'down'), 'no write was refused while the database was down');
                assert.ok(ok.some((r) => r.phase === 'recovered'), 'no write succeeded after recovery');

                // Every acknowledged write is stored, with its audit row; no refused write left anything.
                const stored = new Set(psql(`SELECT source FROM prices WHERE source LIKE '${marker}-%'`));
                const audited = new Set(psql(`SELECT payload->>'source' FROM audit_log WHERE payload->>'source' LIKE '${marker}-%'`));
                for (const r of ok) {
                        assert.ok(stored.has(r.source), `acknowledged write ${r.source} is missing`);
                        assert.ok(audited.has(r.source), `acknowledged write ${r.source} has no audit row`);
                }
                for (const r of refused) {
                        assert.ok(!stored.has(r.source), `refused write ${r.source} was stored`);
                        assert.ok(!audited.has(r.source), `refused write ${r.source} was audited`);
                }
                assert.deepEqual([...stored].sort(), [...audited].sort(), 'price rows and audit rows differ');
                console.log(`database outage: ${readResults.length} reads (${downReads} while down), ` +
                            `${ok.length} writes stored, ${refused.length} refused with 503`);
        } finally {
                if (pgDown)
                        pgStart();
                const exit = await srv.stop();
                assert.equal(exit.code, 0);
                noSanitizerReport(srv);
        }
});

// ------------------------------------------------------------------ 2

/** Send one request on its own connection; resolves {status} or {error}. */
function rawPost(port, path, body) {
        return new Promise((resolve) => {
                const sock = net.connect(port, '127.0.0.1');
                let data = '';
                sock.on('connect', () => sock.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
                                                     `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`));
                sock.on('data', (d) => {
                        data += d;
                });
                sock.on('error', (e) => resolve({ error: e.code }));
                sock.on('close', () => resolve({ status: Number(data.split(' ')[1]) || 0, bytes: data.length }));
        });
}

test('SIGTERM under load: requests in flight complete, new connections are refused, exit 0', async () => {
        const srv = await startServer({ env: { GPUPLAN_SHUTDOWN_GRACE_S: '30' } });
        try {
                const port = srv.port;
                // Compare searches the whole plan space: slow enough to be in flight when the signal lands.
                const body = JSON.stringify(ESTIMATE);
                const N = 24;
                const inflight = Array.from({ length: N }, () => rawPost(port, '/api/v1/compare', body));
                // Wait until the server has them (the metrics count in-flight requests; this one too).
                await waitFor(async () => {
                        const m = await get('/metrics', { base: srv.url, validate: false });
                        const v = Number((m.text.match(/^gpuplan_http_requests_in_flight (\d+)/m) ?? [])[1]);
                        return v >= 4;
                }, { timeoutMs: 10000, intervalMs: 10, what: 'requests in flight' });
                srv.proc.kill('SIGTERM');
                // New connections are refused once the server stops accepting.
                const refused = await waitFor(async () => {
                        const r = await new Promise((resolve) => {
                                const s = net.connect(port, '127.0.0.1');
                                s.on('connect', () => {
                                        s.destroy();
                                        resolve('accepted');
                                });
                                s.on('error', (e) => resolve(e.code));
                        });
                        return r === 'ECONNREFUSED' ? r : null;
                }, { timeoutMs: 10000, intervalMs: 20, what: 'connections refused after SIGTERM' });
                assert.equal(refused, 'ECONNREFUSED');
                const results = await Promise.all(inflight);
                const completed = results.filter((r) => r.status === 200).length;
                const failed = results.filter((r) => r.status !== 200);
                // Every request sent before the signal was answered, and answered 200.
                assert.deepEqual(failed, [], `requests in flight that did not complete: ${JSON.stringify(failed)}`);
                assert.equal(completed, N);
                // A timer keeps the event loop alive while the drained server exits.
                let timer;
                const exit = await Promise.race([srv.exit, new Promise((resolve) => {
                        timer = setTimeout(() => resolve({ timeout: true }), 30000);
                })]);
                clearTimeout(timer);
                assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}`);
        } finally {
                await srv.stop();
                noSanitizerReport(srv);
        }
});

// ------------------------------------------------------------------ 3

/** nginx with deploy/nginx.conf in front of several upstream URLs. */
async function startNginxFor(upstreams) {
        const port = await freePort();
        const prefix = mkdtempSync(join(process.env.GPUPLAN_TEST_TMP ?? tmpdir(), 'nginx-faults-'));
        for (const d of ['logs', 'tmp'])
                mkdirSync(join(prefix, d));
        chmodSync(join(prefix, 'tmp'), 0o777);
        let conf = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
        const swap = (re, to) => {
                assert.match(conf, re, `deploy/nginx.conf no longer has ${re}`);
                conf = conf.replace(re, to);
        };
        swap(/server app:8080\b[^;]*;/, upstreams.map((u) => `server ${new URL(u).host} max_conns=128;`).join('\n        '));
        swap(/listen 80;/, `listen 127.0.0.1:${port};`);
        swap(/pid [^;]+;/, `pid ${join(prefix, 'nginx.pid')};`);
        swap(/access_log [^;]+;/, `access_log ${join(prefix, 'logs', 'access.log')} json;`);
        swap(/http \{/, `http {\n    client_body_temp_path ${prefix}/tmp/body;\n    proxy_temp_path ${prefix}/tmp/proxy;\n` +
                        `    fastcgi_temp_path ${prefix}/tmp/fastcgi;\n    uwsgi_temp_path ${prefix}/tmp/uwsgi;\n` +
                        `    scgi_temp_path ${prefix}/tmp/scgi;\n`);
        const confPath = join(prefix, 'nginx.conf');
        writeFileSync(confPath, conf);
        const bin = process.env.GPUPLAN_NGINX ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');
        execFileSync(bin, ['-t', '-q', '-p', prefix, '-c', confPath, '-e', 'stderr']);
        const proc = spawn(bin, ['-p', prefix, '-c', confPath, '-e', 'stderr', '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        proc.stderr.on('data', (d) => {
                stderr += d;
        });
        const exit = new Promise((resolve) => proc.on('exit', resolve));
        const url = `http://127.0.0.1:${port}`;
        await waitFor(async () => (await fetch(url + '/healthz')).status === 200, { what: 'nginx in front of two replicas' });
        return {
                url,
                get stderr() {
                        return stderr;
                },
                async stop() {
                        proc.kill('SIGQUIT');
                        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
                        await exit;
                        clearTimeout(t);
                        rmSync(prefix, { recursive: true, force: true });
                },
        };
}

test('two replicas behind nginx, one killed under load: only requests nginx cannot retry may fail', async () => {
        const a = await startServer();
        const b = await startServer();
        let nginx;
        try {
                nginx = await startNginxFor([a.url, b.url]);
                let killed = false;
                // Idempotent requests outside the rate-limited /api/ location, and POSTs
                // at a rate under the per-client limit (50 r/s).
                const gets = load(6, async (w, i) => {
                        const path = i % 2 ? '/healthz' : '/';
                        const r = await fetch(nginx.url + path);
                        await r.arrayBuffer();
                        return { kind: 'GET', after: killed, status: r.status };
                });
                const posts = load(1, async () => {
                        const r = await fetch(nginx.url + '/api/v1/estimate', {
                                method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ESTIMATE),
                        });
                        await r.arrayBuffer();
                        await sleep(30);
                        return { kind: 'POST', after: killed, status: r.status };
                });
                await sleep(1500);
                b.proc.kill('SIGKILL');
                killed = true;
                await sleep(2500);
                const results = [...await gets.stop(), ...await posts.stop()];
                const failed = (kind) => results.filter((r) => r.kind === kind && r.status !== 200);
                const summary = (kind) => `${results.filter((r) => r.kind === kind).length} ${kind}, ${failed(kind).length} failed`;
                console.log(`replica killed under load: ${summary('GET')}; ${summary('POST')} ` +
                            `(statuses ${JSON.stringify(failed('POST').map((r) => r.status))})`);
                // nginx retries idempotent requests on the other replica (proxy_next_upstream error timeout http_502).
                assert.deepEqual(failed('GET'), [], 'an idempotent request failed');
                // A POST already sent to the killed replica cannot be retried (nginx >= 1.9.13 does not
                // resend non-idempotent requests); at most the one in flight on each POST loop.
                assert.ok(failed('POST').length <= 1, `POSTs failed: ${JSON.stringify(failed('POST'))}`);
                assert.ok(failed('POST').every((r) => r.status === 502), 'a failed POST other than 502');
                // The survivor carries on, POSTs included.
                for (let i = 0; i < 10; i++) {
                        const r = await fetch(nginx.url + '/api/v1/estimate', {
                                method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ESTIMATE),
                        });
                        assert.equal(r.status, 200);
                        await r.arrayBuffer();
                }
                assert.ok(results.filter((r) => r.after && r.status === 200).length > 0, 'nothing was served after the kill');
        } finally {
                if (nginx)
                        await nginx.stop();
                await b.stop();
                const exit = await a.stop();
                assert.equal(exit.code, 0);
                noSanitizerReport(a);
        }
});

// ------------------------------------------------------------------ 4

test('three servers migrating one empty database at once: one schema, each migration once', async () => {
        const db = createDatabase('faults_migration_race');
        const servers = await Promise.all([1, 2, 3].map(() => startServer({ env: { DATABASE_URL: db } })));
        try {
                const versions = psql('SELECT version FROM schema_migrations ORDER BY version', { url: db });
                assert.ok(versions.length >= 1);
                assert.equal(new Set(versions).size, versions.length, 'a migration recorded twice');
                const applied = servers.flatMap((s) => s.logs).filter((l) => /^applied migration/.test(l.msg ?? ''));
                assert.equal(applied.length, versions.length, 'each migration applied by exactly one server');
                // One schema: the same tables as the main test database, and the seeded rows once.
                const tables = (url) => psql("SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables " +
                                             "WHERE table_schema = 'public'", { url })[0];
                assert.equal(tables(db), tables(process.env.DATABASE_URL));
                const gpus = psql('SELECT count(*), count(DISTINCT id) FROM accelerators', { url: db })[0].split('|');
                assert.equal(gpus[0], gpus[1]);
                // Every server serves the same catalog.
                const etags = await Promise.all(servers.map(async (s) => (await get('/api/v1/gpus', { base: s.url })).headers.get('etag')));
                assert.equal(new Set(etags).size, 1, `catalog ETags differ: ${etags}`);
        } finally {
                for (const s of servers) {
                        assert.equal((await s.stop()).code, 0);
                        noSanitizerReport(s);
                }
        }
});
