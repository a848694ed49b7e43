/*
 * train_search.c - the cheapest (or fastest) way to run a workload across
 * the catalog's GPUs and the offerings that rent them (the search behind
 * POST /api/v1/compare; server/api/compare.c only translates JSON).
 *
 * The search, for every GPU:
 *   1. memory: per-GPU peak bytes for every GPU count 1..max_gpus x
 *      strategy (single; ddp, zero1, zero2, zero3, fsdp for training;
 *      tensor parallel for inference) x memory saver (as requested, + flash
 *      attention, + selective, + full checkpointing, + optimizer offload),
 *      from estimate_memory_bytes().  Memory does not depend on the GPU
 *      model, so each entry is computed once per search, when the search
 *      first asks for it, and compared with each GPU's usable memory: every
 *      (GPU, count, strategy, saver) point is checked.
 *   2. time: for each offering, GPU counts are whole instances (k x
 *      gpus_per_instance; instances beyond the first are separate nodes);
 *      each strategy at its lightest fitting saver is run through
 *      estimate_run() on that GPU, keeping the engine's own per-GPU total
 *      as the fit test.  Offerings with the same instance shape share runs.
 *      The memory model of a run does not read the GPU either: it is built
 *      once per layout (estimate_prepare) and only the time model runs per
 *      GPU (estimate_time), with the same figures estimate_run() gives.
 *      Counts are tried in increasing order, and once an offering has a
 *      plan, a layout not run yet whose time floor (estimate_floor) prices
 *      it after that plan is skipped: it could not replace it.
 *   3. cost: gpus x hours x usd_per_gpu_hour, where usd_per_gpu_hour is the
 *      stored instance price / gpus_per_instance (so = instances x instance
 *      price x hours); per million tokens = gpus x usd_per_gpu_hour / 3600
 *      / tokens per second x 1e6 (the llm-analysis cost formula).
 * For each offering the best count under the ranking and constraints is
 * kept; the rest is reported as excluded with the reason.
 */
#include "plan/train_search.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPES_MAX  16         /* distinct (gpus_per_instance, network) shapes per GPU */
#define GPIS_MAX    8          /* distinct gpus_per_instance whose layouts are prepared once */
#define MEM_UNKNOWN UINT64_MAX /* memory table: not worked out yet */

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
        bool timed;              /* the time figures below are worked out */
        bool none_fits;          /* the memory table's lower bound rules every saver out */
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
        /*
         * The floor under each layout's time (estimate_floor) as a ranking
         * key: plan_key() of the plan the floor gives at 1 USD per GPU-hour
         * (a plan's cost scales with its price; its time does not), 0 when
         * there is no floor to trust, by GPU count; and the least of them
         * over k instances and more, by k.  Worked out when an offering of
         * the shape first has a plan to compare with.
         */
        bool floors;
        double floor_key[PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT];
        double floor_rest[PLAN_GPUS_MAX + 2];
};

typedef uint64_t memory_table_t[PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT][PLAN_SAVER_COUNT];

/*
 * The GPU-independent part of one run (estimate_prepare: the memory model
 * and the derived quantities), for a layout of count GPUs in instances of
 * gpus_per_instance: worked out once per search and timed on every GPU of
 * that instance shape (estimate_time).  0 = not prepared; else 1 + the
 * index into struct search.prep.
 */
struct prep_memo {
        bool ok; /* false: the engine refuses the layout */
        struct estimate_prepared p;
};
typedef uint16_t prep_index_t[GPIS_MAX][PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT][PLAN_SAVER_COUNT];
/* Both variants' layouts (the request, its fp16 stand-in) share one pool. */
_Static_assert(2 * sizeof(prep_index_t) / sizeof(uint16_t) < UINT16_MAX,
               "a prep_index_t entry must index every prepared layout");

/* The caching allocator's reserve of one layout (estimate_allocator_reserve),
 * replayed once and stated in every run of that layout on any GPU. */
struct reserve_memo {
        bool done, ok;
        double reserve, held;
};
typedef struct reserve_memo reserve_table_t[PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT]
                                           [PLAN_SAVER_COUNT];

/*
 * The floor under the time of a layout (estimate_floor), per GPU count and
 * strategy, at the least traffic of the saver levels the search may add:
 * whichever saver a run ends at, its time is at least this.  Worked out
 * when an offering first asks whether a layout can beat its best plan.
 */
