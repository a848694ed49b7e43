// PostgreSQL: readiness, restart under a running server, start without a
// database, and migrations (fresh database, concurrent replicas, edited or
// reworded file).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { get, startServer, pgStop, pgStart, psql, createDatabase, waitFor } from './lib.mjs';

test('the server survives a PostgreSQL restart and reconnects', async () => {
        const srv = await startServer();
        try {
                assert.equal((await get('/readyz', { base: srv.url })).status, 200);
                pgStop();
                const down = await waitFor(async () => {
                        const r = await get('/readyz', { base: srv.url });
                        return r.status === 503 ? r : null;
                }, { what: 'readyz 503 while the database is down' });
                assert.equal(down.json.status, 503);
                assert.match(down.headers.get('retry-after'), /^\d+$/);
                // Liveness does not depend on the database.
                assert.equal((await get('/healthz', { base: srv.url })).status, 200);
                pgStart();
                await waitFor(async () => (await get('/readyz', { base: srv.url })).status === 200,
                              { what: 'readyz 200 after the restart' });
                const m = await get('/metrics', { base: srv.url });
                assert.match(m.text, /^gpuplan_db_up 1$/m);
        } finally {
                await srv.stop();
                pgStart();
        }
});

test('a server started while the database is down comes up and gets ready later', async () => {
        const db = createDatabase('late_start');
        // An unreachable address first: the server must still listen and answer /healthz.
        const port = new URL(db).port;
        const srv = await startServer({ env: { DATABASE_URL: db.replace(`:${port}/`, ':1/') }, wait: 'listening' });
        try {
                assert.equal((await get('/healthz', { base: srv.url })).status, 200);
                const r = await get('/readyz', { base: srv.url });
                assert.equal(r.status, 503);
                assert.match(r.json.detail, /database|catalog|migrations/);
        } finally {
                assert.equal((await srv.stop()).code, 0);
        }
        // The same database reachable: migrations apply and it becomes ready.
        const ok = await startServer({ env: { DATABASE_URL: db } });
        try {
                const rows = psql('SELECT count(*) FROM schema_migrations', { url: db });
                assert.ok(Number(rows[0]) >= 1);
        } finally {
                await ok.stop();
        }
});

test('two replicas migrating one fresh database apply each file once', async () => {
        const db = createDatabase('twin_start');
        const [a, b] = await Promise.all([startServer({ env: { DATABASE_URL: db } }),
                                          startServer({ env: { DATABASE_URL: db } })]);
        try {
                const rows = psql('SELECT version, count(*) FROM schema_migrations GROUP BY version HAVING count(*) > 1', { url: db });
                assert.deepEqual(rows, []);
                const applied = [...a.logs, ...b.logs].filter((l) => /^applied migration /.test(l.msg ?? ''));
                const files = Number(psql('SELECT count(*) FROM schema_migrations', { url: db })[0]);
                assert.equal(applied.length, files, 'each file applied by exactly one replica');
        } finally {
                await Promise.all([a.stop(), b.stop()]);
        }
});

test('gpuplan migrate refuses a database whose applied migration was edited', () => {
        const db = createDatabase('edited_migration');
        const run = () => spawnSync(process.env.GPUPLAN_BIN, ['migrate'], {
                env: { ...process.env, DATABASE_URL: db }, encoding: 'utf8',
        });
        const first = run();
        assert.equal(first.status, 0, first.stdout + first.stderr);
        const again = run();
        assert.equal(again.status, 0);
        assert.match(again.stdout, /0 of \d+ migrations applied now/);
        psql("UPDATE schema_migrations SET checksum = repeat('0', 64) WHERE version = 1", { url: db });
        const edited = run();
        assert.equal(edited.status, 1);
        assert.match(edited.stdout, /migration 0001_\w+\.sql was changed after it was applied/);
});

test('a database built from the earlier wording of a reworded migration starts; an unrecorded edit is refused', async () => {
        // migrations/0005_engine_data.sql was reworded (its citations name
        // the article by title); before that, sha256sum of the file was:
        const earlier = 'c0cc028b05b11828be31c577ca73400360ba68a387faaea820d257d46bacb85e';
        const db = createDatabase('reworded_migration');
        const run = () => spawnSync(process.env.GPUPLAN_BIN, ['migrate'], {
                env: { ...process.env, DATABASE_URL: db }, encoding: 'utf8',
        });
        assert.equal(run().status, 0);
        // What the runner sees of a database migrated with the earlier text.
        psql(`UPDATE schema_migrations SET checksum = '${earlier}' WHERE version = 5`, { url: db });
        const again = run();
        assert.equal(again.status, 0, again.stdout + again.stderr);
        assert.match(again.stdout, /0 of \d+ migrations applied now/);
        const srv = await startServer({ env: { DATABASE_URL: db } });
        try {
                const r = await get('/readyz', { base: srv.url });
                assert.equal(r.status, 200, JSON.stringify(r.json));
        } finally {
                await srv.stop();
        }
        psql(`UPDATE schema_migrations SET checksum = repeat('ab', 32) WHERE version = 5`, { url: db });
        const edited = run();
        assert.equal(edited.status, 1);
        assert.match(edited.stdout, /migration 0005_engine_data\.sql was changed after it was applied/);
});

test('bad configuration fails at start with a one-line reason', () => {
        const cases = [
                [{ GPUPLAN_LISTEN: '127.0.0.1:99999' }, /GPUPLAN_LISTEN: port must be 0\.\.65535/],
                [{ GPUPLAN_THREADS: 'many' }, /GPUPLAN_THREADS/],
                [{ GPUPLAN_LOG_LEVEL: 'loud' }, /GPUPLAN_LOG_LEVEL/],
                [{ GPUPLAN_ADMIN_TOKEN: 'short' }, /GPUPLAN_ADMIN_TOKEN/],
                [{ GPUPLAN_BASE_PATH: 'no-slash' }, /GPUPLAN_BASE_PATH/],
                [{ DATABASE_URL: 'postgresql://[' }, /DATABASE_URL/],
        ];
        for (const [extra, re] of cases) {
                const r = spawnSync(process.env.GPUPLAN_BIN, [], {
                        env: { ...process.env, GPUPLAN_LISTEN: '127.0.0.1:0', ...extra }, encoding: 'utf8', timeout: 10000,
                });
                assert.equal(r.status, 2, JSON.stringify(extra) + r.stdout + r.stderr);
                const out = (r.stderr + r.stdout).trim();
                assert.match(out, re);
                assert.equal(out.split('\n').length, 1, `one line: ${out}`);
        }
});

test('gpuplan --help lists every variable', () => {
        const r = spawnSync(process.env.GPUPLAN_BIN, ['--help'], { encoding: 'utf8' });
        assert.equal(r.status, 0);
        for (const v of ['DATABASE_URL', 'GPUPLAN_LISTEN', 'GPUPLAN_STATIC_DIR', 'GPUPLAN_ADMIN_TOKEN',
                         'GPUPLAN_THREADS', 'GPUPLAN_LOG_LEVEL', 'GPUPLAN_BASE_PATH'])
                assert.match(r.stdout, new RegExp(v));
});
