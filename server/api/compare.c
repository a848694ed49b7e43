/*
 * compare.c - POST /api/v1/compare: decode an estimate request and its
 * constraints into plain structs, run the plan search
 * (server/plan/train_search.h) and encode the ranked plans.
 *
 * Answers are cached per canonical request body and catalog content
 * (server/plan/answer_cache.h), so a repeated question costs one lookup.
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
#include "api/price_options.h"
#include "plan/train_search.h"

/*
 * Spot training restarts.  An interrupted spot job loses the work since
 * its last checkpoint and waits to restore.  First-order waste per hour of
 * work (Daly 2006, "A higher order estimate of the optimum checkpoint
 * interval for restart dumps", Future Gener. Comput. Syst. 22(3), eq. 1 to
 * first order): delta/tau + (tau/2 + R)/M, with checkpoint write time delta,
 * interval tau, restore time R and mean time between interruptions M.  The
 * figures are assumptions, listed with every spot answer.
 */
#define SPOT_CHECKPOINT_WRITE_H    (2.0 / 60.0) /* writing one checkpoint: 2 minutes */
#define SPOT_CHECKPOINT_INTERVAL_H 1.0          /* a checkpoint every hour */
#define SPOT_RESTORE_H             (10.0 / 60.0) /* new instance + load checkpoint: 10 minutes */
#define SPOT_MTBI_H                24.0         /* one interruption a day */

static double spot_overhead(void)
{
        return SPOT_CHECKPOINT_WRITE_H / SPOT_CHECKPOINT_INTERVAL_H +
               (SPOT_CHECKPOINT_INTERVAL_H / 2 + SPOT_RESTORE_H) / SPOT_MTBI_H;
}

/* ---- encoding ------------------------------------------------------------ */

static const struct {
        const char *name;
        unsigned bit;
} saver_names[] = {
        {"flash_attention", PLAN_ALLOW_FLASH},
        {"selective_checkpointing", PLAN_ALLOW_SELECTIVE},
        {"full_checkpointing", PLAN_ALLOW_FULL},
        {"optimizer_offload", PLAN_ALLOW_OFFLOAD},
};

/* "flash_attention", "selective_checkpointing", ... for each saver a plan adds. */
static json_t *savers_json(const struct estimate_input *base, const struct estimate_input *run)
{
        unsigned added = plan_train_search_savers_added(base, run);
        json_t *arr = json_array();

        for (size_t i = 0; arr && i < sizeof(saver_names) / sizeof(saver_names[0]); i++)
                if (added & saver_names[i].bit)
                        json_array_append_new(arr, json_string(saver_names[i].name));
        return arr;
}

/* A finite number or null. */
static json_t *num_or_null(double v)
{
        return v >= 0 && isfinite(v) ? json_real(v) : json_null();
}

/* What a reader must know before trusting a plan. */
static json_t *plan_warnings_json(const struct estimate_input *base,
                                  const struct plan_train_plan *p)
{
        json_t *arr = json_array();
        char text[256];

        if (!arr)
                return NULL;
        if (p->precision_substituted) {
                snprintf(text, sizeof(text),
                         "planned at fp16_mixed instead of %s: the GPU has no bf16 rate (it"
                         " would emulate bf16 far below its fp16 speed); fp16 needs loss scaling",
                         estimate_precision_name(base->precision));
                json_array_append_new(arr, json_string(text));
        }
        if (p->ram_unknown) {
                snprintf(text, sizeof(text),
                         "the catalog has no RAM figure for this instance: check that it has"
                         " the %.1f GB of CPU memory the plan needs per instance",
                         (double)p->cpu_bytes_per_instance / 1e9);
                json_array_append_new(arr, json_string(text));
        }
        return arr;
}

