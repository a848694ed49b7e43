/*
 * notes.c - sentences and machine names for the engine's notes.
 *
 * The engine records assumptions, warnings and suggestions as codes with
 * up to two numbers (cheap, allocation-free); this file renders them.
 */
#include "core/estimate.h"

#include <string.h>

#include "core/decimal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

struct note_def {
        uint16_t code;
        const char *name;
};

static const struct note_def defs[] = {
        {EST_A_DEFAULT_BATCH, "default_batch_size"},
        {EST_A_DEFAULT_SEQUENCE, "default_sequence_length"},
        {EST_A_DEFAULT_PRECISION, "default_precision"},
        {EST_A_DEFAULT_OPTIMIZER, "default_optimizer"},
        {EST_A_DEFAULT_LABELS, "default_num_labels"},
        {EST_A_DEFAULT_LORA, "default_lora"},
        {EST_A_DEFAULT_KV_DTYPE, "default_kv_cache_dtype"},
        {EST_A_SHAPE_FROM_PARAMETERS, "shape_from_parameters"},
        {EST_A_BYTES_PER_PARAM, "bytes_per_parameter"},
        {EST_A_MFU, "mfu"},
        {EST_A_CUDA_CONTEXT, "cuda_context"},
        {EST_A_ALLOCATOR_RESERVE, "allocator_reserve"},
        {EST_A_DDP_BUCKETS, "ddp_buckets"},
        {EST_A_FSDP_GATHER, "fsdp_gather"},
        {EST_A_LOGITS_FP32, "logits_fp32"},
        {EST_A_ACTIVATIONS_FORMULA, "activations_formula"},
        {EST_A_ATTENTION_SCORES, "attention_scores"},
        {EST_A_INTER_NODE, "inter_node_bandwidth"},
        {EST_A_SERVING_UTIL, "serving_gpu_memory_utilization"},
        {EST_A_SERVING_ACTIVATION, "serving_activation_reserve"},
        {EST_A_DECODE_EFFICIENCY, "decode_bandwidth_efficiency"},
        {EST_A_ADAFACTOR, "adafactor_states"},
        {EST_A_NF4, "nf4_bits"},
        {EST_A_INT4_GROUP, "int4_group"},
        {EST_A_PIPELINE_INFLIGHT, "pipeline_in_flight"},
        {EST_A_CPU_RUNTIME, "cpu_runtime"},
        {EST_A_DATASET_UNKNOWN, "dataset_unknown"},
        {EST_A_FOREACH_TEMP, "optimizer_step_temporaries"},
        {EST_A_TOTAL_IS_PEAK, "total_is_peak_phase"},
        {EST_A_MODEL_LOAD, "model_load"},
        {EST_A_DDP_OFFLOAD_AS_ZERO, "offload_as_zero_offload"},
        {EST_A_AUTOCAST_COPIES, "autocast_weight_copies"},
        {EST_A_DATA_LOADING, "data_loading_throughput"},
        {EST_A_QLORA_SAVED_INPUTS, "qlora_saved_matmul_inputs"},
        {EST_A_QLORA_TORCHAO, "qlora_torchao_nf4"},
        {EST_A_PIPELINE_STAGE, "pipeline_peak_stage"},
        {EST_A_GRADIENTS_PERSIST, "gradients_persist"},
        {EST_A_NCCL_BUFFERS, "nccl_buffers"},
        {EST_A_ZERO_BUCKETS, "zero_buckets"},
        {EST_A_LOSS_CHUNKS, "loss_chunks"},
        {EST_A_CPU_DATA, "cpu_data_loading"},
        {EST_A_OPTIMIZER_8BIT, "optimizer_8bit_blocks"},
        {EST_A_CONFIG_DEFAULT, "config_default"},
        {EST_A_FRAMEWORK, "framework_default"},
        {EST_A_CHECKPOINT_OP, "checkpoint_op_policy"},
        {EST_A_CHECKPOINT_EVERY, "checkpoint_every"},
        {EST_A_COMPILE, "compile_fusion"},
        {EST_A_LOGITS_MODE, "logits_in_loss"},
        {EST_A_FSDP1_FLAT_GRADS, "fsdp1_flat_gradients"},
        {EST_A_FSDP_NO_SYNC, "fsdp_no_sync_gradients"},
        {EST_A_LORA_DROPOUT, "lora_dropout_inputs"},
        {EST_A_SPEED_MODEL, "speed_model"},
        {EST_A_HOST_DISPATCH, "host_dispatch"},
        {EST_A_STEP_OVERHEAD, "serving_step_overhead"},
        {EST_A_GRADIENT_POOL, "gradient_shard_pool"},
        {EST_A_FLOAT8_SAVED, "float8_saved_tensors"},
        {EST_A_FSDP_KEPT, "fsdp_reshard_after_forward"},
        {EST_A_FSDP_UNLIMITED, "fsdp_unlimited_all_gathers"},
        {EST_A_ALLOCATOR_REPLAY, "allocator_replay"},
        {EST_A_DEFAULT_TARGET, "default_target_length"},
        {EST_A_OFFLOAD_STEP, "offloaded_optimizer_step"},
        {EST_A_PAGED_OVERFLOW, "paged_optimizer_overflow"},
        {EST_A_POWER_LIMIT, "power_limit_clock"},
        {EST_A_MXFP4, "mxfp4_experts"},
        {EST_A_VISION_TOWER, "vision_tower"},
        {EST_A_IMAGE_RESOLUTION, "image_resolution"},
        {EST_W_SEQUENCE_BEYOND_MAX, "sequence_beyond_max_positions"},
        {EST_W_ZERO3_ONE_GPU, "zero3_on_one_gpu"},
        {EST_W_SHARDING_ONE_GPU, "sharding_without_peers"},
        {EST_W_QLORA_FP32_COMPUTE, "quantized_with_fp32_compute"},
        {EST_W_LORA_QUANT_IS_QLORA, "lora_with_quantization"},
        {EST_W_PAGED, "paged_optimizer"},
        {EST_W_GPU_CANNOT_TRAIN, "gpu_cannot_train"},
        {EST_W_GPU_NO_FLOPS, "gpu_no_throughput_figure"},
        {EST_W_NO_GPU_FITS, "no_gpu_fits"},
        {EST_W_CHOSEN_GPU_TOO_SMALL, "chosen_gpu_too_small"},
        {EST_W_FP16_PURE, "pure_fp16_training"},
        {EST_W_TP_REPLICATES_KV, "tensor_parallel_replicates_kv"},
        {EST_W_INFERENCE_OPTIMIZER, "optimizer_ignored"},
        {EST_W_ACT_OFFLOAD_INFERENCE, "activation_offload_ignored"},
        {EST_W_FP8_NO_SUPPORT, "fp8_unsupported"},
        {EST_W_OPT_IN_BACKWARD_GA, "optimizer_in_backward_accumulation"},
        {EST_W_MAX_POSITIONS, "context_beyond_max_positions"},
        {EST_W_PRECISION_UNSUPPORTED, "precision_unsupported"},
        {EST_W_GENERIC_DECODER, "generic_decoder_assumed"},
        {EST_S_CHECKPOINTING, "activation_checkpointing"},
        {EST_S_FLASH, "flash_attention"},
        {EST_S_CHUNKED_LOSS, "chunked_loss"},
        {EST_S_BF16_MIXED, "bf16_mixed"},
        {EST_S_ADAMW_8BIT, "adamw_8bit"},
        {EST_S_LORA, "lora"},
        {EST_S_QLORA, "qlora"},
        {EST_S_OFFLOAD_OPTIMIZER, "offload_optimizer"},
        {EST_S_OFFLOAD_ALL, "offload_optimizer_and_params"},
        {EST_S_ZERO3, "more_gpus_zero3"},
        {EST_S_SMALLER_BATCH, "smaller_batch"},
        {EST_S_BIGGER_GPU, "bigger_gpu"},
        {EST_S_QUANTIZE, "quantize_weights"},
        {EST_S_TENSOR_PARALLEL, "more_gpus_tensor_parallel"},
};

