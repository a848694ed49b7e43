/*
 * serving.h - the serving planner: the cheapest deployment of a model that
 * keeps time to first token and time per output token under their targets
 * at a given request rate.
 *
 * The search, for every catalog GPU with a rental price (or the GPUs the
 * caller names) x tensor-parallel degree (1, 2, 4, 8, no more than one
 * instance holds) x weight option (precision / quantization / KV cache
 * dtype):
 *
 *   1. memory: the engine's vLLM-style reservation (estimate_run with
 *      serving settings) gives the KV-cache capacity of one replica, hence
 *      how many sequences it holds (each its prompt and half its answer on
 *      average, the longest context fitting once; at most the engine's
 *      running-sequence limit);
 *   2. latency at load (serving_load.c over core/serving_step.c): each
 *      scheduler iteration of the engine is one pass over the running
 *      sequences' next tokens, plus prompt chunks up to the engine's
 *      batched-token budget where it mixes them (chunked prefill), or
 *      preceded by a prefill pass of its own that the prompts arriving
 *      during a block of num_scheduler_steps iterations share; its time is
 *      the roofline pass with the engine's host costs and the TP
 *      all-reduces.  At lambda requests/s the decoding sequences follow
 *      Little's law, n = lambda (G - 1) TPOT, solved with the iteration
 *      time as one fixed point; TTFT = front end + the wait for the next
 *      scheduling point + the prefill queue (M/D/1 over the prefill work)
 *      + the request's own prefill at its length quantile;
 *   3. capacity: the largest lambda one replica serves within the SLOs
 *      and its KV capacity (bisection; latency grows with lambda); a
 *      deployment asked for by name is also evaluated at the offered load,
 *      open loop or a closed loop of users, and says when it is overloaded;
 *   4. replicas = ceil(rate / capacity), packed into whole instances;
 *      cost = instances x instance price; ranked by cost per hour, then
 *      by TTFT p95.
 *
 * Pure: plain structs in and out, no JSON, HTTP or SQL.  Thread-safe; the
 * snapshot must outlive the result (plans borrow its prices).
 */
#ifndef GPUPLAN_PLAN_SERVING_H
#define GPUPLAN_PLAN_SERVING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "plan/price_pick.h"
#include "core/estimate.h"
#include "core/serving_step.h"
#include "json/field_error.h"

#define SERVING_OPTIONS_MAX     8
#define SERVING_FILTER_MAX      32
#define SERVING_TP_MAX          8
#define SERVING_FRONTIER_POINTS 10
#define SERVING_MAX_NUM_SEQS    256 /* vLLM's default max_num_seqs */

/* How prompt and output lengths spread around their means. */
enum serving_lengths {
        SERVING_LENGTHS_FIXED = 0, /* every request at the mean (random-token benchmarks) */
        SERVING_LENGTHS_EXPONENTIAL /* many short, a long tail (ShareGPT-like chat) */
};

struct serving_traffic {
        double requests_per_second; /* open loop (Poisson arrivals); 0 with concurrency */
        double concurrency;         /* closed loop: users each sending the next request when
                                       the last answer ends; 0 = open loop */
        double prompt_tokens;       /* mean */
        double output_tokens;       /* mean */
        double max_context_tokens;  /* longest prompt + output to admit; 0 = 2 x mean */
        enum serving_lengths lengths;
};

struct serving_slo {
        double ttft_p50_s; /* 0 = no target */
        double ttft_p95_s;
        double ttft_p99_s;
        double tpot_s;    /* mean time per output token at load */
        double itl_p99_s; /* between streamed chunks (prefill stalls, multi-step bursts) */
};

/* One way to hold the weights: precision, quantization, KV cache dtype. */
struct serving_option {
        enum est_precision precision;
        enum est_quant quantization;
        enum est_kv_dtype kv_dtype;
};

struct serving_constraints {
        const char *providers[SERVING_FILTER_MAX]; /* empty = every provider */
        size_t n_providers;
        const char *gpus[SERVING_FILTER_MAX]; /* empty = every GPU */
        size_t n_gpus;
        enum catalog_pricing pricing;
        uint32_t max_gpus;             /* per deployment; 0 = 64 */
        double budget_usd_per_hour;    /* 0 = none */
        double gpu_memory_utilization; /* 0 = 0.9 (vLLM's default) */
        struct plan_price_rules prices; /* regions, freshness, notebooks (pricing is taken from above) */
};

/* Latency and load of one replica at an arrival rate. */
struct serving_load {
        bool feasible;      /* stable and within the KV capacity */
        bool overloaded;    /* the offered rate exceeds what the replica serves */
        double offered_rps, delivered_rps; /* requests/s asked and served */
        double concurrency; /* sequences in flight (Little's law) */
        double ttft_p50_s, ttft_p95_s, ttft_p99_s, ttft_mean_s;
        double tpot_s; /* mean time per output token */
        double tpot_p50_s, tpot_p99_s;
        double itl_p50_s, itl_p99_s; /* between streamed chunks */
        double itl_burst_tokens;     /* tokens per streamed chunk (multi-step: k) */
        double e2e_p50_s, e2e_p99_s;
        double step_s; /* one decode iteration at this load */
        double prefill_utilisation;
        /* Closed loop: TTFT when every user (up to the running-sequence
         * limit) sends at once to an idle replica; 0 when not computed. */
        double ttft_burst_mean_s, ttft_burst_max_s;
};

