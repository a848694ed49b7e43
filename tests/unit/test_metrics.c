/*
 * test_metrics.c - Prometheus exposition of the request counters,
 * histogram and named counters.  Expected lines are written out from the
 * text format specification (exposition_formats.md, version 0.0.4):
 * cumulative buckets ending in le="+Inf" equal to _count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/handler.h"
#include "api/metrics.h"

static unsigned n_routes(void)
{
        unsigned n = 0;

        while (api_routes[n].method)
                n++;
        return n;
}

static void assert_line(const char *text, const char *line)
{
        char want[256];

        snprintf(want, sizeof(want), "\n%s\n", line);
        if (!strstr(text, want))
                fail_msg("missing line: %s\n--- in ---\n%s", line, text);
}

static void test_requests_and_histogram(void **state)
{
        struct metrics *m = metrics_new(n_routes());
        size_t len;
        char *text;

        (void)state;
        assert_non_null(m);
        /* Route 0 is GET /healthz in api/routes.c. */
        assert_string_equal(api_routes[0].pattern, "/healthz");
        metrics_observe(m, 0, "GET", 200, 0.0004);     /* bucket 0.0005 */
        metrics_observe(m, 0, "GET", 200, 0.003);      /* bucket 0.005 */
        metrics_observe(m, 0, "HEAD", 200, 20.0);      /* above every bound: only +Inf */
        metrics_observe(m, METRICS_ROUTE_NONE, "DELETE", 405, 0.0001);
        metrics_observe(m, METRICS_ROUTE_STATIC, "GET", 304, 0.0001);
        metrics_observe(m, METRICS_ROUTE_NONE, "BREW", 418, 0.0001); /* unlisted: 4xx, OTHER */
        text = metrics_render(m, NULL, &len);
        assert_non_null(text);
        assert_int_equal(strlen(text), len);
        assert_line(text, "gpuplan_http_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 2");
        assert_line(text, "gpuplan_http_requests_total{route=\"/healthz\",method=\"HEAD\",status=\"200\"} 1");
        assert_line(text, "gpuplan_http_requests_total{route=\"unmatched\",method=\"DELETE\",status=\"405\"} 1");
        assert_line(text, "gpuplan_http_requests_total{route=\"static\",method=\"GET\",status=\"304\"} 1");
        assert_line(text, "gpuplan_http_requests_total{route=\"unmatched\",method=\"OTHER\",status=\"4xx\"} 1");
        /* Cumulative: 1 at 0.0005, still 1 at 0.001 and 0.0025, 2 from 0.005, 3 at +Inf. */
        assert_line(text, "gpuplan_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"0.0005\"} 1");
        assert_line(text, "gpuplan_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"0.0025\"} 1");
        assert_line(text, "gpuplan_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"0.005\"} 2");
        assert_line(text, "gpuplan_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"10\"} 2");
        assert_line(text, "gpuplan_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"+Inf\"} 3");
        assert_line(text, "gpuplan_http_request_duration_seconds_count{route=\"/healthz\"} 3");
        /* 0.0004 + 0.003 + 20 = 20.0034 s */
        assert_line(text, "gpuplan_http_request_duration_seconds_sum{route=\"/healthz\"} 20.003400000");
        /* Routes with no traffic are not listed. */
        assert_null(strstr(text, "route=\"/readyz\""));
        free(text);
        metrics_free(m);
}

static void test_inflight_and_named(void **state)
{
        struct metrics *m = metrics_new(n_routes());
        size_t len;
        char *text;

        (void)state;
        metrics_inflight_add(m, 1);
        metrics_inflight_add(m, 1);
        metrics_inflight_add(m, -1);
        assert_int_equal(metrics_inflight(m), 1);
        metrics_count(m, "gpuplan_catalog_reloads_total", "Catalog snapshots loaded.", 1);
        metrics_count(m, "gpuplan_catalog_reloads_total", "Catalog snapshots loaded.", 2);
        metrics_count(m, "bad name!", "refused: not a metric name", 5);
        text = metrics_render(m, NULL, &len);
        assert_line(text, "gpuplan_http_requests_in_flight 1");
        assert_line(text, "# TYPE gpuplan_catalog_reloads_total counter");
        assert_line(text, "gpuplan_catalog_reloads_total 3");
        assert_null(strstr(text, "bad name"));
        /* No pool given: no pool lines. */
        assert_null(strstr(text, "gpuplan_db_pool_connections"));
        free(text);
        metrics_free(m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_requests_and_histogram),
                cmocka_unit_test(test_inflight_and_named),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
