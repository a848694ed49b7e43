/*
 * serving_queries.h - the SQL behind GET /api/v1/validation/serving: the
 * published serving load tests of migrations/0028_serving_loadtests.sql.
 *
 * Ownership: the returned string is malloc'd; the caller frees it.  The
 * caller owns the PGconn (from the pool).  Thread-safety: one PGconn per
 * call at a time, as libpq requires.
 */
#ifndef GPUPLAN_DB_SERVING_QUERIES_H
#define GPUPLAN_DB_SERVING_QUERIES_H

#include <stddef.h>

#include <libpq-fe.h>

/*
 * Every serving_loadtests row as a JSON array of objects {id, engine,
 * engine_version, gpu, tensor_parallel, load, measured, source, date,
 * request}, ordered by id.  NULL on failure with a one-line reason in err.
 */
char *serving_queries_loadtests_json(PGconn *conn, char *err, size_t errlen);

#endif
