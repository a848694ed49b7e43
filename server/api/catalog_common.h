/*
 * catalog_common.h - what the catalog endpoints share: taking a snapshot
 * (or answering 503), ETag / If-None-Match, reading a write's body, and
 * turning a database error or a missing pool connection into a problem
 * document.  The admin check is admin.h; the field readers are fields.h.
 *
 * Every function that takes a struct api_response fills it with a problem
 * document when it returns nonzero, so a handler can simply return.
 *
 * Memory: JSON values returned are new references the caller owns; string
 * pointers from the field readers borrow from the JSON object they came from.
 * Thread-safety: every function is reentrant.
 */
#ifndef GPUPLAN_API_CATALOG_COMMON_H
#define GPUPLAN_API_CATALOG_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "api/handler.h"
#include "catalog/catalog.h"

struct db_error;
struct db_actor;

/* The current snapshot, or NULL with rs = 503 + Retry-After (none loaded yet). */
const struct catalog_snapshot *api_catalog_snapshot(const struct api_request *rq,
                                                    struct api_response *rs);

/*
 * Add the snapshot's ETag (and Cache-Control: no-cache).  Returns 1 when
 * If-None-Match matches it, having turned rs into a bodiless 304; else 0.
 */
int api_catalog_etag(const struct api_request *rq, struct api_response *rs,
                     const struct catalog_snapshot *s);

/* A pooled connection for a write or history read, or NULL with rs = 503 + Retry-After. */
PGconn *api_db_acquire(const struct api_request *rq, struct api_response *rs);
void api_db_release(const struct api_request *rq, PGconn *conn);

/* rs = the problem document for a failed database call (status from the SQLSTATE table). */
void api_db_problem(struct api_response *rs, const struct db_error *e);

/*
 * Reload this replica's snapshot after a committed write, so the next read
 * here sees it (other replicas learn through NOTIFY).  Returns true when
 * the reload succeeded.
 */
bool api_catalog_refresh(const struct api_request *rq);

/* Parse the request body as one JSON object (duplicate keys refused); NULL with rs = 400. */
json_t *api_body_object(const struct api_request *rq, struct api_response *rs);

/* JSON helpers for encoders: 0 -> null (unknown), NULL text -> null. */
json_t *api_json_num(double v);
json_t *api_json_u64(uint64_t v);
json_t *api_json_int(int64_t v);
json_t *api_json_str(const char *s);

/*
 * The 404 detail for a model id the catalog lacks: names the id and the
 * closest catalog models (catalog_model_suggest) with a Hub id each, into
 * buf (always NUL-terminated).  Returns buf.
 */
const char *api_model_not_found(const struct catalog_snapshot *s, const char *id, char *buf,
                                size_t len);

#endif
