-- 0019: measurements re-read from the code that printed them, and the
-- inputs two new request fields express.  tests/data/measurements.json
-- holds the same.
--
-- * The gpuplan H200 runs (0017, 0018): tests/measure/torch_peak_memory.py
--   calls backward on model(...).loss, so the model output is gone by
--   then: runtime.model_output_kept false.
-- * PEFT's seq2seq rows: the example pads labels to target_max_length
--   (about 4 tokens for these class labels): workload.target_length 4.
-- * llama-recipes prints int(bytes / 2**30): whole GiB, truncated; the
--   figures become N + 0.5 GiB.
-- * torchtune logs GiB since its pull request #1348 (2024-08-14), before
--   the 405B recipes: the 405B row's "GB" is read as GiB.

UPDATE measurements
   SET request = jsonb_set(request, '{runtime,model_output_kept}', 'false')
 WHERE id IN ('h200-bert-large-fp32-b4-eager',
              'h200-bert-large-fp32-b4-eager-smi',
              'h200-bert-large-fp16amp-b4-eager',
              'h200-bert-large-fp16amp-b4-eager-smi',
              'h200-bert-large-fp32-b4-sdpa',
              'h200-bert-large-fp32-b4-sdpa-smi',
              'h200-bert-large-fp16amp-b1ga4-ckpt-eager',
              'h200-bert-large-fp16amp-b1ga4-ckpt-eager-smi',
              'h200-gpt2-fp32-b8-eager',
              'h200-llama32-1b-bf16amp-b2-s2048',
              'h200-llama32-1b-bf16amp-b2-s2048-ckpt',
              'h200-qwen25-05b-bf16-b4-s1024-ckpt',
              'h200-llama31-8b-lora-qv-b1-s2048-ckpt',
              'h200-llama31-8b-lora-all-b2-s2048-ckpt',
              'h200-llama31-8b-lora-qv-b1-s1024',
              'h200-gemma-2b-lora-all-b2-s512',
              'h200-gemma2-2b-lora-all-b2-s1024-eager',
              'h200-gemma2-2b-lora-all-b2-s1024-sdpa',
              'h200-bert-base-fp32-b32-s128-eager',
              'h200-bert-base-fp32-b32-s128-eager-smi',
              'h200-mistral-7b-bf16-b1-s2048-ckpt',
              'h200-llama32-3b-bf16amp-b1-s2048-ckpt',
              'h200-qwen3-8b-lora-qkvo-b4-s4096-ckpt',
              'h200-flan-t5-large-fp32-b8-s128',
              'h200-flan-t5-large-lora-qv-fp32-b8-s128',
              'h200-llama32-1b-lora-qv-p0-b4-s1024',
              'h200-llama32-1b-lora-qv-b4-s1024',
              'h200-llama32-1b-lora-all-p0-b4-s1024',
              'h200-llama32-1b-full-bf16-b4-s1024');

UPDATE measurements
   SET measured = 29.5,
       unit = 'GiB',
       measured_bytes = 31675383808,
       notes = 'llama-recipes llama_finetuning.py defaults of mid-2023: batch_size_training 4, samsum packed by its Concatenator into 2048-token chunks, FSDP FULL_SHARD with transformer-layer wrapping and fsdp_activation_checkpointing on, HF LLaMA eager attention (no SDPA), AdamW; pure_bf16 as in the README''s full-parameter command. Assumed: the README command (--pure_bf16). llama-recipes'' utils/memory_utils.py of the time prints these figures through byte2gb(x) = int(x / 2**30): whole GiB, truncated, so the run''s peak lies in [N, N+1) GiB; recorded as N + 0.5 GiB.'
 WHERE id = 'llama-recipes-7b-fsdp-4xa100-reserved';

UPDATE measurements
   SET measured = 42.5,
       unit = 'GiB',
       measured_bytes = 45634027520,
       notes = 'llama-recipes llama_finetuning.py defaults of mid-2023: batch_size_training 4, samsum packed by its Concatenator into 2048-token chunks, FSDP FULL_SHARD with transformer-layer wrapping and fsdp_activation_checkpointing on, HF LLaMA eager attention (no SDPA), AdamW; low_cpu_fsdp loading. llama-recipes'' utils/memory_utils.py of the time prints these figures through byte2gb(x) = int(x / 2**30): whole GiB, truncated, so the run''s peak lies in [N, N+1) GiB; recorded as N + 0.5 GiB.'
 WHERE id = 'llama-recipes-70b-fsdp-16xa100-allocated';

UPDATE measurements
   SET measured = 63.5,
       unit = 'GiB',
       measured_bytes = 68182605824,
       notes = 'llama-recipes llama_finetuning.py defaults of mid-2023: batch_size_training 4, samsum packed by its Concatenator into 2048-token chunks, FSDP FULL_SHARD with transformer-layer wrapping and fsdp_activation_checkpointing on, HF LLaMA eager attention (no SDPA), AdamW; same run as the allocated figure: the 21 GiB between allocated and reserved is caching-allocator fragmentation, which the maintainers attribute to FSDP''s all-gather streams (they suggest expandable_segments). llama-recipes'' utils/memory_utils.py of the time prints these figures through byte2gb(x) = int(x / 2**30): whole GiB, truncated, so the run''s peak lies in [N, N+1) GiB; recorded as N + 0.5 GiB.'
 WHERE id = 'llama-recipes-70b-fsdp-16xa100-reserved';

