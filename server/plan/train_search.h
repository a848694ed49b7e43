/*
 * train_search.h - the plan search behind POST /api/v1/compare: every
 * catalog GPU x GPU count x data-parallel strategy x memory savers, run
 * through the estimation engine, priced with the stored hourly prices,
 * filtered by the constraints and ranked.  An inference workload is
 * searched too (tensor parallel inside one instance); the name follows the
 * common case, a training job looking for somewhere to run.
 *
 * Plain structs in and out: no JSON, HTTP or SQL, so the API layer, the
 * benchmark and the unit tests call the same function on a snapshot.
 *
 * Memory: plan_train_search() allocates the result's arrays; free them with
 * plan_train_search_result_free().  Pointers in a result (prices) borrow from the
 * snapshot, which must outlive the result, and constraint provider ids are
 * borrowed from the caller for the duration of the call.
 *
 * Work shared within one search: each layout's memory model is built once
 * (estimate_prepare) and timed on every GPU (estimate_time); the memory
 * table is filled where the search first asks.  Work skipped: once an
 * offering has a plan, a layout whose time floor (estimate_floor: its
 * data-parallel traffic and input pipeline alone) already ranks it after
 * that plan is not run - with the default 10 Gb/s between instances, most
 * layouts of several instances.  The plans are the ones an exhaustive
 * search gives (tests/unit/test_train_search_reference.c).
 *
 * Thread-safety: the search keeps no state between calls; any number may
 * run at once on one snapshot.
 */
#ifndef GPUPLAN_PLAN_TRAIN_SEARCH_H
#define GPUPLAN_PLAN_TRAIN_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "core/estimate.h"
#include "plan/price_pick.h"

#define PLAN_GPUS_MAX      64 /* the largest GPU count searched */
#define PLAN_PROVIDERS_MAX 32

/* Memory savers layered on top of what the request already asks for. */
enum plan_saver {
        PLAN_SAVER_NONE = 0,  /* the request as given */
        PLAN_SAVER_FLASH,     /* fused attention */
        PLAN_SAVER_SELECTIVE, /* + selective activation checkpointing */
        PLAN_SAVER_FULL,      /* + full activation checkpointing */
        PLAN_SAVER_OFFLOAD,   /* + optimizer states offloaded to CPU memory */
        PLAN_SAVER_COUNT
};

enum plan_rank {
        PLAN_RANK_COST = 0, /* cheapest first (under the deadline, if one is given) */
        PLAN_RANK_TIME,     /* fastest first (under the budget, if one is given) */
};

/* Memory savers the search may add (plan_train_constraints.savers_allowed). */
#define PLAN_ALLOW_FLASH     0x1u
#define PLAN_ALLOW_SELECTIVE 0x2u
#define PLAN_ALLOW_FULL      0x4u
#define PLAN_ALLOW_OFFLOAD   0x8u
#define PLAN_ALLOW_ALL       0xfu

struct plan_train_constraints {
        const char *providers[PLAN_PROVIDERS_MAX]; /* empty = every provider */
        size_t n_providers;
        enum catalog_pricing pricing; /* default on_demand */
        uint32_t max_gpus;            /* 1..PLAN_GPUS_MAX; default PLAN_GPUS_MAX */
        double deadline_hours;        /* 0 = none */
        double budget_usd;            /* 0 = none */
        enum plan_rank rank_by;
        unsigned savers_allowed; /* PLAN_ALLOW_*; default all; 0 = the request as given */
        struct plan_price_rules prices; /* regions, freshness, notebooks (pricing is taken from above) */
};

/* The best plan found for one offering. */
struct plan_train_plan {
        size_t gpu_index;      /* into catalog_gpus() */
        size_t offering_index; /* into catalog_offerings() */
        const struct catalog_price *price;
        unsigned price_regions; /* regions of this instance type folded into this row (cheapest) */
        uint32_t gpus; /* a whole number of instances */
        uint32_t instances;
        enum est_strategy strategy;
        enum plan_saver saver;
        struct estimate_input input;     /* what the engine was run with */
        uint64_t per_gpu_bytes;          /* the engine's per-GPU peak */
        uint64_t cpu_bytes_per_instance; /* the engine's CPU total for one instance (node) */
        bool ram_unknown;                /* the catalog has no RAM figure for the instance */
        bool precision_substituted;      /* bf16 asked, GPU has none: planned at fp16 mixed */
        double hours;                    /* whole job; < 0 when the workload has no dataset size */
        double cost_usd; /* gpus x hours x usd_per_gpu_hour; < 0 when hours unknown */
        double usd_per_gpu_hour;
        double tokens_per_second;
        double usd_per_million_tokens; /* < 0 when throughput is unknown */
        double seconds_per_step;
        enum est_bottleneck bottleneck;
};

struct plan_train_excluded {
        size_t gpu_index;
        size_t offering_index; /* SIZE_MAX when the reason concerns the GPU itself */
        char reason[200];
};

struct plan_train_result {
        struct plan_train_plan *plans; /* ranked */
        size_t n_plans;
        struct plan_train_excluded *excluded;
        size_t n_excluded;
        uint64_t evaluated;    /* GPU x count x strategy x saver points checked */
        uint64_t engine_calls; /* memory-table entries, time floors, allocator
                                  replays, layouts prepared, layouts timed on a GPU */
        uint64_t skipped;      /* (GPU, shape, count, strategy) runs not made: the
                                  floor under their time ranks them after the
                                  offering's best plan */
        bool has_hours;        /* the workload has a dataset size: hours and costs are known */
};

/* Defaults: every provider, on_demand, 64 GPUs, no deadline or budget, by cost. */
void plan_train_search_constraints_defaults(struct plan_train_constraints *c);

/*
 * Search the plan space for base (a decoded estimate request; its own
 * parallelism settings are replaced by the search, its memory savers are
 * kept as the minimum).  Returns 0, or -1 with err filled when base itself
 * is refused by the engine (before any GPU is considered) or memory runs out.
 */
int plan_train_search(const struct catalog_snapshot *s, const struct estimate_input *base,
                      const struct plan_train_constraints *c, struct plan_train_result *out,
                      struct estimate_error *err);
void plan_train_search_result_free(struct plan_train_result *r);

/*
 * The savers a run adds to base, as PLAN_ALLOW_* bits (one checkpointing
 * bit at most: full replaces selective).  For labelling a plan.
 */
unsigned plan_train_search_savers_added(const struct estimate_input *base,
                                        const struct estimate_input *run);

#endif
