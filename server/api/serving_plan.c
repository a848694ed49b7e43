/*
 * serving_plan.c - POST /api/v1/serving_plan: the cheapest deployment that
 * serves a request rate within latency targets (plan/serving.h does the
 * search; this file translates JSON).
 *
 * The body is an estimate request's model part (model, framework,
 * serving) plus:
 *   precision, quantization, kv_cache_precision   a name or a list of names:
 *                                  every combination is a weight option
 *   traffic      {requests_per_second, prompt_tokens, output_tokens,
 *                 max_context_tokens}
 *   slo          {ttft_p50_ms, ttft_p95_ms, tpot_ms}
 *   constraints  {providers, gpus, pricing, max_gpus, budget_usd_per_hour}
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/answer_cached.h"
#include "api/catalog_api.h"
#include "api/fields.h"
#include "api/estimate_decode.h"
#include "api/price_options.h"
#include "plan/serving.h"

static const char *const body_keys[] = {
        "model",    "framework", "serving",     "precision",  "quantization", "kv_cache_precision",
        "workload", "traffic",   "slo",         "constraints", "engine",      "deployment",
        NULL};

/* A name or a list of names from names[] into idx[]; returns the count or -1. */
static int names_field(struct api_response *rs, json_t *body, const char *key,
                       const char *const *names, const char *fallback, int *idx, size_t max)
{
        json_t *v = json_object_get(body, key);
        char pointer[64], detail[200];
        size_t n = 0, len = 0;

        detail[0] = 0;
        for (size_t i = 0; names[i]; i++)
                len += (size_t)snprintf(detail + len,
                                        len < sizeof(detail) ? sizeof(detail) - len : 0, "%s%s",
                                        i ? ", " : "", names[i]);
        if (!v || json_is_null(v)) {
                idx[0] = estimate_enum_parse(names, fallback);
                return 1;
        }
        if (json_is_string(v) ||
            (json_is_array(v) && json_array_size(v) >= 1 && json_array_size(v) <= max)) {
                size_t count = json_is_string(v) ? 1 : json_array_size(v);
                for (size_t i = 0; i < count; i++) {
                        json_t *e = json_is_string(v) ? v : json_array_get(v, i);
                        int k = estimate_enum_parse(names, json_string_value(e));
                        if (json_is_string(v))
                                snprintf(pointer, sizeof(pointer), "/%s", key);
                        else
                                snprintf(pointer, sizeof(pointer), "/%s/%zu", key, i);
                        if (k < 0) {
                                char msg[300];
                                snprintf(msg, sizeof(msg), "%s must be one of: %s", key, detail);
                                api_problem_field(rs, 400, pointer, "enum", msg);
                                return -1;
                        }
                        idx[n++] = k;
                }
                return (int)n;
        }
        snprintf(pointer, sizeof(pointer), "/%s", key);
        char msg[300];
        snprintf(msg, sizeof(msg), "%s must be a name or a list of 1 to %zu names (%s)", key, max,
                 detail);
        api_problem_field(rs, 400, pointer, "type", msg);
        return -1;
}

static int decode_options(struct api_response *rs, json_t *body, struct serving_request *rq)
{
        int prec[SERVING_OPTIONS_MAX], quant[SERVING_OPTIONS_MAX], kv[SERVING_OPTIONS_MAX];
        int np = names_field(rs, body, "precision", estimate_precision_names, "bf16", prec,
                             SERVING_OPTIONS_MAX);
        if (np < 0)
                return -1;
        int nq = names_field(rs, body, "quantization", estimate_quant_names, "none", quant,
                             SERVING_OPTIONS_MAX);
        if (nq < 0)
                return -1;
        int nk = names_field(rs, body, "kv_cache_precision", estimate_kv_dtype_names, "auto", kv,
                             SERVING_OPTIONS_MAX);
        if (nk < 0)
                return -1;
        if (np * nq * nk > SERVING_OPTIONS_MAX) {
                api_problem_field(rs, 400, "/quantization", "range",
                                  "precision x quantization x kv_cache_precision combinations "
                                  "must be at most 8");
                return -1;
        }
        for (int a = 0; a < np; a++)
                for (int b = 0; b < nq; b++)
                        for (int c = 0; c < nk; c++) {
                                struct serving_option *o = &rq->options[rq->n_options++];
                                o->precision = (enum est_precision)prec[a];
                                o->quantization = (enum est_quant)quant[b];
                                o->kv_dtype = (enum est_kv_dtype)kv[c];
                                if (o->precision != EST_FP16 && o->precision != EST_BF16 &&
                                    o->precision != EST_FP32) {
                                        api_problem_field(rs, 400, "/precision", "enum",
                                                          "serving runs fp16, bf16 or fp32 "
                                                          "weights; use quantization for fp8, "
                                                          "int8 and 4-bit");
                                        return -1;
                                }
                        }
        return 0;
}

