/*
 * settings.c - GET /api/v1/settings and PUT /api/v1/settings/{key}: the
 * named assumptions for owning hardware (electricity price, utilisation,
 * service life, PUE, ...) that rent-vs-buy reads.
 */
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

void api_settings_list(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        const struct catalog_setting *st;
        size_t n;
        json_t *arr;

        if (!s)
                return;
        if (!api_catalog_etag(rq, rs, s)) {
                const struct api_catalog_render *render = api_catalog_render(s);

                if (render && api_catalog_render_text(rs, &render->settings_list) == 0)
                        goto out;
                st = catalog_settings(s, &n);
                arr = json_array();
                for (size_t i = 0; arr && i < n; i++)
                        json_array_append_new(arr, catalog_json_setting(&st[i]));
                api_reply_json(rs, 200, json_pack("{s:o}", "settings", arr ? arr : json_array()));
        }
out:
        catalog_release(s);
}

static const char *const setting_keys[] = {"key",         "value",      "unit",
                                           "description", "source",     "source_date",
                                           "updated_at",  "updated_by", NULL};

static bool setting_key_ok(const char *k)
{
        size_t n = strlen(k);

        if (n < 1 || n > 64 || k[0] < 'a' || k[0] > 'z')
                return false;
        for (size_t i = 1; i < n; i++)
                if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
                        return false;
        return true;
}

void api_settings_put(const struct api_request *rq, struct api_response *rs)
{
        struct catalog_setting st = {.key = rq->params[0]};
        const char *body_key = NULL;
        struct db_actor who;
        struct db_error e;
        char actor[80];
        bool created = false;
        json_t *body;
        PGconn *conn;
        int rc;

        if (admin_check(rq, rs))
                return;
        if (!setting_key_ok(st.key)) {
                api_problem_field(rs, 400, "/key", "pattern",
                                  "a setting key is 1..64 characters of a-z, 0-9, '_', starting"
                                  " with a letter");
                return;
        }
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (fields_known(rs, body, "", setting_keys) ||
            fields_string(rs, body, "", "key", FIELD_NULLABLE, 64, &body_key) ||
            fields_number(rs, body, "", "value", FIELD_REQUIRED, -1e12, 1e12, &st.value) ||
            fields_string(rs, body, "", "unit", FIELD_REQUIRED, 64, &st.unit) ||
            fields_string(rs, body, "", "description", FIELD_REQUIRED, 1000, &st.description) ||
            fields_string(rs, body, "", "source", FIELD_REQUIRED, 1000, &st.source) ||
            fields_date(rs, body, "", "source_date", FIELD_REQUIRED, &st.source_date))
                goto out;
        if (body_key && strcmp(body_key, st.key) != 0) {
                api_problem_field(rs, 400, "/key", "const",
                                  "key in the body differs from the path");
                goto out;
        }
        conn = api_db_acquire(rq, rs);
        if (!conn)
                goto out;
        admin_actor(rq, actor, sizeof(actor), &who);
        rc = catalog_queries_upsert_setting(conn, &st, &who, &created, &e);
        api_db_release(rq, conn);
        if (rc)
                api_db_problem(rs, &e);
        else
                api_catalog_write_reply(rq, rs, created, API_ENTITY_SETTING, st.key);
out:
        json_decref(body);
}
