/*
 * pool.h - a bounded pool of PostgreSQL connections.
 *
 * Connections are opened lazily, health-checked on every checkout
 * (PQconsumeInput, then PQstatus, as GNUnet's pq_connect.c does) and
 * reopened when the server has restarted.  While the database is
 * unreachable the pool fails fast: after a failed connect, checkouts during
 * the next second return NULL at once instead of each waiting for
 * connect_timeout, so a database outage never stalls request threads.
 * Callers answer NULL with 503 and Retry-After.
 *
 * Every connection (pooled or from db_pool_connect()) is opened with
 * PQconnectdbParams, expand_dbname=1 (DATABASE_URL may be a URI or a
 * key=value string; NULL or "" uses the PG* environment),
 * application_name=gpuplan, connect_timeout=3 and
 * options="-c statement_timeout=5000 -c idle_in_transaction_session_timeout=30000
 * -c lock_timeout=3000".
 *
 * Memory: db_pool_new() allocates the pool; db_pool_free() closes every
 * connection and frees it (all connections must have been released).
 * A PGconn from db_pool_acquire() belongs to the caller until
 * db_pool_release(); one from db_pool_connect() until PQfinish().
 *
 * Thread-safety: every db_pool_* function may be called from any thread
 * (a mutex and a condition variable guard the slots); a checked-out PGconn
 * must be used by one thread at a time.
 */
#ifndef GPUPLAN_DB_POOL_H
#define GPUPLAN_DB_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

struct db_pool;

struct db_pool_stats {
        unsigned size;    /* configured maximum */
        unsigned open;    /* connections currently open */
        unsigned in_use;  /* checked out */
        unsigned waiting; /* threads waiting for a free slot */
        bool healthy;     /* last connect or health check succeeded */
        uint64_t acquired_total;
        uint64_t timeouts_total; /* acquire gave up (busy or database down) */
        uint64_t connect_failures_total;
        uint64_t reconnects_total; /* a broken connection was replaced */
};

/*
 * A pool of at most size connections.  Connects to nothing yet (the server
 * must start while the database is down): only checks that database_url
 * parses.  NULL with a reason in err on a malformed URL or no memory.
 */
struct db_pool *db_pool_new(const char *database_url, unsigned size, char *err, size_t errlen);
void db_pool_free(struct db_pool *p);

/*
 * A healthy connection, idle (no open transaction), or NULL when none is
 * free within timeout_ms or the database cannot be reached.
 */
PGconn *db_pool_acquire(struct db_pool *p, unsigned timeout_ms);

/*
 * Give c back.  An open or failed transaction is rolled back; a broken
 * connection is closed (its slot reconnects on next use).  c may be NULL.
 */
void db_pool_release(struct db_pool *p, PGconn *c);

/* Whether the last connection attempt or health check succeeded. */
bool db_pool_healthy(struct db_pool *p);
void db_pool_stats(struct db_pool *p, struct db_pool_stats *out);

/* The URL the pool was made with (NULL = PG* environment), for dedicated connections. */
const char *db_pool_url(const struct db_pool *p);

/*
 * A dedicated connection with the settings above (the catalog's LISTEN
 * thread and migrations use one).  NULL with libpq's one-line reason in err.
 */
PGconn *db_pool_connect(const char *database_url, char *err, size_t errlen);

/*
 * True when res failed because the connection is gone or the server is
 * shutting down (SQLSTATE class 08, 57P01..57P03) or the statement was
 * cancelled by statement_timeout (57014): answer 503, never replay a write.
 */
bool db_pool_error_is_unavailable(const PGresult *res);

#endif
