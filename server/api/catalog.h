/*
 * catalog.h - the catalog snapshot as handlers use it: take it (or answer
 * 503 while none is loaded), answer a matching If-None-Match with 304 from
 * its ETag, and after a committed write reload it and reply with the
 * entity as the new snapshot shows it.
 *
 * Every function that takes a struct api_response fills it with a problem
 * document when it fails, so a handler can simply return.
 *
 * Memory: a snapshot returned is the caller's to catalog_release().
 * Thread-safety: every function is reentrant; the reload takes the sync's
 * own lock.
 */
#ifndef GPUPLAN_API_CATALOG_H
#define GPUPLAN_API_CATALOG_H

#include <stdbool.h>

#include "api/handler.h"
#include "catalog/catalog.h"

/* The current snapshot, or NULL with rs = 503 + Retry-After (none loaded yet). */
const struct catalog_snapshot *api_catalog_snapshot(const struct api_request *rq,
                                                    struct api_response *rs);

/*
 * Add the snapshot's ETag (and Cache-Control: no-cache).  Returns 1 when
 * If-None-Match matches it, having turned rs into a bodiless 304; else 0.
 */
int api_catalog_etag(const struct api_request *rq, struct api_response *rs,
                     const struct catalog_snapshot *s);

/*
 * Reload this replica's snapshot after a committed write, so the next read
 * here sees it (other replicas learn through NOTIFY).  Returns true when
 * the reload succeeded.
 */
bool api_catalog_refresh(const struct api_request *rq);

enum api_entity {
        API_ENTITY_GPU,
        API_ENTITY_PROVIDER,
        API_ENTITY_OFFERING,
        API_ENTITY_SETTING,
        API_ENTITY_MODEL,
};

/*
 * A query argument (arg: "?gpu", "?provider", "?offering") that filters a
 * list by an id of kind: absent or a known id returns 0; an id the snapshot
 * does not hold returns -1 with rs = 400 naming the argument (rule
 * "exists") and the list that shows the valid ids - the rule estimate,
 * compare, serving_plan and rent_vs_buy apply to ids in a body, instead
 * of an empty list that reads as "no prices".
 */
int api_catalog_query_id(const struct catalog_snapshot *s, struct api_response *rs, const char *arg,
                         enum api_entity kind, const char *id);

/*
 * After a committed upsert: reload this replica's snapshot and answer 201
 * (created) or 200 with the entity as the refreshed snapshot shows it, plus
 * "snapshot_reloaded": false in the rare case the reload failed (the write
 * stands; the NOTIFY or the next periodic reload will bring it in).
 */
void api_catalog_write_reply(const struct api_request *rq, struct api_response *rs, bool created,
                             enum api_entity kind, const char *id);

#endif
