/*
 * engine_queries.h - the SQL behind the engine's own data: the measured
 * cases of GET /api/v1/validation, the published serving load tests of
 * GET /api/v1/validation/serving (migrations/0028_serving_loadtests.sql)
 * and the seed scenarios of GET /api/v1/scenarios (tables of
 * migrations/0005_engine_data.sql).
 *
 * Each function runs one parameterless SELECT that aggregates the table
 * into one JSON array (json_agg in PostgreSQL) and returns it as text.
 *
 * Ownership: the returned string is malloc'd; the caller frees it.  The
 * caller owns the PGconn (from the pool).  Thread-safety: one PGconn per
 * call at a time, as libpq requires.
 */
#ifndef GPUPLAN_DB_ENGINE_QUERIES_H
#define GPUPLAN_DB_ENGINE_QUERIES_H

#include <stddef.h>

#include <libpq-fe.h>

/*
 * Every measurements row as a JSON array of objects {id, measured, unit,
 * measured_bytes, kind, source, url, notes, request}, ordered by id.
 * NULL on failure with a one-line reason in err.
 */
char *engine_queries_measurements_json(PGconn *conn, char *err, size_t errlen);

/*
 * Every throughput_measurements row as a JSON array of objects {id,
 * category, metric, measured, source, url, hardware, software, method,
 * notes, request}, ordered by id.  NULL on failure.
 */
char *engine_queries_throughput_json(PGconn *conn, char *err, size_t errlen);

/*
 * Every scenarios row as a JSON array of objects {id, table_name,
 * position, model_id, reported, assumed_setup, explanation, source,
 * request}, ordered by table_name, position.  NULL on failure.
 */
char *engine_queries_scenarios_json(PGconn *conn, char *err, size_t errlen);

/*
 * Every serving_loadtests row as a JSON array of objects {id, engine,
 * engine_version, gpu, tensor_parallel, load, measured, source, date,
 * request}, ordered by id.  NULL on failure.
 */
char *engine_queries_loadtests_json(PGconn *conn, char *err, size_t errlen);

#endif
