/*
 * estimate.h - the estimation engine: memory per GPU, CPU memory, compute,
 * time, bottleneck, fit over a GPU list, serving capacity.
 *
 * estimate_run() takes a model and a workload (struct estimate_input) and a
 * list of accelerators and fills a struct estimate_result: every memory
 * component in bytes at the phase that sets the peak (end of forward,
 * backward, optimizer step; prefill or decode for inference), the CPU side,
 * FLOPs and seconds on the chosen GPU, which GPUs fit and how many are
 * needed, and machine-readable notes (assumptions, warnings, suggestions)
 * that notes_text() turns into sentences.
 *
 * Memory and threads: nothing is allocated; the result is a fixed-size
 * value owned by the caller (about 20 KiB: keep it off small stacks or
 * reuse one).  The functions are pure and may run on any number of
 * threads at once.  The engine reads but never keeps the gpus array.
 *
 * Units: bytes (uint64_t), FLOPs (double), seconds (double).  All byte
 * arithmetic on request numbers is overflow-checked; absurd input fails
 * with an error that names the field, never wraps.
 */
#ifndef GPUPLAN_CORE_ESTIMATE_H
#define GPUPLAN_CORE_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gpu.h"
#include "core/model.h"

enum est_mode {
        EST_INFERENCE = 0,
        EST_FINE_TUNE, /* full fine-tuning with a task head (num_labels) */
        EST_PRE_TRAIN, /* LM head over the whole vocabulary */
        EST_LORA,
        EST_QLORA,
        EST_MODE_COUNT
};

enum est_precision {
        EST_FP32 = 0,
        EST_TF32,       /* fp32 storage, tf32 tensor-core matmuls */
        EST_FP16_MIXED, /* fp16 compute, fp32 master weights and optimizer states */
        EST_BF16_MIXED,
        EST_FP16,      /* pure: weights, gradients, optimizer states in fp16 */
        EST_BF16,      /* pure bf16 (torchtune / litgpt default) */
        EST_FP8_MIXED, /* fp8 matmuls, bf16 weights, fp32 master + states */
        EST_PRECISION_COUNT
};

enum est_quant {
        EST_QUANT_NONE = 0,
        EST_QUANT_INT8, /* LLM.int8 / weight-only int8 */
        EST_QUANT_INT4, /* GPTQ / AWQ style, with group size */
        EST_QUANT_NF4,  /* bitsandbytes NF4, optional double quantization */
        EST_QUANT_FP8,  /* fp8 e4m3 weights (vLLM/TensorRT-LLM fp8): fp8 matmuls where the GPU has
                           them */
        /* OCP MXFP4 on the routed experts only, as gpt-oss ships them */
        EST_QUANT_MXFP4,
        EST_QUANT_COUNT
};

enum est_kv_dtype {
        EST_KV_AUTO = 0, /* the compute dtype */
        EST_KV_FP32,
        EST_KV_FP16,
        EST_KV_BF16,
        EST_KV_FP8,
        EST_KV_INT8,
        EST_KV_INT4,
        EST_KV_COUNT
};

enum est_optimizer {
        EST_OPT_SGD = 0,
        EST_OPT_SGD_MOMENTUM,
        EST_OPT_ADAM,
        EST_OPT_ADAMW,
        EST_OPT_ADAFACTOR,
        EST_OPT_ADAMW_8BIT,
        EST_OPT_LION,
        EST_OPT_PAGED_ADAMW, /* bitsandbytes paged 32-bit AdamW */
        EST_OPT_PAGED_ADAMW_8BIT,
        EST_OPT_PAGED_LION,
        EST_OPTIMIZER_COUNT
};

/* How the optimizer step runs (torch.optim's foreach / fused / for-loop
 * implementations; bitsandbytes and DeepSpeed kernels are fused). */
enum est_opt_impl {
        EST_OPT_IMPL_AUTO = 0, /* from the framework: see estimate_optimizer_impl() */
        EST_OPT_IMPL_FOREACH,
        EST_OPT_IMPL_FUSED,
        EST_OPT_IMPL_FOR_LOOP,
        EST_OPT_IMPL_COUNT
};

enum est_checkpointing {
        EST_CKPT_NONE = 0,
        EST_CKPT_SELECTIVE, /* recompute the attention core (Korthikanti et al. 2022; Megatron) */
        EST_CKPT_FULL,      /* keep each block's input only (every checkpoint_every-th block) */
        EST_CKPT_SELECTIVE_OP, /* torchtitan's op-level policy: keep matmul and attention outputs */
        EST_CKPT_COUNT
};

/* How the loss sees the logits (memory.c logits_bytes()). */
enum est_logits {
        EST_LOGITS_FP32 = 0,       /* the model returns fp32 logits (transformers' upcast) */
        EST_LOGITS_UPCAST_IN_LOSS, /* compute-dtype logits, fp32 inside cross-entropy */
        EST_LOGITS_FUSED,          /* a fused / compiled cross-entropy: no fp32 copies */
        EST_LOGITS_LOSS_PARALLEL,  /* upcast, then PyTorch's loss_parallel on vocab shards */
        EST_LOGITS_COUNT
};

/* The fused attention kernel a request names (runtime.attention_kernel,
 * or transformers' attn_implementation); auto: the framework's own. */
enum est_attention_kernel {
        EST_ATTN_KERNEL_AUTO = 0,
        EST_ATTN_KERNEL_SDPA,  /* PyTorch SDPA: its flash backend is FlashAttention-2 */
        EST_ATTN_KERNEL_FA1,   /* FlashAttention (v1) */
        EST_ATTN_KERNEL_FA2,   /* FlashAttention-2 */
        EST_ATTN_KERNEL_FA3,   /* FlashAttention-3 (Hopper) */
        EST_ATTN_KERNEL_TRITON, /* Triton's fused-attention tutorial kernel and its kin */
        EST_ATTN_KERNEL_CUDNN, /* cuDNN's fused attention (Transformer Engine) */
        EST_ATTN_KERNEL_COUNT
};

/* Training and serving stacks whose defaults a request can ask for. */
enum est_framework {
        EST_FW_NONE = 0,
        EST_FW_HF_TRAINER,
        EST_FW_ACCELERATE,
        EST_FW_DEEPSPEED,
        EST_FW_TORCHTUNE,
        EST_FW_TORCHTITAN,
        EST_FW_LITGPT,
        EST_FW_MEGATRON,
        EST_FW_VLLM,
        EST_FW_LLAMA_CPP,
        EST_FW_TRANSFORMERS,
        EST_FW_EXLLAMA,
        EST_FW_COUNT
};

