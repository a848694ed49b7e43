/*
 * test_router.c - route matching on raw paths and the path decoder.
 *
 * The table below is a stand-in routing table (the real one grows with
 * every feature); each row says which route a request must reach and why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "http/router.h"

static void h(const struct api_request *rq, struct api_response *rs)
{
        (void)rq;
        (void)rs;
}

static const struct api_route routes[] = {
        {"GET", "/healthz", h, 0},                       /* 0 */
        {"GET", "/api/v1/gpus", h, 0},                   /* 1 */
        {"GET", "/api/v1/gpus/{id}", h, 0},              /* 2 */
        {"PUT", "/api/v1/gpus/{id}", h, API_ROUTE_BODY}, /* 3 */
        {"POST", "/api/v1/estimate", h, API_ROUTE_BODY}, /* 4 */
        {"GET", "/api/v1/a/{x}/b/{y}", h, 0},            /* 5 */
        {NULL, NULL, NULL, 0},
};

struct row {
        const char *method;
        const char *path;
        enum router_result result;
        int route;
        const char *param0;
        const char *param1;
        const char *allow;
        const char *why;
};

static const struct row rows[] = {
        {"GET", "/healthz", ROUTER_FOUND, 0, NULL, NULL, "", "literal route"},
        {"HEAD", "/healthz", ROUTER_FOUND, 0, NULL, NULL, "", "HEAD is served by the GET route"},
        {"GET", "/heal%74hz", ROUTER_FOUND, 0, NULL, NULL, "", "literal segments compare decoded"},
        {"GET", "/healthz/", ROUTER_NOT_FOUND, -1, NULL, NULL, "",
         "a trailing slash is another path"},
        {"GET", "/healthz/x", ROUTER_NOT_FOUND, -1, NULL, NULL, "", "extra segment"},
        {"GET", "/", ROUTER_NOT_FOUND, -1, NULL, NULL, "", "root is not a route"},
        {"GET", "/api/v1/gpus/h100-sxm", ROUTER_FOUND, 2, "h100-sxm", NULL, "", "parameter"},
        {"GET", "/api/v1/gpus/a%2Fb", ROUTER_FOUND, 2, "a/b", NULL, "",
         "an encoded slash stays inside its segment and is decoded in the parameter"},
        {"GET", "/api/v1/gpus/a%20b", ROUTER_FOUND, 2, "a b", NULL, "", "escapes decoded"},
        {"GET", "/api/v1/gpus/", ROUTER_NOT_FOUND, -1, NULL, NULL, "", "empty parameter"},
        {"GET", "/api/v1/gpus/x/y", ROUTER_NOT_FOUND, -1, NULL, NULL, "",
         "one segment per parameter"},
        {"PUT", "/api/v1/gpus/x", ROUTER_FOUND, 3, "x", NULL, "", "same pattern, other method"},
        {"DELETE", "/api/v1/gpus/x", ROUTER_METHOD_NOT_ALLOWED, -1, NULL, NULL,
         "GET, HEAD, PUT, OPTIONS", "405 lists every method of the path"},
        {"GET", "/api/v1/estimate", ROUTER_METHOD_NOT_ALLOWED, -1, NULL, NULL, "POST, OPTIONS",
         "POST-only path"},
        {"OPTIONS", "/api/v1/gpus/x", ROUTER_FOUND, -1, NULL, NULL, "GET, HEAD, PUT, OPTIONS",
         "OPTIONS answered by the transport with Allow"},
        {"OPTIONS", "/nope", ROUTER_NOT_FOUND, -1, NULL, NULL, "", "OPTIONS on an unknown path"},
        {"GET", "/api/v1/a/1/b/2", ROUTER_FOUND, 5, "1", "2", "", "two parameters, in order"},
        {"GET", "/api/v1/gpus/%zz", ROUTER_BAD_PATH, -1, NULL, NULL, "", "bad escape"},
        {"GET", "/api/v1/gpus/a%00b", ROUTER_BAD_PATH, -1, NULL, NULL, "", "encoded NUL"},
        {"GET", "/api/v1/gpus/%4", ROUTER_BAD_PATH, -1, NULL, NULL, "", "truncated escape"},
        {"GET", "healthz", ROUTER_BAD_PATH, -1, NULL, NULL, "", "not absolute"},
};

static void test_route_table(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *r = &rows[i];
                struct router_match m;
                enum router_result got = router_match(routes, r->method, r->path, &m);
                if (got != r->result || m.route != r->route)
                        fail_msg("%s %s (%s): result %d route %d, want %d route %d", r->method,
                                 r->path, r->why, got, m.route, r->result, r->route);
                if (r->param0)
                        assert_string_equal(m.params[0], r->param0);
                if (r->param1)
                        assert_string_equal(m.params[1], r->param1);
                if (r->result == ROUTER_FOUND && r->route >= 0) {
                        unsigned want =
                                (unsigned)(r->param0 != NULL) + (unsigned)(r->param1 != NULL);
                        assert_int_equal(m.n_params, want);
                }
                if (r->allow[0])
                        assert_string_equal(m.allow, r->allow);
        }
}

static void test_parameter_too_long(void **state)
{
        char path[ROUTER_PARAM_MAX * 3 + 32];
        struct router_match m;

        (void)state;
        strcpy(path, "/api/v1/gpus/");
        memset(path + strlen(path), 'a', ROUTER_PARAM_MAX);
        path[13 + ROUTER_PARAM_MAX] = '\0';
        /* 256 characters do not fit the 255-character parameter buffer. */
        assert_int_equal(router_match(routes, "GET", path, &m), ROUTER_BAD_PATH);
        path[13 + ROUTER_PARAM_MAX - 1] = '\0';
        assert_int_equal(router_match(routes, "GET", path, &m), ROUTER_FOUND);
        assert_int_equal(strlen(m.params[0]), ROUTER_PARAM_MAX - 1);
}

static void test_decode(void **state)
{
        char out[8];

        (void)state;
        assert_int_equal(router_decode("a%41+", 5, out, sizeof(out)), 3);
        assert_string_equal(out, "aA+"); /* '+' is not a space in a path */
        assert_int_equal(router_decode("%2e%2E", 6, out, sizeof(out)), 2);
        assert_string_equal(out, "..");
        assert_int_equal(router_decode("%", 1, out, sizeof(out)), -1);
        assert_int_equal(router_decode("%g0", 3, out, sizeof(out)), -1);
        assert_int_equal(router_decode("%00", 3, out, sizeof(out)), -1);
        /* Exactly full: 7 characters and the NUL fit 8 bytes, 8 do not. */
        assert_int_equal(router_decode("abcdefg", 7, out, sizeof(out)), 7);
        assert_int_equal(router_decode("abcdefgh", 8, out, sizeof(out)), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_route_table),
                cmocka_unit_test(test_parameter_too_long),
                cmocka_unit_test(test_decode),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
