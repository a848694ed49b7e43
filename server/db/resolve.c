/*
 * resolve.c - the database copy and the Hub behind a model id (see resolve.h).
 */
#include "db/resolve.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "db/hub_queries.h"
#include "db/pool.h"
#include "log.h"
#include "models/hub.h"

void resolve_quant_method(const char *config_text, char *out, size_t outlen)
{
        json_t *cfg = json_loads(config_text, 0, NULL);
        json_t *q = json_object_get(cfg, "quantization_config");
        json_t *tc = json_object_get(cfg, "text_config");
        if (!q && json_is_object(tc))
                q = json_object_get(tc, "quantization_config");
        json_t *m = json_object_get(q, "quant_method");
        snprintf(out, outlen, "%s", json_is_string(m) ? json_string_value(m) : "");
        json_decref(cfg);
}

__attribute__((format(printf, 4, 5))) static int problem(struct fetched_problem *p, int status,
                                                         const char *rule, const char *fmt, ...)
{
        va_list ap;
        p->status = status;
        snprintf(p->rule, sizeof(p->rule), "%s", rule);
        va_start(ap, fmt);
        vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
        va_end(ap);
        return -1;
}

static int from_row(struct db_hub_row *row, struct fetched_entry *out)
{
        memset(out, 0, sizeof(*out));
        snprintf(out->repo, sizeof(out->repo), "%s", row->repo);
        snprintf(out->revision, sizeof(out->revision), "%s", row->revision);
        snprintf(out->sha, sizeof(out->sha), "%s", row->sha);
        snprintf(out->etag, sizeof(out->etag), "%s", row->etag);
        snprintf(out->quantization, sizeof(out->quantization), "%s", row->quantization);
        out->gated = row->gated;
        out->fetched_at_s = row->fetched_at_s;
        out->config = row->config;
        out->safetensors = row->safetensors;
        row->config = row->safetensors = NULL;
        return 0;
}

int resolve_fill(void *arg, const char *repo, const char *revision, struct fetched_entry *out,
                 struct fetched_problem *p)
{
        struct resolve_ctx *ctx = arg;
        const struct hub_settings *hub = ctx->hub;
        struct db_hub_row row;
        struct hub_model m;
        PGconn *conn = NULL;
        char err[400], why[400];
        int have = 0;
        enum hub_result hr;

        memset(&row, 0, sizeof(row));
        if (ctx->db && (conn = db_pool_acquire(ctx->db, ctx->db_timeout_ms))) {
                have = hub_queries_model_load(conn, repo, revision, &row, err, sizeof(err));
                if (have < 0) {
                        log_warn("%s", err);
                        have = 0;
                }
                db_pool_release(ctx->db, conn);
                conn = NULL;
        }
        if (have && (revision[0] || ctx->now_s - row.fetched_at_s < (int64_t)hub->ttl_s))
                return from_row(&row, out);
        if (!hub->enabled) {
                if (have)
                        return from_row(&row, out);
                return problem(p, 404, "hub_off",
                               "\"%s\" is not in the catalog, and Hub look-ups are off on this "
                               "server (GPUPLAN_HUB=off): send the model's config.json as "
                               "{\"model\": {\"hf_config\": {...}}}, or ask an admin to add it "
                               "(PUT /api/v1/models/{id})",
                               repo);
        }
        /* A branch read before and past its TTL: ask whether config.json
         * still has the ETag stored with it; a 304 keeps the copy (and its
         * sha and totals) and starts its TTL again. */
        hr = HUB_OK;
        if (have && row.etag[0]) {
                hr = hub_config_unchanged(hub, row.repo, revision, row.etag, why, sizeof(why));
                if (hr == HUB_NOT_MODIFIED) {
                        if (ctx->db && (conn = db_pool_acquire(ctx->db, ctx->db_timeout_ms))) {
                                if (hub_queries_model_touch(conn, row.repo, revision, err,
                                                            sizeof(err)))
                                        log_warn("%s", err);
                                db_pool_release(ctx->db, conn);
                        }
                        row.fetched_at_s = ctx->now_s;
                        return from_row(&row, out);
                }
        }
        if (hr == HUB_OK)
                hr = hub_fetch(hub, repo, revision, &m, why, sizeof(why));
        if (hr == HUB_OK) {
                struct db_hub_row save;
                memset(&save, 0, sizeof(save));
                snprintf(save.repo, sizeof(save.repo), "%s", m.repo);
                snprintf(save.revision, sizeof(save.revision), "%s", revision);
                snprintf(save.sha, sizeof(save.sha), "%s", m.sha);
                snprintf(save.etag, sizeof(save.etag), "%s", m.etag);
                resolve_quant_method(m.config, save.quantization, sizeof(save.quantization));
                save.gated = m.gated;
                save.config = m.config;
                save.safetensors = m.safetensors;
                save.fetched_at_s = ctx->now_s;
                if (ctx->db && (conn = db_pool_acquire(ctx->db, ctx->db_timeout_ms))) {
                        if (hub_queries_model_save(conn, &save, err, sizeof(err)))
                                log_warn("%s", err);
                        db_pool_release(ctx->db, conn);
                }
                /* The repo's own spelling keys the entry, as asked. */
                snprintf(save.repo, sizeof(save.repo), "%s", m.repo);
                hub_queries_row_free(&row);
                return from_row(&save, out);
        }
        if (have && (hr == HUB_TIMEOUT || hr == HUB_UNREACHABLE)) {
                log_warn("hub: %s; answering %s from the copy read at %lld", why, repo,
                         (long long)row.fetched_at_s);
                from_row(&row, out);
                out->stale = true;
                return 0;
        }
        hub_queries_row_free(&row);
        switch (hr) {
        case HUB_NOT_FOUND:
        case HUB_REVISION_NOT_FOUND:
                return problem(p, 404, "unknown", "%s", why);
        case HUB_GATED:
                if (hub->token[0])
                        return problem(p, 403, "gated",
                                       "%s is gated on the Hub and the server's HF_TOKEN has no "
                                       "access to it: accept the model's licence on its Hub page "
                                       "with the token's account",
                                       repo);
                return problem(p, 403, "gated",
                               "%s is gated on the Hub: HF_TOKEN must be set on the server (a "
                               "token of an account that accepted the model's licence), or send "
                               "its config.json as {\"model\": {\"hf_config\": {...}}}",
                               repo);
        case HUB_TIMEOUT:
                return problem(p, 504, "hub_timeout",
                               "%s; send the model's config.json as {\"model\": {\"hf_config\": "
                               "{...}}} instead (looked up: %s)",
                               why, repo);
        case HUB_TOO_LARGE:
        case HUB_BAD_ANSWER:
        case HUB_UNREACHABLE:
        case HUB_OK:
        default:
                return problem(p, 502, "hub_unavailable",
                               "%s; send the model's config.json as {\"model\": {\"hf_config\": "
                               "{...}}} instead (looked up: %s)",
                               why, repo);
        }
}
