/*
 * db.c - a pooled database connection for a handler; see db.h.
 */
#include "api/db.h"

#include <stdio.h>

#include "app.h"
#include "config.h"
#include "db/pool.h"
#include "db/sqlstate.h"

#define DB_ACQUIRE_DEFAULT_MS 2000u

PGconn *api_db_acquire(const struct api_request *rq, struct api_response *rs)
{
        unsigned timeout_ms = DB_ACQUIRE_DEFAULT_MS;
        PGconn *conn = NULL;

        if (rq->app && rq->app->config && rq->app->config->db_acquire_timeout_ms)
                timeout_ms = rq->app->config->db_acquire_timeout_ms;
        if (rq->app && rq->app->db)
                conn = db_pool_acquire(rq->app->db, timeout_ms);
        if (!conn) {
                api_problem(rs, 503, "the database is unavailable; nothing was changed");
                api_reply_header_add(rs, "Retry-After", "2");
        }
        return conn;
}

void api_db_release(const struct api_request *rq, PGconn *conn)
{
        if (conn && rq->app && rq->app->db)
                db_pool_release(rq->app->db, conn);
}

void api_db_problem(struct api_response *rs, const struct db_error *e)
{
        char retry[16];

        api_problem(rs, e->http_status, e->detail);
        if (e->retry_after_seconds) {
                snprintf(retry, sizeof(retry), "%u", e->retry_after_seconds);
                api_reply_header_add(rs, "Retry-After", retry);
        }
}
