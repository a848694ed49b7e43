/*
 * answer_cached.c - answers of pure endpoints from the answer cache; see answer_cached.h.
 */
#include "api/answer_cached.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "api/body.h"
#include "api/catalog.h"
#include "api/metrics.h"
#include "plan/answer_cache.h"

static const char json_media_type[] = "application/json";
static const char problem_media_type[] = "application/problem+json";

/* Only what can be replayed from status and bytes alone is stored. */
static bool storable(const struct api_response *rs)
{
        if (!rs->body || rs->n_headers || !rs->content_type)
                return false;
        if (rs->status >= 200 && rs->status < 300)
                return strcmp(rs->content_type, json_media_type) == 0;
        if (rs->status >= 400 && rs->status < 500)
                return strcmp(rs->content_type, problem_media_type) == 0;
        return false;
}

void api_answer_cached(const struct api_request *rq, struct api_response *rs, const char *route,
                       const struct catalog_snapshot *s, json_t *body, api_answer_fn answer,
                       void *ctx)
{
        struct answer_cache *cache = rq->app ? rq->app->answers : NULL;
        struct metrics *m = rq->app ? rq->app->metrics : NULL;
        struct answer_claim claim;
        char *canonical = NULL, *key = NULL, *value;
        size_t route_len, etag_len, body_len, key_len, len;
        const char *etag;
        int status;

        if (cache)
                canonical = json_dumps(body, JSON_SORT_KEYS | JSON_COMPACT);
        if (!canonical) {
                answer(s, body, ctx, rs);
                return;
        }
        /* route NUL etag NUL body: NUL never occurs in the parts, so keys cannot run together. */
        etag = catalog_etag(s);
        route_len = strlen(route);
        etag_len = strlen(etag);
        body_len = strlen(canonical);
        key_len = route_len + 1 + etag_len + 1 + body_len;
        key = malloc(key_len);
        if (!key) {
                free(canonical);
                answer(s, body, ctx, rs);
                return;
        }
        memcpy(key, route, route_len + 1);
        memcpy(key + route_len + 1, etag, etag_len + 1);
        memcpy(key + route_len + 1 + etag_len + 1, canonical, body_len);
        free(canonical);

        if (answer_cache_get(cache, key, key_len, &status, &value, &len, &claim)) {
                metrics_count(m, "gpuplan_answer_cache_hits_total",
                              "compare and rent_vs_buy answers served from the cache", 1);
                /* Stored with its NUL, as json_dumps leaves a body. */
                free(rs->body);
                rs->status = status;
                rs->content_type = status < 400 ? json_media_type : problem_media_type;
                rs->body = value;
                rs->body_len = len - 1;
                free(key);
                return;
        }
        metrics_count(m, "gpuplan_answer_cache_misses_total",
                      "compare and rent_vs_buy answers computed", 1);
        answer(s, body, ctx, rs);
        if (storable(rs))
                answer_cache_put(cache, &claim, rs->status, rs->body, rs->body_len + 1);
        else
                answer_cache_put(cache, &claim, 0, NULL, 0);
        free(key);
}

void api_answer_cached_body(const struct api_request *rq, struct api_response *rs,
                            const char *route, api_answer_fn answer)
{
        const struct catalog_snapshot *s;
        json_t *body = api_body_object(rq, rs);

        if (!body)
                return;
        s = api_catalog_snapshot(rq, rs);
        if (s)
                api_answer_cached(rq, rs, route, s, body, answer, NULL);
        catalog_release(s);
        json_decref(body);
}