static json_t *plan_json(const struct catalog_snapshot *s, const struct estimate_input *base,
                         const struct plan_train_constraints *c, const struct plan_train_plan *p,
                         double restart)
{
        size_t n, n_off;
        const struct gpu_spec *g = catalog_gpus(s, &n) + p->gpu_index;
        const struct catalog_offering *o = catalog_offerings(s, &n_off) + p->offering_index;
        json_t *doc;
        double epochs = base->epochs > 0 ? base->epochs : 1;

        doc = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:o, s:I, s:I, s:o, s:o, s:f, s:f,"
                        " s:s, s:s, s:s}",
                        "gpu", g->id, "gpu_name", g->name, "provider", o->provider_id, "offering",
                        o->id, "gpus", (json_int_t)p->gpus, "instances", (json_int_t)p->instances,
                        "strategy", estimate_strategy_name(p->strategy), "memory_savers",
                        savers_json(base, &p->input), "per_gpu_bytes", (json_int_t)p->per_gpu_bytes,
                        "gpu_memory_bytes", (json_int_t)g->usable_memory_bytes, "hours",
                        num_or_null(p->hours >= 0 ? p->hours * (1 + restart) : -1), "cost_usd",
                        num_or_null(p->cost_usd >= 0 ? p->cost_usd * (1 + restart) : -1),
                        "usd_per_gpu_hour", p->usd_per_gpu_hour, "usd_per_hour",
                        p->price->usd_per_hour, "pricing", catalog_pricing_name(p->price->pricing),
                        "price_as_of", p->price->as_of, "price_source", p->price->source);
        if (!doc)
                return NULL;
        json_object_set_new(doc, "instance_type", json_string(o->instance_type));
        json_object_set_new(doc, "gpus_per_instance", json_integer(o->gpus_per_instance));
        json_object_set_new(doc, "nodes", json_integer((json_int_t)p->input.nodes));
        json_object_set_new(doc, "tensor_parallel",
                            json_integer((json_int_t)p->input.tensor_parallel));
        json_object_set_new(doc, "checkpointing",
                            json_string(estimate_checkpointing_name(p->input.checkpointing)));
        json_object_set_new(doc, "flash_attention", json_boolean(p->input.flash_attention));
        json_object_set_new(doc, "offload", json_string(estimate_offload_name(p->input.offload)));
        json_object_set_new(doc, "cost_per_epoch_usd",
                            num_or_null(p->cost_usd >= 0 ? p->cost_usd * (1 + restart) / epochs
                                                         : -1));
        api_price_options_plan_fields(doc, o->region, p->price, p->price_regions, &c->prices);
        if (restart > 0)
                json_object_set_new(doc, "restart_overhead_fraction", json_real(restart));
        json_object_set_new(doc, "usd_per_million_tokens", num_or_null(p->usd_per_million_tokens));
        json_object_set_new(doc, "tokens_per_second", num_or_null(p->tokens_per_second));
        json_object_set_new(doc, "seconds_per_step", num_or_null(p->seconds_per_step));
        json_object_set_new(doc, "bottleneck",
                            json_string(estimate_bottleneck_name(p->bottleneck)));
        json_object_set_new(doc, "precision",
                            json_string(estimate_precision_name(p->input.precision)));
        json_object_set_new(doc, "cpu_bytes_per_instance",
                            json_integer((json_int_t)p->cpu_bytes_per_instance));
        json_object_set_new(doc, "instance_ram_bytes", catalog_json_u64(o->ram_bytes));
        json_object_set_new(doc, "warnings", plan_warnings_json(base, p));
        return doc;
}

