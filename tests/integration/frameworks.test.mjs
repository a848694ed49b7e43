// Framework presets and the frameworks' own option names, through HTTP.
// What each preset sets is read from the framework's source and shipped
// configurations (server/core/estimate.c, estimate_apply_framework); the
// published runs these settings reproduce are in tests/data/measurements.json.
import test from 'node:test';
import assert from 'node:assert/strict';

import { post, request, assertProblem } from './lib.mjs';

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
        // reserved_bytes stands for (the total adds the CUDA context and
        // NCCL's 392 MB, both outside PyTorch's allocator).
        const r = await pretrain({ framework: 'torchtitan', parallelism: { gpus: 8 } });
        assert.equal(r.json.per_gpu.reserved_bytes, r.json.per_gpu.total_bytes - 512 * 2 ** 20 - 392e6);
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

// A 512-token prompt of Llama 3.1 8B on an RTX 4090, the way llama-bench's
// pp512 runs it.
const pp512 = (extra = {}) => post('/api/v1/estimate', {
        model: LLAMA8, gpu: 'rtx-4090',
        workload: { mode: 'inference', batch_size: 1, prompt_tokens: 512, generated_tokens: 0 },
        precision: 'fp16', kv_cache_precision: 'fp16',
        ...extra,
});

test('llama.cpp and ExLlama multiply in fp16 accumulation: GeForce runs that at its datasheet fp16-accumulate rate', async () => {
        // Ada whitepaper appendix: RTX 4090 dense fp16 with fp16 accumulate 330.3
        // TFLOPS, with fp32 accumulate 165.2.
        const g = await request('GET', '/api/v1/gpus/rtx-4090');
        assert.equal(g.status, 200, g.text);
        assert.equal(g.json.throughput_flops.fp16_accumulate, 330.3e12);
        assert.equal(g.json.throughput_flops.fp16, 165.2e12);
        const a100 = await request('GET', '/api/v1/gpus/a100-sxm-80gb');
        assert.equal(a100.json.throughput_flops.fp16_accumulate, null);

        const cpp = await pp512({ framework: 'llama_cpp' });
        assert.equal(cpp.status, 200, cpp.text);
        assert.equal(cpp.json.input.gemm_accumulation, 'fp16');
        assert.ok(frameworkDefaults(cpp).some((t) => t.startsWith('gemm_accumulation = fp16')), frameworkDefaults(cpp).join('; '));
        const fp32acc = await pp512({ framework: 'llama_cpp', runtime: { gemm_accumulation: 'fp32' } });
        assert.equal(fp32acc.json.input.gemm_accumulation, 'fp32');
        // Compute-bound prefill: the fp16-accumulate rate shortens it.
        assert.ok(cpp.json.inference.prefill_seconds < 0.8 * fp32acc.json.inference.prefill_seconds,
                  `${cpp.json.inference.prefill_seconds} vs ${fp32acc.json.inference.prefill_seconds}`);
        // On an A100 both accumulations run at one rate.
        const onA100 = async (acc) => (await pp512({ gpu: 'a100-sxm-80gb', framework: 'llama_cpp', runtime: { gemm_accumulation: acc } })).json.inference.prefill_seconds;
        assert.equal(await onA100('fp16'), await onA100('fp32'));

        for (const name of ['exllama', 'exllamav2', 'EXL2', 'tabbyAPI']) {
                const r = await pp512({ framework: name, quantization: 'int4' });
                assert.equal(r.status, 200, `${name}: ${r.text}`);
                assert.equal(r.json.input.framework, 'exllama');
                assert.equal(r.json.input.gemm_accumulation, 'fp16');
                assert.equal(r.json.input.dequantize_to_fp16, true);
        }
});

test('a quantized prompt copied to fp16 first costs a packed read and an fp16 write per weight', async () => {
        const mmq = await pp512({ framework: 'llama_cpp', quantization: 'int4', quantization_group_size: 32 });
        assert.equal(mmq.status, 200, mmq.text);
        assert.equal(mmq.json.input.dequantize_to_fp16, false);
        const copy = await pp512({ framework: 'llama_cpp', quantization: 'int4', quantization_group_size: 32,
                                   runtime: { dequantize_to_fp16: true } });
        // Llama 3.1 8B's block matrices: 32 x (4096 x (4096 + 2 x 1024 + 4096)
        // + 3 x 4096 x 14336) = 6,979,321,856 weights, at 4 + 20/32 bits packed
        // (0.578125 B) plus 2 B written: 18.0 GB at 0.8 x 1008 GB/s = 22.3 ms,
        // against unpacking on the CUDA cores (4 ops per weight at 82.6 TFLOPS fp32,
        // 0.34 ms) without the copy.
        const extra = copy.json.inference.prefill_seconds - mmq.json.inference.prefill_seconds;
        const hand = 6979321856 * (0.578125 + 2) / (0.8 * 1008e9) - 6979321856 * 4 / 82.6e12;
        assert.ok(Math.abs(extra - hand) < 0.02 * hand, `${extra} vs ${hand}`);
});

