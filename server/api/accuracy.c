/*
 * accuracy.c - GET /api/v1/validation and GET /api/v1/scenarios (see
 * accuracy.h).  Both read their rows from PostgreSQL (these are not
 * hot-path endpoints) and run the engine on each.
 */
#include "api/accuracy.h"
#include "api/uncertainty.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/catalog.h"
#include "api/db.h"
#include "api/estimate_encode.h"
#include "db/engine_queries.h"

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

void accuracy_summary(const double *errors, size_t n, double *buf, double *median, double *p90)
{
        *median = *p90 = 0;
        if (n == 0)
                return;
        for (size_t i = 0; i < n; i++)
                buf[i] = fabs(errors[i]);
        qsort(buf, n, sizeof(double), cmp_double);
        *median = n % 2 ? buf[n / 2] : (buf[n / 2 - 1] + buf[n / 2]) / 2;
        /* Nearest rank: the smallest value with at least 90% at or below it. */
        size_t rank = (size_t)ceil(0.9 * (double)n);
        *p90 = buf[rank ? rank - 1 : 0];
}

int accuracy_case(json_t *request, const char *kind, double measured_bytes,
                  const struct catalog_snapshot *snap, struct accuracy_result *out,
                  struct fields_error *err)
{
        struct estimate_input in;
        struct estimate_error ee;
        struct estimate_result *r;

        memset(out, 0, sizeof(*out));
        if (estimate_decode_request(request, snap, NULL, &in, err))
                return -1;
        r = malloc(sizeof(*r));
        if (!r) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                err->status = 500;
                return -1;
        }
        if (estimate_run(&in, NULL, 0, r, &ee)) {
                snprintf(err->pointer, sizeof(err->pointer), "%s", ee.pointer);
                snprintf(err->rule, sizeof(err->rule), "%s", ee.rule);
                snprintf(err->detail, sizeof(err->detail), "%s", ee.detail);
                err->status = 400;
                free(r);
                return -1;
        }
        out->total_bytes = r->per_gpu_total_bytes;
        out->allocated_bytes = r->per_gpu_allocated_bytes;
        out->measured_bytes = measured_bytes;
        if (strcmp(kind, "max_allocated") == 0)
                out->estimated_bytes = (double)r->per_gpu_allocated_bytes;
        else if (strcmp(kind, "max_reserved") == 0)
                out->estimated_bytes = (double)r->per_gpu_reserved_bytes;
        else
                out->estimated_bytes = (double)r->per_gpu_total_bytes;
        out->error =
                measured_bytes > 0 ? (out->estimated_bytes - measured_bytes) / measured_bytes : 0;
        free(r);
        return 0;
}

static int time_fail(struct fields_error *err, const char *pointer, const char *detail)
{
        err->status = 400;
        snprintf(err->pointer, sizeof(err->pointer), "%s", pointer);
        snprintf(err->rule, sizeof(err->rule), "%s", "enum");
        snprintf(err->detail, sizeof(err->detail), "%s", detail);
        return -1;
}

/* The engine's value of metric for a finished run; -1 for an unknown metric. */
static int time_metric(const char *metric, const struct estimate_input *in,
                       const struct estimate_result *r, double *v)
{
        double gpus = in->gpus ? in->gpus : 1, b = in->batch_size;
        double step = r->seconds_per_step;

        if (!strcmp(metric, "tokens_per_second_per_gpu"))
                *v = r->tokens_per_second / gpus;
        else if (!strcmp(metric, "mfu"))
                *v = r->mfu;
        else if (!strcmp(metric, "tflops_per_gpu"))
                *v = step > 0 ? r->flops_per_step / step / gpus / 1e12 : 0;
        else if (!strcmp(metric, "seconds_per_step"))
                *v = step;
        else if (!strcmp(metric, "samples_per_second"))
                *v = in->sequence_length ? r->tokens_per_second / in->sequence_length : 0;
        else if (!strcmp(metric, "decode_tokens_per_second"))
                *v = r->decode_tokens_per_second;
        else if (!strcmp(metric, "tpot_ms"))
                *v = r->decode_tokens_per_second > 0 ? 1e3 * b / r->decode_tokens_per_second : 0;
        else if (!strcmp(metric, "ttft_ms"))
                *v = 1e3 * r->prefill_seconds;
        else if (!strcmp(metric, "prefill_tokens_per_second"))
                *v = r->prefill_seconds > 0 ? b * in->prompt_tokens / r->prefill_seconds : 0;
        else if (!strcmp(metric, "output_tokens_per_second"))
                *v = r->total_seconds > 0 ? b * in->generated_tokens / r->total_seconds : 0;
        else
                return -1;
        return 0;
}

