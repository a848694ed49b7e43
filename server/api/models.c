/*
 * models.c - GET /api/v1/models and GET /api/v1/models/{id}: the model
 * catalog from the snapshot, with the architecture the importer derived,
 * the parameter count the engine computes from it and the published count
 * with its source.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/admin.h"
#include "api/body.h"
#include "api/catalog.h"
#include "api/db.h"
#include "api/model_not_found.h"
#include "api/fields.h"
#include "core/estimate.h"
#include "json/text.h"
#include "app.h"
#include "config.h"
#include "db/catalog_queries.h"
#include "models/hf_config.h"
#include "models/hub.h"
#include "models/model_id.h"
#include "models/fetched.h"
#include "db/resolve.h"

/* A whole-number query parameter in [lo, hi]; absent leaves *out. */
static int query_u64(const struct api_request *rq, struct api_response *rs, const char *key,
                     uint64_t lo, uint64_t hi, uint64_t *out)
{
        const char *v = rq->query(rq, key);
        char ptr[40], why[160], *end;
        unsigned long long x;
        if (!v)
                return 0;
        errno = 0;
        x = strtoull(v, &end, 10);
        if (errno || *end || !*v || v[0] == '-' || x < lo || x > hi) {
                snprintf(ptr, sizeof(ptr), "?%s", key);
                snprintf(why, sizeof(why), "%s must be a whole number in %llu..%llu", key,
                         (unsigned long long)lo, (unsigned long long)hi);
                api_problem_field(rs, 400, ptr, "range", why);
                return -1;
        }
        *out = x;
        return 0;
}

static bool contains_nocase(const char *hay, const char *needle)
{
        size_t n = strlen(needle);
        for (; hay && *hay; hay++)
                if (strncasecmp(hay, needle, n) == 0)
                        return true;
        return false;
}

/* Every word of q (split at spaces) found, case-insensitively, in one of
 * the n fields: "qwen2.5 7b instruct" finds qwen2.5-7b by its Hub id
 * Qwen/Qwen2.5-7B-Instruct. */
static bool words_match(const char *q, const char *const *fields, size_t n)
{
        char word[129];
        while (*q) {
                size_t len = strcspn(q, " ");
                if (len > 0 && len < sizeof(word)) {
                        bool found = false;
                        memcpy(word, q, len);
                        word[len] = '\0';
                        for (size_t i = 0; i < n && !found; i++)
                                found = contains_nocase(fields[i], word);
                        if (!found)
                                return false;
                }
                q += len;
                while (*q == ' ')
                        q++;
        }
        return true;
}

static bool model_matches_text(const struct catalog_model *m, const char *q)
{
        const char *fields[] = {m->id, m->name, m->family, m->hub_ids};
        return words_match(q, fields, 4);
}

/* The Hub models this replica has read whose id has every word of q. */
static json_t *fetched_matches(const struct api_request *rq, const char *q)
{
        static _Thread_local char names[64][FETCHED_REPO_MAX];
        json_t *arr = json_array();
        size_t n = rq->app && rq->app->fetched ? fetched_names(rq->app->fetched, names, 64) : 0;
        for (size_t i = 0; arr && i < n; i++) {
                const char *fields[] = {names[i]};
                if (words_match(q, fields, 1))
                        json_array_append_new(arr, json_pack("{s:s}", "id", names[i]));
        }
        return arr;
}

/*
 * GET /api/v1/models: the catalog, filtered by ?family= (exact, any case),
 * ?kind= (encoder, decoder, encoder_decoder), ?min_parameters= and
 * ?max_parameters= (published counts), ?q= (text in id, name, family or a
 * Hub id), and paged by ?limit= (1..1000, default 100) and ?offset=.
 * "count" is the number of matches before paging.
 */
void api_models_list(const struct api_request *rq, struct api_response *rs)
{
        const char *family = rq->query(rq, "family"), *kind_q = rq->query(rq, "kind");
        const char *q = rq->query(rq, "q");
        uint64_t min_p = 0, max_p = UINT64_MAX, limit = 100, offset = 0;
        enum model_kind kind = MODEL_KIND_COUNT;
        const struct catalog_snapshot *s;
        const struct catalog_model *m;
        size_t n, matched = 0;
        json_t *arr;

        if (query_u64(rq, rs, "min_parameters", 0, UINT64_MAX, &min_p) ||
            query_u64(rq, rs, "max_parameters", 0, UINT64_MAX, &max_p) ||
            query_u64(rq, rs, "limit", 1, 1000, &limit) ||
            query_u64(rq, rs, "offset", 0, 1000000, &offset))
                return;
        if (kind_q && model_kind_parse(kind_q, &kind)) {
                api_problem_field(rs, 400, "?kind", "enum",
                                  "kind must be encoder, decoder or encoder_decoder");
                return;
        }
        if (q && text_chars(q, strlen(q)) > 128) { /* characters (json/text.h) */
                api_problem_field(rs, 400, "?q", "maxLength", "q must be at most 128 characters");
                return;
        }
        s = api_catalog_snapshot(rq, rs);
        if (!s)
                return;
        if (api_catalog_etag(rq, rs, s)) {
                catalog_release(s);
                return;
        }
        m = catalog_models(s, &n);
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++) {
                if ((family && strcasecmp(m[i].family, family)) ||
                    (kind != MODEL_KIND_COUNT && (!m[i].arch_ok || m[i].arch.kind != kind)) ||
                    m[i].published_parameters < min_p || m[i].published_parameters > max_p ||
                    (q && *q && !model_matches_text(&m[i], q)))
                        continue;
                if (matched >= offset && matched - offset < limit)
                        json_array_append_new(arr, catalog_json_model(&m[i], false));
                matched++;
        }
        if (!arr) {
                api_problem(rs, 500, "out of memory");
        } else {
                json_t *doc = json_pack("{s:o, s:I, s:I, s:I}", "models", arr, "count",
                                        (json_int_t)matched, "limit", (json_int_t)limit, "offset",
                                        (json_int_t)offset);
                if (doc && q && *q)
                        json_object_set_new(doc, "hub_models", fetched_matches(rq, q));
                api_reply_json(rs, 200, doc);
        }
        catalog_release(s);
}

