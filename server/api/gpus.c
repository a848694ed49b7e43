/*
 * gpus.c - GET /api/v1/gpus, GET /api/v1/gpus/{id}, PUT /api/v1/gpus/{id}.
 *
 * Reads come from the catalog snapshot (no database query); the write
 * replaces one accelerator row in one audited transaction and reloads this
 * replica's snapshot before answering.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/admin.h"
#include "api/body.h"
#include "api/catalog.h"
#include "api/db.h"
#include "api/fields.h"
#include "api/catalog_render.h"
#include "db/catalog_queries.h"

/* ---- GET /api/v1/gpus ---------------------------------------------------- */

enum gpu_sort {
        SORT_ID,
        SORT_NAME,
        SORT_MEMORY,
        SORT_BANDWIDTH,
        SORT_BF16,
        SORT_FP16,
        SORT_FP32,
        SORT_TDP,
        SORT_LAUNCH_YEAR,
        SORT_LAUNCH_PRICE,
};

static const struct {
        const char *name;
        enum gpu_sort key;
} sort_names[] = {
        {"id", SORT_ID},
        {"name", SORT_NAME},
        {"memory", SORT_MEMORY},
        {"memory_bytes", SORT_MEMORY},
        {"bandwidth", SORT_BANDWIDTH},
        {"memory_bandwidth_bytes_per_s", SORT_BANDWIDTH},
        {"bf16", SORT_BF16},
        {"fp16", SORT_FP16},
        {"fp32", SORT_FP32},
        {"tdp", SORT_TDP},
        {"tdp_watts", SORT_TDP},
        {"launch_year", SORT_LAUNCH_YEAR},
        {"launch_price", SORT_LAUNCH_PRICE},
        {"launch_price_usd", SORT_LAUNCH_PRICE},
};

struct sort_ctx {
        const struct gpu_spec *gpus;
        const struct catalog_gpu_info *infos;
        enum gpu_sort key;
        bool descending;
};

static double sort_value(const struct sort_ctx *c, size_t i)
{
        const struct gpu_spec *g = &c->gpus[i];

        switch (c->key) {
        case SORT_MEMORY:
                return (double)g->memory_bytes;
        case SORT_BANDWIDTH:
                return g->memory_bandwidth_bytes_per_s;
        case SORT_BF16:
                return g->flops[GPU_BF16];
        case SORT_FP16:
                return g->flops[GPU_FP16];
        case SORT_FP32:
                return g->flops[GPU_FP32];
        case SORT_TDP:
                return g->tdp_watts;
        case SORT_LAUNCH_YEAR:
                return g->launch_year;
        case SORT_LAUNCH_PRICE:
                return c->infos[i].launch_price_usd;
        case SORT_ID:
        case SORT_NAME:
                break;
        }
        return 0;
}

/* Insertion sort of indices (the catalog has tens of rows): stable, unknowns last. */
static void sort_indices(size_t *idx, size_t n, const struct sort_ctx *c)
{
        for (size_t i = 1; i < n; i++) {
                size_t v = idx[i], j = i;

                while (j > 0) {
                        size_t u = idx[j - 1];
                        int cmp;

                        if (c->key == SORT_ID) {
                                cmp = strcmp(c->gpus[u].id, c->gpus[v].id);
                        } else if (c->key == SORT_NAME) {
                                cmp = strcasecmp(c->gpus[u].name, c->gpus[v].name);
                        } else {
                                double a = sort_value(c, u), b = sort_value(c, v);

                                if (a == 0 || b == 0) /* unknown sorts last either way */
                                        cmp = a == 0 && b != 0 ? 1 : 0;
                                else
                                        cmp = a < b ? -1 : a > b;
                                if (c->descending && a != 0 && b != 0)
                                        cmp = -cmp;
                        }
                        if (c->descending && (c->key == SORT_ID || c->key == SORT_NAME))
                                cmp = -cmp;
                        if (cmp <= 0)
                                break;
                        idx[j] = u;
                        j--;
                }
                idx[j] = v;
        }
}

static int parse_bool_param(const char *v, bool *out)
{
        if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0) {
                *out = true;
                return 0;
        }
        if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) {
                *out = false;
                return 0;
        }
        return -1;
}

/* The accelerator kinds the schema allows (migrations/0001_catalog_schema.sql). */
#define GPU_KIND_RULE "kind must be one of gpu, tpu, npu, lpu, ipu, hpu, wse, asic, soc"
static const char *const gpu_kinds[] = {"gpu", "tpu", "npu",  "lpu", "ipu",
                                        "hpu", "wse", "asic", "soc", NULL};

