/*
 * catalog_queries.c - the catalog's SQL: snapshot load, history reads,
 * admin writes with their audit rows (failures mapped by db/sqlstate.c).
 */
#include "db/catalog_queries.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_tables.h"
#include "db/sqlstate.h"
#include "log.h"

void catalog_queries_error_from(PGconn *conn, const PGresult *res, struct db_error *e)
{
        const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
        const char *constraint = res ? PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME) : NULL;
        const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

        if (!state || PQstatus(conn) == CONNECTION_BAD) {
                memset(e, 0, sizeof(*e));
                e->http_status = 503;
                e->retry_after_seconds = 2;
                snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", state ? state : "");
                snprintf(e->detail, sizeof(e->detail), "the database connection failed");
                log_warn("catalog write: connection failed: %s", PQerrorMessage(conn));
                return;
        }
        sqlstate_error(state, constraint, e);
        log_warn("catalog write refused: sqlstate %s: %s", state, primary ? primary : "");
}

/* ---- reading cells ------------------------------------------------------- */

#define FNV_PRIME 0x100000001b3ull

static void hash_bytes(uint64_t h[2], const char *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                h[0] = (h[0] ^ (unsigned char)p[i]) * FNV_PRIME;
                h[1] = (h[1] ^ (unsigned char)p[i]) * FNV_PRIME;
        }
}

/* Hash every cell of a result (with its NULL-ness and separators). */
static void hash_result(uint64_t h[2], const PGresult *res)
{
        int rows = PQntuples(res), cols = PQnfields(res);

        for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                        if (PQgetisnull(res, r, c))
                                hash_bytes(h, "\0N", 2);
                        else
                                hash_bytes(h, PQgetvalue(res, r, c),
                                           (size_t)PQgetlength(res, r, c) + 1);
                }
                hash_bytes(h, "\n", 1);
        }
        hash_bytes(h, "\f", 1);
}

struct reader {
        const PGresult *res;
        struct catalog_tables *t;
        int row;
        int failed;
};

static const char *cell_text(struct reader *rd, int col)
{
        const char *out;

        if (PQgetisnull(rd->res, rd->row, col))
                return NULL;
        out = catalog_tables_strndup(rd->t, PQgetvalue(rd->res, rd->row, col),
                                     (size_t)PQgetlength(rd->res, rd->row, col));
        if (!out)
                rd->failed = 1;
        return out;
}

/* A NOT NULL text column: "" rather than NULL if the database ever says otherwise. */
static const char *cell_text_nn(struct reader *rd, int col)
{
        const char *v = cell_text(rd, col);

        return v ? v : "";
}

static double cell_double(struct reader *rd, int col)
{
        char *end;
        double v;

        if (PQgetisnull(rd->res, rd->row, col))
                return 0;
        v = strtod(PQgetvalue(rd->res, rd->row, col), &end);
        if (*end)
                rd->failed = 1;
        return v;
}

static int64_t cell_i64(struct reader *rd, int col)
{
        char *end;
        long long v;

        if (PQgetisnull(rd->res, rd->row, col))
                return 0;
        errno = 0;
        v = strtoll(PQgetvalue(rd->res, rd->row, col), &end, 10);
        if (*end || errno)
                rd->failed = 1;
        return (int64_t)v;
}

static bool cell_bool(struct reader *rd, int col)
{
        return !PQgetisnull(rd->res, rd->row, col) && PQgetvalue(rd->res, rd->row, col)[0] == 't';
}

/* Copy into a fixed array; refuse (rather than truncate) text that does not fit. */
static void cell_copy(struct reader *rd, int col, char *dst, size_t dstlen)
{
        const char *v = PQgetisnull(rd->res, rd->row, col) ? "" : PQgetvalue(rd->res, rd->row, col);

        if (strlen(v) >= dstlen) {
                rd->failed = 1;
                dst[0] = '\0';
                return;
        }
        memcpy(dst, v, strlen(v) + 1);
}

/* ---- the snapshot load --------------------------------------------------- */

#define TS_UTC(col)   "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
#define DATE_ISO(col) "to_char(" col ", 'YYYY-MM-DD')"

static const char sql_accelerators[] =
        "SELECT id, name, vendor, kind, form_factor, chips_per_board, memory_bytes,"
        " usable_memory_bytes, memory_type, memory_bandwidth_bytes_per_s, fp32_flops, tf32_flops,"
        " fp16_flops, bf16_flops, fp8_flops, int8_flops, tdp_watts, interconnect_kind,"
        " interconnect, interconnect_bytes_per_s, host_interface, host_bytes_per_s, launch_year,"
        " launch_price_usd, can_train, can_infer, cuda, frameworks, notes, source, " DATE_ISO(
                "source_date") ", " TS_UTC("updated_at") ", updated_by, fp16_accumulate_flops,"
                                                         " sm_count FROM accelerators ORDER BY id COLLATE "
                                                         "\"C\"";

