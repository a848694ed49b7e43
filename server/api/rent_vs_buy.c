/*
 * rent_vs_buy.c - POST /api/v1/rent_vs_buy: decode a usage pattern (jobs
 * per week x hours per job), resolve the ownership settings (the request
 * overrides the catalog, the catalog the built-in defaults), run the
 * arithmetic of server/plan/rent_vs_buy.h and encode the answer with the
 * sources of every figure used.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/answer_cached.h"
#include "api/catalog_api.h"
#include "api/body.h"
#include "api/catalog.h"
#include "api/catalog_json.h"
#include "api/fields.h"
#include "api/price_options.h"
#include "plan/rent_vs_buy.h"

/* A usage figure given as a number or as [low, high]. */
/*
 * Usage below these is no schedule a plan can rest on (a job every two
 * years, a job of half a minute): 400 rather than a break-even in
 * millennia.
 */
#define JOBS_PER_WEEK_MIN 0.01
#define HOURS_PER_JOB_MIN 0.01

static int usage_range(struct api_response *rs, json_t *body, const char *key, double min,
                       double max, double out[2])
{
        json_t *v = json_object_get(body, key);
        char pointer[64], detail[160];

        snprintf(pointer, sizeof(pointer), "/%s", key);
        if (!v) {
                snprintf(detail, sizeof(detail), "%s is required (a number or [low, high])", key);
                api_problem_field(rs, 400, pointer, "required", detail);
                return -1;
        }
        if (json_is_number(v)) {
                out[0] = out[1] = json_number_value(v);
        } else if (json_is_array(v) && json_array_size(v) == 2 &&
                   json_is_number(json_array_get(v, 0)) && json_is_number(json_array_get(v, 1))) {
                out[0] = json_number_value(json_array_get(v, 0));
                out[1] = json_number_value(json_array_get(v, 1));
        } else {
                snprintf(detail, sizeof(detail), "%s must be a number or [low, high]", key);
                api_problem_field(rs, 400, pointer, "type", detail);
                return -1;
        }
        if (!isfinite(out[0]) || !isfinite(out[1]) || out[0] < min || out[1] < out[0] ||
            out[1] > max) {
                snprintf(detail, sizeof(detail), "%s must be from %g to %g, low <= high", key, min,
                         max);
                api_problem_field(rs, 400, pointer, "range", detail);
                return -1;
        }
        return 0;
}

struct rvb_setting {
        const char *key; /* settings table key and request override key */
        double fallback;
        double min, max;
        double value;
        const struct catalog_setting *row; /* NULL: fallback or request value */
        bool from_request;
};

/* A pair of monthly figures for the low and high usage. */
static json_t *low_high(double lo, double hi)
{
        return json_pack("{s:f, s:f}", "low", lo, "high", hi);
}

/* 422 for a buy side without a price, naming priced GPUs of the same family. */
static void purchase_missing(struct api_response *rs, const struct catalog_snapshot *s,
                             const char *buy_id)
{
        size_t n, used;
        const struct catalog_purchase_price *all = catalog_purchase_prices(s, &n);
        char family[GPU_ID_MAX], member[GPU_ID_MAX], detail[400];
        const char *last = "";

        plan_rent_vs_buy_gpu_family(buy_id, family, sizeof(family));
        used = (size_t)snprintf(detail, sizeof(detail),
                                "the catalog has no purchase price for %s; pass purchase_usd",
                                buy_id);
        for (size_t i = 0; i < n && used < sizeof(detail); i++) {
                plan_rent_vs_buy_gpu_family(all[i].accelerator_id, member, sizeof(member));
                if (strcmp(member, family) != 0 || strcmp(all[i].accelerator_id, last) == 0)
                        continue;
                used += (size_t)snprintf(detail + used, sizeof(detail) - used, "%s%s",
                                         *last ? ", " : ", or buy_gpu, priced in its family: ",
                                         all[i].accelerator_id);
                last = all[i].accelerator_id;
        }
        api_problem_field(rs, 422, "/purchase_usd", "required", detail);
}

static const char *const rvb_keys[] = {"gpu",
                                       "buy_gpu",
                                       "gpus",
                                       "jobs_per_week",
                                       "hours_per_job",
                                       "pricing",
                                       "providers",
                                       "condition",
                                       "purchase_usd",
                                       "electricity_usd_per_kwh",
                                       "ownership_life_years",
                                       "owned_utilisation",
                                       "datacenter_pue",
                                       "server_usd_per_gpu",
                                       "host_watts_per_gpu",
                                       "hosting_usd_per_kw_month",
                                       "resale_fraction",
                                       "basis",
                                       NULL};

