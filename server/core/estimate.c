/*
 * estimate.c - the estimation engine (see estimate.h).
 *
 * How the memory model is built.  Every tensor class the training loop
 * keeps on a GPU is placed in the phases during which it is alive:
 *
 *   forward   end of the forward pass: weights, optimizer states (from the
 *             second step on), gradients only if they accumulate across
 *             micro-batches, every saved activation, logits + log-probs;
 *   backward  start of the backward pass: as forward, plus the gradients of
 *             the loss (log-probs and logits) and of the head's weights;
 *   bwd_end   end of the backward pass: all gradients, activations freed;
 *   optimizer the step: states + gradients + the optimizer's temporaries;
 *   prefill / decode for inference.
 *
 * Each phase is an affine function of the per-GPU batch size b: a fixed
 * part plus a per-sample part, per component.  The peak is the largest
 * phase at the requested b; the largest b that fits a GPU is the smallest
 * solution over the phases, so the fit table over the whole catalog costs
 * a few multiplications per GPU.
 *
 * Arithmetic is in double precision (exact for integers below 2^53 bytes,
 * 8 PiB) and every total is checked against EST_BYTES_LIMIT before it is
 * converted to uint64_t: absurd input is refused, never wrapped.
 */
#include "core/estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)
/* No real configuration needs an exbibyte per GPU; above this we refuse. */
#define EST_BYTES_LIMIT        (1024.0 * 1024.0 * GIB * 64.0)
#define EST_MAX_BATCH_REPORTED 1048576u

/* ---- constants, each with its source ------------------------------------ */

/* CUDA context + kernels resident per process with lazy module loading
 * (CUDA >= 11.7, PyTorch >= 2.0): about 0.5 GiB on A100/H100.  Anchors use
 * 650 MB (gpu_poor) and 1000 MiB (asmirnov VRAM calculator); the Hugging
 * Face "model memory anatomy" page measured 1,343 MB on a V100 with eager
 * loading of every kernel. */
static const double cuda_context_bytes = 512.0 * MIB;
/* PyTorch caching-allocator reserve and fragmentation over the allocated
 * peak, as nvidia-smi shows it; 5% (Megatron-LM maintainers cite ~8% for
 * fragmentation in NVIDIA/Megatron-LM#188; theoretical_memory_usage.py
 * adds 5% to activations). */
static const double allocator_reserve_fraction = 0.05;
/* NCCL communicator buffers per process when GPUs talk: AIConfigurator
 * measured 342 MB (TP2) to 392 MB (TP4/8). */
static const double nccl_buffer_bytes = 392.0e6;
/* DeepSpeed ZeRO-1/2 default reduce_bucket_size and allgather_bucket_size
 * (elements), DeepSpeed configuration docs. */
static const double zero_bucket_elements = 5e8;
/* bitsandbytes 8-bit optimizers quantize states in blocks of 2048 with one
 * fp32 absmax per block (Dettmers et al. 2022, "8-bit Optimizers via
 * Block-wise Quantization"). */
static const double bnb_optimizer_block = 2048.0;
/* torchtune CEWithChunkedOutputLoss default num_output_chunks. */
static const double loss_chunks = 8.0;
/* Host memory per training process: PyTorch + CUDA libraries, host-side
 * CUDA allocations and pinned staging buffers (typical resident size). */
static const double cpu_runtime_bytes = 3.0 * GIB;
static const double cpu_data_bytes = 1.0 * GIB;
/* vLLM's activation profile + non-KV reservations on H100 as measured by
 * llm-d (config_explorer/empirical-vllm-memory-results.md): Llama-family
 * 4.8 GiB, other dense 5.5 GiB, MoE 8.0 GiB, independent of max_model_len. */
static const double serving_act_llama_bytes = 4.8 * GIB;
static const double serving_act_dense_bytes = 5.5 * GIB;
static const double serving_act_moe_bytes = 8.0 * GIB;
/* Fraction of peak HBM bandwidth a decode step reaches (AIConfigurator's
 * mem_bw_empirical_scaling_factor is 0.8). */
static const double decode_bandwidth_efficiency = 0.8;
/* 200 Gb/s HDR InfiniBand, one NIC per GPU (DGX A100 layout). */
static const double default_inter_node_bytes_per_s = 25e9;
/* PCIe 4.0 x16, one direction, when the catalog has no figure. */
static const double default_pcie_bytes_per_s = 32e9;

/* ---- names --------------------------------------------------------------- */

const char *const estimate_mode_names[] = {"inference", "fine_tune", "pre_train",
                                           "lora",      "qlora",     NULL};
const char *const estimate_precision_names[] = {"fp32", "tf32", "fp16_mixed", "bf16_mixed",
                                                "fp16", "bf16", "fp8_mixed",  NULL};
const char *const estimate_quant_names[] = {"none", "int8", "int4", "nf4", NULL};
const char *const estimate_kv_dtype_names[] = {"auto", "fp32", "fp16", "bf16",
                                               "fp8",  "int8", "int4", NULL};
const char *const estimate_optimizer_names[] = {
        "sgd",         "sgd_momentum",     "adam",       "adamw", "adafactor", "adamw_8bit", "lion",
        "paged_adamw", "paged_adamw_8bit", "paged_lion", NULL};
const char *const estimate_checkpointing_names[] = {"none", "selective", "full", NULL};
const char *const estimate_strategy_names[] = {"single", "ddp",  "zero1", "zero2",
                                               "zero3",  "fsdp", NULL};
const char *const estimate_fsdp_names[] = {"full_shard", "shard_grad_op", "hybrid_shard", NULL};
const char *const estimate_offload_names[] = {"none", "optimizer", "optimizer_and_params", NULL};
const char *const estimate_model_load_names[] = {"every_process", "rank_zero", NULL};
static const char *const component_names[] = {
        "weights", "gradients", "optimizer_states",      "master_weights", "activations",
        "logits",  "kv_cache",  "communication_buffers", "workspace",      "framework_overhead"};
static const char *const phase_names[] = {"forward",        "backward", "backward_end",
                                          "optimizer_step", "prefill",  "decode"};
static const char *const cpu_names[] = {"offloaded_states", "model_load", "runtime", "data_loading",
                                        "offloaded_activations"};
static const char *const bottleneck_names[] = {"compute", "memory_bandwidth", "interconnect",
                                               "data_loading"};
static const char *const fit_reason_names[] = {"fits", "too_small", "cannot_train",
                                               "unknown_memory"};

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
}

/* ---- errors and notes ---------------------------------------------------- */

static int fail(struct estimate_error *err, const char *pointer, const char *rule,
                const char *detail)
{
        if (err) {
                snprintf(err->pointer, sizeof(err->pointer), "%s", pointer);
                snprintf(err->rule, sizeof(err->rule), "%s", rule);
                snprintf(err->detail, sizeof(err->detail), "%s", detail);
        }
        return -1;
}

static void note_add(struct est_note *arr, size_t *n, size_t cap, uint16_t code, double a, double b)
{
        if (!arr || *n >= cap)
                return;
        arr[*n].code = code;
        arr[*n].a = a;
        arr[*n].b = b;
        (*n)++;
}

#define ASSUME(res, code, a, b)                                                                    \
        do {                                                                                       \
                if (res)                                                                           \
                        note_add((res)->assumptions, &(res)->n_assumptions, EST_NOTES_MAX, code,   \
                                 a, b);                                                            \
        } while (0)
#define WARN(res, code, a, b)                                                                      \
        do {                                                                                       \
                if (res)                                                                           \
                        note_add((res)->warnings, &(res)->n_warnings, EST_NOTES_MAX, code, a, b);  \
        } while (0)

/* ---- derived quantities --------------------------------------------------- */

/* Everything the memory and compute models need, derived once from the
 * input.  Byte figures are per element or per parameter. */
struct derived {
        struct model_param_breakdown pb;
        bool training, lora, encoder_head, lm_logits, mixed, pure_half;
        bool amp;        /* PyTorch autocast: fp32 weights/gradients + half copies */
        double P;        /* parameters as run */
        double P_linear; /* quantizable block matrices */
        double P_trainable;
        double P_head_grad;  /* head weights whose gradient appears first in backward */
        double layer_params; /* largest block */
        double root_params;  /* what an FSDP root unit keeps gathered: embeddings + head */
        double e_w;          /* bytes per non-quantized weight */
        double e_q;          /* bytes per quantized linear weight (== e_w when none) */
        double e_a;          /* activation bytes per element */
        double e_g;          /* gradient bytes per trainable parameter */
        double e_master;     /* master-weight bytes per trainable parameter */
        double e_opt;        /* optimizer-state bytes per trainable parameter */
        double e_opt_temp;   /* optimizer-step temporaries per trainable parameter */
        double e_kv;
        double e_adapter; /* LoRA adapter weight bytes */
        uint32_t s;       /* tokens per sample in the forward pass */
        uint32_t prompt, generated;
        uint32_t dp;    /* data-parallel degree */
        uint32_t shard; /* ZeRO/FSDP shard degree */
        int stage;      /* 0 none, 1 optimizer, 2 +gradients, 3 +weights */
        uint32_t procs_per_node;
        double mb_fraction; /* pipeline: micro-batch / batch */
        double inflight;    /* pipeline: layers' worth of activations held, / L */
};

static double quant_bytes(const struct estimate_input *in, struct estimate_result *res)
{
        switch (in->quantization) {
        case EST_QUANT_INT8:
                /* LLM.int8 / weight-only int8: 1 byte + an fp32 scale per
                 * output row (negligible, Dettmers et al. 2022). */
                return 1.0;
        case EST_QUANT_INT4: {
                /* GPTQ/AWQ: 4-bit weights, an fp16 scale and a 4-bit zero
                 * point per group of g weights: 4 + 20/g bits. */
                double g = in->quant_group_size ? in->quant_group_size : 128;
                double bits = 4.0 + 20.0 / g;
                ASSUME(res, EST_A_INT4_GROUP, g, bits);
                return bits / 8.0;
        }
        case EST_QUANT_NF4: {
                /* NF4 (Dettmers et al. 2023, QLoRA §3): 4 bits + one fp32
                 * absmax per 64 weights = 0.5 bit; double quantization stores
                 * the absmax in 8 bits with an fp32 constant per 256 blocks:
                 * 8/64 + 32/(64*256) = 0.127 bit. */
                double bits = in->double_quant ? 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 4.5;
                ASSUME(res, EST_A_NF4, bits, 0);
                return bits / 8.0;
        }
        default:
                return 0;
        }
}

