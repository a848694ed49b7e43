// Catalog models found by the Hugging Face Hub ids users copy.
import test from 'node:test';
import assert from 'node:assert/strict';

import { get, post, assertProblem } from './lib.mjs';

const estimate = (id) => post('/api/v1/estimate', {
        model: { id },
        workload: { mode: 'inference', batch_size: 1, sequence_length: 512 },
});

test('a Hub id, any case or as a URL, finds the catalog model', async () => {
        const own = await estimate('llama-2-7b');
        assert.equal(own.status, 200, own.text);
        for (const id of ['meta-llama/Llama-2-7b-hf', 'META-LLAMA/llama-2-7B-HF',
                'https://huggingface.co/meta-llama/Llama-2-7b-chat-hf', 'LLAMA-2-7B']) {
                const r = await estimate(id);
                assert.equal(r.status, 200, `${id}: ${r.text}`);
                // Llama-2-7b: 6,738,415,616 parameters (Touvron et al. 2023: 6.7B)
                assert.equal(r.json.model.checkpoint_parameters, own.json.model.checkpoint_parameters);
                assert.equal(r.json.per_gpu.total_bytes, own.json.per_gpu.total_bytes);
        }
        const old = await estimate('xlm-roberta-large');
        const moved = await estimate('FacebookAI/xlm-roberta-large');
        assert.equal(moved.status, 200, moved.text);
        assert.equal(moved.json.model.checkpoint_parameters, old.json.model.checkpoint_parameters);
});

test('a near miss is a 404 that names the closest models', async () => {
        const r = await estimate('meta-llama/Llama-2-7b-hff');
        assertProblem(r, 404, '/model/id');
        assert.match(r.json.detail, /closest: llama-2-7b/);
        const far = await estimate('completely-unrelated-model-name');
        assertProblem(far, 404, '/model/id');
        assert.doesNotMatch(far.json.detail, /closest/);
});

test('a quantized copy\'s repository (-bnb-4bit, -GPTQ, -AWQ, -FP8) is a 404 that names the base model and its quantization', async () => {
        const cases = [
                ['unsloth/llama-3-8b-bnb-4bit', 'llama-3-8b', 'nf4'],
                ['TheBloke/Llama-2-7B-Chat-GPTQ', 'llama-2-7b', 'int4'],
                ['Qwen/Qwen2.5-7B-Instruct-AWQ', 'qwen2.5-7b', 'int4'],
                ['neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8', 'llama-3.1-8b', 'fp8'],
        ];
        for (const [id, base, quantization] of cases) {
                const r = await estimate(id);
                assertProblem(r, 404, '/model/id');
                assert.match(r.json.detail, new RegExp(`copy of ${base.replace('.', '\\.')}: ask for \\{"id": "${base.replace('.', '\\.')}"\\} with "quantization": "${quantization}"`), r.json.detail);
                // and what it says to ask for is answered
                const asked = await post('/api/v1/estimate', { model: { id: base }, quantization,
                        workload: { mode: 'inference', batch_size: 1, sequence_length: 512 } });
                assert.equal(asked.status, 200, asked.text);
        }
});

test('GET /api/v1/models lists each model\'s Hub ids', async () => {
        const r = await get('/api/v1/models');
        assert.equal(r.status, 200);
        const llama = r.json.models.find((m) => m.id === 'llama-2-7b');
        assert.ok(llama.hub_ids.includes('meta-llama/Llama-2-7b-hf'));
        const all = r.json.models.flatMap((m) => m.hub_ids.map((h) => h.toLowerCase()));
        assert.equal(new Set(all).size, all.length, 'a Hub id names one catalog model');
});

test('GET /api/v1/models filters by family, kind, size and text, and pages', async () => {
        const all = await get('/api/v1/models');
        const total = all.json.count;
        assert.equal(all.json.models.length, Math.min(total, 100));
        const llama = await get('/api/v1/models?family=LLAMA');
        assert.ok(llama.json.count >= 3);
        assert.ok(llama.json.models.every((m) => m.family === 'llama'));
        const enc = await get('/api/v1/models?kind=encoder');
        assert.ok(enc.json.models.length > 0);
        assert.ok(enc.json.models.every((m) => m.architecture.kind === 'encoder'));
        const mid = await get('/api/v1/models?min_parameters=1000000000&max_parameters=10000000000');
        assert.ok(mid.json.models.length > 0);
        assert.ok(mid.json.models.every((m) => m.published_parameters >= 1e9 && m.published_parameters <= 1e10));
        const q = await get('/api/v1/models?q=Llama-2-7b-HF');
        assert.deepEqual(q.json.models.map((m) => m.id), ['llama-2-7b']);
        // Paging: two pages of 5 are the first 10 of the whole list.
        const p1 = await get('/api/v1/models?limit=5');
        const p2 = await get('/api/v1/models?limit=5&offset=5');
        assert.equal(p1.json.count, total);
        assert.deepEqual([...p1.json.models, ...p2.json.models].map((m) => m.id),
                all.json.models.slice(0, 10).map((m) => m.id));
        assertProblem(await get('/api/v1/models?limit=0'), 400, '?limit');
        assertProblem(await get('/api/v1/models?kind=rnn'), 400, '?kind');
        assertProblem(await get('/api/v1/models?min_parameters=-1'), 400, '?min_parameters');
});

test('every catalog model states its licence, release date and a Hub id', async () => {
        const r = await get('/api/v1/models?limit=1000');
        assert.ok(r.json.count >= 100);
        for (const m of r.json.models) {
                assert.match(m.licence ?? '', /\S/, `${m.id} licence`);
                assert.match(m.released ?? '', /^\d{4}-\d{2}-\d{2}$/, `${m.id} released`);
                assert.ok(m.hub_ids.length > 0, `${m.id} hub ids`);
                // The importer's count is within 0.5 % of the published one.
                assert.ok(Math.abs(m.parameters_error) <= 0.005, `${m.id}: ${m.parameters_error}`);
        }
        const ds = await post('/api/v1/estimate', { model: { id: 'deepseek-ai/DeepSeek-V3' },
                workload: { mode: 'inference', batch_size: 1, sequence_length: 4096 }, precision: 'fp8_mixed' });
        assert.equal(ds.status, 200, ds.text);
        // MLA: 61 layers x (512 + 64) elements per token
        assert.equal(ds.json.model.architecture.kv_lora_rank, 512);
});

test('keys a pasted config.json leaves out are listed among the assumptions', async () => {
        const r = await post('/api/v1/estimate', {
                model: { hf_config: { model_type: 'mistral', hidden_size: 4096, num_hidden_layers: 32,
                        num_attention_heads: 32, intermediate_size: 14336, vocab_size: 32000 } },
                workload: { mode: 'inference', batch_size: 1, sequence_length: 1024 } });
        assert.equal(r.status, 200, r.text);
        const defaults = r.json.assumptions.filter((a) => a.code === 'config_default').map((a) => a.text);
        // MistralConfig: num_key_value_heads 8, max_position_embeddings 131072 (4096 * 32)
        assert.ok(defaults.some((t) => /num_key_value_heads: 8\b/.test(t)), defaults.join(' | '));
        assert.ok(defaults.some((t) => /max_position_embeddings: 131072\b/.test(t)), defaults.join(' | '));
        assert.ok(!defaults.some((t) => /hidden_size/.test(t)));
});