static const struct {
        const char *name;
        enum gpu_link link;
} link_kinds[] = {
        {"pcie", GPU_LINK_PCIE},
        {"nvlink", GPU_LINK_NVLINK},
        {"infinity_fabric", GPU_LINK_INFINITY_FABRIC},
        {"ici", GPU_LINK_ICI},
        {"ethernet", GPU_LINK_ETHERNET},
        {"other", GPU_LINK_OTHER},
        {"none", GPU_LINK_NONE},
};

static enum gpu_link link_from_name(const char *name)
{
        for (size_t i = 0; i < sizeof(link_kinds) / sizeof(link_kinds[0]); i++)
                if (name && strcmp(name, link_kinds[i].name) == 0)
                        return link_kinds[i].link;
        return GPU_LINK_OTHER;
}

static int read_accelerators(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->gpus = calloc((size_t)n + 1, sizeof(*t->gpus));
        t->gpu_infos = calloc((size_t)n + 1, sizeof(*t->gpu_infos));
        if (!t->gpus || !t->gpu_infos)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct gpu_spec *g = &t->gpus[rd->row];
                struct catalog_gpu_info *info = &t->gpu_infos[rd->row];

                cell_copy(rd, 0, g->id, sizeof(g->id));
                cell_copy(rd, 1, g->name, sizeof(g->name));
                cell_copy(rd, 2, g->vendor, sizeof(g->vendor));
                cell_copy(rd, 3, g->kind, sizeof(g->kind));
                info->form_factor = cell_text_nn(rd, 4);
                info->chips_per_board = (int)cell_i64(rd, 5);
                g->memory_bytes = (uint64_t)cell_i64(rd, 6);
                g->usable_memory_bytes = (uint64_t)cell_i64(rd, 7);
                info->usable_memory_known = g->usable_memory_bytes != 0;
                if (!info->usable_memory_known)
                        g->usable_memory_bytes = g->memory_bytes;
                info->memory_type = cell_text(rd, 8);
                g->memory_bandwidth_bytes_per_s = cell_double(rd, 9);
                for (int p = 0; p < GPU_PRECISION_COUNT; p++)
                        g->flops[p] = cell_double(rd, 10 + p); /* fp32..int8, in enum order */
                g->tdp_watts = cell_double(rd, 16);
                g->fp16_accumulate_flops = cell_double(rd, 33);
                g->sm_count = (int)cell_i64(rd, 34);
                info->interconnect_kind = cell_text_nn(rd, 17);
                g->link = link_from_name(info->interconnect_kind);
                info->interconnect = cell_text(rd, 18);
                info->interconnect_bytes_per_s = cell_double(rd, 19);
                info->host_interface = cell_text(rd, 20);
                g->host_link_bytes_per_s = cell_double(rd, 21);
                /*
                 * Vendors quote peer bandwidth with both directions added
                 * (NVLink 4 on H100 SXM: 900 GB/s = 450 GB/s each way, NVIDIA
                 * H100 datasheet); the engine wants one direction.  Without
                 * a peer link, peers talk over the host's PCIe.
                 */
                if (info->interconnect_bytes_per_s > 0)
                        g->link_bytes_per_s = info->interconnect_bytes_per_s / 2;
                else if (g->link == GPU_LINK_PCIE)
                        g->link_bytes_per_s = g->host_link_bytes_per_s;
                g->launch_year = (int)cell_i64(rd, 22);
                info->launch_price_usd = cell_double(rd, 23);
                g->can_train = cell_bool(rd, 24);
                info->can_infer = cell_bool(rd, 25);
                g->cuda = cell_bool(rd, 26);
                info->frameworks = cell_text(rd, 27);
                info->notes = cell_text(rd, 28);
                info->source = cell_text_nn(rd, 29);
                info->source_date = cell_text_nn(rd, 30);
                info->updated_at = cell_text_nn(rd, 31);
                info->updated_by = cell_text_nn(rd, 32);
                if (rd->failed)
                        return -1;
        }
        t->n_gpus = (size_t)n;
        return 0;
}

static const char sql_providers[] = "SELECT id, name, kind, url, notes, source, " DATE_ISO(
        "source_date") " FROM providers ORDER BY id COLLATE \"C\"";

static int read_providers(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->providers = calloc((size_t)n + 1, sizeof(*t->providers));
        if (!t->providers)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct catalog_provider *p = &t->providers[rd->row];

                p->id = cell_text_nn(rd, 0);
                p->name = cell_text_nn(rd, 1);
                p->kind = cell_text_nn(rd, 2);
                p->url = cell_text(rd, 3);
                p->notes = cell_text(rd, 4);
                p->source = cell_text_nn(rd, 5);
                p->source_date = cell_text_nn(rd, 6);
                if (rd->failed)
                        return -1;
        }
        t->n_providers = (size_t)n;
        return 0;
}