static double kv_bytes(enum est_kv_dtype k, double e_a)
{
        switch (k) {
        case EST_KV_FP32:
                return 4;
        case EST_KV_FP16:
        case EST_KV_BF16:
                return 2;
        case EST_KV_FP8:
        case EST_KV_INT8:
                return 1;
        case EST_KV_INT4:
                return 0.5;
        default:
                return e_a;
        }
}

/* LoRA adapter parameters: r x (in + out) per targeted matrix (Hu et al. 2021). */
static double lora_params(const struct model_arch *a, uint32_t r, unsigned t)
{
        double h = a->hidden, q = (double)a->heads * a->head_dim,
               kv = (double)a->kv_heads * a->head_dim;
        double f = a->ffn, ex = a->experts > 1 ? a->experts : 1;
        double attn = 0, mlp = 0;
        if (t & EST_LORA_Q)
                attn += h + q;
        if (t & EST_LORA_K)
                attn += h + kv;
        if (t & EST_LORA_V)
                attn += h + kv;
        if (t & EST_LORA_O)
                attn += q + h;
        if (a->gated_mlp) {
                if (t & EST_LORA_GATE)
                        mlp += h + f;
                if (t & EST_LORA_UP)
                        mlp += h + f;
                if (t & EST_LORA_DOWN)
                        mlp += f + h;
        } else {
                if (t & (EST_LORA_UP | EST_LORA_GATE))
                        mlp += h + f;
                if (t & EST_LORA_DOWN)
                        mlp += f + h;
        }
        double per_layer = attn + mlp * ex;
        double total = per_layer * a->layers;
        if (a->kind == MODEL_ENCODER_DECODER)
                total += (2 * attn + mlp * ex) * a->decoder_layers;
        return total * r;
}

static int derive(const struct estimate_input *in, struct derived *d, struct estimate_result *res,
                  struct estimate_error *err)
{
        const struct model_arch *a = &in->arch;
        const char *field, *why;
        char ptr[96];

        memset(d, 0, sizeof(*d));
        if (model_arch_check(a, &field, &why)) {
                snprintf(ptr, sizeof(ptr), "/model/architecture/%s", field);
                return fail(err, ptr, "architecture", why);
        }
        if (model_param_breakdown(a, &d->pb))
                return fail(err, "/model", "overflow", "the parameter count overflows 64 bits");

        d->training = in->mode != EST_INFERENCE;
        d->lora = in->mode == EST_LORA || in->mode == EST_QLORA;
        d->encoder_head = a->kind == MODEL_ENCODER && in->mode != EST_PRE_TRAIN;
        d->lm_logits = d->training && !d->encoder_head;
        d->mixed = in->precision == EST_FP16_MIXED || in->precision == EST_BF16_MIXED ||
                   in->precision == EST_FP8_MIXED;
        d->pure_half = in->precision == EST_FP16 || in->precision == EST_BF16;

        /* Parameters as run: an encoder fine-tuned for classification swaps
         * its MLM head for a task head (pooler-sized dense layer + h x
         * num_labels, as BertForSequenceClassification /
         * RobertaClassificationHead); pre-training drops the pooler
         * (BertForMaskedLM has none). */
        double h = a->hidden;
        double P = (double)d->pb.total;
        if (a->kind == MODEL_ENCODER) {
                double pooler = a->pooler ? (h + 1) * h : 0;
                double mlm = (double)d->pb.head_extra - pooler + (double)d->pb.lm_head;
                if (in->mode == EST_PRE_TRAIN)
                        P -= pooler;
                else if (in->mode != EST_INFERENCE)
                        P = P - mlm - pooler + (h + 1) * h + (h + 1) * (double)in->num_labels;
        }
        d->P = P;
        d->P_linear = (double)d->pb.linear;
        d->layer_params =
                (double)(d->pb.per_layer > d->pb.per_decoder_layer ? d->pb.per_layer
                                                                   : d->pb.per_decoder_layer);
        d->root_params = P - (double)d->pb.linear - (double)d->pb.small; /* embeddings + heads */

        /* Bytes per weight.  Mixed precision follows the ZeRO paper's
         * accounting (Rajbhandari et al. 2020, §3.1): fp16 weights 2 +
         * fp16 gradients 2 + fp32 master 4 + Adam 8 = 16 B/param.  PyTorch
         * AMP keeps fp32 weights and gradients instead (4 + 4 + 8), the same
         * 16 B. */
        switch (in->precision) {
        case EST_FP32:
        case EST_TF32:
                d->e_w = 4;
                d->e_a = 4;
                break;
        default:
                d->e_w = 2;
                d->e_a = 2;
                break;
        }
        /* PyTorch AMP (single GPU, DDP, FSDP MixedPrecision) keeps fp32
         * weights and fp32 gradients (4 + 4 + Adam 8 = 16 B/param, the fp32
         * weights double as the master copy) and, during forward and
         * backward, the half-precision copies autocast makes of every weight
         * (Hugging Face "model training anatomy": 6 bytes per parameter for
         * mixed-precision weights).  DeepSpeed ZeRO keeps the ZeRO paper's
         * fp16 weights + fp16 gradients + fp32 master. */
        d->amp = d->mixed && d->training && !d->lora &&
                 (in->strategy == EST_SINGLE || in->strategy == EST_DDP ||
                  in->strategy == EST_FSDP) &&
                 !(in->offload == EST_OFFLOAD_OPTIMIZER && in->strategy != EST_FSDP);
        if (d->amp)
                d->e_w = 4;
        d->e_q = in->quantization == EST_QUANT_NONE ? d->e_w : quant_bytes(in, res);
        d->e_kv = kv_bytes(in->kv_dtype, d->e_a);

        if (d->lora) {
                d->e_adapter = d->pure_half ? 2 : 4; /* PEFT keeps adapters in fp32 */
                d->P_trainable = lora_params(a, in->lora_rank, in->lora_targets);
                if (d->encoder_head)
                        d->P_trainable += (h + 1) * h + (h + 1) * (double)in->num_labels;
                d->P_head_grad = 0;
        } else if (d->training) {
                d->P_trainable = P;
                /* The first gradient backward writes is the vocabulary
                 * projection's (untied head, or the tied embedding). */
                d->P_head_grad = d->lm_logits ? (double)a->vocab * h : 0;
        }

        if (d->training) {
                d->e_g = d->lora ? d->e_adapter : (d->e_w);
                d->e_master = (d->mixed && !d->lora && !d->amp) ? 4 : 0;
                double half =
                        d->pure_half ? 0.5 : 1.0; /* states kept in bf16 by pure-bf16 recipes */
                switch (in->optimizer) {
                case EST_OPT_SGD:
                        d->e_opt = 0;
                        break;
                case EST_OPT_SGD_MOMENTUM:
                        d->e_opt = 4 * half;
                        break;
                case EST_OPT_ADAM:
                case EST_OPT_ADAMW:
                case EST_OPT_PAGED_ADAMW:
                        d->e_opt = 8 * half; /* exp_avg + exp_avg_sq */
                        /* torch.optim.Adam(W) foreach implementation (the
                         * CUDA default) materialises sqrt(exp_avg_sq) for
                         * every parameter at once: one state-sized temporary. */
                        if (in->optimizer != EST_OPT_PAGED_ADAMW && in->offload == EST_OFFLOAD_NONE)
                                d->e_opt_temp = 4 * half;
                        break;
                case EST_OPT_ADAFACTOR:
                        /* First moment (beta1 set, as the seeds assume: 4 B)
                         * + factored second moment: rows + columns per
                         * matrix (Shazeer & Stern 2018), ~8/h per param. */
                        d->e_opt = 4 * half + 8.0 / h;
                        break;
                case EST_OPT_ADAMW_8BIT:
                case EST_OPT_PAGED_ADAMW_8BIT:
                        d->e_opt = 2 + 2 * 4 / bnb_optimizer_block;
                        break;
                case EST_OPT_LION:
                case EST_OPT_PAGED_LION:
                        d->e_opt = 4 * half; /* one momentum (Chen et al. 2023) */
                        break;
                default:
                        return fail(err, "/optimizer", "enum", "unknown optimizer");
                }
        }

        /* Sequence and tokens. */
        d->s = in->sequence_length;
        d->prompt = in->prompt_tokens;
        d->generated = in->generated_tokens;
        if (!d->training) {
                if (!(in->set & EST_SET_PROMPT))
                        d->prompt = d->s > d->generated ? d->s - d->generated : d->s;
        }

        /* Parallel layout. */
        uint32_t mp = in->tensor_parallel * in->pipeline_parallel;
        d->dp = in->gpus / mp;
        d->procs_per_node = in->gpus / in->nodes;
        switch (in->strategy) {
        case EST_ZERO1:
                d->stage = 1;
                break;
        case EST_ZERO2:
                d->stage = 2;
                break;
        case EST_ZERO3:
                d->stage = 3;
                break;
        case EST_FSDP:
                d->stage = in->fsdp_sharding == EST_FSDP_SHARD_GRAD_OP ? 2 : 3;
                break;
        default:
                d->stage = 0;
        }
        d->shard = d->dp;
        if (in->strategy == EST_FSDP && in->fsdp_sharding == EST_FSDP_HYBRID_SHARD)
                d->shard = d->procs_per_node / mp ? d->procs_per_node / mp : 1;
        /* Optimizer offload without a ZeRO stage is DeepSpeed ZeRO-Offload:
         * stage 2 with the CPU step (Ren et al. 2021). */
        if (d->stage == 0 && in->offload == EST_OFFLOAD_OPTIMIZER && d->training)
                d->stage = 2;
        if (d->stage == 0)
                d->shard = 1;

        uint32_t m = in->micro_batches ? in->micro_batches : 1;
        d->mb_fraction = in->pipeline_parallel > 1 ? 1.0 / m : 1.0;
        /* 1F1B: the first stage holds min(m, p) micro-batches of L/p layers
         * (Narayanan et al. 2021; Korthikanti et al. 2022 §4.2.3). */
        d->inflight = in->pipeline_parallel > 1
                              ? (double)(m < in->pipeline_parallel ? m : in->pipeline_parallel) /
                                        in->pipeline_parallel
                              : 1.0;
        return 0;
}

