/*
 * train_search_reference.c - the plan search behind compare as it was
 * before it shared work between GPUs (the exhaustive version): the whole
 * memory table up front, then every (GPU, offering shape, count, strategy)
 * run through estimate_run() in full, the allocator's reserve replayed
 * inside each run for that layout alone.  Kept for the tests only, as the
 * reference server/plan/train_search.c must agree with plan for plan.
 * Same contract as plan_train_search() (plan/train_search.h).
 */
#include "train_search_reference.h"


#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPES_MAX 16 /* distinct (gpus_per_instance, network) shapes per GPU */

/*
 * Between instances, when the catalog has no network figure: 10 Gb/s
 * Ethernet (1.25e9 bytes/s per instance), the bandwidth of common
 * general-purpose cloud VMs, rather than the engine's InfiniBand default,
 * so that spreading a job over many single-GPU pods is not priced as if
 * they sat on one fabric.
 */
#define DEFAULT_INSTANCE_NETWORK_BYTES_PER_S 1.25e9

/* One engine run, remembered for offerings of the same shape. */
struct run_memo {
        bool done, ok;
        int saver;               /* the lightest saver whose full estimate fits */
        bool no_rate;            /* refused: no throughput figure at the precision run */
        uint64_t per_gpu_bytes;  /* the engine's total, as nvidia-smi would show it */
        uint64_t per_gpu_needed; /* what must fit: the engine's fit figure */
        uint64_t cpu_bytes;      /* the engine's CPU total for one node (= one instance) */
        double total_seconds, tokens_per_second, seconds_per_step;
        enum est_bottleneck bottleneck;
};

struct shape {
        int gpus_per_instance;
        double network_bytes_per_s;
        struct run_memo runs[PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT];
};

typedef uint64_t memory_table_t[PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT][PLAN_SAVER_COUNT];

struct search {
        const struct catalog_provider *providers; /* by offering.provider_index */
        const struct estimate_input *base;        /* the variant being searched (see below) */
        const struct estimate_input *request;     /* the request as decoded */
        const struct plan_train_constraints *c;
        bool training;
        bool level_ok[PLAN_SAVER_COUNT]; /* the saver level adds only allowed savers */
        unsigned n_levels_ok;
        /* mem[count][strategy][saver]: per-GPU bytes without the allocator's
         * reserve (a lower bound), 0 = not a valid layout */
        memory_table_t *mem;
        memory_table_t mem_request;
        /*
         * The request re-planned at fp16 mixed precision, for GPUs without
         * bf16 (see bf16_substitute()); built on first use.
         */
        struct estimate_input fp16_input;
        memory_table_t mem_fp16;
        int fp16_state; /* 0 = not built, 1 = built, -1 = the engine refused it */
        struct estimate_error fp16_error;
        struct shape shapes[SHAPES_MAX];
        size_t n_shapes;
        struct estimate_result res;    /* scratch for estimate_run (about 20 KiB) */
        struct estimate_input scratch; /* the input of a run not yet remembered */
        struct plan_train_result *out;
        size_t cap_plans, cap_excluded;
};

static void apply_saver(struct estimate_input *x, enum plan_saver saver)
{
        if (saver >= PLAN_SAVER_FLASH)
                x->flash_attention = true;
        if (saver >= PLAN_SAVER_SELECTIVE && x->checkpointing < EST_CKPT_SELECTIVE)
                x->checkpointing = EST_CKPT_SELECTIVE;
        if (saver >= PLAN_SAVER_FULL)
                x->checkpointing = EST_CKPT_FULL;
        if (saver >= PLAN_SAVER_OFFLOAD && x->offload == EST_OFFLOAD_NONE)
                x->offload = EST_OFFLOAD_OPTIMIZER;
}

/* Is strategy a layout the search tries for this many GPUs? */
static bool strategy_used(const struct search *sr, uint32_t count, enum est_strategy st)
{
        if (count == 1)
                return st == EST_SINGLE;
        if (!sr->training) /* inference on several GPUs: tensor parallel, strategy single */
                return st == EST_SINGLE;
        return st != EST_SINGLE;
}

