/*
 * estimate.c - the engine's entry points (see estimate.h): names and
 * defaults, the pipeline validate -> derive -> memory -> compute -> fit,
 * and the notes every module records.
 */
#include "core/estimate_internal.h"
#include "core/reserve_cache.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- names --------------------------------------------------------------- */

const char *const estimate_mode_names[] = {"inference", "fine_tune", "pre_train",
                                           "lora",      "qlora",     NULL};
const char *const estimate_precision_names[] = {"fp32", "tf32", "fp16_mixed", "bf16_mixed",
                                                "fp16", "bf16", "fp8_mixed",  NULL};
const char *const estimate_quant_names[] = {"none", "int8", "int4", "nf4", "fp8", "mxfp4", NULL};
const char *const estimate_kv_dtype_names[] = {"auto", "fp32", "fp16", "bf16",
                                               "fp8",  "int8", "int4", NULL};
const char *const estimate_optimizer_names[] = {
        "sgd",         "sgd_momentum",     "adam",       "adamw", "adafactor", "adamw_8bit", "lion",
        "paged_adamw", "paged_adamw_8bit", "paged_lion", NULL};
const char *const estimate_opt_impl_names[] = {"auto", "foreach", "fused", "for_loop", NULL};
const char *const estimate_checkpointing_names[] = {"none", "selective", "full", "selective_op",
                                                    NULL};
const char *const estimate_logits_names[] = {"fp32", "upcast_in_loss", "fused", "loss_parallel",
                                             NULL};
const char *const estimate_attention_kernel_names[] = {
        "auto",   "sdpa",  "flash_attention_1", "flash_attention_2", "flash_attention_3",
        "triton", "cudnn", NULL};
const char *const estimate_framework_names[] = {
        "none",     "hf_trainer", "accelerate", "deepspeed",    "torchtune", "torchtitan", "litgpt",
        "megatron", "vllm",       "llama_cpp",  "transformers", "exllama",   NULL};
static const char *const fw_setting_names[] = {"precision",
                                               "activation_checkpointing",
                                               "flash_attention",
                                               "logits",
                                               "chunked_loss",
                                               "strategy",
                                               "fsdp_version",
                                               "fused_optimizer",
                                               "allocator_reserve_fraction",
                                               "sequence_parallel",
                                               "fsdp_no_sync",
                                               "lora_dropout",
                                               "fsdp_use_orig_params",
                                               "gemm_accumulation",
                                               "dequantize_to_fp16",
                                               "gradient_clipping",
                                               "expandable_segments",
                                               "model_output_kept"};
const char *const estimate_strategy_names[] = {"single", "ddp",  "zero1", "zero2",
                                               "zero3",  "fsdp", NULL};
const char *const estimate_fsdp_names[] = {"full_shard", "shard_grad_op", "hybrid_shard", NULL};
const char *const estimate_offload_names[] = {"none", "optimizer", "optimizer_and_params", NULL};
const char *const estimate_model_load_names[] = {"every_process", "rank_zero", NULL};
static const char *const component_names[] = {
        "weights", "gradients", "optimizer_states",      "master_weights", "activations",
        "logits",  "kv_cache",  "communication_buffers", "workspace",      "framework_overhead"};
static const char *const phase_names[] = {"forward", "backward", "backward_end",  "optimizer_step",
                                          "prefill", "decode",   "block_backward"};
static const char *const cpu_names[] = {"offloaded_states", "model_load", "runtime", "data_loading",
                                        "offloaded_activations"};
static const char *const bottleneck_names[] = {"compute", "memory_bandwidth", "interconnect",
                                               "data_loading", "host_overhead"};
static const char *const fit_reason_names[] = {"fits", "too_small", "cannot_train",
                                               "unknown_memory", "precision_unsupported"};

int estimate_enum_parse(const char *const *names, const char *s)
{
        if (!s)
                return -1;
        for (int i = 0; names[i]; i++)
                if (strcmp(names[i], s) == 0)
                        return i;
        return -1;
}

#define NAME_FN(fn, type, table, count)                                                            \
        const char *fn(type v)                                                                     \
        {                                                                                          \
                return (unsigned)v < (count) ? table[v] : "";                                      \
        }
NAME_FN(estimate_mode_name, enum est_mode, estimate_mode_names, EST_MODE_COUNT)
NAME_FN(estimate_precision_name, enum est_precision, estimate_precision_names, EST_PRECISION_COUNT)
NAME_FN(estimate_quant_name, enum est_quant, estimate_quant_names, EST_QUANT_COUNT)
NAME_FN(estimate_kv_dtype_name, enum est_kv_dtype, estimate_kv_dtype_names, EST_KV_COUNT)
NAME_FN(estimate_optimizer_name, enum est_optimizer, estimate_optimizer_names, EST_OPTIMIZER_COUNT)
NAME_FN(estimate_checkpointing_name, enum est_checkpointing, estimate_checkpointing_names,
        EST_CKPT_COUNT)
NAME_FN(estimate_logits_name, enum est_logits, estimate_logits_names, EST_LOGITS_COUNT)
NAME_FN(estimate_framework_name, enum est_framework, estimate_framework_names, EST_FW_COUNT)
NAME_FN(estimate_fw_setting_name, enum est_fw_setting, fw_setting_names, EST_FWS_COUNT)
NAME_FN(estimate_strategy_name, enum est_strategy, estimate_strategy_names, EST_STRATEGY_COUNT)
NAME_FN(estimate_fsdp_name, enum est_fsdp_sharding, estimate_fsdp_names, EST_FSDP_COUNT)
NAME_FN(estimate_offload_name, enum est_offload, estimate_offload_names, EST_OFFLOAD_COUNT)
NAME_FN(estimate_model_load_name, enum est_model_load, estimate_model_load_names, EST_LOAD_COUNT)
NAME_FN(estimate_component_name, enum est_component, component_names, EST_COMPONENT_COUNT)
NAME_FN(estimate_phase_name, enum est_phase, phase_names, EST_PHASE_COUNT)
NAME_FN(estimate_cpu_component_name, enum est_cpu_component, cpu_names, EST_CPU_COMPONENT_COUNT)
NAME_FN(estimate_bottleneck_name, enum est_bottleneck, bottleneck_names, EST_BOUND_COUNT)
NAME_FN(estimate_fit_reason_name, enum est_fit_reason, fit_reason_names, EST_FIT_REASON_COUNT)