/* ---- validation of the input as a whole ----------------------------------- */

static int check_input(const struct estimate_input *in, struct estimate_result *res,
                       struct estimate_error *err)
{
        const struct model_arch *a = &in->arch;
        bool training = in->mode != EST_INFERENCE;

        if ((unsigned)in->mode >= EST_MODE_COUNT)
                return fail(err, "/workload/mode", "enum", "unknown mode");
        if (in->batch_size < 1 || in->batch_size > 1048576)
                return fail(err, "/workload/batch_size", "range", "batch_size must be 1..1048576");
        if (in->sequence_length < 1 || in->sequence_length > 16777216)
                return fail(err, "/workload/sequence_length", "range",
                            "sequence_length must be 1..16777216");
        if (in->gradient_accumulation < 1 || in->gradient_accumulation > 1048576)
                return fail(err, "/workload/gradient_accumulation", "range",
                            "gradient_accumulation must be 1..1048576");
        if (in->num_labels < 1 || in->num_labels > 1000000)
                return fail(err, "/workload/num_labels", "range", "num_labels must be 1..1000000");
        if (in->gpus < 1 || in->gpus > EST_GPUS_MAX)
                return fail(err, "/parallelism/gpus", "range", "gpus must be 1..4096");
        if (in->nodes < 1 || in->nodes > in->gpus)
                return fail(err, "/parallelism/nodes", "range", "nodes must be 1..gpus");
        if (in->gpus % in->nodes)
                return fail(err, "/parallelism/nodes", "divides",
                            "gpus must be a multiple of nodes (the same number of GPUs per node)");
        if (in->tensor_parallel < 1 || in->tensor_parallel > 1024)
                return fail(err, "/parallelism/tensor_parallel", "range",
                            "tensor_parallel must be 1..1024");
        if (in->pipeline_parallel < 1 || in->pipeline_parallel > 1024)
                return fail(err, "/parallelism/pipeline_parallel", "range",
                            "pipeline_parallel must be 1..1024");
        if ((uint64_t)in->tensor_parallel * in->pipeline_parallel > in->gpus ||
            in->gpus % (in->tensor_parallel * in->pipeline_parallel))
                return fail(err, "/parallelism/gpus", "divides",
                            "gpus must be a multiple of tensor_parallel x pipeline_parallel");
        if (in->tensor_parallel > 1 && a->heads % in->tensor_parallel)
                return fail(err, "/parallelism/tensor_parallel", "divides",
                            "tensor_parallel must divide the number of attention heads");
        if (in->tensor_parallel > 1 && a->kv_heads >= in->tensor_parallel &&
            a->kv_heads % in->tensor_parallel)
                return fail(
                        err, "/parallelism/tensor_parallel", "divides",
                        "tensor_parallel must divide the number of key/value heads (or exceed it)");
        if (in->tensor_parallel > 1 && a->kv_heads < in->tensor_parallel &&
            in->tensor_parallel % a->kv_heads)
                return fail(err, "/parallelism/tensor_parallel", "divides",
                            "with fewer key/value heads than GPUs, tensor_parallel must be a "
                            "multiple of them");
        if (in->pipeline_parallel > a->layers + a->decoder_layers)
                return fail(err, "/parallelism/pipeline_parallel", "range",
                            "pipeline_parallel cannot exceed the number of layers");
        if (in->pipeline_parallel > 1) {
                uint32_t m = in->micro_batches ? in->micro_batches : 1;
                if (m > in->batch_size || in->batch_size % m)
                        return fail(err, "/parallelism/micro_batches", "divides",
                                    "batch_size must be divisible by micro_batches");
        } else if (in->micro_batches > 1) {
                return fail(err, "/parallelism/micro_batches", "contradiction",
                            "micro_batches splits a batch across pipeline stages; it needs "
                            "pipeline_parallel > 1");
        }
        if (in->sequence_parallel && in->tensor_parallel < 2)
                return fail(err, "/parallelism/sequence_parallel", "contradiction",
                            "sequence parallelism shards along tensor-parallel ranks; it needs "
                            "tensor_parallel > 1");
        if ((in->strategy == EST_SINGLE) && in->gpus > 1 &&
            in->tensor_parallel * in->pipeline_parallel != in->gpus)
                return fail(err, "/parallelism/strategy", "contradiction",
                            "strategy single with several GPUs: choose ddp, zero1-3 or fsdp for "
                            "data parallelism");
        if (in->strategy == EST_FSDP && in->fsdp_sharding == EST_FSDP_HYBRID_SHARD && in->nodes < 2)
                WARN(res, EST_W_SHARDING_ONE_GPU, 0, 0);
        if (in->offload != EST_OFFLOAD_NONE && !training)
                return fail(err, "/parallelism/offload", "contradiction",
                            "optimizer/parameter offload applies to training; inference has no "
                            "optimizer");
        if (in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS && in->strategy != EST_ZERO3 &&
            !(in->strategy == EST_FSDP && in->fsdp_sharding != EST_FSDP_SHARD_GRAD_OP))
                return fail(err, "/parallelism/offload", "contradiction",
                            "parameter offload needs zero3 or fsdp full/hybrid sharding");
        if (in->offload == EST_OFFLOAD_OPTIMIZER &&
            (in->strategy == EST_SINGLE || in->strategy == EST_DDP))
                ASSUME(res, EST_A_DDP_OFFLOAD_AS_ZERO, 0, 0);
        if (!training && in->strategy != EST_SINGLE && in->strategy != EST_DDP)
                return fail(
                        err, "/parallelism/strategy", "contradiction",
                        "zero and fsdp shard training state; for inference use tensor_parallel");

        /* Quantization and LoRA. */
        if (in->mode == EST_QLORA && in->quantization != EST_QUANT_NF4 &&
            in->quantization != EST_QUANT_INT4)
                return fail(err, "/quantization", "contradiction",
                            "qlora trains adapters over 4-bit base weights: quantization must be "
                            "nf4 or int4");
        if (in->mode == EST_QLORA && (in->precision == EST_FP32 || in->precision == EST_TF32))
                WARN(res, EST_W_QLORA_FP32_COMPUTE, 0, 0);
        if ((in->mode == EST_FINE_TUNE || in->mode == EST_PRE_TRAIN) &&
            in->quantization != EST_QUANT_NONE)
                return fail(err, "/quantization", "contradiction",
                            "full training updates every weight and cannot keep them quantized; "
                            "use lora/qlora");
        if (in->mode == EST_LORA && in->quantization != EST_QUANT_NONE)
                WARN(res, EST_W_LORA_QUANT_IS_QLORA, 0, 0);
        if (in->quantization != EST_QUANT_NONE &&
            (in->precision == EST_FP32 || in->precision == EST_TF32) && in->mode == EST_INFERENCE)
                WARN(res, EST_W_QLORA_FP32_COMPUTE, 0, 0);
        if (in->quantization == EST_QUANT_INT4 &&
            (in->quant_group_size < 16 || in->quant_group_size > 65536))
                return fail(err, "/quantization_group_size", "range",
                            "group size must be 16..65536");
        if (training && (in->mode == EST_LORA || in->mode == EST_QLORA)) {
                if (in->lora_rank < 1 || in->lora_rank > 65536)
                        return fail(err, "/workload/lora/rank", "range", "rank must be 1..65536");
                if (in->lora_targets == 0 || (in->lora_targets & ~EST_LORA_ALL))
                        return fail(err, "/workload/lora/targets", "enum",
                                    "no valid target matrices");
        }
        if (in->strategy >= EST_ZERO1 && in->strategy <= EST_FSDP && in->gpus == 1) {
                if (in->strategy == EST_ZERO3 || in->strategy == EST_FSDP)
                        WARN(res, EST_W_ZERO3_ONE_GPU, 0, 0);
                else
                        WARN(res, EST_W_SHARDING_ONE_GPU, 0, 0);
        }
        if (in->optimizer_in_backward && in->gradient_accumulation > 1)
                return fail(err, "/memory_savers/optimizer_in_backward", "contradiction",
                            "optimizer_in_backward frees each gradient as soon as it is applied, "
                            "so it cannot accumulate gradients over micro-batches");
        if (in->optimizer_in_backward && in->strategy != EST_SINGLE)
                return fail(
                        err, "/memory_savers/optimizer_in_backward", "contradiction",
                        "optimizer_in_backward is a single-device technique (torchtune, litgpt)");
        if (in->activation_offload && !training)
                WARN(res, EST_W_ACT_OFFLOAD_INFERENCE, 0, 0);
        if (!training && (in->set & EST_SET_OPTIMIZER))
                WARN(res, EST_W_INFERENCE_OPTIMIZER, 0, 0);
        if (in->optimizer >= EST_OPT_PAGED_ADAMW && training)
                WARN(res, EST_W_PAGED, 0, 0);
        if (in->precision == EST_FP16 && training)
                WARN(res, EST_W_FP16_PURE, 0, 0);
        if (in->mfu < 0 || in->mfu > 1)
                return fail(err, "/mfu", "range", "mfu must be in (0, 1]");
        if (in->gpu_memory_utilization < 0 || in->gpu_memory_utilization > 1)
                return fail(err, "/serving/gpu_memory_utilization", "range",
                            "gpu_memory_utilization must be in (0, 1]");
        if (in->epochs < 0 || in->epochs > 1e6)
                return fail(err, "/workload/dataset/epochs", "range", "epochs must be 0..1e6");

        /* Inference context. */
        if (!training && (in->set & EST_SET_PROMPT) && (in->set & EST_SET_GENERATED) &&
            (in->set & EST_SET_SEQUENCE) &&
            (uint64_t)in->prompt_tokens + in->generated_tokens != in->sequence_length)
                return fail(err, "/workload/sequence_length", "contradiction",
                            "sequence_length must equal prompt_tokens + generated_tokens");
        if (!training && in->generated_tokens > in->sequence_length)
                return fail(err, "/workload/generated_tokens", "range",
                            "generated_tokens cannot exceed the whole context");
        if (a->kind == MODEL_ENCODER && !training && in->generated_tokens > 0)
                return fail(err, "/workload/generated_tokens", "contradiction",
                            "an encoder does not generate tokens");
        if (in->sequence_length > a->max_positions) {
                if (a->position == MODEL_POS_LEARNED)
                        return fail(err, "/workload/sequence_length", "range",
                                    "sequence_length exceeds the model's learned position table");
                WARN(res, EST_W_SEQUENCE_BEYOND_MAX, in->sequence_length, a->max_positions);
        }
        return 0;
}

