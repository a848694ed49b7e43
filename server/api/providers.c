/*
 * providers.c - GET /api/v1/providers, GET|PUT /api/v1/providers/{id},
 * PUT /api/v1/offerings/{id}.
 *
 * A provider is listed with its offerings (instance types) and each
 * offering's current prices, so "what does an A100 cost where, as of when,
 * says who" is one read from the snapshot.
 */
#include <stdlib.h>
#include <string.h>

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/admin.h"
#include "api/body.h"
#include "api/catalog.h"
#include "api/db.h"
#include "api/fields.h"
#include "api/catalog_render.h"
#include "db/catalog_queries.h"

/* The provider kinds the schema allows (migrations/0001_catalog_schema.sql). */
static const char *const provider_kinds[] = {"hyperscaler", "gpu_cloud", "marketplace", "notebook",
                                             NULL};
#define PROVIDER_KIND_RULE "kind must be one of hyperscaler, gpu_cloud, marketplace, notebook"

static bool provider_kind_known(const char *kind)
{
        for (size_t i = 0; provider_kinds[i]; i++)
                if (strcmp(kind, provider_kinds[i]) == 0)
                        return true;
        return false;
}

void api_providers_list(const struct api_request *rq, struct api_response *rs)
{
        const char *gpu = rq->query(rq, "gpu");
        const char *kind = rq->query(rq, "kind");
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        size_t n, n_off;
        const struct catalog_provider *prov;
        const struct catalog_offering *off;
        const struct api_catalog_render *render;
        json_t *arr;
        int rc;

        if (!s)
                return;
        if (kind && !provider_kind_known(kind)) {
                api_problem_field(rs, 400, "?kind", "enum", PROVIDER_KIND_RULE);
                goto out;
        }
        if (api_catalog_query_id(s, rs, "?gpu", API_ENTITY_GPU, gpu) || api_catalog_etag(rq, rs, s))
                goto out;
        prov = catalog_providers(s, &n);
        off = catalog_offerings(s, &n_off);
        /* Without a GPU filter every listed provider is its rendered document. */
        render = api_catalog_render(s);
        if (render && !gpu) {
                size_t *idx = calloc(n + 1, sizeof(*idx)), m = 0;

                for (size_t i = 0; idx && i < n; i++)
                        if (!kind || strcmp(kind, prov[i].kind) == 0)
                                idx[m++] = i;
                rc = !idx    ? -1
                     : !kind ? api_catalog_render_text(rs, &render->providers_list)
                             : api_catalog_render_rows(rs, "{\"providers\":[",
                                                       render->provider_docs, idx, m, "]}");
                free(idx);
                if (rc == 0)
                        goto out;
        }
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++) {
                json_t *doc, *offs;

                if (kind && strcmp(kind, prov[i].kind) != 0)
                        continue;
                doc = catalog_json_provider(s, &prov[i], false);
                offs = json_array();
                for (size_t j = 0; doc && offs && j < n_off; j++) {
                        if (strcmp(off[j].provider_id, prov[i].id) != 0)
                                continue;
                        if (gpu && strcmp(off[j].accelerator_id, gpu) != 0)
                                continue;
                        json_array_append_new(offs, catalog_json_offering(s, &off[j]));
                }
                if (gpu && offs && json_array_size(offs) == 0) {
                        /* Filtering by GPU lists only providers that offer it. */
                        json_decref(offs);
                        json_decref(doc);
                        continue;
                }
                json_object_set_new(doc, "offerings", offs ? offs : json_array());
                json_array_append_new(arr, doc);
        }
        api_reply_json(rs, 200, json_pack("{s:o}", "providers", arr ? arr : json_array()));
out:
        catalog_release(s);
}

void api_providers_get(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        const struct catalog_provider *p;

        if (!s)
                return;
        p = catalog_provider(s, rq->params[0]);
        if (!p) {
                api_problem(rs, 404, "no provider with this id in the catalog");
        } else if (!api_catalog_etag(rq, rs, s)) {
                const struct api_catalog_render *render = api_catalog_render(s);
                size_t n;

                if (!render || api_catalog_render_text(
                                       rs, &render->provider_docs[p - catalog_providers(s, &n)]))
                        api_reply_json(rs, 200, catalog_json_provider(s, p, true));
        }
        catalog_release(s);
}

static const char *const provider_keys[] = {"id",     "name",        "kind",      "url", "notes",
                                            "source", "source_date", "offerings", NULL};

