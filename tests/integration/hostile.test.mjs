// hostile.test.mjs - bad requests of every kind, each with the status and
// problem document it must get, then proof that the server is still well.
//
// The table covers: malformed and truncated JSON, duplicate keys, nesting
// 10 000 deep, numbers out of range or of the wrong type, sizes that
// overflow 64 bits, unknown fields, wrong Content-Type, oversized bodies
// (100 MB refused from its Content-Length), headers and URLs, path
// traversal in every encoding, NUL bytes, SQL metacharacters in every query
// parameter, admin writes without and with a wrong token.  Separate tests:
// the 100 MB body, slowloris against a server with a short idle timeout,
// token timing, and a final health check (server alive, normal answers, the
// catalog unchanged, no sanitizer report from the server this file starts).
//
// Requests whose bytes fetch() would normalise or refuse go over raw
// sockets.  Every JSON reply is also checked against openapi.yaml by the
// harness; libmicrohttpd's own HTML replies (431, 414 beyond 64 KiB, 400
// for unparsable requests) are left out of that check on purpose.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';

import { request, get, assertProblem, adminToken, baseUrl, startServer, psql, validateResponse, rawRequest, socketExchange, headerFields } from './lib.mjs';

const E = '/api/v1/estimate';
const OK_MODEL = { id: 'xlm-roberta-large' };
const okRequest = (extra = {}, workload = {}) => JSON.stringify({
        model: OK_MODEL,
        workload: { mode: 'pre_train', batch_size: 16, sequence_length: 128, ...workload },
        ...extra,
});
// The request with one workload field replaced by raw JSON text (for 1e308, NaN, ...).
const withBatch = (raw) => `{"model":{"id":"xlm-roberta-large"},"workload":{"mode":"pre_train","batch_size":${raw},"sequence_length":128}}`;
const deep = (n, open, close, inner = '1') => open.repeat(n) + inner + close.repeat(n);

// ------------------------------------------------------------ raw HTTP

/**
 * Send bytes over a new connection and read one response (Content-Length
 * framed, or up to the close).  Resolves { status, headers, body, closed }
 * where status 0 means the server closed without answering.
 */
async function raw(bytes, { url = baseUrl(), timeoutMs = 10000 } = {}) {
        const r = await socketExchange(bytes, { url, waitMs: timeoutMs, enough: (data) => parse(data).complete });
        if (r.timedOut)
                throw new Error(`no response within ${timeoutMs} ms`);
        return { ...parse(r.data), closed: r.closed };
}

function parse(buf) {
        const s = buf.toString('latin1');
        const end = s.indexOf('\r\n\r\n');
        if (end < 0)
                return { status: 0, headers: {}, body: '', complete: false };
        const lines = s.slice(0, end).split('\r\n');
        const headers = headerFields(lines.slice(1));
        const body = s.slice(end + 4);
        const len = headers['content-length'] === undefined ? null : Number(headers['content-length']);
        return { status: Number(lines[0].split(' ')[1]), headers, body, complete: len !== null && body.length >= len };
}

