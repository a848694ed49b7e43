/*
 * fit_options.c - POST /api/v1/fit_options: "make it fit".  The body is an
 * estimate request naming a GPU, plus an optional "fit" object
 * ({"allow_adapters": bool, "max_gpus": 1..8}); the answer lists the
 * cheapest sets of combined changes that make the job fit that GPU
 * (server/plan/fit_search.h), each with its memory, time, the settings to
 * apply and one plain sentence.
 *
 * Answers are cached per canonical body and catalog content, like compare.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/answer_cached.h"
#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/fields.h"
#include "api/estimate_decode.h"
#include "api/fit_options.h"
#include "plan/fit_search.h"

/* Precision as people say it. */
static const char *precision_words(enum est_precision p)
{
        switch (p) {
        case EST_FP32:
                return "fp32";
        case EST_TF32:
                return "tf32";
        case EST_FP16_MIXED:
                return "fp16 mixed precision";
        case EST_BF16_MIXED:
                return "bf16 mixed precision";
        case EST_FP16:
                return "pure fp16";
        case EST_BF16:
                return "pure bf16";
        case EST_FP8_MIXED:
                return "fp8 mixed precision";
        default:
                return "another precision";
        }
}

/* One change in words: "bf16 mixed precision instead of fp32". */
static void change_words(enum plan_fit_change c, const struct estimate_input *base,
                         const struct estimate_input *x, char *out, size_t len)
{
        switch (c) {
        case PLAN_FIT_PRECISION:
                snprintf(out, len, "%s instead of %s", precision_words(x->precision),
                         precision_words(base->precision));
                break;
        case PLAN_FIT_FLASH:
                snprintf(out, len, "flash attention");
                break;
        case PLAN_FIT_CHECKPOINTING:
                snprintf(out, len, "%s activation checkpointing",
                         x->checkpointing == EST_CKPT_FULL ? "full" : "selective");
                break;
        case PLAN_FIT_MICRO_BATCH:
                if (x->mode == EST_INFERENCE)
                        snprintf(out, len, "batch %u instead of %u", x->batch_size,
                                 base->batch_size);
                else
                        snprintf(out, len,
                                 "micro-batch %u with %u accumulation steps (the same %llu"
                                 " samples per optimizer step)",
                                 x->batch_size, x->gradient_accumulation,
                                 (unsigned long long)x->batch_size * x->gradient_accumulation);
                break;
        case PLAN_FIT_OPTIMIZER:
                snprintf(out, len, "%s",
                         x->optimizer == EST_OPT_PAGED_ADAMW_8BIT ? "paged 8-bit AdamW"
                                                                  : "8-bit AdamW");
                break;
        case PLAN_FIT_ADAPTERS:
                if (x->mode == EST_QLORA)
                        snprintf(out, len, "QLoRA (4-bit NF4 base weights, rank %u adapters)",
                                 x->lora_rank);
                else
                        snprintf(out, len, "LoRA (rank %u adapters on every linear layer)",
                                 x->lora_rank);
                break;
        case PLAN_FIT_OFFLOAD:
                snprintf(out, len, "optimizer states offloaded to CPU memory");
                break;
        case PLAN_FIT_GPUS:
                if (x->mode == EST_INFERENCE)
                        snprintf(out, len, "%u GPUs with tensor parallelism", x->gpus);
                else
                        snprintf(out, len, "%u GPUs with %s", x->gpus,
                                 x->strategy == EST_ZERO3 ? "ZeRO-3" : "FSDP full sharding");
                break;
        case PLAN_FIT_QUANTIZATION:
                snprintf(out, len, "%s weights",
                         x->quantization == EST_QUANT_INT4 ? "int4" : "int8");
                break;
        default:
                snprintf(out, len, "a change");
                break;
        }
}

/* The settings a page or notebook applies to get this option. */
static json_t *settings_json(const struct estimate_input *x)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        json_object_set_new(o, "mode", json_string(estimate_mode_name(x->mode)));
        json_object_set_new(o, "precision", json_string(estimate_precision_name(x->precision)));
        json_object_set_new(o, "quantization", json_string(estimate_quant_name(x->quantization)));
        json_object_set_new(o, "batch_size", json_integer(x->batch_size));
        if (x->mode != EST_INFERENCE) {
                json_object_set_new(o, "gradient_accumulation",
                                    json_integer(x->gradient_accumulation));
                json_object_set_new(o, "optimizer",
                                    json_string(estimate_optimizer_name(x->optimizer)));
                json_object_set_new(o, "activation_checkpointing",
                                    json_string(estimate_checkpointing_name(x->checkpointing)));
                json_object_set_new(o, "offload", json_string(estimate_offload_name(x->offload)));
        }
        if (x->mode == EST_LORA || x->mode == EST_QLORA)
                json_object_set_new(o, "lora_rank", json_integer(x->lora_rank));
        json_object_set_new(o, "flash_attention", json_boolean(x->flash_attention));
        json_object_set_new(o, "strategy", json_string(estimate_strategy_name(x->strategy)));
        json_object_set_new(o, "gpus", json_integer(x->gpus));
        json_object_set_new(o, "tensor_parallel", json_integer(x->tensor_parallel));
        return o;
}

static json_t *num_or_null(double v)
{
        return v > 0 && isfinite(v) ? json_real(v) : json_null();
}

