/*
 * prices.c - GET|POST /api/v1/prices and GET|POST /api/v1/purchase_prices.
 *
 * Current prices come from the snapshot.  History (as_of=YYYY-MM-DD: the
 * prices in effect that day; history=all: every row) reads the database,
 * since the snapshot keeps only the newest row per offering and kind.
 * Writes append a row (history is never overwritten), audited, and reload
 * this replica's snapshot before answering.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/admin.h"
#include "api/body.h"
#include "api/catalog.h"
#include "api/db.h"
#include "api/fields.h"
#include "api/catalog_render.h"
#include "app.h"
#include "catalog/catalog_tables.h"
#include "db/catalog_queries.h"

/* ---- GET /api/v1/prices -------------------------------------------------- */

static bool price_matches(const struct catalog_snapshot *s, const struct catalog_price *p,
                          const struct price_filter *f)
{
        const struct catalog_offering *o = catalog_offering(s, p->offering_id);

        if (f->pricing >= 0 && p->pricing != (enum catalog_pricing)f->pricing)
                return false;
        if (f->offering && strcmp(f->offering, p->offering_id) != 0)
                return false;
        if (f->gpu && (!o || strcmp(f->gpu, o->accelerator_id) != 0))
                return false;
        if (f->provider && (!o || strcmp(f->provider, o->provider_id) != 0))
                return false;
        return true;
}

void api_prices_list(const struct api_request *rq, struct api_response *rs)
{
        struct price_filter f = {.gpu = rq->query(rq, "gpu"),
                                 .provider = rq->query(rq, "provider"),
                                 .offering = rq->query(rq, "offering"),
                                 .pricing = -1,
                                 .as_of = rq->query(rq, "as_of")};
        const char *pricing = rq->query(rq, "pricing");
        const char *history = rq->query(rq, "history");
        const struct catalog_snapshot *s;
        struct catalog_tables hist;
        const struct catalog_price *rows;
        size_t n;
        json_t *arr;

        memset(&hist, 0, sizeof(hist));
        if (pricing) {
                enum catalog_pricing p;

                if (catalog_pricing_parse(pricing, &p)) {
                        api_problem_field(rs, 400, "?pricing", "enum",
                                          "pricing must be on_demand, spot or reserved");
                        return;
                }
                f.pricing = (int)p;
        }
        if (f.as_of && !fields_is_date(f.as_of)) {
                api_problem_field(rs, 400, "?as_of", "format", "as_of must be a date, YYYY-MM-DD");
                return;
        }
        if (history) {
                if (strcmp(history, "all") != 0 && strcmp(history, "true") != 0) {
                        api_problem_field(rs, 400, "?history", "enum",
                                          "history must be all (every row, newest first)");
                        return;
                }
                f.all_rows = true;
        }
        s = api_catalog_snapshot(rq, rs);
        if (!s)
                return;
        if (api_catalog_query_id(s, rs, "?gpu", API_ENTITY_GPU, f.gpu) ||
            api_catalog_query_id(s, rs, "?provider", API_ENTITY_PROVIDER, f.provider) ||
            api_catalog_query_id(s, rs, "?offering", API_ENTITY_OFFERING, f.offering))
                goto out;
        if (f.as_of || f.all_rows) {
                struct db_error e;
                PGconn *conn = api_db_acquire(rq, rs);
                int rc;

                if (!conn)
                        goto out;
                rc = catalog_queries_prices(conn, &f, &hist, &e);
                api_db_release(rq, conn);
                if (rc) {
                        api_db_problem(rs, &e);
                        goto out;
                }
                rows = hist.prices;
                n = hist.n_prices;
        } else {
                const struct api_catalog_render *render;
                size_t *idx, m = 0;
                int rc;

                if (api_catalog_etag(rq, rs, s))
                        goto out;
                rows = catalog_prices(s, &n);
                /* Current prices: the snapshot's rendered rows, filtered. */
                render = api_catalog_render(s);
                idx = render ? calloc(n + 1, sizeof(*idx)) : NULL;
                for (size_t i = 0; idx && i < n; i++)
                        if (price_matches(s, &rows[i], &f))
                                idx[m++] = i;
                rc = !idx     ? -1
                     : m == n ? api_catalog_render_text(rs, &render->prices_list)
                              : api_catalog_render_rows(rs, "{\"prices\":[", render->price_rows,
                                                        idx, m, "]}");
                free(idx);
                if (rc == 0)
                        goto out;
        }
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++)
                if (price_matches(s, &rows[i], &f))
                        json_array_append_new(arr, catalog_json_price(s, &rows[i]));
        api_reply_json(rs, 200, json_pack("{s:o}", "prices", arr ? arr : json_array()));