static int decode_traffic(struct api_response *rs, json_t *body, struct serving_request *rq)
{
        static const char *const keys[] = {"requests_per_second", "concurrency", "prompt_tokens",
                                           "output_tokens", "max_context_tokens", "lengths", NULL};
        json_t *t = json_object_get(body, "traffic");
        struct serving_traffic *tr = &rq->traffic;
        const char *lengths = NULL;

        if (!json_is_object(t)) {
                api_problem_field(rs, 400, "/traffic", t ? "type" : "required",
                                  "traffic must be an object {requests_per_second, "
                                  "prompt_tokens, output_tokens}");
                return -1;
        }
        if (fields_string(rs, t, "/traffic", "lengths", FIELD_NULLABLE, 16, &lengths))
                return -1;
        if (lengths && !strcmp(lengths, "exponential"))
                tr->lengths = SERVING_LENGTHS_EXPONENTIAL;
        else if (lengths && !strcmp(lengths, "sharegpt"))
                tr->lengths = SERVING_LENGTHS_EXPONENTIAL;
        else if (lengths && strcmp(lengths, "fixed")) {
                api_problem_field(rs, 400, "/traffic/lengths", "enum",
                                  "lengths must be fixed, exponential or sharegpt");
                return -1;
        }
        return fields_known(rs, t, "/traffic", keys) ||
                               fields_number(rs, t, "/traffic", "requests_per_second",
                                                json_object_get(t, "concurrency")
                                                        ? FIELD_NULLABLE
                                                        : FIELD_REQUIRED,
                                                1e-6, 1e6, &tr->requests_per_second) ||
                               fields_number(rs, t, "/traffic", "concurrency", FIELD_NULLABLE, 1,
                                                65536, &tr->concurrency) ||
                               fields_number(rs, t, "/traffic", "prompt_tokens", FIELD_REQUIRED,
                                                1, 16777216, &tr->prompt_tokens) ||
                               fields_number(rs, t, "/traffic", "output_tokens", FIELD_REQUIRED,
                                                1, 16777216, &tr->output_tokens) ||
                               fields_number(rs, t, "/traffic", "max_context_tokens",
                                                FIELD_NULLABLE, 2, 16777216,
                                                &tr->max_context_tokens)
                       ? -1
                       : 0;
}

static int decode_slo(struct api_response *rs, json_t *body, struct serving_request *rq)
{
        static const char *const keys[] = {"ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms",
                                           "tpot_ms",     "itl_p99_ms",  NULL};
        json_t *s = json_object_get(body, "slo");
        double p50 = 0, p95 = 0, p99 = 0, tpot = 0, itl = 0;

        if (!s && json_object_get(body, "deployment"))
                return 0; /* a deployment is evaluated without targets */
        if (!json_is_object(s)) {
                api_problem_field(rs, 400, "/slo", s ? "type" : "required",
                                  "slo must be an object {ttft_p50_ms, ttft_p95_ms, ttft_p99_ms, "
                                  "tpot_ms, itl_p99_ms}");
                return -1;
        }
        if (fields_known(rs, s, "/slo", keys) ||
            fields_number(rs, s, "/slo", "ttft_p50_ms", FIELD_NULLABLE, 1e-3, 3.6e6, &p50) ||
            fields_number(rs, s, "/slo", "ttft_p95_ms", FIELD_NULLABLE, 1e-3, 3.6e6, &p95) ||
            fields_number(rs, s, "/slo", "ttft_p99_ms", FIELD_NULLABLE, 1e-3, 3.6e6, &p99) ||
            fields_number(rs, s, "/slo", "tpot_ms", FIELD_NULLABLE, 1e-3, 3.6e6, &tpot) ||
            fields_number(rs, s, "/slo", "itl_p99_ms", FIELD_NULLABLE, 1e-3, 3.6e6, &itl))
                return -1;
        rq->slo.ttft_p50_s = p50 / 1e3;
        rq->slo.ttft_p95_s = p95 / 1e3;
        rq->slo.ttft_p99_s = p99 / 1e3;
        rq->slo.tpot_s = tpot / 1e3;
        rq->slo.itl_p99_s = itl / 1e3;
        return 0;
}

static int id_list(struct api_response *rs, json_t *c, const char *key, const char **out, size_t *n)
{
        json_t *v = json_object_get(c, key);
        char pointer[64];

        if (!v || json_is_null(v))
                return 0;
        snprintf(pointer, sizeof(pointer), "/constraints/%s", key);
        if (!json_is_array(v) || json_array_size(v) > SERVING_FILTER_MAX) {
                api_problem_field(rs, 400, pointer, "type", "must be a list of at most 32 ids");
                return -1;
        }
        for (size_t i = 0; i < json_array_size(v); i++) {
                const char *id = json_string_value(json_array_get(v, i));
                if (!id) {
                        snprintf(pointer, sizeof(pointer), "/constraints/%s/%zu", key, i);
                        api_problem_field(rs, 400, pointer, "type", "an id is a string");
                        return -1;
                }
                out[(*n)++] = id;
        }
        return 0;
}

