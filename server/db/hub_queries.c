/*
 * hub_queries.c - hub_models rows (see hub_queries.h).
 */
#include "db/hub_queries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_load[] =
        "SELECT repo, sha, coalesce(etag, ''), coalesce(quantization, ''), gated,"
        " extract(epoch FROM fetched_at)::bigint, config::text, safetensors::text"
        " FROM hub_models WHERE repo_key = lower($1) AND revision = $2";

static const char sql_save[] =
        "INSERT INTO hub_models (repo_key, revision, repo, sha, etag, config, safetensors,"
        " quantization, gated, fetched_at)"
        " VALUES (lower($1), $2, $1, $3, nullif($4, ''), $5::jsonb, $6::jsonb, nullif($7, ''),"
        " $8::boolean, now())"
        " ON CONFLICT (repo_key, revision) DO UPDATE SET repo = EXCLUDED.repo,"
        " sha = EXCLUDED.sha, etag = EXCLUDED.etag, config = EXCLUDED.config,"
        " safetensors = EXCLUDED.safetensors, quantization = EXCLUDED.quantization,"
        " gated = EXCLUDED.gated, fetched_at = EXCLUDED.fetched_at";

static const char sql_touch[] = "UPDATE hub_models SET fetched_at = now()"
                                " WHERE repo_key = lower($1) AND revision = $2";

int hub_queries_model_load(PGconn *conn, const char *repo, const char *revision,
                           struct db_hub_row *row, char *err, size_t errlen)
{
        const char *params[2] = {repo, revision};
        PGresult *res = PQexecParams(conn, sql_load, 2, NULL, params, NULL, NULL, 0);
        int rc = -1;

        memset(row, 0, sizeof(*row));
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
                snprintf(err, errlen, "hub model query failed: %s", PQerrorMessage(conn));
                goto out;
        }
        if (PQntuples(res) == 0) {
                rc = 0;
                goto out;
        }
        snprintf(row->repo, sizeof(row->repo), "%s", PQgetvalue(res, 0, 0));
        snprintf(row->revision, sizeof(row->revision), "%s", revision);
        snprintf(row->sha, sizeof(row->sha), "%s", PQgetvalue(res, 0, 1));
        snprintf(row->etag, sizeof(row->etag), "%s", PQgetvalue(res, 0, 2));
        snprintf(row->quantization, sizeof(row->quantization), "%s", PQgetvalue(res, 0, 3));
        row->gated = PQgetvalue(res, 0, 4)[0] == 't';
        row->fetched_at_s = strtoll(PQgetvalue(res, 0, 5), NULL, 10);
        row->config = strdup(PQgetvalue(res, 0, 6));
        if (!PQgetisnull(res, 0, 7))
                row->safetensors = strdup(PQgetvalue(res, 0, 7));
        if (!row->config || (!PQgetisnull(res, 0, 7) && !row->safetensors)) {
                hub_queries_row_free(row);
                snprintf(err, errlen, "out of memory");
                goto out;
        }
        rc = 1;
out:
        PQclear(res);
        return rc;
}

int hub_queries_model_save(PGconn *conn, const struct db_hub_row *row, char *err, size_t errlen)
{
        const char *params[8] = {
                row->repo,   row->revision,    row->sha,          row->etag,
                row->config, row->safetensors, row->quantization, row->gated ? "true" : "false"};
        PGresult *res = PQexecParams(conn, sql_save, 8, NULL, params, NULL, NULL, 0);
        int rc = 0;

        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                snprintf(err, errlen, "saving hub model %.80s failed: %s", row->repo,
                         PQerrorMessage(conn));
                rc = -1;
        }
        PQclear(res);
        return rc;
}

int hub_queries_model_touch(PGconn *conn, const char *repo, const char *revision, char *err,
                            size_t errlen)
{
        const char *params[2] = {repo, revision};
        PGresult *res = PQexecParams(conn, sql_touch, 2, NULL, params, NULL, NULL, 0);
        int rc = 0;

        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                snprintf(err, errlen, "refreshing hub model %.80s failed: %s", repo,
                         PQerrorMessage(conn));
                rc = -1;
        }
        PQclear(res);
        return rc;
}

void hub_queries_row_free(struct db_hub_row *row)
{
        free(row->config);
        free(row->safetensors);
        row->config = row->safetensors = NULL;
}
