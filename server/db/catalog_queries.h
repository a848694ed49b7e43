/*
 * catalog_queries.h - every SQL statement the catalog needs: the snapshot
 * load, price history reads, and the admin writes.
 *
 * Reads fill plain catalog structs (server/catalog/catalog_tables.h); writes
 * take plain structs, run in one transaction each together with their
 * audit_log row, and report failures as a struct db_error whose HTTP status
 * comes from the one SQLSTATE table (db/sqlstate.h).  Every statement
 * is parameterised (PQexecParams); nothing is built by pasting text.
 *
 * Ownership: the caller owns the PGconn (from the pool, returned by the
 * caller) and every struct passed in.  Output tables are owned by the
 * caller and freed with catalog_tables_free().
 * Thread-safety: one PGconn per call at a time, as libpq requires.
 */
#ifndef GPUPLAN_DB_CATALOG_QUERIES_H
#define GPUPLAN_DB_CATALOG_QUERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "db/sqlstate.h"

#include "catalog/catalog.h"

struct catalog_tables;

/* Who made a write, for the audit_log row and the *_by columns. */
struct db_actor {
        const char *actor;              /* e.g. "admin" or the X-Actor header */
        const char *request_id;         /* may be NULL */
        const char *payload_json;       /* the request body as received; may be NULL */
};

/*
 * Load every catalog table in one REPEATABLE READ, READ ONLY transaction,
 * rows sorted bytewise by id, into t (zeroed by the caller), and hash every
 * cell into t->content_hash.  Returns 0, or -1 with a reason in err.
 */
int catalog_queries_load(PGconn *conn, struct catalog_tables *t, char *err, size_t errlen);

/* Filters for price reads; NULL members do not filter. */
struct price_filter {
        const char *gpu;                /* accelerator id */
        const char *provider;           /* provider id */
        const char *offering;           /* offering id */
        int pricing;                    /* enum catalog_pricing, or -1 */
        const char *as_of;              /* "YYYY-MM-DD": prices in effect that day */
        bool all_rows;                  /* every row of the history, newest first */
};

/*
 * Price rows from the database (history reads): with as_of, the newest row
 * per offering and kind dated on or before that day; with all_rows, every
 * row.  Fills t->prices / t->n_prices (offering_index is SIZE_MAX: the caller
 * resolves offerings in its snapshot).  Returns 0 or -1 with e filled.
 */
int catalog_queries_prices(PGconn *conn, const struct price_filter *f, struct catalog_tables *t,
                           struct db_error *e);

/*
 * Append a price row (pricing, usd_per_hour, term_months, as_of, source,
 * offering_id taken from p).  On success *id is the new row's id.
 */
int catalog_queries_insert_price(PGconn *conn, const struct catalog_price *p,
                                 const struct db_actor *who, int64_t *id, struct db_error *e);

/* Append a purchase price row; *id as above. */
int catalog_queries_insert_purchase_price(PGconn *conn, const struct catalog_purchase_price *p,
                                          const struct db_actor *who, int64_t *id,
                                          struct db_error *e);

/*
 * Insert or replace an accelerator (every column from spec + info; 0 / NULL
 * store NULL).  *created tells which happened.
 */
int catalog_queries_upsert_accelerator(PGconn *conn, const struct gpu_spec *spec,
                                       const struct catalog_gpu_info *info,
                                       const struct db_actor *who, bool *created,
                                       struct db_error *e);

/* Insert or replace a provider, an offering, a setting; *created as above. */
int catalog_queries_upsert_provider(PGconn *conn, const struct catalog_provider *p,
                                    const struct db_actor *who, bool *created, struct db_error *e);
/* A team model (origin 'team'): id, name, family, hf_config_json,
 * published_parameters, parameters_source, notes, hub_ids (comma-separated)
 * and licence of m.  A curated model of the same id is left alone and the
 * call fails. */
int catalog_queries_upsert_team_model(PGconn *conn, const struct catalog_model *m,
                                      const struct db_actor *who, bool *created,
                                      struct db_error *e);
int catalog_queries_upsert_offering(PGconn *conn, const struct catalog_offering *o,
                                    const struct db_actor *who, bool *created, struct db_error *e);
int catalog_queries_upsert_setting(PGconn *conn, const struct catalog_setting *s,
                                   const struct db_actor *who, bool *created, struct db_error *e);

/*
 * Fill e from a failed result through the SQLSTATE table (sqlstate.h); a
 * NULL result or a broken connection is a 503 with Retry-After.
 */
void catalog_queries_error_from(PGconn *conn, const PGresult *res, struct db_error *e);

/* Run one parameterised statement (n text values); the result when it
 * returned rows or completed, else NULL with e filled as
 * catalog_queries_error_from() does.  The caller PQclear()s the result. */
PGresult *catalog_queries_exec_params(PGconn *conn, const char *sql, int n, const char *const *v,
                                      struct db_error *e);

#endif