static enum plan_saver savers_used(const struct search *sr)
{
        /* Checkpointing and offload are training-only. */
        return sr->training ? PLAN_SAVER_COUNT : PLAN_SAVER_SELECTIVE;
}

static void layout(const struct search *sr, struct estimate_input *x, uint32_t count,
                   uint32_t nodes, enum est_strategy st, enum plan_saver saver)
{
        *x = *sr->base;
        x->gpus = count;
        x->nodes = nodes;
        x->strategy = st;
        x->fsdp_sharding = EST_FSDP_FULL_SHARD;
        x->tensor_parallel = sr->training ? 1 : count;
        x->pipeline_parallel = 1;
        x->micro_batches = 0;
        x->sequence_parallel = false;
        if (x->logits == EST_LOGITS_LOSS_PARALLEL) /* needs tensor parallelism */
                x->logits = EST_LOGITS_UPCAST_IN_LOSS;
        x->set |= EST_SET_STRATEGY;
        apply_saver(x, saver);
}

static int add_excluded(struct search *sr, size_t gi, size_t oi, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static int add_excluded(struct search *sr, size_t gi, size_t oi, const char *fmt, ...)
{
        struct plan_train_result *r = sr->out;
        struct plan_train_excluded *e;
        va_list ap;

        if (r->n_excluded == sr->cap_excluded)
                return -1;
        e = &r->excluded[r->n_excluded++];
        e->gpu_index = gi;
        e->offering_index = oi;
        va_start(ap, fmt);
        vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
        va_end(ap);
        return 0;
}

/* The shape slot for an instance layout, created on first use; NULL when full. */
static struct shape *shape_for(struct search *sr, int gpi, double network)
{
        for (size_t i = 0; i < sr->n_shapes; i++)
                if (sr->shapes[i].gpus_per_instance == gpi &&
                    sr->shapes[i].network_bytes_per_s == network)
                        return &sr->shapes[i];
        if (sr->n_shapes == SHAPES_MAX)
                return NULL;
        memset(&sr->shapes[sr->n_shapes], 0, sizeof(sr->shapes[0]));
        sr->shapes[sr->n_shapes].gpus_per_instance = gpi;
        sr->shapes[sr->n_shapes].network_bytes_per_s = network;
        return &sr->shapes[sr->n_shapes++];
}

/* The lightest saver from `from` on with which strategy st may fit count
 * GPUs of usable bytes (by the memory table's lower bound); -1 if none. */
static int lightest_fit_from(const struct search *sr, uint32_t count, enum est_strategy st,
                             uint64_t usable, int from)
{
        for (int sv = from; sv < (int)savers_used(sr); sv++)
                if ((*sr->mem)[count][st][sv] && (*sr->mem)[count][st][sv] <= usable)
                        return sv;
        return -1;
}

static int lightest_fit(const struct search *sr, uint32_t count, enum est_strategy st,
                        uint64_t usable)
{
        return lightest_fit_from(sr, count, st, usable, 0);
}

/* Lower is better: the ranking key of a plan. */
static double plan_key(const struct plan_train_plan *p, enum plan_rank rank, bool has_hours)
{
        if (rank == PLAN_RANK_TIME)
                return has_hours ? p->hours
                                 : (p->tokens_per_second > 0 ? 1 / p->tokens_per_second : HUGE_VAL);
        if (has_hours)
                return p->cost_usd;
        return p->usd_per_million_tokens >= 0 ? p->usd_per_million_tokens : HUGE_VAL;
}

static bool plan_better(const struct plan_train_plan *a, const struct plan_train_plan *b,
                        enum plan_rank rank, bool has_hours)
{
        double ka = plan_key(a, rank, has_hours), kb = plan_key(b, rank, has_hours);
        enum plan_rank other = rank == PLAN_RANK_COST ? PLAN_RANK_TIME : PLAN_RANK_COST;

        /* Within 0.01% the other criterion decides, then fewer GPUs. */
        if (fabs(ka - kb) > 1e-4 * fmax(fabs(ka), fabs(kb))) {
                return ka < kb;
        }
        ka = plan_key(a, other, has_hours);
        kb = plan_key(b, other, has_hours);
        if (fabs(ka - kb) > 1e-4 * fmax(fabs(ka), fabs(kb)))
                return ka < kb;
        return a->gpus < b->gpus;
}

/*
 * Run the engine on GPU g for count GPUs in k instances with strategy st,
 * from saver sv (the lightest the memory table's lower bound allows) up,
 * until the full estimate - reserve included - fits; remember it in m.
 */
static void run_lightest(struct search *sr, struct run_memo *m, const struct gpu_spec *g,
                         uint32_t count, uint32_t k, enum est_strategy st, int sv, double network)
{
        for (; sv >= 0; sv = lightest_fit_from(sr, count, st, g->usable_memory_bytes, sv + 1)) {
                struct estimate_error e;

                m->saver = sv;
                layout(sr, &sr->scratch, count, k, st, (enum plan_saver)sv);
                sr->scratch.gpu_index = 0;
                sr->scratch.inter_node_bytes_per_s = network;
                /* The allocator's reserve replayed inside the run, for
                 * this layout alone. */
                sr->out->engine_calls++;
                m->ok = estimate_run(&sr->scratch, g, 1, &sr->res, &e) == 0;
                /* No throughput figure at the precision run (the engine's
                 * peak is 0): no time, so no plan. */
                m->no_rate = m->ok && sr->res.peak_flops_per_gpu <= 0;
                if (m->no_rate)
                        m->ok = false;
                if (!m->ok)
                        return;
                m->per_gpu_bytes = sr->res.per_gpu_total_bytes;
                m->per_gpu_needed = sr->res.per_gpu_needed_bytes;
                m->cpu_bytes = sr->res.cpu_total_bytes;
                /* As the search: the effective wall time (goodput). */
                if (sr->res.goodput.present && !(sr->res.goodput.effective_seconds > 0)) {
                        m->ok = false;
                        return;
                }
                m->total_seconds = sr->res.goodput.present ? sr->res.goodput.effective_seconds
                                                           : sr->res.total_seconds;
                m->tokens_per_second = sr->res.tokens_per_second;
                m->seconds_per_step = sr->res.seconds_per_step;
                m->bottleneck = sr->res.bottleneck;
                if (m->per_gpu_needed <= g->usable_memory_bytes)
                        return;
        }
}

struct offering_outcome {
        bool gpu_fit;            /* some count within max_gpus fits GPU memory */
        bool any_fit;            /* ... and the instance's CPU memory (where known) */
        uint64_t ram_need_bytes; /* least CPU memory per instance among GPU fits short of RAM */
        bool no_rate;            /* the engine had no throughput figure for some fitting layout */
        double fastest_hours;    /* among fitting plans, before deadline/budget */
        double cheapest_usd;
};

/* Search the counts of one offering; fills best (returns true) or the outcome for the reason. */
static bool search_offering(struct search *sr, const struct gpu_spec *g,
                            const struct catalog_offering *o, const struct catalog_price *price,
                            struct plan_train_plan *best, struct offering_outcome *oc)
{
        const struct plan_train_constraints *c = sr->c;
        int gpi = o->gpus_per_instance;
        double network = (o->network_bytes_per_s > 0 ? o->network_bytes_per_s
                                                     : DEFAULT_INSTANCE_NETWORK_BYTES_PER_S) /
                         gpi;
        /* A notebook tier is one session: no second instance to add. */
        uint32_t max_instances = strcmp(sr->providers[o->provider_index].kind, "notebook") == 0
                                         ? 1
                                         : c->max_gpus / (uint32_t)gpi;
        struct shape *sh = shape_for(sr, gpi, network);
        double per_gpu_hour = price->usd_per_hour / gpi;
        bool found = false;

        oc->gpu_fit = false;
        oc->any_fit = false;
        oc->ram_need_bytes = 0;
        oc->no_rate = false;
        oc->fastest_hours = HUGE_VAL;
        oc->cheapest_usd = HUGE_VAL;
        if (!sh)
                return false;
        for (uint32_t k = 1; k <= max_instances; k++) {
                uint32_t count = k * (uint32_t)gpi;

                if (!sr->training && k > 1)
                        break; /* tensor parallel stays inside one instance */
                for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                        struct run_memo *m = &sh->runs[count][st];
                        int sv;
                        struct plan_train_plan p;

                        if (!strategy_used(sr, count, (enum est_strategy)st))
                                continue;
                        sv = lightest_fit(sr, count, (enum est_strategy)st, g->usable_memory_bytes);
                        if (sv < 0)
                                continue;
                        if (!m->done) {
                                m->done = true;
                                run_lightest(sr, m, g, count, k, (enum est_strategy)st, sv,
                                             network);
                        }
                        sv = m->saver;
                        if (m->no_rate)
                                oc->no_rate = true;
                        /* The engine's own full estimate must fit, not just the memory pass. */
                        if (!m->ok || m->per_gpu_needed > g->usable_memory_bytes)
                                continue;
                        oc->gpu_fit = true;
                        /*
                         * CPU memory: the engine's CPU total is per node, and
                         * every instance is one node running gpus_per_instance
                         * processes, so it is what one instance must hold
                         * (offloaded optimizer states, checkpoint copies while
                         * loading, runtime and data loader buffers).
                         */
                        if (o->ram_bytes > 0 && m->cpu_bytes > o->ram_bytes) {
                                if (!oc->ram_need_bytes || m->cpu_bytes < oc->ram_need_bytes)
                                        oc->ram_need_bytes = m->cpu_bytes;
                                continue;
                        }
                        oc->any_fit = true;
                        /* The plan is built only for runs that fit: the input
                         * is large and most (count, strategy) points repeat a
                         * remembered run. */
                        memset(&p, 0, sizeof(p));
                        layout(sr, &p.input, count, k, (enum est_strategy)st, (enum plan_saver)sv);
                        p.input.gpu_index = 0;
                        p.input.inter_node_bytes_per_s = network;
                        p.strategy = (enum est_strategy)st;
                        p.saver = (enum plan_saver)sv;
                        p.gpus = count;
                        p.instances = k;
                        p.price = price;
                        p.per_gpu_bytes = m->per_gpu_bytes;
                        p.cpu_bytes_per_instance = m->cpu_bytes;
                        p.ram_unknown = o->ram_bytes == 0;
                        p.precision_substituted = sr->base != sr->request;
                        p.usd_per_gpu_hour = per_gpu_hour;
                        p.tokens_per_second = m->tokens_per_second;
                        p.seconds_per_step = m->seconds_per_step;
                        p.bottleneck = m->bottleneck;
                        p.hours = sr->out->has_hours ? m->total_seconds / 3600 : -1;
                        p.cost_usd = p.hours >= 0 ? count * p.hours * per_gpu_hour : -1;
                        p.usd_per_million_tokens =
                                m->tokens_per_second > 0
                                        ? count * per_gpu_hour / 3600 / m->tokens_per_second * 1e6
                                        : -1;
                        if (p.hours >= 0 && p.hours < oc->fastest_hours)
                                oc->fastest_hours = p.hours;
                        if (p.cost_usd >= 0 && p.cost_usd < oc->cheapest_usd)
                                oc->cheapest_usd = p.cost_usd;
                        if (c->deadline_hours > 0 &&
                            !(p.hours >= 0 && p.hours <= c->deadline_hours))
                                continue;
                        if (c->budget_usd > 0 && !(p.cost_usd >= 0 && p.cost_usd <= c->budget_usd))
                                continue;
                        if (!found || plan_better(&p, best, c->rank_by, sr->out->has_hours)) {
                                *best = p;
                                found = true;
                        }
                }
        }
        return found;
}

