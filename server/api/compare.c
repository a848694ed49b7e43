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
#include "api/estimate_decode.h"
#include "api/fields.h"
#include "api/jsonw.h"
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

/*
 * The answer is written with the JSON writer (api/jsonw.h), not built as a
 * jansson tree: a compare answer has a row per offering (hundreds, with
 * imported prices), and one allocation per value plus jansson's dump was
 * most of a fresh compare's CPU time.  The text is what json_dumps(tree,
 * JSON_COMPACT | JSON_REAL_PRECISION(15)) gave for the same members in the
 * same order.
 */
#define COMPARE_TEXT_INITIAL_BYTES (64 * 1024)
#define COMPARE_TEXT_MAX_BYTES     (32 * 1024 * 1024)

/* "flash_attention", "selective_checkpointing", ... for each saver a plan adds. */
static void savers_write(struct jsonw *w, const struct estimate_input *base,
                         const struct estimate_input *run)
{
        unsigned added = plan_train_search_savers_added(base, run);

        jsonw_array_begin(w);
        for (size_t i = 0; i < sizeof(saver_names) / sizeof(saver_names[0]); i++)
                if (added & saver_names[i].bit)
                        jsonw_string(w, saver_names[i].name);
        jsonw_array_end(w);
}

/* A number >= 0, or null: the plan search marks "none" with -1, and
 * jsonw_kreal already writes null for what is not finite. */
static void kreal_or_null(struct jsonw *w, const char *key, double v)
{
        jsonw_key(w, key);
        jsonw_real(w, v >= 0 ? v : NAN);
}

/* What a reader must know before trusting a plan. */
static void plan_warnings_write(struct jsonw *w, const struct estimate_input *base,
                                const struct plan_train_plan *p)
{
        char text[256];

        jsonw_array_begin(w);
        if (p->precision_substituted) {
                snprintf(text, sizeof(text),
                         "planned at fp16_mixed instead of %s: the GPU has no bf16 rate (it"
                         " would emulate bf16 far below its fp16 speed); fp16 needs loss scaling",
                         estimate_precision_name(base->precision));
                jsonw_string(w, text);
        }
        if (p->ram_unknown) {
                snprintf(text, sizeof(text),
                         "the catalog has no RAM figure for this instance: check that it has"
                         " the %.1f GB of CPU memory the plan needs per instance",
                         (double)p->cpu_bytes_per_instance / 1e9);
                jsonw_string(w, text);
        }
        jsonw_array_end(w);
}