struct floor_memo {
        bool done, ok;
        struct estimate_floor f;
};
typedef struct floor_memo floor_table_t[PLAN_GPUS_MAX + 1][EST_STRATEGY_COUNT];

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
        reserve_table_t *rsv; /* paired with mem */
        reserve_table_t rsv_request;
        floor_table_t *floor; /* paired with mem */
        floor_table_t floor_request;
        /*
         * The request re-planned at fp16 mixed precision, for GPUs without
         * bf16 (see bf16_substitute()); built on first use.
         */
        struct estimate_input fp16_input;
        memory_table_t mem_fp16;
        reserve_table_t rsv_fp16;
        floor_table_t floor_fp16;
        int fp16_state; /* 0 = not built, 1 = built, -1 = the engine refused it */
        struct estimate_error fp16_error;
        struct shape *shapes[SHAPES_MAX]; /* allocated on first use, reused by later GPUs */
        size_t n_shapes;
        bool out_of_memory;
        /* Prepared layouts, shared by every GPU of the same variant. */
        prep_index_t *prep_at;
        prep_index_t prep_request, prep_fp16;
        int gpis[GPIS_MAX]; /* the gpus_per_instance of each prep_at slot */
        size_t n_gpis;
        struct prep_memo *prep;
        size_t n_prep, cap_prep;
        struct estimate_result res;    /* scratch for estimate_run (about 20 KiB) */
        struct estimate_input scratch; /* the input of a run not yet remembered */
        struct estimate_input floor_in; /* the variant searched, for estimate_floor_step_seconds */
        /* The GPU's peak rate at the precision run, the same for every
         * layout (compute.c): 0 = not seen yet, 1 = a rate, -1 = none. */
        int rate;
        struct plan_train_result *out;
        size_t cap_plans, cap_excluded;
};

void plan_train_search_constraints_defaults(struct plan_train_constraints *c)
{
        memset(c, 0, sizeof(*c));
        c->pricing = CATALOG_ON_DEMAND;
        c->max_gpus = PLAN_GPUS_MAX;
        c->rank_by = PLAN_RANK_COST;
        c->savers_allowed = PLAN_ALLOW_ALL;
        plan_price_pick_rules_defaults(&c->prices, NULL, 0);
}

void plan_train_search_result_free(struct plan_train_result *r)
{
        free(r->plans);
        free(r->excluded);
        memset(r, 0, sizeof(*r));
}

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
        struct shape *sh;

        for (size_t i = 0; i < sr->n_shapes; i++)
                if (sr->shapes[i]->gpus_per_instance == gpi &&
                    sr->shapes[i]->network_bytes_per_s == network)
                        return sr->shapes[i];
        if (sr->n_shapes == SHAPES_MAX)
                return NULL;
        if (!sr->shapes[sr->n_shapes]) {
                sr->shapes[sr->n_shapes] = malloc(sizeof(*sh));
                if (!sr->shapes[sr->n_shapes]) {
                        sr->out_of_memory = true;
                        return NULL;
                }
        }
        sh = sr->shapes[sr->n_shapes++];
        memset(sh, 0, sizeof(*sh));
        sh->gpus_per_instance = gpi;
        sh->network_bytes_per_s = network;
        return sh;
}

/* Allocations only: the caching allocator's reserve stated as none. */
static void without_reserve(struct estimate_input *x)
{
        x->set |= EST_SET_RESERVE | EST_SET_HELD;
        x->allocator_reserve_fraction = 0;
        x->allocator_held_fraction = 0;
}

/*
 * The memory table's entry for (count, st, sv): per-GPU bytes without the
 * allocator's reserve (a lower bound), 0 when the layout is not valid.
 * Worked out on first use: the table leaves out the reserve, whose replay
 * costs tens of microseconds, and most entries are never needed (a layout
 * that fits with a lighter saver never asks about the heavier ones); it
 * rules layouts out, and the full estimate of each layout run on a GPU
 * decides whether it fits.
 */
static uint64_t mem_at(struct search *sr, uint32_t count, enum est_strategy st, int sv)
{
        uint64_t *m = &(*sr->mem)[count][st][sv];

        if (*m == MEM_UNKNOWN) {
                struct estimate_input x;
                struct estimate_error e;

                layout(sr, &x, count, 1, st, (enum plan_saver)sv);
                without_reserve(&x);
                sr->out->engine_calls++;
                *m = estimate_memory_bytes(&x, &e);
        }
        return *m;
}

