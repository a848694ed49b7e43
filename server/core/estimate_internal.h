/*
 * estimate_internal.h - what the engine's modules share; not for use
 * outside server/core.
 *
 *   validate.c  validate_input()      ranges and contradictions
 *   derive.c    derive_input()        bytes per element, parameters as run, layout
 *   memory.c    memory_*()            phases, activations, logits, KV cache, CPU
 *   compute.c   compute_fill()        FLOPs, time, communication, bottleneck
 *   fit.c       fit_*()               usable memory, max batch, GPUs needed,
 *                                     serving capacity, suggestions
 *   estimate.c  estimate_run()        the pipeline, names, notes
 *
 * Everything here is pure arithmetic on caller-owned values: no
 * allocation, no globals beyond the read-only constants below, safe on any
 * number of threads.
 */
#ifndef GPUPLAN_CORE_ESTIMATE_INTERNAL_H
#define GPUPLAN_CORE_ESTIMATE_INTERNAL_H

#include "core/estimate.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)
/* No real configuration needs an exbibyte per GPU; above this we refuse. */
#define EST_BYTES_LIMIT        (1024.0 * 1024.0 * GIB * 64.0)
#define EST_MAX_BATCH_REPORTED 1048576u

/* Constants shared by several modules; each is defined, with its source,
 * in memory.c (derive_bnb_optimizer_block in derive.c). */
extern const double memory_cuda_context_bytes;
extern const double memory_allocator_reserve_fraction;
extern const double memory_nccl_buffer_bytes;
extern const double memory_cpu_runtime_bytes;
extern const double memory_cpu_data_bytes;
extern const double memory_zero_bucket_elements;
extern const double memory_loss_chunks;
extern const double memory_offload_stash;
extern const double derive_bnb_optimizer_block;

/* ---- derived quantities --------------------------------------------------- */

/* Everything the memory and compute models need, derived once from the
 * input.  Byte figures are per element or per parameter. */
struct derived {
        struct model_param_breakdown pb;
        bool training, lora, encoder_head, lm_logits, mixed, pure_half;
        bool amp; /* PyTorch autocast: fp32 weights/gradients + half copies */
        uint8_t autocast_copies_attn, autocast_copies_mlp; /* see memory_autocast_input_copies */
        double P;                                          /* parameters as run */
        double P_linear;                                   /* quantizable block matrices */
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
        double e_adapter;   /* LoRA adapter weight bytes */
        uint32_t s;         /* tokens per sample in the forward pass (an
                               encoder-decoder's encoder input) */
        uint32_t s_dec;     /* an encoder-decoder's decoder tokens (its target
                               length); s for every other model */
        double token_share; /* training work per sample over s tokens of every
                               block: below 1 when the decoder runs fewer */
        uint32_t prompt, generated;
        uint32_t dp;    /* data-parallel degree */
        uint32_t shard; /* ZeRO/FSDP shard degree */
        int stage;      /* 0 none, 1 optimizer, 2 +gradients, 3 +weights */
        uint32_t procs_per_node;
        double mb_fraction;      /* pipeline: micro-batch / batch */
        int pp_stage;            /* pipeline: the stage modelled, 0 = first, 1 = last */
        double context_bytes;    /* CUDA context per process */
        double reserve_fraction; /* caching-allocator reserve over the allocated peak */
        double held_fraction;    /* the part of it not released before an OOM */
        bool reserve_replayed;   /* both from reserve.c's replay */
};

/* The bytes one phase holds at batch b: fixed[c] + per_sample[c] * b for
 * every component c. */
struct phase_mem {
        bool present;
        double fixed[EST_COMPONENT_COUNT];
        double per_sample[EST_COMPONENT_COUNT];
        /* Reserved by the caching allocator during this phase but free and
         * out of reach of its requests (whole blocks cached in another
         * stream's pool): in max_memory_reserved and nvidia-smi, not in
         * max_memory_allocated, and handed back when a cudaMalloc would
         * otherwise fail, so it never decides whether a run fits. */
        double cached;
};