/* Settings a framework preset can fill (bits of estimate_input.framework_set). */
enum est_fw_setting {
        EST_FWS_PRECISION = 0,
        EST_FWS_CHECKPOINTING,
        EST_FWS_FLASH,
        EST_FWS_LOGITS,
        EST_FWS_CHUNKED_LOSS,
        EST_FWS_STRATEGY,
        EST_FWS_FSDP_VERSION,
        EST_FWS_FUSED_OPTIMIZER,
        EST_FWS_RESERVE,
        EST_FWS_SEQUENCE_PARALLEL,
        EST_FWS_FSDP_NO_SYNC,
        EST_FWS_LORA_DROPOUT,
        EST_FWS_FSDP_ORIG_PARAMS,
        EST_FWS_GEMM_ACCUMULATION,
        EST_FWS_DEQUANTIZE_FP16,
        EST_FWS_GRADIENT_CLIPPING,
        EST_FWS_EXPANDABLE_SEGMENTS,
        EST_FWS_OUTPUT_KEPT,
        EST_FWS_COUNT
};

enum est_strategy {
        EST_SINGLE = 0,
        EST_DDP,
        EST_ZERO1,
        EST_ZERO2,
        EST_ZERO3,
        EST_FSDP,
        EST_STRATEGY_COUNT
};

enum est_fsdp_sharding {
        EST_FSDP_FULL_SHARD = 0, /* = ZeRO-3 */
        EST_FSDP_SHARD_GRAD_OP,  /* = ZeRO-2 */
        EST_FSDP_HYBRID_SHARD,   /* ZeRO-3 inside a node, replicated across nodes */
        EST_FSDP_COUNT
};

enum est_offload {
        EST_OFFLOAD_NONE = 0,
        EST_OFFLOAD_OPTIMIZER, /* optimizer states + master weights on the CPU */
        EST_OFFLOAD_OPTIMIZER_AND_PARAMS,
        EST_OFFLOAD_COUNT
};

enum est_model_load {
        EST_LOAD_EVERY_PROCESS = 0, /* each rank reads the whole checkpoint into CPU memory */
        EST_LOAD_RANK_ZERO,         /* rank 0 loads, the others start empty (meta device) */
        EST_LOAD_COUNT
};

/* LoRA target matrices, a bit each. */
#define EST_LORA_Q    0x01u
#define EST_LORA_K    0x02u
#define EST_LORA_V    0x04u
#define EST_LORA_O    0x08u
#define EST_LORA_GATE 0x10u
#define EST_LORA_UP   0x20u
#define EST_LORA_DOWN 0x40u
#define EST_LORA_ALL  0x7fu /* the seven matrices, unfused */
/* Fused layouts and the vocabulary matrices (core/peft.h maps names). */
#define EST_LORA_QKV     0x080u /* one h -> (q + 2 kv) matrix: GPT-2 c_attn, Phi-3 qkv_proj */
#define EST_LORA_GATE_UP 0x100u /* one h -> 2 ffn matrix: Phi-3 gate_up_proj */
#define EST_LORA_LM_HEAD 0x200u /* LoRA on the vocabulary projection: r x (h + V) */
#define EST_LORA_EMBED   0x400u /* LoRA on the token embedding: r x (V + h) */
/* Multi-head latent attention (DeepSeek-V2/V3 modeling_deepseek.py) */
#define EST_LORA_Q_A  0x0800u /* q_a_proj: h -> q_lora_rank */
#define EST_LORA_Q_B  0x1000u /* q_b_proj: q_lora_rank -> heads x head_dim */
#define EST_LORA_KV_A 0x2000u /* kv_a_proj_with_mqa: h -> kv_lora_rank + rope */
#define EST_LORA_KV_B 0x4000u /* kv_b_proj: kv_lora_rank -> heads x (nope + v) */
/* Gated DeltaNet blocks (Qwen3-Next linear_attn; Qwen3.5 splits the input
 * projection into in_proj_qkv / in_proj_z and in_proj_b / in_proj_a, read
 * as the fused ones) */
#define EST_LORA_LIN_QKVZ 0x08000u /* in_proj_qkvz: h -> 2 K + 2 V */
#define EST_LORA_LIN_BA   0x10000u /* in_proj_ba: h -> 2 value heads */
#define EST_LORA_LIN_OUT  0x20000u /* out_proj: V -> h */
#define EST_LORA_VALID    0x3ffffu

/* Which members of estimate_input the caller set; the rest are defaults. */
#define EST_SET_BATCH         0x0001u
#define EST_SET_SEQUENCE      0x0002u
#define EST_SET_PRECISION     0x0004u
#define EST_SET_OPTIMIZER     0x0008u
#define EST_SET_MFU           0x0010u
#define EST_SET_PROMPT        0x0020u
#define EST_SET_GENERATED     0x0040u
#define EST_SET_DATASET       0x0080u
#define EST_SET_KV_DTYPE      0x0100u
#define EST_SET_LORA          0x0200u
#define EST_SET_STRATEGY      0x0400u
#define EST_SET_LABELS        0x0800u
#define EST_SET_CHECKPOINTING 0x1000u
#define EST_SET_FLASH         0x2000u
#define EST_SET_GPU_UTIL      0x4000u
#define EST_SET_CONTEXT       0x8000u  /* cuda_context_bytes given */
#define EST_SET_RESERVE       0x10000u /* allocator_reserve_fraction given (0 allowed) */
#define EST_SET_COMPILE       0x20000u
#define EST_SET_LOGITS        0x40000u
#define EST_SET_FSDP_VERSION  0x80000u
#define EST_SET_CHUNKED_LOSS  0x100000u
#define EST_SET_OPT_PER_PARAM 0x200000u
#define EST_SET_SEQ_PARALLEL  0x400000u
#define EST_SET_FSDP_NO_SYNC  0x800000u
#define EST_SET_LORA_DROPOUT  0x1000000u
#define EST_SET_FSDP_ORIG     0x2000000u
#define EST_SET_GEMM_ACC      0x4000000u
#define EST_SET_DEQUANT_FP16  0x8000000u
#define EST_SET_GRAD_CLIP     0x10000000u
#define EST_SET_EXPANDABLE    0x20000000u
#define EST_SET_HELD          0x40000000u /* allocator_held_fraction given (with EST_SET_RESERVE) */
#define EST_SET_OUTPUT_KEPT   0x80000000u