/* The owning figures of n GPUs, as one JSON object. */
static json_t *own_json(const struct plan_rvb_own *o, const double monthly[2])
{
        json_t *doc = json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "gpus",
                                (json_int_t)o->gpus, "boards", (json_int_t)o->boards, "capex_usd",
                                o->capex_usd, "amortised_monthly_usd", o->amortised_monthly_usd,
                                "hosting_monthly_usd", o->hosting_monthly_usd,
                                "fixed_monthly_usd", o->fixed_monthly_usd, "power_watts",
                                o->power_watts, "energy_usd_per_hour", o->energy_usd_per_hour);

        if (doc)
                json_object_set_new(doc, "monthly_usd",
                                    json_pack("{s:f, s:f}", "low", monthly[0], "high", monthly[1]));
        return doc;
}

/* One row of "rent". */
static json_t *rent_json(const struct catalog_snapshot *s, enum catalog_pricing pricing,
                         const char *rent_id, const struct plan_rvb_result *res,
                         const struct plan_rvb_rent *r)
{
        size_t n_off;
        const struct catalog_offering *o = catalog_offerings(s, &n_off) + r->offering_index;
        const struct catalog_price *p = r->price;
        char detail[256];
        json_t *row;

        row = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:s, s:s, s:o}", "provider",
                        o->provider_id, "offering", o->id, "instance_type", o->instance_type,
                        "pricing", catalog_pricing_name(pricing), "gpus_per_instance",
                        o->gpus_per_instance, "instances", (json_int_t)r->instances, "usd_per_hour",
                        r->usd_per_hour, "usd_per_gpu_hour", r->usd_per_gpu_hour, "price_as_of",
                        p->as_of, "price_source", p->source, "monthly_usd",
                        low_high(r->monthly_usd[0], r->monthly_usd[1]));
        if (!row)
                return NULL;
        json_object_set_new(row, "gpu", json_string(o->accelerator_id));
        json_object_set_new(row, "match", json_string(r->family ? "family" : "exact"));
        if (r->family) {
                snprintf(detail, sizeof(detail),
                         "no offering rents %s; this one rents %s, of the same family (%s)",
                         rent_id, o->accelerator_id, res->family);
                json_object_set_new(row, "note", json_string(detail));
        }
        json_object_set_new(row, "break_even_hours_per_month",
                            r->break_even_hours_per_month >= 0
                                    ? json_real(r->break_even_hours_per_month)
                                    : json_null());
        json_object_set_new(row, "own", own_json(&r->own, r->own_monthly_usd));
        json_object_set_new(row, "cheaper",
                            json_pack("{s:s, s:s}", "low", r->rent_cheaper[0] ? "rent" : "buy",
                                      "high", r->rent_cheaper[1] ? "rent" : "buy"));
        return row;
}

/* Monthly cost of renting and owning against utilisation, for the chart; null without rows. */
static json_t *series_json(const struct catalog_snapshot *s, const struct plan_rvb_result *res,
                           double hours_per_month)
{
        size_t n_off;
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        const struct plan_rvb_rent *r;
        json_t *points, *doc;

        if (res->series_row == SIZE_MAX)
                return json_null();
        r = &res->rent[res->series_row];
        points = json_array();
        for (int k = 0; points && k < PLAN_RVB_SERIES_POINTS; k++)
                json_array_append_new(points,
                                      json_pack("{s:f, s:f, s:f}", "utilisation",
                                                res->series_utilisation[k], "rent_monthly_usd",
                                                res->series_rent_usd[k], "own_monthly_usd",
                                                res->series_own_usd[k]));
        doc = json_pack("{s:s, s:s, s:I, s:o, s:o}", "offering", off[r->offering_index].id,
                        "provider", off[r->offering_index].provider_id, "gpus",
                        (json_int_t)r->own.gpus, "break_even_utilisation",
                        r->break_even_hours_per_month >= 0
                                ? json_real(r->break_even_hours_per_month / hours_per_month)
                                : json_null(),
                        "points", points ? points : json_array());
        return doc;
}

/* What the body says, decoded before the catalog is consulted. */
struct rvb_request {
        const char *gpu_id, *buy_id, *condition;
        double purchase_usd; /* 0 = the catalog's */
        int64_t gpus;
        struct plan_rvb_input in; /* usage, pricing and providers filled */
};