const http = (method, target, { headers = {}, body = '' } = {}) => {
        const h = { Host: '127.0.0.1', Connection: 'close', ...headers };
        if (body !== '' && h['Content-Length'] === undefined)
                h['Content-Length'] = Buffer.byteLength(body, 'latin1');
        return Buffer.concat([
                Buffer.from(`${method} ${target} HTTP/1.1\r\n` +
                            Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n', 'latin1'),
                Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
        ]);
};

// ------------------------------------------------------------ the table

// Each row: name, then either a fetch-style request (method, path, body,
// headers) or raw bytes (raw); the expected status; for problem documents
// the pointer and rule where the API names them (null: not checked);
// html: true for libmicrohttpd's own replies.
const WRONG = 'Bearer wrong-token-of-a-plausible-length-000000';
const json = { 'Content-Type': 'application/json' };

const cases = [
        // -- malformed and truncated JSON: 400, pointer "", rule "json"
        { name: 'an opening brace only', method: 'POST', path: E, body: '{', status: 400, pointer: '', rule: 'json' },
        { name: 'a request cut in half', method: 'POST', path: E, body: okRequest().slice(0, 40), status: 400, pointer: '', rule: 'json' },
        { name: 'a request missing its last brace', method: 'POST', path: E, body: okRequest().slice(0, -1), status: 400, pointer: '', rule: 'json' },
        { name: 'a trailing comma', method: 'POST', path: E, body: '{"model":{"id":"xlm-roberta-large"},}', status: 400, pointer: '', rule: 'json' },
        { name: 'single-quoted keys', method: 'POST', path: E, body: "{'model':{'id':'xlm-roberta-large'}}", status: 400, pointer: '', rule: 'json' },
        { name: 'a comment before the object', method: 'POST', path: E, body: '/* hi */' + okRequest(), status: 400, pointer: '', rule: 'json' },
        { name: 'garbage after the object', method: 'POST', path: E, body: okRequest() + ' {"again":1}', status: 400, pointer: '', rule: 'json' },
        { name: 'whitespace only', method: 'POST', path: E, body: ' \n\t ', status: 400, pointer: '', rule: 'json' },
        { name: 'an empty body', method: 'POST', path: E, body: '', status: 400, pointer: '', rule: 'required' },
        { name: 'a bare string', method: 'POST', path: E, body: '"pre_train"', status: 400, pointer: '', rule: 'type' },
        { name: 'an array instead of an object', method: 'POST', path: E, body: '[]', status: 400, pointer: '', rule: 'type' },
        { name: 'invalid UTF-8 in a string', method: 'POST', path: E, body: Buffer.from('{"model":{"id":"\xff\xfe"},"workload":{"mode":"inference"}}', 'latin1'), status: 400, pointer: '', rule: 'json' },
        { name: 'a lone UTF-16 surrogate', method: 'POST', path: E, body: '{"model":{"id":"\\ud800"},"workload":{"mode":"inference"}}', status: 400, pointer: '', rule: 'json' },
        { name: 'an escaped NUL in a string', method: 'POST', path: E, body: '{"model":{"id":"xlm\\u0000roberta"},"workload":{"mode":"inference"}}', status: 400, pointer: '', rule: 'json' },
        { name: 'a raw NUL byte in the body', method: 'POST', path: E, body: Buffer.from('{"model":{"id":"xlm\0roberta"},"workload":{"mode":"inference"}}', 'latin1'), status: 400, pointer: '', rule: 'json' },
        // -- duplicate keys
        { name: 'a duplicate top-level key', method: 'POST', path: E, body: '{"model":{"id":"xlm-roberta-large"},"model":{"parameters":1000000000},"workload":{"mode":"inference"}}', status: 400, pointer: '', rule: 'json' },
        { name: 'a duplicate nested key', method: 'POST', path: E, body: '{"model":{"id":"xlm-roberta-large"},"workload":{"mode":"inference","mode":"pre_train"}}', status: 400, pointer: '', rule: 'json' },
        // -- nesting 10 000 deep
        { name: 'arrays nested 10 000 deep', method: 'POST', path: E, body: deep(10000, '[', ']'), status: 400, pointer: '', rule: 'json' },
        { name: 'objects nested 10 000 deep', method: 'POST', path: E, body: deep(10000, '{"a":', '}'), status: 400, pointer: '', rule: 'json' },
        { name: 'a field nested 10 000 deep', method: 'POST', path: E, body: `{"model":{"id":"xlm-roberta-large"},"workload":${deep(10000, '{"mode":', '}', '"inference"')}}`, status: 400, pointer: '', rule: 'json' },
        // -- numbers where counts go
        { name: 'batch_size 1e308', method: 'POST', path: E, body: withBatch('1e308'), status: 400, pointer: '/workload/batch_size', rule: 'type' },
        { name: 'batch_size -1', method: 'POST', path: E, body: withBatch('-1'), status: 400, pointer: '/workload/batch_size', rule: 'range' },
        { name: 'batch_size 0', method: 'POST', path: E, body: withBatch('0'), status: 400, pointer: '/workload/batch_size', rule: 'range' },
        { name: 'batch_size NaN', method: 'POST', path: E, body: withBatch('NaN'), status: 400, pointer: '', rule: 'json' },
        { name: 'batch_size Infinity', method: 'POST', path: E, body: withBatch('Infinity'), status: 400, pointer: '', rule: 'json' },
        { name: 'batch_size 1e400 (overflows a double)', method: 'POST', path: E, body: withBatch('1e400'), status: 400, pointer: '', rule: 'json' },
        { name: 'batch_size 2^64 (overflows an integer)', method: 'POST', path: E, body: withBatch('18446744073709551616'), status: 400, pointer: '', rule: 'json' },
        { name: 'batch_size 2^32 + 16 (would wrap to 16 in 32 bits)', method: 'POST', path: E, body: withBatch('4294967312'), status: 400, pointer: '/workload/batch_size', rule: 'range' },
        { name: 'batch_size as a string', method: 'POST', path: E, body: withBatch('"16"'), status: 400, pointer: '/workload/batch_size', rule: 'type' },
        { name: 'batch_size 16.5', method: 'POST', path: E, body: withBatch('16.5'), status: 400, pointer: '/workload/batch_size', rule: 'type' },
        { name: 'batch_size true', method: 'POST', path: E, body: withBatch('true'), status: 400, pointer: '/workload/batch_size', rule: 'type' },
        { name: 'sequence_length -128', method: 'POST', path: E, body: okRequest({}, { sequence_length: -128 }), status: 400, pointer: '/workload/sequence_length', rule: 'range' },
        { name: 'gradient_accumulation 0', method: 'POST', path: E, body: okRequest({}, { gradient_accumulation: 0 }), status: 400, pointer: '/workload/gradient_accumulation', rule: 'range' },
        { name: 'epochs -1', method: 'POST', path: E, body: okRequest({}, { dataset: { samples: 1000, epochs: -1 } }), status: 400, pointer: '/workload/dataset/epochs', rule: 'range' },
        { name: 'dataset samples as a string', method: 'POST', path: E, body: okRequest({}, { dataset: { samples: 'many' } }), status: 400, pointer: '/workload/dataset/samples', rule: 'type' },
        { name: 'mfu 0', method: 'POST', path: E, body: okRequest({ mfu: 0 }), status: 400, pointer: '/mfu', rule: 'range' },
        { name: 'mfu 2', method: 'POST', path: E, body: okRequest({ mfu: 2 }), status: 400, pointer: '/mfu', rule: 'range' },
        { name: 'parameters 1e308', method: 'POST', path: E, body: '{"model":{"parameters":1e308},"workload":{"mode":"inference"}}', status: 400, pointer: '/model/parameters', rule: null },
        { name: 'parameters 0', method: 'POST', path: E, body: '{"model":{"parameters":0},"workload":{"mode":"inference"}}', status: 400, pointer: '/model/parameters', rule: 'range' },
        { name: 'zero GPUs', method: 'POST', path: E, body: okRequest({ parallelism: { strategy: 'ddp', gpus: 0 } }), status: 400, pointer: '/parallelism/gpus', rule: 'range' },
        // -- sizes that overflow 64 bits
        { name: 'layers x hidden x experts past 2^64 parameters', method: 'POST', path: E,
          body: JSON.stringify({ model: { architecture: { kind: 'decoder', layers: 1024, hidden_size: 131072, heads: 1024, ffn_size: 1048576, vocab_size: 16777216, experts: 1024, active_experts: 1024 } }, workload: { mode: 'pre_train' } }),
          status: 400, pointer: null, rule: 'overflow' },
        { name: 'the largest model and batch x sequence past 64 EiB', method: 'POST', path: E,
          body: JSON.stringify({ model: { parameters: 10000000000000 }, workload: { mode: 'pre_train', batch_size: 1048576, sequence_length: 16777216 } }),
          status: 400, pointer: null, rule: 'overflow' },
        // -- unknown fields and wrong shapes
        { name: 'an unknown top-level field', method: 'POST', path: E, body: okRequest({ bogus: 1 }), status: 400, pointer: '/bogus', rule: 'unknown_field' },
        { name: 'a misspelt workload field', method: 'POST', path: E, body: okRequest({}, { batchsize: 16 }), status: 400, pointer: '/workload/batchsize', rule: 'unknown_field' },
        { name: 'an unknown memory saver', method: 'POST', path: E, body: okRequest({ memory_savers: { flash: true } }), status: 400, pointer: '/memory_savers/flash', rule: 'unknown_field' },
        { name: 'an unknown parallelism field', method: 'POST', path: E, body: okRequest({ parallelism: { gpu: 8 } }), status: 400, pointer: '/parallelism/gpu', rule: 'unknown_field' },
        { name: 'a key with a NUL-free control character', method: 'POST', path: E, body: okRequest({ 'pre\u0001cision': 'fp32' }), status: 400, pointer: '/pre\u0001cision', rule: 'unknown_field' },
        { name: 'model as a string', method: 'POST', path: E, body: '{"model":"xlm-roberta-large","workload":{"mode":"inference"}}', status: 400, pointer: '/model', rule: 'type' },
        { name: 'two model forms at once', method: 'POST', path: E, body: '{"model":{"id":"xlm-roberta-large","parameters":1000000000},"workload":{"mode":"inference"}}', status: 400, pointer: '/model', rule: 'one_of' },
        { name: 'precision in capitals (read as fp32, the way users paste it)', method: 'POST', path: E, body: okRequest({ precision: 'FP32' }), status: 200 },
        { name: 'a precision that does not exist', method: 'POST', path: E, body: okRequest({ precision: 'fp33' }), status: 400, pointer: '/precision', rule: 'enum' },
        { name: 'a framework alias of the wrong type', method: 'POST', path: E, body: okRequest({ gradient_checkpointing: 'yes' }), status: 400, pointer: '/memory_savers/activation_checkpointing', rule: 'enum' },
        { name: 'an alias beside the name it stands for', method: 'POST', path: E, body: okRequest({ optim: 'adamw_torch', optimizer: 'sgd' }), status: 400, pointer: '/optim', rule: 'contradiction' },
        { name: 'optimizer with a trailing space', method: 'POST', path: E, body: okRequest({ optimizer: 'adamw ' }), status: 400, pointer: '/optimizer', rule: 'enum' },
        { name: 'a strategy that does not exist', method: 'POST', path: E, body: okRequest({ parallelism: { strategy: 'zero4' } }), status: 400, pointer: '/parallelism/strategy', rule: 'enum' },
        { name: 'a compare constraint out of range', method: 'POST', path: '/api/v1/compare', body: okRequest({ constraints: { max_gpus: 0 } }), status: 400, pointer: '/constraints/max_gpus', rule: 'range' },
        // -- the serving planner at its edges: answered, never a crash
        ...(() => {
                const S = '/api/v1/serving_plan';
                const q = (traffic, slo, extra = {}) => JSON.stringify({ model: { id: 'llama-3.2-1b' }, traffic, slo, ...extra });
                const t = { requests_per_second: 1, prompt_tokens: 100, output_tokens: 10 };
                return [
                        { name: 'serving: a million requests/s on 8 GPUs (no plan)', method: 'POST', path: S, body: q({ ...t, requests_per_second: 1e6 }, { tpot_ms: 50 }, { constraints: { max_gpus: 8 } }), status: 200 },
                        { name: 'serving: a 16M-token context', method: 'POST', path: S, body: q({ ...t, prompt_tokens: 16777000, output_tokens: 100 }, { ttft_p95_ms: 1 }), status: 200 },
                        { name: 'serving: a 1 microsecond target', method: 'POST', path: S, body: q(t, { tpot_ms: 0.001 }), status: 200 },
                        { name: 'serving: rate as a string', method: 'POST', path: S, body: q({ ...t, requests_per_second: '5' }, { tpot_ms: 50 }), status: 400, pointer: '/traffic/requests_per_second', rule: 'type' },
                        { name: 'serving: NaN-like huge target', method: 'POST', path: S, body: q(t, { tpot_ms: 1e308 }), status: 400, pointer: '/slo/tpot_ms', rule: 'range' },
                        { name: 'serving: 9 weight options', method: 'POST', path: S, body: q(t, { tpot_ms: 50 }, { quantization: ['none', 'fp8', 'int8'], kv_cache_precision: ['auto', 'fp8', 'int8'] }), status: 400, pointer: '/quantization', rule: 'range' },
                        { name: 'serving: an empty option list', method: 'POST', path: S, body: q(t, { tpot_ms: 50 }, { quantization: [] }), status: 400, pointer: '/quantization', rule: 'type' },
                        { name: 'serving: 33 GPU ids', method: 'POST', path: S, body: q(t, { tpot_ms: 50 }, { constraints: { gpus: Array(33).fill('t4') } }), status: 400, pointer: '/constraints/gpus', rule: 'type' },
                ];
        })(),
        // -- wrong Content-Type: 415
        { name: 'Content-Type application/xml', method: 'POST', path: E, body: okRequest(), headers: { 'Content-Type': 'application/xml' }, status: 415 },
        { name: 'Content-Type multipart/form-data', method: 'POST', path: E, body: okRequest(), headers: { 'Content-Type': 'multipart/form-data; boundary=x' }, status: 415 },
        { name: 'Content-Type image/png', method: 'POST', path: E, body: okRequest(), headers: { 'Content-Type': 'image/png' }, status: 415 },
        { name: 'Content-Type application/jsonx', method: 'POST', path: E, body: okRequest(), headers: { 'Content-Type': 'application/jsonx' }, status: 415 },
        // -- bodies over the limit (1 MiB by default)
        { name: 'a 2 MiB body announced by Content-Length', raw: http('POST', E, { headers: { ...json, 'Content-Length': String(2 * 1024 * 1024) } }), status: 413 },
        { name: 'a 2 MiB chunked body', raw: Buffer.concat([
                Buffer.from(`POST ${E} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`),
                ...Array.from({ length: 32 }, () => Buffer.from(`10000\r\n${' '.repeat(65536)}\r\n`)),
                Buffer.from('0\r\n\r\n')]), status: 413 },
        { name: 'a Content-Length beyond 64 bits', raw: http('POST', E, { headers: { ...json, 'Content-Length': '99999999999999999999999' } }), status: [400, 413], html: 'maybe' },
        { name: 'a non-numeric Content-Length', raw: http('POST', E, { headers: { ...json, 'Content-Length': 'abc' } }), status: 400, html: true },
        { name: 'a negative Content-Length', raw: http('POST', E, { headers: { ...json, 'Content-Length': '-1' } }), status: 400, html: true },
        { name: 'Content-Length and chunked together (smuggling)', raw: http('POST', E, { headers: { ...json, 'Content-Length': '5', 'Transfer-Encoding': 'chunked' }, body: '0\r\n\r\n' }), status: 400, html: 'maybe' },
        // -- oversized URLs and headers
        { name: 'a 3 000-byte URL', raw: http('GET', '/' + 'a'.repeat(3000)), status: 414 },
        { name: 'a 70 000-byte URL', raw: http('GET', '/api/v1/gpus?vendor=' + 'a'.repeat(70000)), status: 414, html: true },
        { name: 'a 70 000-byte header', raw: http('GET', '/healthz', { headers: { 'X-Big': 'a'.repeat(70000) } }), status: 431, html: true },
        { name: '200 headers of 400 bytes', raw: http('GET', '/healthz', { headers: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`X-H${i}`, 'v'.repeat(400)])) }), status: 431, html: true },
        { name: 'a header line without a colon', raw: Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\nConnection: close\r\n\r\n'), status: 400, html: true },
        { name: 'an unknown HTTP version', raw: Buffer.from('GET /healthz HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n'), status: 505, html: true },
        // -- path traversal in every encoding: never a file outside static/
        ...[
                '/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
                '/..%2f..%2f..%2fetc%2fpasswd', '/%252e%252e/%252e%252e/etc/passwd', '/..%5c..%5c..%5cetc%5cpasswd',
                '/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd', '/.%2e/.%2e/.%2e/etc/passwd', '/js/../../../etc/passwd',
                '/css/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '//etc/passwd', '/%2fetc%2fpasswd', '/..;/..;/etc/passwd',
                '/.git/config', '/./.git/HEAD', '/../README.md', '/vendor/%2e%2e/%2e%2e/package.json',
                '/..', '/index.html/..%2f..%2f..%2fetc%2fpasswd',
        ].map((p) => ({ name: `traversal ${p}`, raw: http('GET', p), status: 404, notFile: true })),
        { name: 'traversal through an API parameter', raw: http('GET', '/api/v1/gpus/..%2f..%2f..%2fhealthz'), status: 404, notFile: true },
        // -- NUL bytes
        { name: 'an encoded NUL in the path', raw: http('GET', '/index.html%00.js'), status: 400 },
        { name: 'an encoded NUL between dots', raw: http('GET', '/.%00./.%00./etc/passwd'), status: 400 },
        { name: 'an encoded NUL in an API parameter', raw: http('GET', '/api/v1/gpus/a100%00'), status: 400 },
        { name: 'a bad %-escape', raw: http('GET', '/%zz'), status: 400 },
        // -- SQL metacharacters in every query parameter
        ...[
                ['/api/v1/gpus?vendor=%27%20OR%201%3D1--', 200, null],
                ['/api/v1/gpus?kind=%27%3B%20DROP%20TABLE%20accelerators%3B--', 400, '?kind'],
                ['/api/v1/gpus?min_memory=1%3BDROP%20TABLE%20accelerators', 400, '?min_memory'],
                ['/api/v1/gpus?can_train=%27%20OR%20%27%27%3D%27', 400, '?can_train'],
                ['/api/v1/gpus?sort=name%3BDROP%20TABLE%20accelerators', 400, '?sort'],
                ['/api/v1/prices?gpu=%27%20OR%20%27%27%3D%27', 400, '?gpu'],
                ['/api/v1/prices?provider=%27%3B%20DELETE%20FROM%20prices%3B--', 400, '?provider'],
                ['/api/v1/prices?offering=%22%29%3B--', 400, '?offering'],
                ['/api/v1/prices?pricing=%27%3B--', 400, '?pricing'],
                ['/api/v1/prices?as_of=2024-01-01%27%3B--', 400, '?as_of'],
                ['/api/v1/prices?history=%27%3B--', 400, '?history'],
                ['/api/v1/purchase_prices?gpu=%27%20OR%201%3D1--', 400, '?gpu'],
                ['/api/v1/purchase_prices?condition=%27%20OR%201%3D1--', 400, '?condition'],
                ['/api/v1/providers?gpu=%27--', 400, '?gpu'],
                ['/api/v1/providers?kind=%27%20UNION%20SELECT%20*%20FROM%20audit_log--', 400, '?kind'],
                ['/api/v1/gpus/%27%20OR%201%3D1--', 404, null],
                ['/api/v1/providers/%27%3B%20DROP%20TABLE%20providers%3B--', 404, null],
                ['/api/v1/models/%27%20OR%201%3D1--', 404, null],
        ].map(([path, status, pointer]) => ({ name: `SQL metacharacters: ${decodeURIComponent(path)}`, method: 'GET', path, status: status ?? [200, 400], pointer: pointer && status === 400 ? pointer : null, emptyList: status === 200 })),
        // -- admin writes
        { name: 'PUT a GPU without a token', method: 'PUT', path: '/api/v1/gpus/rtx-3090', body: '{}', status: 401, authenticate: true },
        { name: 'PUT a GPU with a wrong token', method: 'PUT', path: '/api/v1/gpus/rtx-3090', body: '{}', headers: { Authorization: WRONG }, status: 403 },
        { name: 'PUT a GPU with Basic credentials', method: 'PUT', path: '/api/v1/gpus/rtx-3090', body: '{}', headers: { Authorization: 'Basic YWRtaW46YWRtaW4=' }, status: 401, authenticate: true },
        { name: 'PUT a GPU with an empty bearer', method: 'PUT', path: '/api/v1/gpus/rtx-3090', body: '{}', headers: { Authorization: 'Bearer ' }, status: 401, authenticate: true },
        { name: 'POST a price without a token', method: 'POST', path: '/api/v1/prices', body: '{}', status: 401, authenticate: true },
        { name: 'POST a price with a wrong token', method: 'POST', path: '/api/v1/prices', body: '{}', headers: { Authorization: WRONG }, status: 403 },
        { name: 'POST a purchase price with a wrong token', method: 'POST', path: '/api/v1/purchase_prices', body: '{}', headers: { Authorization: WRONG }, status: 403 },
        { name: 'PUT a provider without a token', method: 'PUT', path: '/api/v1/providers/lambda', body: '{}', status: 401, authenticate: true },
        { name: 'PUT an offering with a wrong token', method: 'PUT', path: '/api/v1/offerings/x', body: '{}', headers: { Authorization: WRONG }, status: 403 },
        { name: 'PUT a setting with a wrong token', method: 'PUT', path: '/api/v1/settings/electricity_usd_per_kwh', body: '{"value":0}', headers: { Authorization: WRONG }, status: 403 },
        // -- methods
        { name: 'DELETE on the GPU list', method: 'DELETE', path: '/api/v1/gpus', status: 405, allow: true },
        { name: 'GET on the estimate endpoint', method: 'GET', path: E, status: 405, allow: true },
        { name: 'TRACE on a static path', raw: http('TRACE', '/'), status: 405 },
];