UPDATE measurements
   SET notes = 'T0_3B is a T5 v1.1 LM-adapted XL (24+24 layers, d_model 2048, gated-GELU FFN 5120, 32 heads of 64, vocab 32128, untied head). The example scripts train in fp32 with AdamW and print torch.cuda.max_memory_allocated through their TorchTracemalloc helper. Assumed: batch 8 (the example scripts'' settings). The README''s seq2seq rows come from examples/conditional_generation/peft_lora_seq2seq_accelerate_ds_zero3_offload.py (its model line names bigscience/T0_3B): inputs tokenized with truncation and padded to the longest of each batch (tweets; 64 tokens assumed), labels padded to target_max_length, the longest class label (''Unlabeled'', ''complaint'', ''no complaint'') in tokens with the end-of-sequence token: about 4 (target_length 4); the loop keeps outputs until accelerator.backward(loss)',
       request = '{"runtime":{"gradients_persist":true,"optimizer_per_parameter":true},"model":{"hf_config":{"model_type":"t5","_name_or_path":"bigscience/T0_3B","d_model":2048,"d_ff":5120,"d_kv":64,"num_layers":24,"num_decoder_layers":24,"num_heads":32,"vocab_size":32128,"feed_forward_proj":"gated-gelu","tie_word_embeddings":false}},"workload":{"mode":"pre_train","batch_size":8,"sequence_length":64,"target_length":4},"precision":"fp32","optimizer":"adamw"}'::jsonb
 WHERE id = 'peft-t0-3b-full-fp32';

UPDATE measurements
   SET notes = 'LoRA r=8, alpha 32 on q and v (PEFT''s T5 defaults), fp32, AdamW. Assumed: batch 8. The README''s seq2seq rows come from examples/conditional_generation/peft_lora_seq2seq_accelerate_ds_zero3_offload.py (its model line names bigscience/T0_3B): inputs tokenized with truncation and padded to the longest of each batch (tweets; 64 tokens assumed), labels padded to target_max_length, the longest class label (''Unlabeled'', ''complaint'', ''no complaint'') in tokens with the end-of-sequence token: about 4 (target_length 4); the loop keeps outputs until accelerator.backward(loss)',
       request = '{"runtime":{"gradients_persist":true,"optimizer_per_parameter":true},"model":{"hf_config":{"model_type":"t5","_name_or_path":"bigscience/T0_3B","d_model":2048,"d_ff":5120,"d_kv":64,"num_layers":24,"num_decoder_layers":24,"num_heads":32,"vocab_size":32128,"feed_forward_proj":"gated-gelu","tie_word_embeddings":false}},"workload":{"mode":"lora","batch_size":8,"sequence_length":64,"target_length":4,"lora":{"rank":8,"alpha":32,"targets":["q","v"]}},"precision":"fp32","optimizer":"adamw"}'::jsonb
 WHERE id = 'peft-t0-3b-lora-fp32';

UPDATE measurements
   SET notes = 'mT0-XXL is mT5-XXL (24+24 layers, d_model 4096, gated-GELU FFN 10240, 64 heads of 64, vocab 250112, untied head). LoRA r=8, alpha 32 on q and v, fp32, AdamW. Assumed: batch 8. The README''s seq2seq rows come from examples/conditional_generation/peft_lora_seq2seq_accelerate_ds_zero3_offload.py (its model line names bigscience/T0_3B): inputs tokenized with truncation and padded to the longest of each batch (tweets; 64 tokens assumed), labels padded to target_max_length, the longest class label (''Unlabeled'', ''complaint'', ''no complaint'') in tokens with the end-of-sequence token: about 4 (target_length 4); the loop keeps outputs until accelerator.backward(loss)',
       request = '{"runtime":{"gradients_persist":true,"optimizer_per_parameter":true},"model":{"hf_config":{"model_type":"t5","_name_or_path":"bigscience/mt0-xxl","d_model":4096,"d_ff":10240,"d_kv":64,"num_layers":24,"num_decoder_layers":24,"num_heads":64,"vocab_size":250112,"feed_forward_proj":"gated-gelu","tie_word_embeddings":false}},"workload":{"mode":"lora","batch_size":8,"sequence_length":64,"target_length":4,"lora":{"rank":8,"alpha":32,"targets":["q","v"]}},"precision":"fp32","optimizer":"adamw"}'::jsonb
 WHERE id = 'peft-mt0-xxl-lora-fp32';

UPDATE measurements
   SET measured = 44.8,
       unit = 'GiB',
       measured_bytes = 48103633715,
       notes = 'Row ''| Llama 3.1 405B | QLoRA | 8x A100 | 44.8 GB | 653 |'' (Model, Finetuning Method, Runnable On, Peak Memory per GPU, Tokens/sec). The unit is printed ''GB'' in this row while every other row says ''GiB'': read as GiB, because torchtune''s get_memory_stats divides by 1024**3 since pull request #1348 (2024-08-14, ''Update peak memory stats to be logged in GiB''), before the 405B recipes shipped (v0.3.0, September 2024). A100 variant not stated (44.8 per GPU implies the 80 GB card). Config llama3_1/405B_qlora (lora_finetune_distributed, FSDP2 full shard over 8 GPUs): torchao NF4 base weights (block 64, scales quantized again = double quantization; output projection and embeddings bf16), lora_attn_modules q_proj, v_proj, output_proj + apply_lora_to_mlp (w1, w2, w3 = gate, up, down), apply_lora_to_output False, rank 16, alpha 32, dropout 0, pure bf16, fused AdamW, enable_activation_checkpointing True, chunked cross-entropy (CEWithChunkedOutputLoss), fsdp cpu_offload False; the README overrides batch 2 (config 1), packed 2048, gradient accumulation 1 (config 8), compile on (config off). compile is left out of the request as in the sibling torchtune cases. Assumed: peak allocated (the recipe logs active, allocated and reserved; the README does not say which), SDPA attention.'
 WHERE id = 'torchtune-llama3.1-405b-qlora-8xa100';
