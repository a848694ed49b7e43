/*
 * catalog_common.c - helpers shared by the catalog endpoints; see catalog_common.h.
 */
#include "api/catalog_json.h"
#include "api/catalog_common.h"

#include "api/catalog_api.h"
#include "api/text.h"

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

#define DB_ACQUIRE_DEFAULT_MS 2000u

/* ---- admin --------------------------------------------------------------- */

/*
 * Compare the offered token with the configured one in time that depends
 * only on the configured token's length, never on where they differ
 * (the technique of OpenBSD's timingsafe_bcmp, extended to unequal lengths).
 */
static bool token_equal(const char *given, const char *expected)
{
        size_t n = strlen(given), m = strlen(expected);
        unsigned char diff = n != m;

        for (size_t i = 0; i < m; i++) {
                unsigned char g = i < n ? (unsigned char)given[i] : 0;

                diff |= (unsigned char)(g ^ (unsigned char)expected[i]);
        }
        return diff == 0;
}

int api_admin_check(const struct api_request *rq, struct api_response *rs)
{
        const struct config *cfg = rq->app ? rq->app->config : NULL;
        const char *token = cfg ? cfg->admin_token : NULL;
        const char *auth = rq->header ? rq->header(rq, "Authorization") : NULL;

        if (!token || !*token) {
                api_problem(rs, 403,
                            "admin writes are disabled: the server has no GPUPLAN_ADMIN_TOKEN");
                return -1;
        }
        if (!auth || strncasecmp(auth, "Bearer ", 7) != 0 || !auth[7]) {
                api_problem(rs, 401, "this write needs Authorization: Bearer <admin token>");
                api_header_add(rs, "WWW-Authenticate", "Bearer realm=\"gpuplan\"");
                return -1;
        }
        auth += 7;
        while (*auth == ' ')
                auth++;
        if (!token_equal(auth, token)) {
                api_problem(rs, 403, "the admin token is not valid");
                return -1;
        }
        return 0;
}

void api_admin_actor(const struct api_request *rq, char *buf, size_t len, struct db_actor *who)
{
        const char *h = rq->header ? rq->header(rq, "X-Actor") : NULL;
        size_t n = h ? strlen(h) : 0;
        bool ok = n >= 1 && n <= 64 && n < len;

        for (size_t i = 0; ok && i < n; i++)
                ok = h[i] >= 0x20 && h[i] < 0x7f;
        snprintf(buf, len, "%s", ok ? h : "admin");
        who->actor = buf;
        who->request_id = rq->request_id;
        who->payload_json = rq->body;
}

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

/* ---- strict field readers ----------------------------------------------- */

static void field_error(struct api_response *rs, const char *prefix, const char *key,
                        const char *rule, const char *detail)
{
        char pointer[160];

        snprintf(pointer, sizeof(pointer), "%s/%s", prefix, key);
        api_problem_field(rs, 400, pointer, rule, detail);
}

/*
 * The value for key, or NULL when absent or an allowed null; sets *fail
 * (and rs) when a required field is missing.
 */
static json_t *field_get(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                         unsigned flags, int *fail)
{
        json_t *v = json_object_get(obj, key);
        char detail[160];

        *fail = 0;
        if (v && !json_is_null(v))
                return v;
        if (v && json_is_null(v) && !(flags & FIELD_NULLABLE)) {
                snprintf(detail, sizeof(detail), "%s may not be null", key);
                field_error(rs, prefix, key, "type", detail);
                *fail = 1;
        } else if (flags & FIELD_REQUIRED) {
                snprintf(detail, sizeof(detail), "%s is required", key);
                field_error(rs, prefix, key, "required", detail);
                *fail = 1;
        }
        return NULL;
}