static int decode_constraints(struct api_response *rs, json_t *body, struct serving_request *rq,
                              const struct catalog_snapshot *s)
{
        static const char *const keys[] = {"providers", "gpus", "pricing",
                                           "max_gpus",  "budget_usd_per_hour",
                                           API_PRICE_OPTION_KEYS, NULL};
        json_t *c = json_object_get(body, "constraints");
        struct serving_constraints *k = &rq->constraints;
        const char *pricing = NULL;
        int64_t max_gpus = 64;

        k->pricing = CATALOG_ON_DEMAND;
        k->max_gpus = 64;
        if (api_price_options_decode(rs, json_is_object(c) ? c : NULL, s, &k->prices))
                return -1;
        if (!c || json_is_null(c))
                return 0;
        if (!json_is_object(c)) {
                api_problem_field(rs, 400, "/constraints", "type", "constraints must be an object");
                return -1;
        }
        if (fields_known(rs, c, "/constraints", keys) ||
            fields_string(rs, c, "/constraints", "pricing", 0, 16, &pricing) ||
            fields_int(rs, c, "/constraints", "max_gpus", 0, 1, 64, &max_gpus) ||
            fields_number(rs, c, "/constraints", "budget_usd_per_hour", FIELD_NULLABLE, 1e-6,
                             1e9, &k->budget_usd_per_hour) ||
            id_list(rs, c, "providers", k->providers, &k->n_providers) ||
            id_list(rs, c, "gpus", k->gpus, &k->n_gpus))
                return -1;
        k->max_gpus = (uint32_t)max_gpus;
        if (pricing && catalog_pricing_parse(pricing, &k->pricing)) {
                api_problem_field(rs, 400, "/constraints/pricing", "enum",
                                  "pricing must be on_demand, spot or reserved");
                return -1;
        }
        return 0;
}


/*
 * The engine: a name ("vllm") or {name, version, settings...}.  Settings
 * are accepted under the engines' own option names, with or without the
 * leading dashes and with dashes or underscores:
 *   iterations per scheduling  num_scheduler_steps (vLLM V0)
 *   chunked prefill            enable_chunked_prefill (vLLM)
 *   tokens per iteration       max_num_batched_tokens (vLLM), chunked_prefill_size
 *                              (SGLang), max_num_tokens (TensorRT-LLM),
 *                              max_batch_prefill_tokens (TGI), batch_size (llama.cpp)
 *   running sequences          max_num_seqs (vLLM), max_running_requests (SGLang),
 *                              max_batch_size (TensorRT-LLM), max_concurrent_requests
 *                              (TGI), parallel (llama.cpp)
 *   CUDA graphs                enforce_eager (vLLM), disable_cuda_graph (SGLang)
 *   tensor_parallel_size, tp   must agree with deployment.tensor_parallel
 * Options with no effect on the step time (max_model_len,
 * disable_radix_cache, enable_torch_compile, disable_log_requests, ...)
 * are accepted and ignored.
 */
enum engine_setting {
        ES_STEPS,
        ES_CHUNKED,
        ES_TOKENS,
        ES_SEQS,
        ES_EAGER,
        ES_NO_GRAPHS,
        ES_TP,
        ES_IGNORE
};

static const struct {
        const char *name;
        enum engine_setting what;
} engine_settings[] = {
        {"num_scheduler_steps", ES_STEPS},
        {"enable_chunked_prefill", ES_CHUNKED},
        {"max_num_batched_tokens", ES_TOKENS},
        {"chunked_prefill_size", ES_TOKENS},
        {"max_num_tokens", ES_TOKENS},
        {"max_batch_prefill_tokens", ES_TOKENS},
        {"batch_size", ES_TOKENS},
        {"max_num_seqs", ES_SEQS},
        {"max_running_requests", ES_SEQS},
        {"max_batch_size", ES_SEQS},
        {"max_concurrent_requests", ES_SEQS},
        {"parallel", ES_SEQS},
        {"enforce_eager", ES_EAGER},
        {"disable_cuda_graph", ES_NO_GRAPHS},
        {"max_model_len", ES_IGNORE},
        {"disable_radix_cache", ES_IGNORE},
        {"enable_torch_compile", ES_IGNORE},
        {"disable_log_requests", ES_IGNORE},
        {"enable_prefix_caching", ES_IGNORE},
        {"tensor_parallel_size", ES_TP},
        {"tp", ES_TP},
        {"tp_size", ES_TP},
};

/* "--max-num-seqs" and "max-num-seqs" as max_num_seqs. */
static void setting_key(const char *in, char *out, size_t len)
{
        size_t i = 0;
        while (*in == '-')
                in++;
        for (; *in && i + 1 < len; in++)
                out[i++] = *in == '-' ? '_' : *in;
        out[i] = 0;
}

/* "0.6.0" -> 0.6 (major + minor / 100 for minors past 9); 0 when absent. */
static double engine_version(const char *v)
{
        unsigned major = 0, minor = 0;
        if (!v || sscanf(v, "%u.%u", &major, &minor) < 1)
                return 0;
        return major + minor / (minor >= 10 ? 100.0 : 10.0);
}

