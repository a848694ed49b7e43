/*
 * fit_search.c - the smallest sets of combined changes that make a job fit
 * its GPU, ranked by the throughput they cost (see fit_search.h).
 *
 * Each change is a dimension with a few values, value 0 being the request
 * as given.  Combinations are visited in mixed-radix order, so that every
 * combination with one change undone has a smaller index and is already
 * known: a combination whose one-change-undone neighbour fits (or holds a
 * fitting set) is a superset and is never sized.  This keeps the number of
 * engine calls to the frontier between "does not fit" and "fits".
 */
#include "plan/fit_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/peft.h"

#define VALUES_MAX     8  /* values per dimension, value 0 = as given */
#define CANDIDATES_MAX 96 /* minimal sets kept */
#define ENGINE_RUNS_MAX                                                                            \
        256 /* estimate_run calls per search: a GPU that refuses every                             \
               set (no rate at a precision) must not cost thousands */

const char *const plan_fit_search_change_names[] = {
        "precision",
        "flash_attention",
        "activation_checkpointing",
        "micro_batch",
        "optimizer",
        "adapters",
        "offload",
        "gpus",
        "quantization",
};

/* The values one dimension takes; what each means depends on the dimension. */
struct dim {
        unsigned n;                 /* values, including 0 = as given */
        uint32_t value[VALUES_MAX]; /* value[0] unused */
};

enum state { UNKNOWN = 0, NO_FIT, FITS, COVERED, REFUSED };

struct search {
        const struct estimate_input *base;
        const struct gpu_spec *gpu;
        double usable;
        bool training;
        struct dim dims[PLAN_FIT_CHANGE_COUNT];
        size_t stride[PLAN_FIT_CHANGE_COUNT];
        size_t total;
};

void plan_fit_search_options_defaults(struct plan_fit_options *o)
{
        memset(o, 0, sizeof(*o));
        o->max_gpus = PLAN_FIT_GPUS_MAX;
}

static void add(struct dim *d, uint32_t v)
{
        if (d->n < VALUES_MAX)
                d->value[d->n++] = v;
}

static bool has_bf16(const struct gpu_spec *g)
{
        return g->flops[GPU_BF16] > 0;
}

/* The dimensions that apply to base on GPU g. */
static void dims_fill(struct search *s, const struct plan_fit_options *o)
{
        const struct estimate_input *b = s->base;
        struct dim *d;

        for (size_t i = 0; i < PLAN_FIT_CHANGE_COUNT; i++)
                s->dims[i].n = 1;

        /* Precision: mixed keeps fp32 master weights and states (16 bytes per
         * trained parameter with Adam, ZeRO paper section 3.1) but halves the
         * activations; pure bf16 halves everything (torchtune's default).
         * GPUs before compute capability 8.0 have no bf16: fp16 mixed there. */
        d = &s->dims[PLAN_FIT_PRECISION];
        if (s->training && (b->precision == EST_FP32 || b->precision == EST_TF32))
                add(d, has_bf16(s->gpu) ? EST_BF16_MIXED : EST_FP16_MIXED);
        if (has_bf16(s->gpu) && b->precision != EST_BF16 && b->precision != EST_FP16 &&
            b->precision != EST_FP8_MIXED)
                add(d, EST_BF16);
        else if (!s->training && (b->precision == EST_FP32 || b->precision == EST_TF32))
                add(d, EST_FP16);
        else if (s->training && !has_bf16(s->gpu) &&
                 (b->precision == EST_BF16_MIXED || b->precision == EST_BF16))
                add(d, EST_FP16_MIXED); /* bf16 asked of a GPU that has none */

        if (!b->flash_attention)
                add(&s->dims[PLAN_FIT_FLASH], 1);

        d = &s->dims[PLAN_FIT_CHECKPOINTING];
        if (s->training && b->checkpointing == EST_CKPT_NONE)
                add(d, EST_CKPT_SELECTIVE);
        if (s->training && b->checkpointing != EST_CKPT_FULL)
                add(d, EST_CKPT_FULL);

        /* Micro-batch: the batch halved while it divides, then 1. */
        d = &s->dims[PLAN_FIT_MICRO_BATCH];
        for (uint32_t mb = b->batch_size / 2;
             mb >= 1 && b->batch_size % (mb * 2) == 0 && d->n < VALUES_MAX - 1; mb /= 2)
                add(d, mb);
        if (b->batch_size > 1 && (d->n == 1 || d->value[d->n - 1] != 1))
                add(d, 1);

        d = &s->dims[PLAN_FIT_OPTIMIZER];
        if (s->training && (b->optimizer == EST_OPT_ADAM || b->optimizer == EST_OPT_ADAMW ||
                            b->optimizer == EST_OPT_PAGED_ADAMW)) {
                add(d, EST_OPT_ADAMW_8BIT);
                add(d, EST_OPT_PAGED_ADAMW_8BIT);
        }

        d = &s->dims[PLAN_FIT_ADAPTERS];
        if (o->allow_adapters && b->mode == EST_FINE_TUNE)
                add(d, EST_LORA);
        if (o->allow_adapters && (b->mode == EST_FINE_TUNE || b->mode == EST_LORA))
                add(d, EST_QLORA);

        if (s->training && b->offload == EST_OFFLOAD_NONE)
                add(&s->dims[PLAN_FIT_OFFLOAD], EST_OFFLOAD_OPTIMIZER);

        d = &s->dims[PLAN_FIT_GPUS];
        if (b->tensor_parallel <= 1 && b->pipeline_parallel <= 1 && b->nodes <= 1)
                for (uint32_t n = 2; n <= o->max_gpus && n <= PLAN_FIT_GPUS_MAX; n *= 2)
                        if (n > b->gpus)
                                add(d, n);

        d = &s->dims[PLAN_FIT_QUANTIZATION];
        if (!s->training && b->quantization == EST_QUANT_NONE) {
                add(d, EST_QUANT_INT8);
                add(d, EST_QUANT_INT4);
        }

        s->total = 1;
        for (size_t i = 0; i < PLAN_FIT_CHANGE_COUNT; i++) {
                s->stride[i] = s->total;
                s->total *= s->dims[i].n;
        }
}