void estimate_input_defaults(struct estimate_input *in)
{
        memset(in, 0, sizeof(*in));
        in->mode = EST_PRE_TRAIN;
        in->batch_size = 8;
        in->sequence_length = 512;
        in->gradient_accumulation = 1;
        in->num_labels = 2;
        in->lora_rank = 8;
        in->lora_alpha = 16;
        in->lora_targets = EST_LORA_Q | EST_LORA_V;
        in->epochs = 1.0;
        in->precision = EST_BF16_MIXED;
        in->quantization = EST_QUANT_NONE;
        in->quant_group_size = 128;
        in->double_quant = true;
        in->kv_dtype = EST_KV_AUTO;
        in->optimizer = EST_OPT_ADAMW;
        in->checkpointing = EST_CKPT_NONE;
        in->flash_attention = false;
        in->strategy = EST_SINGLE;
        in->fsdp_sharding = EST_FSDP_FULL_SHARD;
        in->gpus = 1;
        in->nodes = 1;
        in->tensor_parallel = 1;
        in->pipeline_parallel = 1;
        in->micro_batches = 0;
        in->offload = EST_OFFLOAD_NONE;
        in->model_load = EST_LOAD_EVERY_PROCESS;
        in->gpu_index = -1;
        in->framework = EST_FW_NONE;
        in->logits = EST_LOGITS_FP32;
        in->fsdp_version = 1;
        in->fsdp_limit_all_gathers = true;
        in->output_kept = true;
}

/* ---- framework presets --------------------------------------------------- */

/* Fill one setting unless the request stated it (its EST_SET_* bit). */
#define PRESET(in, set_bit, setting, field, value)                                                 \
        do {                                                                                       \
                if (!((in)->set & (set_bit))) {                                                    \
                        (in)->field = (value);                                                     \
                        (in)->set |= (set_bit);                                                    \
                        (in)->framework_set |= 1u << (setting);                                    \
                }                                                                                  \
        } while (0)

/* Sharding as a framework that shards with FSDP does it: FSDP on several
 * GPUs, its FSDP version, FSDP1's no_sync under accumulation, and whether
 * LoRA layers share block units with frozen weights (use_orig_params). */
static void preset_fsdp(struct estimate_input *in, uint32_t version, bool no_sync, bool orig_params)
{
        if (in->gpus > 1)
                PRESET(in, EST_SET_STRATEGY, EST_FWS_STRATEGY, strategy, EST_FSDP);
        if (in->strategy != EST_FSDP)
                return;
        PRESET(in, EST_SET_FSDP_VERSION, EST_FWS_FSDP_VERSION, fsdp_version, version);
        if (no_sync && in->fsdp_version == 1 && in->gradient_accumulation > 1)
                PRESET(in, EST_SET_FSDP_NO_SYNC, EST_FWS_FSDP_NO_SYNC, fsdp_no_sync, true);
        if (orig_params && in->fsdp_version == 1 && (in->mode == EST_LORA || in->mode == EST_QLORA))
                PRESET(in, EST_SET_FSDP_ORIG, EST_FWS_FSDP_ORIG_PARAMS, fsdp_use_orig_params, true);
}

/*
 * What each framework does when its user says nothing, read from its own
 * source and shipped configurations: each case names its sources.  Two
 * defaults cut across the frameworks:
 *
 * The model's output through backward: Trainer.compute_loss returns the
 *   loss alone, so the output (and its logits) is freed before
 *   training_step calls backward; torchtitan's train_step deletes pred,
 *   torchtune's recipes delete the logits once the loss has them, and
 *   Megatron-LM's forward step returns the loss.  The loops accelerate,
 *   DeepSpeed and PEFT document (outputs = model(**batch); loss =
 *   outputs.loss; backward(loss)) and litgpt's keep it alive.
 * Gradient clipping by default: TrainingArguments max_grad_norm 1.0,
 *   torchtitan training.max_norm 1.0, Megatron-LM --clip-grad 1.0;
 *   torchtune (clip_grad_norm), litgpt (max_norm), accelerate and
 *   DeepSpeed (gradient_clipping 0) leave it off.
 */