static bool provider_listed(const struct plan_train_constraints *c, const char *provider)
{
        if (c->n_providers == 0)
                return true;
        for (size_t i = 0; i < c->n_providers; i++)
                if (strcmp(c->providers[i], provider) == 0)
                        return true;
        return false;
}

/* Which saver levels add only savers the constraints allow. */
static void levels_allowed(struct search *sr)
{
        unsigned allow = sr->c->savers_allowed;
        const struct estimate_input *b = sr->base;

        sr->n_levels_ok = 0;
        for (int sv = 0; sv < (int)savers_used(sr); sv++) {
                struct estimate_input x = *b;
                bool ok = true;

                apply_saver(&x, (enum plan_saver)sv);
                if (x.flash_attention != b->flash_attention)
                        ok &= (allow & PLAN_ALLOW_FLASH) != 0;
                if (x.checkpointing != b->checkpointing)
                        ok &= (allow & (x.checkpointing == EST_CKPT_FULL ? PLAN_ALLOW_FULL
                                                                         : PLAN_ALLOW_SELECTIVE)) !=
                              0;
                if (x.offload != b->offload)
                        ok &= (allow & PLAN_ALLOW_OFFLOAD) != 0;
                sr->level_ok[sv] = ok;
                sr->n_levels_ok += ok;
        }
}