/* The lightest saver from `from` on with which strategy st may fit count
 * GPUs of usable bytes (by the memory table's lower bound); -1 if none. */
static int lightest_fit_from(struct search *sr, uint32_t count, enum est_strategy st,
                             uint64_t usable, int from)
{
        for (int sv = from; sv < (int)savers_used(sr); sv++) {
                uint64_t m;

                if (!sr->level_ok[sv])
                        continue; /* never fits */
                m = mem_at(sr, count, st, sv);
                if (m && m <= usable)
                        return sv;
        }
        return -1;
}

static int lightest_fit(struct search *sr, uint32_t count, enum est_strategy st, uint64_t usable)
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

/* The ranking on the keys alone: key first, within 0.01% the other
 * criterion, then fewer GPUs. */
static bool keys_better(double ka, double kb, double oa, double ob, uint32_t ga, uint32_t gb)
{
        if (fabs(ka - kb) > 1e-4 * fmax(fabs(ka), fabs(kb)))
                return ka < kb;
        if (fabs(oa - ob) > 1e-4 * fmax(fabs(oa), fabs(ob)))
                return oa < ob;
        return ga < gb;
}

static bool plan_better(const struct plan_train_plan *a, const struct plan_train_plan *b,
                        enum plan_rank rank, bool has_hours)
{
        enum plan_rank other = rank == PLAN_RANK_COST ? PLAN_RANK_TIME : PLAN_RANK_COST;

        return keys_better(plan_key(a, rank, has_hours), plan_key(b, rank, has_hours),
                           plan_key(a, other, has_hours), plan_key(b, other, has_hours), a->gpus,
                           b->gpus);
}

/* The floor of (count, st) over the saver levels allowed, worked out on first use. */
static const struct floor_memo *floor_at(struct search *sr, uint32_t count, enum est_strategy st)
{
        struct floor_memo *fm = &(*sr->floor)[count][st];

        if (fm->done)
                return fm;
        fm->done = true;
        for (int sv = 0; sv < (int)savers_used(sr); sv++) {
                struct estimate_input x;
                struct estimate_floor f;
                struct estimate_error e;

                if (!sr->level_ok[sv])
                        continue;
                /* The figures do not depend on the nodes (estimate.h). */
                layout(sr, &x, count, 1, st, (enum plan_saver)sv);
                sr->out->engine_calls++;
                if (estimate_floor_prepare(&x, &f, &e)) {
                        /* The engine refuses a level: whether a run reaches
                         * it depends on the GPU, so no floor is trusted. */
                        fm->ok = false;
                        return fm;
                }
                if (!fm->ok) {
                        fm->f = f;
                        fm->ok = true;
                        continue;
                }
                fm->f.traffic_bytes = fmin(fm->f.traffic_bytes, f.traffic_bytes);
                fm->f.blocks = fmax(fm->f.blocks, f.blocks);
                fm->f.data_seconds = fmin(fm->f.data_seconds, f.data_seconds);
                fm->f.steps = fmin(fm->f.steps, f.steps);
                fm->f.tokens_per_step = fmax(fm->f.tokens_per_step, f.tokens_per_step);
                if (f.cpu_bytes < fm->f.cpu_bytes)
                        fm->f.cpu_bytes = f.cpu_bytes;
        }
        return fm;
}

/* A floor under the CPU memory of a node of (count, st), whatever its
 * saver and instance size; 0 when there is none to trust. */
static uint64_t cpu_floor(struct search *sr, uint32_t count, enum est_strategy st)
{
        const struct floor_memo *fm = floor_at(sr, count, st);

        return fm->ok ? fm->f.cpu_bytes : 0;
}

/*
 * The ranking key of the plan the floor of layout (count GPUs in k
 * instances of network bytes/s each, strategy st) gives on GPU g at 1 USD
 * per GPU-hour, worked out as search_offering() works out a plan's
 * figures; 0 when there is no floor to trust.  Whatever saver the run ends
 * at, its plan's key is at least this (times the price, by cost).
 */
static double floor_key(struct search *sr, const struct gpu_spec *g, uint32_t count, uint32_t k,
                        enum est_strategy st, double network)
{
        const struct floor_memo *fm = floor_at(sr, count, st);
        struct plan_train_plan lb;
        bool has_hours = sr->out->has_hours;
        double step_s;

