// Framework presets and the frameworks' own option names, through HTTP.
// What each preset sets is read from the framework's source and shipped
// configurations (server/core/estimate.c, estimate_apply_framework); the
// published runs these settings reproduce are in tests/data/measurements.json.
import test from 'node:test';
import assert from 'node:assert/strict';

import { post, assertProblem } from './lib.mjs';

const LLAMA8 = { id: 'llama-3.1-8b' };
const pretrain = (extra = {}) => post('/api/v1/estimate', {
        model: LLAMA8,
        workload: { mode: 'pre_train', batch_size: 2, sequence_length: 8192 },
        ...extra,
});
const frameworkDefaults = (r) => r.json.assumptions.filter((a) => a.code === 'framework_default').map((a) => a.text);

test('framework torchtitan fills what the request left unset, and lists each in assumptions', async () => {
        const r = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 } });
        assert.equal(r.status, 200, r.text);
        const i = r.json.input;
        assert.equal(i.framework, 'torchtitan');
        assert.equal(i.precision, 'bf16_mixed');
        assert.equal(i.activation_checkpointing, 'selective_op');
        assert.equal(i.flash_attention, true);
        assert.equal(i.logits, 'upcast_in_loss');
        assert.equal(i.strategy, 'fsdp');
        assert.equal(i.fsdp_version, 2);
        const said = frameworkDefaults(r);
        for (const setting of ['precision', 'activation_checkpointing', 'flash_attention', 'logits', 'strategy', 'fsdp_version'])
                assert.ok(said.some((t) => t.startsWith(`${setting} = `)), `${setting} not listed: ${said}`);
});

test('a stated setting overrides the preset and is not listed as the framework\'s', async () => {
        const r = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 },
                                   memory_savers: { activation_checkpointing: 'full' }, precision: 'bf16' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.input.activation_checkpointing, 'full');
        assert.equal(r.json.input.precision, 'bf16');
        const said = frameworkDefaults(r);
        assert.ok(!said.some((t) => t.startsWith('activation_checkpointing')), said.join('; '));
        assert.ok(!said.some((t) => t.startsWith('precision')), said.join('; '));
});

test('torchtitan\'s own names: "selective" is its op policy there, selective_ac_option picks op or a layer frequency', async () => {
        const sel = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 }, memory_savers: { activation_checkpointing: 'selective' } });
        assert.equal(sel.status, 200, sel.text);
        assert.equal(sel.json.input.activation_checkpointing, 'selective_op');
        // Without the framework, "selective" is Megatron's (attention core only).
        const meg = await pretrain({ parallelism: { gpus: 8, strategy: 'fsdp' }, memory_savers: { activation_checkpointing: 'selective', flash_attention: true } });
        assert.equal(meg.json.input.activation_checkpointing, 'selective');
        const every2 = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 },
                                        memory_savers: { activation_checkpointing: 'selective', selective_ac_option: '2' } });
        assert.equal(every2.status, 200, every2.text);
        assert.equal(every2.json.input.activation_checkpointing, 'full');
        assert.equal(every2.json.input.checkpoint_every, 2);
        // Keeping every other block whole costs more than the op policy,
        // which costs more than checkpointing every block.
        const full = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 }, memory_savers: { activation_checkpointing: 'full' } });
        const act = (r) => r.json.per_gpu.components.activations;
        assert.ok(act(every2) > act(sel) && act(sel) > act(full), `${act(every2)} ${act(sel)} ${act(full)}`);
});

test('torchtitan Llama 3.1 8B on 8 GPUs lands near its published 82.4 GiB reserved', async () => {
        // torchtitan docs/performance.md, Table 1 (FSDP, local batch 2,
        // selective AC): 82.4 GiB max_memory_reserved, which the engine's
        // reserved_bytes stands for (the total adds the CUDA context).
        const r = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 } });
        assert.equal(r.json.per_gpu.reserved_bytes, r.json.per_gpu.total_bytes - 512 * 2 ** 20);
        const gib = r.json.per_gpu.reserved_bytes / 2 ** 30;
        assert.ok(Math.abs(gib - 82.4) / 82.4 < 0.15, `${gib.toFixed(1)} GiB`);
});

