/*
 * test_fit_heads.c - each GPU's fit-row head kept with a catalog snapshot
 * (api/fit_heads.c) and the estimate answer that copies it.
 *
 * The heads are written out by hand from the contract (openapi.yaml
 * EstimateResponse.fits: gpu, name, memory_bytes or null when the catalog
 * has no memory figure) and RFC 8259's escaping; the answer written with
 * the table must be the answer written without it, byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/estimate_encode.h"
#include "api/fit_heads.h"
#include "catalog_fixtures.h"

/* Four GPUs: plain, a usable figure below the memory, no memory figure,
 * and a name with characters JSON escapes. */
static int setup(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;
        struct gpu_spec *g;

        memset(&t, 0, sizeof(t));
        t.n_gpus = 4;
        t.gpus = calloc(4, sizeof(*t.gpus));
        t.gpu_infos = calloc(4, sizeof(*t.gpu_infos));
        g = fixture_gpu(&t, 0, "a10", 25769803776u); /* 24 GiB */
        strcpy(g->name, "NVIDIA A10 24GB");
        g = fixture_gpu(&t, 1, "h100-sxm-80gb", 85899345920u); /* 80 GiB */
        g->usable_memory_bytes = 85000000000u;
        fixture_gpu(&t, 2, "npu", 0);
        g = fixture_gpu(&t, 3, "odd", 1073741824u);
        strcpy(g->name, "Q\"uote\\d\tname \xc3\xa9");
        for (size_t i = 0; i < 4; i++) {
                t.gpus[i].flops[GPU_FP32] = 20e12;
                t.gpus[i].flops[GPU_BF16] = 300e12;
                t.gpus[i].memory_bandwidth_bytes_per_s = 1e12;
                t.gpus[i].can_train = true;
                t.gpus[i].cuda = true;
        }
        fixture_install(c, &t, 1);
        *state = c;
        return 0;
}

static void expect_head(const struct api_fit_heads *t, const struct gpu_spec *gpus, size_t i,
                        uint64_t memory_bytes, const char *expected)
{
        size_t len = 0;
        const char *head = api_fit_heads_get(t, gpus, i, memory_bytes, &len);

        assert_non_null(head);
        assert_int_equal(len, strlen(expected));
        assert_memory_equal(head, expected, len);
}

/* The heads as the contract spells them. */
static void test_heads(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        size_t n = 0;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        const struct api_fit_heads *t = api_fit_heads_table(s);
        size_t len = 0;

        assert_int_equal(n, 4);
        assert_non_null(t);
        /* The table is built once per snapshot and kept with it. */
        assert_ptr_equal(t, api_fit_heads_table(s));
        expect_head(t, gpus, 0, 25769803776u,
                    "{\"gpu\":\"a10\",\"name\":\"NVIDIA A10 24GB\",\"memory_bytes\":25769803776");
        /* The usable figure is the one the engine's fit table reports. */
        expect_head(t, gpus, 1, 85000000000u,
                    "{\"gpu\":\"h100-sxm-80gb\",\"name\":\"h100-sxm-80gb\","
                    "\"memory_bytes\":85000000000");
        expect_head(t, gpus, 2, 0, "{\"gpu\":\"npu\",\"name\":\"npu\",\"memory_bytes\":null");
        /* '"' and '\' escaped with a backslash, TAB as \t, UTF-8 as it is
         * (RFC 8259 section 7). */
        expect_head(t, gpus, 3, 1073741824u,
                    "{\"gpu\":\"odd\",\"name\":\"Q\\\"uote\\\\d\\tname \xc3\xa9\","
                    "\"memory_bytes\":1073741824");

        /* Nothing for another memory figure, another GPU array or a GPU
         * past the table: the encoder writes those rows itself. */
        assert_null(api_fit_heads_get(t, gpus, 1, 85899345920u, &len));
        assert_null(api_fit_heads_get(t, gpus + 1, 0, 85000000000u, &len));
        assert_null(api_fit_heads_get(t, gpus, 4, 0, &len));
        assert_null(api_fit_heads_get(NULL, gpus, 0, 25769803776u, &len));
        assert_null(api_fit_heads_table(NULL));
        catalog_release(s);
}

/* An estimate answer over the snapshot's GPUs: the same bytes with the
 * heads copied from the table as written row by row. */
static void test_answer_same_bytes(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        size_t n = 0, len_with = 0, len_without = 0;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        static struct estimate_result r;
        struct estimate_input in;
        struct estimate_error e;

        fixture_decoder_1b(&in);
        in.gpu_index = 0;
        assert_int_equal(estimate_run(&in, gpus, n, &r, &e), 0);
        assert_int_equal(r.n_fits, 4);
        char *with = estimate_encode_render_with(&in, &r, gpus, n, NULL, api_fit_heads_table(s),
                                                 &len_with);
        char *without = estimate_encode_render_with(&in, &r, gpus, n, NULL, NULL, &len_without);
        assert_non_null(with);
        assert_non_null(without);
        assert_int_equal(len_with, len_without);
        assert_string_equal(with, without);
        /* The row whose name needs escaping is in the answer. */
        assert_non_null(strstr(with, "{\"gpu\":\"odd\",\"name\":\"Q\\\"uote\\\\d\\tname"));
        free(with);
        free(without);
        catalog_release(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_heads),
                cmocka_unit_test(test_answer_same_bytes),
        };
        return cmocka_run_group_tests(tests, setup, fixture_catalog_teardown);
}
