/*
 * test_reply.c - the problem documents of api/problem.c against RFC 9457,
 * and the response header table of api/reply.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/handler.h"

static json_t *parse(const struct api_response *rs)
{
        json_error_t e;
        json_t *doc = json_loadb(rs->body, rs->body_len, JSON_REJECT_DUPLICATES, &e);

        if (!doc)
                fail_msg("not JSON: %s (%s)", rs->body, e.text);
        return doc;
}

static void test_problem(void **state)
{
        struct api_response rs;
        json_t *doc;

        (void)state;
        memset(&rs, 0, sizeof(rs));
        api_problem(&rs, 404, "no such GPU: \"x\"");
        assert_int_equal(rs.status, 404);
        assert_string_equal(rs.content_type, "application/problem+json");
        doc = parse(&rs);
        /* RFC 9457 section 4.2.1: with type about:blank the title is the status phrase. */
        assert_string_equal(json_string_value(json_object_get(doc, "type")), "about:blank");
        assert_string_equal(json_string_value(json_object_get(doc, "title")), "Not Found");
        assert_int_equal(json_integer_value(json_object_get(doc, "status")), 404);
        assert_string_equal(json_string_value(json_object_get(doc, "detail")),
                            "no such GPU: \"x\"");
        assert_null(json_object_get(doc, "errors"));
        json_decref(doc);
        free(rs.body);
}

static void test_titles(void **state)
{
        static const struct {
                int status;
                const char *title;
        } rows[] = {
                /* RFC 9110 section 15 reason phrases. */
                {400, "Bad Request"},
                {401, "Unauthorized"},
                {405, "Method Not Allowed"},
                {413, "Content Too Large"},
                {415, "Unsupported Media Type"},
                {422, "Unprocessable Content"},
                {500, "Internal Server Error"},
                {503, "Service Unavailable"},
                /* Not a client or server error: becomes 500 rather than an invalid problem. */
                {200, "Internal Server Error"},
        };
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct api_response rs;
                memset(&rs, 0, sizeof(rs));
                api_problem(&rs, rows[i].status, NULL);
                json_t *doc = parse(&rs);
                assert_string_equal(json_string_value(json_object_get(doc, "title")),
                                    rows[i].title);
                assert_int_equal(json_integer_value(json_object_get(doc, "status")), rs.status);
                /* detail is always present (the spec requires it). */
                assert_non_null(json_string_value(json_object_get(doc, "detail")));
                json_decref(doc);
                free(rs.body);
        }
}

static void test_problem_field(void **state)
{
        struct api_response rs;
        json_t *doc;
        json_t *err;

        (void)state;
        memset(&rs, 0, sizeof(rs));
        api_problem_field(&rs, 422, "/workload/batch_size", "minimum", "batch_size must be >= 1");
        assert_int_equal(rs.status, 422);
        doc = parse(&rs);
        assert_string_equal(json_string_value(json_object_get(doc, "pointer")),
                            "/workload/batch_size");
        assert_string_equal(json_string_value(json_object_get(doc, "rule")), "minimum");
        err = json_array_get(json_object_get(doc, "errors"), 0);
        assert_non_null(err);
        assert_int_equal(json_array_size(json_object_get(doc, "errors")), 1);
        assert_string_equal(json_string_value(json_object_get(err, "pointer")),
                            "/workload/batch_size");
        assert_string_equal(json_string_value(json_object_get(err, "rule")), "minimum");
        assert_string_equal(json_string_value(json_object_get(err, "detail")),
                            "batch_size must be >= 1");
        json_decref(doc);
        /* Replacing an earlier reply frees it (ASan would report the leak). */
        api_problem(&rs, 400, "second");
        assert_int_equal(rs.status, 400);
        free(rs.body);
}

static void test_reply_json(void **state)
{
        struct api_response rs;

        (void)state;
        memset(&rs, 0, sizeof(rs));
        /* 15 significant digits (DBL_DIG): a price stored as 55.04 reads back
         * as written, not as the nearest double's 17-digit expansion
         * 55.039999999999999; 1/3 is cut after 15 digits. */
        api_reply_json(&rs, 200, json_pack("{s:f, s:f}", "usd", 55.04, "third", 1.0 / 3.0));
        assert_string_equal(rs.content_type, "application/json");
        assert_string_equal(rs.body, "{\"usd\":55.04,\"third\":0.333333333333333}");
        free(rs.body);
        memset(&rs, 0, sizeof(rs));
        api_reply_json(&rs, 200, NULL); /* a failed json_pack upstream */
        assert_int_equal(rs.status, 500);
        assert_string_equal(rs.content_type, "application/problem+json");
        free(rs.body);
}

static void test_headers(void **state)
{
        struct api_response rs;
        char name[64];

        (void)state;
        memset(&rs, 0, sizeof(rs));
        assert_int_equal(api_reply_header_add(&rs, "ETag", "\"abc\""), 0);
        assert_string_equal(rs.headers[0].name, "ETag");
        /* Header injection is refused. */
        assert_int_equal(api_reply_header_add(&rs, "X-A", "a\r\nSet-Cookie: x"), -1);
        assert_int_equal(api_reply_header_add(&rs, "X-A: b", "a"), -1);
        memset(name, 'n', sizeof(name) - 1);
        name[sizeof(name) - 1] = '\0';
        assert_int_equal(api_reply_header_add(&rs, name, "v"), -1);
        for (unsigned i = 1; i < API_RESPONSE_HEADERS_MAX; i++)
                assert_int_equal(api_reply_header_add(&rs, "X-N", "v"), 0);
        assert_int_equal(api_reply_header_add(&rs, "X-Full", "v"), -1);
        assert_int_equal(rs.n_headers, API_RESPONSE_HEADERS_MAX);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_problem),       cmocka_unit_test(test_titles),
                cmocka_unit_test(test_problem_field), cmocka_unit_test(test_reply_json),
                cmocka_unit_test(test_headers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
