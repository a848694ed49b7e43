// Models read from the Hugging Face Hub: a gpuplan process pointed at the
// Hub stand-in (tests/integration/hub/standin.mjs) by HF_ENDPOINT, the
// answers kept in PostgreSQL, and the Hub's failures as problem documents.
import test from 'node:test';
import assert from 'node:assert/strict';

import { startServer, request, assertProblem, adminToken, createDatabase } from './lib.mjs';
import { startHub, loadFixtures, loadQuantized, TINY_PARAMETERS } from './hub/standin.mjs';

const INFER = { mode: 'inference', batch_size: 1, sequence_length: 512 };
let hub, server, db;
// A process and a database of its own: what it reads from the stand-in and
// the team models it stores stay out of the other files' catalog; a short
// total time limit makes the slow case quick.
const hubEnv = (extra = {}) => ({ DATABASE_URL: db, HF_ENDPOINT: hub.url, HF_TOKEN: hub.token,
        GPUPLAN_HUB_TIMEOUT_S: '2', GPUPLAN_HUB_MAX_KIB: '1024', GPUPLAN_THREADS: '2',
        GPUPLAN_ADMIN_TOKEN: adminToken(), ...extra });
const put = (base, id, body, token = adminToken()) => request('PUT', `/api/v1/models/${id}`,
        { base, body, headers: token ? { authorization: `Bearer ${token}` } : {} });
const estimate = (base, model, extra = {}) => request('POST', '/api/v1/estimate',
        { base, body: { model, workload: INFER, ...extra } });

test.before(async () => {
        db = createDatabase('hub_models_test');
        hub = await startHub({ slowMs: 20000 });
        server = await startServer({ env: hubEnv() });
});
test.after(async () => {
        await server?.stop();
        await hub?.close();
});

test('the 20 Hub ids are answered with their published parameter counts (within 1%)', async () => {
        const fixtures = loadFixtures();
        assert.equal(fixtures.length, 20);
        for (const f of fixtures) {
                const r = await estimate(server.url, { id: f.repo });
                assert.equal(r.status, 200, `${f.repo}: ${r.text}`);
                const own = r.json.model.source.config_parameters;
                const published = f.published_parameters - (f.tied_head_parameters || 0);
                const err = Math.abs(own - published) / published;
                assert.ok(err <= 0.01, `${f.repo}: ${own} against ${published} (${(100 * err).toFixed(2)}%; ${f.published_source})`);
                assert.equal(r.json.model.source.repo, f.repo);
                assert.equal(r.json.model.source.sha, f.sha);
        }
});

test('a pre-quantized checkpoint is estimated as stored', async () => {
        // gpt-oss ships its experts in MXFP4, DeepSeek-V3.1 in block fp8
        const oss = await estimate(server.url, { id: 'openai/gpt-oss-20b' });
        assert.equal(oss.json.input.quantization, 'mxfp4');
        assert.ok(oss.json.assumptions.some((a) => a.code === 'checkpoint_quantization' && /MXFP4/.test(a.text)));
        assert.ok(oss.json.assumptions.some((a) => a.code === 'mxfp4_experts'));
        // experts 24 x 32 x 3 x 2880^2 = 19,110,297,600 at 4.25 bits = 10,152,345,600 bytes, the
        // other 1,804,459,584 parameters in bf16 = 3,608,919,168: 13,761,264,768 bytes, the
        // model card's "Checkpoint Size ... 12.8GiB" (arXiv:2508.10925v1, table 1, last row)
        const w = oss.json.per_gpu.components.weights;
        assert.ok(Math.abs(w - 13761264768) < 1e6, `gpt-oss-20b weights ${w}`);
        const ds = await estimate(server.url, { id: 'deepseek-ai/DeepSeek-V3.1' });
        assert.equal(ds.json.input.quantization, 'fp8');
        // asking for a quantization overrides the checkpoint's
        const asked = await estimate(server.url, { id: 'deepseek-ai/DeepSeek-V3.1' }, { quantization: 'none' });
        assert.equal(asked.json.input.quantization, 'none');
        assert.ok(asked.json.per_gpu.components.weights > 1.9 * ds.json.per_gpu.components.weights);
});

