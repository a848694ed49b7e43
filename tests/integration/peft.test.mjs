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
