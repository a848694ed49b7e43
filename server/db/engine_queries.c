/*
 * engine_queries.c - SELECTs for the engine's data (see engine_queries.h).
 */
#include "db/engine_queries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_measurements[] =
        "SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'category', category, 'measured', measured, 'unit', unit,"
        " 'measured_bytes', measured_bytes,"
        " 'kind', kind, 'source', source, 'url', url, 'notes', notes, 'request', request)"
        " ORDER BY id COLLATE \"C\"), '[]'::json)::text FROM measurements";

static const char sql_scenarios[] =
        "SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'table_name', table_name, 'position', position, 'model_id', model_id,"
        " 'reported', reported, 'assumed_setup', assumed_setup, 'explanation', explanation,"
        " 'time_explanation', time_explanation,"
        " 'source', source, 'request', request)"
        " ORDER BY table_name, position), '[]'::json)::text FROM scenarios";

static const char sql_throughput[] =
        "SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'category', category, 'metric', metric, 'measured', measured,"
        " 'source', source, 'url', url, 'hardware', hardware, 'software', software,"
        " 'method', method, 'notes', notes, 'request', request)"
        " ORDER BY id COLLATE \"C\"), '[]'::json)::text FROM throughput_measurements";

static const char sql_loadtests[] =
        "SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'engine', engine, 'engine_version', engine_version, 'gpu', gpu,"
        " 'tensor_parallel', tensor_parallel, 'load', load, 'measured', measured,"
        " 'source', source, 'date', date, 'request', request)"
        " ORDER BY id COLLATE \"C\"), '[]'::json)::text FROM serving_loadtests";

static char *one_text(PGconn *conn, const char *sql, char *err, size_t errlen)
{
        PGresult *res = PQexecParams(conn, sql, 0, NULL, NULL, NULL, NULL, 0);
        char *out = NULL;

        if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
                snprintf(err, errlen, "engine data query failed: %s", PQerrorMessage(conn));
                PQclear(res);
                return NULL;
        }
        out = strdup(PQgetvalue(res, 0, 0));
        if (!out)
                snprintf(err, errlen, "out of memory");
        PQclear(res);
        return out;
}

char *engine_queries_measurements_json(PGconn *conn, char *err, size_t errlen)
{
        return one_text(conn, sql_measurements, err, errlen);
}

char *engine_queries_scenarios_json(PGconn *conn, char *err, size_t errlen)
{
        return one_text(conn, sql_scenarios, err, errlen);
}

char *engine_queries_throughput_json(PGconn *conn, char *err, size_t errlen)
{
        return one_text(conn, sql_throughput, err, errlen);
}

char *engine_queries_loadtests_json(PGconn *conn, char *err, size_t errlen)
{
        return one_text(conn, sql_loadtests, err, errlen);
}