static void plan_write(struct jsonw *w, const struct catalog_snapshot *s,
                       const struct estimate_input *base, const struct plan_train_constraints *c,
                       const struct plan_train_plan *p, double restart)
{
        size_t n, n_off;
        const struct gpu_spec *g = catalog_gpus(s, &n) + p->gpu_index;
        const struct catalog_offering *o = catalog_offerings(s, &n_off) + p->offering_index;
        double epochs = base->epochs > 0 ? base->epochs : 1;

        jsonw_object_begin(w);
        jsonw_kstring(w, "gpu", g->id);
        jsonw_kstring(w, "gpu_name", g->name);
        jsonw_kstring(w, "provider", o->provider_id);
        jsonw_kstring(w, "offering", o->id);
        jsonw_kint(w, "gpus", p->gpus);
        jsonw_kint(w, "instances", p->instances);
        jsonw_kstring(w, "strategy", estimate_strategy_name(p->strategy));
        jsonw_key(w, "memory_savers");
        savers_write(w, base, &p->input);
        jsonw_kint(w, "per_gpu_bytes", (int64_t)p->per_gpu_bytes);
        jsonw_kint(w, "gpu_memory_bytes", (int64_t)g->usable_memory_bytes);
        kreal_or_null(w, "hours", p->hours >= 0 ? p->hours * (1 + restart) : -1);
        kreal_or_null(w, "cost_usd", p->cost_usd >= 0 ? p->cost_usd * (1 + restart) : -1);
        jsonw_kreal(w, "usd_per_gpu_hour", p->usd_per_gpu_hour);
        jsonw_kreal(w, "usd_per_hour", p->price->usd_per_hour);
        jsonw_kstring(w, "pricing", catalog_pricing_name(p->price->pricing));
        jsonw_kstring(w, "price_as_of", p->price->as_of);
        jsonw_kstring(w, "price_source", p->price->source);
        jsonw_kstring(w, "instance_type", o->instance_type);
        jsonw_kint(w, "gpus_per_instance", o->gpus_per_instance);
        jsonw_kint(w, "nodes", p->input.nodes);
        jsonw_kint(w, "tensor_parallel", p->input.tensor_parallel);
        jsonw_kstring(w, "checkpointing", estimate_checkpointing_name(p->input.checkpointing));
        jsonw_kbool(w, "flash_attention", p->input.flash_attention);
        jsonw_kstring(w, "offload", estimate_offload_name(p->input.offload));
        kreal_or_null(w, "cost_per_epoch_usd",
                      p->cost_usd >= 0 ? p->cost_usd * (1 + restart) / epochs : -1);
        api_price_options_plan_fields_write(w, o->region, p->price, p->price_regions, &c->prices);
        if (restart > 0)
                jsonw_kreal(w, "restart_overhead_fraction", restart);
        kreal_or_null(w, "usd_per_million_tokens", p->usd_per_million_tokens);
        kreal_or_null(w, "tokens_per_second", p->tokens_per_second);
        kreal_or_null(w, "seconds_per_step", p->seconds_per_step);
        jsonw_kstring(w, "bottleneck", estimate_bottleneck_name(p->bottleneck));
        jsonw_kstring(w, "precision", estimate_precision_name(p->input.precision));
        jsonw_kint(w, "cpu_bytes_per_instance", (int64_t)p->cpu_bytes_per_instance);
        if (o->ram_bytes == 0 || o->ram_bytes > (uint64_t)INT64_MAX)
                jsonw_knull(w, "instance_ram_bytes");
        else
                jsonw_kint(w, "instance_ram_bytes", (int64_t)o->ram_bytes);
        jsonw_key(w, "warnings");
        plan_warnings_write(w, base, p);
        jsonw_object_end(w);
}

static void constraints_write(struct jsonw *w, const struct plan_train_constraints *c)
{
        jsonw_object_begin(w);
        jsonw_key(w, "providers");
        jsonw_array_begin(w);
        for (size_t i = 0; i < c->n_providers; i++)
                jsonw_string(w, c->providers[i]);
        jsonw_array_end(w);
        jsonw_kstring(w, "pricing", catalog_pricing_name(c->pricing));
        jsonw_kint(w, "max_gpus", c->max_gpus);
        if (c->deadline_hours > 0)
                jsonw_kreal(w, "deadline_hours", c->deadline_hours);
        else
                jsonw_knull(w, "deadline_hours");
        if (c->budget_usd > 0)
                jsonw_kreal(w, "budget_usd", c->budget_usd);
        else
                jsonw_knull(w, "budget_usd");
        jsonw_kstring(w, "rank_by", c->rank_by == PLAN_RANK_TIME ? "time" : "cost");
        jsonw_key(w, "memory_savers");
        jsonw_array_begin(w);
        for (size_t i = 0; i < sizeof(saver_names) / sizeof(saver_names[0]); i++)
                if (c->savers_allowed & saver_names[i].bit)
                        jsonw_string(w, saver_names[i].name);
        jsonw_array_end(w);
        api_price_options_echo_write(w, &c->prices);
        jsonw_object_end(w);
}