static int decode_engine(struct api_response *rs, json_t *body, struct serving_request *rq)
{
        json_t *e = json_object_get(body, "engine");
        const char *name = "vllm", *version = NULL, *key;
        json_t *v;
        char detail[400];

        if (!e || json_is_null(e)) {
                serving_step_engine_preset(SERVING_ENGINE_VLLM, &rq->engine);
                return 0;
        }
        if (json_is_string(e))
                name = json_string_value(e);
        else if (json_is_object(e)) {
                if (fields_string(rs, e, "/engine", "name", FIELD_REQUIRED, 32, &name) ||
                    fields_string(rs, e, "/engine", "version", FIELD_NULLABLE, 32, &version))
                        return -1;
        } else {
                api_problem_field(rs, 400, "/engine", "type",
                                  "engine is a name or an object {name, version, settings}");
                return -1;
        }
        int kind = serving_step_engine_parse(name);
        if (kind < 0) {
                api_problem_field(rs, 400, json_is_string(e) ? "/engine" : "/engine/name", "enum",
                                  "engine must be one of: vllm, vllm_v0, sglang, tensorrt_llm, "
                                  "tgi, llama_cpp");
                return -1;
        }
        double ver = engine_version(version);
        /* vLLM before 0.8 runs the V0 engine. */
        if (kind == SERVING_ENGINE_VLLM && ver > 0 && ver < 0.8)
                kind = SERVING_ENGINE_VLLM_V0;
        serving_step_engine_preset((enum serving_engine_kind)kind, &rq->engine);
        /* SGLang before 0.4 had no overlap scheduler: its Python scheduler
         * and output processing ran between passes, 1 ms per iteration (the
         * 1.1x the overlap gained, lmsys.org/blog/2024-12-04-sglang-v0-4)
         * and vLLM V0's 100 us per sequence (see serving_step.c). */
        if (kind == SERVING_ENGINE_SGLANG && ver > 0 && ver < 0.4) {
                struct serving_engine v0;
                serving_step_engine_preset(SERVING_ENGINE_VLLM_V0, &v0);
                rq->engine.iteration_seconds = 1.0e-3;
                rq->engine.sequence_seconds = v0.sequence_seconds;
        }
        if (!json_is_object(e))
                return 0;
        json_object_foreach(e, key, v)
        {
                char k[64], pointer[96];
                size_t i, n = sizeof(engine_settings) / sizeof(engine_settings[0]);
                if (!strcmp(key, "name") || !strcmp(key, "version"))
                        continue;
                setting_key(key, k, sizeof(k));
                snprintf(pointer, sizeof(pointer), "/engine/%s", key);
                for (i = 0; i < n; i++)
                        if (!strcmp(k, engine_settings[i].name))
                                break;
                if (i == n) {
                        size_t len = (size_t)snprintf(detail, sizeof(detail),
                                                      "unknown engine setting; known: ");
                        for (size_t j = 0; j < n && len < sizeof(detail); j++)
                                len += (size_t)snprintf(detail + len, sizeof(detail) - len, "%s%s",
                                                        j ? ", " : "", engine_settings[j].name);
                        api_problem_field(rs, 400, pointer, "unknown", detail);
                        return -1;
                }
                enum engine_setting what = engine_settings[i].what;
                if (what == ES_IGNORE)
                        continue;
                if (what == ES_CHUNKED || what == ES_EAGER || what == ES_NO_GRAPHS) {
                        if (!json_is_boolean(v)) {
                                api_problem_field(rs, 400, pointer, "type", "must be true or false");
                                return -1;
                        }
                        bool b = json_is_true(v);
                        if (what == ES_CHUNKED)
                                rq->engine.prefill =
                                        b ? SERVING_PREFILL_MIXED : SERVING_PREFILL_SEPARATE;
                        else
                                rq->engine.cuda_graphs = !b;
                        continue;
                }
                if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                    json_integer_value(v) > 1048576) {
                        api_problem_field(rs, 400, pointer, "range",
                                          "must be a whole number 1..1048576");
                        return -1;
                }
                uint32_t x = (uint32_t)json_integer_value(v);
                if (what == ES_TP) {
                        if (rq->deployment.gpu && rq->deployment.tensor_parallel == x)
                                continue;
                        api_problem_field(rs, 400, pointer, "contradiction",
                                          "the tensor-parallel degree is the deployment's: give "
                                          "deployment {gpu, tensor_parallel} (the same degree)");
                        return -1;
                }
                if (what == ES_STEPS)
                        rq->engine.scheduler_steps = x;
                else if (what == ES_TOKENS)
                        rq->engine.max_batched_tokens = x;
                else
                        rq->engine.max_sequences = x;
        }
        return 0;
}

static int decode_deployment(struct api_response *rs, json_t *body, struct serving_request *rq)
{
        static const char *const keys[] = {"gpu", "tensor_parallel", NULL};
        json_t *d = json_object_get(body, "deployment");
        int64_t tp = 1;

        if (!d || json_is_null(d))
                return 0;
        if (!json_is_object(d)) {
                api_problem_field(rs, 400, "/deployment", "type",
                                  "deployment must be an object {gpu, tensor_parallel}");
                return -1;
        }
        if (fields_known(rs, d, "/deployment", keys) ||
            fields_string(rs, d, "/deployment", "gpu", FIELD_REQUIRED, 64,
                             &rq->deployment.gpu) ||
            fields_int(rs, d, "/deployment", "tensor_parallel", 0, 1, 8, &tp))
                return -1;
        rq->deployment.tensor_parallel = (uint32_t)tp;
        return 0;
}