/* The answer on snapshot s to a body decoded into ctx (a struct rvb_request). */
static void rvb_answer(const struct catalog_snapshot *s, json_t *body, void *ctx,
                       struct api_response *rs)
{
        struct rvb_setting set[] = {
                {"electricity_usd_per_kwh", 0, 0, 10, 0, NULL, false},
                {"ownership_life_years", PLAN_RVB_DEFAULT_LIFE_YEARS, 0.1, 50, 0, NULL, false},
                {"owned_utilisation", PLAN_RVB_DEFAULT_UTILISATION, 0, 1.5, 0, NULL, false},
                {"datacenter_pue", 1, 1, 5, 0, NULL, false},
                {"server_usd_per_gpu", 0, 0, 1e7, 0, NULL, false},
                {"host_watts_per_gpu", 0, 0, 1e5, 0, NULL, false},
                {"hosting_usd_per_kw_month", 0, 0, 1e5, 0, NULL, false},
                {"resale_fraction", 0, 0, 0.95, 0, NULL, false},
        };
        enum { S_KWH, S_LIFE, S_UTIL, S_PUE, S_SERVER, S_HOST_W, S_HOSTING, S_RESALE, S_COUNT };
        struct plan_price_rules rules;
        struct rvb_request *q = ctx;
        struct plan_rvb_input in = q->in;
        const char *gpu_id = q->gpu_id, *buy_id = q->buy_id, *condition = q->condition;
        double purchase_usd = q->purchase_usd;
        int64_t gpus = q->gpus;
        const struct catalog_setting *hpm;
        const struct catalog_purchase_price *pp;
        const struct gpu_spec *rent_gpu, *buy_gpu;
        struct plan_rvb_result res;
        json_t *rent = NULL, *assumptions = NULL, *doc;
        size_t n;

        memset(&res, 0, sizeof(res));
        rent_gpu = catalog_gpu(s, gpu_id);
        in.buy_gpu_index = catalog_gpu_index(s, buy_id ? buy_id : gpu_id);
        if (!rent_gpu || in.buy_gpu_index == SIZE_MAX) {
                api_problem_field(rs, 400, rent_gpu ? "/buy_gpu" : "/gpu", "exists",
                                  "no catalog GPU with this id (GET /api/v1/gpus)");
                goto out;
        }
        in.rent_gpu_index = catalog_gpu_index(s, gpu_id);
        buy_gpu = catalog_gpus(s, &n) + in.buy_gpu_index;

        /* Settings: the request overrides the catalog, the catalog the fallback. */
        for (int i = 0; i < S_COUNT; i++) {
                set[i].row = catalog_setting(s, set[i].key);
                set[i].value = set[i].row ? set[i].row->value : set[i].fallback;
                if (fields_number(rs, body, "", set[i].key, 0, set[i].min, set[i].max,
                                  &set[i].value))
                        goto out;
                set[i].from_request = json_object_get(body, set[i].key) != NULL;
        }
        if (!set[S_KWH].row && !set[S_KWH].from_request) {
                api_problem_field(rs, 422, "/electricity_usd_per_kwh", "required",
                                  "the catalog has no electricity_usd_per_kwh setting; pass one");
                goto out;
        }
        hpm = catalog_setting(s, "hours_per_month");
        in.hours_per_month = hpm && hpm->value > 0 ? hpm->value : PLAN_RVB_DEFAULT_HOURS_PER_MONTH;