static const char sql_offerings[] =
        "SELECT id, provider_id, instance_type, accelerator_id, gpus_per_instance, vcpus,"
        " ram_bytes, region, interconnect, interconnect_bytes_per_s, network_bytes_per_s, notes,"
        " source, " DATE_ISO("source_date") ", offering_kind FROM offerings ORDER BY id COLLATE \"C\"";

static int read_offerings(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->offerings = calloc((size_t)n + 1, sizeof(*t->offerings));
        if (!t->offerings)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct catalog_offering *o = &t->offerings[rd->row];

                o->id = cell_text_nn(rd, 0);
                o->provider_id = cell_text_nn(rd, 1);
                o->instance_type = cell_text_nn(rd, 2);
                o->accelerator_id = cell_text_nn(rd, 3);
                o->gpus_per_instance = (int)cell_i64(rd, 4);
                o->vcpus = (int)cell_i64(rd, 5);
                o->ram_bytes = (uint64_t)cell_i64(rd, 6);
                o->region = cell_text_nn(rd, 7);
                o->interconnect = cell_text(rd, 8);
                o->interconnect_bytes_per_s = cell_double(rd, 9);
                o->network_bytes_per_s = cell_double(rd, 10);
                o->notes = cell_text(rd, 11);
                o->source = cell_text_nn(rd, 12);
                o->source_date = cell_text_nn(rd, 13);
                o->kind = cell_text_nn(rd, 14);
                o->gpu_index = SIZE_MAX;
                o->provider_index = SIZE_MAX;
                if (rd->failed || o->gpus_per_instance < 1)
                        return -1;
        }
        t->n_offerings = (size_t)n;
        return 0;
}

#define PRICE_COLUMNS                                                                              \
        "id, offering_id, pricing, term_months, usd_per_hour, currency, " DATE_ISO(                \
                "as_of") ", source, " TS_UTC("recorded_at") ", recorded_by"

static const char sql_current_prices[] = "SELECT " PRICE_COLUMNS " FROM current_prices"
                                         " ORDER BY offering_id COLLATE \"C\", pricing";

static int read_prices(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->prices = calloc((size_t)n + 1, sizeof(*t->prices));
        if (!t->prices)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct catalog_price *p = &t->prices[rd->row];

                p->id = cell_i64(rd, 0);
                p->offering_id = cell_text_nn(rd, 1);
                p->offering_index = SIZE_MAX;
                if (catalog_pricing_parse(PQgetvalue(rd->res, rd->row, 2), &p->pricing))
                        rd->failed = 1;
                p->term_months = (int)cell_i64(rd, 3);
                p->usd_per_hour = cell_double(rd, 4);
                p->currency = cell_text_nn(rd, 5);
                p->as_of = cell_text_nn(rd, 6);
                p->source = cell_text_nn(rd, 7);
                p->recorded_at = cell_text_nn(rd, 8);
                p->recorded_by = cell_text_nn(rd, 9);
                if (rd->failed)
                        return -1;
        }
        t->n_prices = (size_t)n;
        return 0;
}

static const char sql_purchase_prices[] =
        "SELECT id, accelerator_id, condition, usd, " DATE_ISO("as_of") ", source, " TS_UTC(
                "recorded_at") ", recorded_by FROM current_purchase_prices"
                               " ORDER BY accelerator_id COLLATE \"C\", condition";

static int read_purchase_prices(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->purchase_prices = calloc((size_t)n + 1, sizeof(*t->purchase_prices));
        if (!t->purchase_prices)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct catalog_purchase_price *p = &t->purchase_prices[rd->row];

                p->id = cell_i64(rd, 0);
                p->accelerator_id = cell_text_nn(rd, 1);
                p->gpu_index = SIZE_MAX;
                p->condition = cell_text_nn(rd, 2);
                p->usd = cell_double(rd, 3);
                p->as_of = cell_text_nn(rd, 4);
                p->source = cell_text_nn(rd, 5);
                p->recorded_at = cell_text_nn(rd, 6);
                p->recorded_by = cell_text_nn(rd, 7);
                if (rd->failed)
                        return -1;
        }
        t->n_purchase_prices = (size_t)n;
        return 0;
}

static const char sql_settings[] =
        "SELECT key, value, unit, description, source, " DATE_ISO("source_date") ", " TS_UTC(
                "updated_at") ", updated_by FROM settings ORDER BY key COLLATE \"C\"";

static int read_settings(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->settings = calloc((size_t)n + 1, sizeof(*t->settings));
        if (!t->settings)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct catalog_setting *s = &t->settings[rd->row];

                s->key = cell_text_nn(rd, 0);
                s->value = cell_double(rd, 1);
                s->unit = cell_text_nn(rd, 2);
                s->description = cell_text_nn(rd, 3);
                s->source = cell_text_nn(rd, 4);
                s->source_date = cell_text_nn(rd, 5);
                s->updated_at = cell_text_nn(rd, 6);
                s->updated_by = cell_text_nn(rd, 7);
                if (rd->failed)
                        return -1;
        }
        t->n_settings = (size_t)n;
        return 0;
}