/* The model part of the body as an estimate request for the engine's decoder. */
static json_t *model_request(json_t *body)
{
        json_t *m = json_object();
        const char *keys[] = {"model", "framework", "serving"};

        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
                json_t *v = json_object_get(body, keys[i]);
                if (v)
                        json_object_set(m, keys[i], v);
        }
        json_object_set_new(m, "workload", json_pack("{s:s}", "mode", "inference"));
        return m;
}

static json_t *option_json(const struct serving_option *o)
{
        return json_pack("{s:s, s:s, s:s}", "precision", estimate_precision_name(o->precision),
                         "quantization", estimate_quant_name(o->quantization), "kv_cache_precision",
                         estimate_kv_dtype_name(o->kv_dtype));
}


static json_t *ms(double s)
{
        return isfinite(s) ? json_real(s * 1e3) : json_null();
}

/* Latency and throughput of one replica at its load. */
static json_t *load_json(const struct serving_load *l)
{
        json_t *o = json_object();
        json_object_set_new(o, "offered_requests_per_second", json_real(l->offered_rps));
        json_object_set_new(o, "delivered_requests_per_second", json_real(l->delivered_rps));
        json_object_set_new(o, "overloaded", json_boolean(l->overloaded));
        json_object_set_new(o, "concurrency", json_real(l->concurrency));
        json_object_set_new(o, "ttft_p50_ms", ms(l->ttft_p50_s));
        json_object_set_new(o, "ttft_p95_ms", ms(l->ttft_p95_s));
        json_object_set_new(o, "ttft_p99_ms", ms(l->ttft_p99_s));
        json_object_set_new(o, "ttft_mean_ms", ms(l->ttft_mean_s));
        json_object_set_new(o, "tpot_mean_ms", ms(l->tpot_s));
        json_object_set_new(o, "tpot_p50_ms", ms(l->tpot_p50_s));
        json_object_set_new(o, "tpot_p99_ms", ms(l->tpot_p99_s));
        json_object_set_new(o, "itl_p50_ms", ms(l->itl_p50_s));
        json_object_set_new(o, "itl_p99_ms", ms(l->itl_p99_s));
        json_object_set_new(o, "itl_burst_tokens", json_real(l->itl_burst_tokens));
        json_object_set_new(o, "e2e_p50_ms", ms(l->e2e_p50_s));
        json_object_set_new(o, "e2e_p99_ms", ms(l->e2e_p99_s));
        json_object_set_new(o, "step_ms", ms(l->step_s));
        if (l->ttft_burst_mean_s > 0) {
                json_object_set_new(o, "ttft_burst_mean_ms", ms(l->ttft_burst_mean_s));
                json_object_set_new(o, "ttft_burst_max_ms", ms(l->ttft_burst_max_s));
        }
        return o;
}

static json_t *engine_json(const struct serving_engine *e)
{
        return json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:f, s:f, s:f}", "name",
                         serving_step_engine_name(e->kind), "prefill",
                         e->prefill == SERVING_PREFILL_MIXED ? "chunked" : "separate",
                         "scheduler_steps", (json_int_t)e->scheduler_steps, "max_batched_tokens",
                         (json_int_t)e->max_batched_tokens, "max_sequences",
                         (json_int_t)e->max_sequences, "cuda_graphs", e->cuda_graphs,
                         "iteration_ms", e->iteration_seconds * 1e3, "sequence_us",
                         e->sequence_seconds * 1e6, "frontend_ms", e->frontend_seconds * 1e3);
}

/* The deployment asked for, at the offered load. */
static json_t *evaluation_json(const struct catalog_snapshot *s, const struct serving_request *rq,
                               const struct serving_evaluation *ev)
{
        size_t n_gpus = 0;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        json_t *o = json_pack("{s:s, s:i, s:b}", "gpu", rq->deployment.gpu, "tensor_parallel",
                              (json_int_t)rq->deployment.tensor_parallel, "servable", ev->ok);
        if (!ev->ok) {
                json_object_set_new(o, "reason", json_string(ev->reason));
                return o;
        }
        const struct serving_load *l = &ev->load;
        json_object_set_new(o, "gpu_name", json_string(gpus[ev->config.gpu_index].name));
        json_object_set_new(o, "weights", option_json(&ev->config.option));
        json_object_set_new(o, "kv_cache_tokens", json_integer((json_int_t)ev->config.kv_capacity_tokens));
        json_object_set_new(o, "max_concurrency", json_integer((json_int_t)ev->config.max_sequences));
        json_object_set_new(o, "capacity_requests_per_second", json_real(ev->capacity_rps));
        json_object_set_new(o, "load", load_json(l));
        if (l->overloaded) {
                char msg[240];
                double asked = rq->traffic.concurrency > 0 ? 0 : rq->traffic.requests_per_second;
                if (asked > 0)
                        snprintf(msg, sizeof(msg),
                                 "overloaded: one replica serves at most %.3g requests/s, %.0f%% "
                                 "of the %.3g offered; the rest queue without bound",
                                 ev->capacity_rps, 100 * ev->capacity_rps / asked, asked);
                else
                        snprintf(msg, sizeof(msg),
                                 "saturated: %.0f users keep more requests in flight than the "
                                 "replica runs at once; the others wait for a slot",
                                 rq->traffic.concurrency);
                json_object_set_new(o, "overload", json_string(msg));
        }
        return o;
}