/* Allocations only: the caching allocator's reserve stated as none. */
static void without_reserve(struct estimate_input *x)
{
        x->set |= EST_SET_RESERVE | EST_SET_HELD;
        x->allocator_reserve_fraction = 0;
        x->allocator_held_fraction = 0;
}

/*
 * Fill the memory table; -1 with err when the request itself is refused.
 * The table leaves out the allocator's reserve, whose replay costs tens of
 * microseconds and the table has thousands of points: it is a lower bound
 * that rules layouts out, and the full estimate of each layout run on a
 * GPU decides whether it fits.
 */
static int memory_table(struct search *sr, struct estimate_error *err)
{
        struct estimate_input x;

        levels_allowed(sr);

        /* The request on one GPU must be valid, or nothing else can be. */
        layout(sr, &x, 1, 1, EST_SINGLE, PLAN_SAVER_NONE);
        without_reserve(&x);
        sr->out->engine_calls++;
        if (estimate_memory_bytes(&x, err) == 0)
                return -1;
        for (uint32_t count = 1; count <= sr->c->max_gpus; count++) {
                for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                        if (!strategy_used(sr, count, (enum est_strategy)st))
                                continue;
                        for (int sv = 0; sv < (int)savers_used(sr); sv++) {
                                struct estimate_error e;

                                if (!sr->level_ok[sv])
                                        continue; /* mem stays 0: never fits */

                                layout(sr, &x, count, 1, (enum est_strategy)st,
                                       (enum plan_saver)sv);
                                without_reserve(&x);
                                sr->out->engine_calls++;
                                (*sr->mem)[count][st][sv] = estimate_memory_bytes(&x, &e);
                        }
                }
        }
        return 0;
}