int accuracy_time_case(json_t *request, const char *metric, double measured,
                       const struct catalog_snapshot *snap, double *estimated, double *error,
                       struct fields_error *err)
{
        struct estimate_input in;
        struct estimate_error ee;
        struct estimate_result *r;
        size_t n_gpus = 0;
        const struct gpu_spec *gpus = snap ? catalog_gpus(snap, &n_gpus) : NULL;
        int rc = -1;

        memset(err, 0, sizeof(*err));
        if (estimate_decode_request(request, snap, NULL, &in, err))
                return -1;
        if (in.gpu_index < 0)
                return time_fail(err, "/gpu", "a throughput case must name a catalog gpu");
        r = malloc(sizeof(*r));
        if (!r) {
                snprintf(err->detail, sizeof(err->detail), "out of memory");
                err->status = 500;
                return -1;
        }
        if (estimate_run(&in, gpus, n_gpus, r, &ee)) {
                snprintf(err->pointer, sizeof(err->pointer), "%s", ee.pointer);
                snprintf(err->rule, sizeof(err->rule), "%s", ee.rule);
                snprintf(err->detail, sizeof(err->detail), "%s", ee.detail);
                err->status = 400;
        } else if (time_metric(metric ? metric : "", &in, r, estimated)) {
                time_fail(err, "/metric", "unknown throughput metric");
        } else if (!(*estimated > 0)) {
                time_fail(err, "/gpu", "the engine gives no time for this gpu and precision");
        } else {
                *error = measured > 0 ? (*estimated - measured) / measured : 0;
                rc = 0;
        }
        free(r);
        return rc;
}

json_t *accuracy_load_rows(const struct api_request *rq, struct api_response *rs,
                           char *(*query)(PGconn *, char *, size_t), const char *what)
{
        char err[256];
        PGconn *c = api_db_acquire(rq, rs);
        char *text;
        json_t *rows;
        json_error_t jerr;

        if (!c)
                return NULL;
        text = query(c, err, sizeof(err));
        api_db_release(rq, c);
        if (!text) {
                api_problem(rs, 503, err);
                api_reply_header_add(rs, "Retry-After", "2");
                return NULL;
        }
        rows = json_loads(text, 0, &jerr);
        free(text);
        if (!json_is_array(rows)) {
                json_decref(rows);
                char detail[160];
                snprintf(detail, sizeof(detail), "%s are not a JSON array", what);
                api_problem(rs, 500, detail);
                return NULL;
        }
        return rows;
}

/*
 * Median and p90 of |error| per category, in the order categories first
 * appear among the cases (the rows come sorted by id).  errs and buf have
 * room for every case.
 */
static json_t *validation_by_category(json_t *cases, double *errs, double *buf)
{
        json_t *out = json_array(), *c;
        size_t i;

        if (!out)
                return NULL;
        json_array_foreach(cases, i, c)
        {
                const char *cat = json_string_value(json_object_get(c, "category"));
                size_t j, n = 0;
                json_t *d;
                bool seen = false;
                double median, p90;

                if (!cat)
                        continue;
                json_array_foreach(out, j, d) seen =
                        seen || !strcmp(json_string_value(json_object_get(d, "category")), cat);
                if (seen)
                        continue;
                json_array_foreach(cases, j, d)
                {
                        json_t *e = json_object_get(d, "error");
                        const char *dc = json_string_value(json_object_get(d, "category"));
                        if (dc && !strcmp(dc, cat) && json_is_number(e))
                                errs[n++] = json_number_value(e);
                }
                accuracy_summary(errs, n, buf, &median, &p90);
                json_array_append_new(out, json_pack("{s:s, s:i, s:f, s:f}", "category", cat,
                                                     "count", (json_int_t)n, "median_abs_error",
                                                     median, "p90_abs_error", p90));
        }
        return out;
}

/*
 * One table of measured cases being evaluated: the rows read, the case
 * documents built from them, and the errors of those the engine answered
 * (errs and buf hold one entry per row).
 */
