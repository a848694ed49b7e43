// LoRA requests written the way PEFT, torchtune and litgpt users write them,
// through HTTP against catalog models.  Expected counts are worked out in
// each case from the model's published config: LoRA adds r x (in + out)
// parameters per wrapped matrix (Hu et al. 2021).
import test from 'node:test';
import assert from 'node:assert/strict';

import { post, assertProblem } from './lib.mjs';

const lora = (model, spec, mode = 'lora') => post('/api/v1/estimate', {
        model: { id: model },
        workload: { mode, batch_size: 1, sequence_length: 256, lora: spec },
});

test('PEFT target_modules for LLaMA-2-7B give the adapter PEFT prints', async () => {
        const r = await lora('llama-2-7b', { rank: 8, targets: ['q_proj', 'v_proj'] });
        assert.equal(r.status, 200, r.text);
        // 32 layers x 2 matrices x 8 x (4096 + 4096) = 4,194,304
        assert.equal(r.json.model.trainable_parameters, 4194304);
});

test('modules_to_save adds a trainable copy of the head, and its states', async () => {
        const base = await lora('llama-2-7b', { rank: 8, targets: ['q_proj', 'v_proj'] });
        const saved = await lora('llama-2-7b', { rank: 8, targets: ['q_proj', 'v_proj'], modules_to_save: ['lm_head'] });
        assert.equal(saved.status, 200, saved.text);
        // + 32000 x 4096 = 131,072,000 trainable parameters
        assert.equal(saved.json.model.trainable_parameters - base.json.model.trainable_parameters, 131072000);
        // At the optimizer step the copy holds fp32 weights (4 B), fp32
        // gradients (4 B) and AdamW's two moments (8 B): 16 B x 131,072,000.
        const step = (r) => r.json.per_gpu.phases.optimizer_step;
        assert.ok(step(saved) - step(base) >= 131072000 * 16, `${step(saved) - step(base)}`);
});

test('GPT-2 c_attn is one fused matrix; BERT dense is three', async () => {
        const g = await lora('gpt2', { rank: 8, targets: ['c_attn'] });
        assert.equal(g.status, 200, g.text);
        assert.equal(g.json.model.trainable_parameters, 12 * 8 * (768 + 3 * 768));
        const b = await lora('bert-base-uncased', { rank: 8, targets: ['query', 'value'] });
        const d = await lora('bert-base-uncased', { rank: 8, targets: ['query', 'value', 'dense'] });
        assert.equal(d.status, 200, d.text);
        // attention.output.dense 768->768, intermediate.dense 768->3072, output.dense 3072->768
        assert.equal(d.json.model.trainable_parameters - b.json.model.trainable_parameters,
                12 * 8 * ((768 + 768) + (768 + 3072) + (3072 + 768)));
});

test('QLoRA with PEFT names is answered', async () => {
        const r = await lora('mistral-7b', { rank: 16, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] }, 'qlora');
        assert.equal(r.status, 200, r.text);
        // Mistral-7B: 32 layers, h 4096, kv 1024, ffn 14336
        const perLayer = (4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 3 * (4096 + 14336);
        assert.equal(r.json.model.trainable_parameters, 16 * 32 * perLayer);
});

test('a name the model lacks is a 400 at that element listing the valid names', async () => {
        const r = await lora('gpt2', { rank: 8, targets: ['c_attn', 'q_proj'] });
        assertProblem(r, 400, '/workload/lora/targets/1');
        assert.match(r.json.detail, /c_attn/);
        assert.match(r.json.detail, /c_fc/);
        const s = await lora('llama-2-7b', { rank: 8, targets: ['q_proj'], modules_to_save: ['pooler'] });
        assertProblem(s, 400, '/workload/lora/modules_to_save/0');
        assert.match(s.json.detail, /lm_head/);
});