struct estimate_input {
        struct model_arch arch;
        uint64_t parameters_hint; /* "parameters" request: the count asked for; 0 otherwise */
        unsigned set;             /* EST_SET_* bits: what the request stated */

        /* workload */
        enum est_mode mode;
        uint32_t batch_size;      /* per GPU (the micro-batch of one data-parallel rank) */
        uint32_t sequence_length; /* tokens per sample (inference: the whole context) */
        uint32_t images;          /* images per sample; their tokens are in sequence_length */
        uint32_t target_length;   /* encoder-decoder training: decoder tokens per
                                     sample; 0 = sequence_length */
        uint32_t gradient_accumulation;
        uint32_t num_labels;       /* fine_tune task head; default 2 */
        uint32_t prompt_tokens;    /* inference */
        uint32_t generated_tokens; /* inference */
        uint32_t lora_rank;
        uint32_t lora_alpha;
        unsigned lora_targets;    /* EST_LORA_* */
        uint64_t dataset_samples; /* 0 = unknown */
        uint64_t dataset_tokens;  /* 0 = samples x sequence_length */
        double epochs;

        /* numerics */
        enum est_precision precision;
        enum est_quant quantization;
        uint32_t quant_group_size; /* int4: weights per scale; default 128 */
        bool double_quant;         /* nf4: quantize the block scales too (default true) */
        enum est_kv_dtype kv_dtype;
        enum est_optimizer optimizer;

        /* memory savers */
        enum est_checkpointing checkpointing;
        bool flash_attention;       /* fused attention: no s x s score tensors */
        enum est_attention_kernel attention_kernel; /* which fused kernel, when named */
        bool chunked_loss;          /* LM head + cross-entropy computed in chunks */
        bool optimizer_in_backward; /* each gradient applied and freed during backward */
        bool activation_offload;    /* saved activations moved to CPU memory */

        /* parallelism */
        enum est_strategy strategy;
        enum est_fsdp_sharding fsdp_sharding;
        uint32_t gpus; /* total */
        uint32_t nodes;
        uint32_t tensor_parallel;
        uint32_t pipeline_parallel;
        uint32_t micro_batches; /* pipeline: batch_size is split into this many */
        bool sequence_parallel;
        enum est_offload offload;
        enum est_model_load model_load;

        /* hardware and overrides */
        int gpu_index;                 /* into the gpus array; -1 = none chosen */
        double mfu;                    /* 0 = default for the GPU class and precision */
        double gpu_memory_utilization; /* serving engine reservation; 0 = 0.9 */
        double inter_node_bytes_per_s; /* per GPU between nodes; 0 = 25e9 (200 Gb/s InfiniBand) */

        /* runtime: how the framework behaves; the defaults are PyTorch >= 2.0 */
        double cuda_context_bytes;         /* with EST_SET_CONTEXT; else 512 MiB (lazy loading) */
        double allocator_reserve_fraction; /* with EST_SET_RESERVE; else replayed (training)
                                              or 0.05 */
        double allocator_held_fraction;    /* with EST_SET_HELD: the part of the reserve
                                              not released before an OOM; else all of it */
        bool gradients_persist;            /* zero_grad(set_to_none=False): gradients stay
                                              allocated between steps (PyTorch < 2.0 default) */
        bool optimizer_per_parameter;      /* the step loops over parameters: no foreach
                                              temporaries (transformers "adamw_hf") */
        enum est_opt_impl optimizer_impl;  /* AUTO: estimate_optimizer_impl() decides */
        bool gradient_clipping;            /* the gradients' global norm is clipped before
                                              each step (clip_grad_norm_) */
        double data_samples_per_s;         /* input pipeline throughput per GPU process;
                                              0 = on-the-fly tokenization default */
        unsigned lora_modules_to_save;     /* EST_SAVE_* (core/peft.h): trained in full */
        bool fp16_accumulation;            /* fp16 matmuls accumulate in fp16 (cuBLAS
                                              CUBLAS_COMPUTE_16F), as llama.cpp and ExLlama
                                              run them; PyTorch accumulates in fp32 */
        bool expandable_segments;          /* PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True:
                                              each allocator pool is one growing segment */
        bool output_kept;                  /* the training loop holds the model's output (its
                                              logits) until backward has run */
        bool adafactor_first_moment;       /* Adafactor with beta1 set: an exp_avg per
                                              parameter (transformers' Trainer: none) */
        bool dequantize_to_fp16;           /* quantized matmuls over many tokens run on an
                                              fp16 copy of the weights (ExLlama,
                                              bitsandbytes, llama.cpp's cuBLAS path) */

        /* framework behaviour (issue: engine at scale) */
        enum est_framework framework; /* whose defaults filled unset settings */
        uint32_t framework_release;   /* the framework as of year x 100 + month (202412);
                                         0 = today's behaviour */
        unsigned framework_set;       /* 1 << est_fw_setting: filled by the preset */
        uint32_t checkpoint_every;    /* full checkpointing of every k-th block; 0, 1 = all */
        bool compile;                 /* torch.compile of each block and of the loss */
        bool attention_cudnn;         /* SDPA runs cuDNN attention: PyTorch's first choice
                                         on sm100 (B200, GB200); set from the GPU named */
        enum est_logits logits;
        uint32_t fsdp_version; /* 1: flat parameters (FullyShardedDataParallel), 2: fully_shard */
        bool fsdp_no_sync;     /* FSDP1: accumulation micro-batches run under no_sync() */
        bool fsdp_use_orig_params;    /* FSDP1 with LoRA inside block units: mixed flat params */
        double lora_dropout;          /* LoRA dropout probability on each wrapped layer's input */
        bool fsdp_limit_all_gathers;  /* FSDP1 (default true): at most two units gathered */
        uint32_t fsdp_forward_shards; /* FSDP2 reshard_after_forward, as the ranks a block is
                                         resharded over after forward: 0 = all (True, the
                                         default), 1 = none (False), k = the integer k */
        /* float8 training (precision fp8_mixed; torchao Float8Linear) */
        bool float8_all_gather;       /* FSDP2 gathers Float8Linear weights in float8 */
        bool float8_recompute_weight; /* force_recompute_fp8_weight_in_bwd: no saved fp8 weights */

