/*
 * price_options.h - the price options compare and serving_plan share:
 * decoding constraints.regions, per_region, include_stale_prices and
 * include_notebooks into a struct plan_price_rules (plan/price_pick.h), and
 * the price members every plan row carries (age, regions folded, spot).
 *
 * Memory: region strings borrow from the request JSON, which must outlive
 * the rules.  Thread-safety: reentrant.
 */
#ifndef GPUPLAN_API_PRICE_OPTIONS_H
#define GPUPLAN_API_PRICE_OPTIONS_H

#include <jansson.h>

#include "api/handler.h"
#include "api/jsonw.h"
#include "catalog/catalog.h"
#include "plan/price_pick.h"

/* The keys api_price_options_decode() reads, for a caller's list of known keys. */
#define API_PRICE_OPTION_KEYS "regions", "per_region", "include_stale_prices", "include_notebooks"

/*
 * Today (UTC) as days since 1970-01-01: the day quote ages and the
 * freshness limit are reckoned from.  The environment variable
 * GPUPLAN_TODAY=YYYY-MM-DD overrides it (a malformed value is ignored);
 * dates stamped on new prices stay the real date.
 */
long api_price_options_today(void);

/*
 * Fill r with the defaults (the snapshot's price_max_age_days, today) and
 * the options found in constraints (may be NULL).  pricing is left to the
 * caller.  Returns 0, or -1 with rs = 400 naming the field.
 */
int api_price_options_decode(struct api_response *rs, json_t *constraints,
                             const struct catalog_snapshot *s, struct plan_price_rules *r);

/*
 * Add to a plan row: region (the offering's), price_age_days, price_regions (regions of the instance
 * type at this price or dearer, when more than one) and, for spot prices,
 * interruptible: true.
 */
void api_price_options_plan_fields(json_t *row, const char *region, const struct catalog_price *p,
                                   unsigned regions, const struct plan_price_rules *r);
/* The same members, written to w (inside the row's object). */
void api_price_options_plan_fields_write(struct jsonw *w, const char *region,
                                         const struct catalog_price *p, unsigned regions,
                                         const struct plan_price_rules *r);

/* The rules as the response's constraints echo them: members written to w
 * (inside the constraints object). */
void api_price_options_echo_write(struct jsonw *w, const struct plan_price_rules *r);

#endif
