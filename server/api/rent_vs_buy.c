/*
 * rent_vs_buy.c - POST /api/v1/rent_vs_buy: for a usage pattern (jobs per
 * week x hours per job), the monthly cloud cost of every priced offering
 * of a GPU, the monthly cost of owning one, and the break-even usage.
 *
 * The model (all inputs from the catalog snapshot, overridable per request):
 *
 *   hours/month     = jobs/week x hours/job x (hours_per_month / 168)
 *                     (weeks per month = 730 / 168 = 4.35; 730 = 8760 / 12)
 *   rent/month      = instances x instance usd/hour x hours/month, where
 *                     instances = ceil(gpus / gpus_per_instance): a job
 *                     pays for whole instances
 *   own/month       = boards x purchase usd / (life_years x 12)
 *                     + gpus x TDP x owned_utilisation x host_power_overhead
 *                       / 1000 x usd/kWh x hours/month
 *   break-even      = fixed / (rent usd/hour - energy usd/hour) hours/month,
 *                     none when renting costs no more per hour than the
 *                     electricity an owned card burns.
 *
 * Straight-line amortisation with no resale value, financing or staff time:
 * stated in "assumptions" so a reader can see what is and is not counted.
 *
 * When no offering rents the exact variant asked for (no A100 PCIe 40GB is
 * rented anywhere in the catalog), the rent side lists the offerings of
 * the same family instead (every A100), each row labelled with the GPU it
 * rents and "match": "family", so the answer is an A100 answer rather than
 * none at all.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/catalog_api.h"
#include "api/catalog_common.h"

#define RVB_DEFAULT_LIFE_YEARS      3.0
#define RVB_DEFAULT_UTILISATION     0.8
#define RVB_DEFAULT_OVERHEAD        1.3
#define RVB_DEFAULT_HOURS_PER_MONTH 730.0 /* 8760 h / 12 */
#define RVB_HOURS_PER_WEEK          168.0

/*
 * The family of an accelerator id: the id without its form-factor and
 * memory-size segments, following the catalog's id scheme
 * ("<model>[-<form factor>][-<size>gb]", migration 0002):
 * "a100-sxm-40gb" -> "a100", "h100-nvl-94gb" -> "h100", "v100-sxm2-16gb" ->
 * "v100", while "rtx-3090", "a10g" and "l40s" are families of their own.
 */
static void gpu_family(const char *id, char *out, size_t len)
{
        size_t used = 0;

        out[0] = '\0';
        while (*id) {
                size_t seg = strcspn(id, "-"), digits = 0;
                bool drop;

                while (digits < seg && isdigit((unsigned char)id[digits]))
                        digits++;
                drop = (seg == 4 && strncmp(id, "pcie", 4) == 0) ||
                       (seg >= 3 && strncmp(id, "sxm", 3) == 0) ||
                       (seg == 3 && strncmp(id, "nvl", 3) == 0) ||
                       (digits > 0 && seg == digits + 2 && strncmp(id + digits, "gb", 2) == 0);
                if (!drop && used + seg + 2 <= len) {
                        if (used)
                                out[used++] = '-';
                        memcpy(out + used, id, seg);
                        used += seg;
                        out[used] = '\0';
                }
                id += seg;
                if (*id == '-')
                        id++;
        }
}