test('one quantized copy per format (GPTQ, AWQ, bitsandbytes 4-bit, compressed-tensors fp8) is estimated as stored', async () => {
        const fixtures = loadQuantized();
        assert.equal(fixtures.length, 4);
        for (const f of fixtures) {
                const r = await estimate(server.url, { id: f.repo });
                assert.equal(r.status, 200, `${f.repo}: ${r.text}`);
                assert.equal(r.json.input.quantization, f.expected_quantization, f.repo);
                assert.ok(r.json.assumptions.some((a) => a.code === 'checkpoint_quantization' && a.text.includes(f.format)),
                          `${f.repo}: ${JSON.stringify(r.json.assumptions)}`);
                // the same model asked for in 16-bit holds about 4x (int4) or 2x (fp8) the weight bytes
                const full = await estimate(server.url, { id: f.repo }, { quantization: 'none' });
                const ratio = full.json.per_gpu.components.weights / r.json.per_gpu.components.weights;
                assert.ok(f.expected_quantization === 'fp8' ? ratio > 1.6 : ratio > 2.5, `${f.repo}: ${ratio}`);
        }
});

test('safetensors totals: used and named; a difference above 1% is a warning', async () => {
        const bloom = await estimate(server.url, { id: 'bigscience/bloom-7b1' });
        assert.equal(bloom.json.model.source.parameters_source, 'safetensors');
        assert.ok(bloom.json.assumptions.some((a) => a.code === 'hub_parameters'));
        assert.ok(!bloom.json.warnings.some((w) => w.code === 'hub_parameters_differ'));
        const off = await estimate(server.url, { id: 'gpuplan-test/mismatch' });
        assert.equal(off.status, 200, off.text);
        assert.equal(off.json.model.source.config_parameters, TINY_PARAMETERS);
        // the stand-in's total is 10% above the config's count, and the estimate counts it
        assert.equal(off.json.model.checkpoint_parameters, Math.round(TINY_PARAMETERS * 1.1));
        assert.ok(off.json.warnings.some((w) => w.code === 'hub_parameters_differ' && /10\.0%/.test(w.text)));
});

test('Hub ids as URLs, in any case, and pinned revisions', async () => {
        const f = loadFixtures().find((x) => x.repo === 'HuggingFaceTB/SmolLM2-1.7B');
        for (const id of ['https://huggingface.co/HuggingFaceTB/SmolLM2-1.7B', 'huggingfacetb/smollm2-1.7b',
                `https://huggingface.co/HuggingFaceTB/SmolLM2-1.7B/tree/${f.sha}`]) {
                const r = await estimate(server.url, { id });
                assert.equal(r.status, 200, `${id}: ${r.text}`);
                assert.equal(r.json.model.source.sha, f.sha);
        }
        const pinned = await estimate(server.url, { id: f.repo, revision: f.sha });
        assert.equal(pinned.json.model.source.revision, f.sha);
        const bad = await estimate(server.url, { id: f.repo, revision: 'no-such-branch' });
        assertProblem(bad, 404, '/model/id');
        assert.match(bad.json.detail, /no revision "no-such-branch"/);
});

test('32 concurrent first requests for one id make one fetch', async () => {
        const id = 'gpuplan-test/concurrent'; // its model info takes 300 ms
        hub.resetHits();
        const all = await Promise.all(Array.from({ length: 32 }, () => estimate(server.url, { id })));
        for (const r of all)
                assert.equal(r.status, 200, r.text);
        // one model-info request and one config.json (its redirect and the copy)
        assert.equal(hub.hits(id), 3);
});