/*
 * bf16 on a GPU without bf16 (Pascal P100, Volta V100, Turing T4: their
 * datasheets list fp16 tensor or vector rates and no bf16; bf16 arrived
 * with Ampere, NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020):
 * PyTorch can emulate it, but far below the fp16 rate, and the engine has
 * no rate for it.  A team would run such a GPU at fp16 mixed precision
 * (fp16 compute with loss scaling, fp32 master weights and optimizer
 * states, Micikevicius et al. 2018), so that is what the plan is made for,
 * and the plan says so.  Pure bf16 also becomes fp16 mixed: pure fp16
 * training without fp32 master weights is not a safe stand-in.
 */
static bool bf16_substitute(const struct estimate_input *request, const struct gpu_spec *g)
{
        bool bf16 = request->precision == EST_BF16_MIXED || request->precision == EST_BF16;

        return bf16 && g->flops[GPU_BF16] <= 0 && g->flops[GPU_FP16] > 0;
}

/*
 * Point the search at the request itself or at its fp16 mixed variant for
 * GPU g, building the variant's memory table on first use.  Returns 0, or
 * -1 when the engine refuses the variant (sr->fp16_error says why).
 */
static int select_variant(struct search *sr, const struct gpu_spec *g)
{
        if (!bf16_substitute(sr->request, g)) {
                sr->base = sr->request;
                sr->mem = &sr->mem_request;
                return 0;
        }
        if (sr->fp16_state == 0) {
                sr->fp16_input = *sr->request;
                sr->fp16_input.precision = EST_FP16_MIXED;
                sr->base = &sr->fp16_input;
                sr->mem = &sr->mem_fp16;
                sr->fp16_state = memory_table(sr, &sr->fp16_error) == 0 ? 1 : -1;
        }
        sr->base = &sr->fp16_input;
        sr->mem = &sr->mem_fp16;
        return sr->fp16_state == 1 ? 0 : -1;
}