        /* the GPU as run: a power cap and a memory variant of the catalog part */
        double power_limit_watts;            /* 0 = the part's TDP */
        double memory_bandwidth_bytes_per_s; /* 0 = the catalog's figure */
        double host_memory_bytes_per_s;      /* CPU DRAM of one node, for an offloaded
                                                optimizer step; 0 = compute.c's default */

        /* goodput at scale (compute.c, goodput): 0 = the defaults there */
        double failures_per_gpu_hour;         /* unexpected interruptions per GPU-hour */
        double checkpoint_write_bytes_per_s;  /* storage write bandwidth, whole job */
        double restart_seconds;               /* detect, reschedule, reload, warm up */
        double checkpoint_interval_s;         /* 0 = Young/Daly's optimum */
        bool checkpoint_async;                /* the save runs beside training (torch.distributed
                                                 .checkpoint async_save): only the copy to host
                                                 memory blocks */
};

/*
 * Fill the settings the request left unset with the framework's own
 * defaults (in->framework), recording each in in->framework_set; a setting
 * the request stated is never changed.  Idempotent.  Sources per framework
 * in estimate.c.
 */
void estimate_apply_framework(struct estimate_input *in);

/* The optimizer implementation a request runs: the one it names; else a
 * per-parameter step is the for-loop one, or fused where the framework's
 * preset said fused; DeepSpeed and Megatron-LM step with fused Adam
 * kernels (DeepSpeed FusedAdam, apex / Transformer Engine FusedAdam);
 * otherwise torch.optim's default, foreach. */
enum est_opt_impl estimate_optimizer_impl(const struct estimate_input *in);
extern const char *const estimate_opt_impl_names[]; /* "auto", "foreach", "fused", "for_loop" */

/* Memory components, per GPU. */
enum est_component {
        EST_C_WEIGHTS = 0,
        EST_C_GRADIENTS,
        EST_C_OPTIMIZER,
        EST_C_MASTER,
        EST_C_ACTIVATIONS,
        EST_C_LOGITS, /* LM / task head output and loss buffers */
        EST_C_KV_CACHE,
        EST_C_COMM,      /* DDP buckets, ZeRO/FSDP gathers */
        EST_C_WORKSPACE, /* transient buffers: optimizer step temporaries, cuBLAS, dequant */
        EST_C_OVERHEAD,  /* CUDA context + allocator reserve: not in max_memory_allocated */
        EST_COMPONENT_COUNT
};

enum est_phase {
        EST_PHASE_FORWARD = 0,    /* end of forward: all saved activations + loss buffers */
        EST_PHASE_BACKWARD,       /* start of backward: + gradients of the head, loss gradients */
        EST_PHASE_BACKWARD_END,   /* all gradients, activations freed */
        EST_PHASE_OPTIMIZER,      /* optimizer step: states + temporaries */
        EST_PHASE_PREFILL,        /* inference: prompt pass */
        EST_PHASE_DECODE,         /* inference: generating with a full KV cache */
        EST_PHASE_BLOCK_BACKWARD, /* backward through the last block: its activations
                                     (recomputed under a checkpoint) and the gradients
                                     flowing through it, the loss buffers freed */
        EST_PHASE_COUNT
};

enum est_cpu_component {
        EST_CPU_OFFLOADED = 0, /* optimizer states / parameters moved to CPU (node total) */
        EST_CPU_MODEL_LOAD,    /* checkpoint copies while loading */
        EST_CPU_RUNTIME,       /* framework + CUDA host memory per process */
        EST_CPU_DATA,          /* data loader buffers */
        EST_CPU_ACTIVATIONS,   /* offloaded activations */
        EST_CPU_COMPONENT_COUNT
};

enum est_bottleneck {
        EST_BOUND_COMPUTE = 0,
        EST_BOUND_MEMORY_BANDWIDTH,
        EST_BOUND_INTERCONNECT,
        EST_BOUND_DATA_LOADING,
        EST_BOUND_HOST_OVERHEAD, /* eager dispatch: the GPU waits for the host */
        EST_BOUND_COUNT
};

enum est_fit_reason {
        EST_FIT_OK = 0,
        EST_FIT_TOO_SMALL,             /* does not fit with the requested GPU count */
        EST_FIT_CANNOT_TRAIN,          /* inference-only part, training requested */
        EST_FIT_UNKNOWN_MEMORY,        /* the catalog has no memory figure */
        EST_FIT_PRECISION_UNSUPPORTED, /* no tensor throughput at the requested precision
                                          (bf16 before Ampere, fp8 before Ada/Hopper) */
        EST_FIT_REASON_COUNT
};

/* One row of the fit table. */
struct est_fit {
        uint16_t gpu;            /* index into the gpus array */
        uint8_t reason;          /* enum est_fit_reason */
        bool fits;               /* with the requested GPU count and layout */
        uint32_t gpus_needed;    /* smallest count that fits (sharding as requested,
                                    or ZeRO-3 / tensor parallel if the request does not shard);
                                    0 = no count up to EST_GPUS_MAX does */
        uint32_t max_batch_size; /* largest per-GPU batch that fits; 0 = not even 1 */
        double utilization;      /* per-GPU total / usable memory */
        uint64_t memory_bytes;   /* the GPU's usable memory */
};