out:
        catalog_tables_free(&hist);
        catalog_release(s);
}

/* ---- POST /api/v1/prices ------------------------------------------------- */

static void today_utc(char *buf, size_t len)
{
        time_t now = time(NULL);
        struct tm tm;

        gmtime_r(&now, &tm);
        strftime(buf, len, "%Y-%m-%d", &tm);
}

static const char *const price_keys[] = {"offering",         "pricing",     "usd_per_hour",
                                         "usd_per_gpu_hour", "term_months", "as_of",
                                         "source",           "currency",    NULL};

void api_prices_post(const struct api_request *rq, struct api_response *rs)
{
        struct catalog_price p = {.currency = "USD", .offering_index = SIZE_MAX};
        const char *pricing = NULL, *currency = NULL;
        double per_hour = -1, per_gpu_hour = -1;
        int64_t term = 0, id = 0;
        const struct catalog_snapshot *s = NULL;
        const struct catalog_offering *o;
        const struct catalog_price *cur;
        struct db_actor who;
        struct db_error e;
        char actor[80], today[16];
        json_t *body, *doc;
        PGconn *conn;
        bool reloaded;
        int rc;

        if (admin_check(rq, rs))
                return;
        body = api_body_object(rq, rs);
        if (!body)
                return;
        today_utc(today, sizeof(today));
        p.as_of = today;
        if (fields_known(rs, body, "", price_keys) ||
            fields_string(rs, body, "", "offering", FIELD_REQUIRED, 96, &p.offering_id) ||
            fields_string(rs, body, "", "pricing", FIELD_REQUIRED, 16, &pricing) ||
            fields_number(rs, body, "", "usd_per_hour", 0, 0, 1e6, &per_hour) ||
            fields_number(rs, body, "", "usd_per_gpu_hour", 0, 0, 1e6, &per_gpu_hour) ||
            fields_int(rs, body, "", "term_months", FIELD_NULLABLE, 1, 120, &term) ||
            fields_date(rs, body, "", "as_of", 0, &p.as_of) ||
            fields_string(rs, body, "", "source", FIELD_REQUIRED, 1000, &p.source) ||
            fields_string(rs, body, "", "currency", 0, 3, &currency))
                goto out;
        if (currency && strcmp(currency, "USD") != 0) {
                api_problem_field(rs, 400, "/currency", "enum", "prices are stored in USD");
                goto out;
        }
        if (catalog_pricing_parse(pricing, &p.pricing)) {
                api_problem_field(rs, 400, "/pricing", "enum",
                                  "pricing must be on_demand, spot or reserved");
                goto out;
        }
        if ((p.pricing == CATALOG_RESERVED) != (term != 0)) {
                api_problem_field(rs, 400, "/term_months", "dependentRequired",
                                  "term_months is required for reserved prices and only for them");
                goto out;
        }
        if ((per_hour >= 0) == (per_gpu_hour >= 0)) {
                api_problem_field(rs, 400, "/usd_per_hour", "oneOf",
                                  "give exactly one of usd_per_hour (whole instance) and"
                                  " usd_per_gpu_hour");
                goto out;
        }
        s = api_catalog_snapshot(rq, rs);
        if (!s)
                goto out;
        o = catalog_offering(s, p.offering_id);
        if (!o) {
                api_problem_field(
                        rs, 422, "/offering", "exists",
                        "no offering with this id; create it with PUT /api/v1/offerings/{id}");
                goto out;
        }
        p.term_months = (int)term;
        p.usd_per_hour = per_hour >= 0 ? per_hour : per_gpu_hour * o->gpus_per_instance;
        catalog_release(s);
        s = NULL;

        conn = api_db_acquire(rq, rs);
        if (!conn)
                goto out;
        admin_actor(rq, actor, sizeof(actor), &who);
        rc = catalog_queries_insert_price(conn, &p, &who, &id, &e);
        api_db_release(rq, conn);
        if (rc) {
                api_db_problem(rs, &e);
                goto out;
        }
        p.id = id;
        p.recorded_by = who.actor;
        reloaded = api_catalog_refresh(rq);
        s = catalog_acquire(rq->app->catalog);
        doc = catalog_json_price(s, &p);
        cur = catalog_price(s, p.offering_id, p.pricing);
        /* A back-dated row joins the history without becoming the current price. */
        json_object_set_new(doc, "current", json_boolean(reloaded && cur && cur->id == id));
        if (!reloaded)
                json_object_set_new(doc, "snapshot_reloaded", json_false());
        api_reply_json(rs, 201, doc);
out:
        catalog_release(s);
        json_decref(body);
}