/* The smallest per-GPU peak any layout reaches, for "does not fit" reasons. */
static uint64_t memory_floor(const struct search *sr, uint32_t *count_out)
{
        uint64_t best = 0;

        for (uint32_t count = 1; count <= sr->c->max_gpus; count++)
                for (int st = 0; st < EST_STRATEGY_COUNT; st++)
                        for (int sv = 0; sv < PLAN_SAVER_COUNT; sv++) {
                                uint64_t m = (*sr->mem)[count][st][sv];

                                if (m && (!best || m < best)) {
                                        best = m;
                                        *count_out = count;
                                }
                        }
        return best;
}

/* Stable insertion sort by rank (qsort would need the rank in a global). */
static void sort_plans(struct plan_train_plan *p, size_t n, enum plan_rank rank, bool has_hours)
{
        for (size_t i = 1; i < n; i++) {
                struct plan_train_plan v = p[i];
                size_t j = i;

                while (j > 0 && plan_better(&v, &p[j - 1], rank, has_hours)) {
                        p[j] = p[j - 1];
                        j--;
                }
                p[j] = v;
        }
}

int train_search_reference(const struct catalog_snapshot *s, const struct estimate_input *base,
                           const struct plan_train_constraints *c, struct plan_train_result *out,
                           struct estimate_error *err)
{
        size_t n_gpus, n_off, n_providers;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        struct search *sr = calloc(1, sizeof(*sr));
        int rc = -1;