static json_t *plan_json(const struct catalog_snapshot *s, const struct serving_plan *p,
                         size_t rank, const struct plan_price_rules *rules)
{
        size_t n_gpus = 0, n_off = 0, n_prov = 0;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        const struct catalog_offering *off = &catalog_offerings(s, &n_off)[p->offering_index];
        const struct catalog_provider *prov = &catalog_providers(s, &n_prov)[off->provider_index];
        const struct serving_config *c = &p->config;
        json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:o}",
                              "rank", (json_int_t)rank, "gpu", gpus[c->gpu_index].id, "gpu_name",
                              gpus[c->gpu_index].name, "provider", prov->id, "provider_name",
                              prov->name, "offering", off->id, "instance_type", off->instance_type,
                              "pricing", catalog_pricing_name(p->price->pricing), "tensor_parallel",
                              (json_int_t)c->tensor_parallel, "replicas", (json_int_t)p->replicas,
                              "instances", (json_int_t)p->instances, "gpus", (json_int_t)p->gpus,
                              "weights", option_json(&c->option));
        json_object_set_new(o, "kv_cache_tokens_per_replica",
                            json_integer((json_int_t)c->kv_capacity_tokens));
        json_object_set_new(o, "max_concurrency_per_replica",
                            json_integer((json_int_t)c->max_sequences));
        json_object_set_new(o, "concurrency_per_replica", json_real(p->load.concurrency));
        json_object_set_new(o, "requests_per_second_per_replica",
                            json_real(p->capacity_rps / (p->headroom + 1) / p->replicas));
        json_object_set_new(o, "ttft_p50_ms", json_real(p->load.ttft_p50_s * 1e3));
        json_object_set_new(o, "ttft_p95_ms", json_real(p->load.ttft_p95_s * 1e3));
        json_object_set_new(o, "tpot_ms", json_real(p->load.tpot_s * 1e3));
        json_object_set_new(o, "prefill_ms", json_real(c->prefill_s * 1e3));
        json_object_set_new(o, "prefill_utilisation", json_real(p->load.prefill_utilisation));
        json_object_set_new(o, "capacity_requests_per_second", json_real(p->capacity_rps));
        json_object_set_new(o, "headroom", json_real(p->headroom));
        json_object_set_new(o, "output_tokens_per_second", json_real(p->output_tokens_per_second));
        json_object_set_new(o, "usd_per_hour", json_real(p->usd_per_hour));
        json_object_set_new(o, "usd_per_million_output_tokens",
                            json_real(p->usd_per_million_output_tokens));
        json_object_set_new(o, "price_as_of", json_string(p->price->as_of));
        json_object_set_new(o, "price_source", json_string(p->price->source));
        json_object_set_new(o, "ttft_p99_ms", ms(p->load.ttft_p99_s));
        json_object_set_new(o, "itl_p50_ms", ms(p->load.itl_p50_s));
        json_object_set_new(o, "itl_p99_ms", ms(p->load.itl_p99_s));
        json_object_set_new(o, "e2e_p50_ms", ms(p->load.e2e_p50_s));
        json_object_set_new(o, "unused_gpus",
                            json_integer((json_int_t)(p->gpus - p->replicas * c->tensor_parallel)));
        api_price_options_plan_fields(o, off->region, p->price, p->price_regions, rules);
        json_object_set_new(o, "meets_slo", json_true());
        return o;
}