/* The answer's text (malloc'd, *len_out its length), or NULL when memory ran out. */
static char *result_text(const struct catalog_snapshot *s, const struct estimate_input *base,
                         const struct plan_train_constraints *c, const struct plan_train_result *r,
                         double restart, size_t *len_out)
{
        size_t n, n_off;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        struct jsonw w;

        jsonw_init(&w, COMPARE_TEXT_INITIAL_BYTES, COMPARE_TEXT_MAX_BYTES);
        jsonw_object_begin(&w);
        jsonw_key(&w, "plans");
        jsonw_array_begin(&w);
        for (size_t i = 0; i < r->n_plans; i++)
                plan_write(&w, s, base, c, &r->plans[i], restart);
        jsonw_array_end(&w);
        jsonw_key(&w, "excluded");
        jsonw_array_begin(&w);
        for (size_t i = 0; i < r->n_excluded; i++) {
                const struct plan_train_excluded *e = &r->excluded[i];
                const struct catalog_offering *o =
                        e->offering_index == SIZE_MAX ? NULL : &off[e->offering_index];

                jsonw_object_begin(&w);
                jsonw_kstring(&w, "gpu", gpus[e->gpu_index].id);
                jsonw_kstring(&w, "provider", o ? o->provider_id : NULL);
                jsonw_kstring(&w, "offering", o ? o->id : NULL);
                jsonw_kstring(&w, "reason", e->reason);
                jsonw_object_end(&w);
        }
        jsonw_array_end(&w);
        jsonw_kint(&w, "evaluated", (int64_t)r->evaluated);
        jsonw_kint(&w, "engine_calls", (int64_t)r->engine_calls);
        jsonw_kstring(&w, "ranked_by",
                      c->rank_by == PLAN_RANK_TIME
                              ? (r->has_hours ? "hours" : "tokens_per_second")
                              : (r->has_hours ? "cost_usd" : "usd_per_million_tokens"));
        jsonw_key(&w, "constraints");
        constraints_write(&w, c);
        jsonw_key(&w, "assumptions");
        jsonw_array_begin(&w);
        jsonw_string(&w, "GPU counts are whole instances; instances beyond the first are"
                         " separate nodes");
        jsonw_string(&w, "between instances without a network figure in the catalog:"
                         " 10 Gb/s Ethernet (1.25e9 bytes/s per instance)");
        jsonw_string(&w, "a notebook tier (provider kind notebook) is one session, one"
                         " instance");
        if (c->pricing == CATALOG_SPOT) {
                char text[400];

                snprintf(text, sizeof(text),
                         "spot instances are interruptible: training hours and costs include a"
                         " restart overhead of %.1f%% (a %.0f-minute checkpoint every %.0f h,"
                         " %.0f minutes to restore, one interruption every %.0f h; Daly 2006,"
                         " first order)",
                         restart * 100, SPOT_CHECKPOINT_WRITE_H * 60, SPOT_CHECKPOINT_INTERVAL_H,
                         SPOT_RESTORE_H * 60, SPOT_MTBI_H);
                jsonw_string(&w, text);
        }
        jsonw_string(&w, c->prices.per_region ? "every region of an instance type is its own plan"
                                              : "an instance type listed in several regions is"
                                                " planned once, in its cheapest region"
                                                " (price_regions); set per_region for one plan per"
                                                " region");
        jsonw_array_end(&w);
        if (!r->has_hours)
                jsonw_kstring(&w, "note",
                              "the workload has no dataset size, so hours and total costs are"
                              " unknown; plans are ranked per million tokens");
        jsonw_object_end(&w);
        return jsonw_finish(&w, len_out);
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
        char *text;
        size_t len;

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
        text = result_text(s, in, &c, &r, restart, &len);
        if (!text) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        free(rs->body);
        rs->status = 200;
        rs->content_type = "application/json";
        rs->body = text;
        rs->body_len = len;
out:
        plan_train_search_result_free(&r);
        free(in);
}

void api_compare(const struct api_request *rq, struct api_response *rs)
{
        api_answer_cached_body(rq, rs, "compare", compare_answer);
}
