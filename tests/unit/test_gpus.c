/*
 * test_gpus.c - GET /api/v1/gpus (api/gpus.c) on the fixture catalog:
 * the memory, vendor and training filters, sorting, unknown TDP as null,
 * the ETag and If-None-Match, and a bad filter named in a 400.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "api/catalog_api.h"

#include "api_fixture.h"

static void test_gpu_filters_and_etag(void **state)
{
        struct fixture_env *e = *state;
        struct api_response rs = {0};
        struct fake f = {.query = {{"min_memory", "30000000000"}, {"sort", "-memory"}}};
        struct api_request rq = request(e, &f, NULL);
        json_t *doc, *gpus;
        const char *etag;
        char etag_copy[64];

        api_gpus_list(&rq, &rs);
        assert_int_equal(rs.status, 200);
        doc = reply_json(&rs);
        gpus = json_object_get(doc, "gpus");
        /* >= 30e9 bytes: mi300x (192 GiB) then a100-80 (80 GiB); 24 and 16 GiB are out. */
        assert_int_equal(json_array_size(gpus), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "id")),
                            "mi300x");
        assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 1), "id")),
                            "a100-80");
        /* Unknown TDP is null, not 0. */
        json_decref(doc);
        etag = NULL;
        for (unsigned i = 0; i < rs.n_headers; i++)
                if (strcmp(rs.headers[i].name, "ETag") == 0)
                        etag = rs.headers[i].value;
        assert_non_null(etag);
        strcpy(etag_copy, etag);
        reset(&rs);

        {
                struct fake f2 = {.query = {{"can_train", "false"}}};
                struct api_request rq2 = request(e, &f2, NULL);

                api_gpus_list(&rq2, &rs);
                doc = reply_json(&rs);
                gpus = json_object_get(doc, "gpus");
                assert_int_equal(json_array_size(gpus), 1);
                assert_true(json_is_null(json_object_get(json_array_get(gpus, 0), "tdp_watts")));
                json_decref(doc);
                reset(&rs);
        }
        {
                struct fake f3 = {.header = {{"If-None-Match", etag_copy}}};
                struct api_request rq3 = request(e, &f3, NULL);

                api_gpus_list(&rq3, &rs);
                assert_int_equal(rs.status, 304);
                assert_null(rs.body);
                reset(&rs);
        }
        {
                struct fake f4 = {.query = {{"min_memory", "-5"}}};
                struct api_request rq4 = request(e, &f4, NULL);

                api_gpus_list(&rq4, &rs);
                assert_int_equal(rs.status, 400);
                assert_non_null(strstr(rs.body, "?min_memory"));
                reset(&rs);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_gpu_filters_and_etag),
        };

        return cmocka_run_group_tests_name("gpus", tests, fixture_setup, fixture_teardown);
}
