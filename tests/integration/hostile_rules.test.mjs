// hostile_rules.test.mjs - the same mistake gets the same answer on every
// endpoint: text that is not UTF-8 or holds a NUL (the query string, a path
// parameter), lengths counted in characters, ids the catalog does not hold,
// and numbers outside the range a search can answer sensibly.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { get, post, request, assertProblem, adminToken } from './lib.mjs';

const W = { mode: 'pre_train', batch_size: 16, sequence_length: 128 };
const X = { id: 'xlm-roberta-large' };

// ------------------------------------------------------------ text

const badQueries = [
        ['/api/v1/models?q=xlm%00roberta', '?q'],     // cut at the NUL before
        ['/api/v1/models?q=%00', '?q'],
        ['/api/v1/models?q=%FF', '?q'],              // not UTF-8
        ['/api/v1/models?q=%C3', '?q'],              // a character cut short
        ['/api/v1/models?q=%ED%A0%80', '?q'],        // a UTF-16 surrogate
        ['/api/v1/models?q=%C0%AF', '?q'],           // an overlong '/'
        ['/api/v1/gpus?vendor=NVIDIA%00x', '?vendor'],
        ['/api/v1/prices?gpu=h100%FF', '?gpu'],
        ['/api/v1/providers?kind=%00', '?kind'],
        ['/api/v1/models?family=llama&kind=%FE', '?kind'],
];

for (const [path, pointer] of badQueries) {
        test(`text rule: ${path} -> 400 ${pointer} encoding`, async () => {
                const r = await get(path, { validate: false });
                assertProblem(r, 400, pointer);
                assert.equal(r.json.rule, 'encoding');
        });
}

test('text rule: a path parameter that is not UTF-8 is a 400 like an encoded NUL', async () => {
        for (const path of ['/api/v1/gpus/a%FF', '/api/v1/gpus/a%00', '/api/v1/providers/%C3'])
                assertProblem(await get(path, { validate: false }), 400);
});

test('text rule: well-formed text is searched as it is', async () => {
        const r = await get('/api/v1/models?q=' + encodeURIComponent('RoBERTa'));
        assert.equal(r.status, 200);
        assert.ok(r.json.count > 0);
        const accent = await get('/api/v1/models?q=' + encodeURIComponent('é'));
        assert.equal(accent.status, 200);
        assert.equal(accent.json.count, 0);
});

test('length rule: ?q is limited to 128 characters, not bytes', async () => {
        for (const [text, status] of [['é'.repeat(100), 200], ['é'.repeat(128), 200], ['é'.repeat(129), 400],
                                      ['a'.repeat(128), 200], ['a'.repeat(129), 400], ['😀'.repeat(128), 200]]) {
                const r = await get('/api/v1/models?q=' + encodeURIComponent(text), { validate: status === 200 });
                assert.equal(r.status, status, `${text.length} x ${text[0]}: ${r.text.slice(0, 200)}`);
                if (status === 400) {
                        assert.equal(r.json.rule, 'maxLength');
                        assert.match(r.json.detail, /128 characters/);
                }
        }
});

test('length rule: a GPU name of 95 characters passes whatever their bytes, 96 do not', async () => {
        // kind "fpga" is refused after the name, so nothing is written.
        const h = { headers: { Authorization: `Bearer ${adminToken()}` }, validate: false };
        const body = (name) => ({ name, vendor: 'é'.repeat(31), kind: 'fpga', form_factor: 'card', memory_bytes: 1e9,
                                  source: 'https://example.org', source_date: '2026-01-01' });
        for (const name of ['é'.repeat(95), '€'.repeat(95), '😀'.repeat(95)])
                assertProblem(await request('PUT', '/api/v1/gpus/test-rules-1', { body: body(name), ...h }), 400, '/kind');
        const long = await request('PUT', '/api/v1/gpus/test-rules-1', { body: body('é'.repeat(96)), ...h });
        assertProblem(long, 400, '/name');
        assert.equal(long.json.rule, 'maxLength');
        assert.match(long.json.detail, /at most 95 characters/);
        assertProblem(await request('PUT', '/api/v1/gpus/test-rules-1', { body: { ...body('x'), vendor: 'é'.repeat(32) }, ...h }), 400, '/vendor');
});

// ------------------------------------------------------------ unknown ids

const unknownIds = [
        ['/api/v1/estimate', { model: X, workload: W, gpu: 'no-such-gpu' }, '/gpu'],
        ['/api/v1/compare', { model: X, workload: W, gpu: 'no-such-gpu' }, '/gpu'],
        ['/api/v1/compare', { model: X, workload: W, constraints: { providers: ['runpod', 'no-such-cloud'] } }, '/constraints/providers/1'],
        ['/api/v1/serving_plan', { model: { id: 'llama-3.1-8b' }, traffic: { requests_per_second: 1, prompt_tokens: 100, output_tokens: 10 },
                                   slo: { tpot_ms: 50 }, constraints: { gpus: ['no-such-gpu'] } }, '/constraints/gpus/0'],
        ['/api/v1/serving_plan', { model: { id: 'llama-3.1-8b' }, traffic: { requests_per_second: 1, prompt_tokens: 100, output_tokens: 10 },
                                   slo: { tpot_ms: 50 }, constraints: { providers: ['no-such-cloud'] } }, '/constraints/providers/0'],
        ['/api/v1/rent_vs_buy', { gpu: 'no-such-gpu', jobs_per_week: 1, hours_per_job: 4 }, '/gpu'],
];

for (const [path, body, pointer] of unknownIds) {
        test(`unknown id: ${path} ${pointer} -> 400 exists`, async () => {
                const r = await post(path, body);
                assertProblem(r, 400, pointer);
                assert.equal(r.json.rule, 'exists');
                assert.match(r.json.detail, /catalog/);
        });
}

// ------------------------------------------------------------ ranges

test('range: 10^21 training tokens are refused by estimate and compare alike, naming the range', async () => {
        for (const path of ['/api/v1/estimate', '/api/v1/compare']) {
                for (const dataset of [{ tokens: 1e18, epochs: 1000 }, { samples: 1e15 }, { tokens: 1e15, epochs: 1.001 }]) {
                        const r = await post(path, { model: X, workload: { ...W, dataset } });
                        assertProblem(r, 400, '/workload/dataset');
                        assert.equal(r.json.rule, 'range');
                        assert.match(r.json.detail, /at most 1e15/);
                }
        }
});

test('range: the largest run inside it is still answered', async () => {
        const r = await post('/api/v1/estimate', { model: X, workload: { ...W, dataset: { tokens: 1e15, epochs: 1 } },
                                                    gpu: 'a100-sxm-80gb' });
        assert.equal(r.status, 200, r.text.slice(0, 300));
        assert.ok(r.json.compute.total_seconds > 0);
});
