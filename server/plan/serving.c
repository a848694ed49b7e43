/*
 * serving.c - the serving planner (see serving.h for the model).
 */
#include "plan/serving.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRAFFIC_RPS_MAX     1e6
#define TOKENS_MAX          16777216.0
#define SLO_SECONDS_MAX     3600.0
#define DEPLOYMENT_GPUS_MAX 64
#define BISECTION_STEPS     30
#define CURVES_MAX          6

/* The longest context to admit: as stated, else twice the mean (within the limit). */
static double max_context(const struct serving_traffic *t)
{
        if (t->max_context_tokens > 0)
                return t->max_context_tokens;
        return fmax(fmin(2 * (t->prompt_tokens + t->output_tokens), TOKENS_MAX),
                    t->prompt_tokens + t->output_tokens);
}

int serving_validate(const struct serving_request *rq, struct fields_error *err)
{
        const struct serving_traffic *t = &rq->traffic;
        const struct serving_slo *s = &rq->slo;

        memset(err, 0, sizeof(*err));
        if (t->concurrency != 0) {
                if (!(t->concurrency >= 1) || t->concurrency > 65536)
                        return field_error_fail(err, 400, "/traffic/concurrency", "range",
                                                "concurrency must be 1..65536");
                if (t->requests_per_second != 0)
                        return field_error_fail(
                                err, 400, "/traffic/concurrency", "contradiction",
                                "give requests_per_second (open loop) or concurrency "
                                "(closed loop), not both");
                if (!rq->deployment.gpu)
                        return field_error_fail(
                                err, 400, "/traffic/concurrency", "contradiction",
                                "a fixed concurrency is evaluated on one deployment: "
                                "name it in deployment {gpu, tensor_parallel}");
        } else if (!(t->requests_per_second > 0) || t->requests_per_second > TRAFFIC_RPS_MAX)
                return field_error_fail(err, 400, "/traffic/requests_per_second", "range",
                                        "requests_per_second must be above 0 and at most 1000000");
        if (!(t->prompt_tokens >= 1) || t->prompt_tokens > TOKENS_MAX)
                return field_error_fail(err, 400, "/traffic/prompt_tokens", "range",
                                        "prompt_tokens must be 1..16777216");
        if (!(t->output_tokens >= 1) || t->output_tokens > TOKENS_MAX)
                return field_error_fail(err, 400, "/traffic/output_tokens", "range",
                                        "output_tokens must be 1..16777216");
        if (t->prompt_tokens + t->output_tokens > TOKENS_MAX)
                return field_error_fail(err, 400, "/traffic/output_tokens", "range",
                                        "prompt_tokens + output_tokens must be at most 16777216");
        if (t->max_context_tokens != 0 &&
            t->max_context_tokens < t->prompt_tokens + t->output_tokens)
                return field_error_fail(
                        err, 400, "/traffic/max_context_tokens", "contradiction",
                        "max_context_tokens must be at least prompt_tokens + output_tokens "
                        "(%.0f)",
                        t->prompt_tokens + t->output_tokens);
        if (max_context(t) > TOKENS_MAX)
                return field_error_fail(err, 400, "/traffic/max_context_tokens", "range",
                                        "the longest context must be at most 16777216 tokens");
        if (s->ttft_p50_s < 0 || s->ttft_p50_s > SLO_SECONDS_MAX)
                return field_error_fail(err, 400, "/slo/ttft_p50_ms", "range",
                                        "ttft_p50_ms must be above 0 and at most 3600000");
        if (s->ttft_p95_s < 0 || s->ttft_p95_s > SLO_SECONDS_MAX)
                return field_error_fail(err, 400, "/slo/ttft_p95_ms", "range",
                                        "ttft_p95_ms must be above 0 and at most 3600000");
        if (s->tpot_s < 0 || s->tpot_s > SLO_SECONDS_MAX)
                return field_error_fail(err, 400, "/slo/tpot_ms", "range",
                                        "tpot_ms must be above 0 and at most 3600000");
        if (s->ttft_p50_s > 0 && s->ttft_p95_s > 0 && s->ttft_p50_s > s->ttft_p95_s)
                return field_error_fail(err, 400, "/slo/ttft_p50_ms", "contradiction",
                                        "ttft_p50_ms cannot exceed ttft_p95_ms");
        if (s->ttft_p99_s < 0 || s->ttft_p99_s > SLO_SECONDS_MAX || s->itl_p99_s < 0 ||
            s->itl_p99_s > SLO_SECONDS_MAX)
                return field_error_fail(err, 400, "/slo", "range",
                                        "targets must be above 0 and at most 3600000 ms");
        if (s->ttft_p95_s > 0 && s->ttft_p99_s > 0 && s->ttft_p95_s > s->ttft_p99_s)
                return field_error_fail(err, 400, "/slo/ttft_p95_ms", "contradiction",
                                        "ttft_p95_ms cannot exceed ttft_p99_ms");
        if (s->ttft_p50_s == 0 && s->ttft_p95_s == 0 && s->ttft_p99_s == 0 && s->tpot_s == 0 &&
            s->itl_p99_s == 0 && !rq->deployment.gpu)
                return field_error_fail(
                        err, 400, "/slo", "required",
                        "state at least one of ttft_p50_ms, ttft_p95_ms, ttft_p99_ms, "
                        "tpot_ms, itl_p99_ms");
        if (rq->constraints.max_gpus > DEPLOYMENT_GPUS_MAX)
                return field_error_fail(err, 400, "/constraints/max_gpus", "range",
                                        "max_gpus must be 1..64");
        if (rq->constraints.budget_usd_per_hour < 0)
                return field_error_fail(err, 400, "/constraints/budget_usd_per_hour", "range",
                                        "budget_usd_per_hour must be positive");
        if (rq->deployment.gpu &&
            (rq->deployment.tensor_parallel < 1 || rq->deployment.tensor_parallel > SERVING_TP_MAX))
                return field_error_fail(err, 400, "/deployment/tensor_parallel", "range",
                                        "tensor_parallel must be 1..8 (one instance)");
        if (rq->n_options == 0 || rq->n_options > SERVING_OPTIONS_MAX)
                return field_error_fail(err, 400, "/options", "range",
                                        "between 1 and 8 weight options");
        return 0;
}