const NOT_A_FILE = /root:x:0:0|\[core\]|"name":\s*"gpuplan"|ref: refs\//;

let gpusBefore;
let countsBefore;
const COUNT_SQL = "SELECT (SELECT count(*) FROM accelerators) || ',' || (SELECT count(*) FROM prices) || ',' || " +
                  "(SELECT count(*) FROM providers) || ',' || (SELECT count(*) FROM settings)";

before(async () => {
        gpusBefore = await get('/api/v1/gpus');
        assert.equal(gpusBefore.status, 200);
        countsBefore = psql(COUNT_SQL)[0];
});

test(`the table holds at least 60 hostile requests (${cases.length})`, () => {
        assert.ok(cases.length >= 60);
});

for (const c of cases) {
        test(`hostile: ${c.name} -> ${Array.isArray(c.status) ? c.status.join('/') : c.status}`, async () => {
                let status, contentType, body, headers;
                if (c.raw) {
                        const r = await raw(c.raw);
                        ({ status, body, headers } = r);
                        contentType = headers['content-type'] ?? '';
                } else {
                        const r = await request(c.method, c.path, {
                                body: c.body, headers: c.headers, validate: false,
                        });
                        status = r.status;
                        contentType = r.contentType;
                        body = r.text;
                        headers = Object.fromEntries(r.headers.entries());
                }
                const want = Array.isArray(c.status) ? c.status : [c.status];
                assert.ok(want.includes(status), `expected ${want.join(' or ')}, got ${status}: ${String(body).slice(0, 300)}`);
                if (c.notFile)
                        assert.doesNotMatch(body, NOT_A_FILE, 'a file from outside static/ was served');
                // libmicrohttpd's own replies carry no Content-Type (an HTML body).
                const fromLibrary = !contentType || /^text\/html/.test(contentType);
                if (c.html === true || (c.html === 'maybe' && fromLibrary)) {
                        // libmicrohttpd answered before the request reached gpuplan (documented as such).
                        assert.ok(status >= 400);
                        return;
                }
                if (status >= 400) {
                        assert.match(contentType, /^application\/problem\+json/, `not a problem document: ${contentType}`);
                        const doc = JSON.parse(body);
                        assert.equal(doc.status, status);
                        assert.equal(typeof doc.title, 'string');
                        assert.equal(typeof doc.detail, 'string');
                        if (c.pointer !== undefined && c.pointer !== null) {
                                assert.equal(doc.pointer, c.pointer, `pointer in ${body.slice(0, 300)}`);
                                assert.ok(Array.isArray(doc.errors) && doc.errors.length > 0, 'errors[] missing');
                                assert.equal(doc.errors[0].pointer, c.pointer);
                        }
                        if (c.rule)
                                assert.equal(doc.rule, c.rule, `rule in ${body.slice(0, 300)}`);
                        if (c.authenticate)
                                assert.match(headers['www-authenticate'] ?? '', /^Bearer/);
                        if (c.allow)
                                assert.ok(headers.allow, 'no Allow header on a 405');
                } else if (c.emptyList) {
                        const doc = JSON.parse(body);
                        const list = Object.values(doc).find(Array.isArray);
                        assert.ok(Array.isArray(list), 'no list in the answer');
                        assert.equal(list.length, 0, 'SQL metacharacters matched rows');
                }
                // The reply is one the API description admits.
                if (!c.raw && !c.html)
                        validateResponse(c.method, c.path, status, body, contentType);
        });
}