/* Every phase of one configuration on one GPU, plus the CPU side. */
struct mem_model {
        struct phase_mem ph[EST_PHASE_COUNT];
        double overhead_fixed;   /* CUDA context (+ NCCL is in comm) */
        double reserve_fraction; /* reserved beyond the allocated peak, as a fraction */
        double held_fraction;    /* the part of it a run needs (not releasable) */
        double cpu[EST_CPU_COMPONENT_COUNT];
        double act_per_sample_total; /* for CPU activation offload */
};

#define ASSUME(res, code, a, b)                                                                    \
        do {                                                                                       \
                if (res)                                                                           \
                        estimate_note_add((res)->assumptions, &(res)->n_assumptions,               \
                                          EST_NOTES_MAX, code, a, b);                              \
        } while (0)
#define WARN(res, code, a, b)                                                                      \
        do {                                                                                       \
                if (res)                                                                           \
                        estimate_note_add((res)->warnings, &(res)->n_warnings, EST_NOTES_MAX,      \
                                          code, a, b);                                             \
        } while (0)

/* estimate.c: record an error (returns -1) or a note. */
int estimate_fail(struct estimate_error *err, const char *pointer, const char *rule,
                  const char *detail);
void estimate_note_add(struct est_note *arr, size_t *n, size_t cap, uint16_t code, double a,
                       double b);
/* validate + derive + memory model of one configuration; with pipeline
 * parallelism, of the stage (first or last) with the larger peak at the
 * request's batch.  0 or -1 (err filled). */
int estimate_build(const struct estimate_input *in, struct derived *d, struct mem_model *mm,
                   struct estimate_result *res, struct estimate_error *err);

/* validate.c */
int validate_input(const struct estimate_input *in, struct estimate_result *res,
                   struct estimate_error *err);

/* derive.c */
int derive_input(const struct estimate_input *in, struct derived *d, struct estimate_result *res,
                 struct estimate_error *err);

/* memory.c */
int memory_model_build(const struct estimate_input *in, const struct derived *d,
                       struct mem_model *mm, struct estimate_result *res,
                       struct estimate_error *err);
/* CPU memory of one node but the offloaded activations (which the GPU
 * model works out): adds to cpu[], which the caller zeroes. */
void memory_cpu(const struct estimate_input *in, const struct derived *d,
                double cpu[EST_CPU_COMPONENT_COUNT]);
/* QLoRA: bytes per sample the 4-bit matmuls keep beyond frozen layers. */
bool memory_qlora_keeps_inputs(const struct estimate_input *in);
/* How a chunked loss keeps its fp32 chunks (memory.c, logits_bytes). */
enum memory_chunked_ce {
        MEMORY_CE_ONE_CHUNK,  /* the fp32 upcast of one chunk at a time (litgpt, unnamed) */
        MEMORY_CE_COMPILED,   /* torchtune, compute_cross_entropy compiled: no fp32 chunk */
        MEMORY_CE_EAGER_KEPT, /* torchtune eager: every chunk's fp32 log-softmax saved */
};
enum memory_chunked_ce memory_chunked_ce(const struct estimate_input *in);
double memory_qlora_saved_bytes(const struct estimate_input *in, const struct derived *d);
/* Op-level selective checkpointing: bytes one block keeps per sample. */
double memory_sac_op_block_bytes(const struct estimate_input *in, const struct derived *d);
/* Op-level selective checkpointing that recomputes the attention kernel. */
bool memory_sac_recomputes_attention(const struct estimate_input *in);
/* torchao float8 linears in training (precision fp8_mixed, no LoRA). */
bool memory_float8_linears(const struct estimate_input *in, const struct derived *d);
bool memory_eager_fp32_softmax(const struct estimate_input *in, const struct derived *d);
double memory_gelu_new_bytes(const struct estimate_input *in, const struct derived *d);
double memory_extra_norms(const struct model_arch *a);
bool memory_lora_keeps_down_input(const struct estimate_input *in, const struct derived *d);
/* Eager autocast over fp32 weights: the half-precision copies of a block's
 * fp32 norm outputs that its projections keep beyond the first, for the
 * attention input (*attn) and the MLP input (*mlp); derive_input stores
 * them in struct derived. */