// Qwen3-Next-80B-A3B's config.json: 36 Gated DeltaNet blocks and 12
// full-attention blocks (every 4th).
const QWEN3_NEXT = {
        model_type: 'qwen3_next', hidden_size: 2048, intermediate_size: 5120, num_hidden_layers: 48,
        num_attention_heads: 16, num_key_value_heads: 2, head_dim: 256, vocab_size: 151936,
        max_position_embeddings: 262144, num_experts: 512, num_experts_per_tok: 10,
        moe_intermediate_size: 512, shared_expert_intermediate_size: 512, linear_num_key_heads: 16,
        linear_key_head_dim: 128, linear_num_value_heads: 32, linear_value_head_dim: 128,
        linear_conv_kernel_dim: 4, full_attention_interval: 4, tie_word_embeddings: false,
};

test('Qwen3-Next: PEFT names of its linear-attention blocks, a cache only where attention is, a fixed state per sequence', async () => {
        const r = await post('/api/v1/estimate', {
                model: { hf_config: QWEN3_NEXT },
                workload: { mode: 'lora', batch_size: 1, sequence_length: 4096,
                            lora: { r: 16, target_modules: ['in_proj_qkvz', 'out_proj', 'q_proj'] } },
        });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.model.parameters, 79674391296); // test_hf_families counts it by hand
        // 36 x (in_proj_qkvz 2048 + 12288, out_proj 4096 + 2048) + 12 x q_proj
        // (2048 + 8192, the doubled q of the output gate), x 16.
        assert.equal(r.json.model.trainable_parameters, 16 * (36 * (14336 + 6144) + 12 * 10240));
        const bad = await post('/api/v1/estimate', {
                model: { hf_config: QWEN3_NEXT },
                workload: { mode: 'lora', lora: { r: 16, target_modules: ['conv1d'] } },
        });
        assertProblem(bad, 400, '/workload/lora/targets/0');
        assert.match(bad.json.detail, /in_proj_qkvz/);

        // 100,000 prompt tokens in bf16: 12 blocks x 2 x 2 KV heads x 256 =
        // 12,288 elements per token, plus 36 x (3 x 8192 conv inputs + 32 x
        // 128 x 128 state) = 19,759,104 per sequence, 2 bytes each.
        const inf = await post('/api/v1/estimate', {
                model: { hf_config: QWEN3_NEXT }, kv_cache_precision: 'bf16',
                workload: { mode: 'inference', batch_size: 1, prompt_tokens: 100000, generated_tokens: 0 },
        });
        assert.equal(inf.status, 200, inf.text);
        assert.equal(inf.json.per_gpu.components.kv_cache, (12288 * 100000 + 19759104) * 2);
        assert.equal(inf.json.model.architecture.linear_attention_layers, 36);
});

test('QLoRA keeps 4-bit matmul inputs under bitsandbytes, not under torchtune\'s torchao NF4', async () => {
        const q = (extra) => post('/api/v1/estimate', {
                model: { id: 'llama-2-7b' }, quantization: 'nf4', precision: 'bf16',
                workload: { mode: 'qlora', batch_size: 1, sequence_length: 256, lora: { r: 8, target_modules: ['q_proj', 'v_proj'] } },
                memory_savers: { activation_checkpointing: 'none', flash_attention: true, chunked_loss: false }, ...extra });
        const bnb = await q({});
        const tt = await q({ framework: 'torchtune' });
        assert.equal(bnb.status, 200, bnb.text);
        assert.equal(tt.status, 200, tt.text);
        assert.ok(bnb.json.assumptions.some((a) => a.code === 'qlora_saved_matmul_inputs'));
        assert.ok(tt.json.assumptions.some((a) => a.code === 'qlora_torchao_nf4'));
        // bitsandbytes' MatMul4Bit keeps B*s*(2h + q + f) per block: 2 x 256 x
        // (2 x 4096 + 4096 + 11008) x 32 blocks = 381,681,664 bytes.  torchao's
        // frozen NF4 matrices keep nothing, so with LoRA on q and v only (A
        // keeps the Q/K/V input) neither the MLP input nor the product into
        // down is kept: 2 x 256 x (4096 + 11008) x 32 = 247,463,936 less.
        assert.equal(bnb.json.per_gpu.components.activations - tt.json.per_gpu.components.activations,
                381681664 + 247463936);
});
