/*
 * price_pick.c - see price_pick.h.
 */
#include "plan/price_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "YYYY-MM-DD" exactly (how PostgreSQL writes a date): true with its
 * parts; a search reads one date per offering, and sscanf is most of that. */
static bool iso_date(const char *s, int *y, int *m, int *d)
{
        for (int i = 0; i < 10; i++)
                if (i == 4 || i == 7 ? s[i] != '-' : s[i] < '0' || s[i] > '9')
                        return false;
        if (s[10])
                return false;
        *y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        *m = (s[5] - '0') * 10 + (s[6] - '0');
        *d = (s[8] - '0') * 10 + (s[9] - '0');
        return true;
}

long plan_price_pick_days(const char *date)
{
        int y, m, d;
        char tail;
        long era, yoe, doy, doe;

        if (!date ||
            (!iso_date(date, &y, &m, &d) &&
             sscanf(date, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3) ||
            m < 1 || m > 12 || d < 1 || d > 31)
                return -1;
        /* Days from civil (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
         * days_from_civil): March-based years so that leap days fall last. */
        y -= m <= 2;
        era = (y >= 0 ? y : y - 399) / 400;
        yoe = y - era * 400;
        doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
}

void plan_price_pick_rules_defaults(struct plan_price_rules *r, const struct catalog_snapshot *s,
                                    long today_days)
{
        const struct catalog_setting *max_age = s ? catalog_setting(s, "price_max_age_days") : NULL;

        memset(r, 0, sizeof(*r));
        r->pricing = CATALOG_ON_DEMAND;
        r->max_age_days = max_age && max_age->value >= 1 && max_age->value <= 36500
                                  ? (int)max_age->value
                                  : PLAN_PRICE_MAX_AGE_DAYS;
        r->today_days = today_days;
}

static bool region_listed(const struct plan_price_rules *r, const char *region)
{
        if (!r->n_regions)
                return true;
        for (size_t i = 0; i < r->n_regions; i++)
                if (strcmp(r->regions[i], region) == 0)
                        return true;
        return false;
}

static bool notebook(const struct catalog_offering *o)
{
        return o->kind && (strcmp(o->kind, "notebook") == 0 || strcmp(o->kind, "free_tier") == 0);
}

struct ranked {
        const struct catalog_offering *o;
        double usd;
        size_t index;
};

static int ranked_cmp(const void *a, const void *b)
{
        const struct ranked *x = a, *y = b;
        /* Providers are sorted by id (catalog.h): their order is the ids'. */
        int c = (x->o->provider_index > y->o->provider_index) -
                (x->o->provider_index < y->o->provider_index);

        if (!c)
                c = strcmp(x->o->instance_type, y->o->instance_type);
        if (!c)
                c = (x->o->gpu_index > y->o->gpu_index) - (x->o->gpu_index < y->o->gpu_index);
        if (!c)
                c = (x->usd > y->usd) - (x->usd < y->usd);
        if (!c)
                c = (x->index > y->index) - (x->index < y->index);
        return c;
}

static bool same_type(const struct ranked *x, const struct ranked *y)
{
        return x->o->provider_index == y->o->provider_index &&
               strcmp(x->o->instance_type, y->o->instance_type) == 0 &&
               x->o->gpu_index == y->o->gpu_index &&
               x->o->gpus_per_instance == y->o->gpus_per_instance;
}

struct plan_price_pick *plan_price_pick_all(const struct catalog_snapshot *s,
                                            const struct plan_price_rules *r)
{
        size_t n = 0, n_ok = 0, n_prices = 0, at = 0;
        const struct catalog_offering *off = catalog_offerings(s, &n);
        const struct catalog_price *prices = catalog_prices(s, &n_prices);
        struct plan_price_pick *picks = calloc(n + 1, sizeof(*picks));
        struct ranked *ok;

        if (!picks)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                struct plan_price_pick *p = &picks[i];
                long as_of;

                /* Offerings and prices are both sorted by offering id
                 * (catalog.h): walked together, not searched per offering. */
                while (at < n_prices && strcmp(prices[at].offering_id, off[i].id) < 0)
                        at++;
                p->quote = NULL;
                for (size_t k = at; k < n_prices && strcmp(prices[k].offering_id, off[i].id) == 0;
                     k++)
                        if (prices[k].pricing == r->pricing) {
                                p->quote = &prices[k];
                                break;
                        }
                p->age_days = -1;
                if (!p->quote) {
                        p->verdict = PLAN_PRICE_NONE;
                        continue;
                }
                as_of = plan_price_pick_days(p->quote->as_of);
                if (as_of >= 0)
                        p->age_days = (int)(r->today_days - as_of);
                if (!region_listed(r, off[i].region))
                        p->verdict = PLAN_PRICE_REGION;
                else if (notebook(&off[i]) && !r->include_notebooks)
                        p->verdict = PLAN_PRICE_NOTEBOOK;
                else if (r->max_age_days > 0 && p->age_days > r->max_age_days && !r->include_stale)
                        p->verdict = PLAN_PRICE_STALE;
                else
                        n_ok++;
        }
        ok = calloc(n_ok + 1, sizeof(*ok));
        if (!ok) {
                free(picks);
                return NULL;
        }
        n_ok = 0;
        for (size_t i = 0; i < n; i++)
                if (picks[i].quote && picks[i].verdict == PLAN_PRICE_OK)
                        ok[n_ok++] = (struct ranked){&off[i], picks[i].quote->usd_per_hour, i};
        if (n_ok > 1)
                qsort(ok, n_ok, sizeof(*ok), ranked_cmp);
        /* The first of each instance type is its cheapest region. */
        for (size_t i = 0; i < n_ok;) {
                size_t j = i + 1;

                while (j < n_ok && same_type(&ok[i], &ok[j]))
                        j++;
                for (size_t k = i; k < j; k++) {
                        struct plan_price_pick *p = &picks[ok[k].index];

                        if (k == i || r->per_region) {
                                p->price = p->quote;
                                p->regions = r->per_region ? 1 : (unsigned)(j - i);
                        } else {
                                p->verdict = PLAN_PRICE_OTHER_REGION;
                        }
                }
                i = j;
        }
        free(ok);
        return picks;
}

bool plan_price_pick_why(const struct plan_price_pick *p, const struct catalog_offering *o,
                         const struct plan_price_rules *r, char *buf, size_t len)
{
        switch (p->verdict) {
        case PLAN_PRICE_STALE:
                snprintf(buf, len,
                         "quote of %s, older than %d days (price_max_age_days): not ranked "
                         "unless include_stale_prices is set",
                         p->quote->as_of, r->max_age_days);
                return true;
        case PLAN_PRICE_NOTEBOOK:
                snprintf(buf, len,
                         "a %s (no SLA, session limits): left out of team plans unless "
                         "include_notebooks is set",
                         o->kind && strcmp(o->kind, "free_tier") == 0 ? "free tier"
                                                                      : "notebook service");
                return true;
        case PLAN_PRICE_OK:
        case PLAN_PRICE_NONE:
        case PLAN_PRICE_REGION:
        case PLAN_PRICE_OTHER_REGION:
                break;
        }
        return false;
}