        /* The purchase: the request's figure, else the newest catalog price (new before used). */
        pp = plan_rent_vs_buy_purchase(s, in.buy_gpu_index, condition);
        if (purchase_usd == 0 && !pp) {
                purchase_missing(rs, s, buy_gpu->id);
                goto out;
        }
        if (buy_gpu->tdp_watts <= 0) {
                api_problem_field(rs, 422, buy_id ? "/buy_gpu" : "/gpu", "tdp",
                                  "the catalog has no TDP for this accelerator, so its power cost"
                                  " is unknown");
                goto out;
        }
        in.purchase_usd = purchase_usd == 0 ? pp->usd : purchase_usd;
        in.gpus = (uint32_t)gpus;
        in.electricity_usd_per_kwh = set[S_KWH].value;
        in.life_years = set[S_LIFE].value;
        in.utilisation = set[S_UTIL].value;
        in.pue = set[S_PUE].value;
        in.server_usd_per_gpu = set[S_SERVER].value;
        in.host_watts_per_gpu = set[S_HOST_W].value;
        in.hosting_usd_per_kw_month = set[S_HOSTING].value;
        in.resale_fraction = set[S_RESALE].value;
        /* Rent rows from fresh quotes, no notebook tiers, each instance type in its cheapest region. */
        plan_price_pick_rules_defaults(&rules, s, api_price_options_today());
        rules.pricing = in.pricing;
        in.prices = &rules;
        if (plan_rent_vs_buy_compute(s, &in, &res)) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }

        rent = json_array();
        for (size_t i = 0; rent && i < res.n_rent; i++) {
                json_t *row = rent_json(s, in.pricing, rent_gpu->id, &res, &res.rent[i]);

                if (row)
                        json_array_append_new(rent, row);
        }

        assumptions = json_array();
        for (int i = 0; assumptions && i < S_COUNT; i++) {
                const struct catalog_setting *r = set[i].row;
                const char *source = set[i].from_request ? "request"
                                     : r                 ? r->source
                                                         : "built-in default";

                json_array_append_new(
                        assumptions,
                        json_pack("{s:s, s:f, s:o, s:s}", "key", set[i].key, "value", set[i].value,
                                  "unit", catalog_json_str(r ? r->unit : NULL), "source", source));
        }
        json_array_append_new(assumptions,
                              json_pack("{s:s, s:f, s:s, s:s}", "key", "hours_per_month", "value",
                                        in.hours_per_month, "unit", "hours", "source",
                                        hpm ? hpm->source : "8760 hours / 12"));
        json_array_append_new(
                assumptions,
                json_pack("{s:s, s:s}", "key", "basis", "note",
                          in.basis == PLAN_RVB_PER_GPU
                                  ? "per GPU: each offering's price per GPU-hour x gpus against"
                                    " owning gpus GPUs (an 8-GPU instance is counted as 8 single"
                                    " GPUs, though it rents only whole)"
                                  : "like for like: each offering against owning as many GPUs as"
                                    " the instances it rents (an 8-GPU instance against 8 owned"
                                    " GPUs in servers); the own figures of a row are under own"));
        json_array_append_new(
                assumptions,
                json_pack("{s:s, s:i}", "key", "price_max_age_days", "value", rules.max_age_days));
        json_array_append_new(
                assumptions,
                json_pack("{s:s, s:s}", "key", "not_counted", "note",
                          "straight-line amortisation to the resale value; no financing, staff"
                          " time or idle power; rent rows use quotes no older than"
                          " price_max_age_days, no notebook tiers, each instance type in its"
                          " cheapest region; the owned GPU is assumed as fast as the rented"
                          " one"));

        doc = json_pack(
                "{s:{s:[f,f], s:[f,f], s:I, s:o}, s:o, s:{s:s, s:s, s:I, s:f, s:o, s:o, s:o, s:f,"
                " s:f, s:f, s:f, s:o}, s:o}",
                "usage", "jobs_per_week", in.jobs_per_week[0], in.jobs_per_week[1], "hours_per_job",
                in.hours_per_job[0], in.hours_per_job[1], "gpus", (json_int_t)gpus,
                "hours_per_month", low_high(res.hours_per_month[0], res.hours_per_month[1]), "rent",
                rent ? rent : json_array(), "buy", "gpu", buy_gpu->id, "gpu_name", buy_gpu->name,
                "boards", (json_int_t)res.boards, "purchase_usd", in.purchase_usd, "condition",
                catalog_json_str(pp && !json_object_get(body, "purchase_usd") ? pp->condition
                                                                          : condition),
                "purchase_as_of",
                catalog_json_str(pp && !json_object_get(body, "purchase_usd") ? pp->as_of : NULL),
                "purchase_source",
                catalog_json_str(pp && !json_object_get(body, "purchase_usd") ? pp->source : "request"),
                "amortised_monthly_usd", res.amortised_monthly_usd, "power_watts", res.power_watts,
                "energy_usd_per_hour", res.energy_usd_per_hour, "tdp_watts", buy_gpu->tdp_watts,
                "monthly_usd", low_high(res.own_monthly_usd[0], res.own_monthly_usd[1]),
                "assumptions", assumptions ? assumptions : json_array());
        rent = assumptions = NULL; /* stolen by json_pack, also on failure */
        if (doc) {
                json_t *buy = json_object_get(doc, "buy");

                json_object_set_new(doc, "basis",
                                    json_string(in.basis == PLAN_RVB_PER_GPU ? "per_gpu"
                                                                             : "instance"));
                json_object_set_new(buy, "capex_usd", json_real(res.own.capex_usd));
                json_object_set_new(buy, "hosting_monthly_usd",
                                    json_real(res.own.hosting_monthly_usd));
                json_object_set_new(buy, "depreciation_monthly_usd",
                                    json_real(res.own.amortised_monthly_usd));
                json_object_set_new(doc, "break_even_series", series_json(s, &res, in.hours_per_month));
        }
        api_reply_json(rs, 200, doc);
