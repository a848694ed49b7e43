/*
 * price_pick.h - which stored prices a plan may rank.
 *
 * compare (train_search.c) and serving_plan (serving.c) price offerings
 * through this one module, so both leave out the same quotes for the same
 * reasons:
 *   - a quote older than max_age_days (the price_max_age_days setting,
 *     180 by default) stays in the history but is not ranked, unless the
 *     request sets include_stale; its exclusion says "quote of YYYY-MM-DD,
 *     older than N days";
 *   - notebook services and free tiers (offerings.offering_kind notebook
 *     or free_tier: no SLA, session limits) are left out unless the
 *     request sets include_notebooks;
 *   - a region filter keeps only offerings in the listed regions (exact
 *     region names, as the catalog stores them);
 *   - one instance type of one provider listed in several regions is
 *     ranked once, in its cheapest region, unless per_region is set (then
 *     every region is its own row).
 *
 * Plain structs, no I/O: the caller passes today's date.
 *
 * Memory: plan_price_pick_all() allocates the array it returns; free() it.
 * Thread-safety: no shared state.
 */
#ifndef GPUPLAN_PLAN_PRICE_PICK_H
#define GPUPLAN_PLAN_PRICE_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog.h"

#define PLAN_REGIONS_MAX         32
#define PLAN_PRICE_MAX_AGE_DAYS  180 /* when the setting is absent */

struct plan_price_rules {
        enum catalog_pricing pricing;
        const char *regions[PLAN_REGIONS_MAX]; /* empty = every region; borrowed */
        size_t n_regions;
        bool per_region;        /* rank every region of an instance type */
        bool include_stale;     /* rank quotes older than max_age_days too */
        bool include_notebooks; /* rank notebook services and free tiers too */
        int max_age_days;       /* 0 = no limit (a zeroed struct) */
        long today_days;        /* days since 1970-01-01 (UTC) */
};

enum plan_price_verdict {
        PLAN_PRICE_OK = 0,
        PLAN_PRICE_NONE,      /* no price of the requested kind: nothing to say */
        PLAN_PRICE_REGION,    /* outside the region filter: nothing to say */
        PLAN_PRICE_OTHER_REGION, /* a cheaper region of the same instance type is ranked */
        PLAN_PRICE_STALE,     /* older than max_age_days */
        PLAN_PRICE_NOTEBOOK,  /* a notebook service or free tier */
};

struct plan_price_pick {
        const struct catalog_price *price; /* the price to rank; NULL unless verdict is OK */
        const struct catalog_price *quote; /* the stored price, whatever the verdict */
        enum plan_price_verdict verdict;
        int age_days;                      /* of quote; -1 when there is none */
        unsigned regions;                  /* OK rows: regions at this price or dearer folded in */
};

/* Rules with the defaults: on_demand, any region, cheapest region, fresh quotes only, no notebooks. */
void plan_price_pick_rules_defaults(struct plan_price_rules *r, const struct catalog_snapshot *s,
                                    long today_days);

/* Days since 1970-01-01 of "YYYY-MM-DD"; -1 when malformed. */
long plan_price_pick_days(const char *date);

/*
 * One pick per catalog offering (same order as catalog_offerings()), or
 * NULL when out of memory.  Free with free().
 */
struct plan_price_pick *plan_price_pick_all(const struct catalog_snapshot *s,
                                            const struct plan_price_rules *r);

/*
 * Why a pick is not ranked, for the plan's exclusion list; returns false
 * (buf untouched) for verdicts that need no word (OK, NONE, REGION,
 * OTHER_REGION).
 */
bool plan_price_pick_why(const struct plan_price_pick *p, const struct catalog_offering *o,
                         const struct plan_price_rules *r, char *buf, size_t len);

#endif
