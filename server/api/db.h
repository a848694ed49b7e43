/*
 * db.h - a pooled database connection for a handler that writes or reads
 * history, and the problem documents for a missing connection (503 with
 * Retry-After) or a failed statement (status from db/sqlstate.h's table).
 *
 * Memory: a connection acquired is the caller's to api_db_release().
 * Thread-safety: reentrant; the pool is thread-safe.
 */
#ifndef GPUPLAN_API_DB_H
#define GPUPLAN_API_DB_H

#include <libpq-fe.h>

#include "api/handler.h"

struct db_error;

/* A pooled connection for a write or history read, or NULL with rs = 503 + Retry-After. */
PGconn *api_db_acquire(const struct api_request *rq, struct api_response *rs);
void api_db_release(const struct api_request *rq, PGconn *conn);

/* rs = the problem document for a failed database call (status from the SQLSTATE table). */
void api_db_problem(struct api_response *rs, const struct db_error *e);

#endif