/* A usage figure given as a number or as [low, high]. */
static int usage_range(struct api_response *rs, json_t *body, const char *key, double max,
                       double out[2])
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
        if (!isfinite(out[0]) || !isfinite(out[1]) || out[0] <= 0 || out[1] < out[0] ||
            out[1] > max) {
                snprintf(detail, sizeof(detail), "%s must be > 0 and at most %g, low <= high", key,
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

        gpu_family(buy_id, family, sizeof(family));
        used = (size_t)snprintf(detail, sizeof(detail),
                                "the catalog has no purchase price for %s; pass purchase_usd",
                                buy_id);
        for (size_t i = 0; i < n && used < sizeof(detail); i++) {
                gpu_family(all[i].accelerator_id, member, sizeof(member));
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
                                       "host_power_overhead",
                                       NULL};

void api_rent_vs_buy(const struct api_request *rq, struct api_response *rs)
{
        struct rvb_setting set[] = {
                {"electricity_usd_per_kwh", 0, 0, 10, 0, NULL, false},
                {"ownership_life_years", RVB_DEFAULT_LIFE_YEARS, 0.1, 50, 0, NULL, false},
                {"owned_utilisation", RVB_DEFAULT_UTILISATION, 0, 1.5, 0, NULL, false},
                {"host_power_overhead", RVB_DEFAULT_OVERHEAD, 1, 5, 0, NULL, false},
        };
        enum { S_KWH, S_LIFE, S_UTIL, S_OVERHEAD, S_COUNT };
        const char *gpu_id = NULL, *buy_id = NULL, *pricing_name = "on_demand";
        const char *condition = NULL;
        double jobs[2], job_hours[2], hours[2], purchase_usd = 0, hours_per_month;
        int64_t gpus = 1;
        enum catalog_pricing pricing;
        const struct catalog_snapshot *s = NULL;
        const struct catalog_setting *hpm;
        const struct catalog_purchase_price *pp = NULL, *all_pp;
        const struct catalog_offering *off;
        const struct gpu_spec *rent_gpu, *buy_gpu;
        const struct catalog_gpu_info *infos;
        json_t *body, *providers, *rent = NULL, *assumptions = NULL, *doc;
        size_t n, n_off, buy_index;
        double boards, fixed_monthly, energy_per_hour, watts;
        char detail[256], family[GPU_ID_MAX];

        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (api_fields_known(rs, body, "", rvb_keys) ||
            api_field_string(rs, body, "", "gpu", FIELD_REQUIRED, 64, &gpu_id) ||
            api_field_string(rs, body, "", "buy_gpu", 0, 64, &buy_id) ||
            api_field_int(rs, body, "", "gpus", 0, 1, 64, &gpus) ||
            usage_range(rs, body, "jobs_per_week", 7 * 24, jobs) ||
            usage_range(rs, body, "hours_per_job", RVB_HOURS_PER_WEEK, job_hours) ||
            api_field_string(rs, body, "", "pricing", 0, 16, &pricing_name) ||
            api_field_string(rs, body, "", "condition", 0, 8, &condition) ||
            api_field_number(rs, body, "", "purchase_usd", 0, 1, 1e9, &purchase_usd))
                goto out;
        if (catalog_pricing_parse(pricing_name, &pricing)) {
                api_problem_field(rs, 400, "/pricing", "enum",
                                  "pricing must be on_demand, spot or reserved");
                goto out;
        }
        if (condition && strcmp(condition, "new") != 0 && strcmp(condition, "used") != 0) {
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
        if (jobs[1] * job_hours[1] > RVB_HOURS_PER_WEEK) {
                api_problem_field(rs, 400, "/hours_per_job", "range",
                                  "jobs_per_week x hours_per_job exceeds the 168 hours of a week");
                goto out;
        }

        s = api_catalog_snapshot(rq, rs);
        if (!s)
                goto out;
        rent_gpu = catalog_gpu(s, gpu_id);
        buy_index = catalog_gpu_index(s, buy_id ? buy_id : gpu_id);
        catalog_gpus(s, &n);
        if (!rent_gpu || buy_index == SIZE_MAX) {
                api_problem_field(rs, 404, rent_gpu ? "/buy_gpu" : "/gpu", "exists",
                                  "no accelerator with this id in the catalog");
                goto out;
        }
        buy_gpu = catalog_gpus(s, &n) + buy_index;
        infos = catalog_gpu_infos(s, &n);

        /* Settings: the request overrides the catalog, the catalog the fallback. */
        for (int i = 0; i < S_COUNT; i++) {
                set[i].row = catalog_setting(s, set[i].key);
                set[i].value = set[i].row ? set[i].row->value : set[i].fallback;
                if (api_field_number(rs, body, "", set[i].key, 0, set[i].min, set[i].max,
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
        hours_per_month = hpm && hpm->value > 0 ? hpm->value : RVB_DEFAULT_HOURS_PER_MONTH;
        for (int i = 0; i < 2; i++)
                hours[i] = jobs[i] * job_hours[i] * hours_per_month / RVB_HOURS_PER_WEEK;

        /* The purchase: the request's figure, else the newest catalog price (new before used). */
        all_pp = catalog_purchase_prices(s, &n);
        for (size_t i = 0; i < n; i++) {
                if (all_pp[i].gpu_index != buy_index)
                        continue;
                if (condition && strcmp(condition, all_pp[i].condition) != 0)
                        continue;
                if (!pp || strcmp(all_pp[i].condition, "new") == 0)
                        pp = &all_pp[i];
        }
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
        if (purchase_usd == 0)
                purchase_usd = pp->usd;
        /* A purchase price is per board; a K80 board holds two schedulable GPUs. */
        boards =
                ceil((double)gpus /
                     (infos[buy_index].chips_per_board > 0 ? infos[buy_index].chips_per_board : 1));
        fixed_monthly = boards * purchase_usd / (set[S_LIFE].value * 12);
        watts = (double)gpus * buy_gpu->tdp_watts * set[S_UTIL].value * set[S_OVERHEAD].value;
        energy_per_hour = watts / 1000 * set[S_KWH].value;

        rent = json_array();
        off = catalog_offerings(s, &n_off);
        gpu_family(rent_gpu->id, family, sizeof(family));
        /* Pass 0: the exact variant; pass 1, only if pass 0 found none: its family. */
        for (int pass = 0; rent && pass < 2 && json_array_size(rent) == 0; pass++)
                for (size_t i = 0; rent && i < n_off; i++) {
                        const struct catalog_price *p;
                        double instances, per_hour, breakeven;
                        bool listed = !providers;
                        json_t *row;
                        char member[GPU_ID_MAX];

                        if (pass == 0 && strcmp(off[i].accelerator_id, rent_gpu->id) != 0)
                                continue;
                        if (pass == 1) {
                                gpu_family(off[i].accelerator_id, member, sizeof(member));
                                if (strcmp(member, family) != 0)
                                        continue;
                        }
                        for (size_t j = 0; providers && j < json_array_size(providers); j++)
                                listed |= strcmp(json_string_value(json_array_get(providers, j)),
                                                 off[i].provider_id) == 0;
                        p = catalog_price(s, off[i].id, pricing);
                        if (!listed || !p)
                                continue;
                        instances = ceil((double)gpus / off[i].gpus_per_instance);
                        per_hour = instances * p->usd_per_hour;
                        breakeven = per_hour > energy_per_hour
                                            ? fixed_monthly / (per_hour - energy_per_hour)
                                            : -1;
                        row = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:s, s:s, s:o}",
                                        "provider", off[i].provider_id, "offering", off[i].id,
                                        "instance_type", off[i].instance_type, "pricing",
                                        catalog_pricing_name(pricing), "gpus_per_instance",
                                        off[i].gpus_per_instance, "instances",
                                        (json_int_t)instances, "usd_per_hour", per_hour,
                                        "usd_per_gpu_hour",
                                        p->usd_per_hour / off[i].gpus_per_instance, "price_as_of",
                                        p->as_of, "price_source", p->source, "monthly_usd",
                                        low_high(per_hour * hours[0], per_hour * hours[1]));
                        if (!row)
                                continue;
                        json_object_set_new(row, "gpu", json_string(off[i].accelerator_id));
                        json_object_set_new(row, "match",
                                            json_string(pass == 0 ? "exact" : "family"));
                        if (pass == 1) {
                                snprintf(detail, sizeof(detail),
                                         "no offering rents %s; this one rents %s, of the same "
                                         "family (%s)",
                                         rent_gpu->id, off[i].accelerator_id, family);
                                json_object_set_new(row, "note", json_string(detail));
                        }
                        json_object_set_new(row, "break_even_hours_per_month",
                                            breakeven >= 0 ? json_real(breakeven) : json_null());
                        json_object_set_new(
                                row, "cheaper",
                                json_pack("{s:s, s:s}", "low",
                                          per_hour * hours[0] <=
                                                          fixed_monthly + energy_per_hour * hours[0]
                                                  ? "rent"
                                                  : "buy",
                                          "high",
                                          per_hour * hours[1] <=
                                                          fixed_monthly + energy_per_hour * hours[1]
                                                  ? "rent"
                                                  : "buy"));
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
                                  "unit", api_json_str(r ? r->unit : NULL), "source", source));
        }
        json_array_append_new(assumptions,
                              json_pack("{s:s, s:f, s:s, s:s}", "key", "hours_per_month", "value",
                                        hours_per_month, "unit", "hours", "source",
                                        hpm ? hpm->source : "8760 hours / 12"));
        json_array_append_new(
                assumptions,
                json_pack("{s:s, s:s}", "key", "not_counted", "note",
                          "straight-line amortisation with no resale value; no financing, host"
                          " machine, cooling beyond host_power_overhead, staff time or idle power;"
                          " the owned GPU is assumed as fast as the rented one"));

        doc = json_pack(
                "{s:{s:[f,f], s:[f,f], s:I, s:o}, s:o, s:{s:s, s:s, s:I, s:f, s:o, s:o, s:o, s:f,"
                " s:f, s:f, s:f, s:o}, s:o}",
                "usage", "jobs_per_week", jobs[0], jobs[1], "hours_per_job", job_hours[0],
                job_hours[1], "gpus", (json_int_t)gpus, "hours_per_month",
                low_high(hours[0], hours[1]), "rent", rent ? rent : json_array(), "buy", "gpu",
                buy_gpu->id, "gpu_name", buy_gpu->name, "boards", (json_int_t)boards,
                "purchase_usd", purchase_usd, "condition",
                api_json_str(pp && !json_object_get(body, "purchase_usd") ? pp->condition
                                                                          : condition),
                "purchase_as_of",
                api_json_str(pp && !json_object_get(body, "purchase_usd") ? pp->as_of : NULL),
                "purchase_source",
                api_json_str(pp && !json_object_get(body, "purchase_usd") ? pp->source : "request"),
                "amortised_monthly_usd", fixed_monthly, "power_watts", watts, "energy_usd_per_hour",
                energy_per_hour, "tdp_watts", buy_gpu->tdp_watts, "monthly_usd",
                low_high(fixed_monthly + energy_per_hour * hours[0],
                         fixed_monthly + energy_per_hour * hours[1]),
                "assumptions", assumptions ? assumptions : json_array());
        rent = assumptions = NULL; /* stolen by json_pack, also on failure */
        api_reply_json(rs, 200, doc);
out:
        json_decref(rent);
        json_decref(assumptions);
        catalog_release(s);
        json_decref(body);
}
