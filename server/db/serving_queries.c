/*
 * serving_queries.c - the SELECT of the serving load tests (see
 * serving_queries.h).
 */
#include "db/serving_queries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_loadtests[] =
        "SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'engine', engine, 'engine_version', engine_version, 'gpu', gpu,"
        " 'tensor_parallel', tensor_parallel, 'load', load, 'measured', measured,"
        " 'source', source, 'date', date, 'request', request)"
        " ORDER BY id COLLATE \"C\"), '[]'::json)::text FROM serving_loadtests";

char *serving_queries_loadtests_json(PGconn *conn, char *err, size_t errlen)
{
        PGresult *res = PQexecParams(conn, sql_loadtests, 0, NULL, NULL, NULL, NULL, 0);
        char *out = NULL;

        if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
                snprintf(err, errlen, "serving load tests query failed: %s",
                         PQerrorMessage(conn));
                PQclear(res);
                return NULL;
        }
        out = strdup(PQgetvalue(res, 0, 0));
        if (!out)
                snprintf(err, errlen, "out of memory");
        PQclear(res);
        return out;
}