static bool in_list(const char *v, const char *const *list)
{
        for (size_t i = 0; list[i]; i++)
                if (strcmp(v, list[i]) == 0)
                        return true;
        return false;
}

void api_gpus_list(const struct api_request *rq, struct api_response *rs)
{
        const char *min_memory = rq->query(rq, "min_memory");
        const char *vendor = rq->query(rq, "vendor");
        const char *kind = rq->query(rq, "kind");
        const char *can_train_q = rq->query(rq, "can_train");
        const char *sort = rq->query(rq, "sort");
        uint64_t min_bytes = 0;
        bool can_train = false;
        struct sort_ctx sc = {.key = SORT_ID};
        const struct catalog_snapshot *s;
        size_t n, *idx = NULL, m = 0;
        json_t *arr;
        const struct api_catalog_render *render;
        char tail[160];

        if (min_memory) {
                char *end;
                unsigned long long v;

                errno = 0;
                v = strtoull(min_memory, &end, 10);
                if (errno || *end || !*min_memory || min_memory[0] == '-') {
                        api_problem_field(rs, 400, "?min_memory", "type",
                                          "min_memory must be a whole number of bytes");
                        return;
                }
                min_bytes = v;
        }
        if (kind && !in_list(kind, gpu_kinds)) {
                api_problem_field(rs, 400, "?kind", "enum", GPU_KIND_RULE);
                return;
        }
        if (can_train_q && parse_bool_param(can_train_q, &can_train)) {
                api_problem_field(rs, 400, "?can_train", "type", "can_train must be true or false");
                return;
        }
        if (sort) {
                const char *key = sort[0] == '-' ? sort + 1 : sort;
                size_t i;

                sc.descending = sort[0] == '-';
                for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
                        if (strcmp(key, sort_names[i].name) == 0)
                                break;
                if (i == sizeof(sort_names) / sizeof(sort_names[0])) {
                        api_problem_field(rs, 400, "?sort", "enum",
                                          "sort must be one of id, name, memory, bandwidth, bf16,"
                                          " fp16, fp32, tdp, launch_year, launch_price"
                                          " (prefix - for descending)");
                        return;
                }
                sc.key = sort_names[i].key;
        }
        s = api_catalog_snapshot(rq, rs);
        if (!s)
                return;
        if (api_catalog_etag(rq, rs, s))
                goto out;
        /* No query: the snapshot's rendering as it is, without a filter or sort pass. */
        render = api_catalog_render(s);
        if (render && !min_memory && !vendor && !kind && !can_train_q && !sort &&
            api_catalog_render_text(rs, &render->gpus_list) == 0)
                goto out;
        sc.gpus = catalog_gpus(s, &n);
        sc.infos = catalog_gpu_infos(s, &n);
        idx = calloc(n + 1, sizeof(*idx));
        if (!idx) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        for (size_t i = 0; i < n; i++) {
                const struct gpu_spec *g = &sc.gpus[i];

                if (min_bytes && g->memory_bytes < min_bytes)
                        continue;
                if (vendor && strcasecmp(vendor, g->vendor) != 0)
                        continue;
                if (kind && strcasecmp(kind, g->kind) != 0)
                        continue;
                if (can_train_q && g->can_train != can_train)
                        continue;
                idx[m++] = i;
        }
        sort_indices(idx, m, &sc);
        /* Served from the snapshot's rendering: the chosen rows. */
        if (render &&
            snprintf(tail, sizeof(tail), "],\"count\":%zu,\"catalog_loaded_at\":%.*s}", m,
                     (int)render->loaded_at.len, render->loaded_at.bytes) < (int)sizeof(tail) &&
            api_catalog_render_rows(rs, "{\"gpus\":[", render->gpu_rows, idx, m, tail) == 0)
                goto out;
        arr = json_array();
        for (size_t i = 0; arr && i < m; i++)
                json_array_append_new(arr, catalog_json_gpu(s, idx[i], false));
        api_reply_json(rs, 200,
                       json_pack("{s:o, s:I, s:s}", "gpus", arr ? arr : json_array(), "count",
                                 (json_int_t)m, "catalog_loaded_at", catalog_loaded_at(s)));
out:
        free(idx);
        catalog_release(s);
}

/* ---- GET /api/v1/gpus/{id} ----------------------------------------------- */