void api_models_get(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        const struct catalog_model *m;
        json_t *o;

        if (!s)
                return;
        m = rq->n_params ? catalog_model(s, model_id_without_host(rq->params[0])) : NULL;
        if (!m) {
                char why[600];
                api_problem(rs, 404,
                            api_model_not_found(s, rq->n_params ? rq->params[0] : "", why,
                                                sizeof(why)));
                catalog_release(s);
                return;
        }
        if (api_catalog_etag(rq, rs, s)) {
                catalog_release(s);
                return;
        }
        o = catalog_json_model(m, true);
        if (!o)
                api_problem(rs, 500, "out of memory");
        else
                api_reply_json(rs, 200, o);
        catalog_release(s);
}

static const char *const team_model_keys[] = {"id",
                                              "name",
                                              "family",
                                              "licence",
                                              "notes",
                                              "note",
                                              "hf_config",
                                              "hub_id",
                                              "revision",
                                              "published_parameters",
                                              "parameters_source",
                                              NULL};

/* The config of a Hub id for a team model: through the same look-up as an
 * estimate (memory, database, Hub).  NULL with rs filled. */
static json_t *team_hub_config(const struct api_request *rq, const char *hub_id,
                               const char *revision, char *repo, size_t repolen,
                               struct api_response *rs)
{
        const struct hub_settings *hub = rq->app ? rq->app->hub : NULL;
        struct resolve_ctx ctx = {rq->app ? rq->app->db : NULL, hub, 2000, (int64_t)time(NULL)};
        struct fetched_entry e;
        struct fetched_problem p;
        char rev[201];
        json_t *cfg;

        if (!hub || !rq->app->fetched ||
            !model_id_hub_repo(hub_id, hub->endpoint, repo, repolen, rev, sizeof(rev))) {
                api_problem_field(rs, 400, "/hub_id", "pattern",
                                  "hub_id must be a Hub model id (org/name) or its URL");
                return NULL;
        }
        if (revision)
                snprintf(rev, sizeof(rev), "%s", revision);
        if (rq->app->config && rq->app->config->db_acquire_timeout_ms)
                ctx.db_timeout_ms = rq->app->config->db_acquire_timeout_ms;
        if (fetched_get(rq->app->fetched, repo, rev, ctx.now_s, resolve_fill, &ctx, &e, &p)) {
                api_problem_field(rs, p.status, "/hub_id", p.rule, p.detail);
                return NULL;
        }
        cfg = json_loads(e.config, JSON_REJECT_DUPLICATES, NULL);
        fetched_entry_free(&e);
        if (!cfg)
                api_problem_field(rs, 502, "/hub_id", "hub_unavailable",
                                  "the stored config.json is not JSON");
        return cfg;
}

/*
 * PUT /api/v1/models/{id} (admin): a team's own model from a pasted
 * config.json (hf_config) or a Hub id (hub_id, optional revision), with
 * name, family, licence and notes.  The parameter count is the importer's
 * unless published_parameters is given.  A curated catalog model of the
 * same id is not overwritten (409).
 */