static unsigned digit(const struct search *s, size_t idx, size_t dim)
{
        return (unsigned)((idx / s->stride[dim]) % s->dims[dim].n);
}

/*
 * The request with combination idx applied, or false when the combination
 * makes no sense (offloading the few adapter states; a global batch that
 * overflows).
 */
static bool apply(const struct search *s, size_t idx, struct estimate_input *x)
{
        const struct estimate_input *b = s->base;
        unsigned v[PLAN_FIT_CHANGE_COUNT];

        for (size_t i = 0; i < PLAN_FIT_CHANGE_COUNT; i++)
                v[i] = digit(s, idx, i);
        *x = *b;
        if (v[PLAN_FIT_PRECISION]) {
                x->precision = (enum est_precision)s->dims[PLAN_FIT_PRECISION]
                                       .value[v[PLAN_FIT_PRECISION]];
                x->set |= EST_SET_PRECISION;
        }
        if (v[PLAN_FIT_FLASH]) {
                x->flash_attention = true;
                x->set |= EST_SET_FLASH;
        }
        if (v[PLAN_FIT_CHECKPOINTING]) {
                x->checkpointing = (enum est_checkpointing)s->dims[PLAN_FIT_CHECKPOINTING]
                                           .value[v[PLAN_FIT_CHECKPOINTING]];
                x->set |= EST_SET_CHECKPOINTING;
        }
        if (v[PLAN_FIT_MICRO_BATCH]) {
                uint32_t mb = s->dims[PLAN_FIT_MICRO_BATCH].value[v[PLAN_FIT_MICRO_BATCH]];
                uint32_t factor = b->batch_size / mb;
                uint32_t accum = b->gradient_accumulation ? b->gradient_accumulation : 1;

                if (s->training && __builtin_mul_overflow(accum, factor, &x->gradient_accumulation))
                        return false;
                x->batch_size = mb;
                x->set |= EST_SET_BATCH;
        }
        if (v[PLAN_FIT_OPTIMIZER]) {
                x->optimizer = (enum est_optimizer)s->dims[PLAN_FIT_OPTIMIZER]
                                       .value[v[PLAN_FIT_OPTIMIZER]];
                x->set |= EST_SET_OPTIMIZER;
        }
        if (v[PLAN_FIT_ADAPTERS]) {
                x->mode = (enum est_mode)s->dims[PLAN_FIT_ADAPTERS].value[v[PLAN_FIT_ADAPTERS]];
                if (b->mode != EST_LORA) {
                        /* Rank 16 on every linear layer, as QLoRA trained (Dettmers et al.
                         * 2023, section 4: adapters on all linear layers). */
                        x->lora_rank = 16;
                        x->lora_alpha = 32;
                        x->lora_targets = peft_all_linear(&x->arch);
                        x->set |= EST_SET_LORA;
                }
                if (x->mode == EST_QLORA) {
                        /* QLoRA: NF4 base weights with double quantization and bf16
                         * compute (Dettmers et al. 2023, section 3). */
                        x->quantization = EST_QUANT_NF4;
                        x->double_quant = true;
                        if (x->precision == EST_FP32 || x->precision == EST_TF32)
                                x->precision = has_bf16(s->gpu) ? EST_BF16_MIXED : EST_FP16_MIXED;
                }
        }
        if (v[PLAN_FIT_OFFLOAD]) {
                if (x->mode == EST_LORA || x->mode == EST_QLORA)
                        return false;
                /* ZeRO-Offload runs on one GPU too, as ZeRO stage 2 (Ren et al. 2021). */
                x->offload = EST_OFFLOAD_OPTIMIZER;
                x->optimizer_in_backward = false;
                if (x->strategy == EST_SINGLE || x->strategy == EST_DDP)
                        x->strategy = EST_ZERO2;
                x->set |= EST_SET_STRATEGY;
        }
        if (v[PLAN_FIT_GPUS]) {
                uint32_t n = s->dims[PLAN_FIT_GPUS].value[v[PLAN_FIT_GPUS]];

                x->gpus = n;
                x->nodes = 1;
                if (s->training) {
                        /* Shard weights, gradients and states over the GPUs: FSDP full
                         * shard, or ZeRO-3 where DeepSpeed offloads the optimizer. */
                        x->strategy = x->offload != EST_OFFLOAD_NONE ? EST_ZERO3 : EST_FSDP;
                        x->fsdp_sharding = EST_FSDP_FULL_SHARD;
                } else {
                        x->strategy = EST_SINGLE;
                        x->tensor_parallel = n;
                }
                x->set |= EST_SET_STRATEGY;
        }
        if (v[PLAN_FIT_QUANTIZATION])
                x->quantization = (enum est_quant)s->dims[PLAN_FIT_QUANTIZATION]
                                          .value[v[PLAN_FIT_QUANTIZATION]];
        return true;
}