/* ---- the memory model ------------------------------------------------------ */

struct phase_mem {
        bool present;
        double fixed[EST_COMPONENT_COUNT];
        double per_sample[EST_COMPONENT_COUNT];
};

struct mem_model {
        struct phase_mem ph[EST_PHASE_COUNT];
        double overhead_fixed; /* CUDA context (+ NCCL is in comm) */
        double reserve_fraction;
        double cpu[EST_CPU_COMPONENT_COUNT];
        double act_per_sample_total; /* for CPU activation offload */
};

/* Activation bytes one block keeps for backward, per sample (b = 1),
 * after Korthikanti et al. 2022 (Reducing Activation Recomputation in
 * Large Transformer Models, §4.1): with B bytes per element, a block stores
 *   attention  B*s*h (QKV input) + B*s*(q + 2 kv) (Q, K, V) + B*s*q
 *              (output-projection input) + scores + s*h dropout mask
 *   scores     a*s^2*(2B + 1) without fused attention (softmax output,
 *              dropout mask, dropout output); 0 with flash attention,
 *              which keeps a 4*a*s fp32 log-sum-exp instead
 *   MLP        B*s*h + 2*B*s*f (activation input and output; 4*B*s*f when
 *              gated: gate, up, act(gate), product) + s*h dropout mask
 *   norms      2 * s*h * B (4 when the norm computes in fp32 on half
 *              inputs: RMSNorm upcasts in LLaMA, autocast runs layer_norm
 *              in fp32)
 * which for B = 2, f = 4h, MHA and dropout is the paper's
 * s*h*(34 + 5*a*s/h).  Tensor parallelism divides the attention and MLP
 * internals by t; sequence parallelism divides the rest too (Korthikanti
 * eq. 2 and 4).  cross: an encoder-decoder's decoder block adds a cross
 * attention over s_kv encoder positions. */
static double block_activation_bytes(const struct model_arch *a, const struct estimate_input *in,
                                     const struct derived *d, double s, bool cross)
{
        double B = d->e_a, h = a->hidden, f = a->ffn;
        double q = (double)a->heads * a->head_dim;
        bool flash = in->flash_attention;
        /* Eager attention in transformers repeats K/V heads (repeat_kv). */
        double kv = flash ? (double)a->kv_heads * a->head_dim : q;
        double t = in->tensor_parallel, drop = a->dropout > 0 ? 1.0 : 0.0;
        double heads = a->heads;
        double norm_b = (B < 4 && (a->norm == MODEL_NORM_RMSNORM || d->mixed)) ? 4 : B;
        double score_b;
        if (d->mixed) /* autocast: softmax in fp32 (4), its fp16 copy for the matmul (2) */
                score_b = drop ? 4 + 1 + 2 : 4 + 2;
        else
                score_b = drop ? 2 * B + 1 : B;

        double rep = B * s * h /* QKV input */ + drop * s * h /* attention output dropout mask */;
        double shard = B * s * (q + 2 * kv) + B * s * q;
        if (flash)
                shard += 4.0 * heads * s;
        else if (in->checkpointing != EST_CKPT_SELECTIVE)
                shard += score_b * heads * s * s;
        double attn_rep = rep, attn_shard = shard;

        double mlp_rep = B * s * h + drop * s * h;
        double mlp_shard = (a->gated_mlp ? 4.0 : 2.0) * B * s * f;
        if (a->experts >
            1) /* routed tokens: each goes through active experts; router logits fp32 */
                mlp_shard = mlp_shard * a->active_experts + 4.0 * s * a->experts;
        double norms = 2.0 * norm_b * s * h;

        double total_rep = attn_rep + mlp_rep + norms;
        double total_shard = attn_shard + mlp_shard;
        if (cross) {
                total_rep += rep + norm_b * s * h;
                total_shard += shard;
        }
        if (in->sequence_parallel)
                return (total_rep + total_shard) / t;
        return total_rep + total_shard / t;
}

/* Logits and loss buffers per sample (see the EST_A_LOGITS_FP32 note):
 * cross-entropy in fp32 over n = s x V elements.  At the end of forward
 * the training loop holds the fp32 logits (its output object) and
 * log_softmax has saved fp32 log-probabilities (2 x 4n); at the start of
 * backward their gradients join them (4 x 4n).  Chunked loss (torchtune
 * CEWithChunkedOutputLoss) keeps the logits in the compute dtype and
 * upcasts one of 8 chunks at a time. */
static void logits_bytes(const struct estimate_input *in, const struct derived *d, double *fwd,
                         double *bwd)
{
        double n;
        const struct model_arch *a = &in->arch;
        *fwd = *bwd = 0;
        if (!d->training)
                return;
        if (d->encoder_head) {
                n = in->num_labels;
                *fwd = 8 * n;
                *bwd = 16 * n;
                return;
        }
        n = (double)d->s * a->vocab / in->tensor_parallel;
        if (in->chunked_loss) {
                *fwd = d->e_a * n + 8 * n / loss_chunks;
                *bwd = 2 * d->e_a * n + 16 * n / loss_chunks;
        } else {
                *fwd = 8 * n;
                *bwd = 16 * n;
        }
}

static void phase_set(struct phase_mem *p, enum est_component c, double fixed, double per)
{
        p->present = true;
        p->fixed[c] += fixed;
        p->per_sample[c] += per;
}

static void cpu_model(const struct estimate_input *in, const struct derived *d,
                      struct mem_model *mm)
{
        double procs = d->procs_per_node;
        /* The CPU optimizer (DeepSpeed CPUAdam, FSDP CPUOffload) keeps fp32
         * parameters, fp32 gradients and the optimizer states: with Adam
         * 4 + 4 + 8 = 16 B per parameter (ZeRO-Offload, Ren et al. 2021),
         * sharded over the data-parallel ranks, summed over this node. */
        if (in->offload != EST_OFFLOAD_NONE && d->training) {
                bool eight_bit = in->optimizer == EST_OPT_ADAMW_8BIT ||
                                 in->optimizer == EST_OPT_PAGED_ADAMW_8BIT;
                double per_param = 4 + 4 + (d->pure_half && !eight_bit ? d->e_opt * 2 : d->e_opt);
                mm->cpu[EST_CPU_OFFLOADED] = d->P_trainable * per_param / d->shard * procs;
        }
        /* Loading: each process (or rank 0 only) reads the checkpoint into
         * CPU memory; counted as resident for the run (an upper bound: the
         * allocator seldom gives it back). */
        double load_bytes = d->P * (d->e_w > 2 ? d->e_w : 2);
        mm->cpu[EST_CPU_MODEL_LOAD] =
                load_bytes * (in->model_load == EST_LOAD_RANK_ZERO ? 1.0 : procs);
        mm->cpu[EST_CPU_RUNTIME] = cpu_runtime_bytes * procs;
        mm->cpu[EST_CPU_DATA] = cpu_data_bytes * procs;
}

/* Build the phases of one configuration.  Returns 0 or -1 (err filled). */
static int memory_model(const struct estimate_input *in, const struct derived *d,
                        struct mem_model *mm, struct estimate_result *res,
                        struct estimate_error *err)
{
        const struct model_arch *a = &in->arch;
        double t = in->tensor_parallel, p = in->pipeline_parallel;
        double S = d->shard;
        bool offload_opt = in->offload != EST_OFFLOAD_NONE;
        bool offload_params = in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS;

        (void)err; /* every input was checked before; kept for symmetry with build() */
        memset(mm, 0, sizeof(*mm));
        mm->overhead_fixed = cuda_context_bytes;
        mm->reserve_fraction = allocator_reserve_fraction;

        /* Weights per GPU: block matrices split over t x p; embeddings and
         * head split over t (vocabulary-parallel) and held by the first /
         * last stage.  Quantized runs store block matrices at e_q. */
        double blocks = d->P_linear + (double)d->pb.small;
        double rest = d->P - blocks; /* embeddings, heads */
        double W = d->P_linear * d->e_q / (t * p) + (double)d->pb.small * d->e_w / p +
                   rest * d->e_w / t;
        double adapters = d->lora ? d->P_trainable * d->e_adapter / (t * p) : 0;
        double Ptr = d->P_trainable / (t * p);
        double G = Ptr * d->e_g, M = Ptr * d->e_master, O = Ptr * d->e_opt, T = Ptr * d->e_opt_temp;
        double head_grad = d->P_head_grad * d->e_g / t;
        double comm = 0, comm_bwd = 0;

        if (d->stage >= 1) {
                M /= S;
                O /= S;
                T /= S;
        }
        if (d->stage >= 2)
                G /= S;
        if (d->stage >= 3)
                W /= S; /* with LoRA the frozen base is sharded too */
        if (offload_opt) {
                M = O = T = 0;
        }
        if (offload_params) {
                W = 0;
                G = 0;
                head_grad = 0;
        }

        /* Communication buffers. */
        if (in->gpus > 1)
                comm += nccl_buffer_bytes;
        if (d->training && d->dp > 1) {
                if (d->stage == 0) {
                        /* DDP: the reducer's buckets hold a flat copy of every
                         * gradient unless gradient_as_bucket_view=True
                         * (PyTorch DistributedDataParallel docs). */
                        comm += Ptr * d->e_g;
                        ASSUME(res, EST_A_DDP_BUCKETS, Ptr * d->e_g, 0);
                } else if (d->stage <= 2 && in->strategy != EST_FSDP) {
                        /* DeepSpeed reduce and all-gather buckets (5e8 elements each). */
                        double rb = fmin(zero_bucket_elements, Ptr) * d->e_g;
                        double ab = fmin(zero_bucket_elements, Ptr) * d->e_w;
                        comm += rb + ab;
                }
        }
        if (d->training && d->stage >= 3) {
                /* FSDP / ZeRO-3: the root unit (embeddings, head) stays
                 * gathered from forward to backward (FSDP does not reshard
                 * the root after forward); one block is being computed and
                 * the next prefetched (backward_prefetch=BACKWARD_PRE);
                 * backward adds one unsharded block gradient before its
                 * reduce-scatter (PyTorch FSDP docs). */
                double unit = d->layer_params / (t * p);
                double root = d->root_params / t;
                double e_gather = d->mixed ? 2 : d->e_w; /* MixedPrecision(param_dtype) */
                comm += root * e_gather + 2 * unit * e_gather;
                comm_bwd += unit * d->e_g + (offload_params ? d->P_head_grad * d->e_g / t : 0);
                ASSUME(res, EST_A_FSDP_GATHER, 2, 0);
        }

