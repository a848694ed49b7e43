// lib.mjs - the integration-test harness: HTTP requests checked against
// openapi.yaml, extra server processes, PostgreSQL stop/start, SQL, nginx.
//
// Every response that request() returns has already been validated against
// the OpenAPI description (path, method, status, content type and body
// schema), so a test that exercises an endpoint also keeps the spec honest.
// The environment comes from scripts/test.sh; see tests/integration/README.md.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync, existsSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import assert from 'node:assert/strict';

import YAML from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function env(name) {
        const v = process.env[name];
        if (!v)
                throw new Error(`${name} is not set: run the integration tests through scripts/test.sh`);
        return v;
}

/** Base URL of the server scripts/test.sh started, e.g. http://127.0.0.1:40123 */
export function baseUrl() {
        return env('GPUPLAN_TEST_URL');
}

/** The admin token that server was started with. */
export function adminToken() {
        return env('GPUPLAN_TEST_ADMIN_TOKEN');
}

// ------------------------------------------------------------------ OpenAPI

const spec = YAML.parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'openapi.json');
const validators = new Map();

function pointerGet(pointer) {
        let node = spec;
        for (const raw of pointer.split('/').slice(1)) {
                const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
                node = node?.[key];
        }
        return node;
}

const esc = (s) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follow a local $ref; returns [object, its JSON pointer]. */
function deref(obj, pointer) {
        while (obj && typeof obj.$ref === 'string' && obj.$ref.startsWith('#/')) {
                pointer = obj.$ref.slice(1);
                obj = pointerGet(pointer);
        }
        return [obj, pointer];
}

