/*
 * catalog.c - the catalog snapshot as handlers use it; see catalog.h.
 */
#include "api/catalog.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/catalog_json.h"
#include "app.h"
#include "db/catalog_sync.h"
#include "log.h"

const struct catalog_snapshot *api_catalog_snapshot(const struct api_request *rq,
                                                    struct api_response *rs)
{
        const struct catalog_snapshot *s =
                rq->app && rq->app->catalog ? catalog_acquire(rq->app->catalog) : NULL;

        if (!s) {
                api_problem(rs, 503, "the catalog has not been loaded from the database yet");
                api_reply_header_add(rs, "Retry-After", "2");
        }
        return s;
}

int api_catalog_query_id(const struct catalog_snapshot *s, struct api_response *rs, const char *arg,
                         enum api_entity kind, const char *id)
{
        const char *what, *list;
        bool known;
        char detail[200];

        if (!id)
                return 0;
        switch (kind) {
        case API_ENTITY_GPU:
                known = catalog_gpu(s, id) != NULL;
                what = "GPU";
                list = "GET /api/v1/gpus";
                break;
        case API_ENTITY_PROVIDER:
                known = catalog_provider(s, id) != NULL;
                what = "provider";
                list = "GET /api/v1/providers";
                break;
        case API_ENTITY_OFFERING:
                known = catalog_offering(s, id) != NULL;
                what = "offering";
                list = "GET /api/v1/providers, each provider's offerings";
                break;
        default:
                known = true;
                what = list = "";
                break;
        }
        if (known)
                return 0;
        snprintf(detail, sizeof(detail), "no catalog %s with this id (%s)", what, list);
        api_problem_field(rs, 400, arg, "exists", detail);
        return -1;
}

/* Does an If-None-Match list contain etag (or "*")?  RFC 9110 section 13.1.2. */
static bool etag_listed(const char *list, const char *etag)
{
        size_t n = strlen(etag);
        const char *p = list;

        while (*p) {
                while (*p == ' ' || *p == ',' || *p == '\t')
                        p++;
                if (*p == '*')
                        return true;
                if (strncmp(p, "W/", 2) == 0)
                        p += 2; /* weak comparison, as If-None-Match specifies */
                if (strncmp(p, etag, n) == 0 && (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
                        return true;
                while (*p && *p != ',')
                        p++;
        }
        return false;
}

int api_catalog_etag(const struct api_request *rq, struct api_response *rs,
                     const struct catalog_snapshot *s)
{
        const char *etag = catalog_etag(s);
        const char *inm = rq->header ? rq->header(rq, "If-None-Match") : NULL;

        api_reply_header_add(rs, "ETag", etag);
        api_reply_header_add(rs, "Cache-Control", "no-cache");
        if (!inm || !etag_listed(inm, etag))
                return 0;
        free(rs->body);
        rs->body = NULL;
        rs->body_len = 0;
        rs->status = 304;
        rs->content_type = NULL;
        return 1;
}

bool api_catalog_refresh(const struct api_request *rq)
{
        char err[256];

        if (!rq->app || !rq->app->catalog_sync)
                return false;
        if (catalog_sync_reload(rq->app->catalog_sync, err, sizeof(err)) == 0)
                return true;
        log_warn("catalog reload after a write failed: %s", err);
        return false;
}

void api_catalog_write_reply(const struct api_request *rq, struct api_response *rs, bool created,
                             enum api_entity kind, const char *id)
{
        bool reloaded = api_catalog_refresh(rq);
        /* Without a reload the snapshot still shows the old row: say so instead. */
        const struct catalog_snapshot *s =
                reloaded && rq->app ? catalog_acquire(rq->app->catalog) : NULL;
        json_t *doc = NULL;

        if (s) {
                switch (kind) {
                case API_ENTITY_GPU: {
                        size_t i = catalog_gpu_index(s, id);

                        doc = i == SIZE_MAX ? NULL : catalog_json_gpu(s, i, true);
                        break;
                }
                case API_ENTITY_PROVIDER: {
                        const struct catalog_provider *p = catalog_provider(s, id);

                        doc = p ? catalog_json_provider(s, p, true) : NULL;
                        break;
                }
                case API_ENTITY_OFFERING: {
                        const struct catalog_offering *o = catalog_offering(s, id);

                        doc = o ? catalog_json_offering(s, o) : NULL;
                        break;
                }
                case API_ENTITY_SETTING: {
                        const struct catalog_setting *st = catalog_setting(s, id);

                        doc = st ? catalog_json_setting(st) : NULL;
                        break;
                }
                case API_ENTITY_MODEL: {
                        const struct catalog_model *m = catalog_model(s, id);

                        doc = m ? catalog_json_model(m, true) : NULL;
                        break;
                }
                }
        }
        if (!doc)
                doc = json_pack("{s:s, s:s}", "id", id, "status", "stored");
        if (doc && !reloaded)
                json_object_set_new(doc, "snapshot_reloaded", json_false());
        catalog_release(s);
        api_reply_json(rs, created ? 201 : 200, doc);
}
