-- 0011: measurements grouped by category, and the multi-GPU and framework
-- cases.
--
-- category: inference, single_gpu (full fine-tuning, LoRA, QLoRA on one
-- GPU), multi_gpu_peft (LoRA/QLoRA over several GPUs), multi_gpu_pretrain
-- (full-parameter training sharded or split over several GPUs).  GET
-- /api/v1/validation reports the median and p90 per category.
--
-- New cases (tests/data/measurements.json holds the same): torchtitan's
-- published FSDP and FSDP + TP runs of Llama 3.1 8B and 70B (max reserved,
-- docs/performance.md, December 2024 versions), LitGPT's LoRA over 2 and 4
-- GPUs with FSDP (max allocated, resource tables 2023-10-20) and LitGPT's
-- config-hub LoRA and QLoRA recipes on one A10G.  The torchtune 70B cases
-- state FSDP2, which torchtune shards with.

ALTER TABLE measurements ADD COLUMN category text NOT NULL DEFAULT 'single_gpu'
        CHECK (category IN ('inference', 'single_gpu', 'multi_gpu_peft', 'multi_gpu_pretrain'));

UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-7b-generate-bf16';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-7b-generate-nf4';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-7b-generate-nf4-dq';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-13b-generate-bf16';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-13b-generate-nf4';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-13b-generate-nf4-dq';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-llama2-70b-generate-nf4-dq';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-codellama-34b-generate-nf4';
UPDATE measurements SET category = 'inference' WHERE id = 'litgpt-codellama-34b-generate-nf4-dq';
UPDATE measurements SET category = 'inference' WHERE id = 'hf-octocoder-bf16';
UPDATE measurements SET category = 'inference' WHERE id = 'hf-octocoder-int8';
UPDATE measurements SET category = 'inference' WHERE id = 'hf-octocoder-4bit';
UPDATE measurements SET category = 'inference' WHERE id = 'accelerate-bert-base-cased-load';
UPDATE measurements SET category = 'multi_gpu_pretrain' WHERE id = 'torchtune-llama3.1-70b-full-8xa100';
UPDATE measurements SET category = 'multi_gpu_peft' WHERE id = 'torchtune-llama3.1-70b-lora-8xa100';
UPDATE measurements SET category = 'multi_gpu_pretrain' WHERE id = 'llama-recipes-7b-fsdp-4xa100-reserved';
UPDATE measurements SET category = 'multi_gpu_pretrain' WHERE id = 'llama-recipes-70b-fsdp-16xa100-allocated';
UPDATE measurements SET category = 'multi_gpu_pretrain' WHERE id = 'llama-recipes-70b-fsdp-16xa100-reserved';
UPDATE measurements SET category = 'multi_gpu_peft' WHERE id = 'llama-recipes-7b-fsdp-lora-4xa100-active';
UPDATE measurements
SET request = jsonb_set(request, '{parallelism,fsdp_version}', '2'::jsonb),
    notes = coalesce(notes, '') || '; torchtune shards with FSDP2 (fully_shard)'
WHERE id IN ('torchtune-llama3.1-70b-full-8xa100', 'torchtune-llama3.1-70b-lora-8xa100');

-- LitGPT's finetune/lora.py of the resource tables used lora_dropout 0.05.
UPDATE measurements
SET request = jsonb_set(request, '{workload,lora,dropout}', '0.05'::jsonb)
WHERE id IN ('litgpt-llama2-7b-lora-mb1', 'litgpt-llama2-7b-lora-mb2', 'litgpt-llama2-7b-qlora-nf4', 'litgpt-llama2-7b-qlora-nf4-dq', 'litgpt-llama2-13b-lora-mb1', 'litgpt-llama2-13b-qlora-nf4', 'litgpt-llama2-13b-qlora-nf4-dq');