struct case_set {
        json_t *rows, *cases;
        double *errs, *buf;
        size_t n_ok;
};

static void case_set_close(struct case_set *cs)
{
        json_decref(cs->rows);
        json_decref(cs->cases);
        free(cs->errs);
        free(cs->buf);
        memset(cs, 0, sizeof(*cs));
}

/* Read the rows of query; -1 with rs filled on failure. */
static int case_set_open(const struct api_request *rq, struct api_response *rs,
                         char *(*query)(PGconn *, char *, size_t), struct case_set *cs)
{
        memset(cs, 0, sizeof(*cs));
        cs->rows = accuracy_load_rows(rq, rs, query, "measurements");
        if (!cs->rows)
                return -1;
        cs->cases = json_array();
        cs->errs = calloc(json_array_size(cs->rows) + 1, sizeof(double));
        cs->buf = calloc(json_array_size(cs->rows) + 1, sizeof(double));
        if (!cs->cases || !cs->errs || !cs->buf) {
                api_problem(rs, 500, "out of memory");
                case_set_close(cs);
                return -1;
        }
        return 0;
}

/* Append case document c (taken): its error, or the engine's refusal e. */
static void case_set_add(struct case_set *cs, json_t *c, int rc, double error,
                         const struct fields_error *e)
{
        if (rc == 0) {
                json_object_set_new(c, "error", json_real(error));
                cs->errs[cs->n_ok++] = error;
        } else {
                json_object_set_new(c, "error", json_null());
                json_object_set_new(c, "problem",
                                    json_pack("{s:s, s:s, s:s}", "pointer", e->pointer, "rule",
                                              e->rule, "detail", e->detail));
        }
        json_array_append_new(cs->cases, c);
}

/*
 * {cases, summary: {count, median_abs_error, p90_abs_error, comparison,
 * by_category}}; the cases move into it.  NULL when memory runs out.
 */
static json_t *case_set_doc(struct case_set *cs, const char *comparison)
{
        double median, p90;

        accuracy_summary(cs->errs, cs->n_ok, cs->buf, &median, &p90);
        json_t *doc =
                json_pack("{s:O, s:{s:i, s:f, s:f, s:s, s:o*}}", "cases", cs->cases, "summary",
                          "count", (json_int_t)cs->n_ok, "median_abs_error", median,
                          "p90_abs_error", p90, "comparison", comparison, "by_category",
                          validation_by_category(cs->cases, cs->errs, cs->buf)); /* reuses errs */
        return doc;
}

/* The throughput cases as case_set_doc; NULL with rs filled on failure. */
static json_t *time_section(const struct api_request *rq, struct api_response *rs,
                            const struct catalog_snapshot *snap)
{
        struct case_set cs;
        json_t *row, *out;
        size_t i;

        if (case_set_open(rq, rs, engine_queries_throughput_json, &cs))
                return NULL;
        json_array_foreach(cs.rows, i, row)
        {
                struct fields_error e;
                double est = 0, error = 0;
                json_t *c = json_deep_copy(row);
                if (!c)
                        continue;
                int rc = accuracy_time_case(json_object_get(row, "request"),
                                            json_string_value(json_object_get(row, "metric")),
                                            json_number_value(json_object_get(row, "measured")),
                                            snap, &est, &error, &e);
                if (rc == 0)
                        json_object_set_new(c, "estimated", json_real(est));
                case_set_add(&cs, c, rc, error, &e);
        }
        out = case_set_doc(&cs, "each case compares the engine's figure for its metric: "
                                "throughput per GPU, step time, decode or prefill speed, time to "
                                "first token");
        if (!out)
                api_problem(rs, 500, "out of memory");
        case_set_close(&cs);
        return out;
}

/* summary.interval_coverage of each section: how often a measured value
 * fell inside the error bars built without it (api/uncertainty.h). */
static void add_coverage(json_t *memory_doc, json_t *time_doc, const struct api_uncertainty *u)
{
        json_t *docs[API_UNC_QUANTITIES] = {memory_doc, time_doc};
        if (!u)
                return;
        for (int q = 0; q < API_UNC_QUANTITIES; q++) {
                unsigned n = 0;
                double cov = api_uncertainty_coverage(u, (enum api_uncertainty_quantity)q, &n);
                json_object_set_new(json_object_get(docs[q], "summary"), "interval_coverage",
                                    json_pack("{s:f, s:I, s:f}", "leave_one_out", cov, "cases",
                                              (json_int_t)n, "target", 0.8));
        }
}

