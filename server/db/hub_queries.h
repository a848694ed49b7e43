/*
 * hub_queries.h - the SQL behind the models read from the Hugging Face Hub
 * (table hub_models, migrations/0020_hub_models.sql).
 *
 * A row is one repository at one asked revision ("" = the default branch):
 * the commit the Hub answered with, when it was read, its ETag, the
 * config.json text, the safetensors totals and the quantization.
 *
 * Ownership: the config and safetensors strings of a row filled by
 * hub_queries_model_load() are malloc'd; hub_queries_row_free() frees them.  The
 * caller owns the PGconn (from the pool).  Thread-safety: one PGconn per
 * call at a time, as libpq requires.
 */
#ifndef GPUPLAN_DB_HUB_QUERIES_H
#define GPUPLAN_DB_HUB_QUERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#define DB_HUB_REPO_MAX 201

struct db_hub_row {
        char repo[DB_HUB_REPO_MAX];     /* as the Hub spells it, "Qwen/Qwen2.5-7B" */
        char revision[DB_HUB_REPO_MAX]; /* asked revision; "" = default branch */
        char sha[41];                   /* the commit read */
        char etag[129];                 /* of config.json; "" if none */
        char quantization[32];          /* quantization_config.quant_method; "" if none */
        bool gated;
        int64_t fetched_at_s; /* Unix seconds */
        char *config;         /* config.json text (a JSON object) */
        char *safetensors;    /* {"parameters": {dtype: n}, "total": n} text, or NULL */
};

/*
 * Find the row of repo (any case) at revision.  Returns 1 and fills row,
 * 0 when there is none, -1 with a one-line reason in err.
 */
int hub_queries_model_load(PGconn *conn, const char *repo, const char *revision,
                           struct db_hub_row *row, char *err, size_t errlen);

/* Insert or replace the row (fetched_at = now()).  0, or -1 with err. */
int hub_queries_model_save(PGconn *conn, const struct db_hub_row *row, char *err, size_t errlen);

/* The row was read again and is unchanged (the Hub answered 304): set its
 * fetched_at to now().  0, or -1 with err. */
int hub_queries_model_touch(PGconn *conn, const char *repo, const char *revision, char *err,
                            size_t errlen);

void hub_queries_row_free(struct db_hub_row *row);

#endif