/* One replica shape: a GPU, a tensor-parallel degree and a weight option. */
struct serving_config {
        size_t gpu_index;
        uint32_t tensor_parallel;
        struct serving_option option;
        struct est_speed speed;      /* per GPU of the replica */
        struct serving_step_model step; /* the engine's iteration on this shape */
        uint64_t kv_capacity_tokens; /* cache tokens one replica holds */
        uint32_t max_sequences;      /* at max_context_tokens, capped at 256 */
        double prefill_s;            /* one prompt */
};

struct serving_plan {
        struct serving_config config;
        size_t offering_index;
        const struct catalog_price *price;
        unsigned price_regions; /* regions of this instance type folded into this row (cheapest) */
        uint32_t replicas;
        uint32_t instances;
        uint32_t gpus;
        double capacity_rps;      /* all replicas within the SLOs */
        double headroom;          /* capacity / offered - 1 */
        struct serving_load load; /* per replica at the offered rate */
        double output_tokens_per_second;
        double usd_per_hour;
        double usd_per_million_output_tokens;
};

/* One replica shape asked for by name: evaluated at the offered load. */
struct serving_deployment {
        const char *gpu; /* catalog id; NULL = none asked */
        uint32_t tensor_parallel;
};

struct serving_evaluation {
        bool present;
        bool ok;             /* false: reason says why it cannot serve */
        char reason[200];
        struct serving_config config;
        struct serving_load load;
        double capacity_rps; /* the most requests/s the replica serves (overload point) */
};

struct serving_excluded {
        size_t gpu_index;
        size_t offering_index;    /* SIZE_MAX when the reason is the GPU's */
        uint32_t tensor_parallel; /* 0 when it concerns every degree */
        int option;               /* index into the request's options; -1 = all */
        char reason[200];
};

struct serving_point {
        double concurrency;
        double tpot_s;
        double ttft_s; /* one prompt with n sequences decoding */
        double output_tokens_per_second_per_gpu;
};

/* Latency against throughput of one configuration, for the frontier chart. */
struct serving_curve {
        struct serving_config config;
        struct serving_point points[SERVING_FRONTIER_POINTS];
        size_t n_points;
};

struct serving_result {
        struct serving_plan *plans; /* ranked */
        size_t n_plans;
        struct serving_excluded *excluded;
        size_t n_excluded;
        struct serving_curve *curves; /* the configurations of the best plans */
        size_t n_curves;
        uint64_t configurations; /* GPU x TP x option shapes evaluated */
        struct serving_evaluation evaluation; /* of the deployment asked for */
};

struct serving_request {
        struct estimate_input model; /* a decoded estimate request: model, framework */
        struct serving_engine engine;
        struct serving_deployment deployment;
        struct serving_option options[SERVING_OPTIONS_MAX];
        size_t n_options;
        struct serving_traffic traffic;
        struct serving_slo slo;
        struct serving_constraints constraints;
};

/*
 * Check traffic, SLOs and constraints (not the model, which the estimate
 * decoder checked).  Returns 0, or -1 with err naming the field.
 */
int serving_validate(const struct serving_request *rq, struct fields_error *err);

/*
 * Run the search.  Returns 0 (possibly with no plans: every option is in
 * excluded with its reason), or -1 with err filled when the request is
 * invalid or memory runs out.  Free with serving_result_free().
 */
int serving_search(const struct catalog_snapshot *s, const struct serving_request *rq,
                   struct serving_result *out, struct fields_error *err);
void serving_result_free(struct serving_result *r);

/*
 * Whether the engine runs its attention in fp8 with this weight option
 * where the GPU allows it (Hopper-class, with an fp8 tensor rate):
 * TensorRT-LLM with fp8 weights over an fp8 KV cache, vLLM over an fp8
 * KV cache (see build_config in serving.c).
 */
bool serving_fp8_attention(enum serving_engine_kind engine, const struct serving_option *o);

/*
 * The load model of one replica at lambda requests/s (exposed for tests):
 * fills out; out->feasible false when prefills saturate the replica or
 * the sequences in flight exceed its KV capacity.
 */
void serving_load_replica(const struct serving_config *c, const struct serving_traffic *t,
                          double lambda, struct serving_load *out);

/*
 * The same replica under a closed loop of n users (each sends its next
 * request when the last answer ends): the arrival rate that loop
 * sustains, with the wait for a free slot when n exceeds what the replica
 * runs at once.  A single user finds the replica idle each time (no wait
 * for a scheduling point, no prefill queue).
 */
void serving_load_replica_closed(const struct serving_config *c, const struct serving_traffic *t,
                                 double users, struct serving_load *out);

/* The most requests/s one replica serves at all (its saturation point). */
double serving_load_replica_max_rate(const struct serving_config *c,
                                     const struct serving_traffic *t);

/*
 * A request's TTFT past its fixed part: U, uniform over [0, window_s)
 * (the wait for the next scheduling point), plus X, exponential with mean
 * mu_s (the prompt-length-dependent part of its own prefill; 0 for fixed
 * lengths), plus Y, 0 with probability 1 - rho and else exponential with
 * mean nu_s (the prefill queue), all independent.  The q-quantile of
 * U + X + Y (0 < q < 1), as serving_load_replica reports TTFT percentiles.
 */
struct serving_ttft_spread {
        double window_s;
        double mu_s;
        double rho;
        double nu_s;
};
double serving_load_ttft_spread_quantile(const struct serving_ttft_spread *d, double q);

/* One decode step of n sequences at mean context ctx (at least one sequence). */
double serving_load_decode_step(const struct serving_config *c, double n, double ctx);

/* Whether a load meets the SLOs. */
bool serving_load_meets(const struct serving_load *l, const struct serving_slo *slo);

#endif