test('how the optimizer steps: Hugging Face optim names say fused or for-loop, and foreach moves three times the bytes of fused', async () => {
        const ft = (extra) => post('/api/v1/estimate', {
                model: { id: 'llama-3.2-1b' }, gpu: 'a100-sxm-80gb',
                workload: { mode: 'fine_tune', batch_size: 1, sequence_length: 512 }, precision: 'fp32', ...extra });
        const fused = await ft({ optim: 'adamw_torch_fused' });
        assert.equal(fused.status, 200, fused.text);
        assert.equal(fused.json.input.optimizer, 'adamw');
        assert.equal(fused.json.input.optimizer_implementation, 'fused');
        const foreach = await ft({ optim: 'adamw_torch' });
        assert.equal(foreach.json.input.optimizer_implementation, 'foreach');
        const loop = await ft({ optim: 'adamw_hf' });
        assert.equal(loop.json.input.optimizer_implementation, 'for_loop');
        // torch.optim AdamW outside the fused kernel: 84 B per fp32 parameter
        // against 28 (see core/compute.c); at 0.8 x 2.039 TB/s over
        // Llama 3.2 1B's 1,235,814,400 parameters (task head aside) that is
        // 1.2358e9 x 56 / 1.6312e12 = 42.4 ms more per step.
        const dt = foreach.json.compute.seconds_per_step - fused.json.compute.seconds_per_step;
        assert.ok(Math.abs(dt - 42.4e-3) < 0.03 * 42.4e-3, `${dt}`);
        const bad = await ft({ runtime: { optimizer_implementation: 'apex' } });
        assertProblem(bad, 400, '/runtime/optimizer_implementation');
        assert.match(bad.json.detail, /foreach, fused, for_loop/);
});

test('gradient clipping: on by default in the Trainer, off with max_grad_norm 0, and a bad norm is a 400', async () => {
        const ft = (extra) => post('/api/v1/estimate', {
                model: { id: 'llama-3.2-1b' }, gpu: 'a100-sxm-80gb', framework: 'hf_trainer',
                workload: { mode: 'fine_tune', batch_size: 1, sequence_length: 512 }, ...extra });
        const on = await ft({});
        assert.equal(on.status, 200, on.text);
        assert.equal(on.json.input.gradient_clipping, true);
        assert.ok(frameworkDefaults(on).some((t) => t.startsWith('gradient_clipping = true')));
        const off = await ft({ max_grad_norm: 0 });
        assert.equal(off.json.input.gradient_clipping, false);
        assert.ok(off.json.compute.seconds_per_step < on.json.compute.seconds_per_step);
        const tt = await ft({ clip_grad_norm: null });
        assert.equal(tt.json.input.gradient_clipping, false);
        assertProblem(await ft({ max_norm: -1 }), 400, '/max_norm');
});

test('serving engines\' own argument names: vLLM, llama.cpp and transformers requests answer as the API\'s names do', async () => {
        const own = await post('/api/v1/estimate', {
                model: LLAMA8, gpu: 'l4', framework: 'vllm',
                workload: { mode: 'inference', sequence_length: 8192, batch_size: 64 },
                kv_cache_precision: 'fp8', quantization: 'int4', precision: 'fp16',
                parallelism: { tensor_parallel: 1 }, serving: { gpu_memory_utilization: 0.85 } });
        assert.equal(own.status, 200, own.text);
        const vllm = await post('/api/v1/estimate', {
                model: LLAMA8, gpu: 'l4', framework: 'vllm', workload: { mode: 'inference' },
                max_model_len: 8192, max_num_seqs: 64, kv_cache_dtype: 'fp8_e4m3',
                quantization: 'awq_marlin', dtype: 'half', tensor_parallel_size: 1,
                gpu_memory_utilization: 0.85 });
        assert.equal(vllm.status, 200, vllm.text);
        assert.deepEqual(vllm.json.per_gpu, own.json.per_gpu);
        assert.deepEqual(vllm.json.serving, own.json.serving);

        const cpp = await post('/api/v1/estimate', {
                model: LLAMA8, gpu: 'rtx-4090', framework: 'llama.cpp', workload: { mode: 'inference' },
                n_ctx: 8192, quantization: 'Q4_K_M', cache_type_k: 'q8_0', cache_type_v: 'q8_0', flash_attn: true });
        assert.equal(cpp.status, 200, cpp.text);
        assert.equal(cpp.json.input.framework, 'llama_cpp');
        assert.equal(cpp.json.input.quantization, 'int4');
        assert.equal(cpp.json.input.kv_cache_precision, 'int8');
        assert.equal(cpp.json.input.sequence_length, 8192);
        // Different K and V cache types cannot be one kv_cache_precision.
        assertProblem(await post('/api/v1/estimate', {
                model: LLAMA8, workload: { mode: 'inference' }, cache_type_k: 'q8_0', cache_type_v: 'f16' }),
                400, '/cache_type_v');
        // A GGUF type with no counterpart is a 400 that lists what is valid.
        const q5 = await post('/api/v1/estimate', { model: LLAMA8, workload: { mode: 'inference' }, quantization: 'Q5_K_M' });
        assertProblem(q5, 400, '/quantization');
        assert.match(q5.json.detail, /int8, int4, nf4, fp8/);

        const hf = await post('/api/v1/estimate', {
                model: LLAMA8, workload: { mode: 'inference', batch_size: 4, prompt_tokens: 1024, max_new_tokens: 256 },
                torch_dtype: 'bfloat16', load_in_4bit: true });
        assert.equal(hf.status, 200, hf.text);
        assert.equal(hf.json.input.quantization, 'nf4');
        assert.equal(hf.json.input.precision, 'bf16');
        assert.equal(hf.json.input.generated_tokens, 256);
});
