/*
 * compare.h - the plan search behind POST /api/v1/compare: every catalog
 * GPU x GPU count x data-parallel strategy x memory savers, run through the
 * estimation engine, priced with the stored hourly prices, filtered by the
 * request's constraints and ranked.
 *
 * The search is split from the handler so that the benchmark and the unit
 * tests can call it on a snapshot without HTTP.
 *
 * Memory: compare_search() allocates the result's arrays; free them with
 * compare_result_free().  Pointers in a result (prices) borrow from the
 * snapshot, which must outlive the result.  Thread-safe: the search keeps
 * no state between calls.
 */
#ifndef GPUPLAN_API_COMPARE_H
#define GPUPLAN_API_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/estimate.h"

#define COMPARE_GPUS_MAX 64             /* the largest GPU count searched */
#define COMPARE_PROVIDERS_MAX 32

/* Memory savers layered on top of what the request already asks for. */
enum compare_saver {
        COMPARE_SAVER_NONE = 0,         /* the request as given */
        COMPARE_SAVER_FLASH,            /* fused attention */
        COMPARE_SAVER_SELECTIVE,        /* + selective activation checkpointing */
        COMPARE_SAVER_FULL,             /* + full activation checkpointing */
        COMPARE_SAVER_OFFLOAD,          /* + optimizer states offloaded to CPU memory */
        COMPARE_SAVER_COUNT
};

enum compare_rank {
        COMPARE_RANK_COST = 0,          /* cheapest first (under the deadline, if one is given) */
        COMPARE_RANK_TIME,              /* fastest first (under the budget, if one is given) */
};

/* Memory savers the search may add (compare_constraints.savers_allowed). */
#define COMPARE_ALLOW_FLASH 0x1u
#define COMPARE_ALLOW_SELECTIVE 0x2u
#define COMPARE_ALLOW_FULL 0x4u
#define COMPARE_ALLOW_OFFLOAD 0x8u
#define COMPARE_ALLOW_ALL 0xfu

struct compare_constraints {
        const char *providers[COMPARE_PROVIDERS_MAX]; /* empty = every provider */
        size_t n_providers;
        enum catalog_pricing pricing;   /* default on_demand */
        uint32_t max_gpus;              /* 1..COMPARE_GPUS_MAX; default COMPARE_GPUS_MAX */
        double deadline_hours;          /* 0 = none */
        double budget_usd;              /* 0 = none */
        enum compare_rank rank_by;
        unsigned savers_allowed;        /* COMPARE_ALLOW_*; default all; 0 = the request as given */
};

/* The best plan found for one offering. */
struct compare_plan {
        size_t gpu_index;               /* into catalog_gpus() */
        size_t offering_index;          /* into catalog_offerings() */
        const struct catalog_price *price;
        uint32_t gpus;                  /* a whole number of instances */
        uint32_t instances;
        enum est_strategy strategy;
        enum compare_saver saver;
        struct estimate_input input;    /* what the engine was run with */
        uint64_t per_gpu_bytes;         /* the engine's per-GPU peak */
        uint64_t cpu_bytes_per_instance; /* the engine's CPU total for one instance (node) */
        bool ram_unknown;               /* the catalog has no RAM figure for the instance */
        bool precision_substituted;     /* bf16 asked, GPU has none: planned at fp16 mixed */
        double hours;                   /* whole job; < 0 when the workload has no dataset size */
        double cost_usd;                /* gpus x hours x usd_per_gpu_hour; < 0 when hours unknown */
        double usd_per_gpu_hour;
        double tokens_per_second;
        double usd_per_million_tokens;  /* < 0 when throughput is unknown */
        double seconds_per_step;
        enum est_bottleneck bottleneck;
};

struct compare_excluded {
        size_t gpu_index;
        size_t offering_index;          /* SIZE_MAX when the reason concerns the GPU itself */
        char reason[200];
};

struct compare_result {
        struct compare_plan *plans;     /* ranked */
        size_t n_plans;
        struct compare_excluded *excluded;
        size_t n_excluded;
        uint64_t evaluated;             /* GPU x count x strategy x saver points checked */
        uint64_t engine_calls;          /* estimate_memory_bytes + estimate_run calls */
        bool has_hours;                 /* the workload has a dataset size: hours and costs are known */
};

/* Defaults: every provider, on_demand, 64 GPUs, no deadline or budget, by cost. */
void compare_constraints_defaults(struct compare_constraints *c);

/*
 * Search the plan space for base (a decoded estimate request; its own
 * parallelism settings are replaced by the search, its memory savers are
 * kept as the minimum).  Returns 0, or -1 with err filled when base itself
 * is refused by the engine (before any GPU is considered) or memory runs out.
 */
int compare_search(const struct catalog_snapshot *s, const struct estimate_input *base,
                   const struct compare_constraints *c, struct compare_result *out,
                   struct estimate_error *err);
void compare_result_free(struct compare_result *r);

/* The response document (see openapi.yaml CompareResponse). */
json_t *compare_result_json(const struct catalog_snapshot *s, const struct estimate_input *base,
                            const struct compare_constraints *c, const struct compare_result *r);

/* "flash_attention", "selective_checkpointing", ... for each saver step a plan adds. */
json_t *compare_savers_json(const struct estimate_input *base, const struct estimate_input *run);

#endif
