/*
 * uncertainty.h - error bars on the engine's figures, from its own
 * validation.
 *
 * Every published measurement the catalog snapshot carries (memory and
 * throughput, catalog_validation_json()) is run through the engine once
 * per snapshot; each gives a ratio measured / estimated (for time, the
 * measured duration over the estimated one).  An estimate's interval is
 * the 10th to 90th percentile of the ratios of the validation cases of its
 * kind - quantity (memory, time) x workload (inference, full training,
 * LoRA / QLoRA) x one GPU or several x framework class (tuned engines:
 * Megatron-LM, vLLM, llama.cpp, ExLlama and serving-style inference;
 * plain PyTorch stacks) - as a distribution-free prediction interval:
 * the order statistics x(i) and x(j) with i = floor(0.1 (n + 1)) and
 * j = ceil(0.9 (n + 1)) hold a new case of the same kind with probability
 * (j - i) / (n + 1).  A kind with fewer than 8 cases borrows from the
 * next coarser kind (framework class dropped, then the GPU count, then the
 * workload); where (j - i) / (n + 1) falls short of 0.8 the interval is
 * widened in log space by 0.8 over it.  Cost is time times a price: it
 * carries the time interval.
 *
 * Leave-one-out coverage says whether the intervals hold what they
 * promise: the share of cases whose ratio falls inside the interval built
 * without them.
 *
 * Memory: the table is built when a snapshot is loaded
 * (api_uncertainty_prepare, which main.c hands to catalog_set_prepare), or
 * on first use for a snapshot installed without it, and attached to the
 * snapshot (catalog_attach_extra), freed with it; callers borrow it for as
 * long as they hold the snapshot.  Thread-safe: the table is read-only
 * once attached; two threads racing to build it keep one.
 */
#ifndef GPUPLAN_API_UNCERTAINTY_H
#define GPUPLAN_API_UNCERTAINTY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/estimate.h"

struct catalog_snapshot;
struct api_uncertainty;

enum api_uncertainty_quantity {
        API_UNC_MEMORY = 0,
        API_UNC_TIME,
        API_UNC_QUANTITIES
};

struct api_interval {
        bool present;      /* false: no validation case of this quantity */
        double low_ratio;  /* measured / estimated at the interval's low end */
        double high_ratio; /* ... and high end */
        unsigned cases;    /* validation cases the interval was taken from */
        bool widened;      /* too few cases for 80%: stretched to it */
        char kind[96];     /* the kind those cases share, e.g. "peft, multi_gpu, engine" */
};

/* The table for snapshot s (built on first use); NULL without a snapshot
 * or when memory runs out. */
const struct api_uncertainty *api_uncertainty_table(const struct catalog_snapshot *s);

/* Build and attach s's table (a catalog_prepare_fn): run at catalog load,
 * before s becomes current, so no request builds it. */
void api_uncertainty_prepare(const struct catalog_snapshot *s);

/* The interval for an estimate of quantity q with input in. */
void api_uncertainty_lookup(const struct api_uncertainty *u, const struct estimate_input *in,
                            enum api_uncertainty_quantity q, struct api_interval *out);

/* Leave-one-out coverage of quantity q's intervals over its cases (0..1);
 * *cases receives how many cases were tested. */
double api_uncertainty_coverage(const struct api_uncertainty *u, enum api_uncertainty_quantity q,
                                unsigned *cases);

/*
 * The interval over ratios (n of them, measured / estimated; sorted in
 * place) as described above, without borrowing; out->kind is left as is.
 * Exposed for the unit tests.
 */
void api_uncertainty_interval(double *ratios, size_t n, struct api_interval *out);

#endif