static json_t *result_json(const struct catalog_snapshot *s, const struct estimate_input *base,
                           const struct plan_train_constraints *c,
                           const struct plan_train_result *r, double restart)
{
        size_t n, n_off;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        json_t *plans = json_array(), *excluded = json_array(), *providers = json_array();
        json_t *doc;

        for (size_t i = 0; plans && i < r->n_plans; i++)
                json_array_append_new(plans, plan_json(s, base, c, &r->plans[i], restart));
        for (size_t i = 0; excluded && i < r->n_excluded; i++) {
                const struct plan_train_excluded *e = &r->excluded[i];
                const struct catalog_offering *o =
                        e->offering_index == SIZE_MAX ? NULL : &off[e->offering_index];

                json_array_append_new(
                        excluded,
                        json_pack("{s:s, s:o, s:o, s:s}", "gpu", gpus[e->gpu_index].id, "provider",
                                  catalog_json_str(o ? o->provider_id : NULL), "offering",
                                  catalog_json_str(o ? o->id : NULL), "reason", e->reason));
        }
        json_t *savers = json_array();

        for (size_t i = 0; providers && i < c->n_providers; i++)
                json_array_append_new(providers, json_string(c->providers[i]));
        for (size_t i = 0; savers && i < sizeof(saver_names) / sizeof(saver_names[0]); i++)
                if (c->savers_allowed & saver_names[i].bit)
                        json_array_append_new(savers, json_string(saver_names[i].name));
        doc = json_pack("{s:o, s:o, s:I, s:I, s:s, s:{s:o, s:s, s:I, s:o, s:o, s:s}}", "plans",
                        plans ? plans : json_array(), "excluded",
                        excluded ? excluded : json_array(), "evaluated", (json_int_t)r->evaluated,
                        "engine_calls", (json_int_t)r->engine_calls, "ranked_by",
                        c->rank_by == PLAN_RANK_TIME
                                ? (r->has_hours ? "hours" : "tokens_per_second")
                                : (r->has_hours ? "cost_usd" : "usd_per_million_tokens"),
                        "constraints", "providers", providers ? providers : json_array(), "pricing",
                        catalog_pricing_name(c->pricing), "max_gpus", (json_int_t)c->max_gpus,
                        "deadline_hours",
                        c->deadline_hours > 0 ? json_real(c->deadline_hours) : json_null(),
                        "budget_usd", c->budget_usd > 0 ? json_real(c->budget_usd) : json_null(),
                        "rank_by", c->rank_by == PLAN_RANK_TIME ? "time" : "cost");
        if (doc) {
                json_object_set_new(json_object_get(doc, "constraints"), "memory_savers",
                                    savers ? savers : json_array());
                api_price_options_echo(json_object_get(doc, "constraints"), &c->prices);
        } else {
                json_decref(savers);
        }
        if (doc)
                json_object_set_new(
                        doc, "assumptions",
                        json_pack("[s, s, s]",
                                  "GPU counts are whole instances; instances beyond the first are"
                                  " separate nodes",
                                  "between instances without a network figure in the catalog:"
                                  " 10 Gb/s Ethernet (1.25e9 bytes/s per instance)",
                                  "a notebook tier (provider kind notebook) is one session, one"
                                  " instance"));
        if (doc && c->pricing == CATALOG_SPOT) {
                char text[400];

                snprintf(text, sizeof(text),
                         "spot instances are interruptible: training hours and costs include a"
                         " restart overhead of %.1f%% (a %.0f-minute checkpoint every %.0f h,"
                         " %.0f minutes to restore, one interruption every %.0f h; Daly 2006,"
                         " first order)",
                         restart * 100, SPOT_CHECKPOINT_WRITE_H * 60, SPOT_CHECKPOINT_INTERVAL_H,
                         SPOT_RESTORE_H * 60, SPOT_MTBI_H);
                json_array_append_new(json_object_get(doc, "assumptions"), json_string(text));
        }
        if (doc)
                json_array_append_new(
                        json_object_get(doc, "assumptions"),
                        json_string(c->prices.per_region
                                            ? "every region of an instance type is its own plan"
                                            : "an instance type listed in several regions is"
                                              " planned once, in its cheapest region"
                                              " (price_regions); set per_region for one plan per"
                                              " region"));
        if (doc && !r->has_hours)
                json_object_set_new(doc, "note",
                                    json_string("the workload has no dataset size, so hours and"
                                                " total costs are unknown; plans are ranked per"
                                                " million tokens"));
        return doc;
}

/* ---- the handler --------------------------------------------------------- */

static const char *const constraint_keys[] = {
        "memory_savers", "providers", "pricing", "max_gpus", "deadline_hours",
        "budget_usd",    "rank_by",   API_PRICE_OPTION_KEYS, NULL};