        if (!fm->ok || !(fm->f.tokens_per_step > 0))
                return 0;
        sr->floor_in.nodes = k;
        sr->floor_in.inter_node_bytes_per_s = network;
        step_s = estimate_floor_step_seconds(&sr->floor_in, &fm->f, g);
        if (!(step_s > 0) || !isfinite(step_s))
                return 0;
        /* Only the figures plan_key() reads: hours and cost when the job
         * has a dataset size, throughput and its price when not. */
        lb.gpus = count;
        if (has_hours) {
                lb.hours = step_s * fm->f.steps / 3600;
                lb.cost_usd = count * lb.hours;
        } else {
                lb.tokens_per_second = fm->f.tokens_per_step / step_s;
                lb.usd_per_million_tokens = count / 3600.0 / lb.tokens_per_second * 1e6;
        }
        return plan_key(&lb, sr->c->rank_by, has_hours);
}

/* Fill the shape's floor keys (training only: an inference run has no floor). */
static void shape_floors(struct search *sr, struct shape *sh, const struct gpu_spec *g)
{
        uint32_t gpi = (uint32_t)sh->gpus_per_instance;
        uint32_t top = sr->c->max_gpus / gpi;

        sh->floors = true;
        sh->floor_rest[top + 1] = HUGE_VAL;
        for (uint32_t k = top; k >= 1; k--) {
                uint32_t count = k * gpi;
                double least = sh->floor_rest[k + 1];

                for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                        double key = 0;

                        if (sr->training && strategy_used(sr, count, (enum est_strategy)st))
                                key = floor_key(sr, g, count, k, (enum est_strategy)st,
                                                sh->network_bytes_per_s);
                        sh->floor_key[count][st] = key;
                        if (strategy_used(sr, count, (enum est_strategy)st))
                                least = fmin(least, key);
                }
                sh->floor_rest[k] = least;
        }
}

/*
 * True when a plan whose key is at least key_floor x scale ranks after the
 * plan of key best by more than plan_better()'s tolerance (1e-3: ten
 * times it, far above rounding), so that it could not replace it.
 */
static bool after(double key_floor, double scale, double best)
{
        return key_floor * scale * (1 - 1e-3) > best;
}

/* State the allocator's reserve of layout (count, st, sv) in x, replaying
 * it on first use; false when the engine refuses the layout. */
static bool pin_reserve(struct search *sr, struct estimate_input *x, uint32_t count,
                        enum est_strategy st, enum plan_saver sv)
{
        /* DDP keeps every tensor whole on every GPU: one replay serves
         * every count.  Not with the optimizer offloaded: the engine runs
         * that as ZeRO-Offload (stage 2), which shards the gradients. */
        bool whole = st == EST_DDP && x->offload == EST_OFFLOAD_NONE;
        struct reserve_memo *r = &(*sr->rsv)[whole ? 2 : count][st][sv];
        if (!r->done) {
                struct estimate_error e;
                r->done = true;
                sr->out->engine_calls++;
                r->ok = estimate_allocator_reserve(x, &r->reserve, &r->held, &e) == 0;
        }
        x->set |= EST_SET_RESERVE | EST_SET_HELD;
        x->allocator_reserve_fraction = r->reserve;
        x->allocator_held_fraction = r->held;
        return r->ok;
}

/*
 * The prepared layout x (count GPUs in instances of gpi, strategy st,
 * saver sv, its reserve pinned), worked out on first use; NULL when the
 * engine refuses it or memory runs out.
 */
static const struct estimate_prepared *prepared(struct search *sr, const struct estimate_input *x,
                                                int gpi, uint32_t count, enum est_strategy st,
                                                int sv)
{
        struct estimate_error e;
        struct prep_memo *pm;
        uint16_t *at = NULL;
        size_t slot = 0;

        while (slot < sr->n_gpis && sr->gpis[slot] != gpi)
                slot++;
        if (slot == sr->n_gpis && slot < GPIS_MAX)
                sr->gpis[sr->n_gpis++] = gpi;
        if (slot < sr->n_gpis) {
                at = &(*sr->prep_at)[slot][count][st][sv];
                if (*at)
                        return sr->prep[*at - 1].ok ? &sr->prep[*at - 1].p : NULL;
        }
        if (sr->n_prep == sr->cap_prep) {
                size_t cap = sr->cap_prep ? 2 * sr->cap_prep : 256;
                struct prep_memo *grown = realloc(sr->prep, cap * sizeof(*grown));

                if (!grown) {
                        sr->out_of_memory = true;
                        return NULL;
                }
                sr->prep = grown;
                sr->cap_prep = cap;
        }
        pm = &sr->prep[sr->n_prep];
        sr->out->engine_calls++;
        pm->ok = estimate_prepare(x, &pm->p, &sr->res, &e) == 0;
        if (at) {
                /* Remembered; else (more instance sizes than slots) used once. */
                sr->n_prep++;
                *at = (uint16_t)sr->n_prep;
        }
        return pm->ok ? &pm->p : NULL;
}