void api_gpus_get(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        size_t i;

        if (!s)
                return;
        i = catalog_gpu_index(s, rq->params[0]);
        if (i == SIZE_MAX) {
                api_problem(rs, 404, "no accelerator with this id in the catalog");
        } else if (!api_catalog_etag(rq, rs, s)) {
                const struct api_catalog_render *render = api_catalog_render(s);

                if (!render || api_catalog_render_text(rs, &render->gpu_docs[i]))
                        api_reply_json(rs, 200, catalog_json_gpu(s, i, true));
        }
        catalog_release(s);
}

/* ---- PUT /api/v1/gpus/{id} ----------------------------------------------- */

static const char *const gpu_write_keys[] = {
        "id", "name", "vendor", "kind", "form_factor", "chips_per_board", "memory_bytes",
        "usable_memory_bytes", "memory_type", "memory_bandwidth_bytes_per_s", "throughput_flops",
        "tdp_watts", "interconnect_kind", "interconnect", "interconnect_bytes_per_s",
        "host_interface", "host_bytes_per_s", "launch_year", "launch_price_usd", "can_train",
        "can_infer", "cuda", "frameworks", "notes", "source", "source_date",
        /* read-only fields a client may send back unchanged from a GET: ignored */
        "updated_at", "updated_by", "offerings", "purchase_prices", NULL};

static const char *const flops_keys[] = {
        "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp16_accumulate", NULL};

static const char *const link_kinds[] = {"pcie", "ethernet", "nvlink", "infinity_fabric",
                                         "ici",  "other",    "none",   NULL};

/* Fixed-size copy; the caller has checked the length. */
static void copy_fixed(char *dst, size_t len, const char *src)
{
        size_t n = strlen(src);

        if (n >= len)
                n = len - 1;
        memcpy(dst, src, n);
        dst[n] = '\0';
}

/* Decode a PUT body into spec + info; 0, or -1 with rs filled. */
static int gpu_decode(struct api_response *rs, json_t *body, const char *id, struct gpu_spec *g,
                      struct catalog_gpu_info *info)
{
        const char *name = NULL, *vendor = NULL, *kind = NULL, *body_id = NULL;
        int64_t chips = 1, mem = 0, usable = 0, year = 0;
        double max_num = 1e21; /* a zettaFLOP/s or zettabyte per second: surely a typo */
        json_t *flops;