test('the Hub\'s failures are problem documents that say what to do', async () => {
        const missing = await estimate(server.url, { id: 'meta-llama/Llama-2-7b-hff' });
        assertProblem(missing, 404, '/model/id');
        assert.match(missing.json.detail, /the Hub has no model meta-llama\/Llama-2-7b-hff/);
        assert.match(missing.json.detail, /closest: llama-2-7b/);

        const slow = await estimate(server.url, { id: 'gpuplan-test/slow-model' });
        assertProblem(slow, 504, '/model/id');
        assert.match(slow.json.detail, /within 2\.0 s/);
        assert.match(slow.json.detail, /hf_config/);

        const huge = await estimate(server.url, { id: 'gpuplan-test/oversized' });
        assertProblem(huge, 502, '/model/id');
        assert.match(huge.json.detail, /larger than 1048576 bytes/);

        const broken = await estimate(server.url, { id: 'gpuplan-test/malformed' });
        assertProblem(broken, 502, '/model/id');
        assert.match(broken.json.detail, /config\.json is not a JSON object/);

        const loop = await estimate(server.url, { id: 'gpuplan-test/redirect-loop' });
        assertProblem(loop, 502, '/model/id');
        assert.match(loop.json.detail, /redirected more than 5 times/);

        const refused = await estimate(server.url, { id: 'gpuplan-test/no-kv-heads' });
        assertProblem(refused, 422, '/model/id');
        assert.match(refused.json.detail, /num_key_value_heads/);
});

test('a gated id: 403 without a token naming HF_TOKEN, 200 with it', async () => {
        const bare = await startServer({ env: hubEnv({ HF_TOKEN: undefined }) });
        try {
                const r = await estimate(bare.url, { id: 'gpuplan-test/gated-tiny' });
                assertProblem(r, 403, '/model/id');
                assert.match(r.json.detail, /HF_TOKEN must be set on the server/);
        } finally {
                await bare.stop();
        }
        const ok = await estimate(server.url, { id: 'gpuplan-test/gated-tiny' });
        assert.equal(ok.status, 200, ok.text);
        assert.equal(ok.json.model.source.gated, true);
});

test('GPUPLAN_HUB=off: an unknown Hub id says to paste the config or add the model', async () => {
        const off = await startServer({ env: hubEnv({ GPUPLAN_HUB: 'off' }) });
        try {
                const r = await estimate(off.url, { id: 'someone/never-fetched-model' });
                assertProblem(r, 404, '/model/id');
                assert.match(r.json.detail, /GPUPLAN_HUB=off/);
                assert.match(r.json.detail, /hf_config/);
                assert.match(r.json.detail, /PUT \/api\/v1\/models/);
        } finally {
                await off.stop();
        }
});

test('a team\'s own model: stored from a Hub id or a pasted config, listed, searched and estimated', async () => {
        const smol = loadFixtures().find((x) => x.repo === 'HuggingFaceTB/SmolLM2-1.7B');
        const a = await put(server.url, 'acme-smol-support', { name: 'Acme Smol (support tickets)', family: 'llama',
                licence: 'apache-2.0', note: 'fine-tuned on our tickets', hub_id: smol.repo });
        assert.equal(a.status, 201, a.text);
        assert.equal(a.json.origin, 'team');
        assert.deepEqual(a.json.hub_ids, [smol.repo]);
        assert.equal(a.json.notes, 'fine-tuned on our tickets');
        // the importer's count of SmolLM2-1.7B (the paper: 1.71B)
        assert.ok(Math.abs(a.json.published_parameters - 1.71e9) / 1.71e9 < 0.01);
        const again = await put(server.url, 'acme-smol-support', { name: 'Acme Smol v2', family: 'llama', hf_config: smol.config });
        assert.equal(again.status, 200, again.text);
        assert.equal(again.json.name, 'Acme Smol v2');

        const listed = await request('GET', '/api/v1/models?q=acme%20smol', { base: server.url });
        assert.deepEqual(listed.json.models.map((m) => m.id), ['acme-smol-support']);
        const est = await estimate(server.url, { id: 'acme-smol-support' });
        assert.equal(est.status, 200, est.text);
        assert.equal(est.json.model.checkpoint_parameters, again.json.parameters);

        // words of a name find a catalog model by its Hub id
        const words = await request('GET', '/api/v1/models?q=qwen2.5%207b%20instruct', { base: server.url });
        assert.ok(words.json.models.some((m) => m.id === 'qwen2.5-7b'), words.text);

        const bad = await put(server.url, 'acme-broken', { name: 'x', family: 'llama',
                hf_config: { ...smol.config, num_key_value_heads: 0 } });
        assertProblem(bad, 400, '/hf_config/num_key_value_heads');
        const curated = await put(server.url, 'llama-2-7b', { name: 'mine now', family: 'llama', hf_config: smol.config });
        assertProblem(curated, 409, '/id');
        const both = await put(server.url, 'acme-both', { name: 'x', family: 'llama', hf_config: smol.config, hub_id: smol.repo });
        assertProblem(both, 400, '');
        const anonymous = await put(server.url, 'acme-anon', { name: 'x', family: 'llama', hf_config: smol.config }, null);
        assert.equal(anonymous.status, 401);
});