/*
 * Time the layout in sr->scratch (prepared as pp) on g into m; false when
 * the run has no plan: no throughput figure at the precision run (the
 * engine's peak is 0), or interrupted faster than it progresses.
 */
static bool time_layout(struct search *sr, struct run_memo *m, const struct estimate_prepared *pp,
                        const struct gpu_spec *g)
{
        sr->out->engine_calls++;
        estimate_time(&sr->scratch, pp, g, &sr->res);
        m->timed = true;
        sr->rate = sr->res.peak_flops_per_gpu > 0 ? 1 : -1;
        m->no_rate = sr->rate < 0;
        /* The wall time a run really takes: interruptions, restarts and
         * checkpoint saves included (core/compute.c, goodput). */
        if (m->no_rate || (sr->res.goodput.present && !(sr->res.goodput.effective_seconds > 0))) {
                m->ok = false;
                return false;
        }
        m->total_seconds =
                sr->res.goodput.present ? sr->res.goodput.effective_seconds : sr->res.total_seconds;
        m->tokens_per_second = sr->res.tokens_per_second;
        m->seconds_per_step = sr->res.seconds_per_step;
        m->bottleneck = sr->res.bottleneck;
        return true;
}

/* Lay out saver sv of (count, k, st) in sr->scratch, its reserve pinned,
 * and return it prepared; NULL when the engine refuses it. */
static const struct estimate_prepared *lay_out(struct search *sr, uint32_t count, uint32_t k,
                                               enum est_strategy st, int sv, double network)
{
        layout(sr, &sr->scratch, count, k, st, (enum plan_saver)sv);
        sr->scratch.gpu_index = 0;
        sr->scratch.inter_node_bytes_per_s = network;
        if (!pin_reserve(sr, &sr->scratch, count, st, (enum plan_saver)sv))
                return NULL;
        /* The memory model is the same on every GPU: prepared once. */
        return prepared(sr, &sr->scratch, (int)(count / k), count, st, sv);
}

/*
 * Run the engine on GPU g for count GPUs in k instances with strategy st,
 * from saver sv (the lightest the memory table's lower bound allows) up,
 * until the full estimate - reserve included - fits; remember it in m.
 * A saver that does not fit is timed at once (a run without an end stops
 * the climb); the one that fits is timed when an offering needs its time
 * (run_timed), since one short of CPU memory may not.
 */
static void run_lightest(struct search *sr, struct run_memo *m, const struct gpu_spec *g,
                         uint32_t count, uint32_t k, enum est_strategy st, int sv, double network)
{
        for (; sv >= 0; sv = lightest_fit_from(sr, count, st, g->usable_memory_bytes, sv + 1)) {
                const struct estimate_prepared *pp = lay_out(sr, count, k, st, sv, network);

                m->saver = sv;
                m->timed = false;
                m->ok = pp != NULL;
                if (!m->ok)
                        return;
                m->per_gpu_bytes = pp->per_gpu_total_bytes;
                m->per_gpu_needed = pp->per_gpu_needed_bytes;
                m->cpu_bytes = pp->cpu_total_bytes;
                if (sr->rate < 0) { /* no rate on this GPU: no time, so no plan */
                        m->no_rate = true;
                        m->ok = false;
                        return;
                }
                if (m->per_gpu_needed <= g->usable_memory_bytes && sr->rate > 0)
                        return;
                if (!time_layout(sr, m, pp, g) || m->per_gpu_needed <= g->usable_memory_bytes)
                        return;
        }
}