        if (!d->training) {
                /* Inference: weights + KV cache + the largest layer's
                 * intermediates for the prompt (buffers are reused layer to
                 * layer) + last-token logits. */
                double kvh = a->kv_heads >= t ? a->kv_heads / t : 1; /* replicate when kv < t */
                if (a->kv_heads < t && a->kind != MODEL_ENCODER)
                        WARN(res, EST_W_TP_REPLICATES_KV, a->kv_heads, t);
                double kv_layers = a->kind == MODEL_ENCODER_DECODER ? a->decoder_layers : a->layers;
                double kv_tok = a->kind == MODEL_ENCODER
                                        ? 0
                                        : 2 * kv_layers * kvh * a->head_dim * d->e_kv / p;
                double ctx = (double)d->prompt + d->generated;
                double kv_cross = a->kind == MODEL_ENCODER_DECODER ? kv_tok * d->prompt : 0;
                double s = d->prompt, B = d->e_a;
                double h = a->hidden, f = a->ffn, q = (double)a->heads * a->head_dim;
                double ex = a->experts > 1 ? a->active_experts : 1;
                double mlp_ws = s * f * B * (a->gated_mlp ? 3 : 2) * ex / t;
                double attn_ws = s * (q + 2 * (double)a->kv_heads * a->head_dim) * B / t;
                if (!in->flash_attention)
                        attn_ws += 2 * B * (double)a->heads / t * s * s; /* scores + softmax */
                double ws = 2 * s * h * B + fmax(mlp_ws, attn_ws);
                double logit = a->kind == MODEL_ENCODER ? 4.0 * in->num_labels
                                                        : (double)a->vocab / t * (B + 4);
                struct phase_mem *pf = &mm->ph[EST_PHASE_PREFILL];
                /* bitsandbytes / GPTQ kernels dequantize weights to the
                 * compute dtype per matmul; bounded by one block's weights. */
                double deq = in->quantization != EST_QUANT_NONE ? d->layer_params * 2 / (t * p) : 0;
                phase_set(pf, EST_C_WORKSPACE, deq, 0);
                if (a->kind != MODEL_ENCODER && d->generated > 0)
                        phase_set(&mm->ph[EST_PHASE_DECODE], EST_C_WORKSPACE, deq, 0);
                phase_set(pf, EST_C_WEIGHTS, W, 0);
                phase_set(pf, EST_C_KV_CACHE, 0, kv_tok * s + kv_cross);
                phase_set(pf, EST_C_ACTIVATIONS, 0, ws);
                phase_set(pf, EST_C_LOGITS, 0, logit);
                phase_set(pf, EST_C_COMM, comm, 0);
                if (a->kind != MODEL_ENCODER && d->generated > 0) {
                        struct phase_mem *dc = &mm->ph[EST_PHASE_DECODE];
                        double ws1 =
                                2 * h * B + fmax(f * B * (a->gated_mlp ? 3 : 2) * ex / t,
                                                 (q + 2.0 * a->kv_heads * a->head_dim) * B / t +
                                                         2 * B * (double)a->heads / t * ctx);
                        phase_set(dc, EST_C_WEIGHTS, W, 0);
                        phase_set(dc, EST_C_KV_CACHE, 0, kv_tok * ctx + kv_cross);
                        phase_set(dc, EST_C_ACTIVATIONS, 0, ws1);
                        phase_set(dc, EST_C_LOGITS, 0, logit);
                        phase_set(dc, EST_C_COMM, comm, 0);
                } else if (a->kind != MODEL_ENCODER) {
                        /* sequence_length alone: the KV cache holds the whole context */
                        pf->per_sample[EST_C_KV_CACHE] = kv_tok * ctx + kv_cross;
                }
                return 0;
        }

        /* Training activations per sample on the most loaded (first)
         * stage: layers x block bytes x in-flight micro-batches. */
        double s = d->s, act = 0;
        double mbf = d->mb_fraction;
        double layer_act = block_activation_bytes(a, in, d, s, false);
        double dec_act =
                a->kind == MODEL_ENCODER_DECODER ? block_activation_bytes(a, in, d, s, true) : 0;
        double L = a->layers, Ld = a->decoder_layers;
        double full_act = layer_act * L + dec_act * Ld;
        double B = d->e_a, h = a->hidden;
        double norm_b = (B < 4 && (a->norm == MODEL_NORM_RMSNORM || d->mixed)) ? 4 : B;
        if (in->checkpointing == EST_CKPT_FULL) {
                /* Each block keeps its input (B*s*h); backward recomputes one
                 * block at a time (Chen et al. 2016; Korthikanti §5). */
                act = B * s * h * (L + Ld) / (in->sequence_parallel ? t : 1) +
                      fmax(layer_act, dec_act);
        } else {
                act = full_act;
        }
        /* Pipeline: the first stage holds min(m, p) micro-batches of L/p
         * layers; the per-sample figure is per micro-batch sample. */
        act *= d->inflight * mbf;
        /* Embedding output (+ norm and dropout for BERT-style encoders) and,
         * for language-model heads, the final norm + head input (+ the MLM
         * transform: dense, GELU, norm). */
        double edge = (a->embedding_norm ? norm_b * s * h : 0) + (a->dropout > 0 ? s * h : 0);
        if (d->lm_logits) {
                edge += (a->final_norm ? norm_b * s * h : 0) + B * s * h;
                if (a->lm_head_transform)
                        edge += 2 * B * s * h + norm_b * s * h;
        }
        act += edge * mbf / t;
        if (d->amp && d->stage < 3) {
                double copies = d->P * 2 / (t * p);
                phase_set(&mm->ph[EST_PHASE_FORWARD], EST_C_WORKSPACE, copies, 0);
                phase_set(&mm->ph[EST_PHASE_BACKWARD], EST_C_WORKSPACE, copies, 0);
                ASSUME(res, EST_A_AUTOCAST_COPIES, copies, 0);
        }
        if (d->lora && in->mode == EST_QLORA) {
                /* Dequantized weight of the layer being computed (bf16). */
                phase_set(&mm->ph[EST_PHASE_FORWARD], EST_C_WORKSPACE,
                          d->layer_params * 2 / (t * p), 0);
                phase_set(&mm->ph[EST_PHASE_BACKWARD], EST_C_WORKSPACE,
                          d->layer_params * 2 / (t * p), 0);
        }
        mm->act_per_sample_total = act;
        if (in->activation_offload) {
                /* Only the block being computed and the one being copied
                 * stay on the GPU (torchtune OffloadActivations). */
                double kept = 2 * fmax(layer_act, dec_act) * mbf + edge * mbf / t;
                mm->cpu[EST_CPU_ACTIVATIONS] = (act - kept) * in->batch_size * d->procs_per_node;
                act = kept;
        }

        double lf, lb;
        logits_bytes(in, d, &lf, &lb);
        if (in->pipeline_parallel > 1) {
                lf *= mbf;
                lb *= mbf;
        }

        bool ga = in->gradient_accumulation > 1;
        double G_fwd = ga ? G : 0;
        struct phase_mem *fw = &mm->ph[EST_PHASE_FORWARD];
        struct phase_mem *bw = &mm->ph[EST_PHASE_BACKWARD];
        struct phase_mem *be = &mm->ph[EST_PHASE_BACKWARD_END];
        struct phase_mem *op = &mm->ph[EST_PHASE_OPTIMIZER];
        struct phase_mem *all[3] = {fw, bw, be};

        for (int i = 0; i < 3; i++) {
                phase_set(all[i], EST_C_WEIGHTS, W + adapters, 0);
                phase_set(all[i], EST_C_MASTER, M, 0);
                phase_set(all[i], EST_C_OPTIMIZER, O, 0);
                phase_set(all[i], EST_C_COMM, comm, 0);
        }
        phase_set(fw, EST_C_GRADIENTS, G_fwd, 0);
        phase_set(fw, EST_C_ACTIVATIONS, 0, act);
        phase_set(fw, EST_C_LOGITS, 0, lf);

        phase_set(bw, EST_C_GRADIENTS, fmax(G_fwd, head_grad), 0);
        phase_set(bw, EST_C_ACTIVATIONS, 0, act);
        phase_set(bw, EST_C_LOGITS, 0, lb);
        phase_set(bw, EST_C_COMM, comm_bwd, 0);

        if (in->optimizer_in_backward) {
                /* Gradients are applied and freed layer by layer: at most
                 * one block's (or the head's) gradient exists. */
                double one = fmax(d->layer_params, d->P_head_grad) * d->e_g / t;
                phase_set(be, EST_C_GRADIENTS, fmin(one, G), 0);
                phase_set(be, EST_C_WORKSPACE, fmin(one, G) / d->e_g * d->e_opt_temp, 0);
        } else {
                phase_set(be, EST_C_GRADIENTS, G, 0);
                phase_set(be, EST_C_COMM, comm_bwd, 0);
                phase_set(op, EST_C_WEIGHTS, W + adapters, 0);
                phase_set(op, EST_C_MASTER, M, 0);
                phase_set(op, EST_C_OPTIMIZER, O, 0);
                phase_set(op, EST_C_GRADIENTS, G, 0);
                phase_set(op, EST_C_WORKSPACE, T, 0);
                /* ZeRO-3/FSDP gathers are released before the step; DDP
                 * buckets and NCCL buffers stay. */
                phase_set(op, EST_C_COMM,
                          d->stage >= 3 ? (in->gpus > 1 ? nccl_buffer_bytes : 0) : comm, 0);
        }
        /* The first block's activations are the last to be freed. */
        phase_set(be, EST_C_ACTIVATIONS, 0, layer_act * mbf);
        return 0;
}