static unsigned changes_of(const struct search *s, size_t idx)
{
        unsigned bits = 0;

        for (size_t i = 0; i < PLAN_FIT_CHANGE_COUNT; i++)
                if (digit(s, idx, i))
                        bits |= 1u << i;
        return bits;
}

static unsigned popcount(unsigned v)
{
        return (unsigned)__builtin_popcount(v);
}

/* Fewer GPU-seconds per token first, then fewer changes. */
static int option_cmp(const void *pa, const void *pb)
{
        const struct plan_fit_option *a = pa, *b = pb;

        if (a->gpu_seconds_per_million_tokens != b->gpu_seconds_per_million_tokens)
                return a->gpu_seconds_per_million_tokens < b->gpu_seconds_per_million_tokens ? -1
                                                                                             : 1;
        return (int)popcount(a->changes) - (int)popcount(b->changes);
}

/* GPU-seconds per million tokens of a run: GPUs x 1e6 / tokens per second. */
static double gpu_seconds_per_million(const struct estimate_input *in,
                                      const struct estimate_result *r)
{
        if (!(r->tokens_per_second > 0))
                return 0;
        return (double)in->gpus * 1e6 / r->tokens_per_second;
}

int plan_fit_search(const struct estimate_input *base, const struct gpu_spec *gpus, size_t n_gpus,
                    const struct plan_fit_options *o, struct plan_fit_result *out,
                    struct estimate_error *err)
{
        struct search s;
        struct estimate_input one;
        double request_cost;
        struct estimate_result *r = NULL;
        struct plan_fit_option *cand = NULL;
        uint8_t *state = NULL;
        size_t n_cand = 0;
        int rc = -1;

        memset(out, 0, sizeof(*out));
        memset(&s, 0, sizeof(s));
        if (base->gpu_index < 0 || (size_t)base->gpu_index >= n_gpus) {
                snprintf(err->pointer, sizeof(err->pointer), "/gpu");
                snprintf(err->rule, sizeof(err->rule), "required");
                snprintf(err->detail, sizeof(err->detail),
                         "name the GPU the job should fit (a catalog GPU id)");
                return -1;
        }
        s.base = base;
        s.gpu = &gpus[base->gpu_index];
        s.usable = (double)(s.gpu->usable_memory_bytes ? s.gpu->usable_memory_bytes
                                                       : s.gpu->memory_bytes);
        s.training = base->mode != EST_INFERENCE;
        out->usable_bytes = (uint64_t)s.usable;

