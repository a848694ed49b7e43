/*
 * answer_cached.h - serve the answers of pure, slow endpoints (compare, rent vs
 * buy) from the answer cache (server/plan/answer_cache.h).
 *
 * An answer is a function of the request body and the catalog snapshot
 * only, so it is keyed by the route, the snapshot's content validator
 * (catalog_etag: a new snapshot with new content never meets an old
 * answer) and the canonical body (json_dumps with sorted keys, compact:
 * key order and white space do not split the cache).  Answers below 500
 * without extra headers are stored, problem documents included, since
 * they too depend on nothing else; identical requests arriving while one
 * is computed wait for it.  Hits and misses are counted in /metrics
 * (gpuplan_answer_cache_hits_total, gpuplan_answer_cache_misses_total).
 *
 * Memory: nothing is kept by the caller; rs->body is malloc'd as by the
 * api_reply_* helpers.  Thread-safe.
 */
#ifndef GPUPLAN_API_ANSWER_CACHED_H
#define GPUPLAN_API_ANSWER_CACHED_H

#include <jansson.h>

#include "api/handler.h"
#include "catalog/catalog.h"

/* Fills rs with the answer to body on snapshot s; ctx is passed through. */
typedef void (*api_answer_fn)(const struct catalog_snapshot *s, json_t *body, void *ctx,
                              struct api_response *rs);

/*
 * Fill rs from the cache, or by calling answer and storing what it gave.
 * Without a cache (rq->app->answers NULL, as in unit tests) it only calls
 * answer.
 */
void api_answer_cached(const struct api_request *rq, struct api_response *rs, const char *route,
                       const struct catalog_snapshot *s, json_t *body, api_answer_fn answer,
                       void *ctx);

/*
 * A whole handler for an endpoint whose answer needs only the request body
 * and the snapshot: the body as a JSON object, the snapshot, then
 * api_answer_cached() under route with no ctx.  A body that is not an
 * object, or no snapshot yet, fills rs with their problem documents.
 */
void api_answer_cached_body(const struct api_request *rq, struct api_response *rs,
                            const char *route, api_answer_fn answer);

#endif