/* Allocated bytes of one phase at batch b. */
static double phase_allocated(const struct phase_mem *p, double b)
{
        double s = 0;
        for (int c = 0; c < EST_COMPONENT_COUNT; c++)
                s += p->fixed[c] + p->per_sample[c] * b;
        return s;
}

static double total_from_allocated(const struct mem_model *mm, double alloc)
{
        return alloc * (1 + mm->reserve_fraction) + mm->overhead_fixed;
}

/* The peak phase and its allocated bytes at batch b. */
static enum est_phase peak_phase(const struct mem_model *mm, double b, double *alloc)
{
        enum est_phase best = EST_PHASE_FORWARD;
        double m = -1;
        for (int i = 0; i < EST_PHASE_COUNT; i++) {
                if (!mm->ph[i].present)
                        continue;
                double x = phase_allocated(&mm->ph[i], b);
                if (x > m) {
                        m = x;
                        best = (enum est_phase)i;
                }
        }
        *alloc = m < 0 ? 0 : m;
        return best;
}

/* Largest b with total(b) <= cap; 0 if none. */
static uint32_t max_batch(const struct mem_model *mm, double cap)
{
        double budget = (cap - mm->overhead_fixed) / (1 + mm->reserve_fraction);
        double best = EST_MAX_BATCH_REPORTED;
        for (int i = 0; i < EST_PHASE_COUNT; i++) {
                const struct phase_mem *p = &mm->ph[i];
                if (!p->present)
                        continue;
                double F = phase_allocated(p, 0), S = phase_allocated(p, 1) - F;
                if (F > budget)
                        return 0;
                if (S > 0) {
                        double bmax = floor((budget - F) / S);
                        if (bmax < best)
                                best = bmax;
                }
        }
        return best < 0 ? 0 : (uint32_t)best;
}

static int build(const struct estimate_input *in, struct derived *d, struct mem_model *mm,
                 struct estimate_result *res, struct estimate_error *err)
{
        if (check_input(in, res, err))
                return -1;
        if (derive(in, d, res, err))
                return -1;
        return memory_model(in, d, mm, res, err);
}

uint64_t estimate_memory_bytes(const struct estimate_input *in, struct estimate_error *err)
{
        struct derived d;
        struct mem_model mm;
        double alloc;
        if (build(in, &d, &mm, NULL, err))
                return 0;
        peak_phase(&mm, in->batch_size, &alloc);
        double total = total_from_allocated(&mm, alloc);
        if (!(total < EST_BYTES_LIMIT)) {
                fail(err, "/workload/batch_size", "overflow",
                     "the configuration needs more than 64 EiB per GPU; refused as absurd");
                return 0;
        }
        return (uint64_t)llround(total);
}

/* ---- compute and time -------------------------------------------------------- */

static enum gpu_precision compute_precision(const struct estimate_input *in)
{
        switch (in->precision) {
        case EST_FP32:
                return GPU_FP32;
        case EST_TF32:
                return GPU_TF32;
        case EST_FP16_MIXED:
        case EST_FP16:
                return GPU_FP16;
        case EST_FP8_MIXED:
                return GPU_FP8;
        default:
                return GPU_BF16;
        }
}

static double gpu_flops(const struct gpu_spec *g, enum gpu_precision p)
{
        /* Fall back along tf32 -> fp32, bf16 -> fp16, fp8 -> bf16 -> fp16. */
        double f = g->flops[p];
        if (f > 0)
                return f;
        if (p == GPU_TF32)
                return g->flops[GPU_FP32];
        if (p == GPU_FP8)
                return g->flops[GPU_BF16] > 0 ? g->flops[GPU_BF16] : g->flops[GPU_FP16];
        if (p == GPU_BF16)
                return g->flops[GPU_FP16];
        return 0;
}

/* Default model-FLOPs utilisation by GPU class and precision.  Data-centre
 * parts with HBM and NVLink sustain ~40% in bf16 training (EleutherAI:
 * >= 120 of 312 TFLOP/s on A100; Megatron-LM reports 41-52% at scale),
 * consumer and PCIe parts less; fp32 on the vector units is easier to
 * keep busy (fewer, slower FLOPs per byte). */
static double default_mfu(const struct gpu_spec *g, enum gpu_precision p, bool training)
{
        bool dc = g->link == GPU_LINK_NVLINK || g->memory_bytes >= 40000000000ull;
        if (!training)
                return 0.5;
        if (p == GPU_FP32)
                return 0.6;
        if (p == GPU_FP8)
                return dc ? 0.30 : 0.25;
        return dc ? 0.40 : 0.35;
}

/* FLOPs of one forward pass per token: 2 per multiply-accumulate of every
 * block matrix a token touches, the vocabulary projection where logits are
 * computed, and attention scores + weighted values: 2 x 2 x s x q per
 * layer (Kaplan et al. 2020 Table 1; Narayanan et al. 2021 eq. 3). */
static double forward_flops_per_token(const struct estimate_input *in, const struct derived *d,
                                      double ctx, bool with_head)
{
        const struct model_arch *a = &in->arch;
        double q = (double)a->heads * a->head_dim;
        double layers = (double)a->layers + a->decoder_layers;
        double f = 2.0 * (double)d->pb.linear_active + 4.0 * ctx * q * layers;
        if (a->kind == MODEL_ENCODER_DECODER)
                f += 4.0 * ctx * q * a->decoder_layers; /* cross attention */
        if (with_head)
                f += 2.0 * (double)a->vocab * a->hidden;
        if (d->lora)
                f += 2.0 * d->P_trainable;
        return f;
}

static void compute_model(const struct estimate_input *in, const struct derived *d,
                          const struct gpu_spec *g, struct estimate_result *r)
{
        double gpus = in->gpus;
        enum gpu_precision prec = compute_precision(in);
        double peak = g ? gpu_flops(g, prec) : 0;
        double mfu = in->mfu > 0 ? in->mfu : (g ? default_mfu(g, prec, d->training) : 0);
        r->mfu = mfu;
        r->peak_flops_per_gpu = peak;
        if (g && !(in->set & EST_SET_MFU))
                ASSUME(r, EST_A_MFU, mfu, 0);
        if (g && peak <= 0)
                WARN(r, EST_W_GPU_NO_FLOPS, 0, 0);

        if (d->training) {
                double s = d->s;
                double tokens = (double)in->batch_size * s * in->gradient_accumulation * d->dp;
                /* Training = forward + backward (2x forward): 6 N per token
                 * (Kaplan et al. 2020; Narayanan et al. 2021); full
                 * recomputation repeats the forward: x 4/3.  LoRA skips the
                 * frozen weights' gradient GEMMs: 4 N per token. */
                double fwd = forward_flops_per_token(in, d, s, d->lm_logits);
                double mult = d->lora ? 2.0 : 3.0;
                if (in->checkpointing == EST_CKPT_FULL)
                        mult += 1.0;
                double flops_step = fwd * mult * tokens;
                if (in->checkpointing == EST_CKPT_SELECTIVE)
                        flops_step += 4.0 * s * (double)in->arch.heads * in->arch.head_dim *
                                      ((double)in->arch.layers + in->arch.decoder_layers) * tokens;
                r->flops_per_step = flops_step;
                r->tokens_per_step = tokens;
                double dataset_tokens = (double)in->dataset_tokens;
                if (dataset_tokens <= 0 && in->dataset_samples > 0)
                        dataset_tokens = (double)in->dataset_samples * s;
                double epochs = in->epochs > 0 ? in->epochs : 1;
                if (dataset_tokens > 0) {
                        r->steps = ceil(dataset_tokens / tokens) * epochs;
                } else {
                        r->steps = 1;
                        ASSUME(r, EST_A_DATASET_UNKNOWN, 0, 0);
                }
                r->flops_total = r->flops_per_step * r->steps;
                if (!g || peak <= 0 || mfu <= 0)
                        return;
                r->compute_seconds_per_step = flops_step / (gpus * peak * mfu);

                /* Communication per optimizer step, per GPU, ring algorithms:
                 * all-reduce moves 2 (n-1)/n of the buffer, all-gather and
                 * reduce-scatter (n-1)/n each (Patarasuk & Yuan 2009). */
                double link = g->link_bytes_per_s > 0
                                      ? g->link_bytes_per_s
                                      : (g->host_link_bytes_per_s > 0 ? g->host_link_bytes_per_s
                                                                      : default_pcie_bytes_per_s);
                if (in->nodes > 1) {
                        double ib = in->inter_node_bytes_per_s > 0 ? in->inter_node_bytes_per_s
                                                                   : default_inter_node_bytes_per_s;
                        link = fmin(link, ib);
                        if (!(in->inter_node_bytes_per_s > 0))
                                ASSUME(r, EST_A_INTER_NODE, ib, 0);
                }
                double n = d->dp, bytes = 0;
                double Ptr = d->P_trainable / (in->tensor_parallel * in->pipeline_parallel);
                if (n > 1) {
                        if (d->stage >= 3)
                                bytes = 3.0 * (n - 1) / n *
                                        (d->P / (in->tensor_parallel * in->pipeline_parallel)) *
                                        d->e_w * in->gradient_accumulation;
                        else
                                bytes = 2.0 * (n - 1) / n * Ptr * d->e_g;
                }
                double tp_bytes = 0;
                if (in->tensor_parallel > 1) {
                        double tt = in->tensor_parallel;
                        tp_bytes = 4.0 * ((double)in->arch.layers + in->arch.decoder_layers) * 2.0 *
                                   (tt - 1) / tt * in->batch_size * s * in->arch.hidden * d->e_a *
                                   in->gradient_accumulation;
                }
                double host = 0;
                if (in->offload != EST_OFFLOAD_NONE) {
                        double hl = g->host_link_bytes_per_s > 0 ? g->host_link_bytes_per_s
                                                                 : default_pcie_bytes_per_s;
                        host = (d->e_g + d->e_w) * Ptr / d->shard / hl;
                        if (in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS)
                                host += 2.0 * d->e_w * d->P / d->shard / hl *
                                        in->gradient_accumulation;
                }
                r->comm_bytes_per_step = bytes + tp_bytes;
                r->link_bytes_per_s = link;
                double comm = bytes / link + host;
                double tp_time = tp_bytes / (g->link_bytes_per_s > 0 ? g->link_bytes_per_s
                                                                     : default_pcie_bytes_per_s);
                r->comm_seconds_per_step = comm + tp_time;
                /* Data-parallel traffic overlaps the backward pass; tensor
                 * parallel all-reduces sit on the critical path. */
                r->seconds_per_step = fmax(r->compute_seconds_per_step, comm) + tp_time;
                r->bottleneck = comm > r->compute_seconds_per_step ? EST_BOUND_INTERCONNECT
                                                                   : EST_BOUND_COMPUTE;
                r->total_seconds = r->seconds_per_step * r->steps;
                r->tokens_per_second = r->seconds_per_step > 0 ? tokens / r->seconds_per_step : 0;
                return;
        }

        /* Inference: prefill is compute-bound, decode reads every weight
         * (and the KV cache) once per generated token. */
        double b = in->batch_size;
        double prefill_flops =
                forward_flops_per_token(in, d, d->prompt, in->arch.kind != MODEL_ENCODER) *
                d->prompt * b;
        double gen = d->generated;
        double decode_flops = 0;
        if (gen > 0)
                decode_flops = forward_flops_per_token(in, d, d->prompt + gen / 2, true) * gen * b;
        r->flops_per_step = prefill_flops + decode_flops;
        r->tokens_per_step = b * (d->prompt + gen);
        r->steps = 1;
        r->flops_total = r->flops_per_step;
        /* Bytes one decode step reads per GPU: the weights and the KV cache
         * at the average context (r->decode_bytes_per_token is filled by
         * the caller from the memory model). */
        if (!g || peak <= 0)
                return;
        double pm = in->mfu > 0 ? in->mfu : 0.5;
        r->prefill_seconds = prefill_flops / (gpus * peak * pm);
        double bw = g->memory_bandwidth_bytes_per_s;
        if (bw > 0 && r->decode_bytes_per_token > 0) {
                double step_mem = (double)r->decode_bytes_per_token / bw;
                double step_flops = forward_flops_per_token(in, d, d->prompt + gen / 2, true) * b /
                                    (gpus * peak * pm);
                r->decode_tokens_per_second_roofline = b / fmax(step_mem, step_flops);
                double step = fmax(step_mem / decode_bandwidth_efficiency, step_flops);
                r->decode_tokens_per_second = b / step;
                ASSUME(r, EST_A_DECODE_EFFICIENCY, decode_bandwidth_efficiency, 0);
                r->memory_seconds_per_step = step_mem / decode_bandwidth_efficiency * gen;
                r->compute_seconds_per_step = r->prefill_seconds + step_flops * gen;
                r->total_seconds = r->prefill_seconds + (gen > 0 ? gen * step : 0);
                r->seconds_per_step = r->total_seconds;
                r->tokens_per_second =
                        r->total_seconds > 0 ? r->tokens_per_step / r->total_seconds : 0;
                r->bottleneck =
                        (gen > 0 &&
                         step_mem / decode_bandwidth_efficiency * gen > r->prefill_seconds &&
                         step_mem / decode_bandwidth_efficiency > step_flops)
                                ? EST_BOUND_MEMORY_BANDWIDTH
                                : EST_BOUND_COMPUTE;
        } else {
                r->total_seconds = r->prefill_seconds;
                r->seconds_per_step = r->total_seconds;
        }
}

