/*
 * catalog_common.c - helpers shared by the catalog endpoints; see catalog_common.h.
 */
#include "api/catalog_common.h"

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "json/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "config.h"
#include "db/catalog_queries.h"
#include "db/catalog_sync.h"
#include "db/pool.h"
#include "log.h"
#include "models/model_id.h"

#define DB_ACQUIRE_DEFAULT_MS 2000u

/* ---- snapshot, ETag, database ------------------------------------------- */

const struct catalog_snapshot *api_catalog_snapshot(const struct api_request *rq,
                                                    struct api_response *rs)
{
        const struct catalog_snapshot *s =
                rq->app && rq->app->catalog ? catalog_acquire(rq->app->catalog) : NULL;

        if (!s) {
                api_problem(rs, 503, "the catalog has not been loaded from the database yet");
                api_header_add(rs, "Retry-After", "2");
        }
        return s;
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

        api_header_add(rs, "ETag", etag);
        api_header_add(rs, "Cache-Control", "no-cache");
        if (!inm || !etag_listed(inm, etag))
                return 0;
        free(rs->body);
        rs->body = NULL;
        rs->body_len = 0;
        rs->status = 304;
        rs->content_type = NULL;
        return 1;
}

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
                api_header_add(rs, "Retry-After", "2");
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
                api_header_add(rs, "Retry-After", retry);
        }
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

json_t *api_body_object(const struct api_request *rq, struct api_response *rs)
{
        json_error_t jerr;
        json_t *doc;
        char detail[200];

        if (!rq->body || rq->body_len == 0) {
                api_problem_field(rs, 400, "", "required", "the request needs a JSON body");
                return NULL;
        }
        doc = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc) {
                snprintf(detail, sizeof(detail), "the body is not valid JSON: %s (line %d)",
                         jerr.text, jerr.line);
                api_problem_field(rs, 400, "", "json", detail);
                return NULL;
        }
        if (!json_is_object(doc)) {
                json_decref(doc);
                api_problem_field(rs, 400, "", "type", "the body must be a JSON object");
                return NULL;
        }
        return doc;
}

/* ---- encoders ------------------------------------------------------------ */

json_t *api_json_num(double v)
{
        return v == 0 || !isfinite(v) ? json_null() : json_real(v);
}

json_t *api_json_u64(uint64_t v)
{
        return v == 0 || v > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)v);
}

json_t *api_json_int(int64_t v)
{
        return v == 0 ? json_null() : json_integer((json_int_t)v);
}

json_t *api_json_str(const char *s)
{
        return s ? json_string(s) : json_null();
}

/* ---- after a write -------------------------------------------------------- */

void api_write_reply_entity(const struct api_request *rq, struct api_response *rs, bool created,
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

/* Repository-name endings of quantized copies of a model (Hugging Face
 * conventions: unsloth's -bnb-4bit, TheBloke's -GPTQ / -AWQ, -FP8) and the
 * quantization that stores the same weights here. */
static const struct {
        const char *suffix, *quantization, *what;
} quantized_suffixes[] = {
        {"-bnb-4bit", "nf4", "a bitsandbytes 4-bit"},
        {"-4bit", "nf4", "a 4-bit"},
        {"-bnb-8bit", "int8", "a bitsandbytes 8-bit"},
        {"-8bit", "int8", "an 8-bit"},
        {"-gptq", "int4", "a GPTQ"},
        {"-awq", "int4", "an AWQ"},
        {"-fp8-dynamic", "fp8", "an fp8"},
        {"-fp8", "fp8", "an fp8"},
};

/* The catalog model whose id, or one of whose Hub repository names (the
 * part after the owner), is name, case folded; NULL if none. */
static const struct catalog_model *model_by_repo_name(const struct catalog_snapshot *s,
                                                      const char *name)
{
        size_t count, want = strlen(name);
        const struct catalog_model *models = catalog_models(s, &count);
        for (size_t i = 0; i < count; i++) {
                if (!strcasecmp(models[i].id, name))
                        return &models[i];
                for (const char *p = models[i].hub_ids; p && *p;) {
                        size_t len = strcspn(p, ",");
                        const char *slash = memchr(p, '/', len);
                        const char *repo = slash ? slash + 1 : p;
                        size_t rlen = len - (size_t)(repo - p);
                        if (rlen == want && !strncasecmp(repo, name, rlen))
                                return &models[i];
                        p += len + (p[len] == ',');
                }
        }
        return NULL;
}

/* "X looks like a quantized copy of Y" when id's repository name ends in a
 * known suffix and what precedes it (less -Instruct, -Chat, -it, -hf)
 * names a catalog model; 0 or the bytes written. */
static int quantized_copy_hint(const struct catalog_snapshot *s, const char *id, char *buf,
                               size_t len)
{
        static const char *const variants[] = {"-instruct", "-chat", "-it", "-hf", "-base", NULL};
        const char *slash = strrchr(id, '/');
        const char *repo = slash ? slash + 1 : id;
        char base[128];
        size_t n = strlen(repo);
        for (size_t i = 0; i < sizeof(quantized_suffixes) / sizeof(quantized_suffixes[0]); i++) {
                size_t k = strlen(quantized_suffixes[i].suffix);
                if (n <= k || n - k >= sizeof(base) ||
                    strcasecmp(repo + n - k, quantized_suffixes[i].suffix))
                        continue;
                memcpy(base, repo, n - k);
                base[n - k] = '\0';
                const struct catalog_model *m = model_by_repo_name(s, base);
                for (int v = 0; !m && variants[v]; v++) {
                        size_t b = strlen(base), vl = strlen(variants[v]);
                        if (b > vl && !strcasecmp(base + b - vl, variants[v])) {
                                base[b - vl] = '\0';
                                m = model_by_repo_name(s, base);
                                v = -1; /* an instruct copy may also say -hf */
                        }
                }
                if (!m)
                        return 0;
                return snprintf(buf, len,
                                "; \"%.80s\" reads as %s copy of %s: ask for {\"id\": \"%s\"} "
                                "with \"quantization\": \"%s\"",
                                id, quantized_suffixes[i].what, m->id, m->id,
                                quantized_suffixes[i].quantization);
        }
        return 0;
}

const char *api_model_not_found(const struct catalog_snapshot *s, const char *id, char *buf,
                                size_t len)
{
        const struct catalog_model *near[3];
        size_t n = catalog_model_suggest(s, model_id_without_host(id), near, 3), off;
        int w = snprintf(buf, len, "no catalog model \"%.80s\"", id);
        off = w > 0 && (size_t)w < len ? (size_t)w : len - 1;
        w = quantized_copy_hint(s, id, buf + off, len - off);
        if (w > 0)
                off += (size_t)w < len - off ? (size_t)w : len - off - 1;
        for (size_t i = 0; i < n && off < len; i++) {
                const char *ids = near[i]->hub_ids ? near[i]->hub_ids : "";
                size_t hub = strcspn(ids, ",");
                w = snprintf(buf + off, len - off, "%s%s%s%.*s%s",
                             i ? ", " : "; closest: ", near[i]->id, hub ? " (" : "", (int)hub, ids,
                             hub ? ")" : "");
                if (w < 0)
                        break;
                off += (size_t)w < len - off ? (size_t)w : len - off - 1;
        }
        if (off < len)
                snprintf(buf + off, len - off, " (GET /api/v1/models lists them)");
        return buf;
}