/* Note codes: see notes_text() for the sentence each one becomes. */
enum est_note_code {
        /* assumptions */
        EST_A_DEFAULT_BATCH = 1,
        EST_A_DEFAULT_SEQUENCE,
        EST_A_DEFAULT_PRECISION,
        EST_A_DEFAULT_OPTIMIZER,
        EST_A_DEFAULT_LABELS,
        EST_A_DEFAULT_LORA,
        EST_A_DEFAULT_KV_DTYPE,
        EST_A_SHAPE_FROM_PARAMETERS, /* a = layers, b = hidden size */
        EST_A_BYTES_PER_PARAM, /* a = weights, b = gradients+optimizer+master per trainable param */
        EST_A_MFU,             /* a = mfu */
        EST_A_CUDA_CONTEXT,    /* a = bytes */
        EST_A_ALLOCATOR_RESERVE, /* a = fraction */
        EST_A_DDP_BUCKETS,
        EST_A_FSDP_GATHER,         /* a = units gathered at once */
        EST_A_LOGITS_FP32,         /* a = copies of b x s x V in fp32 */
        EST_A_ACTIVATIONS_FORMULA, /* a = bytes per element */
        EST_A_ATTENTION_SCORES,    /* a = bytes per score element kept */
        EST_A_INTER_NODE,          /* a = bytes/s */
        EST_A_SERVING_UTIL,        /* a = fraction */
        EST_A_SERVING_ACTIVATION,  /* a = bytes */
        EST_A_DECODE_EFFICIENCY,   /* a = fraction of peak bandwidth */
        EST_A_ADAFACTOR,
        EST_A_NF4,        /* a = bits per weight */
        EST_A_INT4_GROUP, /* a = group size, b = bits per weight */
        EST_A_PIPELINE_INFLIGHT,
        EST_A_CPU_RUNTIME, /* a = bytes per process */
        EST_A_DATASET_UNKNOWN,
        EST_A_FOREACH_TEMP,  /* a = bytes per trainable parameter */
        EST_A_TOTAL_IS_PEAK, /* a = phase */
        EST_A_MODEL_LOAD,    /* a = enum est_model_load */
        EST_A_DDP_OFFLOAD_AS_ZERO,
        EST_A_AUTOCAST_COPIES,    /* a = bytes */
        EST_A_DATA_LOADING,       /* a = samples/s per process, b = seconds per step */
        EST_A_QLORA_SAVED_INPUTS, /* a = bytes per sample */
        EST_A_QLORA_TORCHAO,      /* torchtune's NF4 linears keep no inputs */
        EST_A_PIPELINE_STAGE,     /* a = 0 first stage, 1 last stage */
        EST_A_GRADIENTS_PERSIST,
        EST_A_NCCL_BUFFERS,     /* a = bytes per process */
        EST_A_ZERO_BUCKETS,     /* a = elements per bucket */
        EST_A_LOSS_CHUNKS,      /* a = chunks */
        EST_A_CPU_DATA,         /* a = bytes per process */
        EST_A_OPTIMIZER_8BIT,   /* a = block size */
        EST_A_CONFIG_DEFAULT,   /* a = enum model_key left out of config.json, b = value used */
        EST_A_FRAMEWORK,        /* a = enum est_fw_setting, b = the value the framework uses */
        EST_A_CHECKPOINT_OP,    /* a = bytes one block keeps per sample under op-level SAC */
        EST_A_CHECKPOINT_EVERY, /* a = k, b = blocks checkpointed */
        EST_A_COMPILE,          /* a = bytes per sample per block saved by fusion */
        EST_A_LOGITS_MODE,      /* a = enum est_logits */
        EST_A_FSDP1_FLAT_GRADS, /* a = gradient bytes of frozen parameters kept per GPU */
        EST_A_FSDP_NO_SYNC,     /* a = unsharded gradient bytes accumulated per GPU */
        EST_A_LORA_DROPOUT,     /* a = bytes per sample per block kept by LoRA dropout */
        EST_A_SPEED_MODEL,      /* a = matmul efficiency, b = attention efficiency */
        EST_A_HOST_DISPATCH,    /* a = host seconds per forward pass, b = 1 eager / 0 fused */
        EST_A_STEP_OVERHEAD,    /* a = seconds per serving step */
        EST_A_GRADIENT_POOL,    /* a = gradient-shard bytes cached in the reduce-scatter pool */
        EST_A_FLOAT8_SAVED,     /* a = bytes per sample per block, b = fp8 weight bytes kept */
        EST_A_FSDP_KEPT,        /* a = gathered bytes kept from forward to backward, b = ranks */
        EST_A_FSDP_UNLIMITED,   /* a = gathered bytes with limit_all_gathers=False */
        EST_A_ALLOCATOR_REPLAY, /* a = reserve fraction, b = the part not releasable */
        EST_A_DEFAULT_TARGET,   /* a = decoder tokens (an encoder-decoder's target) */
        EST_A_OFFLOAD_STEP,     /* a = host DRAM bytes/s, b = seconds per step not overlapped */
        EST_A_PAGED_OVERFLOW,   /* a = paged state bytes beyond the GPU, b = seconds per step */
        EST_A_POWER_LIMIT,      /* a = watts, b = sustained clock share */
        EST_A_MXFP4,            /* a = expert weights in MXFP4, b = other weights kept 16-bit */
        EST_A_VISION_TOWER,     /* a = tower tokens (patches) per image, b = LM tokens per image */
        EST_A_IMAGE_RESOLUTION, /* a = assumed image side in pixels, b = LM tokens per image */
        /* warnings */
        EST_W_SEQUENCE_BEYOND_MAX = 96, /* a = sequence, b = max */
        EST_W_ZERO3_ONE_GPU,
        EST_W_SHARDING_ONE_GPU,
        EST_W_QLORA_FP32_COMPUTE,
        EST_W_LORA_QUANT_IS_QLORA,
        EST_W_PAGED,
        EST_W_GPU_CANNOT_TRAIN,
        EST_W_GPU_NO_FLOPS, /* the chosen GPU has no figure at this precision */
        EST_W_NO_GPU_FITS,
        EST_W_CHOSEN_GPU_TOO_SMALL, /* a = needed bytes, b = usable bytes */
        EST_W_FP16_PURE,
        EST_W_TP_REPLICATES_KV, /* a = kv heads, b = tp */
        EST_W_INFERENCE_OPTIMIZER,
        EST_W_ACT_OFFLOAD_INFERENCE,
        EST_W_FP8_NO_SUPPORT,
        EST_W_OPT_IN_BACKWARD_GA,
        EST_W_MAX_POSITIONS,         /* a = context, b = model limit (serving answer capped) */
        EST_W_PRECISION_UNSUPPORTED, /* a = requested est_precision, b = suggested one */
        EST_W_GENERIC_DECODER,       /* an unknown model_type estimated as a gated decoder */
        /* suggestions: a = per-GPU bytes with the change applied, b = extra figure */
        EST_S_CHECKPOINTING = 128,
        EST_S_FLASH,
        EST_S_CHUNKED_LOSS,
        EST_S_BF16_MIXED,
        EST_S_ADAMW_8BIT,
        EST_S_LORA,
        EST_S_QLORA,
        EST_S_OFFLOAD_OPTIMIZER,
        EST_S_OFFLOAD_ALL,
        EST_S_ZERO3,           /* b = GPUs */
        EST_S_SMALLER_BATCH,   /* b = batch size that fits, with gradient accumulation to keep the
                                  global batch */
        EST_S_BIGGER_GPU,      /* b = index of the smallest GPU that fits */
        EST_S_QUANTIZE,        /* inference: 4-bit weights */
        EST_S_TENSOR_PARALLEL, /* b = GPUs */
};
/* Each kind's codes stay below the next kind's first code (a merge of two
 * branches that both added assumptions once ran them into the warnings). */