static json_t *result_json(const struct catalog_snapshot *s, const struct serving_request *rq,
                           const struct serving_result *r, const char *model_name)
{
        size_t n_gpus = 0, n_off = 0;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        const struct catalog_offering *offs = catalog_offerings(s, &n_off);
        json_t *plans = json_array(), *frontier = json_array(), *excluded = json_array();
        char q[600];
        char load[64];
        if (rq->traffic.concurrency > 0)
                snprintf(load, sizeof(load), "to %g concurrent users", rq->traffic.concurrency);
        else
                snprintf(load, sizeof(load), "at %g requests/s", rq->traffic.requests_per_second);
        int len = snprintf(q, sizeof(q),
                           "Serve %s %s, prompts of about %.0f tokens and answers "
                           "of about %.0f tokens",
                           model_name, load, rq->traffic.prompt_tokens, rq->traffic.output_tokens);
        const char *sep = ", keeping ";
        if (rq->slo.ttft_p50_s > 0) {
                len += snprintf(q + len, sizeof(q) - (size_t)len,
                                "%stime to first token p50 under %g ms", sep,
                                rq->slo.ttft_p50_s * 1e3);
                sep = ", ";
        }
        if (rq->slo.ttft_p95_s > 0) {
                len += snprintf(q + len, sizeof(q) - (size_t)len,
                                "%stime to first token p95 under %g ms", sep,
                                rq->slo.ttft_p95_s * 1e3);
                sep = ", ";
        }
        if (rq->slo.ttft_p99_s > 0) {
                len += snprintf(q + len, sizeof(q) - (size_t)len,
                                "%stime to first token p99 under %g ms", sep,
                                rq->slo.ttft_p99_s * 1e3);
                sep = ", ";
        }
        if (rq->slo.tpot_s > 0) {
                len += snprintf(q + len, sizeof(q) - (size_t)len,
                                "%stime per output token under %g ms", sep, rq->slo.tpot_s * 1e3);
                sep = ", ";
        }
        if (rq->slo.itl_p99_s > 0)
                len += snprintf(q + len, sizeof(q) - (size_t)len,
                                "%sinter-token latency p99 under %g ms", sep,
                                rq->slo.itl_p99_s * 1e3);
        snprintf(q + len, sizeof(q) - (size_t)len, ": what is the cheapest deployment?");

        for (size_t i = 0; i < r->n_plans; i++)
                json_array_append_new(plans, plan_json(s, &r->plans[i], i + 1, &rq->constraints.prices));
        for (size_t i = 0; i < r->n_curves; i++) {
                const struct serving_curve *cv = &r->curves[i];
                json_t *pts = json_array();
                char label[GPU_NAME_MAX + 64];
                snprintf(label, sizeof(label), "%s x%u %s%s%s", gpus[cv->config.gpu_index].name,
                         cv->config.tensor_parallel,
                         estimate_precision_name(cv->config.option.precision),
                         cv->config.option.quantization ? " " : "",
                         cv->config.option.quantization
                                 ? estimate_quant_name(cv->config.option.quantization)
                                 : "");
                for (size_t k = 0; k < cv->n_points; k++)
                        json_array_append_new(
                                pts, json_pack("{s:f, s:f, s:f, s:f}", "concurrency",
                                               cv->points[k].concurrency, "tpot_ms",
                                               cv->points[k].tpot_s * 1e3, "ttft_ms",
                                               cv->points[k].ttft_s * 1e3,
                                               "output_tokens_per_second_per_gpu",
                                               cv->points[k].output_tokens_per_second_per_gpu));
                json_array_append_new(frontier,
                                      json_pack("{s:s, s:s, s:i, s:o, s:o}", "label", label, "gpu",
                                                gpus[cv->config.gpu_index].id, "tensor_parallel",
                                                (json_int_t)cv->config.tensor_parallel, "weights",
                                                option_json(&cv->config.option), "points", pts));
        }
        for (size_t i = 0; i < r->n_excluded; i++) {
                const struct serving_excluded *e = &r->excluded[i];
                json_t *x =
                        json_pack("{s:s, s:s}", "gpu", gpus[e->gpu_index].id, "reason", e->reason);
                if (e->offering_index != SIZE_MAX)
                        json_object_set_new(x, "offering", json_string(offs[e->offering_index].id));
                if (e->tensor_parallel)
                        json_object_set_new(x, "tensor_parallel",
                                            json_integer((json_int_t)e->tensor_parallel));
                if (e->option >= 0)
                        json_object_set_new(x, "weights", option_json(&rq->options[e->option]));
                json_array_append_new(excluded, x);
        }
        json_t *assumptions = json_pack(
                "[s, s, s, s, s]",
                "bf16 weights are served in fp16 on GPUs without bf16 units (V100, T4), as vLLM "
                "does; the plan's weights say so",
                "continuous batching: each scheduler iteration decodes every running "
                "sequence and, with chunked prefill, carries prompt chunks up to the batched-"
                "token budget; engines that prefill first run a prefill pass of their own that "
                "stalls decoding",
                "Poisson arrivals (or a closed loop of users): decoding sequences by Little's "
                "law; prefill queue M/D/1 over the prefill work, tail of the M/M/1 form; "
                "lengths fixed or exponential (ShareGPT-like)",
                "KV-cache capacity from the engine's vLLM-style reservation "
                "(gpu_memory_utilization); a sequence holds its prompt and half its answer "
                "on average, and the engine's running-sequence limit applies",
                "iteration time: matmuls as measured on an H100 (sqrt(compute^2 + memory^2)), "
                "attention and memory traffic from the pass model, a floor for the small "
                "kernels, TP all-reduces at NCCL's ring latency; validated against published "
                "load tests (GET /api/v1/validation/serving)");
        json_array_append_new(
                assumptions,
                json_string(rq->constraints.prices.per_region
                                    ? "every region of an instance type is its own plan"
                                    : "an instance type listed in several regions is "
                                      "planned once, in its cheapest region "
                                      "(price_regions); set per_region for one plan per "
                                      "region"));
        if (rq->constraints.pricing == CATALOG_SPOT)
                json_array_append_new(assumptions,
                                      json_string("spot instances are interruptible: a reclaimed "
                                                  "replica drops its requests in flight until a "
                                                  "replacement loads the model; plan headroom "
                                                  "or on-demand replicas for the SLO"));
        char eng[300];
        const struct serving_engine *e = &rq->engine;
        snprintf(eng, sizeof(eng),
                 "engine %s: prefill %s, %u scheduler step(s), %u tokens and %u sequences per "
                 "iteration, CUDA graphs %s; host %.2f ms per iteration and %.0f us per sequence, "
                 "front end %.0f ms",
                 serving_step_engine_name(e->kind),
                 e->prefill == SERVING_PREFILL_MIXED ? "chunked into the decode iterations"
                                                     : "in passes of its own",
                 e->scheduler_steps, e->max_batched_tokens, e->max_sequences,
                 e->cuda_graphs ? "on" : "off", e->iteration_seconds * 1e3,
                 e->sequence_seconds * 1e6, e->frontend_seconds * 1e3);
        json_array_append_new(assumptions, json_string(eng));
        bool fp8_attention = false;
        for (size_t i = 0; i < rq->n_options; i++)
                fp8_attention |= serving_fp8_attention(e->kind, &rq->options[i]);
        if (fp8_attention)
                json_array_append_new(
                        assumptions,
                        json_string(
                                e->kind == SERVING_ENGINE_TRTLLM
                                        ? "fp8 weights over an fp8 KV cache on Hopper-class GPUs: "
                                          "the prompt's attention runs at the fp8 tensor rate "
                                          "(TensorRT-LLM's FP8 context FMHA)"
                                        : "an fp8 KV cache on Hopper-class GPUs: attention runs at "
                                          "the fp8 tensor rate (FlashAttention-3 over the fp8 "
                                          "cache)"));
        json_t *out = json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:o}", "question", q, "plans",
                                plans, "frontier", frontier, "excluded", excluded, "assumptions",
                                assumptions, "configurations_evaluated",
                                (json_int_t)r->configurations, "engine", engine_json(e));
        if (r->evaluation.present)
                json_object_set_new(out, "deployment", evaluation_json(s, rq, &r->evaluation));
        return out;
}