void estimate_apply_framework(struct estimate_input *in)
{
        bool multi = in->gpus > 1;

        switch (in->framework) {
        case EST_FW_TORCHTITAN:
                /* torchtitan (torchtitan/models/llama3/infra/parallelize.py,
                 * train_configs/llama3_8b.toml): FSDP2 fully_shard with
                 * MixedPrecisionPolicy(param bf16, reduce fp32) over fp32 parameters;
                 * activation_checkpoint mode "selective" with selective_ac_option "op";
                 * SDPA (flash) attention; loss = cross_entropy(pred.flatten(0, 1).float(),
                 * labels): bf16 logits upcast inside the loss; AdamW implementation
                 * "fused"; run_train.sh starts every rank with
                 * PYTORCH_ALLOC_CONF="expandable_segments:True". */
                PRESET(in, EST_SET_PRECISION, EST_FWS_PRECISION, precision, EST_BF16_MIXED);
                PRESET(in, EST_SET_CHECKPOINTING, EST_FWS_CHECKPOINTING, checkpointing,
                       EST_CKPT_SELECTIVE_OP);
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                /* With tensor parallelism torchtitan computes the loss on
                 * the vocabulary-sharded logits inside loss_parallel()
                 * unless training.disable_loss_parallel is set
                 * (torchtitan/train.py, loss_parallel_enabled). */
                /* With compile on, torchtitan compiles the loss too since
                 * April 2025 (components/loss.py build_cross_entropy_loss:
                 * torch.compile(cross_entropy_loss) when compile is enabled
                 * and "loss" is among compile.components, the default);
                 * Inductor fuses the upcast into the log-sum-exp, so no fp32
                 * copy of the logits is made.  Earlier releases (December
                 * 2024 and before) compiled the blocks only. */
                bool compiled_loss = in->compile &&
                                     (in->framework_release == 0 || in->framework_release >= 202504);
                PRESET(in, EST_SET_LOGITS, EST_FWS_LOGITS, logits,
                       in->tensor_parallel > 1 ? EST_LOGITS_LOSS_PARALLEL
                       : compiled_loss         ? EST_LOGITS_FUSED
                                               : EST_LOGITS_UPCAST_IN_LOSS);
                PRESET(in, EST_SET_OPT_PER_PARAM, EST_FWS_FUSED_OPTIMIZER, optimizer_per_parameter,
                       true);
                PRESET(in, EST_SET_GRAD_CLIP, EST_FWS_GRADIENT_CLIPPING, gradient_clipping, true);
                PRESET(in, EST_SET_EXPANDABLE, EST_FWS_EXPANDABLE_SEGMENTS, expandable_segments,
                       true);
                PRESET(in, EST_SET_OUTPUT_KEPT, EST_FWS_OUTPUT_KEPT, output_kept, false);
                preset_fsdp(in, 2, false, false);
                if (in->tensor_parallel > 1)
                        PRESET(in, EST_SET_SEQ_PARALLEL, EST_FWS_SEQUENCE_PARALLEL,
                               sequence_parallel, true);
                break;
        case EST_FW_TORCHTUNE:
                /* torchtune (recipes/configs, every recipe): dtype bf16,
                 * enable_activation_checkpointing True, loss CEWithChunkedOutputLoss,
                 * optimizer fused AdamW; distributed recipes shard with FSDP2
                 * fully_shard. */
                PRESET(in, EST_SET_PRECISION, EST_FWS_PRECISION, precision, EST_BF16);
                PRESET(in, EST_SET_CHECKPOINTING, EST_FWS_CHECKPOINTING, checkpointing,
                       EST_CKPT_FULL);
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                PRESET(in, EST_SET_CHUNKED_LOSS, EST_FWS_CHUNKED_LOSS, chunked_loss, true);
                PRESET(in, EST_SET_OPT_PER_PARAM, EST_FWS_FUSED_OPTIMIZER, optimizer_per_parameter,
                       true);
                PRESET(in, EST_SET_OUTPUT_KEPT, EST_FWS_OUTPUT_KEPT, output_kept, false);
                preset_fsdp(in, 2, false, false);
                break;
        case EST_FW_LITGPT:
                /* litgpt (litgpt/finetune/lora.py, pretrain.py): precision "bf16-true";
                 * on several GPUs Fabric's FSDPStrategy (FSDP1, flat parameters) with
                 * activation_checkpointing_policy={Block}; chunked_cross_entropy over
                 * lm_head_chunk_size = 128 chunks; SDPA attention; torch AdamW (foreach);
                 * accumulation micro-batches under fabric.no_backward_sync (FSDP1
                 * no_sync); FSDPStrategy uses use_orig_params=True, so LoRA layers share
                 * each Block's flat parameter with its frozen weights; LoRA Config
                 * lora_dropout 0.05 (litgpt/lora.py). */
                /* litgpt's GPT builds lm_head as its own nn.Linear beside
                 * transformer.wte and never ties them (litgpt/model.py at
                 * 04205815, GPT.__init__): a tied checkpoint (Gemma) is
                 * loaded into both. */
                in->arch.tied_embeddings = false;
                PRESET(in, EST_SET_PRECISION, EST_FWS_PRECISION, precision, EST_BF16);
                if (in->mode == EST_LORA || in->mode == EST_QLORA)
                        PRESET(in, EST_SET_LORA_DROPOUT, EST_FWS_LORA_DROPOUT, lora_dropout, 0.05);
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                PRESET(in, EST_SET_CHUNKED_LOSS, EST_FWS_CHUNKED_LOSS, chunked_loss, true);
                if (multi)
                        PRESET(in, EST_SET_CHECKPOINTING, EST_FWS_CHECKPOINTING, checkpointing,
                               EST_CKPT_FULL);
                preset_fsdp(in, 1, true, true);
                break;
        case EST_FW_HF_TRAINER:
        case EST_FW_ACCELERATE:
                /* HF Trainer / accelerate: fp32 unless asked otherwise (TrainingArguments
                 * bf16 = fp16 = False; accelerate mixed_precision "no"); the model returns
                 * fp32 logits; adamw_torch (foreach); DDP, or FSDP1 through accelerate's
                 * FullyShardedDataParallelPlugin, whose accumulate() runs the non-final
                 * micro-batches under no_sync; PEFT's fsdp_auto_wrap_policy puts each
                 * trainable LoRA layer in a unit of its own. */
                PRESET(in, EST_SET_PRECISION, EST_FWS_PRECISION, precision, EST_FP32);
                PRESET(in, EST_SET_LOGITS, EST_FWS_LOGITS, logits, EST_LOGITS_FP32);
                if (in->framework == EST_FW_HF_TRAINER) {
                        PRESET(in, EST_SET_GRAD_CLIP, EST_FWS_GRADIENT_CLIPPING, gradient_clipping,
                               true);
                        PRESET(in, EST_SET_OUTPUT_KEPT, EST_FWS_OUTPUT_KEPT, output_kept, false);
                }
                if (multi)
                        PRESET(in, EST_SET_STRATEGY, EST_FWS_STRATEGY, strategy, EST_DDP);
                if (in->strategy == EST_FSDP)
                        preset_fsdp(in, 1, true, false); /* PEFT wraps LoRA layers apart */
                break;
        case EST_FW_DEEPSPEED:
                /* DeepSpeed: fp32 unless its config enables fp16 or bf16 (both off by
                 * default); with them, fp32 master weights inside the ZeRO optimizer. */
                PRESET(in, EST_SET_PRECISION, EST_FWS_PRECISION, precision, EST_FP32);
                break;
        case EST_FW_MEGATRON:
                /* Megatron-LM: "selective" means its --recompute-activations policy (the
                 * attention core), which stays the engine's meaning of the name; nothing
                 * is recomputed unless asked (--recompute-granularity unset); attention
                 * through Transformer Engine's fused kernels; the cross-entropy runs in
                 * fp32 over the (vocab-parallel) logits.  Sequence parallelism and the
                 * precision are flags its users set, so the request says them. */
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                PRESET(in, EST_SET_LOGITS, EST_FWS_LOGITS, logits, EST_LOGITS_UPCAST_IN_LOSS);
                PRESET(in, EST_SET_GRAD_CLIP, EST_FWS_GRADIENT_CLIPPING, gradient_clipping, true);
                PRESET(in, EST_SET_OUTPUT_KEPT, EST_FWS_OUTPUT_KEPT, output_kept, false);
                break;
        case EST_FW_VLLM:
                /* vLLM serves with fused attention (flash). */
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                break;
        case EST_FW_TRANSFORMERS:
                /* transformers serves with fused attention (SDPA).  Its bitsandbytes
                 * 4-bit layers dequantize the whole matrix for any input of more than
                 * one token (bnb matmul_4bit), GPTQ layers through ExLlama kernels above
                 * 50 rows. */
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                if (in->quantization == EST_QUANT_NF4 || in->quantization == EST_QUANT_INT4)
                        PRESET(in, EST_SET_DEQUANT_FP16, EST_FWS_DEQUANTIZE_FP16,
                               dequantize_to_fp16, true);
                break;
        case EST_FW_LLAMA_CPP:
                /* llama.cpp allocates exact ggml buffers, not PyTorch's caching
                 * allocator.  It runs fp16 matmuls through cuBLAS with fp16 accumulation:
                 * ggml-cuda's ggml_cuda_op_mul_mat_cublas calls cublasGemmEx with
                 * CUBLAS_COMPUTE_16F for fp16 and dequantized weights; GeForce tensor
                 * cores run that at twice their fp32-accumulate rate (speed.c).  Builds
                 * since June 2024 (PR 8075) multiply quantized weights in their MMQ
                 * kernels without an fp16 copy; GGML_CUDA_FORCE_CUBLAS builds and older
                 * ones dequantize first (runtime.dequantize_to_fp16). */
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                PRESET(in, EST_SET_RESERVE, EST_FWS_RESERVE, allocator_reserve_fraction, 0.0);
                PRESET(in, EST_SET_GEMM_ACC, EST_FWS_GEMM_ACCUMULATION, fp16_accumulation, true);
                break;
        case EST_FW_EXLLAMA:
                /* ExLlama (v1 q4_matmul, v2 QMatrix) reconstructs each quantized matrix
                 * to fp16 and calls cublasHgemm above a few rows: fp16 accumulation, as
                 * llama.cpp. */
                PRESET(in, EST_SET_FLASH, EST_FWS_FLASH, flash_attention, true);
                PRESET(in, EST_SET_GEMM_ACC, EST_FWS_GEMM_ACCUMULATION, fp16_accumulation, true);
                if (in->quantization != EST_QUANT_NONE)
                        PRESET(in, EST_SET_DEQUANT_FP16, EST_FWS_DEQUANTIZE_FP16,
                               dequantize_to_fp16, true);
                break;
        case EST_FW_NONE:
        case EST_FW_COUNT:
                break;
        }
}
#undef PRESET