_Static_assert(EST_A_IMAGE_RESOLUTION < EST_W_SEQUENCE_BEYOND_MAX, "assumption codes overlap warnings");
_Static_assert(EST_W_GENERIC_DECODER < EST_S_CHECKPOINTING, "warning codes overlap suggestions");

struct est_note {
        uint16_t code; /* enum est_note_code */
        double a, b;
};

#define EST_NOTES_MAX       48
#define EST_SUGGESTIONS_MAX 16
#define EST_FITS_MAX        256
#define EST_GPUS_MAX        4096

/*
 * The cost model of one forward pass of the model on one GPU (speed.c),
 * per GPU of a tensor-parallel group and pipeline stage.  Filled by
 * estimate_run() when a GPU is chosen; speed_pass_seconds() prices a
 * pass from it, so that a planner can ask for any batch and context
 * without re-running the engine.
 */
struct est_speed {
        double peak;                 /* dense FLOP/s at the precision run */
        double gemm_peak;            /* dense FLOP/s the matmuls run at: peak, or the
                                        fp16-accumulate rate; 0 = peak */
        double bandwidth;            /* memory bytes/s */
        double gemm_efficiency;      /* achieved fraction of peak on the matmuls */
        double attention_efficiency; /* ... on attention (fused kernels) */
        double bandwidth_efficiency; /* achieved fraction of peak bandwidth */
        double activation_bytes;     /* per activation element */
        double linear_flops;         /* per token: 2 x matrix parameters touched */
        double gemm_io_bytes;        /* per token: matmul inputs and outputs */
        double weight_bytes;         /* read once per pass (quantized at packed size) */
        double expert_weight_bytes;  /* of which MoE expert matrices (all experts) */
        double experts, active_experts;
        double attention_flops; /* per token and attended context token */
        double score_elements;  /* per token and context token; 0 with fused attention */
        double score_bytes;     /* memory traffic per score, eager forward */
        double kv_bytes;        /* per context token read in decode */
        double state_bytes;     /* per sequence and decode step: recurrent state read and written */
        double dequant_ops;     /* per pass: unpacking weight-only quantized matrices */
        double alu_rate;        /* CUDA-core ops/s that do the unpacking */
        double reconstruct_weights;      /* weights dequantized to an fp16 copy before each
                                            matmul of a pass over more tokens than ... */
        double reconstruct_min_tokens;   /* ... this (0: the engine never does) */
        double reconstruct_packed_bytes; /* per weight, as stored */
        double elementwise_bytes;        /* per token: norms, activations, residuals, rotary */
        double host_seconds_per_pass;    /* eager dispatch: the host's time per pass */
        double step_overhead;            /* serving engine: scheduling and sampling per step */
        double tp_bytes;                 /* per token: tensor-parallel all-reduce bytes */
        double tp_bandwidth;
        double tp_latency; /* per pass: the all-reduces' fixed cost */
        /* Fixed cost per kernel: a kernel takes at least kernel_floor however
         * few bytes it moves.  Per pass on this GPU: */
        double kernel_floor;      /* seconds; 0 = not modelled (the host bounds the pass) */
        double matmul_kernels;    /* weight matmuls */
        double small_kernels;     /* norms, activations, residuals, rotary, cache writes,
                                     activation quantization */
        double attention_kernels; /* attention proper */
        double clock_share;       /* sustained clock at the power limit / at the TDP */
        double sm_count;          /* streaming multiprocessors; 0 = unknown (no wave model) */
};

/*
 * Fixed cost of one ring all-reduce over ranks GPUs: NCCL's own latency
 * model for the ring algorithm with its low-latency protocol, a base
 * latency plus one hop latency per ring step, 2 (n - 1) steps
 * (src/graph/tuning.cc).  nvlink: peers on NVLink / NVSwitch, else PCIe;
 * nodes > 1 puts the inter-node steps on the network.  Seconds; 0 for one
 * rank.  Shared by the pass model and the serving planner.
 */
double speed_ring_all_reduce_latency_seconds(double ranks, double nodes, bool nvlink);

/*
 * Sustained tensor clock at power limit watts as a share of the clock at
 * the part's TDP: dynamic power goes with f V^2 and voltage with frequency
 * over the DVFS range, so f ~ P^(1/3).  1 when limit is 0, at or above the
 * TDP, or the TDP is unknown.
 */
double speed_power_clock_share(double limit_watts, double tdp_watts);

/*
 * Seconds for one forward pass over tokens new tokens (all sequences of
 * the batch), each attending to context earlier tokens on average, with
 * kv_tokens_read cached tokens read from memory (decode: sequences x
 * context; prefill: 0).  0 when the GPU has no rate or bandwidth.
 */
double speed_pass_seconds(const struct est_speed *sp, double tokens, double context,
                          double kv_tokens_read);

/* Pipeline schedule slots of one step: M micro-batches over p stages take
 * M + p - 1 (GPipe / 1F1B); the bubble is (p - 1) / (M + p - 1). */
double speed_pipeline_slots(double micro_batches, double stages);

/* Bytes each GPU sends in a ring all-reduce of bytes over n GPUs:
 * 2 (n - 1) / n x bytes (Patarasuk and Yuan 2009). */
double speed_ring_all_reduce_bytes(double bytes, double n);

struct estimate_result {
        /* model */
        uint64_t parameters; /* of the model as run (task head instead of MLM head, ...) */
        uint64_t trainable_parameters;
        uint64_t checkpoint_parameters; /* model_parameters(arch): the published-count comparable */