static const char sql_models[] =
        "SELECT id, name, family, hf_config::text, published_parameters, parameters_source, notes,"
        " array_to_string(hub_ids, ','), licence, released::text, origin = 'team'"
        " FROM models ORDER BY id COLLATE \"C\"";

static int read_models(struct reader *rd)
{
        struct catalog_tables *t = rd->t;
        int n = PQntuples(rd->res);

        t->models = calloc((size_t)n + 1, sizeof(*t->models));
        if (!t->models)
                return -1;
        for (rd->row = 0; rd->row < n; rd->row++) {
                struct catalog_model *m = &t->models[rd->row];

                cell_copy(rd, 0, m->id, sizeof(m->id));
                cell_copy(rd, 1, m->name, sizeof(m->name));
                cell_copy(rd, 2, m->family, sizeof(m->family));
                m->hf_config_json = (char *)(uintptr_t)cell_text_nn(rd, 3);
                m->published_parameters = (uint64_t)cell_i64(rd, 4);
                m->parameters_source = (char *)(uintptr_t)cell_text_nn(rd, 5);
                m->notes = (char *)(uintptr_t)cell_text(rd, 6);
                m->hub_ids = (char *)(uintptr_t)cell_text_nn(rd, 7);
                m->licence = (char *)(uintptr_t)cell_text(rd, 8);
                m->released = (char *)(uintptr_t)cell_text(rd, 9);
                m->team = PQgetvalue(rd->res, rd->row, 10)[0] == 't';
                if (rd->failed)
                        return -1;
        }
        t->n_models = (size_t)n;
        return 0;
}

/* The validation tables travel with the catalog so that what is derived
 * from them (the API's error bars) follows the data; the same documents as
 * engine_queries_measurements_json() and engine_queries_throughput_json(). */
static const char sql_validation[] =
        "SELECT (SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'category', category, 'measured_bytes', measured_bytes, 'kind', kind,"
        " 'request', request) ORDER BY id COLLATE \"C\"), '[]'::json)::text FROM measurements),"
        " (SELECT coalesce(json_agg(json_build_object("
        " 'id', id, 'category', category, 'metric', metric, 'measured', measured,"
        " 'request', request) ORDER BY id COLLATE \"C\"), '[]'::json)::text"
        " FROM throughput_measurements)";

static int read_validation(struct reader *rd)
{
        if (PQntuples(rd->res) != 1)
                return -1;
        rd->t->validation_memory_json = cell_text_nn(rd, 0);
        rd->t->validation_time_json = cell_text_nn(rd, 1);
        return rd->failed ? -1 : 0;
}

static const struct {
        const char *what;
        const char *sql;
        int (*read)(struct reader *rd);
} load_steps[] = {
        {"accelerators", sql_accelerators, read_accelerators},
        {"providers", sql_providers, read_providers},
        {"offerings", sql_offerings, read_offerings},
        {"current_prices", sql_current_prices, read_prices},
        {"current_purchase_prices", sql_purchase_prices, read_purchase_prices},
        {"settings", sql_settings, read_settings},
        {"models", sql_models, read_models},
        {"validation", sql_validation, read_validation},
};

static int exec_command(PGconn *conn, const char *sql)
{
        PGresult *res = PQexecParams(conn, sql, 0, NULL, NULL, NULL, NULL, 0);
        int ok = PQresultStatus(res) == PGRES_COMMAND_OK;

        PQclear(res);
        return ok ? 0 : -1;
}