/* ---- the search ---------------------------------------------------------- */

struct search {
        const struct catalog_snapshot *snap;
        const struct serving_request *rq;
        const struct gpu_spec *gpus;
        size_t n_gpus;
        struct serving_result *out;
        size_t cap_plans, cap_excluded;
        struct estimate_result *res; /* scratch */
};

static void exclude(struct search *s, size_t gi, size_t oi, uint32_t tp, int option,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void exclude(struct search *s, size_t gi, size_t oi, uint32_t tp, int option,
                    const char *fmt, ...)
{
        struct serving_result *r = s->out;
        va_list ap;

        if (r->n_excluded == s->cap_excluded) {
                size_t cap = s->cap_excluded ? 2 * s->cap_excluded : 64;
                struct serving_excluded *e = realloc(r->excluded, cap * sizeof(*e));
                if (!e)
                        return;
                r->excluded = e;
                s->cap_excluded = cap;
        }
        struct serving_excluded *e = &r->excluded[r->n_excluded++];
        e->gpu_index = gi;
        e->offering_index = oi;
        e->tensor_parallel = tp;
        e->option = option;
        va_start(ap, fmt);
        vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
        va_end(ap);
}

static bool listed(const char *const *names, size_t n, const char *id)
{
        if (n == 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (!strcmp(names[i], id))
                        return true;
        return false;
}

/*
 * Build one replica shape through the engine.  Returns 0, or -1 after
 * recording why the shape cannot serve (refused, does not fit, no rate).
 */
bool serving_fp8_attention(enum serving_engine_kind engine, const struct serving_option *o)
{
        if (o->kv_dtype != EST_KV_FP8)
                return false;
        return engine == SERVING_ENGINE_VLLM ||
               (engine == SERVING_ENGINE_TRTLLM && o->quantization == EST_QUANT_FP8);
}

static int build_config(struct search *s, size_t gi, uint32_t tp, int oi, struct serving_config *c)
{
        const struct serving_request *rq = s->rq;
        const struct serving_traffic *t = &rq->traffic;
        const struct serving_option *o = &rq->options[oi];
        struct estimate_input x = rq->model;
        struct estimate_error ee;
        struct estimate_result *r = s->res;
        double ctx = max_context(t);

        x.mode = EST_INFERENCE;
        x.batch_size = 1;
        x.prompt_tokens = (uint32_t)llround(t->prompt_tokens);
        x.generated_tokens = (uint32_t)llround(t->output_tokens);
        x.sequence_length = x.prompt_tokens + x.generated_tokens;
        x.precision = o->precision;
        x.quantization = o->quantization;
        x.kv_dtype = o->kv_dtype;
        x.tensor_parallel = tp;
        x.pipeline_parallel = 1;
        x.gpus = tp;
        x.nodes = 1;
        x.strategy = EST_SINGLE;
        x.gpu_index = (int)gi;
        x.gpu_memory_utilization = rq->constraints.gpu_memory_utilization;
        if (x.mfu > 0)
                x.mfu = 0; /* the pass model, not a flat utilisation */
        if (estimate_run(&x, s->gpus, s->n_gpus, r, &ee)) {
                exclude(s, gi, SIZE_MAX, tp, oi, "%s", ee.detail);
                return -1;
        }
        if (r->precision_unsupported && x.precision == EST_BF16) {
                /* Before compute capability 8.0 there is no bf16 (V100, T4):
                 * serving engines load such checkpoints in fp16 there (vLLM
                 * casts to float16 and says so), same bytes per weight. */
                x.precision = EST_FP16;
                if (estimate_run(&x, s->gpus, s->n_gpus, r, &ee)) {
                        exclude(s, gi, SIZE_MAX, tp, oi, "%s", ee.detail);
                        return -1;
                }
        }
        if (r->precision_unsupported) {
                exclude(s, gi, SIZE_MAX, tp, oi, "%s has no %s tensor rate", s->gpus[gi].name,
                        estimate_precision_name(x.precision));
                return -1;
        }
        if (!(r->speed.peak > 0) || !(r->speed.bandwidth > 0)) {
                exclude(s, gi, SIZE_MAX, tp, oi,
                        "the catalog has no throughput or bandwidth figure for %s",
                        s->gpus[gi].name);
                return -1;
        }
        if (r->serving_kv_bytes == 0 || r->kv_bytes_per_token == 0) {
                exclude(s, gi, SIZE_MAX, tp, oi,
                        "the weights (%.1f GiB per GPU) and the serving engine's activation "
                        "reserve leave no KV cache in the %.0f%% reservation of %.1f GiB",
                        (double)r->per_gpu[EST_C_WEIGHTS] / 1073741824.0,
                        (x.gpu_memory_utilization > 0 ? x.gpu_memory_utilization : 0.9) * 100,
                        (double)r->serving_budget_bytes / 1073741824.0);
                return -1;
        }
        memset(c, 0, sizeof(*c));
        c->gpu_index = gi;
        c->tensor_parallel = tp;
        c->option = *o;
        c->option.precision = x.precision; /* fp16 where the GPU has no bf16 */
        c->speed = r->speed;
        c->speed.kv_bytes = (double)r->kv_bytes_per_token;
        uint64_t kv_bytes = r->serving_kv_bytes;
        if (rq->engine.kind == SERVING_ENGINE_TRTLLM) {
                /* TensorRT-LLM sizes its cache as a fraction (free_gpu_memory_fraction,
                 * 0.9 by default) of the memory left free after the weights and
                 * activations, not of the whole GPU as vLLM's gpu_memory_utilization
                 * does (nvidia.github.io/TensorRT-LLM/examples/kvcacheconfig.html):
                 * kv = f (usable - other), where the vLLM reading gave
                 * f usable - other; the difference is (1 - f) other. */
                double f = x.gpu_memory_utilization > 0 ? x.gpu_memory_utilization : 0.9;
                double other = (double)r->serving_budget_bytes - (double)r->serving_kv_bytes;
                if (other > 0)
                        kv_bytes += (uint64_t)llround((1 - f) * other);
        }
        c->kv_capacity_tokens = kv_bytes / r->kv_bytes_per_token;
        /* Paged caches (vLLM, SGLang, TensorRT-LLM) hold what a sequence has
         * written so far: P + G / 2 on average while it runs; the longest
         * context must still fit once. */
        double held = t->prompt_tokens + t->output_tokens / 2;
        /* TensorRT-LLM's default capacity scheduler, GUARANTEED_NO_EVICT,
         * admits a request only when the blocks for its whole context
         * (prompt + max tokens) are free, so it never has to evict one
         * (TensorRT-LLM docs, "Scheduler": CapacitySchedulerPolicy). */
        if (rq->engine.kind == SERVING_ENGINE_TRTLLM)
                held = t->prompt_tokens + t->output_tokens;
        double seqs = (double)c->kv_capacity_tokens < ctx ? 0
                                                          : floor((double)c->kv_capacity_tokens / held);
        if (seqs < 1) {
                exclude(s, gi, SIZE_MAX, tp, oi,
                        "the KV cache holds %llu tokens, less than one %.0f-token context",
                        (unsigned long long)c->kv_capacity_tokens, ctx);
                return -1;
        }
        uint32_t engine_seqs = rq->engine.max_sequences ? rq->engine.max_sequences
                                                        : SERVING_MAX_NUM_SEQS;
        c->max_sequences = seqs > engine_seqs ? engine_seqs : (uint32_t)seqs;
        const struct gpu_spec *g = &s->gpus[gi];
        /* Hopper-class: speed.c's test (>= 500 TFLOP/s bf16) */
        bool hopper = !strcmp(g->vendor, "NVIDIA") && g->flops[GPU_BF16] >= 500e12;
        serving_step_model_init(&c->step, &c->speed, &rq->engine, tp,
                                (double)rq->model.arch.layers + rq->model.arch.decoder_layers,
                                g->link == GPU_LINK_NVLINK, hopper);
        /* fp8 attention over an fp8 cache: TensorRT-LLM's FP8 context FMHA
         * on Hopper, which its docs recommend with fp8 quantization and its
         * own benchmark builds (NVIDIA/TensorRT-LLM,
         * docs/source/performance/perf-best-practices.md, "FP8 Context Fused
         * Multi-Head Attention", Hopper only; tensorrt_llm/bench/build/build.py:
         * use_fp8_context_fmha for QuantAlgo.FP8), and vLLM's FlashAttention-3
         * backend (Hopper), which with an fp8 KV cache also runs the attention
         * in fp8 (vLLM docs, features/quantization/quantized_kvcache.md). */
        enum gpu_precision cp = x.precision == EST_FP16 ? GPU_FP16 : GPU_BF16;
        if (hopper && g->flops[GPU_FP8] > 0 && g->flops[cp] > 0 &&
            serving_fp8_attention(rq->engine.kind, o))
                serving_step_fp8_attention(&c->step, g->flops[GPU_FP8] / g->flops[cp]);
        c->prefill_s = speed_pass_seconds(&c->speed, t->prompt_tokens, t->prompt_tokens / 2, 0);
        if (!(c->prefill_s > 0)) {
                exclude(s, gi, SIZE_MAX, tp, oi, "no time figure for %s", g->name);
                return -1;
        }
        return 0;
}

/* The most requests/s one replica serves within the SLOs; 0 if none. */
static double replica_capacity(const struct serving_config *c, const struct serving_request *rq)
{
        struct serving_load l;
        double lo = 0, hi = 1.0 / c->prefill_s;

        serving_load_replica(c, &rq->traffic, hi * 1e-9, &l);
        if (!serving_load_meets(&l, &rq->slo))
                return 0;
        /* Chunked prefill can carry more than one standalone prefill a pass
         * time: widen until the replica no longer keeps up. */
        for (int i = 0; i < 20; i++) {
                serving_load_replica(c, &rq->traffic, hi, &l);
                if (!serving_load_meets(&l, &rq->slo))
                        break;
                lo = hi;
                hi *= 2;
        }
        for (int i = 0; i < BISECTION_STEPS; i++) {
                double mid = (lo + hi) / 2;
                serving_load_replica(c, &rq->traffic, mid, &l);
                if (serving_load_meets(&l, &rq->slo))
                        lo = mid;
                else
                        hi = mid;
        }
        return lo;
}

/* The deployment asked for by name, at the offered load (priced or not). */
static void evaluate_deployment(struct search *s)
{
        const struct serving_request *rq = s->rq;
        struct serving_evaluation *ev = &s->out->evaluation;
        size_t gi = catalog_gpu_index(s->snap, rq->deployment.gpu);
        size_t before = s->out->n_excluded;

        memset(ev, 0, sizeof(*ev));
        ev->present = true;
        uint32_t tp = rq->deployment.tensor_parallel;
        if (tp > 1 && (rq->model.arch.heads % tp || rq->model.arch.kv_heads == 0)) {
                snprintf(ev->reason, sizeof(ev->reason),
                         "%u attention heads do not split over %u GPUs", rq->model.arch.heads, tp);
                return;
        }
        if (build_config(s, gi, rq->deployment.tensor_parallel, 0, &ev->config)) {
                snprintf(ev->reason, sizeof(ev->reason), "%s",
                         s->out->n_excluded > before ? s->out->excluded[before].reason
                                                     : "cannot be built");
                s->out->n_excluded = before; /* said here, not in the search's list */
                return;
        }
        ev->ok = true;
        ev->capacity_rps = serving_load_replica_max_rate(&ev->config, &rq->traffic);
        if (rq->traffic.concurrency > 0)
                serving_load_replica_closed(&ev->config, &rq->traffic, rq->traffic.concurrency,
                                            &ev->load);
        else
                serving_load_replica(&ev->config, &rq->traffic, rq->traffic.requests_per_second,
                                     &ev->load);
}

/* Why a shape misses the SLOs even with a single request in flight. */
static void exclude_unloaded(struct search *s, const struct serving_config *c, int oi)
{
        const struct serving_slo *slo = &s->rq->slo;
        struct serving_load l;

        serving_load_replica(c, &s->rq->traffic, 1e-9 / c->prefill_s, &l);
        if (slo->tpot_s > 0 && l.tpot_s > slo->tpot_s)
                exclude(s, c->gpu_index, SIZE_MAX, c->tensor_parallel, oi,
                        "time per output token %.1f ms with one sequence exceeds the %.1f ms "
                        "target",
                        l.tpot_s * 1e3, slo->tpot_s * 1e3);
        else if (slo->ttft_p95_s > 0 && l.ttft_p95_s > slo->ttft_p95_s)
                exclude(s, c->gpu_index, SIZE_MAX, c->tensor_parallel, oi,
                        "time to first token %.0f ms for one prompt exceeds the p95 target of "
                        "%.0f ms",
                        l.ttft_p95_s * 1e3, slo->ttft_p95_s * 1e3);
        else if (slo->ttft_p50_s > 0 && l.ttft_p50_s > slo->ttft_p50_s)
                exclude(s, c->gpu_index, SIZE_MAX, c->tensor_parallel, oi,
                        "time to first token %.0f ms for one prompt exceeds the p50 target of "
                        "%.0f ms",
                        l.ttft_p50_s * 1e3, slo->ttft_p50_s * 1e3);
        else if (slo->ttft_p99_s > 0 && l.ttft_p99_s > slo->ttft_p99_s)
                exclude(s, c->gpu_index, SIZE_MAX, c->tensor_parallel, oi,
                        "time to first token %.0f ms for one prompt exceeds the p99 target of "
                        "%.0f ms",
                        l.ttft_p99_s * 1e3, slo->ttft_p99_s * 1e3);
        else if (slo->itl_p99_s > 0 && l.itl_p99_s > slo->itl_p99_s)
                exclude(s, c->gpu_index, SIZE_MAX, c->tensor_parallel, oi,
                        "inter-token latency p99 %.1f ms with one sequence exceeds the %.1f ms "
                        "target",
                        l.itl_p99_s * 1e3, slo->itl_p99_s * 1e3);
        else
                exclude(s, c->gpu_index, SIZE_MAX, c->tensor_parallel, oi,
                        "cannot hold one %.0f-token sequence at the targets",
                        max_context(&s->rq->traffic));
}

/* The plan of one offering on one shape; false when it cannot be deployed. */
static bool plan_offering(struct search *s, const struct serving_config *c, double capacity,
                          size_t oi, const struct catalog_offering *off,
                          const struct catalog_price *price, struct serving_plan *p)
{
        const struct serving_request *rq = s->rq;
        uint32_t max_gpus =
                rq->constraints.max_gpus ? rq->constraints.max_gpus : DEPLOYMENT_GPUS_MAX;
        double rate = rq->traffic.requests_per_second;
        int gpi = off->gpus_per_instance > 0 ? off->gpus_per_instance : 1;

        if ((int)c->tensor_parallel > gpi)
                return false;
        uint32_t per_instance = (uint32_t)gpi / c->tensor_parallel;
        double needed = ceil(rate / capacity - 1e-9);
        if (needed < 1)
                needed = 1;
        double instances = ceil(needed / per_instance);
        if (instances * gpi > max_gpus)
                return false;
        memset(p, 0, sizeof(*p));
        p->config = *c;
        p->offering_index = oi;
        p->price = price;
        p->instances = (uint32_t)instances;
        p->replicas = p->instances * per_instance; /* whole instances: fill them */
        p->gpus = p->instances * (uint32_t)gpi;
        p->capacity_rps = capacity * p->replicas;
        p->headroom = p->capacity_rps / rate - 1;
        serving_load_replica(c, &rq->traffic, rate / p->replicas, &p->load);
        p->output_tokens_per_second = rate * rq->traffic.output_tokens;
        p->usd_per_hour = instances * price->usd_per_hour;
        p->usd_per_million_output_tokens =
                p->usd_per_hour / (p->output_tokens_per_second * 3600) * 1e6;
        return true;
}

static int plan_cmp(const void *a, const void *b)
{
        const struct serving_plan *x = a, *y = b;
        if (x->usd_per_hour != y->usd_per_hour)
                return x->usd_per_hour < y->usd_per_hour ? -1 : 1;
        if (x->load.ttft_p95_s != y->load.ttft_p95_s)
                return x->load.ttft_p95_s < y->load.ttft_p95_s ? -1 : 1;
        return (x->offering_index > y->offering_index) - (x->offering_index < y->offering_index);
}

static bool same_config(const struct serving_config *a, const struct serving_config *b)
{
        return a->gpu_index == b->gpu_index && a->tensor_parallel == b->tensor_parallel &&
               !memcmp(&a->option, &b->option, sizeof(a->option));
}

static void build_curves(struct search *s)
{
        struct serving_result *r = s->out;
        const struct serving_traffic *t = &s->rq->traffic;
        double ctx = t->prompt_tokens + t->output_tokens / 2;

        r->curves = calloc(CURVES_MAX, sizeof(*r->curves));
        if (!r->curves)
                return;
        for (size_t i = 0; i < r->n_plans && r->n_curves < CURVES_MAX; i++) {
                const struct serving_config *c = &r->plans[i].config;
                bool seen = false;
                for (size_t j = 0; j < r->n_curves; j++)
                        seen = seen || same_config(&r->curves[j].config, c);
                if (seen)
                        continue;
                struct serving_curve *cv = &r->curves[r->n_curves++];
                cv->config = *c;
                for (double n = 1; n <= c->max_sequences && cv->n_points < SERVING_FRONTIER_POINTS;
                     n *= 2) {
                        struct serving_point *pt = &cv->points[cv->n_points++];
                        double step = serving_load_decode_step(c, n, ctx);
                        pt->concurrency = n;
                        pt->tpot_s = step;
                        pt->ttft_s = c->prefill_s + step / 2;
                        pt->output_tokens_per_second_per_gpu = n / step / c->tensor_parallel;
                }
        }
}

int serving_search(const struct catalog_snapshot *snap, const struct serving_request *rq,
                   struct serving_result *out, struct fields_error *err)
{
        struct search s = {.snap = snap, .rq = rq, .out = out};
        size_t n_off = 0;
        const struct catalog_offering *offs = catalog_offerings(snap, &n_off);
        const struct catalog_provider *provs = catalog_providers(snap, &(size_t){0});
        static const uint32_t degrees[] = {1, 2, 4, 8};

        memset(out, 0, sizeof(*out));
        if (serving_validate(rq, err))
                return -1;
        s.gpus = catalog_gpus(snap, &s.n_gpus);
        /* an unknown id: 400 "exists" at the element, as every endpoint says it */
        char at[48];
        for (size_t i = 0; i < rq->constraints.n_gpus; i++)
                if (catalog_gpu_index(snap, rq->constraints.gpus[i]) == SIZE_MAX) {
                        snprintf(at, sizeof(at), "/constraints/gpus/%zu", i);
                        return field_error_fail(err, 400, at, "exists",
                                                "no catalog GPU \"%.80s\" (GET /api/v1/gpus)",
                                                rq->constraints.gpus[i]);
                }
        for (size_t i = 0; i < rq->constraints.n_providers; i++)
                if (!catalog_provider(snap, rq->constraints.providers[i])) {
                        snprintf(at, sizeof(at), "/constraints/providers/%zu", i);
                        return field_error_fail(
                                err, 400, at, "exists",
                                "no catalog provider \"%.80s\" (GET /api/v1/providers)",
                                rq->constraints.providers[i]);
                }
        if (rq->deployment.gpu && catalog_gpu_index(snap, rq->deployment.gpu) == SIZE_MAX)
                return field_error_fail(err, 400, "/deployment/gpu", "exists",
                                        "no catalog GPU \"%.80s\" (GET /api/v1/gpus)",
                                        rq->deployment.gpu);
        struct plan_price_rules rules = rq->constraints.prices;
        rules.pricing = rq->constraints.pricing;
        struct plan_price_pick *picks = plan_price_pick_all(snap, &rules);
        s.res = malloc(sizeof(*s.res));
        if (!s.res || !picks) {
                free(s.res);
                free(picks);
                return field_error_fail(err, 400, "", "memory", "out of memory");
        }
        if (rq->deployment.gpu)
                evaluate_deployment(&s);
        if (rq->traffic.concurrency > 0) { /* a closed loop is evaluated, not planned */
                free(s.res);
                free(picks);
                return 0;
        }

        for (size_t gi = 0; gi < s.n_gpus; gi++) {
                const struct gpu_spec *g = &s.gpus[gi];
                if (!listed(rq->constraints.gpus, rq->constraints.n_gpus, g->id) ||
                    (rq->deployment.gpu && strcmp(rq->deployment.gpu, g->id)))
                        continue;
                /* Offerings that can host this GPU under the constraints. */
                int max_gpi = 0;
                bool priced = false;
                for (size_t oi = 0; oi < n_off; oi++) {
                        if (offs[oi].gpu_index != gi ||
                            !listed(rq->constraints.providers, rq->constraints.n_providers,
                                    provs[offs[oi].provider_index].id))
                                continue;
                        if (!picks[oi].price)
                                continue;
                        priced = true;
                        if (offs[oi].gpus_per_instance > max_gpi)
                                max_gpi = offs[oi].gpus_per_instance;
                }
                if (!priced) {
                        if (rq->constraints.n_gpus)
                                exclude(&s, gi, SIZE_MAX, 0, -1,
                                        "no offering with a %s price rents %s",
                                        catalog_pricing_name(rq->constraints.pricing), g->name);
                        continue;
                }
                /* A degree asked for is tried whatever it is (3, 6, ...): it
                 * runs on the next instance size, its spare GPUs stated. */
                const uint32_t *tps = degrees;
                size_t n_tps = sizeof(degrees) / sizeof(degrees[0]);
                if (rq->deployment.gpu) {
                        tps = &rq->deployment.tensor_parallel;
                        n_tps = 1;
                }
                for (size_t d = 0; d < n_tps; d++) {
                        uint32_t tp = tps[d];
                        if ((int)tp > max_gpi) {
                                if (rq->deployment.gpu)
                                        exclude(&s, gi, SIZE_MAX, tp, -1,
                                                "no priced instance holds %u %s", tp, g->name);
                                break;
                        }
                        if (tp > 1 && (rq->model.arch.heads % tp || rq->model.arch.kv_heads == 0)) {
                                if (rq->deployment.gpu)
                                        exclude(&s, gi, SIZE_MAX, tp, -1,
                                                "%u attention heads do not split over %u GPUs",
                                                rq->model.arch.heads, tp);
                                continue;
                        }
                        for (size_t o = 0; o < rq->n_options; o++) {
                                struct serving_config c;
                                out->configurations++;
                                if (build_config(&s, gi, tp, (int)o, &c))
                                        continue;
                                double cap = replica_capacity(&c, rq);
                                if (!(cap > 0)) {
                                        exclude_unloaded(&s, &c, (int)o);
                                        continue;
                                }
                                /* Best plan per offering of this shape. */
                                for (size_t oi = 0; oi < n_off; oi++) {
                                        const struct catalog_offering *off = &offs[oi];
                                        const struct catalog_price *price;
                                        struct serving_plan p;
                                        if (off->gpu_index != gi ||
                                            !listed(rq->constraints.providers,
                                                    rq->constraints.n_providers,
                                                    provs[off->provider_index].id))
                                                continue;
                                        price = picks[oi].price;
                                        if (!price ||
                                            !plan_offering(&s, &c, cap, oi, off, price, &p))
                                                continue;
                                        if (rq->constraints.budget_usd_per_hour > 0 &&
                                            p.usd_per_hour > rq->constraints.budget_usd_per_hour)
                                                continue;
                                        p.price_regions = picks[oi].regions;
                                        /* Keep the cheaper plan per offering. */
                                        size_t k;
                                        for (k = 0; k < out->n_plans; k++)
                                                if (out->plans[k].offering_index == oi)
                                                        break;
                                        if (k < out->n_plans) {
                                                if (plan_cmp(&p, &out->plans[k]) < 0)
                                                        out->plans[k] = p;
                                                continue;
                                        }
                                        if (out->n_plans == s.cap_plans) {
                                                size_t cap2 = s.cap_plans ? 2 * s.cap_plans : 32;
                                                struct serving_plan *np =
                                                        realloc(out->plans, cap2 * sizeof(*np));
                                                if (!np) {
                                                        free(s.res);
                                                        free(picks);
                                                        serving_result_free(out);
                                                        return field_error_fail(err, 400, "",
                                                                                "memory",
                                                                                "out of memory");
                                                }
                                                out->plans = np;
                                                s.cap_plans = cap2;
                                        }
                                        out->plans[out->n_plans++] = p;
                                }
                        }
                }
        }
        /* Offerings of considered GPUs that ended without a plan. */
        for (size_t oi = 0; oi < n_off; oi++) {
                const struct catalog_offering *off = &offs[oi];
                const struct catalog_price *price = picks[oi].price;
                bool planned = false;
                char why[160];
                if (!price && plan_price_pick_why(&picks[oi], off, &rules, why, sizeof(why)) &&
                    listed(rq->constraints.gpus, rq->constraints.n_gpus,
                           s.gpus[off->gpu_index].id) &&
                    listed(rq->constraints.providers, rq->constraints.n_providers,
                           provs[off->provider_index].id))
                        exclude(&s, off->gpu_index, oi, 0, -1, "%s", why);
                if (!price ||
                    !listed(rq->constraints.gpus, rq->constraints.n_gpus,
                            s.gpus[off->gpu_index].id) ||
                    (rq->deployment.gpu && strcmp(rq->deployment.gpu, s.gpus[off->gpu_index].id)) ||
                    !listed(rq->constraints.providers, rq->constraints.n_providers,
                            provs[off->provider_index].id))
                        continue;
                for (size_t k = 0; k < out->n_plans && !planned; k++)
                        planned = out->plans[k].offering_index == oi;
                if (planned)
                        continue;
                exclude(&s, off->gpu_index, oi, 0, -1, "%s",
                        rq->constraints.budget_usd_per_hour > 0
                                ? "no deployment within the GPU limit and the budget meets the "
                                  "targets"
                                : "no deployment within the GPU limit meets the targets");
        }
        if (out->n_plans > 1) /* qsort's base must not be NULL, even for 0 */
                qsort(out->plans, out->n_plans, sizeof(*out->plans), plan_cmp);
        build_curves(&s);
        free(s.res);
        free(picks);
        return 0;
}

void serving_result_free(struct serving_result *r)
{
        free(r->plans);
        free(r->excluded);
        free(r->curves);
        memset(r, 0, sizeof(*r));
}