        /* per GPU at the peak phase */
        uint64_t per_gpu[EST_COMPONENT_COUNT];
        uint64_t per_gpu_total_bytes;
        uint64_t per_gpu_allocated_bytes; /* total - overhead - paged optimizer states:
                                           * comparable to max_memory_allocated */
        uint64_t per_gpu_reserved_bytes;  /* total - CUDA context: comparable to
                                           * max_memory_reserved */
        uint64_t per_gpu_needed_bytes;    /* what a GPU must hold: total less the whole
                                           * blocks cached for other streams, which the
                                           * allocator releases before an OOM */
        enum est_phase peak_phase;
        int pipeline_stage; /* pipeline_parallel > 1: 0 = first stage, 1 = last stage */
        uint64_t phase_total_bytes[EST_PHASE_COUNT]; /* 0 for phases that do not occur */

        /* CPU (per node) */
        uint64_t cpu[EST_CPU_COMPONENT_COUNT];
        uint64_t cpu_total_bytes;

        /* compute */
        double flops_per_step; /* all GPUs, one optimizer step (or one request for inference) */
        double flops_total;
        double steps;
        double tokens_per_step;
        double seconds_per_step;
        double total_seconds;
        double tokens_per_second;
        double mfu;
        double peak_flops_per_gpu;  /* at the precision used; 0 if no GPU chosen */
        bool precision_unsupported; /* the chosen GPU cannot run the precision: no time */
        enum est_precision suggested_precision; /* what it can run instead (when unsupported) */
        double compute_seconds_per_step;
        double comm_seconds_per_step;
        double comm_bytes_per_step; /* per GPU over the link */
        double link_bytes_per_s;
        double memory_seconds_per_step; /* inference decode: bytes / bandwidth */
        double data_seconds_per_step;   /* input pipeline: samples per process / throughput */
        double offload_seconds_per_step; /* optimizer off the GPU, not overlapped: the CPU
                                            step and its PCIe traffic, or a paged optimizer's
                                            unified-memory migration */
        uint64_t paged_overflow_bytes;   /* paged optimizer states that do not fit on the GPU */
        double clock_share;              /* sustained clock at the power limit / at the TDP */
        enum est_bottleneck bottleneck;

        /* goodput (training runs with a dataset): interruptions and checkpoints */
        struct est_goodput {
                bool present;
                double gpu_hours;              /* ideal: total_seconds x GPUs / 3600 */
                double failures_per_gpu_hour;  /* as used */
                double mtbf_seconds;           /* of the whole job: 1 / (rate x GPUs) */
                double expected_interruptions; /* over the effective wall time */
                double checkpoint_bytes;       /* whole job: weights + optimizer states */
                double checkpoint_write_bytes_per_s;
                double checkpoint_seconds;     /* one save, as written */
                double checkpoint_blocking_seconds; /* of which training waits */
                double checkpoint_interval_s;  /* between saves */
                bool interval_optimal;         /* Young/Daly, not the request's */
                double restart_seconds;
                double lost_seconds_per_interruption; /* restart + half an interval */
                double goodput;                /* ideal / effective */
                double effective_seconds;      /* wall time with saves, restarts, lost work */
        } goodput;

        /* inference */
        double prefill_seconds;
        double decode_tokens_per_second;          /* at the decode bandwidth efficiency */
        double decode_tokens_per_second_roofline; /* bandwidth / bytes read per token */
        uint64_t decode_bytes_per_token; /* weights + KV read per generated token, per GPU */

        /* serving (inference; vLLM-style reservation) */
        uint64_t kv_bytes_per_token;           /* per sequence, per GPU */
        uint64_t serving_budget_bytes;         /* utilization x usable memory */
        uint64_t serving_kv_bytes;             /* left for the KV cache */
        uint64_t serving_concurrent_sequences; /* at sequence_length */
        uint64_t serving_max_context_tokens;   /* one sequence, before the model's position limit */
        struct est_speed speed;                /* the pass cost model on the chosen GPU */

        struct est_fit fits[EST_FITS_MAX];
        size_t n_fits;
        struct est_note assumptions[EST_NOTES_MAX];
        size_t n_assumptions;
        struct est_note warnings[EST_NOTES_MAX];
        size_t n_warnings;
        struct est_note suggestions[EST_SUGGESTIONS_MAX];
        size_t n_suggestions;
};

/* Why an input was refused: a JSON pointer into the request and a rule name. */
struct estimate_error {
        char pointer[96]; /* "/workload/batch_size" */
        char rule[48];    /* "range", "divides", "contradiction", "overflow", ... */
        char detail[200]; /* one lowercase sentence */
};

/*
 * Fill in with the defaults (pre_train off, batch 1, sequence 512, bf16
 * mixed AdamW, single GPU, ...).  arch is zeroed; set it before running.
 */
void estimate_input_defaults(struct estimate_input *in);

/*
 * Run the engine.  gpus/n_gpus is the catalog (the fit table covers all of
 * it, at most EST_FITS_MAX rows); in->gpu_index selects the GPU for time
 * and the headline fit (or -1).  Returns 0 and fills out, or -1 and fills
 * err (out is then undefined).  Allocation-free; thread-safe.
 */
int estimate_run(const struct estimate_input *in, const struct gpu_spec *gpus, size_t n_gpus,
                 struct estimate_result *out, struct estimate_error *err);

/*
 * The memory part only (no fit table, no notes beyond what memory needs):
 * the bytes a GPU must hold for in (per_gpu_needed_bytes: the CUDA context
 * and the largest phase's allocations with the compute pool's
 * fragmentation, without blocks cached for other streams), or 0 with err
 * filled.  Cheap enough to call thousands of times per request (compare,
 * suggestions).
 */
uint64_t estimate_memory_bytes(const struct estimate_input *in, struct estimate_error *err);

/*
 * The caching allocator's reserve for in, as estimate_run() would use it:
 * *reserve beyond the allocated peak and *held (the part not released
 * before an out-of-memory error), both as fractions of the allocated peak.
 * A caller that runs many estimates of one layout (a plan search over
 * GPUs) computes them once and states them (EST_SET_RESERVE | EST_SET_HELD)
 * to get the same answer without replaying the allocator each time.
 * Returns 0, or -1 with err filled when the input is refused.
 */
int estimate_allocator_reserve(const struct estimate_input *in, double *reserve, double *held,
                               struct estimate_error *err);

