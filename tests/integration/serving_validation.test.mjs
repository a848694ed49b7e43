// serving_validation.test.mjs - the serving planner's load model through
// HTTP: the published load tests served by GET /api/v1/validation/serving
// are the rows of tests/data/serving_loadtests.json (same measurements,
// same questions), each with the planner's figure and error; a deployment
// asked for beyond its capacity says so and by how much; a closed loop of
// more users than the replica runs at once waits for slots.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { get, post, ROOT } from './lib.mjs';
import { servingRequest } from '../accuracy/serving_request.mjs';

const data = JSON.parse(readFileSync(join(ROOT, 'tests', 'data', 'serving_loadtests.json'), 'utf8'));

test('validation/serving: the database copy is the data file, every case has the planner\'s figure', async () => {
        const res = await get('/api/v1/validation/serving');
        assert.equal(res.status, 200, res.text.slice(0, 300));
        const { cases, summary } = res.json;
        const expected = data.cases.flatMap((c) =>
                ['ttft_ms', 'tpot_ms'].filter((m) => c.measured[m]).map((m) => ({ c, m })));
        assert.ok(data.cases.length >= 20, 'published load tests (at least 20)');
        assert.equal(cases.length, expected.length);
        for (const { c, m } of expected) {
                const got = cases.find((x) => x.id === c.id && x.metric === m);
                assert.ok(got, `${c.id} ${m}`);
                assert.equal(got.measured, c.measured[m].value);
                assert.equal(got.statistic, c.measured[m].statistic);
                assert.equal(got.engine, c.engine);
                assert.equal(got.source, c.source);
                assert.deepEqual(got.request, servingRequest(c, data.lengths), `${c.id}: the question asked`);
                assert.equal(typeof got.estimated, 'number', `${c.id}: ${got.problem}`);
                assert.ok(Math.abs(got.error - (got.estimated / got.measured - 1)) < 1e-9);
        }
        for (const engine of ['sglang', 'vllm', 'tensorrt_llm'])
                for (const metric of ['ttft_ms', 'tpot_ms']) {
                        const s = summary.by_engine.find((x) => x.engine === engine && x.metric === metric);
                        assert.ok(s && s.count > 0, `${engine} ${metric}`);
                        assert.ok(s.median_abs_error <= s.p90_abs_error);
                }
});

test('a deployment offered more than it can serve says so, and by how much', async () => {
        // Llama 3.1 8B on one A100 serves a few tens of requests/s of
        // 1,000-token prompts; 500/s is far past it.
        const body = {
                model: { id: 'llama-3.1-8b' },
                engine: 'vllm',
                deployment: { gpu: 'a100-sxm-80gb', tensor_parallel: 1 },
                traffic: { requests_per_second: 500, prompt_tokens: 1000, output_tokens: 200 },
        };
        const res = await post('/api/v1/serving_plan', body);
        assert.equal(res.status, 200, res.text.slice(0, 300));
        const d = res.json.deployment;
        assert.equal(d.servable, true);
        assert.equal(d.load.overloaded, true);
        assert.ok(d.capacity_requests_per_second > 0 && d.capacity_requests_per_second < 500);
        const share = Math.round(100 * d.capacity_requests_per_second / 500);
        assert.match(d.overload, new RegExp(`${share}% of the 500 offered`), d.overload);
        // Below its capacity the same deployment is not overloaded.
        const ok = await post('/api/v1/serving_plan', {
                ...body, traffic: { ...body.traffic, requests_per_second: d.capacity_requests_per_second / 2 },
        });
        assert.equal(ok.json.deployment.load.overloaded, false);
        assert.ok(ok.json.deployment.load.ttft_p50_ms <= ok.json.deployment.load.ttft_p99_ms);
        assert.ok(ok.json.deployment.load.tpot_p50_ms <= ok.json.deployment.load.tpot_p99_ms);
});

test('a closed loop of more users than the replica holds waits for slots: TTFT grows with the users', async () => {
        const ask = (users) => post('/api/v1/serving_plan', {
                model: { id: 'llama-3.1-8b' },
                engine: { name: 'tensorrt_llm', max_batch_size: 16 },
                deployment: { gpu: 'h100-sxm-80gb', tensor_parallel: 1 },
                traffic: { concurrency: users, prompt_tokens: 1000, output_tokens: 500 },
        });
        const a = await ask(32), b = await ask(64);
        assert.equal(a.status, 200, a.text.slice(0, 300));
        assert.equal(a.json.deployment.max_concurrency, 16, 'max_batch_size caps the running sequences');
        assert.equal(a.json.deployment.load.overloaded, true);
        // The same delivered rate; twice the queue ahead of each request.
        assert.ok(Math.abs(a.json.deployment.load.delivered_requests_per_second -
                           b.json.deployment.load.delivered_requests_per_second) < 1e-6);
        assert.ok(b.json.deployment.load.ttft_mean_ms > 2 * a.json.deployment.load.ttft_mean_ms);
        assert.equal(a.json.plans.length, 0, 'a closed loop is evaluated, not planned');
});