enum est_opt_impl estimate_optimizer_impl(const struct estimate_input *in)
{
        if (in->optimizer_impl != EST_OPT_IMPL_AUTO)
                return in->optimizer_impl;
        if (in->optimizer_per_parameter)
                return in->framework_set & (1u << EST_FWS_FUSED_OPTIMIZER) ? EST_OPT_IMPL_FUSED
                                                                           : EST_OPT_IMPL_FOR_LOOP;
        if (in->framework == EST_FW_DEEPSPEED || in->framework == EST_FW_MEGATRON)
                return EST_OPT_IMPL_FUSED;
        return EST_OPT_IMPL_FOREACH;
}

/* ---- errors and notes ---------------------------------------------------- */

int estimate_fail(struct estimate_error *err, const char *pointer, const char *rule,
                  const char *detail)
{
        if (err) {
                snprintf(err->pointer, sizeof(err->pointer), "%s", pointer);
                snprintf(err->rule, sizeof(err->rule), "%s", rule);
                snprintf(err->detail, sizeof(err->detail), "%s", detail);
        }
        return -1;
}

void estimate_note_add(struct est_note *arr, size_t *n, size_t cap, uint16_t code, double a,
                       double b)
{
        if (!arr || *n >= cap)
                return;
        arr[*n].code = code;
        arr[*n].a = a;
        arr[*n].b = b;
        (*n)++;
}

/* The caching allocator's reserve for a training run, replayed
 * (reserve.c; remembered per configuration by reserve_cache.c), as a fraction of the allocated
 * peak, unless the request states one. */