static json_t *option_json(const struct estimate_input *base, const struct plan_fit_option *o)
{
        json_t *changes = json_array(), *doc;
        char words[200], summary[900];
        size_t used = 0;

        if (!changes)
                return NULL;
        summary[0] = '\0';
        for (int c = 0; c < PLAN_FIT_CHANGE_COUNT; c++) {
                if (!(o->changes & (1u << c)))
                        continue;
                change_words((enum plan_fit_change)c, base, &o->input, words, sizeof(words));
                json_array_append_new(changes,
                                      json_pack("{s:s, s:s}", "change",
                                                plan_fit_search_change_names[c], "text", words));
                int k = snprintf(summary + used, sizeof(summary) - used, "%s%s", used ? "; " : "",
                                 words);
                if (k > 0 && (size_t)k < sizeof(summary) - used)
                        used += (size_t)k;
        }
        doc = json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "changes", changes,
                        "summary", summary, "needed_bytes", catalog_json_u64(o->needed_bytes),
                        "per_gpu_bytes", catalog_json_u64(o->per_gpu_bytes), "seconds_per_step",
                        num_or_null(o->seconds_per_step), "tokens_per_second",
                        num_or_null(o->tokens_per_second), "gpu_seconds_per_million_tokens",
                        num_or_null(o->gpu_seconds_per_million_tokens), "slowdown",
                        num_or_null(o->slowdown), "settings", settings_json(&o->input));
        return doc;
}

static json_t *result_json(const struct gpu_spec *g, const struct estimate_input *base,
                           const struct plan_fit_options *opt, const struct plan_fit_result *r)
{
        json_t *options = json_array(), *doc;

        for (size_t i = 0; options && i < r->n_options; i++)
                json_array_append_new(options, option_json(base, &r->options[i]));
        doc = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:I, s:I, s:{s:b, s:I}}", "gpu", g->id,
                        "gpu_name", g->name, "fits_already", r->fits_already, "usable_bytes",
                        catalog_json_u64(r->usable_bytes), "request_needed_bytes",
                        catalog_json_u64(r->request_needed_bytes), "request_tokens_per_second",
                        num_or_null(r->request_tokens_per_second), "options",
                        options ? options : json_array(), "combinations",
                        (json_int_t)r->combinations, "candidates", (json_int_t)r->candidates, "fit",
                        "allow_adapters", opt->allow_adapters, "max_gpus",
                        (json_int_t)opt->max_gpus);
        if (doc && !r->fits_already && r->request_reason == EST_FIT_CANNOT_TRAIN)
                json_object_set_new(doc, "note",
                                    json_string("this part runs inference only: no change makes"
                                                " it train; choose a GPU that can train"));
        else if (doc && !r->fits_already && r->request_reason == EST_FIT_UNKNOWN_MEMORY)
                json_object_set_new(doc, "note",
                                    json_string("the catalog has no memory figure for this GPU"));
        else if (doc && !r->fits_already && r->n_options == 0)
                json_object_set_new(
                        doc, "note",
                        json_string(opt->allow_adapters
                                            ? "no combination of the changes searched fits this"
                                              " GPU; a GPU with more memory is needed"
                                            : "no combination of the changes searched fits this"
                                              " GPU; allow LoRA/QLoRA or choose a GPU with"
                                              " more memory"));
        return doc;
}

static const char *const fit_keys[] = {"allow_adapters", "max_gpus", NULL};
static const char *const fit_extra_keys[] = {"fit", NULL};

/* Decode "fit"; 0, or -1 with rs filled. */
static int fit_decode(struct api_response *rs, json_t *body, struct plan_fit_options *o)
{
        json_t *f = json_object_get(body, "fit");
        int64_t max_gpus = PLAN_FIT_GPUS_MAX;

        plan_fit_search_options_defaults(o);
        if (!f || json_is_null(f))
                return 0;
        if (!json_is_object(f)) {
                api_problem_field(rs, 400, "/fit", "type", "fit must be an object");
                return -1;
        }
        if (fields_known(rs, f, "/fit", fit_keys) ||
            fields_bool(rs, f, "/fit", "allow_adapters", 0, &o->allow_adapters) ||
            fields_int(rs, f, "/fit", "max_gpus", 0, 1, PLAN_FIT_GPUS_MAX, &max_gpus))
                return -1;
        o->max_gpus = (uint32_t)max_gpus;
        return 0;
}

static void fit_answer(const struct catalog_snapshot *s, json_t *body, void *ctx,
                       struct api_response *rs)
{
        struct estimate_input *in = NULL;
        struct plan_fit_result *r = NULL;
        struct fields_error aerr;
        struct estimate_error eerr;
        struct plan_fit_options o;
        size_t n_gpus;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);

        (void)ctx;
        in = calloc(1, sizeof(*in));
        r = calloc(1, sizeof(*r));
        if (!in || !r) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        memset(&aerr, 0, sizeof(aerr));
        if (estimate_decode_request(body, s, fit_extra_keys, in, &aerr)) {
                api_problem_field(rs, aerr.status ? aerr.status : 400, aerr.pointer, aerr.rule,
                                  aerr.detail);
                goto out;
        }
        if (fit_decode(rs, body, &o))
                goto out;
        memset(&eerr, 0, sizeof(eerr));
        if (plan_fit_search(in, gpus, n_gpus, &o, r, &eerr)) {
                api_problem_field(rs, 400, eerr.pointer[0] ? eerr.pointer : "/",
                                  eerr.rule[0] ? eerr.rule : "invalid", eerr.detail);
                goto out;
        }
        api_reply_json(rs, 200, result_json(&gpus[in->gpu_index], in, &o, r));
out:
        free(r);
        free(in);
}

void api_fit_options(const struct api_request *rq, struct api_response *rs)
{
        api_answer_cached_body(rq, rs, "fit_options", fit_answer);
}
