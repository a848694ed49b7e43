// catalog_compare.test.mjs - POST /api/v1/compare against the real catalog:
// plan costs are GPU count x hours x the stored hourly price, every plan fits
// by the engine's own estimate (re-asked through POST /api/v1/estimate),
// excluded options say why, and seeds/000's 3B exercise.

import test from 'node:test';
import assert from 'node:assert/strict';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, get, post, assertProblem } from './lib.mjs';

// facebook/xlm-roberta-xl config.json (the members the importer reads).
const xlmrXl = {
        model_type: 'xlm-roberta-xl', hidden_size: 2560, num_hidden_layers: 36, num_attention_heads: 32,
        intermediate_size: 10240, vocab_size: 250880, max_position_embeddings: 514, type_vocab_size: 1,
        hidden_act: 'gelu', layer_norm_eps: 1e-5,
};

// seeds/002 fine-tuning table, XL row: batch 16 per GPU, sequence 128, AdamW,
// 3-class head, one epoch over 10 000 tweets.
const xlFineTune = {
        model: { hf_config: xlmrXl },
        workload: { mode: 'fine_tune', batch_size: 16, sequence_length: 128, num_labels: 3,
                    dataset: { samples: 10000, epochs: 1 } },
        optimizer: 'adamw',
};

// The estimate endpoint's own schema belongs to its section of openapi.yaml;
// validate its answers once that section exists.
const ESTIMATE_IN_SPEC = /\n  \/api\/v1\/estimate:/.test(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));

const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

test('compare: XLM-R XL fine-tuning plans cost GPUs x hours x the stored price and fit by the engine\'s estimate', async () => {
        const res = await post('/api/v1/compare', xlFineTune);
        assert.equal(res.status, 200, res.text);
        const { plans, excluded, evaluated } = res.json;
        assert.ok(plans.length > 0);
        assert.ok(evaluated > 10000, `the whole plan space was searched (${evaluated} points)`);

        const stored = new Map((await get('/api/v1/prices?pricing=on_demand')).json.prices.map((p) => [p.offering, p]));
        for (const p of plans) {
                const price = stored.get(p.offering);
                assert.ok(price, `${p.offering} has a stored on-demand price`);
                // The stored price is per instance; per GPU-hour divides by the instance's GPUs.
                assert.ok(close(p.usd_per_gpu_hour, price.usd_per_hour / price.gpus_per_instance));
                assert.equal(p.price_as_of, price.as_of);
                assert.equal(p.gpus % price.gpus_per_instance, 0, 'whole instances');
                assert.ok(close(p.cost_usd, p.gpus * p.hours * p.usd_per_gpu_hour),
                          `${p.offering}: ${p.cost_usd} = ${p.gpus} x ${p.hours} x ${p.usd_per_gpu_hour}`);
                assert.ok(p.per_gpu_bytes <= p.gpu_memory_bytes);
        }
        // Ranked by cost.
        for (let i = 1; i < plans.length; i++)
                assert.ok(plans[i - 1].cost_usd <= plans[i].cost_usd * (1 + 1e-4));

        // Ask the engine itself about the first few plans' exact layout.
        for (const p of plans.slice(0, 5)) {
                const req = {
                        ...xlFineTune,
                        gpu: p.gpu,
                        memory_savers: { activation_checkpointing: p.checkpointing, flash_attention: p.flash_attention },
                        parallelism: { strategy: p.strategy, gpus: p.gpus, nodes: p.nodes,
                                       tensor_parallel: p.tensor_parallel, offload: p.offload },
                };
                const est = await post('/api/v1/estimate', req, { validate: ESTIMATE_IN_SPEC });
                assert.equal(est.status, 200, est.text);
                assert.equal(est.json.per_gpu.total_bytes, p.per_gpu_bytes, `${p.offering}: same per-GPU peak`);
                assert.ok(est.json.per_gpu.total_bytes <= p.gpu_memory_bytes);
        }

        // What could not be used says why.
        assert.ok(excluded.length > 0);
        for (const e of excluded)
                assert.ok(e.reason.length > 10, `${e.gpu}: ${e.reason}`);
        const why = (id) => excluded.filter((e) => e.gpu === id).map((e) => e.reason).join('; ');
        assert.match(why('groq-lpu'), /inference-only/);
});

test('compare: constraints narrow the providers, cap the GPUs and rank by time', async () => {
        const res = await post('/api/v1/compare', { ...xlFineTune,
                constraints: { providers: ['lambda', 'runpod'], max_gpus: 8, rank_by: 'time' } });
        assert.equal(res.status, 200, res.text);
        const { plans } = res.json;
        assert.ok(plans.length > 0);
        assert.ok(plans.every((p) => ['lambda', 'runpod'].includes(p.provider)));
        assert.ok(plans.every((p) => p.gpus <= 8));
        for (let i = 1; i < plans.length; i++)
                assert.ok(plans[i - 1].hours <= plans[i].hours * (1 + 1e-4));

        // A deadline: every plan meets it; a deadline nobody meets leaves reasons.
        const fastest = plans[0].hours;
        const dl = await post('/api/v1/compare', { ...xlFineTune, constraints: { deadline_hours: fastest * 3 } });
        assert.ok(dl.json.plans.length > 0);
        assert.ok(dl.json.plans.every((p) => p.hours <= fastest * 3));
        const none = await post('/api/v1/compare', { ...xlFineTune, constraints: { deadline_hours: fastest / 100 } });
        assert.equal(none.json.plans.length, 0);
        assert.ok(none.json.excluded.some((e) => /deadline/.test(e.reason)));

        assertProblem(await post('/api/v1/compare', { ...xlFineTune, constraints: { pricing: 'cheap' } }), 400, '/constraints/pricing');
        assertProblem(await post('/api/v1/compare', { ...xlFineTune, constraints: { providers: ['nobody'] } }), 400, '/constraints/providers/0');
        assertProblem(await post('/api/v1/compare', { ...xlFineTune, constraints: { max_gpus: 65 } }), 400, '/constraints/max_gpus');
        assertProblem(await post('/api/v1/compare', { ...xlFineTune, constraints: { shoe_size: 9 } }), 400, '/constraints/shoe_size');
});

test('seeds/000: a 3B full fine-tune with Adam needs about 48 GB and does not fit an RTX 3090', async () => {
        // Mixed-precision Adam: 2 (fp16 weights) + 4 (fp32 master) + 4 + 4 (moments) + 2 (grads)
        // = 16 bytes per parameter; 3e9 x 16 = 48e9 bytes before activations (seeds/000).
        const res = await post('/api/v1/compare', {
                model: { parameters: 3e9 },
                workload: { mode: 'fine_tune', batch_size: 1, sequence_length: 128, dataset: { samples: 1000 } },
                optimizer: 'adamw', precision: 'bf16_mixed',
                constraints: { max_gpus: 1, memory_savers: [] },
        });
        assert.equal(res.status, 200, res.text);
        const rtx = res.json.excluded.find((e) => e.gpu === 'rtx-3090' && e.provider === null);
        assert.ok(rtx, 'the RTX 3090 is excluded');
        assert.match(rtx.reason, /does not fit/);
        const needed = Number(/needs at least ([\d.]+) GB/.exec(rtx.reason)[1]);
        assert.ok(needed >= 48, `needs ${needed} GB >= 48 GB`);
        assert.ok(res.json.plans.length > 0, 'an 80 GB GPU does it');
        for (const p of res.json.plans) {
                assert.ok(p.per_gpu_bytes >= 48e9);
                assert.ok(p.gpu_memory_bytes > 48e9);
                assert.deepEqual(p.memory_savers, []);
        }
});
