// Time and cost a team can budget on: the error bars beside every figure,
// their leave-one-out coverage, goodput at scale and the request's GPU
// settings, through the HTTP API against the real catalog.
import test from 'node:test';
import assert from 'node:assert/strict';

import { get, post, assertProblem } from './lib.mjs';

const close = (a, b, rel = 1e-9) => Math.abs(a - b) <= rel * Math.abs(b);

test('an estimate carries memory, time and cost intervals from the validation', async () => {
        const r = await post('/api/v1/estimate', {
                model: { id: 'llama-2-7b' }, gpu: 'a100-sxm-80gb',
                workload: { mode: 'lora', batch_size: 2, sequence_length: 2048, lora: { rank: 16 } },
                precision: 'bf16_mixed',
        });
        assert.equal(r.status, 200, r.text);
        const u = r.json.uncertainty;
        assert.ok(u && u.memory && u.time && u.cost, JSON.stringify(u));
        for (const iv of [u.memory, u.time]) {
                assert.ok(iv.cases >= 8, `${iv.kind}: ${iv.cases} cases`);
                assert.ok(iv.low_ratio > 0 && iv.low_ratio <= iv.high_ratio);
        }
        assert.ok(u.memory.kind.startsWith('memory'));
        assert.ok(u.time.kind.startsWith('time'));
        assert.ok(close(u.memory.total_bytes_low, r.json.per_gpu.total_bytes * u.memory.low_ratio));
        assert.ok(close(u.time.total_seconds_high, r.json.compute.total_seconds * u.time.high_ratio));
        assert.equal(u.cost.low_ratio, u.time.low_ratio);
        // no gpu: no time, no cost, memory still bounded
        const m = await post('/api/v1/estimate', { model: { id: 'llama-2-7b' }, workload: { mode: 'inference' } });
        assert.equal(m.status, 200, m.text);
        assert.ok(m.json.uncertainty.memory);
        assert.equal(m.json.uncertainty.time, undefined);
});

test('the validation reports how often the error bars held the measured value', async () => {
        const r = await get('/api/v1/validation');
        assert.equal(r.status, 200, r.text);
        for (const c of [r.json.summary.interval_coverage, r.json.time.summary.interval_coverage]) {
                assert.equal(c.target, 0.8);
                assert.ok(c.cases >= 100, `${c.cases} cases`);
                // built for 80%: leave-one-out coverage must land near it
                assert.ok(c.leave_one_out >= 0.7 && c.leave_one_out <= 0.9, `${c.leave_one_out}`);
        }
});

test('goodput of a 1,024-GPU pre-training: interruptions, checkpoints, effective time', async () => {
        const body = {
                model: { id: 'llama-3.1-70b' }, gpu: 'h100-sxm-80gb', framework: 'torchtitan',
                workload: { mode: 'pre_train', batch_size: 2, sequence_length: 8192, dataset: { tokens: 15e12 } },
                precision: 'bf16_mixed',
                memory_savers: { activation_checkpointing: 'full', flash_attention: true },
                parallelism: { strategy: 'fsdp', gpus: 1024, nodes: 128, tensor_parallel: 8 },
        };
        const r = await post('/api/v1/estimate', body);
        assert.equal(r.status, 200, r.text);
        const g = r.json.compute.goodput;
        // Llama 3's 419 interruptions in 54 days on 16,384 GPUs, on 1,024 GPUs
        assert.ok(close(g.failures_per_gpu_hour, 419 / (54 * 24 * 16384)));
        assert.ok(close(g.mtbf_seconds, 3600 / (g.failures_per_gpu_hour * 1024)));
        assert.ok(g.interval_optimal);
        assert.ok(close(g.checkpoint_interval_s, Math.sqrt(2 * g.checkpoint_blocking_seconds * g.mtbf_seconds)));
        assert.ok(g.goodput > 0.5 && g.goodput < 1, `${g.goodput}`);
        assert.ok(close(g.effective_seconds, r.json.compute.total_seconds / g.goodput));
        assert.ok(g.expected_interruptions > 1);
        // a faster store and an asynchronous save lose less
        const fast = await post('/api/v1/estimate', { ...body, goodput: { checkpoint_write_bytes_per_s: 1e12, checkpoint_async: true } });
        assert.equal(fast.status, 200, fast.text);
        assert.ok(fast.json.compute.goodput.goodput > g.goodput);
        // goodput settings are for training
        const bad = await post('/api/v1/estimate', { model: { id: 'llama-2-7b' }, workload: { mode: 'inference' }, goodput: { restart_seconds: 60 } });
        assertProblem(bad, 400, '/goodput');
        const range = await post('/api/v1/estimate', { ...body, goodput: { failures_per_gpu_hour: 2 } });
        assertProblem(range, 400, '/goodput/failures_per_gpu_hour');
});

test('a power cap slows compute-bound work by the cube root of the power share', async () => {
        const body = {
                model: { id: 'llama-2-7b' }, gpu: 'a100-sxm-80gb',
                workload: { mode: 'inference', batch_size: 1, prompt_tokens: 4096, generated_tokens: 0 },
                precision: 'bf16',
        };
        const full = await post('/api/v1/estimate', body);
        const capped = await post('/api/v1/estimate', { ...body, gpu_settings: { power_limit_watts: 250 } });
        assert.equal(capped.status, 200, capped.text);
        // A100 SXM TDP 400 W: (250 / 400)^(1/3) = 0.85499
        assert.ok(close(capped.json.compute.bottleneck_detail.clock_share, Math.cbrt(250 / 400)));
        assert.ok(capped.json.compute.total_seconds > full.json.compute.total_seconds);
        // encoder-style prefill-only runs report their throughput
        assert.ok(full.json.compute.tokens_per_second > 0 && full.json.compute.mfu > 0);
        const bad = await post('/api/v1/estimate', { ...body, gpu_settings: { power_limit_watts: 1 } });
        assertProblem(bad, 400, '/gpu_settings/power_limit_watts');
});