/*
 * One layout timed on many GPUs (the plan search): the memory model does
 * not read the GPU, so estimate_prepare() runs the GPU-independent part of
 * estimate_run() once - the memory model, the per-GPU and CPU totals, and
 * the derived quantities the time model reads - and estimate_time() then
 * fills the time figures for one GPU exactly as estimate_run() would with
 * that GPU chosen (same function, same inputs).  Between the two calls the
 * input may change only in gpu_index and inter_node_bytes_per_s, which
 * only the time model reads.
 *
 * estimate_prepare returns 0, or -1 with err filled where estimate_run
 * would refuse in; scratch receives the memory part of a result (its
 * figures and notes) and is otherwise undefined.  estimate_time fills
 * out's time figures (seconds, tokens per second, FLOPs, bottleneck,
 * speed model, peak rate, their notes, goodput) and copies the prepared
 * totals and per-component memory; the rest of out (fit table, serving
 * answer) is zero.  Plain values: a prepared layout may be copied and shared by any
 * number of threads.
 */
struct estimate_prepared {
        uint64_t per_gpu_total_bytes;          /* as estimate_result */
        uint64_t per_gpu_needed_bytes;         /* as estimate_result: what must fit */
        uint64_t cpu_total_bytes;              /* as estimate_result */
        uint64_t decode_bytes_per_token;       /* inference */
        uint64_t kv_bytes_per_token;           /* inference */
        uint64_t per_gpu[EST_COMPONENT_COUNT]; /* as estimate_result (the paged-optimizer overflow reads it) */
        _Alignas(8) unsigned char engine[320]; /* the engine's derived quantities (private) */
};

int estimate_prepare(const struct estimate_input *in, struct estimate_prepared *p,
                     struct estimate_result *scratch, struct estimate_error *err);
void estimate_time(const struct estimate_input *in, const struct estimate_prepared *p,
                   const struct gpu_spec *g, struct estimate_result *out);

/*
 * A floor under a training layout's time, for a search that skips layouts
 * which cannot beat a plan it already has.  Whatever else a step does, it
 * sends its data-parallel traffic (all of it is on the critical path once
 * it outlasts the compute, and one block's share always is) and it waits
 * for its input pipeline; the job takes its steps, and interruptions and
 * checkpoints only add to that.  So, for the same input on the same GPU:
 *   estimate_floor_step_seconds() <= seconds_per_step, and
 *   that x steps <= total_seconds <= goodput.effective_seconds,
 * where estimate_run() gives the right-hand sides, to rounding (the floor
 * adds the same terms in another order: a caller compares with a margin).
 * The figures come from the engine's own time model (compute.c), not a
 * second copy of it.
 *
 * estimate_floor_prepare works out the GPU-independent figures from a
 * layout's input without its memory model (validation and the derived
 * quantities only: a fraction of estimate_prepare's cost); 0, or -1 with
 * err filled where the engine refuses in.  They depend on the input's GPU
 * count, strategy, precision, savers and workload, not on gpu_index,
 * nodes or inter_node_bytes_per_s, which only estimate_floor_step_seconds
 * reads.  traffic_bytes only raises the floor: the least of several
 * layouts' traffic gives a floor under each of them.  Inference: all zero.
 *
 * cpu_bytes is a floor under the run's cpu_total_bytes (the CPU memory of
 * one node), from the same model with one process on the node (every node
 * runs at least one, and each adds its share) and no offloaded
 * activations.
 */
struct estimate_floor {
        double traffic_bytes; /* data-parallel bytes per GPU per optimizer step */
        double blocks;        /* transformer blocks (one block's share of the traffic is exposed) */
        double data_seconds;  /* the input pipeline's time per step */
        double steps;         /* optimizer steps of the job (as estimate_result.steps) */
        double tokens_per_step; /* as estimate_result.tokens_per_step */
        uint64_t cpu_bytes;     /* <= estimate_result.cpu_total_bytes */
};

int estimate_floor_prepare(const struct estimate_input *in, struct estimate_floor *f,
                           struct estimate_error *err);
double estimate_floor_step_seconds(const struct estimate_input *in, const struct estimate_floor *f,
                                   const struct gpu_spec *g);

/* notes.c: the sentence for one note, into buf (always NUL-terminated); returns buf. */
const char *notes_text(const struct est_note *note, char *buf, size_t len);
/* A stable machine name for a note code, e.g. "default_batch_size"; "" if unknown. */
const char *notes_name(uint16_t code);

/* Enum names as used in JSON, and parsing back (0, or -1 if unknown). */
const char *estimate_mode_name(enum est_mode m);
const char *estimate_precision_name(enum est_precision p);
const char *estimate_quant_name(enum est_quant q);
const char *estimate_kv_dtype_name(enum est_kv_dtype k);
const char *estimate_optimizer_name(enum est_optimizer o);
const char *estimate_checkpointing_name(enum est_checkpointing c);
const char *estimate_logits_name(enum est_logits l);
const char *estimate_framework_name(enum est_framework f);
const char *estimate_fw_setting_name(enum est_fw_setting s);
const char *estimate_strategy_name(enum est_strategy s);
const char *estimate_fsdp_name(enum est_fsdp_sharding f);
const char *estimate_offload_name(enum est_offload o);
const char *estimate_model_load_name(enum est_model_load l);
const char *estimate_component_name(enum est_component c);
const char *estimate_phase_name(enum est_phase p);
const char *estimate_cpu_component_name(enum est_cpu_component c);
const char *estimate_bottleneck_name(enum est_bottleneck b);
const char *estimate_fit_reason_name(enum est_fit_reason r);

/* Parse a JSON enum string against a NULL-terminated name table; index or -1. */
int estimate_enum_parse(const char *const *names, const char *s);
extern const char *const estimate_mode_names[];
extern const char *const estimate_precision_names[];
extern const char *const estimate_quant_names[];
extern const char *const estimate_kv_dtype_names[];
extern const char *const estimate_optimizer_names[];
extern const char *const estimate_checkpointing_names[];
extern const char *const estimate_logits_names[];
extern const char *const estimate_attention_kernel_names[];
extern const char *const estimate_framework_names[];
extern const char *const estimate_strategy_names[];
extern const char *const estimate_fsdp_names[];
extern const char *const estimate_offload_names[];
extern const char *const estimate_model_load_names[];

#endif
