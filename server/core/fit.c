/*
 * fit.c - which GPUs hold a configuration: usable memory, the largest
 * batch, GPUs needed, the serving capacity, and suggestions when it does
 * not fit.
 */
#include "core/estimate_internal.h"
#include "core/peft.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* vLLM's activation profile + non-KV reservations on H100 as measured by
 * llm-d (config_explorer/empirical-vllm-memory-results.md): Llama-family
 * 4.8 GiB, other dense 5.5 GiB, MoE 8.0 GiB, independent of max_model_len. */
static const double serving_act_llama_bytes = 4.8 * GIB;
static const double serving_act_dense_bytes = 5.5 * GIB;
static const double serving_act_moe_bytes = 8.0 * GIB;

/* Largest b with total(b) <= cap; 0 if none. */
/* Each present phase's needed bytes as F + S * b: they do not depend on
 * the GPU, so the fit table works them out once for all of them. */
struct batch_lines {
        int n;
        double F[EST_PHASE_COUNT], S[EST_PHASE_COUNT];
};

static void batch_lines_of(const struct mem_model *mm, struct batch_lines *bl)
{
        bl->n = 0;
        for (int i = 0; i < EST_PHASE_COUNT; i++) {
                const struct phase_mem *p = &mm->ph[i];
                if (!p->present)
                        continue;
                double F = memory_phase_needed(mm, p, 0), S = memory_phase_needed(mm, p, 1) - F;
                bl->F[bl->n] = F;
                bl->S[bl->n++] = S;
        }
}