/* ---- fit table, gpus needed, suggestions ------------------------------------------ */

static double usable_bytes(const struct gpu_spec *g)
{
        return (double)(g->usable_memory_bytes ? g->usable_memory_bytes : g->memory_bytes);
}

/* Per-GPU bytes at the request's batch as U + Sh / N for N GPUs of the
 * scalable layout (the request's sharding, ZeRO-3 when it has none, tensor
 * parallelism for inference): two evaluations give both terms. */
struct scaling {
        bool ok;
        double U, Sh;   /* allocated bytes, before reserve and context */
        double Ub, Shb; /* per-sample parts */
};

static void scaling_fill(const struct estimate_input *in, const struct derived *d,
                         struct scaling *sc)
{
        struct estimate_input x = *in;
        struct derived d2, d4;
        struct mem_model m2, m4;
        double a2, a4;

        memset(sc, 0, sizeof(*sc));
        if (d->training) {
                if (d->stage < 3) {
                        x.strategy = EST_ZERO3;
                        if (x.offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS)
                                x.offload = EST_OFFLOAD_NONE;
                }
                x.tensor_parallel = 1;
                x.pipeline_parallel = 1;
                x.micro_batches = 0;
                x.nodes = 1;
                x.optimizer_in_backward = false;
        } else {
                x.strategy = EST_SINGLE;
                x.pipeline_parallel = 1;
                x.nodes = 1;
        }
        x.gpus = 2;
        if (!d->training)
                x.tensor_parallel = 2;
        if (!d->training && in->arch.heads % 4)
                return;
        if (build(&x, &d2, &m2, NULL, NULL))
                return;
        x.gpus = 4;
        if (!d->training)
                x.tensor_parallel = 4;
        if (build(&x, &d4, &m4, NULL, NULL))
                return;
        peak_phase(&m2, in->batch_size, &a2);
        peak_phase(&m4, in->batch_size, &a4);
        sc->Sh = 4 * (a2 - a4);
        sc->U = 2 * a4 - a2;
        sc->ok = sc->Sh > 0 && sc->U > 0;
}

static uint32_t gpus_needed(const struct mem_model *mm, const struct scaling *sc, double cap,
                            double requested)
{
        double budget = (cap - mm->overhead_fixed) / (1 + mm->reserve_fraction);
        if (!sc->ok || sc->U >= budget)
                return 0;
        double n = ceil(sc->Sh / (budget - sc->U));
        if (n < requested)
                n = requested;
        if (n < 2)
                n = 2;
        if (n > EST_GPUS_MAX)
                return 0;
        return (uint32_t)n;
}

static void add_suggestion(struct estimate_result *r, uint16_t code, double bytes, double b)
{
        note_add(r->suggestions, &r->n_suggestions, EST_SUGGESTIONS_MAX, code, bytes, b);
}

/* Try one change; keep it if it lowers the per-GPU total. */
static void try_change(const struct estimate_input *x, struct estimate_result *r, uint16_t code,
                       double current, double extra)
{
        struct estimate_error e;
        uint64_t bytes = estimate_memory_bytes(x, &e);
        if (bytes > 0 && (double)bytes < current * 0.97)
                add_suggestion(r, code, (double)bytes, extra);
}

static void suggestions(const struct estimate_input *in, const struct derived *d,
                        struct estimate_result *r, double cap, const struct scaling *sc,
                        const struct mem_model *mm, const struct gpu_spec *gpus, size_t n_gpus)
{
        double cur = (double)r->per_gpu_total_bytes;
        struct estimate_input x;

        if (d->training) {
                if (in->checkpointing != EST_CKPT_FULL) {
                        x = *in;
                        x.checkpointing = EST_CKPT_FULL;
                        try_change(&x, r, EST_S_CHECKPOINTING, cur, 0);
                }
                if (!in->flash_attention) {
                        x = *in;
                        x.flash_attention = true;
                        try_change(&x, r, EST_S_FLASH, cur, 0);
                }
                if (d->lm_logits && !in->chunked_loss) {
                        x = *in;
                        x.chunked_loss = true;
                        try_change(&x, r, EST_S_CHUNKED_LOSS, cur, 0);
                }
                if (in->precision == EST_FP32 || in->precision == EST_TF32) {
                        x = *in;
                        x.precision = EST_BF16_MIXED;
                        try_change(&x, r, EST_S_BF16_MIXED, cur, 0);
                }
                if (in->optimizer != EST_OPT_ADAMW_8BIT && in->optimizer != EST_OPT_SGD &&
                    !d->lora) {
                        x = *in;
                        x.optimizer = EST_OPT_ADAMW_8BIT;
                        try_change(&x, r, EST_S_ADAMW_8BIT, cur, 0);
                }
                if (in->mode == EST_FINE_TUNE || in->mode == EST_PRE_TRAIN) {
                        x = *in;
                        x.mode = EST_LORA;
                        x.lora_rank = 16;
                        x.lora_targets = EST_LORA_ALL;
                        if (x.precision == EST_FP32 || x.precision == EST_TF32)
                                x.precision = EST_BF16_MIXED;
                        try_change(&x, r, EST_S_LORA, cur, 0);
                        x.mode = EST_QLORA;
                        x.quantization = EST_QUANT_NF4;
                        x.precision = EST_BF16_MIXED;
                        try_change(&x, r, EST_S_QLORA, cur, 0);
                }
                if (in->mode == EST_LORA) {
                        x = *in;
                        x.mode = EST_QLORA;
                        x.quantization = EST_QUANT_NF4;
                        if (x.precision == EST_FP32 || x.precision == EST_TF32)
                                x.precision = EST_BF16_MIXED;
                        try_change(&x, r, EST_S_QLORA, cur, 0);
                }
                if (in->offload == EST_OFFLOAD_NONE && !d->lora) {
                        x = *in;
                        x.offload = EST_OFFLOAD_OPTIMIZER;
                        if (x.strategy == EST_SINGLE && x.gpus == 1)
                                x.strategy = EST_ZERO2;
                        x.optimizer_in_backward = false;
                        try_change(&x, r, EST_S_OFFLOAD_OPTIMIZER, cur, 0);
                        x.strategy = EST_ZERO3;
                        x.offload = EST_OFFLOAD_OPTIMIZER_AND_PARAMS;
                        try_change(&x, r, EST_S_OFFLOAD_ALL, cur, 0);
                }
                uint32_t n = gpus_needed(mm, sc, cap, in->gpus);
                if (n > in->gpus)
                        add_suggestion(r, EST_S_ZERO3, 0, n);
        } else {
                if (in->quantization == EST_QUANT_NONE) {
                        x = *in;
                        x.quantization = EST_QUANT_INT4;
                        try_change(&x, r, EST_S_QUANTIZE, cur, 0);
                }
                uint32_t n = gpus_needed(mm, sc, cap, in->gpus);
                if (n > in->gpus) {
                        uint32_t p2 = 1;
                        while (p2 < n)
                                p2 *= 2;
                        add_suggestion(r, EST_S_TENSOR_PARALLEL, 0, p2);
                }
        }
        uint32_t bmax = max_batch(mm, cap);
        if (bmax >= 1 && bmax < in->batch_size)
                add_suggestion(r, EST_S_SMALLER_BATCH, 0, bmax);
        /* The smallest catalog GPU that holds it as requested. */
        double best = 0;
        int best_i = -1;
        for (size_t i = 0; i < n_gpus; i++) {
                double u = usable_bytes(&gpus[i]);
                if (u >= cur && (best_i < 0 || u < best) && (!d->training || gpus[i].can_train)) {
                        best = u;
                        best_i = (int)i;
                }
        }
        if (best_i >= 0 && best > cap)
                add_suggestion(r, EST_S_BIGGER_GPU, best, best_i);
}