static void reserve_apply(const struct estimate_input *in, struct derived *d, struct mem_model *mm)
{
        if (in->set & EST_SET_RESERVE)
                return;
        double b = in->batch_size, gap, held;
        double allocated = 0, comm = 0;
        for (int i = 0; i < EST_PHASE_COUNT; i++) {
                const struct phase_mem *p = &mm->ph[i];
                double a = p->present ? memory_phase_allocated(p, b) : 0;
                if (a > allocated) {
                        allocated = a;
                        comm = p->fixed[EST_C_COMM] + p->per_sample[EST_C_COMM] * b;
                }
        }
        if (!(allocated > 0) ||
            reserve_cache_replayed(in, d, b * d->mb_fraction, allocated - comm, &gap, &held))
                return;
        d->reserve_fraction = mm->reserve_fraction = fmin(gap / allocated, 1.0);
        d->held_fraction = mm->held_fraction = fmin(held / allocated, 1.0);
        d->reserve_replayed = true;
}

int estimate_build(const struct estimate_input *in, struct derived *d, struct mem_model *mm,
                   struct estimate_result *res, struct estimate_error *err)
{
        struct derived last_d;
        struct mem_model last_mm;
        double first_reserved, last_reserved;

        if (validate_input(in, res, err) || derive_input(in, d, res, err))
                return -1;
        if (in->pipeline_parallel < 2 || !d->training) {
                if (memory_model_build(in, d, mm, res, err))
                        return -1;
                reserve_apply(in, d, mm);
                return 0;
        }
        /* Pipeline: the first stage holds the most activations, the last
         * the head and the logits; the peak is whichever is larger at the
         * request's batch (Megatron-LM's theoretical memory reports the
         * first stage; with a large vocabulary the last one can win). */
        last_d = *d;
        d->pp_stage = 0;
        last_d.pp_stage = 1;
        if (memory_model_build(in, d, mm, res, err) ||
            memory_model_build(in, &last_d, &last_mm, NULL, err))
                return -1;
        memory_peak_phase(mm, in->batch_size, &first_reserved);
        memory_peak_phase(&last_mm, in->batch_size, &last_reserved);
        if (last_reserved > first_reserved) {
                *d = last_d;
                *mm = last_mm;
        }
        reserve_apply(in, d, mm);
        return 0;
}

int estimate_allocator_reserve(const struct estimate_input *in, double *reserve, double *held,
                               struct estimate_error *err)
{
        struct derived d;
        struct mem_model mm;
        if (estimate_build(in, &d, &mm, NULL, err))
                return -1;
        *reserve = mm.reserve_fraction;
        *held = mm.held_fraction;
        return 0;
}

uint64_t estimate_memory_bytes(const struct estimate_input *in, struct estimate_error *err)
{
        struct derived d;
        struct mem_model mm;
        if (estimate_build(in, &d, &mm, NULL, err))
                return 0;
        double total = memory_max_needed(&mm, in->batch_size) + mm.overhead_fixed;
        if (!(total < EST_BYTES_LIMIT)) {
                estimate_fail(
                        err, "/workload/batch_size", "overflow",
                        "the configuration needs more than 64 EiB per GPU; refused as absurd");
                return 0;
        }
        return (uint64_t)llround(total);
}

/* ---- the run ------------------------------------------------------------------------- */

/* Weight bytes one decode step reads per GPU at batch b, W being all the
 * weights the GPU holds.  A dense model reads them all.  A mixture of
 * experts reads the shared weights and only the experts its b tokens are
 * routed to: with k of E experts per token, chosen uniformly, an expert
 * is untouched by one token with probability 1 - k/E and by all b with
 * (1 - k/E)^b, so E (1 - (1 - k/E)^b) experts per layer are read (the
 * expected-coverage argument of Fedus et al. 2022 / Switch Transformer's
 * load-balancing assumption; Mixtral 8x7B at b = 1 reads its 12.9B active
 * parameters of 46.7B, Jiang et al. 2024). */
static double decode_weight_bytes(const struct estimate_input *in, const struct derived *d,
                                  double W, double b)
{
        const struct model_arch *a = &in->arch;
        if (a->experts <= 1 || a->active_experts >= a->experts)
                return W;
        double E = a->experts, k = a->active_experts;
        /* Expert matrices of all layers: (linear - linear_active) is the
         * (E - k) experts a token skips. */
        double experts_linear = (double)(d->pb.linear - d->pb.linear_active) * E / (E - k);
        double touched = E * (1.0 - pow(1.0 - k / E, b));
        double untouched = experts_linear * (1.0 - touched / E);
        double bytes = untouched * d->e_q / ((double)in->tensor_parallel * in->pipeline_parallel);
        return W > bytes ? W - bytes : 0;
}

