/*
 * health.c - /healthz, /readyz and /metrics; see health.h.
 */
#include "api/health.h"

#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "catalog/catalog.h"
#include "config.h"
#include "db/migrate.h"
#include "db/pool.h"
#include "api/metrics.h"
#include "log.h"

/* Readiness must answer quickly even when the pool is busy. */
#define READY_ACQUIRE_TIMEOUT_MS 1000u
#define READY_RETRY_AFTER_S      "5"

void health_live(const struct api_request *rq, struct api_response *rs)
{
        (void)rq;
        api_reply_json(rs, 200, json_pack("{s:s}", "status", "ok"));
}

static void not_ready(struct api_response *rs, const char *reason)
{
        api_problem(rs, 503, reason);
        api_reply_header_add(rs, "Retry-After", READY_RETRY_AFTER_S);
}

void health_ready(const struct api_request *rq, struct api_response *rs)
{
        struct app *app = rq->app;
        const struct catalog_snapshot *snap;
        char err[256];
        char detail[320];
        PGconn *c;
        int pending;

        if (atomic_load(&app->stopping)) {
                not_ready(rs, "shutting down");
                return;
        }
        if (!app->db) {
                not_ready(rs, "no database configured");
                return;
        }
        c = db_pool_acquire(app->db, READY_ACQUIRE_TIMEOUT_MS);
        if (!c) {
                not_ready(rs, "database unreachable");
                return;
        }
        pending = db_migrate_pending(c, migrations_embedded, migrations_embedded_count, err,
                                     sizeof(err));
        db_pool_release(app->db, c);
        if (pending < 0) {
                log_warn("readiness check failed: %s", err);
                not_ready(rs, "database query failed");
                return;
        }
        if (pending > 0) {
                snprintf(detail, sizeof(detail), "%d of %u migrations not applied", pending,
                         migrations_embedded_count);
                not_ready(rs, detail);
                return;
        }
        snap = app->catalog ? catalog_acquire(app->catalog) : NULL;
        if (!snap) {
                not_ready(rs, "catalog not loaded yet");
                return;
        }
        catalog_release(snap);
        api_reply_json(rs, 200,
                       json_pack("{s:s, s:s, s:i, s:s}", "status", "ready", "database", "ok",
                                 "migrations", (json_int_t)migrations_embedded_count, "catalog",
                                 "loaded"));
}

void health_metrics(const struct api_request *rq, struct api_response *rs)
{
        size_t len;
        char *text = metrics_render(rq->app->metrics, rq->app->db, &len);

        if (!text) {
                api_problem(rs, 500, "out of memory");
                return;
        }
        free(rs->body);
        rs->status = 200;
        /* Prometheus text exposition format, version 0.0.4. */
        rs->content_type = "text/plain; version=0.0.4; charset=utf-8";
        rs->body = text;
        rs->body_len = len;
}