test('a closed loop reports its burst beside the steady state; an open loop has none', async () => {
        const ask = (traffic, engine = 'tensorrt_llm') => post('/api/v1/serving_plan', {
                model: { id: 'llama-3.1-8b' },
                engine,
                deployment: { gpu: 'h100-sxm-80gb', tensor_parallel: 1 },
                traffic: { prompt_tokens: 1000, output_tokens: 200, ...traffic },
        });
        const one = await ask({ concurrency: 1 });
        const many = await ask({ concurrency: 25 });
        assert.equal(many.status, 200, many.text.slice(0, 300));
        const single = one.json.deployment.load.ttft_mean_ms, l = many.json.deployment.load;
        assert.equal(one.json.deployment.load.ttft_burst_mean_ms, undefined, 'one user has no burst');
        // 25 prompts of 1,000 tokens at once: 25,000 tokens through an
        // 8,192-token budget take four iterations, so the mean user waits
        // for others' prompts and the last for all of them.
        assert.ok(l.ttft_burst_mean_ms > 2 * single, `${l.ttft_burst_mean_ms} against ${single}`);
        assert.ok(l.ttft_burst_max_ms > l.ttft_burst_mean_ms);
        assert.ok(l.ttft_burst_max_ms > 3 * single);
        // A smaller budget spreads the same burst over more iterations.
        const small = await ask({ concurrency: 25 }, { name: 'tensorrt_llm', max_num_tokens: 2048 });
        assert.ok(small.json.deployment.load.ttft_burst_max_ms >= l.ttft_burst_max_ms);
        const open = await ask({ requests_per_second: 2 });
        assert.equal(open.json.deployment.load.ttft_burst_mean_ms, undefined, 'Poisson arrivals have no burst');
});

test('engines and their settings under their own option names; the preset is stated', async () => {
        const base = {
                model: { id: 'llama-3.1-8b' },
                traffic: { requests_per_second: 2, prompt_tokens: 500, output_tokens: 200 },
                slo: { tpot_ms: 100 },
        };
        // vLLM before 0.8 is the V0 engine; dashes, leading dashes and
        // underscores are one spelling.
        const v0 = await post('/api/v1/serving_plan', {
                ...base,
                engine: { name: 'vllm', version: '0.6.0', '--num-scheduler-steps': 10, 'max-num-seqs': 128,
                          enable_chunked_prefill: false, max_model_len: 4096 },
        });
        assert.equal(v0.status, 200, v0.text.slice(0, 300));
        assert.equal(v0.json.engine.name, 'vllm_v0');
        assert.equal(v0.json.engine.scheduler_steps, 10);
        assert.equal(v0.json.engine.max_sequences, 128);
        assert.equal(v0.json.engine.prefill, 'separate');
        assert.ok(v0.json.assumptions.some((a) => /engine vllm_v0: prefill in passes of its own, 10 scheduler step/.test(a)));
        for (const p of v0.json.plans)
                assert.ok(p.max_concurrency_per_replica <= 128);
        const sg = await post('/api/v1/serving_plan', { ...base, engine: { name: 'sglang', chunked_prefill_size: 4096, max_running_requests: 64 } });
        assert.equal(sg.json.engine.max_batched_tokens, 4096);
        assert.equal(sg.json.engine.max_sequences, 64);
        const trt = await post('/api/v1/serving_plan', { ...base, engine: 'trtllm' });
        assert.equal(trt.json.engine.name, 'tensorrt_llm');
        assert.equal(trt.json.engine.prefill, 'chunked');
        const bad = await post('/api/v1/serving_plan', { ...base, engine: { name: 'vllm', max_num_seqz: 3 } });
        assert.equal(bad.status, 400);
        assert.equal(bad.json.pointer, '/engine/max_num_seqz');
        assert.match(bad.json.detail, /max_num_seqs/);
        const tp = await post('/api/v1/serving_plan', { ...base, engine: { name: 'vllm', 'tensor-parallel-size': 2 } });
        assert.equal(tp.status, 400);
        assert.equal(tp.json.pointer, '/engine/tensor-parallel-size');
        const unknown = await post('/api/v1/serving_plan', { ...base, engine: 'deepspeed-mii' });
        assert.equal(unknown.status, 400);
        assert.match(unknown.json.detail, /vllm, vllm_v0, sglang, tensorrt_llm, tgi, llama_cpp/);
});
