// POST /api/v1/fit_options ("make it fit") over HTTP: the options it lists
// must each fit by the estimate endpoint's own verdict for the settings the
// option says to apply, and bad input names its field.
import test from 'node:test';
import assert from 'node:assert/strict';

import { post, assertProblem } from './lib.mjs';

// LoRA of Llama 3.1 8B in fp32 at batch 16 x 512 on a 24 GB RTX 4090: the
// fp32 weights alone are 8.03e9 x 4 bytes = 32 GB, more than the card.
const job = {
        model: { id: 'llama-3.1-8b' },
        workload: { mode: 'lora', batch_size: 16, sequence_length: 512 },
        precision: 'fp32',
        gpu: 'rtx-4090',
};

test('each option fits by the estimate endpoint, keeps the global batch and reads as a sentence', async () => {
        const r = await post('/api/v1/fit_options', job);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.fits_already, false);
        assert.ok(r.json.options.length > 0);
        for (const o of r.json.options) {
                const s = o.settings;
                // The changed request, as a notebook would send it.
                const again = await post('/api/v1/estimate', {
                        model: job.model,
                        workload: { mode: s.mode, batch_size: s.batch_size, sequence_length: 512,
                                gradient_accumulation: s.gradient_accumulation, lora: { rank: s.lora_rank } },
                        precision: s.precision, optimizer: s.optimizer,
                        memory_savers: { activation_checkpointing: s.activation_checkpointing,
                                flash_attention: s.flash_attention },
                        parallelism: { strategy: s.strategy, gpus: s.gpus, offload: s.offload },
                        gpu: job.gpu,
                });
                assert.equal(again.status, 200, again.text);
                const row = again.json.fits.find((f) => f.gpu === 'rtx-4090');
                assert.equal(row.fits, true, o.summary);
                assert.equal(s.batch_size * s.gradient_accumulation, 16);
                assert.doesNotMatch(o.summary, /[a-z]+_[a-z]+|\d{9,}/, 'no field names or raw byte counts');
        }
});

test('a job that fits gets no options; a missing GPU and a bad fit member name their field', async () => {
        const fits = await post('/api/v1/fit_options', { ...job, workload: { mode: 'inference', batch_size: 1 },
                precision: 'bf16' });
        assert.equal(fits.status, 200, fits.text);
        assert.equal(fits.json.fits_already, true);
        assert.deepEqual(fits.json.options, []);
        // An inference-only part: no change makes it train, and the answer says so.
        const npu = await post('/api/v1/fit_options', { ...job, gpu: 'groq-lpu' });
        assert.equal(npu.status, 200, npu.text);
        assert.deepEqual(npu.json.options, []);
        assert.match(npu.json.note, /inference only/);
        const { gpu, ...noGpu } = job;
        assertProblem(await post('/api/v1/fit_options', noGpu), 400, '/gpu');
        assertProblem(await post('/api/v1/fit_options', { ...job, fit: { max_gpus: 99 } }), 400, '/fit/max_gpus');
        assertProblem(await post('/api/v1/fit_options', { ...job, fit: 'yes' }), 400, '/fit');
        assertProblem(await post('/api/v1/fit_options', { ...job, fit: { allow_adapters: 'yes' } }), 400, '/fit/allow_adapters');
        assertProblem(await post('/api/v1/fit_options', { ...job, fit: { allow_lora: true } }), 400, '/fit/allow_lora');
        // an unknown catalog id is a 400 naming the field, as on every endpoint (hostile_rules.test.mjs)
        const unknown = await post('/api/v1/fit_options', { ...job, gpu: 'no-such-gpu' });
        assertProblem(unknown, 400, '/gpu');
        assert.equal(unknown.json.rule, 'exists');
});