static const char *const extra_keys_none[] = {NULL};

json_t *api_serving_plan_answer(const struct catalog_snapshot *s, json_t *body,
                                struct api_response *rs)
{
        struct serving_request *req = NULL;
        struct serving_result r;
        struct fields_error err;
        struct fields_error aerr;
        json_t *model = NULL, *w, *answer = NULL;

        memset(&r, 0, sizeof(r));
        if (fields_known(rs, body, "", body_keys))
                goto out;
        w = json_object_get(body, "workload");
        if (w && !(json_is_object(w) && json_object_size(w) == 1 &&
                   json_is_string(json_object_get(w, "mode")) &&
                   !strcmp(json_string_value(json_object_get(w, "mode")), "inference"))) {
                api_problem_field(rs, 400, "/workload", "contradiction",
                                  "a serving plan is for inference: workload may only say "
                                  "{\"mode\": \"inference\"}; lengths go in traffic");
                goto out;
        }
        req = calloc(1, sizeof(*req));
        model = model_request(body);
        if (!req || !model) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        memset(&aerr, 0, sizeof(aerr));
        if (estimate_decode_request(model, s, extra_keys_none, &req->model, &aerr)) {
                api_problem_field(rs, aerr.status ? aerr.status : 400, aerr.pointer, aerr.rule,
                                  aerr.detail);
                goto out;
        }
        if (req->model.arch.kind == MODEL_ENCODER) {
                api_problem_field(rs, 400, "/model", "contradiction",
                                  "an encoder-only model generates no tokens; serving plans are "
                                  "for decoder and encoder-decoder models");
                goto out;
        }
        if (req->model.set & EST_SET_MFU)
                req->model.mfu = 0;
        req->constraints.gpu_memory_utilization = req->model.gpu_memory_utilization;
        if (decode_options(rs, body, req) || decode_traffic(rs, body, req) ||
            decode_slo(rs, body, req) || decode_constraints(rs, body, req, s) ||
            decode_deployment(rs, body, req) || decode_engine(rs, body, req))
                goto out;
        /* A context past the model's positions: the rule estimate applies
         * (validate.c): refused with a learned position table, else warned
         * with the same code and sentence. */
        double context = req->traffic.prompt_tokens + req->traffic.output_tokens;
        bool beyond = context > req->model.arch.max_positions;
        if (beyond && req->model.arch.position == MODEL_POS_LEARNED) {
                api_problem_field(rs, 400, "/traffic/prompt_tokens", "range",
                                  "sequence_length exceeds the model's learned position table");
                goto out;
        }
        if (serving_search(s, req, &r, &err)) {
                api_problem_field(rs, 400, err.pointer, err.rule, err.detail);
                goto out;
        }
        answer = result_json(s, req, &r, req->model.arch.name);
        json_t *warnings = json_array();
        if (beyond) {
                struct est_note note = {.code = EST_W_SEQUENCE_BEYOND_MAX,
                                        .a = context,
                                        .b = req->model.arch.max_positions};
                char text[400];
                json_array_append_new(warnings,
                                      json_pack("{s:s, s:s}", "code",
                                                notes_name(note.code), "text",
                                                notes_text(&note, text, sizeof(text))));
        }
        json_object_set_new(answer, "warnings", warnings);
out:
        serving_result_free(&r);
        free(req);
        json_decref(model);
        return answer;
}

/* The answer to one body on snapshot s (api_answer_fn: cached by the caller). */
static void serving_answer(const struct catalog_snapshot *s, json_t *body, void *ctx,
                           struct api_response *rs)
{
        json_t *answer = api_serving_plan_answer(s, body, rs);

        (void)ctx;
        if (answer)
                api_reply_json(rs, 200, answer);
}

void api_serving_plan(const struct api_request *rq, struct api_response *rs)
{
        api_answer_cached_body(rq, rs, "serving_plan", serving_answer);
}