static void record_assumptions(const struct estimate_input *in, const struct derived *d,
                               struct estimate_result *r)
{
        for (int k = 0; k < MODEL_KEY_COUNT; k++)
                if (in->arch.defaulted & (1u << k))
                        ASSUME(r, EST_A_CONFIG_DEFAULT, k,
                               model_key_value(&in->arch, (enum model_key)k));
        if (!(in->set & EST_SET_BATCH))
                ASSUME(r, EST_A_DEFAULT_BATCH, in->batch_size, 0);
        if (!(in->set & EST_SET_SEQUENCE))
                ASSUME(r, EST_A_DEFAULT_SEQUENCE, in->sequence_length, 0);
        if (d->training && in->arch.kind == MODEL_ENCODER_DECODER && !in->target_length)
                ASSUME(r, EST_A_DEFAULT_TARGET, in->sequence_length, 0);
        if (!(in->set & EST_SET_PRECISION))
                ASSUME(r, EST_A_DEFAULT_PRECISION, in->precision, 0);
        if (d->training && !(in->set & EST_SET_OPTIMIZER))
                ASSUME(r, EST_A_DEFAULT_OPTIMIZER, in->optimizer, 0);
        if (d->encoder_head && d->training && !(in->set & EST_SET_LABELS))
                ASSUME(r, EST_A_DEFAULT_LABELS, in->num_labels, 0);
        if (d->lora && !(in->set & EST_SET_LORA))
                ASSUME(r, EST_A_DEFAULT_LORA, in->lora_rank, in->lora_targets);
        if (!d->training && in->arch.kind != MODEL_ENCODER && !(in->set & EST_SET_KV_DTYPE))
                ASSUME(r, EST_A_DEFAULT_KV_DTYPE, d->e_kv, 0);
        if (in->parameters_hint)
                ASSUME(r, EST_A_SHAPE_FROM_PARAMETERS, in->arch.layers, in->arch.hidden);
        if (d->training)
                ASSUME(r, EST_A_BYTES_PER_PARAM, d->lora ? d->e_q : d->e_w,
                       d->e_g + d->e_master + d->e_opt);
        for (int fs = 0; fs < EST_FWS_COUNT; fs++) {
                if (!(in->framework_set & (1u << fs)))
                        continue;
                double val = 0;
                switch ((enum est_fw_setting)fs) {
                case EST_FWS_PRECISION:
                        val = in->precision;
                        break;
                case EST_FWS_CHECKPOINTING:
                        val = in->checkpointing;
                        break;
                case EST_FWS_FLASH:
                        val = in->flash_attention;
                        break;
                case EST_FWS_LOGITS:
                        val = in->logits;
                        break;
                case EST_FWS_CHUNKED_LOSS:
                        val = in->chunked_loss;
                        break;
                case EST_FWS_STRATEGY:
                        val = in->strategy;
                        break;
                case EST_FWS_FSDP_VERSION:
                        val = in->fsdp_version;
                        break;
                case EST_FWS_FUSED_OPTIMIZER:
                        val = in->optimizer_per_parameter;
                        break;
                case EST_FWS_RESERVE:
                        val = in->allocator_reserve_fraction;
                        break;
                case EST_FWS_SEQUENCE_PARALLEL:
                        val = in->sequence_parallel;
                        break;
                case EST_FWS_FSDP_NO_SYNC:
                        val = in->fsdp_no_sync;
                        break;
                case EST_FWS_LORA_DROPOUT:
                        val = in->lora_dropout;
                        break;
                case EST_FWS_FSDP_ORIG_PARAMS:
                        val = in->fsdp_use_orig_params;
                        break;
                case EST_FWS_GEMM_ACCUMULATION:
                        val = in->fp16_accumulation;
                        break;
                case EST_FWS_DEQUANTIZE_FP16:
                        val = in->dequantize_to_fp16;
                        break;
                case EST_FWS_GRADIENT_CLIPPING:
                        val = in->gradient_clipping;
                        break;
                case EST_FWS_EXPANDABLE_SEGMENTS:
                        val = in->expandable_segments;
                        break;
                case EST_FWS_OUTPUT_KEPT:
                        val = in->output_kept;
                        break;
                case EST_FWS_COUNT:
                        break;
                }
                ASSUME(r, EST_A_FRAMEWORK, fs, val);
        }
        ASSUME(r, EST_A_CUDA_CONTEXT, d->context_bytes, 0);
        if (in->gpus > 1)
                ASSUME(r, EST_A_NCCL_BUFFERS, memory_nccl_buffer_bytes, 0);
        if (d->reserve_replayed)
                ASSUME(r, EST_A_ALLOCATOR_REPLAY, d->reserve_fraction, d->held_fraction);
        else
                ASSUME(r, EST_A_ALLOCATOR_RESERVE, d->reserve_fraction, 0);
        if (d->training && in->gradients_persist)
                ASSUME(r, EST_A_GRADIENTS_PERSIST, 0, 0);
        if (d->training) {
                ASSUME(r, EST_A_ACTIVATIONS_FORMULA, d->e_a, 0);
                if (!in->flash_attention && in->checkpointing != EST_CKPT_SELECTIVE)
                        ASSUME(r, EST_A_ATTENTION_SCORES, d->mixed ? 6 : d->e_a, 0);
                if (d->lm_logits && !in->chunked_loss) {
                        if (in->logits == EST_LOGITS_FP32)
                                ASSUME(r, EST_A_LOGITS_FP32, in->output_kept ? 4 : 3, 0);
                        else
                                ASSUME(r, EST_A_LOGITS_MODE, in->logits, 0);
                }
                if (in->checkpointing == EST_CKPT_SELECTIVE_OP)
                        ASSUME(r, EST_A_CHECKPOINT_OP, memory_sac_op_block_bytes(in, d), 0);
                if (in->checkpointing == EST_CKPT_FULL && in->checkpoint_every > 1)
                        ASSUME(r, EST_A_CHECKPOINT_EVERY, in->checkpoint_every,
                               floor((double)in->arch.layers / in->checkpoint_every));
                if (in->compile)
                        ASSUME(r, EST_A_COMPILE, 0, 0);
                double dropped = memory_lora_dropout_bytes(in, d);
                if (dropped > 0)
                        ASSUME(r, EST_A_LORA_DROPOUT, dropped, 0);
                if (d->e_opt_temp > 0)
                        ASSUME(r, EST_A_FOREACH_TEMP, d->e_opt_temp, 0);
                if (in->optimizer == EST_OPT_ADAFACTOR)
                        ASSUME(r, EST_A_ADAFACTOR, d->e_opt * d->P_trainable,
                               d->e_opt_temp * d->P_trainable);
                if (in->pipeline_parallel > 1)
                        ASSUME(r, EST_A_PIPELINE_STAGE, d->pp_stage, 0);
                if (in->mode == EST_QLORA && memory_qlora_keeps_inputs(in))
                        ASSUME(r, EST_A_QLORA_SAVED_INPUTS, memory_qlora_saved_bytes(in, d), 0);
                else if (in->mode == EST_QLORA)
                        ASSUME(r, EST_A_QLORA_TORCHAO, 0, 0);
                ASSUME(r, EST_A_CPU_RUNTIME, memory_cpu_runtime_bytes, 0);
                ASSUME(r, EST_A_CPU_DATA, memory_cpu_data_bytes, 0);
                if (d->lm_logits && in->chunked_loss)
                        ASSUME(r, EST_A_LOSS_CHUNKS, memory_loss_chunks,
                               (double)memory_chunked_ce(in));
                if (d->dp > 1 && d->stage >= 1 && d->stage <= 2 && in->strategy != EST_FSDP)
                        ASSUME(r, EST_A_ZERO_BUCKETS, memory_zero_bucket_elements, 0);
                if (in->optimizer == EST_OPT_ADAMW_8BIT ||
                    in->optimizer == EST_OPT_PAGED_ADAMW_8BIT)
                        ASSUME(r, EST_A_OPTIMIZER_8BIT, derive_bnb_optimizer_block, 0);
                if (in->gpus > 1 || in->offload != EST_OFFLOAD_NONE)
                        ASSUME(r, EST_A_MODEL_LOAD, in->model_load, 0);
        }
}