test('litgpt LoRA over FSDP1 with accumulation keeps unsharded gradients (no_sync)', async () => {
        const body = (ga) => ({
                model: { id: 'llama-2-7b' }, framework: 'litgpt',
                workload: { mode: 'lora', batch_size: 1, sequence_length: 1304, gradient_accumulation: ga,
                            lora: { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj'] } },
                parallelism: { gpus: 2 },
        });
        const acc = await post('/api/v1/estimate', body(64));
        assert.equal(acc.status, 200, acc.text);
        assert.equal(acc.json.input.fsdp_version, 1);
        assert.equal(acc.json.input.fsdp_no_sync, true);
        assert.equal(acc.json.input.fsdp_use_orig_params, true); // Fabric: LoRA inside each Block's flat parameter
        // Every block's flat gradient unsharded in bf16: (6,738,415,616 -
        // 2 x 32000 x 4096) x 2 B + 4,194,304 adapter gradients x 2 B.
        assert.ok(acc.json.per_gpu.components.gradients >= 12960931840, `${acc.json.per_gpu.components.gradients}`);
        assert.ok(acc.json.assumptions.some((a) => a.code === 'fsdp_no_sync_gradients'));
        const one = await post('/api/v1/estimate', body(1));
        assert.equal(one.json.input.fsdp_no_sync, false);
        assert.ok(one.json.per_gpu.components.gradients < acc.json.per_gpu.components.gradients);
});

test('accelerate with PEFT wraps LoRA layers apart: no gradients for frozen weights under FSDP1', async () => {
        const r = await post('/api/v1/estimate', {
                model: { id: 'llama-2-7b' }, framework: 'accelerate',
                workload: { mode: 'lora', batch_size: 1, sequence_length: 1024, gradient_accumulation: 4,
                            lora: { rank: 8, targets: ['q_proj', 'v_proj'] } },
                parallelism: { gpus: 2, strategy: 'fsdp' },
        });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.input.fsdp_version, 1);
        assert.equal(r.json.input.fsdp_use_orig_params, false);
        assert.ok(!r.json.assumptions.some((a) => a.code === 'fsdp1_flat_gradients'));
        // accelerate's default precision is fp32 (mixed_precision "no").
        assert.equal(r.json.input.precision, 'fp32');
        // Unsharded under no_sync: the 4,194,304 adapter gradients only (fp32,
        // 4 B each) - far below the 27 GB the fp32 base would need.
        assert.ok(r.json.per_gpu.components.gradients < 1e9, `${r.json.per_gpu.components.gradients}`);
});

test('unknown framework, bad selective_ac_option and fsdp_version without FSDP are 400s that say what is valid', async () => {
        const f = await pretrain({ framework: 'titan' });
        assertProblem(f, 400, '/framework');
        for (const name of ['hf_trainer', 'torchtune', 'torchtitan', 'litgpt', 'megatron', 'vllm', 'llama_cpp'])
                assert.match(f.json.detail, new RegExp(name));
        const o = await pretrain({ memory_savers: { selective_ac_option: 'sometimes' } });
        assertProblem(o, 400, '/memory_savers/selective_ac_option');
        assert.match(o.json.detail, /op/);
        const v = await pretrain({ parallelism: { gpus: 2, strategy: 'ddp', fsdp_version: 2 } });
        assertProblem(v, 400, '/parallelism/fsdp_version');
});

test('a config pasted as PEFT, TRL and TrainingArguments write it gets the answer of the same request in the API\'s names', async () => {
        const pasted = await post('/api/v1/estimate', {
                model: { id: 'meta-llama/Llama-2-7b-hf' },
                workload: { mode: 'sft', per_device_train_batch_size: 2, max_seq_length: 1024,
                            gradient_accumulation_steps: 8,
                            lora: { r: 16, lora_alpha: 32, lora_dropout: 0.05, target_modules: ['q_proj', 'v_proj'],
                                    bias: 'none', task_type: 'CAUSAL_LM' } },
                optim: 'paged_adamw_8bit', gradient_checkpointing: true, bf16: true,
                attn_implementation: 'flash_attention_2',
        });
        assert.equal(pasted.status, 200, pasted.text);
        const own = await post('/api/v1/estimate', {
                model: { id: 'llama-2-7b' },
                workload: { mode: 'lora', batch_size: 2, sequence_length: 1024, gradient_accumulation: 8,
                            lora: { rank: 16, alpha: 32, dropout: 0.05, targets: ['q', 'v'] } },
                optimizer: 'paged_adamw_8bit', precision: 'bf16_mixed',
                memory_savers: { activation_checkpointing: 'full', flash_attention: true },
        });
        assert.equal(own.status, 200, own.text);
        assert.equal(pasted.json.per_gpu.total_bytes, own.json.per_gpu.total_bytes);
        assert.equal(pasted.json.input.mode, 'lora');
        // The name and its alias together are a contradiction named at the alias.
        const both = await post('/api/v1/estimate', {
                model: { id: 'llama-2-7b' },
                workload: { mode: 'lora', lora: { r: 16, rank: 8 } },
        });
        assertProblem(both, 400, '/workload/lora/r');
});
