/*
 * price_options.c - see price_options.h.
 */
#include "api/price_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/fields.h"

/*
 * Days since 1970-01-01 of the proleptic Gregorian date y-m-d (Howard
 * Hinnant, "chrono-Compatible Low-Level Date Algorithms", days_from_civil:
 * https://howardhinnant.github.io/date_algorithms.html#days_from_civil).
 */
static long days_from_civil(long y, long m, long d)
{
        y -= m <= 2;
        long era = (y >= 0 ? y : y - 399) / 400;
        long yoe = y - era * 400;
        long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
}

long api_price_options_today(void)
{
        /* GPUPLAN_TODAY=YYYY-MM-DD states the day quote ages are reckoned
         * from (tests pin it to the shipped snapshot's date); anything else
         * means the real date. */
        const char *env = getenv("GPUPLAN_TODAY");
        int y = 0, m = 0, d = 0, used = 0;

        if (env && sscanf(env, "%4d-%2d-%2d%n", &y, &m, &d, &used) == 3 && env[used] == '\0' &&
            y >= 1970 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= 31)
                return days_from_civil(y, m, d);
        return (long)(time(NULL) / 86400);
}

static bool region_known(const struct catalog_snapshot *s, const char *region)
{
        size_t n = 0;
        const struct catalog_offering *o = catalog_offerings(s, &n);

        for (size_t i = 0; i < n; i++)
                if (strcmp(o[i].region, region) == 0)
                        return true;
        return false;
}

int api_price_options_decode(struct api_response *rs, json_t *constraints,
                             const struct catalog_snapshot *s, struct plan_price_rules *r)
{
        json_t *regions;

        plan_price_pick_rules_defaults(r, s, api_price_options_today());
        if (!constraints || !json_is_object(constraints))
                return 0;
        if (fields_bool(rs, constraints, "/constraints", "per_region", 0, &r->per_region) ||
            fields_bool(rs, constraints, "/constraints", "include_stale_prices", 0,
                        &r->include_stale) ||
            fields_bool(rs, constraints, "/constraints", "include_notebooks", 0,
                        &r->include_notebooks))
                return -1;
        regions = json_object_get(constraints, "regions");
        if (!regions || json_is_null(regions))
                return 0;
        if (!json_is_array(regions) || json_array_size(regions) > PLAN_REGIONS_MAX) {
                api_problem_field(rs, 400, "/constraints/regions", "type",
                                  "regions must be an array of at most 32 region names, as the "
                                  "offerings list them (GET /api/v1/providers)");
                return -1;
        }
        for (size_t i = 0; i < json_array_size(regions); i++) {
                const char *name = json_string_value(json_array_get(regions, i));
                char pointer[48], detail[200];

                snprintf(pointer, sizeof(pointer), "/constraints/regions/%zu", i);
                if (!name || !*name || strlen(name) > 64) {
                        api_problem_field(rs, 400, pointer, "type",
                                          "a region is a non-empty string of at most 64 bytes");
                        return -1;
                }
                if (!region_known(s, name)) {
                        snprintf(detail, sizeof(detail),
                                 "no offering of the catalog is in region %.64s (regions are "
                                 "listed per offering by GET /api/v1/providers/{id})",
                                 name);
                        api_problem_field(rs, 400, pointer, "unknown", detail);
                        return -1;
                }
                r->regions[r->n_regions++] = name;
        }
        return 0;
}

/* Days since the quote, or -1 when its date does not parse. */
static long price_age_days(const struct catalog_price *p, const struct plan_price_rules *r)
{
        long as_of = plan_price_pick_days(p->as_of);

        return as_of >= 0 ? r->today_days - as_of : -1;
}

void api_price_options_plan_fields(json_t *row, const char *region, const struct catalog_price *p,
                                   unsigned regions, const struct plan_price_rules *r)
{
        long age = price_age_days(p, r);

        if (!row)
                return;
        json_object_set_new(row, "region", json_string(region));
        json_object_set_new(row, "price_age_days",
                            age >= 0 ? json_integer((json_int_t)age) : json_null());
        if (regions > 1)
                json_object_set_new(row, "price_regions", json_integer((json_int_t)regions));
        if (p->pricing == CATALOG_SPOT)
                json_object_set_new(row, "interruptible", json_true());
}

void api_price_options_plan_fields_write(struct jsonw *w, const char *region,
                                         const struct catalog_price *p, unsigned regions,
                                         const struct plan_price_rules *r)
{
        long age = price_age_days(p, r);

        jsonw_kstring(w, "region", region);
        if (age >= 0)
                jsonw_kint(w, "price_age_days", age);
        else
                jsonw_knull(w, "price_age_days");
        if (regions > 1)
                jsonw_kint(w, "price_regions", regions);
        if (p->pricing == CATALOG_SPOT)
                jsonw_kbool(w, "interruptible", true);
}

void api_price_options_echo_write(struct jsonw *w, const struct plan_price_rules *r)
{
        jsonw_key(w, "regions");
        jsonw_array_begin(w);
        for (size_t i = 0; i < r->n_regions; i++)
                jsonw_string(w, r->regions[i]);
        jsonw_array_end(w);
        jsonw_kbool(w, "per_region", r->per_region);
        jsonw_kbool(w, "include_stale_prices", r->include_stale);
        jsonw_kbool(w, "include_notebooks", r->include_notebooks);
        jsonw_kint(w, "price_max_age_days", r->max_age_days);
}