/* Empty the result's figures and notes (the fit table's rows are left as they are). */
static void result_clear(struct estimate_result *r)
{
        memset(r, 0, offsetof(struct estimate_result, fits));
        r->n_fits = r->n_assumptions = r->n_warnings = r->n_suggestions = 0;
}

/*
 * The part of a run that does not depend on the GPU: the memory model,
 * the per-GPU and CPU figures and their notes, and for inference the bytes
 * a decode step reads.  r must be cleared first.
 */
static int run_memory(const struct estimate_input *in, struct derived *d, struct mem_model *mm,
                      struct estimate_result *r, struct estimate_error *err)
{
        if (estimate_build(in, d, mm, r, err))
                return -1;

        r->pipeline_stage = d->pp_stage;
        r->parameters = (uint64_t)llround(d->P);
        r->trainable_parameters = (uint64_t)llround(d->P_trainable);
        r->checkpoint_parameters = d->pb.total;

        double b = in->batch_size, reserved;
        r->peak_phase = memory_peak_phase(mm, b, &reserved);
        double total = reserved + mm->overhead_fixed;
        if (!(total < EST_BYTES_LIMIT))
                return estimate_fail(
                        err,
                        in->batch_size > 1 ? "/workload/batch_size" : "/workload/sequence_length",
                        "overflow",
                        "the configuration needs more than 64 EiB per GPU; refused as absurd");
        for (int i = 0; i < EST_PHASE_COUNT; i++)
                if (mm->ph[i].present)
                        r->phase_total_bytes[i] = (uint64_t)llround(
                                memory_phase_reserved(mm, &mm->ph[i], b) + mm->overhead_fixed);
        const struct phase_mem *pk = &mm->ph[r->peak_phase];
        double sum = 0;
        for (int c = 0; c < EST_COMPONENT_COUNT; c++) {
                if (c == EST_C_OVERHEAD)
                        continue;
                r->per_gpu[c] = (uint64_t)llround(pk->fixed[c] + pk->per_sample[c] * b);
                sum += (double)r->per_gpu[c];
        }
        r->per_gpu_total_bytes = (uint64_t)llround(total);
        r->per_gpu[EST_C_OVERHEAD] =
                r->per_gpu_total_bytes > (uint64_t)sum ? r->per_gpu_total_bytes - (uint64_t)sum : 0;
        /* Paged optimizers (bitsandbytes paged_adamw*, paged_lion) allocate
         * their states with cudaMallocManaged (NVIDIA unified memory), outside
         * PyTorch's caching allocator: they occupy the device while resident
         * but torch.cuda.max_memory_allocated() never sees them (bitsandbytes
         * docs, "Paged optimizers"; Dettmers et al. 2023, QLoRA, section 3).
         * max_memory_allocated is the largest phase's allocation, which need
         * not be the phase that reserves most. */
        double unseen =
                in->optimizer >= EST_OPT_PAGED_ADAMW ? (double)r->per_gpu[EST_C_OPTIMIZER] : 0;
        double allocated = memory_max_allocated(mm, b);
        r->per_gpu_allocated_bytes = (uint64_t)llround(fmax(allocated - unseen, 0));
        /* max_memory_reserved() counts the allocator's segments, not the
         * CUDA context the driver holds. */
        r->per_gpu_reserved_bytes = (uint64_t)llround(reserved);
        r->per_gpu_needed_bytes = (uint64_t)llround(memory_max_needed(mm, b) + mm->overhead_fixed);
        ASSUME(r, EST_A_TOTAL_IS_PEAK, r->peak_phase, 0);

        /* CPU: steady-state offloaded states, load copies, runtime, data. */
        memory_cpu(in, d, mm->cpu);
        double cpu_total = 0;
        for (int c = 0; c < EST_CPU_COMPONENT_COUNT; c++) {
                r->cpu[c] = (uint64_t)llround(mm->cpu[c]);
                cpu_total += mm->cpu[c];
        }
        if (!(cpu_total < EST_BYTES_LIMIT))
                return estimate_fail(err, "/workload/batch_size", "overflow",
                                     "CPU memory beyond 64 EiB; refused as absurd");
        r->cpu_total_bytes = (uint64_t)llround(cpu_total);

        record_assumptions(in, d, r);

