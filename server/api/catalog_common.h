/*
 * catalog_common.h - what the catalog endpoints share: the admin check,
 * taking a snapshot (or answering 503), ETag / If-None-Match, strict JSON
 * field readers for write bodies, and turning a database error or a
 * missing pool connection into a problem document.
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

/*
 * Admin authorisation: Authorization: Bearer <GPUPLAN_ADMIN_TOKEN>,
 * compared in constant time.  Returns 0 when allowed; otherwise rs holds
 * 401 (no or malformed credentials, with WWW-Authenticate), 403 (wrong
 * token) or 403 (writes disabled: no token configured).
 */
int api_admin_check(const struct api_request *rq, struct api_response *rs);

/*
 * Who to record for a write: the X-Actor header when it is 1..64 printable
 * characters (the token holder's own statement), else "admin".  buf holds
 * the result; who is filled to point at buf, the request id and body.
 */
void api_admin_actor(const struct api_request *rq, char *buf, size_t len, struct db_actor *who);

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

/* ---- strict field readers ----------------------------------------------- */

#define FIELD_REQUIRED 0x1u     /* absent or null is an error */
#define FIELD_NULLABLE 0x2u     /* null is accepted and means "unknown" */

/*
 * Each reader looks up key in obj; prefix is the JSON pointer of obj ("" at
 * the top).  Absent (or null, when allowed) leaves *out unchanged and
 * returns 0.  A wrong type, an out-of-range value or a missing required
 * field fills rs with a 400 naming the field and returns -1.
 */
int api_field_string(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, size_t max_len, const char **out);
int api_field_number(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, double min, double max, double *out);
int api_field_int(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                  unsigned flags, int64_t min, int64_t max, int64_t *out);
int api_field_bool(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                   unsigned flags, bool *out);
/* A "YYYY-MM-DD" calendar date. */
int api_field_date(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                   unsigned flags, const char **out);

/* 400 naming the first key of obj not in allowed (NULL-terminated); 0 if none. */
int api_fields_known(struct api_response *rs, json_t *obj, const char *prefix,
                     const char *const *allowed);

/* True for a "YYYY-MM-DD" string with a valid month and day. */
bool api_is_date(const char *s);
/* True for an id matching ^[a-z0-9][a-z0-9._-]{0,max_len-1}$. */
bool api_is_id(const char *s, size_t max_len);

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