const templates = Object.keys(spec.paths ?? {}).map((p) => ({
        template: p,
        regex: new RegExp('^' + p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$'),
        literal: !p.includes('{'),
}));

/** The spec path template for a request path (query stripped), or null. */
export function specPath(method, path) {
        const p = path.split('?')[0];
        // Literal templates first, as OpenAPI requires.
        const hit = templates.filter((t) => t.regex.test(p)).sort((a, b) => b.literal - a.literal)[0];
        if (hit && spec.paths[hit.template][method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()])
                return hit.template;
        if (hit)
                return hit.template;
        // Any other GET outside /api/ is a file of the page, described by "/".
        if (!p.startsWith('/api/') && p !== '/api' && spec.paths['/'])
                return '/';
        return null;
}

/**
 * Check one response against openapi.yaml.  Throws an AssertionError saying
 * what does not match.  body is the response text ('' for none).
 */
export function validateResponse(method, path, status, body, contentType) {
        const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
        const tpl = specPath(method, path);
        if (!tpl) {
                // A path the API does not have: only a 404 problem document is right.
                assert.equal(status, 404, `openapi.yaml: no path matches ${method} ${path} (status ${status})`);
                checkProblem(body, contentType, `${method} ${path}`);
                return;
        }
        const op = spec.paths[tpl][m];
        if (!op) {
                // 405 (and OPTIONS' 204) for a method the path lacks: the transport answers these.
                assert.ok(status === 405 || (method === 'OPTIONS' && status === 204) || status === 404,
                          `openapi.yaml: ${tpl} has no ${m} operation (status ${status})`);
                if (status === 405)
                        checkProblem(body, contentType, `${method} ${path}`);
                return;
        }
        const base = `#/paths/${esc(tpl)}/${m}/responses`;
        const code = String(status);
        let key = null;
        for (const k of [code, `${code[0]}XX`, 'default'])
                if (op.responses?.[k]) {
                        key = k;
                        break;
                }
        assert.ok(key, `openapi.yaml: ${m.toUpperCase()} ${tpl} does not document status ${status}`);
        const [resp, rptr] = deref(op.responses[key], `${base.slice(1)}/${key}`);
        if (method === 'HEAD' || status === 204 || status === 304 || !body)
                return;
        const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
        assert.ok(resp.content, `openapi.yaml: ${m.toUpperCase()} ${tpl} ${key} has no content, got ${ct}`);
        const mediaKey = Object.keys(resp.content).find((k) => k.toLowerCase() === ct) ??
                         Object.keys(resp.content).find((k) => k === '*/*');
        assert.ok(mediaKey, `openapi.yaml: ${m.toUpperCase()} ${tpl} ${key} does not list ${ct} ` +
                            `(lists ${Object.keys(resp.content).join(', ')})`);
        const media = resp.content[mediaKey];
        if (!media.schema || !(ct === 'application/json' || ct.endsWith('+json')))
                return;
        const sptr = `${rptr}/content/${esc(mediaKey)}/schema`;
        let validate = validators.get(sptr);
        if (!validate) {
                validate = ajv.compile({ $ref: `openapi.json#${sptr}` });
                validators.set(sptr, validate);
        }
        let doc;
        try {
                doc = JSON.parse(body);
        } catch (e) {
                assert.fail(`${method} ${path}: ${status} body is not JSON: ${body.slice(0, 200)}`);
        }
        if (!validate(doc))
                assert.fail(`${method} ${path} -> ${status} does not match openapi.yaml ${sptr}:\n` +
                            ajv.errorsText(validate.errors, { separator: '\n' }) +
                            `\nbody: ${body.slice(0, 500)}`);
}

function checkProblem(body, contentType, what) {
        assert.match(contentType ?? '', /^application\/problem\+json/, `${what}: not a problem document`);
        const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/Problem' });
        const doc = JSON.parse(body);
        assert.ok(validate(doc), `${what}: ${ajv.errorsText(validate.errors)}`);
}

// ------------------------------------------------------------------ HTTP

/**
 * Send a request and validate the response against openapi.yaml.
 *   path: '/api/v1/...' (with query if any); base: another server's URL.
 *   body: an object (sent as JSON) or a string (sent as is).
 *   validate: false only for responses the spec deliberately leaves out
 *   (libmicrohttpd's own HTML 431/414, a raw socket test).
 * Returns { status, headers (Headers), text, json (parsed or undefined), contentType }.
 */
export async function request(method, path, { body, headers = {}, base, validate = true, redirect = 'manual' } = {}) {
        const url = (base ?? baseUrl()) + path;
        const init = { method, headers: { ...headers }, redirect };
        if (body !== undefined) {
                init.body = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
                if (!Object.keys(init.headers).some((h) => h.toLowerCase() === 'content-type'))
                        init.headers['Content-Type'] = 'application/json';
        }
        const res = await fetch(url, init);
        const text = method === 'HEAD' ? '' : await res.text();
        const contentType = res.headers.get('content-type') ?? '';
        let json;
        if (/json/.test(contentType) && text) {
                try {
                        json = JSON.parse(text);
                } catch {
                        json = undefined;
                }
        }
        if (validate)
                validateResponse(method, path, res.status, text, contentType);
        return { status: res.status, headers: res.headers, text, json, contentType };
}

export const get = (path, opts) => request('GET', path, opts);
export const post = (path, body, opts = {}) => request('POST', path, { ...opts, body });

/** Assert a response is an RFC 9457 problem with this status (and pointer, if given). */
export function assertProblem(res, status, pointer) {
        assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
        assert.match(res.contentType, /^application\/problem\+json/);
        assert.equal(res.json.status, status);
        assert.equal(typeof res.json.title, 'string');
        assert.equal(typeof res.json.detail, 'string');
        if (pointer !== undefined) {
                assert.equal(res.json.pointer, pointer, `pointer: ${res.text}`);
                assert.ok(Array.isArray(res.json.errors) && res.json.errors.length > 0);
        }
}

/** Poll fn until it returns a truthy value or timeoutMs passes. */
export async function waitFor(fn, { timeoutMs = 15000, intervalMs = 100, what = 'condition' } = {}) {
        const end = Date.now() + timeoutMs;
        let last;
        for (;;) {
                try {
                        const v = await fn();
                        if (v)
                                return v;
                } catch (e) {
                        last = e;
                }
                if (Date.now() > end)
                        throw new Error(`timed out waiting for ${what}` + (last ? `: ${last.message}` : ''));
                await new Promise((r) => setTimeout(r, intervalMs));
        }
}

// ------------------------------------------------------------------ processes

const children = new Set();
function track(proc) {
        children.add(proc);
        const dir = process.env.GPUPLAN_TEST_PIDS;
        if (dir && proc.pid)
                try {
                        writeFileSync(join(dir, String(proc.pid)), '');
                } catch { /* best effort: test.sh also kills by process group */ }
        proc.on('exit', () => {
                children.delete(proc);
                if (dir && proc.pid)
                        rmSync(join(dir, String(proc.pid)), { force: true });
        });
}
process.on('exit', () => {
        for (const p of children)
                try {
                        p.kill('SIGKILL');
                } catch { /* already gone */ }
});

/**
 * Start another gpuplan process on a free port.  env overrides the
 * environment (DATABASE_URL defaults to the test database).  wait:
 * 'ready' (readyz 200), 'listening' (just bound) or false.
 * Returns { url, port, proc, logs (parsed JSON lines), stderr, stop(signal) -> {code, signal} }.
 */
export async function startServer({ env: extra = {}, wait = 'ready', timeoutMs = 20000 } = {}) {
        const childEnv = {
                ...process.env,
                GPUPLAN_LISTEN: '127.0.0.1:0',
                GPUPLAN_STATIC_DIR: join(ROOT, 'static'),
                GPUPLAN_LOG_LEVEL: 'info',
                ...extra,
        };
        for (const [k, v] of Object.entries(childEnv))
                if (v === undefined || v === null)
                        delete childEnv[k];
        const proc = spawn(env('GPUPLAN_BIN'), [], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
        track(proc);
        const logs = [];
        let stderr = '';
        let buf = '';
        let exited = null;
        const exit = new Promise((resolve) => proc.on('exit', (code, signal) => {
                exited = { code, signal };
                resolve(exited);
        }));
        proc.stdout.on('data', (d) => {
                buf += d;
                let i;
                while ((i = buf.indexOf('\n')) >= 0) {
                        const line = buf.slice(0, i);
                        buf = buf.slice(i + 1);
                        try {
                                logs.push(JSON.parse(line));
                        } catch {
                                logs.push({ unparsed: line });
                        }
                }
        });
        proc.stderr.on('data', (d) => {
                stderr += d;
        });
        const server = {
                proc, logs, exit,
                get stderr() { return stderr; },
                url: null, port: null,
                async stop(signal = 'SIGTERM', { timeoutMs: t = 15000 } = {}) {
                        if (!exited)
                                proc.kill(signal);
                        const timer = setTimeout(() => proc.kill('SIGKILL'), t);
                        const r = await exit;
                        clearTimeout(timer);
                        return r;
                },
        };
        if (!wait)
                return server;
        const listening = await waitFor(() => {
                if (exited)
                        throw new Error(`gpuplan exited (${JSON.stringify(exited)}): ${stderr}`);
                return logs.find((l) => l.msg === 'listening');
        }, { timeoutMs, what: 'gpuplan to listen' });
        server.port = listening.port;
        server.url = `http://127.0.0.1:${listening.port}`;
        if (wait === 'ready')
                await waitFor(async () => (await fetch(server.url + '/readyz')).status === 200,
                              { timeoutMs, what: 'gpuplan /readyz 200' });
        return server;
}

function sh(cmd) {
        return execFileSync('bash', ['-c', cmd], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Stop the test PostgreSQL (fast shutdown: open connections are terminated). */
export function pgStop() {
        sh(env('GPUPLAN_PG_STOP'));
}

/** Start it again, on the same port and data. */
export function pgStart() {
        sh(env('GPUPLAN_PG_START'));
}

/** Run SQL on the test database (or another URL); returns psql's unaligned output rows. */
export function psql(sql, { url } = {}) {
        const out = execFileSync('psql', ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url ?? env('DATABASE_URL'), '-c', sql],
                                 { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        return out.split('\n').filter((l) => l !== '');
}

/** Create an empty database and return its URL (for tests that need a fresh schema). */
export function createDatabase(name) {
        assert.match(name, /^[a-z][a-z0-9_]{0,40}$/);
        psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        psql(`CREATE DATABASE ${name}`);
        const u = new URL(env('DATABASE_URL'));
        u.pathname = '/' + name;
        return u.toString();
}

/** A TCP port nobody listens on right now. */
export async function freePort() {
        return new Promise((resolve, reject) => {
                const s = net.createServer();
                s.once('error', reject);
                s.listen(0, '127.0.0.1', () => {
                        const { port } = s.address();
                        s.close(() => resolve(port));
                });
        });
}

/**
 * Run the real nginx with deploy/nginx.conf on loopback, its upstream
 * pointed at upstreamUrl (default: the test server).  Returns
 * { url, port, stop() }.
 */
export async function startNginx({ upstreamUrl } = {}) {
        const up = new URL(upstreamUrl ?? baseUrl());
        const port = await freePort();
        const prefix = mkdtempSync(join(process.env.GPUPLAN_TEST_TMP ?? tmpdir(), 'nginx-'));
        // nginx workers run as an unprivileged user when started as root.
        chmodSync(prefix, 0o755);
        for (const d of ['logs', 'tmp'])
                mkdirSync(join(prefix, d));
        chmodSync(join(prefix, 'tmp'), 0o777);
        let conf = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
        const swap = (re, to) => {
                assert.match(conf, re, `deploy/nginx.conf no longer has ${re}`);
                conf = conf.replace(re, to);
        };
        swap(/server app:8080\b/, `server ${up.host}`);
        swap(/listen 80;/, `listen 127.0.0.1:${port};`);
        swap(/pid [^;]+;/, `pid ${join(prefix, 'nginx.pid')};`);
        swap(/access_log [^;]+;/, `access_log ${join(prefix, 'logs', 'access.log')};`);
        // Temporary files in the throwaway prefix, not /var/lib/nginx.
        swap(/http \{/, `http {\n    client_body_temp_path ${prefix}/tmp/body;\n    proxy_temp_path ${prefix}/tmp/proxy;\n` +
                        `    fastcgi_temp_path ${prefix}/tmp/fastcgi;\n    uwsgi_temp_path ${prefix}/tmp/uwsgi;\n` +
                        `    scgi_temp_path ${prefix}/tmp/scgi;\n`);
        const confPath = join(prefix, 'nginx.conf');
        writeFileSync(confPath, conf);
        const bin = process.env.GPUPLAN_NGINX ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');
        sh(`${bin} -t -q -p ${prefix} -c ${confPath} -e stderr`);
        const proc = spawn(bin, ['-p', prefix, '-c', confPath, '-e', 'stderr', '-g', 'daemon off;'],
                           { stdio: ['ignore', 'ignore', 'pipe'] });
        track(proc);
        let stderr = '';
        proc.stderr.on('data', (d) => {
                stderr += d;
        });
        const exit = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
        const url = `http://127.0.0.1:${port}`;
        await waitFor(async () => {
                if (proc.exitCode !== null)
                        throw new Error(`nginx exited: ${stderr}`);
                return (await fetch(url + '/healthz')).status === 200;
        }, { what: 'nginx to proxy /healthz' });
        return {
                url, port, prefix, conf,
                get stderr() { return stderr; },
                async stop() {
                        proc.kill('SIGQUIT');
                        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
                        await exit;
                        clearTimeout(timer);
                        rmSync(prefix, { recursive: true, force: true });
                },
        };
}

/**
 * Send bytes as they are over a new TCP connection (paths fetch would
 * normalise, malformed requests) and return { status, headers, body, raw }.
 * headers is an object with lower-case names.  The connection is closed
 * after the first response.
 */
export function rawRequest(text, { url, timeoutMs = 10000 } = {}) {
        const u = new URL(url ?? baseUrl());
        return new Promise((resolve, reject) => {
                const sock = net.connect(Number(u.port), u.hostname);
                let data = Buffer.alloc(0);
                const timer = setTimeout(() => {
                        sock.destroy();
                        reject(new Error('raw request timed out'));
                }, timeoutMs);
                sock.on('connect', () => sock.write(text));
                sock.on('data', (d) => {
                        data = Buffer.concat([data, d]);
                });
                sock.on('error', (e) => {
                        clearTimeout(timer);
                        reject(e);
                });
                sock.on('close', () => {
                        clearTimeout(timer);
                        resolve(parseRaw(data.toString('latin1')));
                });
        });
}

export function parseRaw(raw) {
        const end = raw.indexOf('\r\n\r\n');
        const head = end >= 0 ? raw.slice(0, end) : raw;
        const lines = head.split('\r\n');
        const status = Number((lines[0] ?? '').split(' ')[1]);
        return { status, headers: headerFields(lines.slice(1)), body: end >= 0 ? raw.slice(end + 4) : '', raw };
}

// Header lines ("Name: value") as an object keyed by lower-case name.
export function headerFields(lines) {
        const headers = {};
        for (const l of lines) {
                const i = l.indexOf(':');
                if (i > 0)
                        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        return headers;
}

/**
 * Write bytes on a new connection to url and gather what comes back until
 * enough(data) says so after a chunk (closed false), the server closes the
 * connection (closed true) or waitMs passes (closed false, timedOut true).
 * Resolves { data, closed, timedOut }, data a Buffer.
 */
export function socketExchange(bytes, { url = baseUrl(), waitMs = 10000, enough = () => false } = {}) {
        const u = new URL(url);
        return new Promise((resolve) => {
                const sock = net.connect(Number(u.port), u.hostname);
                let data = Buffer.alloc(0);
                let done = false;
                const finish = (closed, timedOut = false) => {
                        if (done)
                                return;
                        done = true;
                        clearTimeout(timer);
                        sock.destroy();
                        resolve({ data, closed, timedOut });
                };
                const timer = setTimeout(() => finish(false, true), waitMs);
                sock.on('connect', () => sock.write(bytes));
                sock.on('data', (d) => {
                        data = Buffer.concat([data, d]);
                        if (enough(data))
                                finish(false);
                });
                sock.on('error', () => finish(true));
                sock.on('close', () => finish(true));
        });
}