        /* Inference: bytes per decode step. */
        if (!d->training) {
                const struct phase_mem *ph = mm->ph[EST_PHASE_DECODE].present
                                                     ? &mm->ph[EST_PHASE_DECODE]
                                                     : &mm->ph[EST_PHASE_PREFILL];
                double kv_total = ph->per_sample[EST_C_KV_CACHE] * b;
                double ctx = (double)d->prompt + d->generated;
                double kv_tok = ctx > 0 ? ph->per_sample[EST_C_KV_CACHE] / ctx : 0;
                /* On average half the generated tokens are in the cache. */
                double kv_avg = kv_tok * b * ((double)d->prompt + d->generated / 2.0);
                if (in->arch.kind == MODEL_ENCODER)
                        kv_avg = kv_total = 0;
                r->decode_bytes_per_token = (uint64_t)llround(
                        decode_weight_bytes(in, d, ph->fixed[EST_C_WEIGHTS], b) + kv_avg);
                r->kv_bytes_per_token = (uint64_t)llround(kv_tok);
        }
        return 0;
}

/*
 * The GPU as the request runs it: a memory variant of the catalog part (the
 * same chip with other HBM stacks, e.g. an H100 with 96 GB of HBM2e) runs
 * memory-bound work at its own bandwidth.  Returns g, or variant filled.
 */
static const struct gpu_spec *gpu_as_run(const struct estimate_input *in,
                                         const struct gpu_spec *g, struct gpu_spec *variant)
{
        if (!g || !(in->memory_bandwidth_bytes_per_s > 0))
                return g;
        *variant = *g;
        variant->memory_bandwidth_bytes_per_s = in->memory_bandwidth_bytes_per_s;
        return variant;
}

int estimate_run(const struct estimate_input *in, const struct gpu_spec *gpus, size_t n_gpus,
                 struct estimate_result *r, struct estimate_error *err)
{
        struct derived d;
        struct mem_model mm;

        result_clear(r);
        if (in->gpu_index >= 0 && (size_t)in->gpu_index >= n_gpus)
                return estimate_fail(err, "/gpu", "unknown", "gpu index out of range");
        if (run_memory(in, &d, &mm, r, err))
                return -1;

        /* Time on the chosen GPU, and the serving answer. */
        struct gpu_spec variant;
        const struct gpu_spec *g =
                gpu_as_run(in, in->gpu_index >= 0 ? &gpus[in->gpu_index] : NULL, &variant);
        compute_fill(in, &d, g, r);
        compute_goodput(in, &d, r);

        fit_serving(in, &d, &mm, g, r);
        /* Whether a GPU holds the run: cached blocks another stream holds
         * give way under pressure (memory_phase_needed), so they do not count. */
        fit_table(in, &d, &mm, (double)r->per_gpu_needed_bytes, gpus, n_gpus, r);
        return 0;
}

/* ---- one layout, many GPUs -------------------------------------------------------------- */

/* The derived quantities travel in estimate_prepared's private bytes. */
_Static_assert(sizeof(struct derived) <= sizeof(((struct estimate_prepared *)0)->engine),
               "estimate_prepared.engine must hold struct derived");

int estimate_prepare(const struct estimate_input *in, struct estimate_prepared *p,
                     struct estimate_result *scratch, struct estimate_error *err)
{
        struct derived d;
        struct mem_model mm;

        result_clear(scratch);
        if (run_memory(in, &d, &mm, scratch, err))
                return -1;
        p->per_gpu_total_bytes = scratch->per_gpu_total_bytes;
        p->per_gpu_needed_bytes = scratch->per_gpu_needed_bytes;
        p->cpu_total_bytes = scratch->cpu_total_bytes;
        p->decode_bytes_per_token = scratch->decode_bytes_per_token;
        p->kv_bytes_per_token = scratch->kv_bytes_per_token;
        memcpy(p->per_gpu, scratch->per_gpu, sizeof(p->per_gpu));
        memcpy(p->engine, &d, sizeof(d));
        return 0;
}

void estimate_time(const struct estimate_input *in, const struct estimate_prepared *p,
                   const struct gpu_spec *g, struct estimate_result *r)
{
        struct derived d;

        memcpy(&d, p->engine, sizeof(d));
        result_clear(r);
        r->per_gpu_total_bytes = p->per_gpu_total_bytes;
        r->per_gpu_needed_bytes = p->per_gpu_needed_bytes;
        r->cpu_total_bytes = p->cpu_total_bytes;
        r->decode_bytes_per_token = p->decode_bytes_per_token;
        r->kv_bytes_per_token = p->kv_bytes_per_token;
        memcpy(r->per_gpu, p->per_gpu, sizeof(r->per_gpu));
        /* What estimate_run does after the memory part, but the fit table
         * and the serving answer. */
        struct gpu_spec variant;
        compute_fill(in, &d, gpu_as_run(in, g, &variant), r);
        compute_goodput(in, &d, r);
}

/* ---- a floor under a layout's time ------------------------------------------------------ */

int estimate_floor_prepare(const struct estimate_input *in, struct estimate_floor *f,
                           struct estimate_error *err)
{
        struct derived d;

        memset(f, 0, sizeof(*f));
        double cpu[EST_CPU_COMPONENT_COUNT] = {0}, cpu_total = 0;

        if (validate_input(in, NULL, err) || derive_input(in, &d, NULL, err))
                return -1;
        compute_floor(in, &d, f);
        if (!d.training)
                return 0;
        d.procs_per_node = 1;
        memory_cpu(in, &d, cpu);
        for (int c = 0; c < EST_CPU_COMPONENT_COUNT; c++)
                cpu_total += cpu[c];
        f->cpu_bytes = cpu_total < EST_BYTES_LIMIT ? (uint64_t)llround(cpu_total) : 0;
        return 0;
}

double estimate_floor_step_seconds(const struct estimate_input *in, const struct estimate_floor *f,
                                   const struct gpu_spec *g)
{
        struct gpu_spec variant;

        return compute_floor_step_seconds(in, f, gpu_as_run(in, g, &variant));
}