test('after the stand-in stops and the server restarts, a fetched id is still answered', async () => {
        const id = 'stabilityai/stablelm-2-1_6b';
        const first = await estimate(server.url, { id });
        assert.equal(first.status, 200, first.text);
        await server.stop();
        await hub.close();
        server = await startServer({ env: hubEnv() });
        const again = await estimate(server.url, { id });
        assert.equal(again.status, 200, again.text);
        assert.equal(again.json.model.checkpoint_parameters, first.json.model.checkpoint_parameters);
        assert.equal(again.json.model.source.sha, first.json.model.source.sha);
        // one the database never saw is a 502 now, and says how long it tried
        const never = await estimate(server.url, { id: 'tiiuae/falcon-40b-instruct' });
        assertProblem(never, 502, '/model/id');
        assert.match(never.json.detail, /cannot reach the Hub/);
        // the stand-in back, and a server pointed at it, for the cases below
        hub = await startHub();
        await server.stop();
        server = await startServer({ env: hubEnv() });
});

test('after the TTL a branch is asked for again with If-None-Match: 304 keeps the copy, a new config.json replaces it', async () => {
        const id = 'gpuplan-test/refresh';
        const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
        const short = await startServer({ env: hubEnv({ GPUPLAN_HUB_TTL_S: '2' }) });
        try {
                const first = await estimate(short.url, { id });
                assert.equal(first.status, 200, first.text);
                const src = first.json.model.source;
                assert.match(src.etag, /^"[0-9a-f]{40}"$/);
                assert.equal(first.json.model.checkpoint_parameters, TINY_PARAMETERS);
                const hits = hub.hits(id);
                // within the TTL: from memory, no request to the Hub
                const cached = await estimate(short.url, { id });
                assert.equal(cached.json.model.source.fetched_at, src.fetched_at);
                assert.equal(hub.hits(id), hits);
                // past it: one conditional GET, answered 304; same copy, fetched_at moves on
                await sleep(3100);
                const unchanged = await estimate(short.url, { id });
                assert.equal(unchanged.status, 200, unchanged.text);
                assert.equal(hub.notModified(id), 1);
                assert.equal(hub.hits(id), hits + 1, 'one request: the conditional config.json');
                assert.equal(unchanged.json.model.source.sha, src.sha);
                assert.equal(unchanged.json.model.source.etag, src.etag);
                assert.ok(unchanged.json.model.source.fetched_at > src.fetched_at,
                          `${unchanged.json.model.source.fetched_at} after ${src.fetched_at}`);
                // a new commit changes config.json (4 layers of 655,872 instead of 2): read anew
                hub.publish(id, JSON.stringify({ ...hub.models.get(id).config, num_hidden_layers: 4 }));
                await sleep(3100);
                const changed = await estimate(short.url, { id });
                assert.equal(changed.status, 200, changed.text);
                assert.equal(hub.notModified(id), 1);
                assert.notEqual(changed.json.model.source.sha, src.sha);
                assert.notEqual(changed.json.model.source.etag, src.etag);
                assert.equal(changed.json.model.checkpoint_parameters, TINY_PARAMETERS + 2 * 655872);
        } finally {
                await short.stop();
        }
});