        r = malloc(sizeof(*r));
        if (!r) {
                snprintf(err->rule, sizeof(err->rule), "memory");
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                goto out;
        }
        /* The request as given, on this GPU alone: its fit and its speed. */
        one = *base;
        one.gpu_index = 0;
        if (estimate_run(&one, s.gpu, 1, r, err))
                goto out;
        out->request_needed_bytes = r->per_gpu_needed_bytes;
        out->request_tokens_per_second = r->tokens_per_second;
        request_cost = gpu_seconds_per_million(base, r);
        if (r->n_fits > 0 && r->fits[0].fits) {
                out->fits_already = true;
                rc = 0;
                goto out;
        }
        /* No change searched makes an inference-only part train, or gives a
         * memory figure to a GPU without one. */
        out->request_reason =
                r->n_fits > 0 ? (enum est_fit_reason)r->fits[0].reason : EST_FIT_UNKNOWN_MEMORY;
        if (out->request_reason == EST_FIT_CANNOT_TRAIN ||
            out->request_reason == EST_FIT_UNKNOWN_MEMORY) {
                rc = 0;
                goto out;
        }

        dims_fill(&s, o);
        state = calloc(s.total, 1);
        cand = calloc(CANDIDATES_MAX, sizeof(*cand));
        if (!state || !cand) {
                snprintf(err->rule, sizeof(err->rule), "memory");
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                goto out;
        }
        state[0] = NO_FIT;
        for (size_t idx = 1;
             idx < s.total && n_cand < CANDIDATES_MAX && out->candidates < ENGINE_RUNS_MAX; idx++) {
                bool covered = false;
                struct estimate_input x;
                struct estimate_error e;

                for (size_t d = 0; d < PLAN_FIT_CHANGE_COUNT && !covered; d++) {
                        unsigned v = digit(&s, idx, d);
                        if (v) {
                                uint8_t st = state[idx - v * s.stride[d]];
                                covered = st == FITS || st == COVERED;
                        }
                }
                if (covered) {
                        state[idx] = COVERED;
                        continue;
                }
                if (!apply(&s, idx, &x)) {
                        state[idx] = REFUSED;
                        continue;
                }
                x.gpu_index = 0;
                out->combinations++;
                uint64_t need = estimate_memory_bytes(&x, &e);
                if (need == 0) {
                        state[idx] = REFUSED;
                        continue;
                }
                if ((double)need > s.usable) {
                        state[idx] = NO_FIT;
                        continue;
                }
                /* A lower bound fits: the full engine decides. */
                out->candidates++;
                if (estimate_run(&x, s.gpu, 1, r, &e) || r->n_fits == 0 || !r->fits[0].fits) {
                        state[idx] = NO_FIT;
                        continue;
                }
                state[idx] = FITS;
                struct plan_fit_option *c = &cand[n_cand++];
                c->changes = changes_of(&s, idx);
                c->input = x;
                c->input.gpu_index = base->gpu_index;
                c->needed_bytes = r->per_gpu_needed_bytes;
                c->per_gpu_bytes = r->per_gpu_total_bytes;
                c->seconds_per_step = r->seconds_per_step;
                c->tokens_per_second = r->tokens_per_second;
                c->gpu_seconds_per_million_tokens = gpu_seconds_per_million(&x, r);
                c->slowdown = request_cost > 0 && c->gpu_seconds_per_million_tokens > 0
                                      ? c->gpu_seconds_per_million_tokens / request_cost
                                      : 0;
                /* Unknown speed ranks last. */
                if (!(c->gpu_seconds_per_million_tokens > 0))
                        c->gpu_seconds_per_million_tokens = 1e300;
        }
        qsort(cand, n_cand, sizeof(*cand), option_cmp);
        for (size_t i = 0; i < n_cand && out->n_options < PLAN_FIT_OPTIONS_MAX; i++) {
                out->options[out->n_options] = cand[i];
                if (out->options[out->n_options].gpu_seconds_per_million_tokens >= 1e300)
                        out->options[out->n_options].gpu_seconds_per_million_tokens = 0;
                out->n_options++;
        }
        rc = 0;
out:
        free(state);
        free(cand);
        free(r);
        return rc;
}
