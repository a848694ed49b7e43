// serving.test.mjs - POST /api/v1/serving_plan through HTTP: every ranked
// plan meets the targets it was asked for, ranking follows cost, relaxing a
// target never raises the cheapest cost, doubling the traffic roughly
// doubles the replicas, prices are the stored ones, and bad questions get
// problem documents that name the field.

import test from 'node:test';
import assert from 'node:assert/strict';

import { get, post, assertProblem } from './lib.mjs';

// "We expect 5 requests/s, prompts of ~1000 tokens, answers of ~200; p95
// TTFT under 500 ms and 50 ms per output token."
const question = {
        model: { id: 'llama-3.1-8b' },
        quantization: ['none', 'fp8'],
        traffic: { requests_per_second: 5, prompt_tokens: 1000, output_tokens: 200 },
        slo: { ttft_p95_ms: 500, tpot_ms: 50 },
};

const cheapest = (res) => res.json.plans[0].usd_per_hour;
const close = (a, b, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

test('serving plan: every ranked plan meets its targets at the offered load, cheapest first', async () => {
        const res = await post('/api/v1/serving_plan', question);
        assert.equal(res.status, 200, res.text);
        const { plans, frontier, excluded, question: words } = res.json;
        assert.match(words, /5 requests\/s/);
        assert.match(words, /500 ms/);
        assert.ok(plans.length > 3, 'several offerings can serve an 8B model');
        for (const p of plans) {
                assert.equal(p.meets_slo, true);
                assert.ok(p.ttft_p95_ms <= 500, `${p.offering}: TTFT p95 ${p.ttft_p95_ms}`);
                assert.ok(p.tpot_ms <= 50, `${p.offering}: TPOT ${p.tpot_ms}`);
                assert.ok(p.ttft_p50_ms <= p.ttft_p95_ms);
                assert.ok(p.concurrency_per_replica <= p.max_concurrency_per_replica);
                assert.ok(p.capacity_requests_per_second >= 5 * (1 - 1e-9), 'capacity covers the traffic');
                assert.ok(close(p.headroom, p.capacity_requests_per_second / 5 - 1, 1e-6));
                // Whole instances, filled with replicas as far as the tensor-parallel degree
                // divides them (a 5-GPU instance at TP 4 leaves one GPU idle).
                assert.ok(p.replicas * p.tensor_parallel <= p.gpus && p.gpus % p.instances === 0,
                          `${p.offering}: ${p.replicas} x TP ${p.tensor_parallel} on ${p.gpus} GPUs`);
                assert.ok(p.gpus - p.replicas * p.tensor_parallel < p.tensor_parallel * p.instances,
                          'no room left for another replica');
                // Cost per million output tokens: USD/h over 5 req/s x 200 tokens x 3600 s.
                assert.ok(close(p.usd_per_million_output_tokens, p.usd_per_hour / (5 * 200 * 3600) * 1e6, 1e-6));
        }
        for (let i = 1; i < plans.length; i++)
                assert.ok(plans[i - 1].usd_per_hour <= plans[i].usd_per_hour, 'ranked by USD per hour');
        // One plan per offering.
        assert.equal(new Set(plans.map((p) => p.offering)).size, plans.length);
        assert.ok(frontier.length >= 1);
        for (const f of frontier) {
                // Along a configuration's curve, more concurrency never lowers the time per token.
                for (let i = 1; i < f.points.length; i++) {
                        assert.ok(f.points[i].concurrency > f.points[i - 1].concurrency);
                        assert.ok(f.points[i].tpot_ms >= f.points[i - 1].tpot_ms);
                }
        }
        // T4 and V100 have no bf16 units: their plans serve the weights in fp16.
        for (const p of plans.filter((q) => ['t4', 'v100-sxm2-16gb', 'v100-sxm2-32gb'].includes(q.gpu)))
                assert.equal(p.weights.precision, 'fp16', p.offering);
        assert.ok(!excluded.some((e) => /bf16 tensor rate/.test(e.reason)), JSON.stringify(excluded.slice(0, 5)));
});

test('serving plan: the price of a plan is the stored instance price x instances', async () => {
        const res = await post('/api/v1/serving_plan', question);
        assert.equal(res.status, 200, res.text);
        const stored = new Map((await get('/api/v1/prices?pricing=on_demand')).json.prices.map((p) => [p.offering, p]));
        for (const p of res.json.plans) {
                const price = stored.get(p.offering);
                assert.ok(price, `${p.offering} has an on-demand price`);
                assert.ok(close(p.usd_per_hour, p.instances * price.usd_per_hour, 1e-9));
                assert.equal(p.gpus, p.instances * price.gpus_per_instance);
                assert.equal(p.price_as_of, price.as_of);
        }
});

test('serving plan: relaxing a target never raises the cheapest cost; tightening never lowers it', async () => {
        const base = cheapest(await post('/api/v1/serving_plan', question));
        for (const slo of [{ ttft_p95_ms: 2000, tpot_ms: 50 }, { ttft_p95_ms: 500, tpot_ms: 200 }, { ttft_p95_ms: 5000, tpot_ms: 500 }]) {
                const res = await post('/api/v1/serving_plan', { ...question, slo });
                assert.equal(res.status, 200, res.text);
                assert.ok(cheapest(res) <= base, `${JSON.stringify(slo)}: ${cheapest(res)} > ${base}`);
        }
        const tight = await post('/api/v1/serving_plan', { ...question, slo: { ttft_p95_ms: 150, tpot_ms: 15 } });
        assert.equal(tight.status, 200, tight.text);
        if (tight.json.plans.length)
                assert.ok(cheapest(tight) >= base);
        // What was dropped says which target it missed.
        assert.ok(tight.json.excluded.some((e) => /exceeds the (p95 target|15\.0 ms target)/.test(e.reason)),
                  JSON.stringify(tight.json.excluded.slice(0, 8)));
});

test('serving plan: doubling the traffic roughly doubles the replicas on one offering', async () => {
        // One GPU per instance, so replicas are not rounded up to fill a node.
        const one = { ...question, quantization: 'none', constraints: { gpus: ['a100-sxm-80gb'], max_gpus: 64 },
                      traffic: { requests_per_second: 20, prompt_tokens: 1000, output_tokens: 200 } };
        const a = await post('/api/v1/serving_plan', one);
        const b = await post('/api/v1/serving_plan', { ...one, traffic: { ...one.traffic, requests_per_second: 40 } });
        assert.equal(a.status, 200, a.text);
        assert.equal(b.status, 200, b.text);
        const single = (res) => res.json.plans.find((p) => p.tensor_parallel === 1 && p.gpus === p.replicas &&
                                                      p.instances === p.replicas);
        const pa = single(a), pb = b.json.plans.find((p) => pa && p.offering === pa.offering);
        assert.ok(pa && pb, 'an offering with one GPU per instance serves both rates');
        // Capacity per replica does not depend on the offered rate: replicas = ceil(rate / capacity).
        const ratio = pb.replicas / pa.replicas;
        assert.ok(ratio >= 1.5 && ratio <= 2.5, `replicas ${pa.replicas} -> ${pb.replicas}`);
        assert.ok(pb.usd_per_hour > pa.usd_per_hour);
});

test('serving plan: a 70B model needs tensor parallelism or quantization on 80 GB GPUs', async () => {
        const res = await post('/api/v1/serving_plan', {
                model: { id: 'llama-3.1-70b' }, quantization: ['none', 'int4'],
                traffic: { requests_per_second: 1, prompt_tokens: 500, output_tokens: 200 },
                slo: { ttft_p95_ms: 2000, tpot_ms: 100 }, constraints: { gpus: ['h100-sxm-80gb', 'a100-sxm-80gb'] },
        });
        assert.equal(res.status, 200, res.text);
        assert.ok(res.json.plans.length > 0);
        for (const p of res.json.plans)
                assert.ok(p.tensor_parallel > 1 || p.weights.quantization === 'int4',
                          `${p.offering}: 140 GB of bf16 weights cannot sit on one 80 GB GPU`);
        assert.ok(res.json.excluded.some((e) => e.tensor_parallel === 1 && e.weights?.quantization === 'none' &&
                                                /weights/.test(e.reason)));
});

test('serving plan: bad questions get problem documents naming the field', async () => {
        const cases = [
                [{ ...question, traffic: { ...question.traffic, requests_per_second: 0 } }, '/traffic/requests_per_second'],
                [{ ...question, traffic: { prompt_tokens: 10, output_tokens: 10 } }, '/traffic/requests_per_second'],
                [{ ...question, slo: {} }, '/slo'],
                [{ ...question, slo: { ttft_p95_ms: -5 } }, '/slo/ttft_p95_ms'],
                [{ ...question, slo: { ttft_p50_ms: 900, ttft_p95_ms: 500 } }, '/slo/ttft_p50_ms'],
                [{ ...question, quantization: 'int3' }, '/quantization'],
                [{ ...question, quantization: ['none', 'q4_k'] }, '/quantization/1'],
                [{ ...question, traffic: { ...question.traffic, max_context_tokens: 100 } }, '/traffic/max_context_tokens'],
                [{ ...question, constraints: { gpus: ['h100-sxm-80gbx'] } }, '/constraints/gpus/0'],
                [{ ...question, constraints: { max_gpus: 65 } }, '/constraints/max_gpus'],
                [{ ...question, workload: { mode: 'fine_tune' } }, '/workload'],
                [{ ...question, turbo: true }, '/turbo'],
                [{ ...question, model: { id: 'bert-base-uncased' } }, '/model'],
        ];
        for (const [body, pointer] of cases) {
                const res = await post('/api/v1/serving_plan', body);
                assertProblem(res, 400, pointer);
        }
});

test('serving plan: impossible traffic is answered with no plans and the reasons', async () => {
        // A million requests/s with a 64-GPU limit: nothing can serve it.
        const res = await post('/api/v1/serving_plan', {
                ...question, traffic: { requests_per_second: 1e6, prompt_tokens: 1000, output_tokens: 200 },
                constraints: { max_gpus: 8 },
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.plans.length, 0);
        assert.ok(res.json.excluded.some((e) => e.offering && /GPU limit/.test(e.reason)));
});

test('serving plan: 150 random questions, in range and out: never a 5xx, every plan meets its targets', async () => {
        // A fixed-seed generator (mulberry32): the same questions every run.
        let seed = 20261125;
        const rnd = () => {
                seed = (seed + 0x6d2b79f5) | 0;
                let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
                t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
                return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
        };
        const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
        const wide = () => pick([0, -1, 1e-9, 1e-3, 0.5, 1, 7, 100, 4096, 1e5, 16777216, 1e7, 1e300]);
        const models = ['llama-3.1-8b', 'llama-3.2-1b', 'mixtral-8x7b', 'qwen3-30b-a3b', 'flan-t5-xl', 'gemma-2-9b',
                        'deepseek-v2-lite', 'llama-3.1-405b', 'gpt2', 'pythia-70m'];
        const quants = ['none', 'fp8', 'int8', 'int4', 'nf4'];
        for (let i = 0; i < 150; i++) {
                const body = {
                        model: { id: pick(models) },
                        quantization: rnd() < 0.5 ? pick(quants) : [pick(quants), pick(quants)],
                        traffic: { requests_per_second: rnd() < 0.7 ? 0.1 + 50 * rnd() : wide(),
                                   prompt_tokens: rnd() < 0.7 ? Math.ceil(4000 * rnd()) : wide(),
                                   output_tokens: rnd() < 0.7 ? Math.ceil(1000 * rnd()) : wide() },
                        slo: rnd() < 0.8 ? { ttft_p95_ms: 50 + 5000 * rnd(), tpot_ms: 5 + 200 * rnd() }
                                         : { ttft_p50_ms: wide(), tpot_ms: wide() },
                };
                if (rnd() < 0.3) body.constraints = { max_gpus: pick([1, 8, 64]), pricing: pick(['on_demand', 'spot']) };
                if (rnd() < 0.2) body.kv_cache_precision = pick(['auto', 'fp8', 'int4']);
                const res = await post('/api/v1/serving_plan', body);
                assert.ok([200, 400, 404].includes(res.status), `${res.status} for ${JSON.stringify(body)}: ${res.text.slice(0, 300)}`);
                if (res.status !== 200) {
                        assert.ok(res.json.pointer !== undefined, 'a problem names its field');
                        continue;
                }
                const slo = body.slo;
                for (const p of res.json.plans) {
                        assert.ok(Number.isFinite(p.usd_per_hour) && p.usd_per_hour >= 0, "free tiers cost 0");
                        assert.ok(!slo.ttft_p95_ms || p.ttft_p95_ms <= slo.ttft_p95_ms * (1 + 1e-9));
                        assert.ok(!slo.ttft_p50_ms || p.ttft_p50_ms <= slo.ttft_p50_ms * (1 + 1e-9));
                        assert.ok(!slo.tpot_ms || p.tpot_ms <= slo.tpot_ms * (1 + 1e-9));
                        assert.ok(p.capacity_requests_per_second >= body.traffic.requests_per_second * (1 - 1e-9));
                }
        }
});