out:
        json_decref(rent);
        json_decref(assumptions);
        plan_rent_vs_buy_result_free(&res);
}

void api_rent_vs_buy(const struct api_request *rq, struct api_response *rs)
{
        const char *pricing_name = "on_demand", *basis = NULL;
        const char **provider_ids = NULL;
        const struct catalog_snapshot *s = NULL;
        struct rvb_request q;
        json_t *body, *providers;
        char detail[256];

        memset(&q, 0, sizeof(q));
        q.gpus = 1;
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (fields_known(rs, body, "", rvb_keys) ||
            fields_string(rs, body, "", "gpu", FIELD_REQUIRED, 64, &q.gpu_id) ||
            fields_string(rs, body, "", "buy_gpu", 0, 64, &q.buy_id) ||
            fields_int(rs, body, "", "gpus", 0, 1, 64, &q.gpus) ||
            usage_range(rs, body, "jobs_per_week", JOBS_PER_WEEK_MIN, 7 * 24, q.in.jobs_per_week) ||
            usage_range(rs, body, "hours_per_job", HOURS_PER_JOB_MIN, PLAN_RVB_HOURS_PER_WEEK,
                        q.in.hours_per_job) ||
            fields_string(rs, body, "", "pricing", 0, 16, &pricing_name) ||
            fields_string(rs, body, "", "basis", 0, 16, &basis) ||
            fields_string(rs, body, "", "condition", 0, 8, &q.condition) ||
            fields_number(rs, body, "", "purchase_usd", 0, 1, 1e9, &q.purchase_usd))
                goto out;
        if (catalog_pricing_parse(pricing_name, &q.in.pricing)) {
                api_problem_field(rs, 400, "/pricing", "enum",
                                  "pricing must be on_demand, spot or reserved");
                goto out;
        }
        if (basis && strcmp(basis, "instance") != 0 && strcmp(basis, "per_gpu") != 0) {
                api_problem_field(rs, 400, "/basis", "enum", "basis must be instance or per_gpu");
                goto out;
        }
        q.in.basis = basis && strcmp(basis, "per_gpu") == 0 ? PLAN_RVB_PER_GPU : PLAN_RVB_INSTANCE;
        if (q.condition && !catalog_condition_valid(q.condition)) {
                api_problem_field(rs, 400, "/condition", "enum", "condition must be new or used");
                goto out;
        }
        providers = json_object_get(body, "providers");
        if (providers && !json_is_array(providers)) {
                api_problem_field(rs, 400, "/providers", "type",
                                  "providers must be an array of provider ids");
                goto out;
        }
        for (size_t i = 0; providers && i < json_array_size(providers); i++) {
                if (!json_is_string(json_array_get(providers, i))) {
                        snprintf(detail, sizeof(detail), "/providers/%zu", i);
                        api_problem_field(rs, 400, detail, "type", "a provider id is a string");
                        goto out;
                }
        }
        if (q.in.jobs_per_week[1] * q.in.hours_per_job[1] > PLAN_RVB_HOURS_PER_WEEK) {
                api_problem_field(rs, 400, "/hours_per_job", "range",
                                  "jobs_per_week x hours_per_job exceeds the 168 hours of a week");
                goto out;
        }
        /* An empty list is kept as such: it lists no provider, so nothing is rented. */
        if (providers) {
                provider_ids = calloc(json_array_size(providers) + 1, sizeof(*provider_ids));
                if (!provider_ids) {
                        api_problem(rs, 500, "out of memory");
                        goto out;
                }
                for (size_t i = 0; i < json_array_size(providers); i++)
                        provider_ids[i] = json_string_value(json_array_get(providers, i));
                q.in.providers = provider_ids;
                q.in.n_providers = json_array_size(providers);
        }
        s = api_catalog_snapshot(rq, rs);
        if (!s)
                goto out;
        /* The same rule as compare and serving_plan: an unknown provider is a 400. */
        for (size_t i = 0; i < q.in.n_providers; i++)
                if (!catalog_provider(s, q.in.providers[i])) {
                        snprintf(detail, sizeof(detail), "/providers/%zu", i);
                        api_problem_field(rs, 400, detail, "exists",
                                          "not a provider id in the catalog");
                        goto out;
                }
        api_answer_cached(rq, rs, "rent_vs_buy", s, body, rvb_answer, &q);
out:
        free(provider_ids);
        catalog_release(s);
        json_decref(body);
}
