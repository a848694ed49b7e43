/*
 * test_catalog_render.c - the catalog reads served from the snapshot's
 * rendering (api/catalog_render.c): each list and item body is byte for
 * byte what the live encoders (api/catalog_json.c) give for the same rows,
 * and a matching If-None-Match still gets a 304 with no body.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/catalog_render.h"

#include "api_fixture.h"

/* The reply body is byte for byte the live encoding of doc (reference stolen). */
static void assert_body_is(const struct api_response *rs, json_t *doc)
{
        struct api_response want = {0};

        api_reply_json(&want, 200, doc);
        assert_int_equal(want.status, 200);
        assert_int_equal(rs->status, 200);
        assert_string_equal(rs->content_type, "application/json");
        assert_int_equal(rs->body_len, want.body_len);
        assert_memory_equal(rs->body, want.body, want.body_len);
        free(want.body);
}

static json_t *gpu_list_doc(const struct catalog_snapshot *s, const size_t *idx, size_t n)
{
        json_t *arr = json_array();

        for (size_t i = 0; i < n; i++)
                json_array_append_new(arr, catalog_json_gpu(s, idx[i], false));
        return json_pack("{s:o, s:I, s:s}", "gpus", arr, "count", (json_int_t)n,
                         "catalog_loaded_at", catalog_loaded_at(s));
}

static void get(struct fixture_env *e,
                void (*handler)(const struct api_request *, struct api_response *), struct fake *f,
                const char *param, struct api_response *rs)
{
        struct api_request rq = request(e, f, NULL);

        rq.params[0] = param;
        rq.n_params = param ? 1 : 0;
        handler(&rq, rs);
}

static void test_rendered_reads_match_live(void **state)
{
        struct fixture_env *e = *state;
        const struct catalog_snapshot *s = catalog_acquire(e->app.catalog);
        const struct api_catalog_render *r = api_catalog_render(s);
        struct api_response rs = {0};
        struct fake none = {.query = {{NULL, NULL}}},
                    nvidia = {.query = {{"vendor", "nvidia"}, {"sort", "-tdp"}}},
                    a100 = {.query = {{"gpu", "a100-80"}}},
                    used = {.query = {{"condition", "used"}}},
                    notebook = {.query = {{"kind", "notebook"}}};
        size_t n, all[6] = {0, 1, 2, 3, 4, 5};
        /* NVIDIA by TDP, highest first, ties in catalog order: h100-sxm 700 W,
         * h100-pcie 350 W, rtx-3090 350 W, a100-80 300 W. */
        size_t by_tdp[4] = {2, 1, 5, 0};
        const struct catalog_price *prices = catalog_prices(s, &n);
        const struct catalog_purchase_price *pp = catalog_purchase_prices(s, &n);
        json_t *arr;

        /* Rendered once per snapshot and kept with it. */
        assert_non_null(r);
        assert_ptr_equal(api_catalog_render(s), r);

        get(e, api_gpus_list, &none, NULL, &rs);
        assert_body_is(&rs, gpu_list_doc(s, all, 6));
        reset(&rs);
        get(e, api_gpus_list, &nvidia, NULL, &rs);
        assert_body_is(&rs, gpu_list_doc(s, by_tdp, 4));
        reset(&rs);
        get(e, api_gpus_get, &none, "h100-sxm-80gb", &rs);
        assert_body_is(&rs, catalog_json_gpu(s, 2, true));
        reset(&rs);

        get(e, api_providers_list, &none, NULL, &rs);
        assert_body_is(&rs,
                       json_pack("{s:[o]}", "providers",
                                 catalog_json_provider(s, catalog_provider(s, "cloud"), true)));
        reset(&rs);
        get(e, api_providers_list, &notebook, NULL, &rs);
        assert_body_is(&rs, json_pack("{s:[]}", "providers"));
        reset(&rs);
        get(e, api_providers_get, &none, "cloud", &rs);
        assert_body_is(&rs, catalog_json_provider(s, catalog_provider(s, "cloud"), true));
        reset(&rs);

        /* Prices of a100-80: its two offerings, rows 0 and 2 in offering id order. */
        get(e, api_prices_list, &a100, NULL, &rs);
        assert_body_is(&rs, json_pack("{s:[o, o]}", "prices", catalog_json_price(s, &prices[0]),
                                      catalog_json_price(s, &prices[2])));
        reset(&rs);
        get(e, api_prices_purchase_list, &none, NULL, &rs);
        assert_body_is(&rs, json_pack("{s:[o, o]}", "purchase_prices",
                                      catalog_json_purchase_price(s, &pp[0]),
                                      catalog_json_purchase_price(s, &pp[1])));
        reset(&rs);
        get(e, api_prices_purchase_list, &used, NULL, &rs);
        assert_body_is(&rs, json_pack("{s:[]}", "purchase_prices"));
        reset(&rs);

        arr = json_array();
        for (size_t i = 0; i < 4; i++)
                json_array_append_new(arr, catalog_json_setting(&catalog_settings(s, &n)[i]));
        get(e, api_settings_list, &none, NULL, &rs);
        assert_body_is(&rs, json_pack("{s:o}", "settings", arr));
        reset(&rs);

        /* The validator still answers 304 before any body is copied. */
        {
                struct fake cached = {.header = {{"If-None-Match", catalog_etag(s)}}};

                get(e, api_prices_list, &cached, NULL, &rs);
                assert_int_equal(rs.status, 304);
                assert_null(rs.body);
                reset(&rs);
        }
        catalog_release(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rendered_reads_match_live),
        };

        return cmocka_run_group_tests_name("catalog_render", tests, fixture_setup,
                                           fixture_teardown);
}