static uint32_t batch_lines_max(const struct mem_model *mm, const struct batch_lines *bl,
                                double cap)
{
        double budget = cap - mm->overhead_fixed;
        double best = EST_MAX_BATCH_REPORTED;
        for (int i = 0; i < bl->n; i++) {
                double F = bl->F[i], S = bl->S[i];
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

uint32_t fit_max_batch(const struct mem_model *mm, double cap)
{
        struct batch_lines bl;
        batch_lines_of(mm, &bl);
        return batch_lines_max(mm, &bl, cap);
}

static double fit_usable_bytes(const struct gpu_spec *g)
{
        return (double)(g->usable_memory_bytes ? g->usable_memory_bytes : g->memory_bytes);
}

/* A variant of the request for a what-if (more GPUs, another memory
 * saver): it keeps the request's allocator reserve rather than replaying
 * its own (reserve.c costs tens of microseconds per replay; the reserve
 * is a small fraction and moves little between such variants). */
static struct estimate_input variant_of(const struct estimate_input *in, const struct derived *d)
{
        struct estimate_input x = *in;
        x.set |= EST_SET_RESERVE | EST_SET_HELD;
        x.allocator_reserve_fraction = d->reserve_fraction;
        x.allocator_held_fraction = d->held_fraction;
        return x;
}

/* Per-GPU bytes at the request's batch as U + Sh / N for N GPUs of the
 * scalable layout (the request's sharding, ZeRO-3 when it has none, tensor
 * parallelism for inference): two evaluations give both terms. */
struct scaling {
        bool ok;
        double U, Sh;   /* bytes a run needs, before the CUDA context */
        double Ub, Shb; /* per-sample parts */
};

static void scaling_fill(const struct estimate_input *in, const struct derived *d,
                         struct scaling *sc)
{
        struct estimate_input x = variant_of(in, d);
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
                x.sequence_parallel = false;
                if (x.logits == EST_LOGITS_LOSS_PARALLEL)
                        x.logits = EST_LOGITS_UPCAST_IN_LOSS;
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
        if (estimate_build(&x, &d2, &m2, NULL, NULL))
                return;
        x.gpus = 4;
        if (!d->training)
                x.tensor_parallel = 4;
        if (estimate_build(&x, &d4, &m4, NULL, NULL))
                return;
        a2 = memory_max_needed(&m2, in->batch_size);
        a4 = memory_max_needed(&m4, in->batch_size);
        sc->Sh = 4 * (a2 - a4);
        sc->U = 2 * a4 - a2;
        /* U is 0 when the peak phase shards everything (the ZeRO-3
         * optimizer step); a rounding error below a byte is 0 too */
        sc->ok = sc->Sh > 0 && sc->U > -1;
        sc->U = fmax(sc->U, 0);
}

/* sc, filled on first use (two model builds). */
static const struct scaling *scaling_once(const struct estimate_input *in, const struct derived *d,
                                          struct scaling *sc, bool *ready)
{
        if (!*ready) {
                scaling_fill(in, d, sc);
                *ready = true;
        }
        return sc;
}

static uint32_t gpus_needed(const struct mem_model *mm, const struct scaling *sc, double cap,
                            double requested)
{
        double budget = cap - mm->overhead_fixed;
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
        estimate_note_add(r->suggestions, &r->n_suggestions, EST_SUGGESTIONS_MAX, code, bytes, b);
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

/* The mixed precision a suggestion may switch to: bf16, or fp16 where the
 * chosen GPU has no bf16 tensor throughput (V100, T4: compute capability
 * below 8.0, NVIDIA CUDA C Programming Guide, "Arithmetic Instructions"). */
static enum est_precision suggested_mixed(const struct estimate_input *in, const struct gpu_spec *g)
{
        struct estimate_input x = *in;
        x.precision = EST_BF16_MIXED;
        return g && compute_precision_unsupported(&x, g) ? EST_FP16_MIXED : EST_BF16_MIXED;
}

/* g: the chosen GPU, or NULL when the request named none. */
static void fit_suggestions(const struct estimate_input *in, const struct derived *d,
                            struct estimate_result *r, double cap, const struct scaling *sc,
                            const struct mem_model *mm, const struct gpu_spec *gpus, size_t n_gpus,
                            const struct gpu_spec *g)
{
        double cur = (double)r->per_gpu_total_bytes;
        enum est_precision mixed = suggested_mixed(in, g);
        struct estimate_input x;

        if (d->training) {
                if (in->checkpointing != EST_CKPT_FULL) {
                        x = variant_of(in, d);
                        x.checkpointing = EST_CKPT_FULL;
                        try_change(&x, r, EST_S_CHECKPOINTING, cur, 0);
                }
                if (!in->flash_attention) {
                        x = variant_of(in, d);
                        x.flash_attention = true;
                        try_change(&x, r, EST_S_FLASH, cur, 0);
                }
                if (d->lm_logits && !in->chunked_loss) {
                        x = variant_of(in, d);
                        x.chunked_loss = true;
                        try_change(&x, r, EST_S_CHUNKED_LOSS, cur, 0);
                }
                /* Only where the chosen GPU can run bf16. */
                if ((in->precision == EST_FP32 || in->precision == EST_TF32) &&
                    mixed == EST_BF16_MIXED) {
                        x = variant_of(in, d);
                        x.precision = EST_BF16_MIXED;
                        try_change(&x, r, EST_S_BF16_MIXED, cur, 0);
                }
                if (in->optimizer != EST_OPT_ADAMW_8BIT && in->optimizer != EST_OPT_SGD &&
                    !d->lora) {
                        x = variant_of(in, d);
                        x.optimizer = EST_OPT_ADAMW_8BIT;
                        try_change(&x, r, EST_S_ADAMW_8BIT, cur, 0);
                }
                if (in->mode == EST_FINE_TUNE || in->mode == EST_PRE_TRAIN) {
                        x = variant_of(in, d);
                        x.mode = EST_LORA;
                        x.lora_rank = 16;
                        x.lora_targets = peft_all_linear(&in->arch);
                        if (x.precision == EST_FP32 || x.precision == EST_TF32)
                                x.precision = mixed;
                        try_change(&x, r, EST_S_LORA, cur, 0);
                        x.mode = EST_QLORA;
                        x.quantization = EST_QUANT_NF4;
                        x.precision = mixed;
                        try_change(&x, r, EST_S_QLORA, cur, 0);
                }
                if (in->mode == EST_LORA) {
                        x = variant_of(in, d);
                        x.mode = EST_QLORA;
                        x.quantization = EST_QUANT_NF4;
                        if (x.precision == EST_FP32 || x.precision == EST_TF32)
                                x.precision = mixed;
                        try_change(&x, r, EST_S_QLORA, cur, 0);
                }
                if (in->offload == EST_OFFLOAD_NONE && !d->lora) {
                        x = variant_of(in, d);
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
                        x = variant_of(in, d);
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
        uint32_t bmax = fit_max_batch(mm, cap);
        if (bmax >= 1 && bmax < in->batch_size)
                add_suggestion(r, EST_S_SMALLER_BATCH, 0, bmax);
        /* The smallest catalog GPU that holds it as requested. */
        double best = 0;
        int best_i = -1;
        for (size_t i = 0; i < n_gpus; i++) {
                double u = fit_usable_bytes(&gpus[i]);
                if (u >= cur && (best_i < 0 || u < best) && (!d->training || gpus[i].can_train) &&
                    !compute_precision_unsupported(in, &gpus[i])) {
                        best = u;
                        best_i = (int)i;
                }
        }
        if (best_i >= 0 && best > cap)
                add_suggestion(r, EST_S_BIGGER_GPU, best, best_i);
}

/* The serving question (inference): with an engine that reserves a
 * fraction of GPU memory (vLLM gpu_memory_utilization) and fills what the
 * weights, the activation profile and the CUDA context leave with KV
 * cache, how many sequences of the request's context fit, and the longest
 * context one sequence can have. */
void fit_serving(const struct estimate_input *in, const struct derived *d,
                 const struct mem_model *mm, const struct gpu_spec *g, struct estimate_result *r)
{
        if (d->training || !g || in->arch.kind == MODEL_ENCODER)
                return;
        double util = in->gpu_memory_utilization > 0 ? in->gpu_memory_utilization : 0.9;
        double act = in->arch.experts > 1
                             ? serving_act_moe_bytes
                             : (strstr(in->arch.model_type, "llama") ? serving_act_llama_bytes
                                                                     : serving_act_dense_bytes);
        double budget = util * fit_usable_bytes(g);
        double weights = mm->ph[EST_PHASE_PREFILL].fixed[EST_C_WEIGHTS];
        double nontorch = d->context_bytes + (in->gpus > 1 ? memory_nccl_buffer_bytes : 0);
        double kv = budget - weights - act - nontorch;
        r->serving_budget_bytes = (uint64_t)llround(budget);
        ASSUME(r, EST_A_SERVING_UTIL, util, 0);
        ASSUME(r, EST_A_SERVING_ACTIVATION, act, 0);
        if (kv > 0 && r->kv_bytes_per_token > 0) {
                r->serving_kv_bytes = (uint64_t)llround(kv);
                double ctx = in->sequence_length;
                r->serving_concurrent_sequences =
                        (uint64_t)floor(kv / ((double)r->kv_bytes_per_token * ctx));
                /* The longest context: per-token bytes are the average at
                 * ctx; a sliding window or MLA changes the cache's shape, so
                 * invert that shape (an all-local window never fills it:
                 * capped at the largest context a request may name). */
                double longest = kv / (double)r->kv_bytes_per_token;
                double elems = model_kv_elements(&in->arch, ctx);
                if (in->arch.kind == MODEL_DECODER && elems > 0)
                        longest = fmin(model_kv_tokens_for(
                                               &in->arch,
                                               kv * elems / ((double)r->kv_bytes_per_token * ctx)),
                                       16777216.0);
                r->serving_max_context_tokens = (uint64_t)floor(longest);
                if (r->serving_max_context_tokens > in->arch.max_positions)
                        WARN(r, EST_W_MAX_POSITIONS, (double)r->serving_max_context_tokens,
                             in->arch.max_positions);
        }
}

/* The fit table over gpus (at most EST_FITS_MAX rows), the warnings it
 * implies, and suggestions when the chosen GPU (or, with none chosen,
 * every GPU) is too small.  total is the per-GPU peak in bytes. */
void fit_table(const struct estimate_input *in, const struct derived *d, const struct mem_model *mm,
               double total, const struct gpu_spec *gpus, size_t n_gpus, struct estimate_result *r)
{
        const struct gpu_spec *g = in->gpu_index >= 0 ? &gpus[in->gpu_index] : NULL;
        /* Two more model builds: only when some GPU is too small. */
        struct scaling sc;
        bool sc_ready = false;
        size_t n = n_gpus < EST_FITS_MAX ? n_gpus : EST_FITS_MAX;
        bool any_fits = false;
        struct batch_lines bl;
        batch_lines_of(mm, &bl);
        for (size_t i = 0; i < n; i++) {
                const struct gpu_spec *gi = &gpus[i];
                struct est_fit *f = &r->fits[r->n_fits++];
                memset(f, 0, sizeof(*f));
                double cap = fit_usable_bytes(gi);
                f->gpu = (uint16_t)i;
                f->memory_bytes = (uint64_t)cap;
                if (cap <= 0) {
                        f->reason = EST_FIT_UNKNOWN_MEMORY;
                        continue;
                }
                f->utilization = total / cap;
                f->max_batch_size = batch_lines_max(mm, &bl, cap);
                if (d->training && !gi->can_train) {
                        f->reason = EST_FIT_CANNOT_TRAIN;
                        continue;
                }
                if (compute_precision_unsupported(in, gi)) {
                        f->reason = EST_FIT_PRECISION_UNSUPPORTED;
                        continue;
                }
                f->fits = total <= cap;
                f->reason = f->fits ? EST_FIT_OK : EST_FIT_TOO_SMALL;
                f->gpus_needed = f->fits ? in->gpus
                                         : gpus_needed(mm, scaling_once(in, d, &sc, &sc_ready), cap,
                                                       in->gpus);
                any_fits |= f->fits;
        }
        if (!any_fits && n > 0)
                WARN(r, EST_W_NO_GPU_FITS, 0, 0);
        if (g) {
                if (d->training && !g->can_train)
                        WARN(r, EST_W_GPU_CANNOT_TRAIN, 0, 0);
                double cap = fit_usable_bytes(g);
                if (cap > 0 && total > cap) {
                        WARN(r, EST_W_CHOSEN_GPU_TOO_SMALL, total, cap);
                        fit_suggestions(in, d, r, cap, scaling_once(in, d, &sc, &sc_ready), mm,
                                        gpus, n, g);
                }
        } else if (!any_fits && n > 0) {
                double cap = 0;
                for (size_t i = 0; i < n; i++)
                        cap = fmax(cap, fit_usable_bytes(&gpus[i]));
                fit_suggestions(in, d, r, cap, scaling_once(in, d, &sc, &sc_ready), mm, gpus, n,
                                NULL);
        }
}