test('images per sample: each image adds the tokens the config says to the sequence', async () => {
        // Gemma 3: mm_tokens_per_image 256, so 4 images add 1024 tokens
        const plain = await estimate(server.url, { id: 'google/gemma-3-27b-it' });
        const four = await request('POST', '/api/v1/estimate', { base: server.url, body: {
                model: { id: 'google/gemma-3-27b-it' },
                workload: { ...INFER, images_per_sample: 4 } } });
        assert.equal(four.status, 200, four.text);
        assert.equal(four.json.input.sequence_length, 512 + 4 * 256);
        assert.equal(four.json.input.image_tokens, 1024);
        assert.ok(four.json.per_gpu.components.kv_cache > plain.json.per_gpu.components.kv_cache);
        // the tower is in the weights: 423,060,336 parameters (test_vision.c)
        assert.equal(four.json.model.architecture.vision_parameters, 423060336);
        // each image runs (896 / 14)^2 = 4096 patches through the tower's 27 blocks before they
        // are pooled to 256; its FLOPs are 2 x 423,060,336 x 4096 per image on top of the text's
        assert.ok(four.json.assumptions.some((a) => a.code === 'vision_tower' && /4096 tokens/.test(a.text) && /256 tokens/.test(a.text)),
                  JSON.stringify(four.json.assumptions));
        const textOnly = await request('POST', '/api/v1/estimate', { base: server.url, body: {
                model: { id: 'google/gemma-3-27b-it' },
                workload: { ...INFER, sequence_length: 512 + 4 * 256 } } });
        assert.equal(textOnly.status, 200, textOnly.text);
        const towerFlops = four.json.compute.flops_per_step - textOnly.json.compute.flops_per_step;
        assert.ok(Math.abs(towerFlops - 4 * 2 * 423060336 * 4096) < 1e6, `tower FLOPs ${towerFlops}`);
        const text = await request('POST', '/api/v1/estimate', { base: server.url, body: {
                model: { id: 'HuggingFaceTB/SmolLM2-1.7B' }, workload: { ...INFER, images_per_sample: 1 } } });
        assertProblem(text, 400, '/workload/images_per_sample');
});

test('GET /api/v1/hub/{org}/{name}: what the page shows before estimating, and search finds read models', async () => {
        const r = await request('GET', '/api/v1/hub/Qwen/Qwen2.5-VL-7B-Instruct', { base: server.url });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.id, 'Qwen/Qwen2.5-VL-7B-Instruct');
        // text 7,615,616,512 + tower 676,550,144 (test_vision.c)
        assert.equal(r.json.vision_parameters, 676550144);
        assert.equal(r.json.parameters_source, 'config');
        assert.equal(r.json.hf_config.model_type, 'qwen2_5_vl');
        const q = await request('GET', '/api/v1/hub/TheBloke/Llama-2-7B-Chat-GPTQ', { base: server.url });
        assert.equal(q.json.quantization, 'int4');
        assert.equal(q.json.quantization_format, 'GPTQ 4-bit');
        const found = await request('GET', '/api/v1/models?q=qwen2.5%20vl', { base: server.url });
        assert.ok(found.json.hub_models.some((m) => m.id === 'Qwen/Qwen2.5-VL-7B-Instruct'), found.text);
        const none = await request('GET', '/api/v1/hub/nobody/nothing-here', { base: server.url });
        assertProblem(none, 404, '/id');
        // a near miss names the Hub models read before, of its organisation
        const near = await estimate(server.url, { id: 'Qwen/Qwen2.5-VL-7B-Instructt' });
        assertProblem(near, 404, '/model/id');
        assert.match(near.json.detail, /read from the Hub earlier: .*Qwen\/Qwen2\.5-VL-7B-Instruct/);
        const bad = await request('GET', '/api/v1/hub/x/y?revision=..%2Fetc', { base: server.url });
        assertProblem(bad, 400, '?revision');
});
