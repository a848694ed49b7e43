-- 0016: the fp16-accumulate tensor rate of GeForce parts; the ExLlama and
-- llama.cpp measurements asked as those engines run, and two more of them.
--
-- GeForce tensor cores multiply fp16 at twice the rate when they accumulate
-- in fp16 rather than fp32; 0002 stores the fp32-accumulate rate (what
-- PyTorch runs).  llama.cpp and ExLlama call cuBLAS with fp16 compute, so
-- the engine needs the other figure too.  Dense figures from the
-- architecture whitepapers 0002 cites for each row (checked 2026-11-25):
--   RTX 3090     Ampere GA102 whitepaper: fp16 tensor with fp16 accumulate 142
--   RTX 4090     Ada whitepaper appendix: 330.3 (fp32 accumulate 165.2)
--   RTX 4080     Ada whitepaper appendix: 194.9 (97.5)
--   RTX 4070 Ti  Ada whitepaper appendix (as RTX 4080 12GB): 160.4 (80.2)
--   RTX 5090     RTX Blackwell whitepaper appendix: 419 (209.5)
-- NULL elsewhere: data-centre and workstation parts run both at one rate.

ALTER TABLE accelerators
        ADD COLUMN fp16_accumulate_flops double precision CHECK (fp16_accumulate_flops > 0);

UPDATE accelerators SET fp16_accumulate_flops = 142e12 WHERE id = 'rtx-3090';
UPDATE accelerators SET fp16_accumulate_flops = 330.3e12 WHERE id = 'rtx-4090';
UPDATE accelerators SET fp16_accumulate_flops = 194.9e12 WHERE id = 'rtx-4080';
UPDATE accelerators SET fp16_accumulate_flops = 160.4e12 WHERE id = 'rtx-4070-ti';
UPDATE accelerators SET fp16_accumulate_flops = 419e12 WHERE id = 'rtx-5090';

-- The ExLlama README rows were run with ExLlama (v1); framework "exllama"
-- asks for its matmul path (fp16-accumulate cuBLAS over reconstructed
-- fp16 weights for prompts).  tests/data/throughput.json holds the same.
UPDATE throughput_measurements
   SET request = jsonb_set(request, '{framework}', '"exllama"')
 WHERE id LIKE 'exllama-%';

-- The llama.cpp build of PR 4766 (January 2024) dequantized quantized
-- weights to fp16 for prompt batches over 32 tokens before cuBLAS; current
-- builds multiply them in MMQ kernels.  The row says what its build did.
UPDATE throughput_measurements
   SET request = jsonb_set(request, '{runtime}', '{"dequantize_to_fp16": true}')
 WHERE id = 'llamacpp-pr4766-codellama7b-rtx4090-q4_0-pp512';


-- Two llama.cpp prompt measurements with the MMQ kernels current builds run
-- (PR 7676, PR 7860, June 2024).  tests/data/throughput.json holds the same.
INSERT INTO throughput_measurements
        (id, category, metric, measured, source, url, hardware, software, method, notes, request) VALUES
        ('llamacpp-pr7676-llama3-8b-rtx4090-q4_0-pp512', 'prefill', 'prefill_tokens_per_second', 10358.75, 'ggml-org/llama.cpp PR #7676 ''CUDA: use tensor cores for MMQ'' (JohannesGaessler, June 2024), performance table, column ''t/s cuda-ptx-mma-7''', 'https://github.com/ggml-org/llama.cpp/pull/7676', '1x NVIDIA GeForce RTX 4090', 'llama.cpp, branch cuda-ptx-mma-7 of PR #7676 (June 2024), CUDA backend, MMQ kernels on int8 tensor cores, all layers on the GPU', 'llama-bench pp512 at microbatch size 512: one 512-token prompt in one pass, prompt tokens / time, mean of repetitions (llama-bench default 5)', 'Row: ''| RTX 4090 | llama 8B Q4_0 | 512 | pp512 | 6279.91 | 10358.75 | 1.65 |'' (microbatch 512 is llama-bench''s default). llama-bench''s ''llama 8B'' in June 2024 is LLaMA 3 8B, mapped to llama-3-8b. GGUF Q4_0 (4-bit, one fp16 scale per 32 weights) mapped to int4 group 32. MMQ multiplies the quantized weights directly, with no fp16 copy: what llama.cpp runs by default since PR #8075 (June 2024), so the request leaves runtime.dequantize_to_fp16 at the preset (false). KV cache f16 (llama-bench default).',
         '{"model":{"id":"llama-3-8b"},"gpu":"rtx-4090","framework":"llama_cpp","workload":{"mode":"inference","batch_size":1,"prompt_tokens":512,"generated_tokens":0},"precision":"fp16","quantization":"int4","quantization_group_size":32,"kv_cache_precision":"fp16"}'::jsonb),
        ('llamacpp-pr7860-llama3-8b-rtx4090-q4_k_s-pp2048', 'prefill', 'prefill_tokens_per_second', 9267.19, 'ggml-org/llama.cpp PR #7860 ''CUDA: int8 tensor cores for MMQ (q4_K, q5_K, q6_K)'' (JohannesGaessler, June 2024), performance table, column ''t/s cuda-ptx-mma-12''', 'https://github.com/ggml-org/llama.cpp/pull/7860', '1x NVIDIA GeForce RTX 4090', 'llama.cpp, branch cuda-ptx-mma-12 of PR #7860 (June 2024), CUDA backend, MMQ kernels on int8 tensor cores, all layers on the GPU', 'llama-bench pp2048 at microbatch size 512: one 2,048-token prompt processed in four 512-token passes, prompt tokens / time, mean of repetitions (llama-bench default 5)', 'Row: ''| RTX 4090 | llama 8B Q4_K_S | 512 | pp2048 | 7694.01 | 9267.19 | 1.20 |''. llama-bench''s ''llama 8B'' in June 2024 is LLaMA 3 8B, mapped to llama-3-8b. Q4_K_S (4-bit k-quant, 4.5 bits per weight: 6-bit scales and minimums per 32 weights in 256-weight super-blocks) mapped to int4 group 32, the same bytes per weight. The request asks one 2,048-token pass; the run''s four 512-token passes do the same matmul and attention work. KV cache f16 (llama-bench default).',
         '{"model":{"id":"llama-3-8b"},"gpu":"rtx-4090","framework":"llama_cpp","workload":{"mode":"inference","batch_size":1,"prompt_tokens":2048,"generated_tokens":0},"precision":"fp16","quantization":"int4","quantization_group_size":32,"kv_cache_precision":"fp16"}'::jsonb);

-- NVIDIA's BERT scripts step with fused kernels (apex FusedLAMB for
-- pre-training, fused BertAdam for SQuAD): runtime.optimizer_implementation
-- says so now that the engine tells fused from foreach steps.
UPDATE throughput_measurements
   SET request = jsonb_set(request, '{runtime}', '{"optimizer_implementation": "fused"}')
 WHERE id LIKE 'dle-pyt-bert-large-%';

-- torchtune's memory rows ask framework torchtune: its QLoRA builds on
-- torchao's NF4 linears, which keep no matmul inputs for backward.
UPDATE measurements
   SET request = jsonb_set(request, '{framework}', '"torchtune"')
 WHERE id LIKE 'torchtune-%';