void memory_autocast_input_copies(const struct estimate_input *in, const struct derived *d,
                                  double *attn, double *mlp);
/* LoRA dropout: bytes one block keeps per sample for the dropped inputs. */
double memory_lora_dropout_bytes(const struct estimate_input *in, const struct derived *d);
double memory_phase_allocated(const struct phase_mem *p, double b);
/* Bytes the caching allocator reserves during one phase at batch b. */
double memory_phase_reserved(const struct mem_model *mm, const struct phase_mem *p, double b);
/* The part of it a run needs to fit: without releasable cached blocks. */
double memory_phase_needed(const struct mem_model *mm, const struct phase_mem *p, double b);
/* The largest needed bytes over the phases. */
double memory_max_needed(const struct mem_model *mm, double b);
/* The phase that reserves most at batch b, and its reserved bytes. */
enum est_phase memory_peak_phase(const struct mem_model *mm, double b, double *reserved);
/* reserve.c: bytes the caching allocator reserves beyond the allocated
 * peak at micro-batch b (*gap) and the part it cannot release under
 * pressure (*held), from a replay of the configuration's tensors;
 * compute_peak is the allocated peak of the compute stream (without the
 * communication buffers of FSDP's streams) at full depth.  0, or -1 when
 * none applies. */
int reserve_replay(const struct estimate_input *in, const struct derived *d, double b,
                   double compute_peak, double *gap, double *held);
/* The largest allocated bytes over the phases (max_memory_allocated). */
double memory_max_allocated(const struct mem_model *mm, double b);

/* speed.c: one pass split by kind of work, seconds */
struct speed_parts {
        double gemm_compute, gemm_memory;
        double attention_compute, attention_memory;
        double elementwise;
        double dequant; /* weight-only quantized kernels unpacking on the CUDA cores */
        double tensor_parallel;
        double host; /* eager dispatch of the pass */
};
void speed_pass_parts(const struct est_speed *sp, double tokens, double context,
                      double kv_tokens_read, struct speed_parts *p);
double speed_parts_gpu(const struct speed_parts *p);
/* Wave quantization of a training micro-batch's block matmuls: the share
 * of the SMs' time the forward and the backward GEMMs use (1 = all). */
void speed_wave_shares(const struct estimate_input *in, const struct est_speed *sp,
                       double tokens, double *fwd, double *bwd);
void speed_build(const struct estimate_input *in, const struct derived *d, const struct gpu_spec *g,
                 enum gpu_precision prec, struct est_speed *sp);
double speed_eager_op_seconds(void);
/* The share of its 128-wide-head figure a fused attention kernel keeps at
 * head_dim (1 at 128 and above; FlashAttention-3 paper, figure 5). */
double speed_attention_head_dim_share(enum est_attention_kernel k, double head_dim);

/* compute.c */
/* True when g has no tensor rate at the request's precision although it
 * has others (bf16 before Ampere, fp8 before Ada/Hopper). */
bool compute_precision_unsupported(const struct estimate_input *in, const struct gpu_spec *g);
/* Interruptions, checkpoints and the wall time a training run really
 * takes (r->goodput); after compute_fill. */
void compute_goodput(const struct estimate_input *in, const struct derived *d,
                     struct estimate_result *r);
void compute_fill(const struct estimate_input *in, const struct derived *d,
                  const struct gpu_spec *g, struct estimate_result *r);
/* The GPU-independent figures of a training step's floor (estimate.h,
 * struct estimate_floor), and the floor on one GPU. */
void compute_floor(const struct estimate_input *in, const struct derived *d,
                   struct estimate_floor *f);
double compute_floor_step_seconds(const struct estimate_input *in, const struct estimate_floor *f,
                                  const struct gpu_spec *g);

/* fit.c */
uint32_t fit_max_batch(const struct mem_model *mm, double cap);
void fit_serving(const struct estimate_input *in, const struct derived *d,
                 const struct mem_model *mm, const struct gpu_spec *g, struct estimate_result *r);
void fit_table(const struct estimate_input *in, const struct derived *d, const struct mem_model *mm,
               double total, const struct gpu_spec *gpus, size_t n_gpus, struct estimate_result *r);

#endif