void api_providers_put(const struct api_request *rq, struct api_response *rs)
{
        struct catalog_provider p = {.id = rq->params[0]};
        const char *body_id = NULL;
        struct db_actor who;
        struct db_error e;
        char actor[80];
        bool created = false;
        json_t *body;
        PGconn *conn;
        int rc;

        if (admin_check(rq, rs))
                return;
        if (!fields_is_id(p.id, 64)) {
                api_problem_field(rs, 400, "/id", "pattern",
                                  "a provider id is 1..64 characters of a-z, 0-9, '.', '_', '-'");
                return;
        }
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (fields_known(rs, body, "", provider_keys) ||
            fields_string(rs, body, "", "id", FIELD_NULLABLE, 64, &body_id) ||
            fields_string(rs, body, "", "name", FIELD_REQUIRED, 200, &p.name) ||
            fields_string(rs, body, "", "kind", FIELD_REQUIRED, 32, &p.kind) ||
            fields_string(rs, body, "", "url", FIELD_NULLABLE, 1000, &p.url) ||
            fields_string(rs, body, "", "notes", FIELD_NULLABLE, 4000, &p.notes) ||
            fields_string(rs, body, "", "source", FIELD_REQUIRED, 1000, &p.source) ||
            fields_date(rs, body, "", "source_date", FIELD_REQUIRED, &p.source_date))
                goto out;
        if (body_id && strcmp(body_id, p.id) != 0) {
                api_problem_field(rs, 400, "/id", "const", "id in the body differs from the path");
                goto out;
        }
        if (!provider_kind_known(p.kind)) {
                api_problem_field(rs, 400, "/kind", "enum", PROVIDER_KIND_RULE);
                goto out;
        }
        conn = api_db_acquire(rq, rs);
        if (!conn)
                goto out;
        admin_actor(rq, actor, sizeof(actor), &who);
        rc = catalog_queries_upsert_provider(conn, &p, &who, &created, &e);
        api_db_release(rq, conn);
        if (rc)
                api_db_problem(rs, &e);
        else
                api_catalog_write_reply(rq, rs, created, API_ENTITY_PROVIDER, p.id);
out:
        json_decref(body);
}

static const char *const offering_keys[] = {"id", "provider", "instance_type", "gpu",
                                            "gpus_per_instance", "vcpus", "ram_bytes", "region",
                                            "interconnect", "interconnect_bytes_per_s",
                                            "network_bytes_per_s", "notes", "source", "source_date",
                                            /* read-only, ignored */
                                            "gpu_name", "prices", NULL};

void api_providers_offerings_put(const struct api_request *rq, struct api_response *rs)
{
        struct catalog_offering o = {.id = rq->params[0]};
        const char *body_id = NULL;
        int64_t gpus = 0, vcpus = 0, ram = 0;
        struct db_actor who;
        struct db_error e;
        char actor[80];
        bool created = false;
        json_t *body;
        PGconn *conn;
        int rc;

        if (admin_check(rq, rs))
                return;
        if (!fields_is_id(o.id, 96)) {
                api_problem_field(rs, 400, "/id", "pattern",
                                  "an offering id is 1..96 characters of a-z, 0-9, '.', '_', '-'");
                return;
        }
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (fields_known(rs, body, "", offering_keys) ||
            fields_string(rs, body, "", "id", FIELD_NULLABLE, 96, &body_id) ||
            fields_string(rs, body, "", "provider", FIELD_REQUIRED, 64, &o.provider_id) ||
            fields_string(rs, body, "", "instance_type", FIELD_REQUIRED, 200, &o.instance_type) ||
            fields_string(rs, body, "", "gpu", FIELD_REQUIRED, 64, &o.accelerator_id) ||
            fields_int(rs, body, "", "gpus_per_instance", FIELD_REQUIRED, 1, 1024, &gpus) ||
            fields_int(rs, body, "", "vcpus", FIELD_NULLABLE, 1, 100000, &vcpus) ||
            fields_int(rs, body, "", "ram_bytes", FIELD_NULLABLE, 1, INT64_MAX, &ram) ||
            fields_string(rs, body, "", "region", FIELD_REQUIRED, 100, &o.region) ||
            fields_string(rs, body, "", "interconnect", FIELD_NULLABLE, 200, &o.interconnect) ||
            fields_number(rs, body, "", "interconnect_bytes_per_s", FIELD_NULLABLE, 1, 1e21,
                          &o.interconnect_bytes_per_s) ||
            fields_number(rs, body, "", "network_bytes_per_s", FIELD_NULLABLE, 1, 1e21,
                          &o.network_bytes_per_s) ||
            fields_string(rs, body, "", "notes", FIELD_NULLABLE, 4000, &o.notes) ||
            fields_string(rs, body, "", "source", FIELD_REQUIRED, 1000, &o.source) ||
            fields_date(rs, body, "", "source_date", FIELD_REQUIRED, &o.source_date))
                goto out;
        if (body_id && strcmp(body_id, o.id) != 0) {
                api_problem_field(rs, 400, "/id", "const", "id in the body differs from the path");
                goto out;
        }
        o.gpus_per_instance = (int)gpus;
        o.vcpus = (int)vcpus;
        o.ram_bytes = (uint64_t)ram;
        conn = api_db_acquire(rq, rs);
        if (!conn)
                goto out;
        admin_actor(rq, actor, sizeof(actor), &who);
        /* An unknown provider or gpu is a foreign-key violation: 422 from the SQLSTATE table. */
        rc = catalog_queries_upsert_offering(conn, &o, &who, &created, &e);
        api_db_release(rq, conn);
        if (rc)
                api_db_problem(rs, &e);
        else
                api_catalog_write_reply(rq, rs, created, API_ENTITY_OFFERING, o.id);
out:
        json_decref(body);
}