test('a 100 MB body is refused with 413 from its Content-Length, without being read', async () => {
        const u = new URL(baseUrl());
        const total = 100 * 1024 * 1024;
        const result = await new Promise((resolve) => {
                const sock = net.connect(Number(u.port), u.hostname);
                let data = Buffer.alloc(0);
                let written = 0;
                let finished = false;
                const end = (why) => {
                        if (finished)
                                return;
                        finished = true;
                        sock.destroy();
                        resolve({ ...parse(data), written, why });
                };
                sock.on('connect', () => {
                        sock.write(`POST ${E} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
                                   `Content-Length: ${total}\r\n\r\n`);
                        // Give the server a moment to answer from the headers alone,
                        // then try to push the whole body.
                        setTimeout(() => {
                                const chunk = Buffer.alloc(1024 * 1024, 0x20);
                                const pump = () => {
                                        while (!finished && written < total) {
                                                written += chunk.length;
                                                if (!sock.write(chunk))
                                                        return sock.once('drain', pump);
                                        }
                                        if (written >= total)
                                                setTimeout(() => end('all sent'), 2000);
                                };
                                pump();
                        }, 300);
                });
                sock.on('data', (d) => {
                        data = Buffer.concat([data, d]);
                });
                sock.on('error', () => end('error'));
                sock.on('close', () => end('closed'));
                setTimeout(() => end('timeout'), 20000);
        });
        assert.equal(result.status, 413, `got ${result.status} (${result.why}) after ${result.written} bytes`);
        assert.match(result.headers['content-type'] ?? '', /^application\/problem\+json/);
        assert.equal(JSON.parse(result.body.slice(0, Number(result.headers['content-length']))).status, 413);
        assert.notEqual(result.why, 'all sent', 'the server read all 100 MB');
        assert.ok(result.written < total, `the server accepted all ${result.written} bytes`);
});

test('slowloris: one byte every 3 s is dropped at the 2 s idle timeout, and other clients are served meanwhile', async () => {
        const srv = await startServer({ env: { GPUPLAN_IDLE_TIMEOUT_S: '2' } });
        try {
                const u = new URL(srv.url);
                const SLOW = 40;
                const request = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'s'.repeat(40)}\r\n\r\n`);
                const slow = Array.from({ length: SLOW }, () => new Promise((resolve) => {
                        const sock = net.connect(Number(u.port), u.hostname);
                        let sent = 0;
                        let answered = false;
                        let timer = null;
                        const drip = () => {
                                if (sock.destroyed)
                                        return;
                                sock.write(request.subarray(sent, sent + 1));
                                sent++;
                                if (sent < request.length)
                                        timer = setTimeout(drip, 3000);
                        };
                        sock.on('connect', drip);
                        sock.on('data', () => {
                                answered = true;
                        });
                        const done = () => {
                                clearTimeout(timer);
                                resolve({ sent, answered });
                        };
                        sock.on('close', done);
                        sock.on('error', done);
                }));
                // While the slow clients hang on, normal clients get normal answers.
                let served = 0;
                for (let i = 0; i < 20; i++) {
                        const r = await fetch(srv.url + '/healthz');
                        assert.equal(r.status, 200);
                        await r.text();
                        served++;
                }
                const results = await Promise.all(slow);
                assert.equal(served, 20);
                for (const r of results) {
                        assert.equal(r.answered, false, 'a slowloris request was answered');
                        assert.ok(r.sent < request.length, `a slow client got to send all ${request.length} bytes`);
                }
                // Still healthy afterwards.  A fresh connection: the fetch
                // pool's kept-alive one has sat idle past the 2 s timeout
                // the server was started with, and reusing it races the close.
                const ready = await rawRequest('GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { url: srv.url });
                assert.equal(ready.status, 200);
        } finally {
                const exit = await srv.stop();
                assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}`);
                assert.doesNotMatch(srv.stderr, /AddressSanitizer|LeakSanitizer|runtime error/, srv.stderr.slice(0, 2000));
        }
});

test('a body that stops short of its Content-Length is dropped at the idle timeout', async () => {
        const srv = await startServer({ env: { GPUPLAN_IDLE_TIMEOUT_S: '2' } });
        try {
                const r = await raw(http('POST', E, { headers: { ...json, 'Content-Length': '100' }, body: '{"model":' }),
                                    { url: srv.url, timeoutMs: 15000 });
                assert.equal(r.closed, true);
                assert.equal(r.status, 0, 'the server answered a request whose body never arrived');
                // A fresh connection: fetch's pool may hold a keep-alive socket from
                // the readiness poll, which the 2 s idle timeout has since closed.
                const h = await raw(http('GET', '/healthz'), { url: srv.url });
                assert.equal(h.status, 200);
        } finally {
                const exit = await srv.stop();
                assert.equal(exit.code, 0);
                assert.doesNotMatch(srv.stderr, /AddressSanitizer|LeakSanitizer|runtime error/, srv.stderr.slice(0, 2000));
        }
});

test('a raw NUL in the request line does not reach past the path before it', async () => {
        // libmicrohttpd 0.9.75 ends the request target at the NUL, so the
        // request is either refused or answered as the path before it; what
        // follows the NUL must never be resolved.
        const r = await raw(Buffer.from('GET /index.html\0/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'latin1'));
        assert.ok([200, 400, 404].includes(r.status) || r.closed, `status ${r.status}`);
        assert.doesNotMatch(r.body, NOT_A_FILE);
});

test('admin token timing: wrong tokens that differ early or late take the same time', async () => {
        // Over HTTP only a gross leak can show (an early exit that skips
        // real work, a per-character delay); the comparison itself is
        // constant-time by construction.  Medians of interleaved samples.
        const token = adminToken();
        const early = (token[0] === 'x' ? 'y' : 'x') + token.slice(1);
        const late = token.slice(0, -1) + (token.at(-1) === 'x' ? 'y' : 'x');
        const samples = { early: [], late: [] };
        const once = async (t) => {
                const t0 = process.hrtime.bigint();
                const r = await request('POST', '/api/v1/prices', { body: '{}', headers: { Authorization: `Bearer ${t}` }, validate: false });
                const dt = Number(process.hrtime.bigint() - t0) / 1e6;
                assert.equal(r.status, 403);
                return dt;
        };
        for (let i = 0; i < 10; i++)
                await once(early);      // warm the connection
        for (let i = 0; i < 300; i++) {
                samples.early.push(await once(early));
                samples.late.push(await once(late));
        }
        const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
        const me = median(samples.early);
        const ml = median(samples.late);
        console.log(`token timing: median ${me.toFixed(3)} ms (first byte wrong) vs ${ml.toFixed(3)} ms (last byte wrong)`);
        assert.ok(Math.abs(me - ml) < Math.max(0.5, 0.25 * Math.min(me, ml)),
                  `medians differ: ${me.toFixed(3)} ms vs ${ml.toFixed(3)} ms`);
});

test('after all that: the server is alive, answers normally and the catalog is unchanged', async () => {
        assert.equal((await get('/healthz')).status, 200);
        assert.equal((await get('/readyz')).status, 200);
        const gpus = await get('/api/v1/gpus');
        assert.equal(gpus.status, 200);
        assert.deepEqual(gpus.json.gpus, gpusBefore.json.gpus, 'the GPU catalog changed');
        assert.equal(psql(COUNT_SQL)[0], countsBefore, 'row counts changed');
        const est = await request('POST', E, { body: okRequest({ gpu: gpus.json.gpus[0].id }) });
        assert.equal(est.status, 200, est.text.slice(0, 300));
        assert.ok(est.json.per_gpu.total_bytes > 0);
        const page = await get('/');
        assert.equal(page.status, 200);
});

test('serving_plan warns, as estimate does, when a prompt exceeds the model\'s context', async () => {
        // Llama 3.1 8B has 131,072 positions (rotary): a 200,000-token prompt
        // is warned about with estimate's code and sentence, not refused.
        const body = {
                model: { id: 'llama-3.1-8b' },
                traffic: { requests_per_second: 0.01, prompt_tokens: 200000, output_tokens: 100 },
                slo: { tpot_ms: 1000 },
        };
        const est = await request('POST', E, { body: { model: { id: 'llama-3.1-8b' }, workload: { mode: 'inference', prompt_tokens: 200000, generated_tokens: 100 } } });
        assert.equal(est.status, 200, est.text.slice(0, 300));
        const estWarn = est.json.warnings.find((w) => w.code === 'sequence_beyond_max_positions');
        assert.ok(estWarn, JSON.stringify(est.json.warnings));
        const r = await request('POST', '/api/v1/serving_plan', { body });
        assert.equal(r.status, 200, r.text.slice(0, 300));
        const w = r.json.warnings.find((x) => x.code === 'sequence_beyond_max_positions');
        assert.ok(w, JSON.stringify(r.json.warnings));
        assert.equal(w.text, "sequence_length 200100 exceeds the model's max positions 131072");
        assert.equal(w.text, estWarn.text);
});

// Configs that transformers' own config classes refuse, refused here too,
// each naming the key as the config wrote it (configuration_utils.py's
// layer_type_validation; LlamaConfig reads only a missing
// num_key_value_heads as num_attention_heads).
test('config.json values transformers refuses: a 400 naming the key as written', async () => {
        const llama = {
                model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, num_hidden_layers: 32,
                num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 128256,
                max_position_embeddings: 8192,
        };
        const gemma = {
                model_type: 'gemma3_text', hidden_size: 1152, intermediate_size: 6912, num_hidden_layers: 4,
                num_attention_heads: 4, num_key_value_heads: 1, head_dim: 256, vocab_size: 262144,
                sliding_window: 512,
        };
        const cases = [
                [{ ...llama, num_key_value_heads: 0 }, '/model/hf_config/num_key_value_heads', /positive integer/],
                [{ ...gemma, layer_types: ['sliding_attention', 'full_attention'] },
                        '/model/hf_config/layer_types', /2 entries for 4 layers/],
                [{ ...gemma, layer_types: ['sliding_attention', 'sliding_attention', 'local', 'full_attention'] },
                        '/model/hf_config/layer_types', /entry 2 is not one of/],
                [{ ...gemma, layer_types: 'sliding_attention' }, '/model/hf_config/layer_types', /list/],
                // the checks after import name the user's key, not the engine's field
                [{ ...llama, num_hidden_layers: 0 }, '/model/hf_config/num_hidden_layers', /./],
                [{ ...llama, intermediate_size: 0 }, '/model/hf_config/intermediate_size', /./],
                [{ ...llama, max_position_embeddings: 0 }, '/model/hf_config/max_position_embeddings', /./],
                [{ ...llama, model_type: 'mixtral', num_local_experts: 8, num_experts_per_tok: 0 }, '/model/hf_config/num_experts_per_tok', /./],
                [{ model_type: 'gpt2', n_embd: 768, n_layer: 0, n_head: 12 }, '/model/hf_config/n_layer', /./],
                // a vision-language wrapper: the key under text_config or vision_config
                [{ model_type: 'mllama', text_config: { ...llama, model_type: 'mllama_text_model', num_key_value_heads: 0 },
                        vision_config: {} }, '/model/hf_config/text_config/num_key_value_heads', /positive integer/],
                [{ ...llama, model_type: 'qwen2_5_vl', vision_config: { depth: -1 } },
                        '/model/hf_config/vision_config/depth', /integer in 1\.\./],
        ];
        for (const [cfg, pointer, detail] of cases) {
                const r = await request('POST', E, { body: { model: { hf_config: cfg },
                        workload: { mode: 'inference', batch_size: 1, sequence_length: 128 } } });
                assert.equal(r.status, 400, `${pointer}: ${r.text.slice(0, 300)}`);
                assert.equal(r.json.pointer, pointer, r.json.detail);
                assert.match(r.json.detail, detail);
        }
});

// ---- rent_vs_buy: the same rules as compare and serving_plan ----------------

test('rent_vs_buy: an unknown provider is a 400 naming it, as compare and serving_plan answer', async () => {
        const body = { gpu: 'a100-sxm-80gb', jobs_per_week: 2, hours_per_job: 4, providers: ['lambda', 'no-such-cloud'] };
        const rvb = await request('POST', '/api/v1/rent_vs_buy', { body: JSON.stringify(body) });
        assertProblem(rvb, 400, '/providers/1');
        assert.match(rvb.json.detail, /not a provider id/);
        // Its neighbours: the same id refused by compare, and a known list still answered.
        const cmp = await request('POST', '/api/v1/compare', {
                body: JSON.stringify({ model: { id: 'llama-2-7b' }, workload: { mode: 'inference', batch_size: 1, prompt_tokens: 64, generated_tokens: 8 },
                                       constraints: { providers: ['no-such-cloud'] } }),
        });
        assertProblem(cmp, 400, '/constraints/providers/0');
        const ok = await request('POST', '/api/v1/rent_vs_buy', { body: JSON.stringify({ ...body, providers: ['lambda'] }) });
        assert.equal(ok.status, 200, ok.text.slice(0, 300));
});

test('rent_vs_buy: absurd but valid usage is a 400 that names the range', async () => {
        const base = { gpu: 'a100-sxm-80gb', jobs_per_week: 2, hours_per_job: 4 };
        for (const [key, value] of [['jobs_per_week', 1e-300], ['jobs_per_week', [1e-300, 1]], ['hours_per_job', 1e-300],
                                    ['jobs_per_week', 1e300], ['hours_per_job', 0]]) {
                const res = await request('POST', '/api/v1/rent_vs_buy', { body: JSON.stringify({ ...base, [key]: value }) });
                assertProblem(res, 400, `/${key}`);
                assert.equal(res.json.rule, 'range', res.text);
                assert.match(res.json.detail, /from 0\.01 to \d+/, res.text);
        }
        // The smallest usage allowed still answers.
        const low = await request('POST', '/api/v1/rent_vs_buy', { body: JSON.stringify({ ...base, jobs_per_week: 0.01, hours_per_job: 0.01 }) });
        assert.equal(low.status, 200, low.text.slice(0, 300));
});

// ---- one reader for every JSON body ------------------------------------------

test('every endpoint answers the same malformed body with the same rule and wording', async () => {
        const endpoints = ['/api/v1/estimate', '/api/v1/compare', '/api/v1/serving_plan', '/api/v1/rent_vs_buy'];
        // Each mistake, and what every endpoint must say of it.  The column
        // is counted by hand: '{"a": ' is six characters, the bad byte the seventh.
        const mistakes = [
                { body: '{"a": }', rule: 'json', detail: /^invalid JSON at line 1 column 7: / },
                { body: '{"a": 1, "a": 2}', rule: 'json', detail: /duplicate object key/ },
                { body: '[1, 2]', rule: 'type', detail: /must be a JSON object/ },
                { body: '42', rule: 'type', detail: /must be a JSON object/ },
        ];
        for (const m of mistakes) {
                for (const path of endpoints) {
                        const res = await request('POST', path, { body: m.body });
                        assertProblem(res, 400, '');
                        assert.equal(res.json.rule, m.rule, `${path} ${m.body}: ${res.text}`);
                        assert.match(res.json.detail, m.detail, `${path} ${m.body}`);
                }
        }
});

// ---- list filters: an unknown id is a 400, as in a body ------------------

test('a list filter naming no catalog id, or a value outside its set, is a 400 naming the argument', async () => {
        for (const [path, pointer] of [['/api/v1/prices?gpu=h100-typo', '?gpu'], ['/api/v1/prices?provider=no-such-cloud', '?provider'],
                                       ['/api/v1/prices?offering=no-such-offering&history=all', '?offering'],
                                       ['/api/v1/purchase_prices?gpu=h100-typo', '?gpu'], ['/api/v1/providers?gpu=h100-typo', '?gpu']]) {
                const res = await get(path);
                assertProblem(res, 400, pointer);
                assert.equal(res.json.rule, 'exists', path);
                assert.match(res.json.detail, /GET \/api\/v1\/(gpus|providers)/, path);
        }
        // Filters over a closed set of values: the values the schema allows are
        // listed, where an unknown one used to read as an empty list.
        for (const [path, pointer, valid] of [['/api/v1/gpus?kind=gpus', '?kind', /gpu, tpu, npu/],
                                              ['/api/v1/providers?kind=cloud', '?kind', /hyperscaler, gpu_cloud, marketplace, notebook/],
                                              ['/api/v1/purchase_prices?condition=refurbished', '?condition', /new or used/]]) {
                const res = await get(path);
                assertProblem(res, 400, pointer);
                assert.equal(res.json.rule, 'enum', path);
                assert.match(res.json.detail, valid, path);
        }
        for (const path of ['/api/v1/gpus?kind=tpu', '/api/v1/providers?kind=marketplace', '/api/v1/purchase_prices?condition=used'])
                assert.equal((await get(path)).status, 200, path);
        // The same id in a body: estimate refuses it by the same rule.
        const est = await request('POST', E, { body: okRequest({ gpu: 'h100-typo' }) });
        assertProblem(est, 400, '/gpu');
        assert.equal(est.json.rule, 'exists');
        // Neighbours: known ids still filter, and a known GPU with no price is an empty list, not a 400.
        const known = await get('/api/v1/prices?gpu=a100-sxm-80gb&provider=lambda');
        assert.equal(known.status, 200, known.text.slice(0, 300));
        assert.ok(known.json.prices.length > 0);
        assert.ok(known.json.prices.every((p) => p.gpu === 'a100-sxm-80gb' && p.provider === 'lambda'));
        // A known GPU and a known provider that no price pairs: an empty list.
        const gpus = (await get('/api/v1/gpus')).json.gpus.map((g) => g.id);
        const providers = (await get('/api/v1/providers')).json.providers.map((p) => p.id);
        const prices = (await get('/api/v1/prices')).json.prices;
        const pair = gpus.flatMap((g) => providers.map((p) => [g, p]))
                .find(([g, p]) => !prices.some((row) => row.gpu === g && row.provider === p));
        assert.ok(pair, 'every GPU priced by every provider: no empty filter to try');
        const none = await get(`/api/v1/prices?gpu=${pair[0]}&provider=${pair[1]}`);
        assert.equal(none.status, 200, none.text.slice(0, 300));
        assert.deepEqual(none.json.prices, []);
});