        memset(out, 0, sizeof(*out));
        if (!sr) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                return -1;
        }
        sr->providers = catalog_providers(s, &n_providers);
        sr->base = base;
        sr->request = base;
        sr->mem = &sr->mem_request;
        sr->c = c;
        sr->out = out;
        sr->training = base->mode != EST_INFERENCE;
        out->has_hours = sr->training && (base->dataset_samples > 0 || base->dataset_tokens > 0);
        sr->cap_plans = n_off;
        sr->cap_excluded = n_gpus + n_off;
        out->plans = calloc(sr->cap_plans + 1, sizeof(*out->plans));
        out->excluded = calloc(sr->cap_excluded + 1, sizeof(*out->excluded));
        if (!out->plans || !out->excluded) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                goto out;
        }
        if (memory_table(sr, err))
                goto out;

        for (size_t gi = 0; gi < n_gpus; gi++) {
                const struct gpu_spec *g = &gpus[gi];
                uint64_t usable = g->usable_memory_bytes;
                bool fits_somewhere = false, any_offering = false;

                if (sr->training && !g->can_train) {
                        add_excluded(sr, gi, SIZE_MAX,
                                     "inference-only accelerator: the workload trains");
                        continue;
                }
                if (usable == 0) {
                        add_excluded(sr, gi, SIZE_MAX, "the catalog has no memory size for it");
                        continue;
                }
                if (select_variant(sr, g)) {
                        add_excluded(sr, gi, SIZE_MAX,
                                     "no bf16 on this GPU, and the workload at fp16 mixed"
                                     " precision is refused: %s",
                                     sr->fp16_error.detail);
                        continue;
                }
                for (uint32_t count = 1; count <= c->max_gpus; count++)
                        for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                                if (!strategy_used(sr, count, (enum est_strategy)st))
                                        continue;
                                out->evaluated += sr->n_levels_ok;
                                if (lightest_fit(sr, count, (enum est_strategy)st, usable) >= 0)
                                        fits_somewhere = true;
                        }
                if (!fits_somewhere) {
                        uint32_t at = 1;
                        uint64_t floor_bytes = memory_floor(sr, &at);

                        add_excluded(sr, gi, SIZE_MAX,
                                     "does not fit: needs at least %.1f GB per GPU (best layout: "
                                     "%u GPU%s, with"
                                     " the savers allowed%s) against %.1f GB usable",
                                     (double)floor_bytes / 1e9, at, at == 1 ? "" : "s",
                                     sr->base != sr->request
                                             ? ", at fp16 mixed precision: no bf16 on this GPU"
                                             : "",
                                     (double)usable / 1e9);
                        continue;
                }
                sr->n_shapes = 0;
                for (size_t oi = 0; oi < n_off; oi++) {
                        const struct catalog_offering *o = &off[oi];
                        const struct catalog_price *price;
                        struct plan_train_plan best;
                        struct offering_outcome oc;

                        if (o->gpu_index != gi || !provider_listed(c, o->provider_id))
                                continue;
                        price = catalog_price(s, o->id, c->pricing);
                        if (!price)
                                continue;
                        any_offering = true;
                        if ((uint32_t)o->gpus_per_instance > c->max_gpus) {
                                add_excluded(sr, gi, oi,
                                             "one instance has %d GPUs, more than max_gpus (%u)",
                                             o->gpus_per_instance, c->max_gpus);
                                continue;
                        }
                        if (search_offering(sr, g, o, price, &best, &oc)) {
                                best.gpu_index = gi;
                                best.offering_index = oi;
                                out->plans[out->n_plans++] = best;
                        } else if (!oc.gpu_fit && oc.no_rate) {
                                add_excluded(sr, gi, oi,
                                             "the GPU has no %s throughput figure, so the"
                                             " engine cannot time the job",
                                             estimate_precision_name(sr->base->precision));
                        } else if (!oc.gpu_fit) {
                                add_excluded(sr, gi, oi,
                                             "no whole number of %d-GPU instances up to %u GPUs"
                                             " fits",
                                             o->gpus_per_instance, c->max_gpus);
                        } else if (!oc.any_fit) {
                                add_excluded(sr, gi, oi,
                                             "CPU memory: every layout that fits GPU memory needs"
                                             " at least %.1f GB of CPU memory per instance (the"
                                             " engine's CPU total) but the instance has %.1f GB"
                                             " of RAM",
                                             (double)oc.ram_need_bytes / 1e9,
                                             (double)o->ram_bytes / 1e9);
                        } else if (c->deadline_hours > 0 && oc.fastest_hours > c->deadline_hours) {
                                add_excluded(sr, gi, oi,
                                             "misses the deadline: the fastest plan takes %.3g h"
                                             " (deadline %.3g h)",
                                             oc.fastest_hours, c->deadline_hours);
                        } else {
                                add_excluded(sr, gi, oi,
                                             "over budget: the cheapest plan costs %.4g USD"
                                             " (budget %.4g USD)",
                                             oc.cheapest_usd, c->budget_usd);
                        }
                }
                if (!any_offering)
                        add_excluded(sr, gi, SIZE_MAX, "fits, but no %s offering%s in the catalog",
                                     catalog_pricing_name(c->pricing),
                                     c->n_providers ? " from the chosen providers" : "");
        }
        sort_plans(out->plans, out->n_plans, c->rank_by, out->has_hours);
        rc = 0;
out:
        if (rc)
                plan_train_search_result_free(out);
        free(sr);
        return rc;
}