/* ---- purchase prices ----------------------------------------------------- */

void api_prices_purchase_list(const struct api_request *rq, struct api_response *rs)
{
        const char *gpu = rq->query(rq, "gpu");
        const char *condition = rq->query(rq, "condition");
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        const struct catalog_purchase_price *pp;
        const struct api_catalog_render *render;
        size_t n, *idx, m = 0;
        json_t *arr;
        int rc;

        if (!s)
                return;
        if (condition && !catalog_condition_valid(condition)) {
                api_problem_field(rs, 400, "?condition", "enum", "condition must be new or used");
                goto out;
        }
        if (api_catalog_query_id(s, rs, "?gpu", API_ENTITY_GPU, gpu) || api_catalog_etag(rq, rs, s))
                goto out;
        pp = catalog_purchase_prices(s, &n);
        render = api_catalog_render(s);
        idx = render ? calloc(n + 1, sizeof(*idx)) : NULL;
        for (size_t i = 0; idx && i < n; i++)
                if ((!gpu || strcmp(gpu, pp[i].accelerator_id) == 0) &&
                    (!condition || strcmp(condition, pp[i].condition) == 0))
                        idx[m++] = i;
        rc = !idx     ? -1
             : m == n ? api_catalog_render_text(rs, &render->purchase_list)
                      : api_catalog_render_rows(rs, "{\"purchase_prices\":[", render->purchase_rows,
                                                idx, m, "]}");
        free(idx);
        if (rc == 0)
                goto out;
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++) {
                if (gpu && strcmp(gpu, pp[i].accelerator_id) != 0)
                        continue;
                if (condition && strcmp(condition, pp[i].condition) != 0)
                        continue;
                json_array_append_new(arr, catalog_json_purchase_price(s, &pp[i]));
        }
        api_reply_json(rs, 200, json_pack("{s:o}", "purchase_prices", arr ? arr : json_array()));
out:
        catalog_release(s);
}

static const char *const purchase_keys[] = {"gpu", "condition", "usd", "as_of", "source", NULL};

void api_prices_purchase_post(const struct api_request *rq, struct api_response *rs)
{
        struct catalog_purchase_price p = {.gpu_index = SIZE_MAX};
        int64_t id = 0;
        struct db_actor who;
        struct db_error e;
        char actor[80], today[16];
        const struct catalog_snapshot *s = NULL;
        json_t *body, *doc;
        PGconn *conn;
        bool reloaded;
        int rc;

        if (admin_check(rq, rs))
                return;
        body = api_body_object(rq, rs);
        if (!body)
                return;
        today_utc(today, sizeof(today));
        p.as_of = today;
        if (fields_known(rs, body, "", purchase_keys) ||
            fields_string(rs, body, "", "gpu", FIELD_REQUIRED, 64, &p.accelerator_id) ||
            fields_string(rs, body, "", "condition", FIELD_REQUIRED, 8, &p.condition) ||
            fields_number(rs, body, "", "usd", FIELD_REQUIRED, 0.01, 1e10, &p.usd) ||
            fields_date(rs, body, "", "as_of", 0, &p.as_of) ||
            fields_string(rs, body, "", "source", FIELD_REQUIRED, 1000, &p.source))
                goto out;
        if (!catalog_condition_valid(p.condition)) {
                api_problem_field(rs, 400, "/condition", "enum", "condition must be new or used");
                goto out;
        }
        conn = api_db_acquire(rq, rs);
        if (!conn)
                goto out;
        admin_actor(rq, actor, sizeof(actor), &who);
        /* An unknown gpu is a foreign-key violation: 422 from the SQLSTATE table. */
        rc = catalog_queries_insert_purchase_price(conn, &p, &who, &id, &e);
        api_db_release(rq, conn);
        if (rc) {
                api_db_problem(rs, &e);
                goto out;
        }
        p.id = id;
        p.recorded_by = who.actor;
        reloaded = api_catalog_refresh(rq);
        s = catalog_acquire(rq->app->catalog);
        doc = catalog_json_purchase_price(s, &p);
        if (doc && !reloaded)
                json_object_set_new(doc, "snapshot_reloaded", json_false());
        api_reply_json(rs, 201, doc);
out:
        catalog_release(s);
        json_decref(body);
}