int api_field_string(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, size_t max_len, const char **out)
{
        int fail;
        json_t *v = field_get(rs, obj, prefix, key, flags, &fail);
        char detail[160];

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_string(v)) {
                snprintf(detail, sizeof(detail), "%s must be a string", key);
                field_error(rs, prefix, key, "type", detail);
                return -1;
        }
        /* characters, not bytes (api/text.h); jansson strings are UTF-8 */
        long chars = text_chars(json_string_value(v), json_string_length(v));
        if (chars < 0) {
                snprintf(detail, sizeof(detail), "%s may not hold a NUL", key);
                field_error(rs, prefix, key, "encoding", detail);
                return -1;
        }
        if ((size_t)chars > max_len) {
                snprintf(detail, sizeof(detail), "%s must be at most %zu characters", key, max_len);
                field_error(rs, prefix, key, "maxLength", detail);
                return -1;
        }
        if ((flags & FIELD_REQUIRED) && json_string_length(v) == 0) {
                snprintf(detail, sizeof(detail), "%s may not be empty", key);
                field_error(rs, prefix, key, "minLength", detail);
                return -1;
        }
        *out = json_string_value(v);
        return 0;
}

int api_field_number(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, double min, double max, double *out)
{
        int fail;
        json_t *v = field_get(rs, obj, prefix, key, flags, &fail);
        char detail[200];
        double d;

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_number(v)) {
                snprintf(detail, sizeof(detail), "%s must be a number", key);
                field_error(rs, prefix, key, "type", detail);
                return -1;
        }
        d = json_number_value(v);
        if (!isfinite(d) || d < min || d > max) {
                snprintf(detail, sizeof(detail), "%s must be between %g and %g", key, min, max);
                field_error(rs, prefix, key, "range", detail);
                return -1;
        }
        *out = d;
        return 0;
}

int api_field_int(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                  unsigned flags, int64_t min, int64_t max, int64_t *out)
{
        int fail;
        json_t *v = field_get(rs, obj, prefix, key, flags, &fail);
        char detail[200];
        json_int_t i;

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_integer(v)) {
                snprintf(detail, sizeof(detail), "%s must be an integer", key);
                field_error(rs, prefix, key, "type", detail);
                return -1;
        }
        i = json_integer_value(v);
        if (i < min || i > max) {
                snprintf(detail, sizeof(detail), "%s must be between %lld and %lld", key,
                         (long long)min, (long long)max);
                field_error(rs, prefix, key, "range", detail);
                return -1;
        }
        *out = (int64_t)i;
        return 0;
}

int api_field_bool(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                   unsigned flags, bool *out)
{
        int fail;
        json_t *v = field_get(rs, obj, prefix, key, flags, &fail);
        char detail[160];

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_boolean(v)) {
                snprintf(detail, sizeof(detail), "%s must be true or false", key);
                field_error(rs, prefix, key, "type", detail);
                return -1;
        }
        *out = json_is_true(v);
        return 0;
}

bool api_is_date(const char *s)
{
        static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int y, m, d;

        if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
                return false;
        for (int i = 0; i < 10; i++)
                if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
                        return false;
        y = atoi(s);
        m = atoi(s + 5);
        d = atoi(s + 8);
        if (y < 1900 || m < 1 || m > 12 || d < 1 || d > days[m - 1])
                return false;
        /* 29 February only in leap years (Gregorian rule). */
        if (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
                return false;
        return true;
}

int api_field_date(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                   unsigned flags, const char **out)
{
        const char *v = NULL;
        char detail[160];

        if (api_field_string(rs, obj, prefix, key, flags, 10, &v))
                return -1;
        if (!v)
                return 0;
        if (!api_is_date(v)) {
                snprintf(detail, sizeof(detail), "%s must be a date, YYYY-MM-DD", key);
                field_error(rs, prefix, key, "format", detail);
                return -1;
        }
        *out = v;
        return 0;
}

int api_fields_known(struct api_response *rs, json_t *obj, const char *prefix,
                     const char *const *allowed)
{
        const char *key;
        json_t *v;
        char detail[200];

        json_object_foreach(obj, key, v)
        {
                size_t i;

                for (i = 0; allowed[i]; i++)
                        if (strcmp(key, allowed[i]) == 0)
                                break;
                if (!allowed[i]) {
                        snprintf(detail, sizeof(detail), "unknown field \"%.100s\"", key);
                        field_error(rs, prefix, key, "unknown", detail);
                        return -1;
                }
        }
        return 0;
}

bool api_is_id(const char *s, size_t max_len)
{
        size_t n = s ? strlen(s) : 0;

        if (n < 1 || n > max_len)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                          (i > 0 && (c == '.' || c == '_' || c == '-'));

                if (!ok)
                        return false;
        }
        return true;
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
        size_t n = catalog_model_suggest(s, id, near, 3), off;
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
