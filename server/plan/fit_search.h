/*
 * fit_search.h - "make it fit": when a job does not fit the chosen GPU,
 * the smallest sets of combined changes that make it fit, ranked by the
 * throughput they cost (the search behind POST /api/v1/fit_options).
 *
 * The changes searched, each kept only where it applies:
 *   precision       bf16 mixed (fp16 mixed where the GPU has no bf16) or
 *                   pure bf16, from fp32 / tf32 / a mixed precision;
 *   flash attention on;
 *   checkpointing   selective or full;
 *   micro-batch     halved (down to 1) with gradient accumulation raised
 *                   by the same factor, so the global batch is kept
 *                   (inference: a smaller batch);
 *   optimizer       8-bit AdamW or paged 8-bit AdamW (from Adam/AdamW);
 *   adapters        LoRA (from a full fine-tune) or QLoRA (from a full
 *                   fine-tune or LoRA), only when the caller allows it;
 *   offload         optimizer states to CPU memory (ZeRO-Offload);
 *   more GPUs       2, 4 or 8 with FSDP full sharding (ZeRO-3 where the
 *                   optimizer is offloaded; inference: tensor parallel);
 *   quantization    inference only: int8 or int4 weights.
 * A GPU that cannot train (or has no memory figure) gets no search.
 * Every combination is sized with estimate_memory_bytes() (a lower bound
 * without the allocator's replayed reserve).  A combination is a
 * candidate when it fits and undoing any one of its changes does not
 * (a minimal set).  Each candidate is then run through estimate_run() on
 * the chosen GPU, whose own fit verdict and time decide; candidates are
 * ranked by GPU-seconds per token (GPUs / tokens per second), the
 * throughput the set costs, then by the number of changes.
 *
 * Plain structs in and out: no JSON, HTTP or SQL.
 *
 * Memory: plan_fit_search() allocates a work table and frees it before
 * returning; the result is a fixed-size value the caller owns (about
 * PLAN_FIT_OPTIONS_MAX x sizeof(struct estimate_input)).
 *
 * Thread-safety: no state between calls; any number may run at once.
 */
#ifndef GPUPLAN_PLAN_FIT_SEARCH_H
#define GPUPLAN_PLAN_FIT_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/estimate.h"

#define PLAN_FIT_OPTIONS_MAX 6
#define PLAN_FIT_GPUS_MAX    8 /* the largest GPU count the search proposes */

/* One kind of change, a bit each in plan_fit_option.changes. */
enum plan_fit_change {
        PLAN_FIT_PRECISION = 0,
        PLAN_FIT_FLASH,
        PLAN_FIT_CHECKPOINTING,
        PLAN_FIT_MICRO_BATCH,
        PLAN_FIT_OPTIMIZER,
        PLAN_FIT_ADAPTERS,
        PLAN_FIT_OFFLOAD,
        PLAN_FIT_GPUS,
        PLAN_FIT_QUANTIZATION,
        PLAN_FIT_CHANGE_COUNT
};

/* "precision", "flash_attention", ... (index = enum plan_fit_change). */
extern const char *const plan_fit_search_change_names[];

struct plan_fit_options {
        bool allow_adapters; /* LoRA / QLoRA may replace a full fine-tune */
        uint32_t max_gpus;   /* 1..PLAN_FIT_GPUS_MAX; default PLAN_FIT_GPUS_MAX */
};

struct plan_fit_option {
        unsigned changes;            /* 1 << enum plan_fit_change */
        struct estimate_input input; /* the request with the changes applied */
        uint64_t needed_bytes;       /* the engine's fit figure on the GPU */
        uint64_t per_gpu_bytes;      /* the engine's total, as nvidia-smi would show it */
        double seconds_per_step;
        double tokens_per_second; /* all GPUs */
        double gpu_seconds_per_million_tokens;
        double slowdown; /* gpu_seconds_per_million_tokens over the request's as given
                            (ignoring that it does not fit); 0 = unknown */
};

struct plan_fit_result {
        bool fits_already;                  /* the request as given fits: no options */
        enum est_fit_reason request_reason; /* why the request does not fit; with
                                               EST_FIT_CANNOT_TRAIN or _UNKNOWN_MEMORY
                                               nothing is searched */
        uint64_t usable_bytes;              /* the GPU's usable memory */
        uint64_t request_needed_bytes;
        double request_tokens_per_second;
        size_t n_options; /* ranked, best first */
        struct plan_fit_option options[PLAN_FIT_OPTIONS_MAX];
        uint64_t combinations; /* sized with estimate_memory_bytes */
        uint64_t candidates;   /* sets run through estimate_run (at most 256) */
};

/* Defaults: no adapters, up to PLAN_FIT_GPUS_MAX GPUs. */
void plan_fit_search_options_defaults(struct plan_fit_options *o);

/*
 * Search for base (a decoded estimate request naming a GPU:
 * base->gpu_index indexes gpus) the cheapest sets of changes that fit that
 * GPU.  Returns 0 and fills out (n_options may be 0: nothing searched
 * fits), or -1 with err filled when base itself is refused, names no GPU,
 * or memory runs out.
 */
int plan_fit_search(const struct estimate_input *base, const struct gpu_spec *gpus, size_t n_gpus,
                    const struct plan_fit_options *o, struct plan_fit_result *out,
                    struct estimate_error *err);

#endif