        memset(g, 0, sizeof(*g));
        memset(info, 0, sizeof(*info));
        info->interconnect_kind = "pcie";
        g->can_train = true;
        info->can_infer = true;
        if (fields_known(rs, body, "", gpu_write_keys) ||
            fields_string(rs, body, "", "id", FIELD_NULLABLE, 64, &body_id) ||
            fields_string(rs, body, "", "name", FIELD_REQUIRED, GPU_NAME_CHARS, &name) ||
            fields_string(rs, body, "", "vendor", FIELD_REQUIRED, GPU_VENDOR_CHARS, &vendor) ||
            fields_string(rs, body, "", "kind", FIELD_REQUIRED, sizeof(g->kind) - 1, &kind) ||
            fields_string(rs, body, "", "form_factor", FIELD_REQUIRED, 32, &info->form_factor) ||
            fields_int(rs, body, "", "chips_per_board", 0, 1, 64, &chips) ||
            fields_int(rs, body, "", "memory_bytes", FIELD_NULLABLE, 1, INT64_MAX, &mem) ||
            fields_int(rs, body, "", "usable_memory_bytes", FIELD_NULLABLE, 1, INT64_MAX,
                       &usable) ||
            fields_string(rs, body, "", "memory_type", FIELD_NULLABLE, 32, &info->memory_type) ||
            fields_number(rs, body, "", "memory_bandwidth_bytes_per_s", FIELD_NULLABLE, 1, max_num,
                          &g->memory_bandwidth_bytes_per_s) ||
            fields_number(rs, body, "", "tdp_watts", FIELD_NULLABLE, 0.001, 1e6, &g->tdp_watts) ||
            fields_string(rs, body, "", "interconnect_kind", 0, 32, &info->interconnect_kind) ||
            fields_string(rs, body, "", "interconnect", FIELD_NULLABLE, 200, &info->interconnect) ||
            fields_number(rs, body, "", "interconnect_bytes_per_s", FIELD_NULLABLE, 1, max_num,
                          &info->interconnect_bytes_per_s) ||
            fields_string(rs, body, "", "host_interface", FIELD_NULLABLE, 200,
                          &info->host_interface) ||
            fields_number(rs, body, "", "host_bytes_per_s", FIELD_NULLABLE, 1, max_num,
                          &g->host_link_bytes_per_s) ||
            fields_int(rs, body, "", "launch_year", FIELD_NULLABLE, 2000, 2100, &year) ||
            fields_number(rs, body, "", "launch_price_usd", FIELD_NULLABLE, 0.01, 1e10,
                          &info->launch_price_usd) ||
            fields_bool(rs, body, "", "can_train", 0, &g->can_train) ||
            fields_bool(rs, body, "", "can_infer", 0, &info->can_infer) ||
            fields_bool(rs, body, "", "cuda", 0, &g->cuda) ||
            fields_string(rs, body, "", "frameworks", FIELD_NULLABLE, 500, &info->frameworks) ||
            fields_string(rs, body, "", "notes", FIELD_NULLABLE, 4000, &info->notes) ||
            fields_string(rs, body, "", "source", FIELD_REQUIRED, 1000, &info->source) ||
            fields_date(rs, body, "", "source_date", FIELD_REQUIRED, &info->source_date))
                return -1;
        if (body_id && strcmp(body_id, id) != 0) {
                api_problem_field(rs, 400, "/id", "const", "id in the body differs from the path");
                return -1;
        }
        if (!in_list(kind, gpu_kinds)) {
                api_problem_field(rs, 400, "/kind", "enum", GPU_KIND_RULE);
                return -1;
        }
        if (!in_list(info->interconnect_kind, link_kinds)) {
                api_problem_field(rs, 400, "/interconnect_kind", "enum",
                                  "interconnect_kind must be one of pcie, nvlink, infinity_fabric,"
                                  " ici, ethernet, other, none");
                return -1;
        }
        if (usable && mem && usable > mem) {
                api_problem_field(rs, 400, "/usable_memory_bytes", "range",
                                  "usable_memory_bytes may not exceed memory_bytes");
                return -1;
        }
        flops = json_object_get(body, "throughput_flops");
        if (flops && !json_is_null(flops)) {
                if (!json_is_object(flops)) {
                        api_problem_field(rs, 400, "/throughput_flops", "type",
                                          "throughput_flops must be an object of dense FLOP/s");
                        return -1;
                }
                if (fields_known(rs, flops, "/throughput_flops", flops_keys))
                        return -1;
                for (int p = 0; p < GPU_PRECISION_COUNT; p++)
                        if (fields_number(rs, flops, "/throughput_flops",
                                          catalog_json_precision_keys[p], FIELD_NULLABLE, 1,
                                          max_num, &g->flops[p]))
                                return -1;
                if (fields_number(rs, flops, "/throughput_flops", "fp16_accumulate", FIELD_NULLABLE,
                                  1, max_num, &g->fp16_accumulate_flops))
                        return -1;
        }
        copy_fixed(g->id, sizeof(g->id), id);
        copy_fixed(g->name, sizeof(g->name), name);
        copy_fixed(g->vendor, sizeof(g->vendor), vendor);
        copy_fixed(g->kind, sizeof(g->kind), kind);
        info->chips_per_board = (int)chips;
        g->memory_bytes = (uint64_t)mem;
        g->usable_memory_bytes = (uint64_t)usable;
        info->usable_memory_known = usable != 0;
        g->launch_year = (int)year;
        return 0;
}

void api_gpus_put(const struct api_request *rq, struct api_response *rs)
{
        const char *id = rq->params[0];
        struct gpu_spec g;
        struct catalog_gpu_info info;
        struct db_actor who;
        struct db_error e;
        char actor[80];
        json_t *body;
        PGconn *conn;
        bool created = false;
        int rc;

        if (admin_check(rq, rs))
                return;
        if (!fields_is_id(id, GPU_ID_MAX - 1)) {
                api_problem_field(
                        rs, 400, "/id", "pattern",
                        "an accelerator id is 1..63 characters of a-z, 0-9, '.', '_', '-'");
                return;
        }
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (gpu_decode(rs, body, id, &g, &info)) {
                json_decref(body);
                return;
        }
        conn = api_db_acquire(rq, rs);
        if (!conn) {
                json_decref(body);
                return;
        }
        admin_actor(rq, actor, sizeof(actor), &who);
        rc = catalog_queries_upsert_accelerator(conn, &g, &info, &who, &created, &e);
        api_db_release(rq, conn);
        json_decref(body);
        if (rc) {
                api_db_problem(rs, &e);
                return;
        }
        api_catalog_write_reply(rq, rs, created, API_ENTITY_GPU, id);
}