void accuracy_handle(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *snap = api_catalog_snapshot(rq, rs);
        struct case_set cs;
        json_t *row, *doc, *time;
        size_t i;

        if (!snap)
                return;
        if (case_set_open(rq, rs, engine_queries_measurements_json, &cs)) {
                catalog_release(snap);
                return;
        }
        json_array_foreach(cs.rows, i, row)
        {
                struct accuracy_result v;
                struct fields_error e;
                const char *kind = json_string_value(json_object_get(row, "kind"));
                double measured = json_number_value(json_object_get(row, "measured_bytes"));
                json_t *c = json_pack(
                        "{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "id",
                        json_object_get(row, "id"), "category", json_object_get(row, "category"),
                        "source", json_object_get(row, "source"), "url",
                        json_object_get(row, "url"), "notes", json_object_get(row, "notes"),
                        "measurement_kind", json_object_get(row, "kind"), "measured",
                        json_object_get(row, "measured"), "unit", json_object_get(row, "unit"),
                        "measured_bytes", json_object_get(row, "measured_bytes"), "request",
                        json_object_get(row, "request"));
                if (!c)
                        continue;
                int rc = accuracy_case(json_object_get(row, "request"), kind ? kind : "", measured,
                                       snap, &v, &e);
                if (rc == 0) {
                        json_object_set_new(c, "estimated_bytes",
                                            json_integer((json_int_t)v.estimated_bytes));
                        json_object_set_new(c, "estimated_total_bytes",
                                            json_integer((json_int_t)v.total_bytes));
                        json_object_set_new(c, "estimated_allocated_bytes",
                                            json_integer((json_int_t)v.allocated_bytes));
                }
                case_set_add(&cs, c, rc, v.error, &e);
        }
        time = time_section(rq, rs, snap);
        if (time) {
                doc = case_set_doc(&cs, "max_allocated cases compare allocated_bytes; "
                                        "max_reserved cases compare reserved_bytes; nvidia_smi "
                                        "cases compare total_bytes");
                if (!doc)
                        json_decref(time);
                else
                        add_coverage(doc, time, api_uncertainty_table(snap));
                if (!doc || json_object_set_new(doc, "time", time)) { /* takes time */
                        json_decref(doc);
                        api_problem(rs, 500, "out of memory");
                } else {
                        api_reply_json(rs, 200, doc);
                }
        }
        case_set_close(&cs);
        catalog_release(snap);
}

void accuracy_scenarios_handle(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *snap = api_catalog_snapshot(rq, rs);
        json_t *rows, *out, *row;
        size_t i, n_gpus = 0;
        const struct gpu_spec *gpus;
        struct estimate_result *r;

        if (!snap)
                return;
        rows = accuracy_load_rows(rq, rs, engine_queries_scenarios_json, "seed scenarios");
        if (!rows) {
                catalog_release(snap);
                return;
        }
        gpus = catalog_gpus(snap, &n_gpus);
        out = json_array();
        r = malloc(sizeof(*r));
        if (!out || !r) {
                api_problem(rs, 500, "out of memory");
                json_decref(out);
                goto done;
        }
        json_array_foreach(rows, i, row)
        {
                struct estimate_input in;
                struct fields_error e;
                struct estimate_error ee;
                json_t *s = json_deep_copy(row);
                if (!s)
                        continue;
                if (estimate_decode_request(json_object_get(row, "request"), snap, NULL, &in, &e) ==
                            0 &&
                    estimate_run(&in, gpus, n_gpus, r, &ee) == 0) {
                        json_object_set_new(s, "estimate",
                                            estimate_encode_result(&in, r, gpus, n_gpus));
                } else {
                        json_object_set_new(s, "estimate", json_null());
                        json_object_set_new(
                                s, "problem",
                                json_pack("{s:s, s:s}", "pointer", e.pointer, "detail", e.detail));
                }
                json_array_append_new(out, s);
        }
        api_reply_json(rs, 200, json_pack("{s:o}", "scenarios", out));
done:
        free(r);
        json_decref(rows);
        catalog_release(snap);
}