/* Decode "constraints"; 0, or -1 with rs filled. */
static int constraints_decode(struct api_response *rs, json_t *body,
                              const struct catalog_snapshot *s, struct plan_train_constraints *c)
{
        json_t *cj = json_object_get(body, "constraints"), *prov;
        const char *pricing = NULL, *rank = NULL;
        int64_t max_gpus = PLAN_GPUS_MAX;

        plan_train_search_constraints_defaults(c);
        if (api_price_options_decode(rs, json_is_object(cj) ? cj : NULL, s, &c->prices))
                return -1;
        if (!cj || json_is_null(cj))
                return 0;
        if (!json_is_object(cj)) {
                api_problem_field(rs, 400, "/constraints", "type", "constraints must be an object");
                return -1;
        }
        if (fields_known(rs, cj, "/constraints", constraint_keys) ||
            fields_string(rs, cj, "/constraints", "pricing", 0, 16, &pricing) ||
            fields_int(rs, cj, "/constraints", "max_gpus", 0, 1, PLAN_GPUS_MAX, &max_gpus) ||
            fields_number(rs, cj, "/constraints", "deadline_hours", FIELD_NULLABLE, 1e-9, 1e7,
                          &c->deadline_hours) ||
            fields_number(rs, cj, "/constraints", "budget_usd", FIELD_NULLABLE, 1e-9, 1e12,
                          &c->budget_usd) ||
            fields_string(rs, cj, "/constraints", "rank_by", 0, 8, &rank))
                return -1;
        c->max_gpus = (uint32_t)max_gpus;
        if (pricing && catalog_pricing_parse(pricing, &c->pricing)) {
                api_problem_field(rs, 400, "/constraints/pricing", "enum",
                                  "pricing must be on_demand, spot or reserved");
                return -1;
        }
        if (rank && strcmp(rank, "cost") != 0 && strcmp(rank, "time") != 0) {
                api_problem_field(rs, 400, "/constraints/rank_by", "enum",
                                  "rank_by must be cost or time");
                return -1;
        }
        c->rank_by = rank && strcmp(rank, "time") == 0 ? PLAN_RANK_TIME : PLAN_RANK_COST;
        prov = json_object_get(cj, "memory_savers");
        if (prov && !json_is_null(prov)) {
                if (!json_is_array(prov)) {
                        api_problem_field(rs, 400, "/constraints/memory_savers", "type",
                                          "memory_savers must be an array of saver names");
                        return -1;
                }
                c->savers_allowed = 0;
                for (size_t i = 0; i < json_array_size(prov); i++) {
                        const char *name = json_string_value(json_array_get(prov, i));
                        size_t k;
                        char pointer[64];

                        for (k = 0; name && k < sizeof(saver_names) / sizeof(saver_names[0]); k++)
                                if (strcmp(name, saver_names[k].name) == 0)
                                        break;
                        if (!name || k == sizeof(saver_names) / sizeof(saver_names[0])) {
                                snprintf(pointer, sizeof(pointer), "/constraints/memory_savers/%zu",
                                         i);
                                api_problem_field(rs, 400, pointer, "enum",
                                                  "a saver is flash_attention,"
                                                  " selective_checkpointing, full_checkpointing or"
                                                  " optimizer_offload");
                                return -1;
                        }
                        c->savers_allowed |= saver_names[k].bit;
                }
        }
        prov = json_object_get(cj, "providers");
        if (prov && !json_is_null(prov)) {
                if (!json_is_array(prov) || json_array_size(prov) > PLAN_PROVIDERS_MAX) {
                        api_problem_field(rs, 400, "/constraints/providers", "type",
                                          "providers must be an array of at most 32 provider ids");
                        return -1;
                }
                for (size_t i = 0; i < json_array_size(prov); i++) {
                        json_t *v = json_array_get(prov, i);
                        char pointer[64];

                        snprintf(pointer, sizeof(pointer), "/constraints/providers/%zu", i);
                        if (!json_is_string(v) || !catalog_provider(s, json_string_value(v))) {
                                api_problem_field(rs, 400, pointer, "exists",
                                                  "no catalog provider with this id"
                                                  " (GET /api/v1/providers)");
                                return -1;
                        }
                        c->providers[c->n_providers++] = json_string_value(v);
                }
        }
        return 0;
}

static const char *const compare_extra_keys[] = {"constraints", NULL};

/* The answer to one decoded body on snapshot s (api_answer_fn; ctx unused). */
static void compare_answer(const struct catalog_snapshot *s, json_t *body, void *ctx,
                           struct api_response *rs)
{
        struct estimate_input *in = NULL;
        struct fields_error aerr;
        struct estimate_error eerr;
        struct plan_train_constraints c;
        struct plan_train_result r;
        double restart = 0;

        (void)ctx;
        memset(&r, 0, sizeof(r));
        in = calloc(1, sizeof(*in));
        if (!in) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        memset(&aerr, 0, sizeof(aerr));
        if (estimate_decode_request(body, s, compare_extra_keys, in, &aerr)) {
                api_problem_field(rs, aerr.status ? aerr.status : 400, aerr.pointer, aerr.rule,
                                  aerr.detail);
                goto out;
        }
        if (constraints_decode(rs, body, s, &c))
                goto out;
        if ((c.deadline_hours > 0 || c.budget_usd > 0) &&
            (in->mode == EST_INFERENCE || (in->dataset_samples == 0 && in->dataset_tokens == 0))) {
                api_problem_field(rs, 400,
                                  c.deadline_hours > 0 ? "/constraints/deadline_hours"
                                                       : "/constraints/budget_usd",
                                  "dependentRequired",
                                  "a deadline or budget needs a training workload with a dataset"
                                  " size (workload.dataset), so that hours and costs are known");
                goto out;
        }
        /* Spot training: the search meets the deadline and budget with the restarts included. */
        if (c.pricing == CATALOG_SPOT && in->mode != EST_INFERENCE) {
                restart = spot_overhead();
                c.deadline_hours /= 1 + restart;
                c.budget_usd /= 1 + restart;
        }
        memset(&eerr, 0, sizeof(eerr));
        if (plan_train_search(s, in, &c, &r, &eerr)) {
                api_problem_field(rs, 400, eerr.pointer, eerr.rule[0] ? eerr.rule : "invalid",
                                  eerr.detail);
                goto out;
        }
        c.deadline_hours *= 1 + restart;
        c.budget_usd *= 1 + restart;
        api_reply_json(rs, 200, result_json(s, in, &c, &r, restart));
out:
        plan_train_search_result_free(&r);
        free(in);
}

void api_compare(const struct api_request *rq, struct api_response *rs)
{
        api_answer_cached_body(rq, rs, "compare", compare_answer);
}