const char *notes_name(uint16_t code)
{
        for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
                if (defs[i].code == code)
                        return defs[i].name;
        return "";
}

static const char *enum_or(const char *const *names, double v)
{
        int i = (int)v;
        for (int k = 0; names[k]; k++)
                if (k == i)
                        return names[k];
        return "?";
}

static const char *lora_targets_text(unsigned t, char *buf, size_t len)
{
        static const char *const names[] = {"q",
                                            "k",
                                            "v",
                                            "o",
                                            "gate",
                                            "up",
                                            "down",
                                            "qkv",
                                            "gate_up",
                                            "lm_head",
                                            "embed_tokens",
                                            "q_a_proj",
                                            "q_b_proj",
                                            "kv_a_proj_with_mqa",
                                            "kv_b_proj",
                                            "in_proj_qkvz",
                                            "in_proj_ba",
                                            "out_proj"};
        size_t off = 0;
        buf[0] = '\0';
        for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]) && off < len; i++) {
                if (!(t & (1u << i)))
                        continue;
                int n = decimal_format(buf + off, len - off, "%s%s", off ? "," : "", names[i]);
                if (n < 0)
                        break;
                off += (size_t)n;
        }
        return buf;
}

const char *notes_text(const struct est_note *n, char *buf, size_t len)
{
        double a = n->a, b = n->b;
        char t[128];

        if (!buf || len == 0)
                return buf;
        switch (n->code) {
        case EST_A_DEFAULT_BATCH:
                decimal_format(buf, len, "batch_size not given: %.0f per GPU", a);
                break;
        case EST_A_DEFAULT_SEQUENCE:
                decimal_format(buf, len, "sequence_length not given: %.0f tokens", a);
                break;
        case EST_A_OFFLOAD_STEP:
                decimal_format(buf, len,
                         "optimizer offloaded to the CPU: the step streams every rank's states "
                         "through the node's DRAM at %.3g GB/s and the gradients and weights "
                         "cross PCIe, %.3g s per step that the next forward waits for",
                         a / 1e9, b);
                break;
        case EST_A_PAGED_OVERFLOW:
                decimal_format(buf, len,
                         "paged optimizer: %.2f GiB of its states do not fit on the GPU and move "
                         "out and back in every step over unified memory (%.3g s per step)",
                         a / GIB, b);
                break;
        case EST_A_POWER_LIMIT:
                decimal_format(buf, len,
                         "power limit %.0f W: the tensor units sustain %.3f of the clock they "
                         "hold at the part's TDP (clock ~ power^(1/3)); memory bandwidth is "
                         "unchanged",
                         a, b);
                break;
        case EST_A_DEFAULT_TARGET:
                decimal_format(buf, len,
                         "target_length not given: the decoder reads as many tokens as the "
                         "encoder (%.0f); labels padded shorter (max_target_length) need less",
                         a);
                break;
        case EST_A_MXFP4:
                decimal_format(buf, len,
                         "mxfp4: the %.0f routed-expert weights at 4.25 bits (4-bit e2m1 + one "
                         "8-bit scale per 32); the other %.0f block weights (attention) stay "
                         "16-bit, as do router, embeddings and head",
                         a, b);
                break;
        case EST_A_VISION_TOWER:
                decimal_format(buf, len,
                         "vision tower: each image runs %.0f tokens (patches) through the "
                         "tower's blocks and becomes %.0f tokens of the language model's "
                         "sequence; full training keeps the tower's activations for backward, "
                         "LoRA and QLoRA leave it frozen (none kept), inference holds one "
                         "block's",
                         a, b);
                break;
        case EST_A_IMAGE_RESOLUTION:
                decimal_format(buf, len,
                         "image tokens follow each image's resolution in this model (Qwen2-VL "
                         "family): a %.0f x %.0f image assumed, %.0f tokens each; larger images "
                         "become more",
                         a, a, b);
                break;
        case EST_A_DEFAULT_PRECISION:
                decimal_format(buf, len, "precision not given: %s", enum_or(estimate_precision_names, a));
                break;
        case EST_A_DEFAULT_OPTIMIZER:
                decimal_format(buf, len, "optimizer not given: %s", enum_or(estimate_optimizer_names, a));
                break;
        case EST_A_DEFAULT_LABELS:
                decimal_format(buf, len, "num_labels not given: a %.0f-class task head", a);
                break;
        case EST_A_DEFAULT_LORA:
                decimal_format(buf, len,
                         "lora not given: rank %.0f on %s (PEFT defaults; QLoRA paper: all linear "
                         "layers)",
                         a, lora_targets_text((unsigned)b, t, sizeof(t)));
                break;
        case EST_A_DEFAULT_KV_DTYPE:
                decimal_format(buf, len,
                         "kv cache precision not given: %.1f bytes per element (the compute dtype)",
                         a);
                break;
        case EST_A_SHAPE_FROM_PARAMETERS:
                decimal_format(buf, len,
                         "only a parameter count was given: assumed a LLaMA-like decoder of %.0f "
                         "layers and hidden size %.0f (multi-head attention, RMSNorm, SwiGLU, "
                         "RoPE, untied head; see model.architecture) whose FFN size, plus a "
                         "remainder below one FFN column counted as block matrices, makes the "
                         "count exactly the one asked for",
                         a, b);
                break;
        case EST_A_BYTES_PER_PARAM:
                decimal_format(buf, len,
                         "%.4g bytes per weight; %.4g bytes per trainable parameter for gradients, "
                         "master weights and "
                         "optimizer states (ZeRO paper accounting, Rajbhandari et al. 2020)",
                         a, b);
                break;
        case EST_A_MFU:
                decimal_format(buf, len,
                         "model FLOPs utilisation %.2f (default for this GPU class and precision)",
                         a);
                break;
        case EST_A_CUDA_CONTEXT:
                decimal_format(buf, len, "CUDA context and kernels: %.0f MiB per process (lazy loading)",
                         a / 1048576.0);
                break;
        case EST_A_ALLOCATOR_RESERVE:
                decimal_format(buf, len,
                         "allocator reserve and fragmentation: %.0f%% of allocated memory "
                         "(nvidia-smi shows it, "
                         "torch.cuda.max_memory_allocated does not)",
                         a * 100);
                break;
        case EST_A_ALLOCATOR_REPLAY:
                decimal_format(buf, len,
                         "PyTorch's caching allocator, replayed over two training steps of "
                         "this configuration's tensors: it reserves %.1f%% beyond the "
                         "allocated peak (in max_memory_reserved and nvidia-smi, not in "
                         "max_memory_allocated); %.1f%% sits in split segments it cannot "
                         "release before an out-of-memory error, so the run needs that much",
                         a * 100, b * 100);
                break;
        case EST_A_DDP_BUCKETS:
                decimal_format(buf, len,
                         "DDP gradient buckets hold a copy of all gradients (%.2f GiB; "
                         "gradient_as_bucket_view=False, "
                         "the PyTorch default)",
                         a / GIB);
                break;
        case EST_A_FSDP_GATHER:
                decimal_format(buf, len,
                         "ZeRO-3/FSDP: the root unit (embeddings, head) stays gathered; %.0f "
                         "blocks gathered at once "
                         "(current + prefetch), one unsharded block gradient during backward",
                         a);
                break;
        case EST_A_LOGITS_FP32:
                if (a >= 4)
                        decimal_format(buf, len,
                                 "language-model loss in fp32 over batch x sequence x "
                                 "vocabulary: logits and log-probabilities at the end of "
                                 "forward, plus both gradients at the start of backward (4 "
                                 "copies; the loop holds the model output through backward)");
                else
                        decimal_format(buf, len,
                                 "language-model loss in fp32 over batch x sequence x "
                                 "vocabulary: logits and log-probabilities at the end of "
                                 "forward; the loop drops the model output before backward, "
                                 "which starts from the log-probabilities and both gradients "
                                 "(3 copies)");
                break;
        case EST_A_ACTIVATIONS_FORMULA:
                decimal_format(buf, len,
                         "activations per block after Korthikanti et al. 2022 with %.0f-byte "
                         "elements, 1-byte dropout "
                         "masks, tensor/sequence parallel sharding",
                         a);
                break;
        case EST_A_ATTENTION_SCORES:
                decimal_format(buf, len,
                         "attention is not fused: softmax scores of heads x sequence^2 are kept "
                         "for backward (%.0f bytes "
                         "per score incl. dropout)",
                         a);
                break;
        case EST_A_INTER_NODE:
                decimal_format(buf, len, "inter-node bandwidth %.0f GB/s per GPU (%.0f Gb/s InfiniBand)",
                         a / 1e9, a * 8 / 1e9);
                break;
        case EST_A_SERVING_UTIL:
                decimal_format(buf, len,
                         "serving engine reserves %.0f%% of GPU memory (vLLM "
                         "gpu_memory_utilization)",
                         a * 100);
                break;
        case EST_A_SERVING_ACTIVATION:
                decimal_format(buf, len,
                         "serving engine activation profile %.1f GiB (measured for vLLM on H100 by "
                         "llm-d)",
                         a / GIB);
                break;
        case EST_A_DECODE_EFFICIENCY:
                decimal_format(buf, len, "decode reaches %.0f%% of peak memory bandwidth", a * 100);
                break;
        case EST_A_ADAFACTOR:
                decimal_format(buf, len,
                         "Adafactor as transformers' Trainer builds it (no first moment, beta1 "
                         "None): a factored second moment, rows + columns per matrix and whole "
                         "for vectors (%.3g MiB in all), and step temporaries of about twice the "
                         "largest parameter in fp32 (%.3g MiB)",
                         a / (1024.0 * 1024.0), b / (1024.0 * 1024.0));
                break;
        case EST_A_NF4:
                decimal_format(buf, len,
                         "NF4 weights: %.3f bits per weight including block scales (Dettmers et "
                         "al. 2023)",
                         a);
                break;
        case EST_A_INT4_GROUP:
                decimal_format(buf, len,
                         "int4 weights with group size %.0f: %.3f bits per weight (fp16 scale + "
                         "4-bit zero)",
                         a, b);
                break;
        case EST_A_PIPELINE_INFLIGHT:
                decimal_format(buf, len,
                         "pipeline 1F1B: the first stage holds activations of all layers for one "
                         "micro-batch "
                         "(Korthikanti et al. 2022 §4.2.3); figures are for that stage");
                break;
        case EST_A_CPU_RUNTIME:
                decimal_format(
                        buf, len,
                        "CPU: %.1f GiB per training process for the framework and CUDA host memory",
                        a / GIB);
                break;
        case EST_A_DATASET_UNKNOWN:
                decimal_format(buf, len, "no dataset size given: time is for one optimizer step");
                break;
        case EST_A_FOREACH_TEMP:
                decimal_format(buf, len,
                         "optimizer step temporaries: %.0f bytes per trainable parameter "
                         "(torch.optim foreach AdamW)",
                         a);
                break;
        case EST_A_TOTAL_IS_PEAK:
                decimal_format(buf, len,
                         "per-GPU total is the peak phase (%s), not the sum of all tensors",
                         estimate_phase_name((enum est_phase)(int)a));
                break;
        case EST_A_MODEL_LOAD:
                decimal_format(buf, len, "checkpoint loaded into CPU memory by %s",
                         (int)a == EST_LOAD_RANK_ZERO ? "rank 0 only" : "every process");
                break;
        case EST_A_DDP_OFFLOAD_AS_ZERO:
                decimal_format(buf, len,
                         "optimizer offload without a ZeRO stage is modelled as DeepSpeed "
                         "ZeRO-Offload (stage 2, CPU "
                         "Adam)");
                break;
        case EST_A_AUTOCAST_COPIES:
                decimal_format(buf, len,
                         "mixed precision (PyTorch autocast): fp32 weights and gradients; "
                         "half-precision copies of the "
                         "weights (%.2f GiB) live through forward and backward",
                         a / GIB);
                break;
        case EST_A_DATA_LOADING:
                decimal_format(buf, len,
                         "input pipeline delivers %.4g samples/s per GPU process (%.3g s per "
                         "step); without a stated figure, text tokenized on the fly at 12.5M "
                         "tokens/s (Hugging Face tokenizers: under 20 s per GB; ~4 characters "
                         "per token)",
                         a, b);
                break;
        case EST_A_QLORA_TORCHAO:
                decimal_format(buf, len,
                         "QLoRA in torchtune: torchao's linear_nf4 keeps only the NF4 weight for "
                         "backward (the input gradient needs no input), so no matmul inputs are "
                         "saved beyond what a frozen bf16 linear keeps");
                break;
        case EST_A_QLORA_SAVED_INPUTS:
                decimal_format(buf, len,
                         "QLoRA: bitsandbytes keeps the input of every 4-bit matmul for backward "
                         "(%.2f MiB per sample), which frozen bf16 layers would not",
                         a / 1048576.0);
                break;
        case EST_A_PIPELINE_STAGE:
                decimal_format(buf, len,
                         "pipeline 1F1B: figures are for the %s stage, the one with the larger "
                         "peak (the first holds up to p micro-batches of activations and the "
                         "embeddings, the last one micro-batch, the head and the logits)",
                         (int)a == 0 ? "first" : "last");
                break;
        case EST_A_GRADIENTS_PERSIST:
                decimal_format(buf, len,
                         "gradients stay allocated between steps (zero_grad(set_to_none=False), "
                         "the PyTorch default before 2.0)");
                break;
        case EST_A_NCCL_BUFFERS:
                decimal_format(buf, len,
                         "NCCL communicator buffers: %.0f MB per process (measured by "
                         "AIConfigurator), reserved by NCCL outside PyTorch's allocator: "
                         "counted with the CUDA context, in nvidia-smi but not in "
                         "max_memory_allocated",
                         a / 1e6);
                break;
        case EST_A_ZERO_BUCKETS:
                decimal_format(buf, len,
                         "DeepSpeed reduce and all-gather buckets of %.0f elements each (DeepSpeed "
                         "defaults)",
                         a);
                break;
        case EST_A_LOSS_CHUNKS:
                /* b: memory_chunked_ce (1 torchtune compiled, 2 eager) */
                if (b == 1)
                        decimal_format(buf, len,
                                 "chunked loss: %.0f chunks, compiled: no fp32 chunk is made, "
                                 "each chunk's bf16 logits freed as its gradient is produced "
                                 "(torchtune CEWithChunkedOutputLoss)",
                                 a);
                else if (b == 2)
                        decimal_format(buf, len,
                                 "chunked loss: %.0f chunks, eager: every chunk's fp32 "
                                 "log-probabilities stay saved until backward (torchtune "
                                 "CEWithChunkedOutputLoss without compile)",
                                 a);
                else
                        decimal_format(buf, len,
                                 "chunked loss: %.0f chunks upcast to fp32 one at a time, each "
                                 "chunk's logits freed as its gradient is produced",
                                 a);
                break;
        case EST_A_CPU_DATA:
                decimal_format(buf, len, "CPU: %.1f GiB per training process for data loader buffers",
                         a / GIB);
                break;
        case EST_A_OPTIMIZER_8BIT:
                decimal_format(buf, len,
                         "8-bit optimizer states quantized in blocks of %.0f with one fp32 scale "
                         "each (Dettmers et al. 2022)",
                         a);
                break;
        case EST_A_CONFIG_DEFAULT:
                if ((int)a == MODEL_KEY_TIED)
                        decimal_format(buf, len,
                                 "config.json has no tie_word_embeddings: %s, the transformers "
                                 "default for its model_type",
                                 b != 0 ? "true" : "false");
                else
                        decimal_format(buf, len,
                                 "config.json has no %s: %.0f, the transformers default for its "
                                 "model_type%s",
                                 model_key_name((enum model_key)(int)a), b,
                                 (int)a == MODEL_KEY_HEAD_DIM || (int)a == MODEL_KEY_KV_HEADS
                                         ? " (or what hidden size and heads imply)"
                                         : "");
                break;
        case EST_A_FRAMEWORK: {
                enum est_fw_setting fs = (enum est_fw_setting)(int)a;
                const char *name = estimate_fw_setting_name(fs);
                char value[48];
                switch (fs) {
                case EST_FWS_PRECISION:
                        decimal_format(value, sizeof(value), "%s",
                                 estimate_precision_name((enum est_precision)(int)b));
                        break;
                case EST_FWS_CHECKPOINTING:
                        decimal_format(value, sizeof(value), "%s",
                                 estimate_checkpointing_name((enum est_checkpointing)(int)b));
                        break;
                case EST_FWS_LOGITS:
                        decimal_format(value, sizeof(value), "%s",
                                 estimate_logits_name((enum est_logits)(int)b));
                        break;
                case EST_FWS_STRATEGY:
                        decimal_format(value, sizeof(value), "%s",
                                 estimate_strategy_name((enum est_strategy)(int)b));
                        break;
                case EST_FWS_FSDP_VERSION:
                        decimal_format(value, sizeof(value), "%.0f", b);
                        break;
                case EST_FWS_RESERVE:
                case EST_FWS_LORA_DROPOUT:
                        decimal_format(value, sizeof(value), "%g", b);
                        break;
                case EST_FWS_GEMM_ACCUMULATION:
                        decimal_format(value, sizeof(value), "%s", b != 0 ? "fp16" : "fp32");
                        break;
                default: /* booleans */
                        decimal_format(value, sizeof(value), "%s", b != 0 ? "true" : "false");
                        break;
                }
                decimal_format(buf, len, "%s = %s: the framework's default (request left it unset)", name,
                         value);
                break;
        }
        case EST_A_CHECKPOINT_OP:
                decimal_format(buf, len,
                         "op-level selective checkpointing (torchtitan): each block keeps its "
                         "input, every second matmul output and the attention output, %.1f MiB "
                         "per sample; the rest is recomputed in backward",
                         a / MIB);
                break;
        case EST_A_CHECKPOINT_EVERY:
                decimal_format(buf, len,
                         "every %.0f-th block is fully checkpointed (%.0f blocks); the others keep "
                         "all their activations",
                         a, b);
                break;
        case EST_A_COMPILE:
                decimal_format(buf, len,
                         "torch.compile: norms keep their input and fp32 rstd, the MLP keeps its "
                         "matmul outputs; element-wise results are recomputed in backward");
                break;
        case EST_A_LOGITS_MODE:
                if ((int)a == EST_LOGITS_FUSED)
                        decimal_format(buf, len,
                                 "fused cross-entropy: compute-dtype logits and their gradient, "
                                 "no fp32 copies");
                else if ((int)a == EST_LOGITS_LOSS_PARALLEL)
                        decimal_format(buf, len,
                                 "loss_parallel: cross-entropy on the vocabulary-sharded logits, "
                                 "upcast to fp32; its log-softmax decomposition holds the fp32 "
                                 "copy, the shifted logits, their exponent and the result (12 "
                                 "bytes per logit beside the logits), and its fused backward 16 "
                                 "bytes per logit");
                else
                        decimal_format(buf, len,
                                 "logits in the compute dtype, upcast to fp32 inside "
                                 "cross-entropy: the fp32 copy and log-probabilities exist "
                                 "while the loss runs; backward starts from the saved "
                                 "log-probabilities");
                break;
        case EST_A_FSDP_KEPT:
                if (b <= 1)
                        decimal_format(buf, len,
                                 "FSDP2 reshard_after_forward=False: every block's gathered "
                                 "parameters stay from its forward to its backward (%.2f GiB "
                                 "per GPU)",
                                 a / GIB);
                else
                        decimal_format(buf, len,
                                 "FSDP2 reshard_after_forward=%.0f: each block's parameters are "
                                 "resharded over %.0f ranks after forward and kept until "
                                 "backward (%.2f GiB per GPU)",
                                 b, b, a / GIB);
                break;
        case EST_A_FSDP_UNLIMITED:
                decimal_format(buf, len,
                         "FSDP1 limit_all_gathers=False: the CPU issues all-gathers ahead of the "
                         "GPU, so every unit can be gathered at once (%.2f GiB per GPU beyond "
                         "the two a rate limit allows)",
                         a / GIB);
                break;
        case EST_A_FLOAT8_SAVED:
                decimal_format(buf, len,
                         "float8 linears (torchao Float8Linear, tensorwise): each linear keeps its "
                         "own 1-byte copy of its input for backward (%.1f MiB per sample in a "
                         "block whose forward is kept; with compile the partitioner decides) and "
                         "%.2f GiB of float8 weight copies per GPU",
                         a / 1048576.0, b / GIB);
                break;
        case EST_A_GRADIENT_POOL:
                decimal_format(buf, len,
                         "gradient shards are allocated on FSDP's reduce-scatter stream: after "
                         "zero_grad() the caching allocator keeps their %.2f GiB reserved for "
                         "that stream through forward and backward (in max_memory_reserved and "
                         "nvidia-smi, not in max_memory_allocated)",
                         a / GIB);
                break;
        case EST_A_FSDP1_FLAT_GRADS:
                decimal_format(buf, len,
                         "FSDP1 flat parameters mix frozen and trainable weights: the gradient "
                         "shard covers the frozen ones too (%.2f GiB per GPU) until the next "
                         "forward",
                         a / GIB);
                break;
        case EST_A_SPEED_MODEL:
                decimal_format(buf, len,
                         "time from a roofline per kind of work: matmuls at %.0f%% of peak "
                         "FLOP/s, attention at %.0f%%, memory traffic at 80%% of peak bandwidth",
                         a * 100, b * 100);
                break;
        case EST_A_HOST_DISPATCH:
                decimal_format(buf, len,
                         b > 0 ? "eager PyTorch: the host needs %.2f ms to dispatch one forward "
                                 "pass (about 10 us per operator)"
                               : "compiled kernels: the host needs %.2f ms to launch one "
                                 "forward pass",
                         a * 1e3);
                break;
        case EST_A_STEP_OVERHEAD:
                decimal_format(buf, len,
                         "serving engine with CUDA graphs: %.2f ms per step for scheduling and "
                         "sampling",
                         a * 1e3);
                break;
        case EST_A_LORA_DROPOUT:
                decimal_format(buf, len,
                         "LoRA's A keeps its own copy of each wrapped layer's input for backward "
                         "(with dropout the dropped input and its mask; PEFT's fp32 adapters "
                         "an fp32 copy): %.1f MiB per sample and block",
                         a / MIB);
                break;
        case EST_A_FSDP_NO_SYNC:
                decimal_format(buf, len,
                         "FSDP1 no_sync during gradient accumulation: every unit's gradient is "
                         "kept unsharded between micro-batches (%.2f GiB per GPU)",
                         a / GIB);
                break;
        case EST_W_SEQUENCE_BEYOND_MAX:
                decimal_format(buf, len, "sequence_length %.0f exceeds the model's max positions %.0f", a,
                         b);
                break;
        case EST_W_ZERO3_ONE_GPU:
                decimal_format(buf, len,
                         "ZeRO-3/FSDP on one GPU shards nothing; it only adds gathers (useful with "
                         "offload)");
                break;
        case EST_W_SHARDING_ONE_GPU:
                decimal_format(buf, len, "sharding has no peers to shard with in this layout");
                break;
        case EST_W_QLORA_FP32_COMPUTE:
                decimal_format(buf, len,
                         "4-bit weights with fp32 compute: weights stay 4-bit, activations are "
                         "fp32 (slower, larger)");
                break;
        case EST_W_LORA_QUANT_IS_QLORA:
                decimal_format(buf, len, "lora over quantized base weights is QLoRA-style training");
                break;
        case EST_W_PAGED:
                decimal_format(buf, len,
                         "paged optimizer states can be evicted to CPU under pressure; the "
                         "estimate keeps them on the GPU");
                break;
        case EST_W_GPU_CANNOT_TRAIN:
                decimal_format(buf, len, "the chosen accelerator is inference-only");
                break;
        case EST_W_GPU_NO_FLOPS:
                decimal_format(buf, len,
                         "the chosen GPU has no throughput figure at this precision: no time "
                         "estimate");
                break;
        case EST_W_NO_GPU_FITS:
                decimal_format(buf, len,
                         "no catalog GPU holds this configuration with the requested GPU count");
                break;
        case EST_W_CHOSEN_GPU_TOO_SMALL:
                decimal_format(buf, len, "needs %.2f GiB per GPU, the chosen GPU has %.2f GiB", a / GIB,
                         b / GIB);
                break;
        case EST_W_FP16_PURE:
                decimal_format(buf, len,
                         "pure fp16 training without loss scaling or master weights is numerically "
                         "fragile");
                break;
        case EST_W_TP_REPLICATES_KV:
                decimal_format(buf, len,
                         "%.0f key/value heads over %.0f tensor-parallel ranks: KV heads are "
                         "replicated",
                         a, b);
                break;
        case EST_W_INFERENCE_OPTIMIZER:
                decimal_format(buf, len, "inference: the optimizer is ignored");
                break;
        case EST_W_ACT_OFFLOAD_INFERENCE:
                decimal_format(buf, len, "inference: activation offload is ignored");
                break;
        case EST_W_FP8_NO_SUPPORT:
                decimal_format(buf, len, "the chosen GPU has no fp8 tensor cores");
                break;
        case EST_W_OPT_IN_BACKWARD_GA:
                decimal_format(buf, len, "optimizer_in_backward cannot accumulate gradients");
                break;
        case EST_W_PRECISION_UNSUPPORTED:
                decimal_format(buf, len,
                         "the chosen GPU has no %s tensor throughput (bf16 needs compute "
                         "capability 8.0, fp8 8.9): no time estimate; run it in %s",
                         estimate_precision_name((enum est_precision)(int)a),
                         estimate_precision_name((enum est_precision)(int)b));
                break;
        case EST_W_GENERIC_DECODER:
                decimal_format(buf, len,
                         "the config's model_type is not one the importer knows: estimated as "
                         "a generic LLaMA-like decoder (RMSNorm, rotary, gated MLP, no biases) "
                         "from its hidden_size, layers, heads and intermediate_size");
                break;
        case EST_W_MAX_POSITIONS:
                decimal_format(buf, len,
                         "the KV budget holds %.0f tokens, beyond the model's %.0f positions", a,
                         b);
                break;
        case EST_S_CHECKPOINTING:
                decimal_format(
                        buf, len,
                        "full activation checkpointing: %.2f GiB per GPU (about 33%% more compute)",
                        a / GIB);
                break;
        case EST_S_FLASH:
                decimal_format(buf, len, "flash attention: %.2f GiB per GPU", a / GIB);
                break;
        case EST_S_CHUNKED_LOSS:
                decimal_format(buf, len, "chunked cross-entropy (torchtune/litgpt): %.2f GiB per GPU",
                         a / GIB);
                break;
        case EST_S_BF16_MIXED:
                decimal_format(buf, len, "bf16 mixed precision: %.2f GiB per GPU", a / GIB);
                break;
        case EST_S_ADAMW_8BIT:
                decimal_format(buf, len, "8-bit AdamW (bitsandbytes): %.2f GiB per GPU", a / GIB);
                break;
        case EST_S_LORA:
                decimal_format(buf, len, "LoRA rank 16 on all linear layers, bf16: %.2f GiB per GPU",
                         a / GIB);
                break;
        case EST_S_QLORA:
                decimal_format(buf, len, "QLoRA (NF4 base weights): %.2f GiB per GPU", a / GIB);
                break;
        case EST_S_OFFLOAD_OPTIMIZER:
                decimal_format(buf, len, "optimizer states on the CPU (ZeRO-Offload): %.2f GiB per GPU",
                         a / GIB);
                break;
        case EST_S_OFFLOAD_ALL:
                decimal_format(buf, len,
                         "ZeRO-3 with optimizer and parameters on the CPU: %.2f GiB per GPU",
                         a / GIB);
                break;
        case EST_S_ZERO3:
                decimal_format(buf, len, "shard with ZeRO-3/FSDP over %.0f GPUs of this size", b);
                break;
        case EST_S_SMALLER_BATCH:
                decimal_format(buf, len,
                         "batch size %.0f per GPU fits; raise gradient accumulation to keep the "
                         "global batch",
                         b);
                break;
        case EST_S_BIGGER_GPU:
                decimal_format(buf, len, "a GPU with %.1f GiB holds it as requested", a / GIB);
                break;
        case EST_S_QUANTIZE:
                decimal_format(buf, len, "4-bit weights (AWQ/GPTQ, group 128): %.2f GiB per GPU",
                         a / GIB);
                break;
        case EST_S_TENSOR_PARALLEL:
                decimal_format(buf, len, "tensor parallel over %.0f GPUs of this size", b);
                break;
        default:
                decimal_format(buf, len, "note %u", (unsigned)n->code);
        }
        return buf;
}