/* ---- the run ------------------------------------------------------------------------- */

static void record_assumptions(const struct estimate_input *in, const struct derived *d,
                               struct estimate_result *r)
{
        if (!(in->set & EST_SET_BATCH))
                ASSUME(r, EST_A_DEFAULT_BATCH, in->batch_size, 0);
        if (!(in->set & EST_SET_SEQUENCE))
                ASSUME(r, EST_A_DEFAULT_SEQUENCE, in->sequence_length, 0);
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
                ASSUME(r, EST_A_SHAPE_FROM_PARAMETERS, (double)in->parameters_hint,
                       (double)r->parameters);
        if (d->training)
                ASSUME(r, EST_A_BYTES_PER_PARAM, d->lora ? d->e_q : d->e_w,
                       d->e_g + d->e_master + d->e_opt);
        ASSUME(r, EST_A_CUDA_CONTEXT, cuda_context_bytes, 0);
        ASSUME(r, EST_A_ALLOCATOR_RESERVE, allocator_reserve_fraction, 0);
        if (d->training) {
                ASSUME(r, EST_A_ACTIVATIONS_FORMULA, d->e_a, 0);
                if (!in->flash_attention && in->checkpointing != EST_CKPT_SELECTIVE)
                        ASSUME(r, EST_A_ATTENTION_SCORES, d->mixed ? 6 : d->e_a, 0);
                if (d->lm_logits && !in->chunked_loss)
                        ASSUME(r, EST_A_LOGITS_FP32, 4, 0);
                if (d->e_opt_temp > 0)
                        ASSUME(r, EST_A_FOREACH_TEMP, d->e_opt_temp, 0);
                if (in->optimizer == EST_OPT_ADAFACTOR)
                        ASSUME(r, EST_A_ADAFACTOR, 0, 0);
                if (in->pipeline_parallel > 1)
                        ASSUME(r, EST_A_PIPELINE_INFLIGHT, 0, 0);
                ASSUME(r, EST_A_CPU_RUNTIME, cpu_runtime_bytes, 0);
                if (in->gpus > 1 || in->offload != EST_OFFLOAD_NONE)
                        ASSUME(r, EST_A_MODEL_LOAD, in->model_load, 0);
        }
}

int estimate_run(const struct estimate_input *in, const struct gpu_spec *gpus, size_t n_gpus,
                 struct estimate_result *r, struct estimate_error *err)
{
        struct derived d;
        struct mem_model mm;
        double alloc;

        memset(r, 0, offsetof(struct estimate_result, fits));
        r->n_fits = r->n_assumptions = r->n_warnings = r->n_suggestions = 0;
        if (in->gpu_index >= 0 && (size_t)in->gpu_index >= n_gpus)
                return fail(err, "/gpu", "unknown", "gpu index out of range");
        if (build(in, &d, &mm, r, err))
                return -1;

        r->parameters = (uint64_t)llround(d.P);
        r->trainable_parameters = (uint64_t)llround(d.P_trainable);
        r->checkpoint_parameters = d.pb.total;

        double b = in->batch_size;
        r->peak_phase = peak_phase(&mm, b, &alloc);
        double total = total_from_allocated(&mm, alloc);
        if (!(total < EST_BYTES_LIMIT))
                return fail(err,
                            in->batch_size > 1 ? "/workload/batch_size"
                                               : "/workload/sequence_length",
                            "overflow",
                            "the configuration needs more than 64 EiB per GPU; refused as absurd");
        for (int i = 0; i < EST_PHASE_COUNT; i++)
                if (mm.ph[i].present)
                        r->phase_total_bytes[i] = (uint64_t)llround(
                                total_from_allocated(&mm, phase_allocated(&mm.ph[i], b)));
        const struct phase_mem *pk = &mm.ph[r->peak_phase];
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
        r->per_gpu_allocated_bytes = (uint64_t)sum;
        ASSUME(r, EST_A_TOTAL_IS_PEAK, r->peak_phase, 0);

        /* CPU: steady-state offloaded states, load copies, runtime, data. */
        cpu_model(in, &d, &mm);
        double cpu_total = 0;
        for (int c = 0; c < EST_CPU_COMPONENT_COUNT; c++) {
                r->cpu[c] = (uint64_t)llround(mm.cpu[c]);
                cpu_total += mm.cpu[c];
        }
        if (!(cpu_total < EST_BYTES_LIMIT))
                return fail(err, "/workload/batch_size", "overflow",
                            "CPU memory beyond 64 EiB; refused as absurd");
        r->cpu_total_bytes = (uint64_t)llround(cpu_total);

        record_assumptions(in, &d, r);

        /* Inference: bytes per decode step and the serving answer. */
        const struct gpu_spec *g = in->gpu_index >= 0 ? &gpus[in->gpu_index] : NULL;
        if (!d.training) {
                const struct phase_mem *ph = mm.ph[EST_PHASE_DECODE].present
                                                     ? &mm.ph[EST_PHASE_DECODE]
                                                     : &mm.ph[EST_PHASE_PREFILL];
                double kv_total = ph->per_sample[EST_C_KV_CACHE] * b;
                double ctx = (double)d.prompt + d.generated;
                double kv_tok = ctx > 0 ? ph->per_sample[EST_C_KV_CACHE] / ctx : 0;
                /* On average half the generated tokens are in the cache. */
                double kv_avg = kv_tok * b * ((double)d.prompt + d.generated / 2.0);
                if (in->arch.kind == MODEL_ENCODER)
                        kv_avg = kv_total = 0;
                r->decode_bytes_per_token = (uint64_t)llround(ph->fixed[EST_C_WEIGHTS] + kv_avg);
                r->kv_bytes_per_token = (uint64_t)llround(kv_tok);
        }
        compute_model(in, &d, g, r);

        if (!d.training && g && in->arch.kind != MODEL_ENCODER) {
                double util = in->gpu_memory_utilization > 0 ? in->gpu_memory_utilization : 0.9;
                double act = in->arch.experts > 1 ? serving_act_moe_bytes
                                                  : (strstr(in->arch.model_type, "llama")
                                                             ? serving_act_llama_bytes
                                                             : serving_act_dense_bytes);
                double budget = util * usable_bytes(g);
                double weights = mm.ph[EST_PHASE_PREFILL].fixed[EST_C_WEIGHTS];
                double nontorch = cuda_context_bytes + (in->gpus > 1 ? nccl_buffer_bytes : 0);
                double kv = budget - weights - act - nontorch;
                r->serving_budget_bytes = (uint64_t)llround(budget);
                ASSUME(r, EST_A_SERVING_UTIL, util, 0);
                ASSUME(r, EST_A_SERVING_ACTIVATION, act, 0);
                if (kv > 0 && r->kv_bytes_per_token > 0) {
                        r->serving_kv_bytes = (uint64_t)llround(kv);
                        double ctx = in->sequence_length;
                        r->serving_concurrent_sequences =
                                (uint64_t)floor(kv / ((double)r->kv_bytes_per_token * ctx));
                        r->serving_max_context_tokens =
                                (uint64_t)floor(kv / (double)r->kv_bytes_per_token);
                        if (r->serving_max_context_tokens > in->arch.max_positions)
                                WARN(r, EST_W_MAX_POSITIONS, (double)r->serving_max_context_tokens,
                                     in->arch.max_positions);
                }
        }

        /* Fit table. */
        struct scaling sc;
        scaling_fill(in, &d, &sc);
        size_t n = n_gpus < EST_FITS_MAX ? n_gpus : EST_FITS_MAX;
        bool any_fits = false;
        for (size_t i = 0; i < n; i++) {
                const struct gpu_spec *gi = &gpus[i];
                struct est_fit *f = &r->fits[r->n_fits++];
                memset(f, 0, sizeof(*f));
                double cap = usable_bytes(gi);
                f->gpu = (uint16_t)i;
                f->memory_bytes = (uint64_t)cap;
                if (cap <= 0) {
                        f->reason = EST_FIT_UNKNOWN_MEMORY;
                        continue;
                }
                f->utilization = total / cap;
                f->max_batch_size = max_batch(&mm, cap);
                if (d.training && !gi->can_train) {
                        f->reason = EST_FIT_CANNOT_TRAIN;
                        continue;
                }
                f->fits = total <= cap;
                f->reason = f->fits ? EST_FIT_OK : EST_FIT_TOO_SMALL;
                f->gpus_needed = f->fits ? in->gpus : gpus_needed(&mm, &sc, cap, in->gpus);
                any_fits |= f->fits;
        }
        if (!any_fits && n > 0)
                WARN(r, EST_W_NO_GPU_FITS, 0, 0);
        if (g) {
                if (d.training && !g->can_train)
                        WARN(r, EST_W_GPU_CANNOT_TRAIN, 0, 0);
                double cap = usable_bytes(g);
                if (cap > 0 && total > cap) {
                        WARN(r, EST_W_CHOSEN_GPU_TOO_SMALL, total, cap);
                        suggestions(in, &d, r, cap, &sc, &mm, gpus, n);
                }
        } else if (!any_fits && n > 0) {
                double cap = 0;
                for (size_t i = 0; i < n; i++)
                        cap = fmax(cap, usable_bytes(&gpus[i]));
                suggestions(in, &d, r, cap, &sc, &mm, gpus, n);
        }
        return 0;
}