int catalog_queries_load(PGconn *conn, struct catalog_tables *t, char *err, size_t errlen)
{
        int rc = -1;

        t->content_hash[0] = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
        t->content_hash[1] = 0x6c62272e07bb0142ull; /* a second basis, for a 128-bit tag */
        if (exec_command(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) {
                snprintf(err, errlen, "cannot begin the catalog load: %s", PQerrorMessage(conn));
                return -1;
        }
        for (size_t i = 0; i < sizeof(load_steps) / sizeof(load_steps[0]); i++) {
                PGresult *res = PQexecParams(conn, load_steps[i].sql, 0, NULL, NULL, NULL, NULL, 0);
                struct reader rd = {.res = res, .t = t};

                if (PQresultStatus(res) != PGRES_TUPLES_OK) {
                        snprintf(err, errlen, "cannot load %s: %s", load_steps[i].what,
                                 PQresultErrorMessage(res));
                        PQclear(res);
                        goto out;
                }
                hash_result(t->content_hash, res);
                if (load_steps[i].read(&rd)) {
                        snprintf(err, errlen,
                                 "cannot read %s row %d (out of memory or a value"
                                 " that does not fit)",
                                 load_steps[i].what, rd.row + 1);
                        PQclear(res);
                        goto out;
                }
                PQclear(res);
        }
        rc = 0;
out:
        /* Read-only: COMMIT and ROLLBACK are the same; the pool rolls back a broken one. */
        (void)exec_command(conn, rc ? "ROLLBACK" : "COMMIT");
        return rc;
}

/* ---- history reads ------------------------------------------------------- */

int catalog_queries_prices(PGconn *conn, const struct price_filter *f, struct catalog_tables *t,
                           struct db_error *e)
{
        /*
         * One statement for both shapes; NULL parameters do not filter.
         * $6 = 'all': every row, newest first; otherwise the newest row per
         * offering and kind dated on or before $5 (default: today).
         */
        static const char sql[] =
                "WITH rows AS ("
                " SELECT p.*, o.provider_id, o.accelerator_id FROM prices p"
                " JOIN offerings o ON o.id = p.offering_id"
                " WHERE ($1::text IS NULL OR o.accelerator_id = $1)"
                "   AND ($2::text IS NULL OR o.provider_id = $2)"
                "   AND ($3::text IS NULL OR p.pricing = $3)"
                "   AND ($4::text IS NULL OR p.offering_id = $4)"
                "   AND p.as_of <= COALESCE($5::date, 'infinity'::date)),"
                " picked AS ("
                " SELECT * FROM rows WHERE $6::text = 'all'"
                " UNION ALL"
                " SELECT * FROM (SELECT DISTINCT ON (offering_id, pricing) * FROM rows"
                "   WHERE $6::text <> 'all'"
                "   ORDER BY offering_id, pricing, as_of DESC, id DESC) newest)"
                " SELECT " PRICE_COLUMNS " FROM picked"
                " ORDER BY offering_id COLLATE \"C\", pricing, as_of DESC, id DESC"
                " LIMIT 10000";
        const char *v[6];
        PGresult *res;
        struct reader rd = {.t = t};
        int rc;

        v[0] = f->gpu;
        v[1] = f->provider;
        v[2] = f->pricing >= 0 ? catalog_pricing_name((enum catalog_pricing)f->pricing) : NULL;
        v[3] = f->offering;
        v[4] = f->as_of;
        v[5] = f->all_rows ? "all" : "current";
        res = PQexecParams(conn, sql, 6, NULL, v, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
                catalog_queries_error_from(conn, res, e);
                PQclear(res);
                return -1;
        }
        rd.res = res;
        rc = read_prices(&rd);
        PQclear(res);
        if (rc) {
                memset(e, 0, sizeof(*e));
                e->http_status = 500;
                snprintf(e->detail, sizeof(e->detail), "cannot read price history");
        }
        return rc;
}

/* ---- writes -------------------------------------------------------------- */

PGresult *catalog_queries_exec_params(PGconn *conn, const char *sql, int n, const char *const *v,
                                      struct db_error *e)
{
        PGresult *res = PQexecParams(conn, sql, n, NULL, v, NULL, NULL, 0);
        ExecStatusType st = PQresultStatus(res);

        if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
                return res;
        catalog_queries_error_from(conn, res, e);
        PQclear(res);
        return NULL;
}

static int begin(PGconn *conn, struct db_error *e)
{
        PGresult *res = catalog_queries_exec_params(conn, "BEGIN", 0, NULL, e);

        if (!res)
                return -1;
        PQclear(res);
        return 0;
}

/* COMMIT, or ROLLBACK when rc says the transaction failed; returns the final status. */
static int finish(PGconn *conn, int rc, struct db_error *e)
{
        PGresult *res;

        if (rc) {
                if (PQstatus(conn) != CONNECTION_BAD)
                        PQclear(PQexecParams(conn, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0));
                return rc;
        }
        res = catalog_queries_exec_params(conn, "COMMIT", 0, NULL, e);
        if (!res)
                return -1;
        /* A COMMIT of an aborted transaction answers ROLLBACK without an error. */
        if (strcmp(PQcmdStatus(res), "COMMIT") != 0) {
                PQclear(res);
                memset(e, 0, sizeof(*e));
                e->http_status = 500;
                snprintf(e->detail, sizeof(e->detail), "the write was rolled back");
                return -1;
        }
        PQclear(res);
        return 0;
}

static int audit(PGconn *conn, const struct db_actor *who, const char *action, const char *entity,
                 const char *entity_id, struct db_error *e)
{
        const char *v[6] = {who->actor, action,          entity,
                            entity_id,  who->request_id, who->payload_json};
        PGresult *res = catalog_queries_exec_params(
                conn,
                "INSERT INTO audit_log (actor, action, entity, entity_id,"
                " request_id, payload) VALUES ($1, $2, $3, $4, $5, $6::jsonb)",
                6, v, e);

        if (!res)
                return -1;
        PQclear(res);
        return 0;
}

/* Text for a SQL parameter: NULL for 0 (our "unknown"), else shortest round-trip-safe digits. */
static const char *num_or_null(char *buf, size_t len, double v)
{
        if (v == 0)
                return NULL;
        snprintf(buf, len, "%.17g", v);
        return buf;
}

static const char *int_or_null(char *buf, size_t len, int64_t v)
{
        if (v == 0)
                return NULL;
        snprintf(buf, len, "%" PRId64, v);
        return buf;
}

/* Run one insert-returning-id statement plus its audit row, in one transaction. */
static int insert_with_audit(PGconn *conn, const char *sql, int n, const char *const *v,
                             const struct db_actor *who, const char *entity, int64_t *id,
                             struct db_error *e)
{
        PGresult *res;
        char idbuf[24];
        int rc;

        if (begin(conn, e))
                return -1;
        res = catalog_queries_exec_params(conn, sql, n, v, e);
        rc = res && PQntuples(res) == 1 ? 0 : -1;
        if (res && rc) {
                memset(e, 0, sizeof(*e));
                e->http_status = 500;
                snprintf(e->detail, sizeof(e->detail), "insert returned no row");
        }
        if (!rc) {
                *id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
                snprintf(idbuf, sizeof(idbuf), "%" PRId64, *id);
                rc = audit(conn, who, "insert", entity, idbuf, e);
        }
        PQclear(res);
        return finish(conn, rc, e);
}

int catalog_queries_insert_price(PGconn *conn, const struct catalog_price *p,
                                 const struct db_actor *who, int64_t *id, struct db_error *e)
{
        char usd[40], term[24];
        const char *v[7] = {p->offering_id,
                            catalog_pricing_name(p->pricing),
                            int_or_null(term, sizeof(term), p->term_months),
                            NULL,
                            p->as_of,
                            p->source,
                            who->actor};

        snprintf(usd, sizeof(usd), "%.17g", p->usd_per_hour); /* 0 is a real price here */
        v[3] = usd;
        return insert_with_audit(conn,
                                 "INSERT INTO prices (offering_id, pricing, term_months,"
                                 " usd_per_hour, as_of, source, recorded_by)"
                                 " VALUES ($1, $2, $3::integer, $4::numeric, $5::date, $6, $7)"
                                 " RETURNING id",
                                 7, v, who, "price", id, e);
}

int catalog_queries_insert_purchase_price(PGconn *conn, const struct catalog_purchase_price *p,
                                          const struct db_actor *who, int64_t *id,
                                          struct db_error *e)
{
        char usd[40];
        const char *v[6] = {p->accelerator_id, p->condition, usd, p->as_of, p->source, who->actor};

        snprintf(usd, sizeof(usd), "%.17g", p->usd);
        return insert_with_audit(conn,
                                 "INSERT INTO purchase_prices (accelerator_id, condition, usd,"
                                 " as_of, source, recorded_by)"
                                 " VALUES ($1, $2, $3::numeric, $4::date, $5, $6) RETURNING id",
                                 6, v, who, "purchase_price", id, e);
}

/* Run one upsert RETURNING (xmax = 0) plus its audit row, in one transaction. */
static int upsert_with_audit(PGconn *conn, const char *sql, int n, const char *const *v,
                             const struct db_actor *who, const char *entity, const char *entity_id,
                             bool *created, struct db_error *e)
{
        PGresult *res;
        int rc;

        if (begin(conn, e))
                return -1;
        res = catalog_queries_exec_params(conn, sql, n, v, e);
        rc = res && PQntuples(res) == 1 ? 0 : -1;
        if (res && rc) {
                memset(e, 0, sizeof(*e));
                e->http_status = 500;
                snprintf(e->detail, sizeof(e->detail), "upsert returned no row");
        }
        if (!rc) {
                /* xmax = 0 on the returned row means it was inserted, not updated. */
                *created = PQgetvalue(res, 0, 0)[0] == 't';
                rc = audit(conn, who, *created ? "insert" : "update", entity, entity_id, e);
        }
        PQclear(res);
        return finish(conn, rc, e);
}

int catalog_queries_upsert_accelerator(PGconn *conn, const struct gpu_spec *g,
                                       const struct catalog_gpu_info *info,
                                       const struct db_actor *who, bool *created,
                                       struct db_error *e)
{
        char b[20][40];
        const char *v[33];
        int i = 0;

        v[i++] = g->id;
        v[i++] = g->name;
        v[i++] = g->vendor;
        v[i++] = g->kind;
        v[i++] = info->form_factor;
        v[i++] = int_or_null(b[0], sizeof(b[0]),
                             info->chips_per_board > 0 ? info->chips_per_board : 1);
        v[i++] = int_or_null(b[1], sizeof(b[1]), (int64_t)g->memory_bytes);
        v[i++] = info->usable_memory_known
                         ? int_or_null(b[2], sizeof(b[2]), (int64_t)g->usable_memory_bytes)
                         : NULL;
        v[i++] = info->memory_type;
        v[i++] = num_or_null(b[3], sizeof(b[3]), g->memory_bandwidth_bytes_per_s);
        for (int p = 0; p < GPU_PRECISION_COUNT; p++)
                v[i++] = num_or_null(b[4 + p], sizeof(b[4 + p]), g->flops[p]);
        v[i++] = num_or_null(b[10], sizeof(b[10]), g->tdp_watts);
        v[i++] = info->interconnect_kind;
        v[i++] = info->interconnect;
        v[i++] = num_or_null(b[11], sizeof(b[11]), info->interconnect_bytes_per_s);
        v[i++] = info->host_interface;
        v[i++] = num_or_null(b[12], sizeof(b[12]), g->host_link_bytes_per_s);
        v[i++] = int_or_null(b[13], sizeof(b[13]), g->launch_year);
        v[i++] = num_or_null(b[14], sizeof(b[14]), info->launch_price_usd);
        v[i++] = g->can_train ? "true" : "false";
        v[i++] = info->can_infer ? "true" : "false";
        v[i++] = g->cuda ? "true" : "false";
        v[i++] = info->frameworks;
        v[i++] = info->notes;
        v[i++] = info->source;
        v[i++] = info->source_date;
        v[i++] = who->actor;
        v[i++] = num_or_null(b[15], sizeof(b[15]), g->fp16_accumulate_flops);
        return upsert_with_audit(
                conn,
                "INSERT INTO accelerators (id, name, vendor, kind, form_factor, chips_per_board,"
                " memory_bytes, usable_memory_bytes, memory_type, memory_bandwidth_bytes_per_s,"
                " fp32_flops, tf32_flops, fp16_flops, bf16_flops, fp8_flops, int8_flops, tdp_watts,"
                " interconnect_kind, interconnect, interconnect_bytes_per_s, host_interface,"
                " host_bytes_per_s, launch_year, launch_price_usd, can_train, can_infer, cuda,"
                " frameworks, notes, source, source_date, updated_by, fp16_accumulate_flops, "
                "updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $6::integer, $7::bigint, $8::bigint, $9,"
                " $10::float8, $11::float8, $12::float8, $13::float8, $14::float8, $15::float8,"
                " $16::float8, $17::float8, $18, $19, $20::float8, $21, $22::float8, $23::integer,"
                " $24::numeric, $25::boolean, $26::boolean, $27::boolean, $28, $29, $30,"
                " $31::date, $32, $33::float8, now())"
                " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, vendor = EXCLUDED.vendor,"
                " kind = EXCLUDED.kind, form_factor = EXCLUDED.form_factor,"
                " chips_per_board = EXCLUDED.chips_per_board, memory_bytes = EXCLUDED.memory_bytes,"
                " usable_memory_bytes = EXCLUDED.usable_memory_bytes,"
                " memory_type = EXCLUDED.memory_type,"
                " memory_bandwidth_bytes_per_s = EXCLUDED.memory_bandwidth_bytes_per_s,"
                " fp32_flops = EXCLUDED.fp32_flops, tf32_flops = EXCLUDED.tf32_flops,"
                " fp16_flops = EXCLUDED.fp16_flops, bf16_flops = EXCLUDED.bf16_flops,"
                " fp8_flops = EXCLUDED.fp8_flops, int8_flops = EXCLUDED.int8_flops,"
                " fp16_accumulate_flops = EXCLUDED.fp16_accumulate_flops,"
                " tdp_watts = EXCLUDED.tdp_watts, interconnect_kind = EXCLUDED.interconnect_kind,"
                " interconnect = EXCLUDED.interconnect,"
                " interconnect_bytes_per_s = EXCLUDED.interconnect_bytes_per_s,"
                " host_interface = EXCLUDED.host_interface,"
                " host_bytes_per_s = EXCLUDED.host_bytes_per_s, launch_year = EXCLUDED.launch_year,"
                " launch_price_usd = EXCLUDED.launch_price_usd, can_train = EXCLUDED.can_train,"
                " can_infer = EXCLUDED.can_infer, cuda = EXCLUDED.cuda,"
                " frameworks = EXCLUDED.frameworks, notes = EXCLUDED.notes,"
                " source = EXCLUDED.source, source_date = EXCLUDED.source_date,"
                " updated_by = EXCLUDED.updated_by, updated_at = now()"
                " RETURNING (xmax = 0)",
                i, v, who, "accelerator", g->id, created, e);
}

int catalog_queries_upsert_provider(PGconn *conn, const struct catalog_provider *p,
                                    const struct db_actor *who, bool *created, struct db_error *e)
{
        const char *v[8] = {p->id,    p->name,   p->kind,        p->url,
                            p->notes, p->source, p->source_date, who->actor};

        return upsert_with_audit(
                conn,
                "INSERT INTO providers (id, name, kind, url, notes, source, source_date,"
                " updated_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7::date, $8, now())"
                " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind,"
                " url = EXCLUDED.url, notes = EXCLUDED.notes, source = EXCLUDED.source,"
                " source_date = EXCLUDED.source_date, updated_by = EXCLUDED.updated_by,"
                " updated_at = now() RETURNING (xmax = 0)",
                8, v, who, "provider", p->id, created, e);
}

int catalog_queries_upsert_team_model(PGconn *conn, const struct catalog_model *m,
                                      const struct db_actor *who, bool *created, struct db_error *e)
{
        char n[32];
        const char *v[10] = {
                m->id,    m->name,    m->family,  m->hf_config_json, n, m->parameters_source,
                m->notes, m->hub_ids, m->licence, who->actor};

        snprintf(n, sizeof(n), "%llu", (unsigned long long)m->published_parameters);
        /* A curated (origin 'catalog') row is never overwritten: the WHERE
         * leaves it alone and no row comes back. */
        return upsert_with_audit(
                conn,
                "INSERT INTO models (id, name, family, hf_config, published_parameters,"
                " parameters_source, notes, hub_ids, licence, origin, updated_by, updated_at)"
                " VALUES ($1, $2, $3, $4::jsonb, $5::bigint, $6, $7,"
                " coalesce(string_to_array(nullif($8, ''), ','), '{}'), $9, 'team', $10, now())"
                " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, family = EXCLUDED.family,"
                " hf_config = EXCLUDED.hf_config,"
                " published_parameters = EXCLUDED.published_parameters,"
                " parameters_source = EXCLUDED.parameters_source, notes = EXCLUDED.notes,"
                " hub_ids = EXCLUDED.hub_ids, licence = EXCLUDED.licence,"
                " updated_by = EXCLUDED.updated_by, updated_at = now()"
                " WHERE models.origin = 'team' RETURNING (xmax = 0)",
                10, v, who, "model", m->id, created, e);
}

int catalog_queries_upsert_offering(PGconn *conn, const struct catalog_offering *o,
                                    const struct db_actor *who, bool *created, struct db_error *e)
{
        char b[6][40];
        const char *v[15] = {o->id,
                             o->provider_id,
                             o->instance_type,
                             o->accelerator_id,
                             int_or_null(b[0], sizeof(b[0]), o->gpus_per_instance),
                             int_or_null(b[1], sizeof(b[1]), o->vcpus),
                             int_or_null(b[2], sizeof(b[2]), (int64_t)o->ram_bytes),
                             o->region,
                             o->interconnect,
                             num_or_null(b[3], sizeof(b[3]), o->interconnect_bytes_per_s),
                             num_or_null(b[4], sizeof(b[4]), o->network_bytes_per_s),
                             o->notes,
                             o->source,
                             o->source_date,
                             who->actor};

        return upsert_with_audit(
                conn,
                "INSERT INTO offerings (id, provider_id, instance_type, accelerator_id,"
                " gpus_per_instance, vcpus, ram_bytes, region, interconnect,"
                " interconnect_bytes_per_s, network_bytes_per_s, notes, source, source_date,"
                " updated_by, updated_at) VALUES ($1, $2, $3, $4, $5::integer, $6::integer,"
                " $7::bigint, $8, $9, $10::float8, $11::float8, $12, $13, $14::date, $15, now())"
                " ON CONFLICT (id) DO UPDATE SET provider_id = EXCLUDED.provider_id,"
                " instance_type = EXCLUDED.instance_type, accelerator_id = EXCLUDED.accelerator_id,"
                " gpus_per_instance = EXCLUDED.gpus_per_instance, vcpus = EXCLUDED.vcpus,"
                " ram_bytes = EXCLUDED.ram_bytes, region = EXCLUDED.region,"
                " interconnect = EXCLUDED.interconnect,"
                " interconnect_bytes_per_s = EXCLUDED.interconnect_bytes_per_s,"
                " network_bytes_per_s = EXCLUDED.network_bytes_per_s, notes = EXCLUDED.notes,"
                " source = EXCLUDED.source, source_date = EXCLUDED.source_date,"
                " updated_by = EXCLUDED.updated_by, updated_at = now() RETURNING (xmax = 0)",
                15, v, who, "offering", o->id, created, e);
}

int catalog_queries_upsert_setting(PGconn *conn, const struct catalog_setting *s,
                                   const struct db_actor *who, bool *created, struct db_error *e)
{
        char value[40];
        const char *v[7] = {s->key,    value,          s->unit,   s->description,
                            s->source, s->source_date, who->actor};

        snprintf(value, sizeof(value), "%.17g", s->value); /* 0 is a real setting value */
        return upsert_with_audit(
                conn,
                "INSERT INTO settings (key, value, unit, description, source, source_date,"
                " updated_by, updated_at) VALUES ($1, $2::float8, $3, $4, $5, $6::date, $7, now())"
                " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, unit = EXCLUDED.unit,"
                " description = EXCLUDED.description, source = EXCLUDED.source,"
                " source_date = EXCLUDED.source_date, updated_by = EXCLUDED.updated_by,"
                " updated_at = now() RETURNING (xmax = 0)",
                7, v, who, "setting", s->key, created, e);
}