INSERT INTO measurements (id, category, measured, unit, measured_bytes, kind, source, url, notes, request) VALUES
        ('torchtitan-llama3.1-8b-fsdp8-sac-op', 'multi_gpu_pretrain', 82.4, 'GiB', 88476326298, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 1 (FSDP, 8 GPUs, local batch 2, selective AC)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them)',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":2,"sequence_length":8192},"parallelism":{"gpus":8,"nodes":1},"memory_savers":{"activation_checkpointing":"selective"}}'::jsonb),
        ('torchtitan-llama3.1-8b-fsdp8-sac-op-compile', 'multi_gpu_pretrain', 77.0, 'GiB', 82678120448, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 1 (FSDP + torch.compile)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them); torch.compile per TransformerBlock',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":2,"sequence_length":8192},"parallelism":{"gpus":8,"nodes":1},"memory_savers":{"activation_checkpointing":"selective","compile":true}}'::jsonb),
        ('torchtitan-llama3.1-8b-fsdp8-sac-op-compile-float8', 'multi_gpu_pretrain', 76.8, 'GiB', 82463372083, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 1 (FSDP + torch.compile + Float8)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them); torch.compile per TransformerBlock; Float8',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":2,"sequence_length":8192},"parallelism":{"gpus":8,"nodes":1},"memory_savers":{"activation_checkpointing":"selective","compile":true}}'::jsonb),
        ('torchtitan-llama3.1-8b-fsdp128-sac-op', 'multi_gpu_pretrain', 67.0, 'GiB', 71940702208, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 3 (FSDP, 128 GPUs, local batch 2, selective AC)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them)',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":2,"sequence_length":8192},"parallelism":{"gpus":128,"nodes":16},"memory_savers":{"activation_checkpointing":"selective"}}'::jsonb),
        ('torchtitan-llama3.1-8b-fsdp128-sac-op-compile', 'multi_gpu_pretrain', 62.0, 'GiB', 66571993088, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 3 (FSDP + torch.compile)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them); torch.compile per TransformerBlock',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":2,"sequence_length":8192},"parallelism":{"gpus":128,"nodes":16},"memory_savers":{"activation_checkpointing":"selective","compile":true}}'::jsonb),
        ('torchtitan-llama3.1-8b-fsdp128-sac-op-compile-float8', 'multi_gpu_pretrain', 61.8, 'GiB', 66357244723, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 3 (FSDP + torch.compile + Float8)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them); torch.compile per TransformerBlock; Float8',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":2,"sequence_length":8192},"parallelism":{"gpus":128,"nodes":16},"memory_savers":{"activation_checkpointing":"selective","compile":true}}'::jsonb),
        ('torchtitan-llama3.1-8b-fsdp8-full-32k', 'multi_gpu_pretrain', 83.9, 'GiB', 90086939034, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 2 (FSDP 8, CP 1, sequence 32768, local batch 1, full AC, torch.compile + Float8)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them); torch.compile per TransformerBlock; Float8',
         '{"model":{"id":"llama-3.1-8b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":1,"sequence_length":32768},"parallelism":{"gpus":8,"nodes":1},"memory_savers":{"activation_checkpointing":"full","compile":true}}'::jsonb),
        ('torchtitan-llama3.1-70b-fsdp32-tp8-full', 'multi_gpu_pretrain', 71.9, 'GiB', 77202037146, 'max_reserved',
         'torchtitan docs/performance.md (versions of 2024-12-26: torch 1963fc8, torchao eab345c, torchtitan 9dec370; Grand Teton, H100 96GB HBM2e, 500 W), Table 4 (2D: FSDP 32 x TP 8, local batch 16, full AC, torch.compile + Float8)',
         'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
         'torchtitan logs max_memory_reserved; training.seq_len 8192 (llama3 train configs), bf16 FSDP2 mixed precision over fp32 parameters, fused AdamW, SDPA attention, cross-entropy on bf16 logits upcast in the loss; Float8 linears (torchao) are modelled as bf16 (the table shows 0.2 GiB between them); torch.compile per TransformerBlock; Float8',
         '{"model":{"id":"llama-3.1-70b"},"framework":"torchtitan","workload":{"mode":"pre_train","batch_size":16,"sequence_length":8192},"parallelism":{"gpus":256,"nodes":32,"tensor_parallel":8},"memory_savers":{"activation_checkpointing":"full","compile":true}}'::jsonb),
        ('litgpt-llama2-7b-lora-fsdp2-mb1', 'multi_gpu_peft', 22.18, 'GB', 22180000000, 'max_allocated',
         'LitGPT tutorials/resource-tables.md (2023-10-20, commit 8641822, A100-SXM4-40GB, PyTorch 2.1), Finetuning with LoRA on Multiple GPUs',
         'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md',
         'finetune/lora.py: "Memory used" = torch.cuda.max_memory_allocated()/1e9; Fabric FSDPStrategy (FSDP1, Block units, Block activation checkpointing, limit_all_gathers), bf16-true, r=8 on query and value, batch_size 128 // micro_batch_size accumulation iterations under fabric.no_backward_sync, longest Alpaca sample 1304 tokens, chunked cross-entropy',
         '{"model":{"id":"llama-2-7b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":1,"sequence_length":1304,"gradient_accumulation":128,"lora":{"rank":8,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw","parallelism":{"gpus":2,"nodes":1}}'::jsonb),
        ('litgpt-llama2-7b-lora-fsdp2-mb2', 'multi_gpu_peft', 22.47, 'GB', 22470000000, 'max_allocated',
         'LitGPT tutorials/resource-tables.md (2023-10-20, commit 8641822, A100-SXM4-40GB, PyTorch 2.1), Finetuning with LoRA on Multiple GPUs',
         'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md',
         'finetune/lora.py: "Memory used" = torch.cuda.max_memory_allocated()/1e9; Fabric FSDPStrategy (FSDP1, Block units, Block activation checkpointing, limit_all_gathers), bf16-true, r=8 on query and value, batch_size 128 // micro_batch_size accumulation iterations under fabric.no_backward_sync, longest Alpaca sample 1304 tokens, chunked cross-entropy',
         '{"model":{"id":"llama-2-7b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":2,"sequence_length":1304,"gradient_accumulation":64,"lora":{"rank":8,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw","parallelism":{"gpus":2,"nodes":1}}'::jsonb),
        ('litgpt-llama2-7b-lora-fsdp2-mb4', 'multi_gpu_peft', 23.39, 'GB', 23390000000, 'max_allocated',
         'LitGPT tutorials/resource-tables.md (2023-10-20, commit 8641822, A100-SXM4-40GB, PyTorch 2.1), Finetuning with LoRA on Multiple GPUs',
         'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md',
         'finetune/lora.py: "Memory used" = torch.cuda.max_memory_allocated()/1e9; Fabric FSDPStrategy (FSDP1, Block units, Block activation checkpointing, limit_all_gathers), bf16-true, r=8 on query and value, batch_size 128 // micro_batch_size accumulation iterations under fabric.no_backward_sync, longest Alpaca sample 1304 tokens, chunked cross-entropy',
         '{"model":{"id":"llama-2-7b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":4,"sequence_length":1304,"gradient_accumulation":32,"lora":{"rank":8,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw","parallelism":{"gpus":2,"nodes":1}}'::jsonb),
        ('litgpt-llama2-13b-lora-fsdp4-mb1', 'multi_gpu_peft', 35.57, 'GB', 35570000000, 'max_allocated',
         'LitGPT tutorials/resource-tables.md (2023-10-20, commit 8641822, A100-SXM4-40GB, PyTorch 2.1), Finetuning with LoRA on Multiple GPUs',
         'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md',
         'finetune/lora.py: "Memory used" = torch.cuda.max_memory_allocated()/1e9; Fabric FSDPStrategy (FSDP1, Block units, Block activation checkpointing, limit_all_gathers), bf16-true, r=8 on query and value, batch_size 128 // micro_batch_size accumulation iterations under fabric.no_backward_sync, longest Alpaca sample 1304 tokens, chunked cross-entropy',
         '{"model":{"id":"llama-2-13b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":1,"sequence_length":1304,"gradient_accumulation":128,"lora":{"rank":8,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw","parallelism":{"gpus":4,"nodes":1}}'::jsonb),
        ('litgpt-hub-llama2-7b-lora', 'single_gpu', 19.77, 'GB', 19770000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config llama-2-7b/lora.yaml: max_seq_length 512, micro batch 2, lora_r 32; torch AdamW',
         '{"model":{"id":"llama-2-7b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":2,"sequence_length":512,"gradient_accumulation":4,"lora":{"rank":32,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw"}'::jsonb),
        ('litgpt-hub-llama2-7b-qlora', 'single_gpu', 13.68, 'GB', 13680000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config llama-2-7b/qlora.yaml: max_seq_length 512, micro batch 2, lora_r 32; bnb.nf4 without double quantization, bitsandbytes paged AdamW',
         '{"model":{"id":"llama-2-7b"},"framework":"litgpt","workload":{"mode":"qlora","batch_size":2,"sequence_length":512,"gradient_accumulation":4,"lora":{"rank":32,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"paged_adamw","quantization":"nf4","double_quantization":false}'::jsonb),
        ('litgpt-hub-llama3-8b-lora', 'single_gpu', 19.73, 'GB', 19730000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config llama-3-8b/lora.yaml: max_seq_length 512, micro batch 1, lora_r 32; torch AdamW',
         '{"model":{"id":"llama-3-8b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":1,"sequence_length":512,"gradient_accumulation":8,"lora":{"rank":32,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw"}'::jsonb),
        ('litgpt-hub-llama3-8b-qlora', 'single_gpu', 17.41, 'GB', 17410000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config llama-3-8b/qlora.yaml: max_seq_length 512, micro batch 2, lora_r 32; bnb.nf4 without double quantization, bitsandbytes paged AdamW',
         '{"model":{"id":"llama-3-8b"},"framework":"litgpt","workload":{"mode":"qlora","batch_size":2,"sequence_length":512,"gradient_accumulation":4,"lora":{"rank":32,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"paged_adamw","quantization":"nf4","double_quantization":false}'::jsonb),
        ('litgpt-hub-mistral-7b-lora', 'single_gpu', 20.66, 'GB', 20660000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config mistral-7b/lora.yaml: max_seq_length 512, micro batch 2, lora_r 32; torch AdamW',
         '{"model":{"id":"mistral-7b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":2,"sequence_length":512,"gradient_accumulation":4,"lora":{"rank":32,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"adamw"}'::jsonb),
        ('litgpt-hub-mistral-7b-qlora', 'single_gpu', 14.29, 'GB', 14290000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config mistral-7b/qlora.yaml: max_seq_length 512, micro batch 2, lora_r 32; bnb.nf4 without double quantization, bitsandbytes paged AdamW',
         '{"model":{"id":"mistral-7b"},"framework":"litgpt","workload":{"mode":"qlora","batch_size":2,"sequence_length":512,"gradient_accumulation":4,"lora":{"rank":32,"alpha":16,"targets":["q_proj","v_proj"]}},"optimizer":"paged_adamw","quantization":"nf4","double_quantization":false}'::jsonb),
        ('litgpt-hub-falcon-7b-lora', 'single_gpu', 16.69, 'GB', 16690000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config falcon-7b/lora.yaml: max_seq_length 512, micro batch 1, lora_r 32; torch AdamW',
         '{"model":{"id":"falcon-7b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":1,"sequence_length":512,"gradient_accumulation":8,"lora":{"rank":32,"alpha":16,"targets":["query_key_value"]}},"optimizer":"adamw"}'::jsonb),
        ('litgpt-hub-falcon-7b-qlora', 'single_gpu', 9.44, 'GB', 9440000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config falcon-7b/qlora.yaml: max_seq_length 512, micro batch 1, lora_r 32; bnb.nf4 without double quantization, bitsandbytes paged AdamW',
         '{"model":{"id":"falcon-7b"},"framework":"litgpt","workload":{"mode":"qlora","batch_size":1,"sequence_length":512,"gradient_accumulation":8,"lora":{"rank":32,"alpha":16,"targets":["query_key_value"]}},"optimizer":"paged_adamw","quantization":"nf4","double_quantization":false}'::jsonb),
        ('litgpt-hub-gemma-2b-lora', 'single_gpu', 12.62, 'GB', 12620000000, 'max_allocated',
         'LitGPT config_hub/finetune/README.md (automated benchmarks on Lightning AI Studios, 1x A10G 24GB, bf16-true, Alpaca2k)',
         'https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md',
         '"Peak memory" (torch.cuda.max_memory_allocated, GB); config gemma-2b/lora.yaml: max_seq_length 512, micro batch 2, lora_r 8; torch AdamW',
         '{"model":{"id":"gemma-2b"},"framework":"litgpt","workload":{"mode":"lora","batch_size":2,"sequence_length":512,"gradient_accumulation":4,"lora":{"rank":8,"alpha":16,"targets":["all-linear","lm_head"]}},"optimizer":"adamw"}'::jsonb);
