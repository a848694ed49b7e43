/*
 * serving_validation.c - GET /api/v1/validation/serving (see
 * serving_validation.h).
 */
#include "api/serving_validation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/catalog_api.h"
#include "api/catalog.h"
#include "api/accuracy.h"
#include "db/engine_queries.h"

#define METRICS 2

static const char *const metrics[METRICS] = {"ttft_ms", "tpot_ms"};

/* The answer's figure for a measured statistic; NULL when it has none. */
static json_t *estimate_for(json_t *load, const char *metric, const char *statistic)
{
        char key[32];
        const char *stat = !strcmp(statistic, "median") ? "p50" : statistic;

        /* ttft_ms + median -> ttft_p50_ms; tpot_ms + mean -> tpot_mean_ms */
        snprintf(key, sizeof(key), "%.4s_%s_ms", metric, stat);
        return json_object_get(load, key);
}

/* One row: its cases (one per measured metric) appended to cases. */
static void run_row(const struct catalog_snapshot *snap, json_t *row, json_t *cases)
{
        struct api_response scratch;
        json_t *measured = json_object_get(row, "measured");
        json_t *answer, *deployment, *load = NULL;
        const char *problem = NULL;

        memset(&scratch, 0, sizeof(scratch));
        answer = api_serving_plan_answer(snap, json_object_get(row, "request"), &scratch);
        deployment = answer ? json_object_get(answer, "deployment") : NULL;
        if (!answer)
                problem = scratch.body ? scratch.body : "the planner refused the request";
        else if (!json_is_true(json_object_get(deployment, "servable")))
                problem = json_string_value(json_object_get(deployment, "reason"));
        else
                load = json_object_get(deployment, "load");
        for (size_t m = 0; m < METRICS; m++) {
                json_t *meas = json_object_get(measured, metrics[m]);
                const char *stat = json_string_value(json_object_get(meas, "statistic"));
                double value = json_number_value(json_object_get(meas, "value"));
                if (!meas || !stat || !(value > 0))
                        continue;
                json_t *c = json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:s, s:s, s:f}",
                                      "id", json_object_get(row, "id"), "engine",
                                      json_object_get(row, "engine"), "engine_version",
                                      json_object_get(row, "engine_version"), "gpu",
                                      json_object_get(row, "gpu"), "tensor_parallel",
                                      json_object_get(row, "tensor_parallel"), "load",
                                      json_object_get(row, "load"), "source",
                                      json_object_get(row, "source"), "date",
                                      json_object_get(row, "date"), "metric", metrics[m],
                                      "statistic", stat, "measured", value);
                if (!c)
                        continue;
                json_t *est = load ? estimate_for(load, metrics[m], stat) : NULL;
                if (json_is_number(est)) {
                        double e = json_number_value(est);
                        json_object_set_new(c, "estimated", json_real(e));
                        json_object_set_new(c, "error", json_real(e / value - 1));
                } else {
                        json_object_set_new(c, "estimated", json_null());
                        json_object_set_new(c, "error", json_null());
                        json_object_set_new(c, "problem",
                                            json_string(problem ? problem
                                                                : "no figure for this statistic"));
                }
                json_object_set_new(c, "request", json_deep_copy(json_object_get(row, "request")));
                json_array_append_new(cases, c);
        }
        json_decref(answer);
        free(scratch.body);
}

/* Median and p90 of |error| per engine and metric, and per metric over all. */
static json_t *summary(json_t *cases)
{
        size_t n = json_array_size(cases);
        double *errs = calloc(n ? n : 1, sizeof(double)), *buf = calloc(n ? n : 1, sizeof(double));
        json_t *by_engine = json_array(), *by_metric = json_array(), *c;
        const char *engines[16];
        size_t n_engines = 0, i;

        if (!errs || !buf || !by_engine || !by_metric) {
                free(errs);
                free(buf);
                json_decref(by_engine);
                json_decref(by_metric);
                return NULL;
        }
        json_array_foreach(cases, i, c)
        {
                const char *e = json_string_value(json_object_get(c, "engine"));
                size_t k;
                for (k = 0; k < n_engines; k++)
                        if (!strcmp(engines[k], e))
                                break;
                if (k == n_engines && n_engines < 16)
                        engines[n_engines++] = e;
        }
        for (size_t m = 0; m < METRICS; m++) {
                for (size_t k = 0; k <= n_engines; k++) {
                        size_t count = 0;
                        double median, p90;
                        json_array_foreach(cases, i, c)
                        {
                                json_t *err = json_object_get(c, "error");
                                if (!json_is_number(err) ||
                                    strcmp(json_string_value(json_object_get(c, "metric")),
                                           metrics[m]) ||
                                    (k < n_engines &&
                                     strcmp(json_string_value(json_object_get(c, "engine")),
                                            engines[k])))
                                        continue;
                                errs[count++] = json_number_value(err);
                        }
                        accuracy_summary(errs, count, buf, &median, &p90);
                        json_t *row = json_pack("{s:s, s:i, s:f, s:f}", "metric", metrics[m],
                                                "count", (json_int_t)count, "median_abs_error",
                                                median, "p90_abs_error", p90);
                        if (k < n_engines) {
                                json_object_set_new(row, "engine", json_string(engines[k]));
                                json_array_append_new(by_engine, row);
                        } else {
                                json_array_append_new(by_metric, row);
                        }
                }
        }
        free(errs);
        free(buf);
        return json_pack("{s:o, s:o}", "by_engine", by_engine, "by_metric", by_metric);
}

void api_serving_validation_handle(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *snap = api_catalog_snapshot(rq, rs);
        json_t *rows, *cases, *row, *sum;
        size_t i;

        if (!snap)
                return;
        rows = accuracy_load_rows(rq, rs, engine_queries_loadtests_json, "serving load tests");
        if (!rows) {
                catalog_release(snap);
                return;
        }
        cases = json_array();
        json_array_foreach(rows, i, row) run_row(snap, row, cases);
        sum = cases ? summary(cases) : NULL;
        if (!sum) {
                json_decref(cases);
                api_problem(rs, 500, "out of memory");
        } else {
                api_reply_json(rs, 200,
                               json_pack("{s:o, s:o, s:s}", "cases", cases, "summary", sum,
                                         "compared",
                                         "each load test's time to first token and time per "
                                         "output token, at the statistic it measured, against "
                                         "POST /api/v1/serving_plan's deployment answer"));
        }
        json_decref(rows);
        catalog_release(snap);
}