void api_models_put(const struct api_request *rq, struct api_response *rs)
{
        struct catalog_model m;
        const char *body_id = NULL, *note = NULL, *hub_id = NULL, *revision = NULL, *source = NULL,
                   *licence = NULL;
        int64_t published = 0;
        char key[64], why[900], ptr[160], repo[HUB_REPO_MAX] = "", source_buf[300];
        struct model_arch arch;
        struct db_actor who;
        struct db_error e;
        char actor[80];
        bool created = false;
        json_t *body = NULL, *cfg = NULL;
        const struct catalog_snapshot *snap;
        PGconn *conn;

        memset(&m, 0, sizeof(m));
        if (admin_check(rq, rs))
                return;
        if (!fields_is_id(rq->params[0], 64)) {
                api_problem_field(rs, 400, "/id", "pattern",
                                  "a model id is 1..64 characters of a-z, 0-9, '.', '_', '-'");
                return;
        }
        snprintf(m.id, sizeof(m.id), "%s", rq->params[0]);
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (fields_known(rs, body, "", team_model_keys) ||
            fields_string(rs, body, "", "id", FIELD_NULLABLE, 64, &body_id) ||
            fields_string(rs, body, "", "licence", FIELD_NULLABLE, 100, &licence) ||
            fields_string(rs, body, "", "notes", FIELD_NULLABLE, 4000, &note) ||
            (!note && fields_string(rs, body, "", "note", FIELD_NULLABLE, 4000, &note)) ||
            fields_string(rs, body, "", "hub_id", FIELD_NULLABLE, 300, &hub_id) ||
            fields_string(rs, body, "", "revision", FIELD_NULLABLE, 200, &revision) ||
            fields_string(rs, body, "", "parameters_source", FIELD_NULLABLE, 1000, &source) ||
            fields_int(rs, body, "", "published_parameters", FIELD_NULLABLE, 1000000,
                       10000000000000ll, &published))
                goto out;
        {
                const char *name = NULL, *family = NULL;
                if (fields_string(rs, body, "", "name", FIELD_REQUIRED, 95, &name) ||
                    fields_string(rs, body, "", "family", FIELD_REQUIRED, 47, &family))
                        goto out;
                snprintf(m.name, sizeof(m.name), "%s", name);
                snprintf(m.family, sizeof(m.family), "%s", family);
        }
        if (body_id && strcmp(body_id, m.id)) {
                api_problem_field(rs, 400, "/id", "const", "id in the body differs from the path");
                goto out;
        }
        if (!json_object_get(body, "hf_config") == !hub_id) {
                api_problem_field(rs, 400, "", "one_of",
                                  "give the model's config.json as hf_config, or its Hub id as "
                                  "hub_id (not both)");
                goto out;
        }
        if (revision && !hub_id) {
                api_problem_field(rs, 400, "/revision", "contradiction",
                                  "revision applies to hub_id");
                goto out;
        }
        snap = rq->app && rq->app->catalog ? catalog_acquire(rq->app->catalog) : NULL;
        if (snap) {
                size_t n;
                const struct catalog_model *all = catalog_models(snap, &n);
                bool curated = false;
                for (size_t i = 0; i < n; i++)
                        curated |= !strcmp(all[i].id, m.id) && !all[i].team;
                catalog_release(snap);
                if (curated) {
                        api_problem_field(rs, 409, "/id", "conflict",
                                          "a curated catalog model has this id: choose another "
                                          "id for the team's model");
                        goto out;
                }
        }
        if (hub_id) {
                cfg = team_hub_config(rq, hub_id, revision, repo, sizeof(repo), rs);
                if (!cfg)
                        goto out;
        } else {
                cfg = json_incref(json_object_get(body, "hf_config"));
                if (!json_is_object(cfg)) {
                        api_problem_field(rs, 400, "/hf_config", "type",
                                          "hf_config must be the config.json object");
                        goto out;
                }
        }
        if (hf_config_import_ex(cfg, &arch, key, sizeof(key), why, sizeof(why))) {
                snprintf(ptr, sizeof(ptr), "%s%s%s", hub_id ? "/hub_id" : "/hf_config",
                         key[0] && !hub_id ? "/" : "", hub_id ? "" : key);
                api_problem_field(rs, hub_id ? 422 : 400, ptr, "hf_config", why);
                goto out;
        }
        m.published_parameters = published > 0 ? (uint64_t)published : model_parameters(&arch);
        if (!source) {
                snprintf(source_buf, sizeof(source_buf), "%s%s",
                         published > 0 ? "stated by the team"
                                       : "counted by gpuplan from the config.json of ",
                         published > 0 ? ""
                         : hub_id      ? repo
                                       : "the team's paste");
                source = source_buf;
        }
        m.hf_config_json = json_dumps(cfg, JSON_COMPACT | JSON_PRESERVE_ORDER);
        m.parameters_source = (char *)(uintptr_t)source;
        m.notes = (char *)(uintptr_t)note;
        m.licence = (char *)(uintptr_t)licence;
        m.hub_ids = repo;
        if (!m.hf_config_json) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        conn = api_db_acquire(rq, rs);
        if (!conn)
                goto out;
        admin_actor(rq, actor, sizeof(actor), &who);
        if (catalog_queries_upsert_team_model(conn, &m, &who, &created, &e)) {
                api_db_release(rq, conn);
                if (e.http_status == 500 && strstr(e.detail, "no row"))
                        api_problem_field(rs, 409, "/id", "conflict",
                                          "a curated catalog model has this id");
                else
                        api_db_problem(rs, &e);
                goto out;
        }
        api_db_release(rq, conn);
        api_catalog_write_reply(rq, rs, created, API_ENTITY_MODEL, m.id);
out:
        free(m.hf_config_json);
        json_decref(cfg);
        json_decref(body);
}