/* m's time figures, worked out if not yet; false when the run has no plan. */
static bool run_timed(struct search *sr, struct run_memo *m, const struct gpu_spec *g,
                      uint32_t count, uint32_t k, enum est_strategy st, double network)
{
        const struct estimate_prepared *pp;

        if (!m->ok || m->timed)
                return m->ok;
        pp = lay_out(sr, count, k, st, m->saver, network);
        if (!pp) { /* it was prepared before: memory ran out */
                m->ok = false;
                return false;
        }
        return time_layout(sr, m, pp, g);
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
        /* Floor keys are at 1 USD per GPU-hour: a cost scales with the price. */
        double scale = c->rank_by == PLAN_RANK_COST ? per_gpu_hour : 1;
        double best_key = HUGE_VAL;
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
                /* No layout of this count or a larger one can beat the
                 * plan found: nothing left to run. */
                if (found && after(sh->floor_rest[k], scale, best_key)) {
                        sr->out->skipped++;
                        break;
                }
                for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                        struct run_memo *m = &sh->runs[count][st];
                        int sv;
                        struct plan_train_plan p;

                        if (!strategy_used(sr, count, (enum est_strategy)st))
                                continue;
                        /* A run not made yet is skipped when it cannot beat
                         * the best plan so far (the floor under its time). */
                        if (!m->done && found && after(sh->floor_key[count][st], scale, best_key)) {
                                sr->out->skipped++;
                                continue;
                        }
                        /* Short of CPU memory with a layout that held
                         * (below), one needing no less cannot change the
                         * reason: not worth its memory model either. */
                        if (!m->done && !found && o->ram_bytes > 0 && oc->gpu_fit &&
                            oc->ram_need_bytes && sr->training &&
                            cpu_floor(sr, count, (enum est_strategy)st) >= oc->ram_need_bytes) {
                                sr->out->skipped++;
                                continue;
                        }
                        /* The lower bound and the run are the same for every
                         * offering of this shape: worked out for the first. */
                        if (!m->done) {
                                m->done = true;
                                sv = lightest_fit(sr, count, (enum est_strategy)st,
                                                  g->usable_memory_bytes);
                                m->none_fits = sv < 0;
                                if (!m->none_fits)
                                        run_lightest(sr, m, g, count, k, (enum est_strategy)st, sv,
                                                     network);
                        }
                        if (m->none_fits)
                                continue;
                        sv = m->saver;
                        if (m->no_rate) {
                                oc->no_rate = true;
                                /* No layout on this GPU has a rate: nothing
                                 * else can change the outcome. */
                                if (sr->rate < 0)
                                        return false;
                        }
                        /* The engine's own full estimate must fit, not just the memory pass. */
                        if (!m->ok || m->per_gpu_needed > g->usable_memory_bytes)
                                continue;
                        /*
                         * CPU memory: the engine's CPU total is per node, and
                         * every instance is one node running gpus_per_instance
                         * processes, so it is what one instance must hold
                         * (offloaded optimizer states, checkpoint copies while
                         * loading, runtime and data loader buffers).  Short of
                         * it, a run only states the least CPU memory needed,
                         * and one needing no less than a run that held cannot
                         * change that: its time is not needed.
                         */
                        if (o->ram_bytes > 0 && m->cpu_bytes > o->ram_bytes) {
                                if (oc->gpu_fit && oc->ram_need_bytes &&
                                    m->cpu_bytes >= oc->ram_need_bytes)
                                        continue;
                                if (!run_timed(sr, m, g, count, k, (enum est_strategy)st, network))
                                        continue;
                                oc->gpu_fit = true;
                                if (!oc->ram_need_bytes || m->cpu_bytes < oc->ram_need_bytes)
                                        oc->ram_need_bytes = m->cpu_bytes;
                                continue;
                        }
                        if (!m->timed && found &&
                            after(sh->floor_key[count][st], scale, best_key)) {
                                sr->out->skipped++;
                                continue;
                        }
                        if (!run_timed(sr, m, g, count, k, (enum est_strategy)st, network))
                                continue;
                        oc->gpu_fit = true;
                        oc->any_fit = true;
                        /* The plan's figures; its input (large) is written
                         * only when it becomes the best. */
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
                                layout(sr, &best->input, count, k, (enum est_strategy)st,
                                       (enum plan_saver)sv);
                                best->input.gpu_index = 0;
                                best->input.inter_node_bytes_per_s = network;
                                best_key = plan_key(best, c->rank_by, sr->out->has_hours);
                                found = true;
                                if (!sh->floors)
                                        shape_floors(sr, sh, g);
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

/*
 * Start the memory table (mem_at() fills it as the search asks); -1 with
 * err when the request itself is refused.  Entries for layouts the search
 * never tries (a strategy not used at that count, a saver level not
 * allowed) stay 0: never fits.
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
        for (uint32_t count = 1; count <= sr->c->max_gpus; count++)
                for (int st = 0; st < EST_STRATEGY_COUNT; st++)
                        for (int sv = 0; sv < PLAN_SAVER_COUNT; sv++)
                                (*sr->mem)[count][st][sv] =
                                        strategy_used(sr, count, (enum est_strategy)st) &&
                                                        sv < (int)savers_used(sr) &&
                                                        sr->level_ok[sv]
                                                ? MEM_UNKNOWN
                                                : 0;
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
                sr->rsv = &sr->rsv_request;
                sr->floor = &sr->floor_request;
                sr->prep_at = &sr->prep_request;
                return 0;
        }
        if (sr->fp16_state == 0) {
                sr->fp16_input = *sr->request;
                sr->fp16_input.precision = EST_FP16_MIXED;
                sr->base = &sr->fp16_input;
                sr->mem = &sr->mem_fp16;
                sr->rsv = &sr->rsv_fp16;
                sr->fp16_state = memory_table(sr, &sr->fp16_error) == 0 ? 1 : -1;
        }
        sr->base = &sr->fp16_input;
        sr->mem = &sr->mem_fp16;
        sr->rsv = &sr->rsv_fp16;
        sr->floor = &sr->floor_fp16;
        sr->prep_at = &sr->prep_fp16;
        return sr->fp16_state == 1 ? 0 : -1;
}

/* The smallest per-GPU peak any layout reaches, for "does not fit" reasons. */
static uint64_t memory_floor(struct search *sr, uint32_t *count_out)
{
        uint64_t best = 0;

        for (uint32_t count = 1; count <= sr->c->max_gpus; count++)
                for (int st = 0; st < EST_STRATEGY_COUNT; st++)
                        for (int sv = 0; sv < PLAN_SAVER_COUNT; sv++) {
                                uint64_t m = (*sr->mem)[count][st][sv] == MEM_UNKNOWN
                                                     ? mem_at(sr, count, (enum est_strategy)st, sv)
                                                     : (*sr->mem)[count][st][sv];

                                if (m && (!best || m < best)) {
                                        best = m;
                                        *count_out = count;
                                }
                        }
        return best;
}

/* A plan's place in the ranking: its keys, worked out once. */
struct rank_entry {
        double key, other;
        uint32_t gpus;
        size_t at; /* index into the unsorted plans */
};

/*
 * Stable insertion sort by rank (qsort would need the rank in a global,
 * and the ranking's tolerance makes its order depend on the algorithm:
 * this one stays).  The plans are large, so their keys are sorted and the
 * plans then moved into place, one cycle of the permutation at a time.
 * Returns -1 when memory runs out (p unsorted).
 */
static int sort_plans(struct plan_train_plan *p, size_t n, enum plan_rank rank, bool has_hours)
{
        enum plan_rank other = rank == PLAN_RANK_COST ? PLAN_RANK_TIME : PLAN_RANK_COST;
        struct rank_entry *e = malloc((n + 1) * sizeof(*e));

        if (!e)
                return -1;
        for (size_t i = 0; i < n; i++) {
                struct rank_entry v = {plan_key(&p[i], rank, has_hours),
                                       plan_key(&p[i], other, has_hours), p[i].gpus, i};
                size_t j = i;

                while (j > 0 && keys_better(v.key, e[j - 1].key, v.other, e[j - 1].other, v.gpus,
                                            e[j - 1].gpus)) {
                        e[j] = e[j - 1];
                        j--;
                }
                e[j] = v;
        }
        /* Place i takes plan e[i].at; a place done points at itself. */
        for (size_t i = 0; i < n; i++) {
                struct plan_train_plan first;
                size_t j = i;

                if (e[i].at == i)
                        continue;
                first = p[i];
                while (e[j].at != i) {
                        size_t from = e[j].at;

                        p[j] = p[from];
                        e[j].at = j;
                        j = from;
                }
                p[j] = first;
                e[j].at = j;
        }
        free(e);
        return 0;
}

int plan_train_search(const struct catalog_snapshot *s, const struct estimate_input *base,
                      const struct plan_train_constraints *c, struct plan_train_result *out,
                      struct estimate_error *err)
{
        size_t n_gpus, n_off, n_providers;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        struct search *sr = calloc(1, sizeof(*sr));
        struct plan_price_rules rules = c->prices;
        struct plan_price_pick *picks;
        size_t *by_gpu = NULL, *first = NULL; /* offerings grouped by GPU, in index order */
        int rc = -1;

        memset(out, 0, sizeof(*out));
        rules.pricing = c->pricing;
        picks = plan_price_pick_all(s, &rules);
        if (!sr || !picks) {
                free(sr);
                free(picks);
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                return -1;
        }
        sr->providers = catalog_providers(s, &n_providers);
        sr->base = base;
        sr->request = base;
        sr->mem = &sr->mem_request;
        sr->rsv = &sr->rsv_request;
        sr->floor = &sr->floor_request;
        sr->prep_at = &sr->prep_request;
        sr->c = c;
        sr->out = out;
        sr->training = base->mode != EST_INFERENCE;
        out->has_hours = sr->training && (base->dataset_samples > 0 || base->dataset_tokens > 0);
        sr->cap_plans = n_off;
        sr->cap_excluded = n_gpus + n_off;
        /* Room for every offering; each entry is written whole when used
         * (hundreds of KiB that need no zeroing). */
        out->plans = malloc((sr->cap_plans + 1) * sizeof(*out->plans));
        out->excluded = malloc((sr->cap_excluded + 1) * sizeof(*out->excluded));
        by_gpu = malloc((n_off + 1) * sizeof(*by_gpu));
        first = calloc(n_gpus + 2, sizeof(*first));
        if (!out->plans || !out->excluded || !by_gpu || !first) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                goto out;
        }
        if (memory_table(sr, err))
                goto out;
        /* A counting sort: first[gi] .. first[gi + 1] are GPU gi's offerings. */
        for (size_t oi = 0; oi < n_off; oi++)
                if (off[oi].gpu_index < n_gpus)
                        first[off[oi].gpu_index + 2]++;
        for (size_t gi = 0; gi < n_gpus; gi++)
                first[gi + 2] += first[gi + 1];
        for (size_t oi = 0; oi < n_off; oi++)
                if (off[oi].gpu_index < n_gpus)
                        by_gpu[first[off[oi].gpu_index + 1]++] = oi;

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
                sr->floor_in = *sr->base;
                sr->rate = 0;
                for (uint32_t count = 1; count <= c->max_gpus; count++)
                        for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                                if (!strategy_used(sr, count, (enum est_strategy)st))
                                        continue;
                                out->evaluated += sr->n_levels_ok;
                                /* One fitting layout answers; the rest wait
                                 * until an offering asks for them. */
                                if (!fits_somewhere &&
                                    lightest_fit(sr, count, (enum est_strategy)st, usable) >= 0)
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
                for (size_t at = first[gi]; at < first[gi + 1]; at++) {
                        size_t oi = by_gpu[at];
                        const struct catalog_offering *o = &off[oi];
                        const struct catalog_price *price;
                        struct plan_train_plan best;
                        struct offering_outcome oc;

                        if (!provider_listed(c, o->provider_id))
                                continue;
                        price = picks[oi].price;
                        if (!price) {
                                char why[160];

                                if (plan_price_pick_why(&picks[oi], o, &rules, why, sizeof(why)))
                                        add_excluded(sr, gi, oi, "%s", why);
                                continue;
                        }
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
                                best.price_regions = picks[oi].regions;
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
        if (sr->out_of_memory) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                goto out;
        }
        if (sort_plans(out->plans, out->n_plans, c->rank_by, out->has_hours)) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                goto out;
        }
        rc = 0;
out:
        if (rc)
                plan_train_search_result_free(out);
        for (size_t i = 0; i < SHAPES_MAX; i++)
                free(sr->shapes[i]);
        free(sr->prep);
        free(sr);
        free(picks);
        free(by_gpu);
        free(first);
        return rc;
}

unsigned plan_train_search_savers_added(const struct estimate_input *base,
                                        const struct estimate_input *run)
{
        unsigned added = 0;

        if (run->flash_attention && !base->flash_attention)
                added |= PLAN_ALLOW_FLASH;
        if (run->checkpointing != base->checkpointing)
                added |= run->checkpointing == EST_CKPT_FULL ? PLAN_ALLOW_FULL
                                                             : PLAN_ALLOW_SELECTIVE;
        if (run->offload != base->offload)
                added |= PLAN_ALLOW_OFFLOAD;
        return added;
}
