/*
 * test_catalog_api.c - the catalog handlers without a socket or database:
 * admin authorisation, ETag / If-None-Match, GPU filters, and the
 * rent-vs-buy arithmetic checked against hand calculations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "api/catalog_api.h"
#include "api/catalog_json.h"
#include "api/admin.h"
#include "api/catalog_common.h"
#include "api/catalog_render.h"
#include "api/price_options.h"
#include "app.h"
#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "config.h"

#define GiB (1024.0 * 1024 * 1024)

/* ---- a fake transport ---------------------------------------------------- */

struct fake {
        const char *query[8][2];
        const char *header[8][2];
};

static const char *fake_query(const struct api_request *rq, const char *key)
{
        const struct fake *f = rq->transport;

        for (int i = 0; i < 8 && f->query[i][0]; i++)
                if (strcmp(f->query[i][0], key) == 0)
                        return f->query[i][1];
        return NULL;
}

static const char *fake_header(const struct api_request *rq, const char *name)
{
        const struct fake *f = rq->transport;

        for (int i = 0; i < 8 && f->header[i][0]; i++)
                if (strcasecmp(f->header[i][0], name) == 0)
                        return f->header[i][1];
        return NULL;
}

struct env {
        struct config cfg;
        struct app app;
};

static const char *dup(struct catalog_tables *t, const char *s)
{
        return catalog_tables_strndup(t, s, strlen(s));
}

static int setup(void **state)
{
        struct env *e = calloc(1, sizeof(*e));
        struct catalog_tables t;
        static const struct {
                const char *id, *vendor;
                double mem_gib, tdp;
                bool train;
        } g[] = {
                {"a100-80", "NVIDIA", 80, 300, true},
                /* Two H100 variants of unknown memory (kept out of the memory filters):
                 * only the SXM one is rented, only the PCIe one has a purchase price. */
                {"h100-pcie-80gb", "NVIDIA", 0, 350, true},
                {"h100-sxm-80gb", "NVIDIA", 0, 700, true},
                {"mi300x", "AMD", 192, 750, true},
                {"npu-x", "Acme", 16, 0, false},
                {"rtx-3090", "NVIDIA", 24, 350, true},
        };

        e->cfg.admin_token = strdup("correct-horse-battery-staple");
        e->app.config = &e->cfg;
        e->app.catalog = catalog_new();
        memset(&t, 0, sizeof(t));
        t.n_gpus = 6;
        t.gpus = calloc(6, sizeof(*t.gpus));
        t.gpu_infos = calloc(6, sizeof(*t.gpu_infos));
        for (size_t i = 0; i < 6; i++) {
                strcpy(t.gpus[i].id, g[i].id);
                strcpy(t.gpus[i].name, g[i].id);
                strcpy(t.gpus[i].vendor, g[i].vendor);
                strcpy(t.gpus[i].kind, "gpu");
                t.gpus[i].memory_bytes = (uint64_t)(g[i].mem_gib * GiB);
                t.gpus[i].tdp_watts = g[i].tdp;
                t.gpus[i].can_train = g[i].train;
                t.gpu_infos[i] =
                        (struct catalog_gpu_info){.form_factor = dup(&t, "card"),
                                                  .chips_per_board = 1,
                                                  .interconnect_kind = dup(&t, "pcie"),
                                                  .can_infer = true,
                                                  .source = dup(&t, "https://example.org"),
                                                  .source_date = dup(&t, "2026-01-01"),
                                                  .updated_at = dup(&t, "2026-01-01T00:00:00Z"),
                                                  .updated_by = dup(&t, "test")};
        }
        t.n_providers = 1;
        t.providers = calloc(1, sizeof(*t.providers));
        t.providers[0] = (struct catalog_provider){.id = dup(&t, "cloud"),
                                                   .name = dup(&t, "Cloud"),
                                                   .kind = dup(&t, "gpu_cloud"),
                                                   .source = dup(&t, "https://example.org"),
                                                   .source_date = dup(&t, "2026-01-01")};
        t.n_offerings = 3;
        t.offerings = calloc(3, sizeof(*t.offerings));
        t.offerings[0] = (struct catalog_offering){.id = dup(&t, "cloud-1x-a100"),
                                                   .provider_id = dup(&t, "cloud"),
                                                   .accelerator_id = dup(&t, "a100-80"),
                                                   .instance_type = dup(&t, "1x"),
                                                   .region = dup(&t, "r"),
                                                   .gpus_per_instance = 1};
        t.offerings[1] = (struct catalog_offering){.id = dup(&t, "cloud-1x-h100-sxm"),
                                                   .provider_id = dup(&t, "cloud"),
                                                   .accelerator_id = dup(&t, "h100-sxm-80gb"),
                                                   .instance_type = dup(&t, "1x-h100"),
                                                   .region = dup(&t, "r"),
                                                   .gpus_per_instance = 1};
        t.offerings[2] = (struct catalog_offering){.id = dup(&t, "cloud-8x-a100"),
                                                   .provider_id = dup(&t, "cloud"),
                                                   .accelerator_id = dup(&t, "a100-80"),
                                                   .instance_type = dup(&t, "8x"),
                                                   .region = dup(&t, "r"),
                                                   .gpus_per_instance = 8};
        t.n_prices = 3;
        t.prices = calloc(3, sizeof(*t.prices));
        t.prices[0] = (struct catalog_price){.id = 1,
                                             .offering_id = dup(&t, "cloud-1x-a100"),
                                             .pricing = CATALOG_ON_DEMAND,
                                             .usd_per_hour = 1.5,
                                             .as_of = dup(&t, "2026-01-01"),
                                             .source = dup(&t, "s")};
        t.prices[1] = (struct catalog_price){.id = 3,
                                             .offering_id = dup(&t, "cloud-1x-h100-sxm"),
                                             .pricing = CATALOG_ON_DEMAND,
                                             .usd_per_hour = 3.0,
                                             .as_of = dup(&t, "2026-01-01"),
                                             .source = dup(&t, "s")};
        t.prices[2] = (struct catalog_price){.id = 2,
                                             .offering_id = dup(&t, "cloud-8x-a100"),
                                             .pricing = CATALOG_ON_DEMAND,
                                             .usd_per_hour = 16.0,
                                             .as_of = dup(&t, "2026-01-01"),
                                             .source = dup(&t, "s")};
        t.n_purchase_prices = 2;
        t.purchase_prices = calloc(2, sizeof(*t.purchase_prices));
        t.purchase_prices[1] =
                (struct catalog_purchase_price){.id = 2,
                                                .accelerator_id = dup(&t, "h100-pcie-80gb"),
                                                .condition = dup(&t, "new"),
                                                .usd = 25200,
                                                .as_of = dup(&t, "2026-01-01"),
                                                .source = dup(&t, "s")};
        t.purchase_prices[0] = (struct catalog_purchase_price){.id = 1,
                                                               .accelerator_id = dup(&t, "a100-80"),
                                                               .condition = dup(&t, "new"),
                                                               .usd = 10800,
                                                               .as_of = dup(&t, "2026-01-01"),
                                                               .source = dup(&t, "s")};
        /* Sorted by key, as the loader returns them.  A PUE of 1.25 stands for the
         * wall-to-board ratio; quotes of any age are ranked here (36 500 days), so
         * that these answers do not depend on the day the test runs. */
        t.n_settings = 5;
        t.settings = calloc(5, sizeof(*t.settings));
        t.settings[0] = (struct catalog_setting){.key = dup(&t, "datacenter_pue"),
                                                 .value = 1.25,
                                                 .unit = dup(&t, "x"),
                                                 .source = dup(&t, "s")};
        t.settings[1] = (struct catalog_setting){.key = dup(&t, "electricity_usd_per_kwh"),
                                                 .value = 0.20,
                                                 .unit = dup(&t, "USD/kWh"),
                                                 .source = dup(&t, "s")};
        t.settings[2] = (struct catalog_setting){.key = dup(&t, "owned_utilisation"),
                                                 .value = 0.8,
                                                 .unit = dup(&t, "x"),
                                                 .source = dup(&t, "s")};
        t.settings[3] = (struct catalog_setting){.key = dup(&t, "ownership_life_years"),
                                                 .value = 3,
                                                 .unit = dup(&t, "years"),
                                                 .source = dup(&t, "s")};
        t.settings[4] = (struct catalog_setting){.key = dup(&t, "price_max_age_days"),
                                                 .value = 36500,
                                                 .unit = dup(&t, "days"),
                                                 .source = dup(&t, "s")};
        t.content_hash[0] = 42;
        assert_int_equal(catalog_tables_link(&t, (char[64]){0}, 64), 0);
        assert_int_equal(catalog_install(e->app.catalog, &t), 0);
        *state = e;
        return 0;
}

static int teardown(void **state)
{
        struct env *e = *state;

        catalog_free(e->app.catalog);
        free(e->cfg.admin_token);
        free(e);
        return 0;
}

static struct api_request request(struct env *e, struct fake *f, const char *body)
{
        struct api_request rq = {.method = "GET",
                                 .path = "/",
                                 .app = &e->app,
                                 .query = fake_query,
                                 .header = fake_header,
                                 .transport = f,
                                 .request_id = "t"};

        rq.body = body;
        rq.body_len = body ? strlen(body) : 0;
        return rq;
}

static json_t *reply_json(const struct api_response *rs)
{
        json_t *doc = json_loadb(rs->body, rs->body_len, 0, NULL);

        assert_non_null(doc);
        return doc;
}

static void reset(struct api_response *rs)
{
        free(rs->body);
        memset(rs, 0, sizeof(*rs));
}

/* ---- admin --------------------------------------------------------------- */

static void test_admin_check(void **state)
{
        struct env *e = *state;
        struct api_response rs = {0};
        struct fake none = {.query = {{NULL, NULL}}},
                    wrong = {.header = {{"Authorization", "Bearer correct-horse-battery-stapl"}}},
                    longer = {.header = {{"Authorization",
                                          "Bearer correct-horse-battery-staple!"}}},
                    basic = {.header = {{"Authorization", "Basic Y29ycmVjdA=="}}},
                    right = {.header = {{"authorization", "bearer correct-horse-battery-staple"}}};
        struct api_request rq;

        rq = request(e, &none, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 401);
        assert_string_equal(rs.headers[0].name, "WWW-Authenticate");
        reset(&rs);
        rq = request(e, &basic, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 401);
        reset(&rs);
        /* One character short and one too many: both wrong, 403. */
        rq = request(e, &wrong, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 403);
        reset(&rs);
        rq = request(e, &longer, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 403);
        reset(&rs);
        /* The scheme is case-insensitive (RFC 9110 section 11.1). */
        rq = request(e, &right, NULL);
        assert_int_equal(admin_check(&rq, &rs), 0);
        assert_int_equal(rs.status, 0);

        /* No token configured: writes are off for everyone. */
        free(e->cfg.admin_token);
        e->cfg.admin_token = NULL;
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 403);
        assert_non_null(strstr(rs.body, "GPUPLAN_ADMIN_TOKEN"));
        reset(&rs);
        e->cfg.admin_token = strdup("correct-horse-battery-staple");
}

/* ---- reads --------------------------------------------------------------- */

static void test_gpu_filters_and_etag(void **state)
{
        struct env *e = *state;
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

/* ---- reads served from the snapshot's rendering ------------------------- */

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

static void get(struct env *e, void (*handler)(const struct api_request *, struct api_response *),
                struct fake *f, const char *param, struct api_response *rs)
{
        struct api_request rq = request(e, f, NULL);

        rq.params[0] = param;
        rq.n_params = param ? 1 : 0;
        handler(&rq, rs);
}

static void test_rendered_reads_match_live(void **state)
{
        struct env *e = *state;
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
        assert_body_is(&rs, json_pack("{s:[o]}", "providers",
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
        get(e, api_purchase_prices_list, &none, NULL, &rs);
        assert_body_is(&rs, json_pack("{s:[o, o]}", "purchase_prices",
                                      catalog_json_purchase_price(s, &pp[0]),
                                      catalog_json_purchase_price(s, &pp[1])));
        reset(&rs);
        get(e, api_purchase_prices_list, &used, NULL, &rs);
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

/* ---- rent vs buy --------------------------------------------------------- */

static double member(json_t *o, const char *a, const char *b)
{
        json_t *v = json_object_get(o, a);

        if (b)
                v = json_object_get(v, b);
        assert_true(json_is_number(v));
        return json_number_value(v);
}

static void test_rent_vs_buy_arithmetic(void **state)
{
        struct env *e = *state;
        struct api_response rs = {0};
        struct fake f = {.query = {{NULL, NULL}}};
        struct api_request rq = request(
                e, &f,
                "{\"gpu\": \"a100-80\", \"jobs_per_week\": [2, 3], \"hours_per_job\": [4, 6]}");
        json_t *doc, *rent, *one = NULL, *eight = NULL;
        double hours_low, fixed, energy;

        api_rent_vs_buy(&rq, &rs);
        assert_int_equal(rs.status, 200);
        doc = reply_json(&rs);
        /* No hours_per_month setting: 730 h = 8760 / 12; 2 x 4 x 730 / 168 = 34.7619 h. */
        hours_low = 2.0 * 4 * 730 / 168;
        assert_true(fabs(member(json_object_get(doc, "usage"), "hours_per_month", "low") -
                         hours_low) < 1e-9);
        /* Owning: 10800 / (3 x 12) = 300 USD a month; power 300 W x 0.8 x 1.25 = 300 W
         * = 0.3 kW x 0.20 USD/kWh = 0.06 USD per hour used. */
        fixed = 10800.0 / 36;
        energy = 0.06;
        assert_true(fabs(member(doc, "buy", "amortised_monthly_usd") - fixed) < 1e-9);
        assert_true(fabs(member(doc, "buy", "energy_usd_per_hour") - energy) < 1e-12);
        rent = json_object_get(doc, "rent");
        assert_int_equal(json_array_size(rent), 2);
        for (size_t i = 0; i < 2; i++) {
                json_t *r = json_array_get(rent, i);

                if (strcmp(json_string_value(json_object_get(r, "offering")), "cloud-1x-a100") == 0)
                        one = r;
                else
                        eight = r;
        }
        /* 1 GPU on a 1-GPU instance at 1.50/h: 1.5 x 34.76 = 52.14 USD; break-even
         * 300 / (1.50 - 0.06) = 208.33 h a month. */
        assert_true(fabs(member(one, "monthly_usd", "low") - 1.5 * hours_low) < 1e-9);
        assert_true(fabs(member(one, "break_even_hours_per_month", NULL) - 300 / 1.44) < 1e-9);
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(one, "cheaper"), "low")), "rent");
        /* The same GPU from an 8-GPU instance: the job pays the whole 16.00/h instance,
         * set like for like against owning 8: 8 x 300 = 2 400 USD a month and 8 x 0.06 =
         * 0.48 USD/h; break-even 2 400 / (16.00 - 0.48) = 154.64 h a month. */
        assert_true(fabs(member(eight, "usd_per_hour", NULL) - 16.0) < 1e-12);
        assert_true(fabs(member(eight, "break_even_hours_per_month", NULL) - 2400 / 15.52) < 1e-9);
        assert_true(fabs(member(json_object_get(eight, "own"), "gpus", NULL) - 8) < 1e-12);
        json_decref(doc);
        reset(&rs);

        rq = request(e, &f, "{\"gpu\": \"a100-80\", \"jobs_per_week\": 10, \"hours_per_job\": 20}");
        api_rent_vs_buy(&rq, &rs);
        assert_int_equal(rs.status, 400); /* 200 hours do not fit in a 168-hour week */
        reset(&rs);
        rq = request(e, &f, "{\"gpu\": \"rtx-3090\", \"jobs_per_week\": 1, \"hours_per_job\": 2}");
        api_rent_vs_buy(&rq, &rs);
        assert_int_equal(rs.status, 422); /* no purchase price in this catalog */
        reset(&rs);
}

/*
 * No offering rents the H100 PCIe: the rent side lists the H100 SXM offering,
 * labelled as the same family.  Owning the PCIe card: 25 200 / (3 x 12) =
 * 700 USD a month; 350 W x 0.8 x 1.25 = 350 W = 0.35 kW x 0.20 USD/kWh =
 * 0.07 USD per hour used; break-even against 3.00/h: 700 / (3.00 - 0.07) =
 * 238.91 hours a month.
 */
/*
 * GPUPLAN_TODAY states the day ages are reckoned from.  Day numbers counted
 * by hand from 1970-01-01: 2000-03-01 is 30 years (7 of them leap: 1972 ...
 * 1996) = 30*365 + 7 = 10957 days to 2000-01-01, plus 31 + 29 = 11017;
 * 2026-11-27: 56 years with 14 leap days (1972 ... 2024) = 20454 to
 * 2026-01-01, plus 330 days (Jan..Oct = 304, Nov 1..27 = 26) = 20784.
 */
static void test_price_today_setting(void **state)
{
        (void)state;
        long real = (long)(time(NULL) / 86400);

        assert_int_equal(setenv("GPUPLAN_TODAY", "2026-11-27", 1), 0);
        assert_int_equal(api_price_today(), 20784);
        assert_int_equal(setenv("GPUPLAN_TODAY", "2000-03-01", 1), 0);
        assert_int_equal(api_price_today(), 11017);
        /* Malformed: the real date. */
        assert_int_equal(setenv("GPUPLAN_TODAY", "2026-13-01", 1), 0);
        assert_true(api_price_today() - real <= 1 && api_price_today() >= real);
        assert_int_equal(setenv("GPUPLAN_TODAY", "2026-11-27x", 1), 0);
        assert_true(api_price_today() >= real);
        assert_int_equal(unsetenv("GPUPLAN_TODAY"), 0);
        assert_true(api_price_today() - real <= 1 && api_price_today() >= real);
}

static void test_rent_vs_buy_family(void **state)
{
        struct env *e = *state;
        struct api_response rs = {0};
        struct fake f = {.query = {{NULL, NULL}}};
        struct api_request rq = request(e, &f,
                                        "{\"gpu\": \"h100-pcie-80gb\", \"jobs_per_week\": [2, 3], "
                                        "\"hours_per_job\": [4, 6]}");
        json_t *doc, *row;

        api_rent_vs_buy(&rq, &rs);
        assert_int_equal(rs.status, 200);
        doc = reply_json(&rs);
        assert_true(fabs(member(doc, "buy", "amortised_monthly_usd") - 700) < 1e-9);
        assert_int_equal(json_array_size(json_object_get(doc, "rent")), 1);
        row = json_array_get(json_object_get(doc, "rent"), 0);
        assert_string_equal(json_string_value(json_object_get(row, "gpu")), "h100-sxm-80gb");
        assert_string_equal(json_string_value(json_object_get(row, "match")), "family");
        assert_true(fabs(member(row, "monthly_usd", "low") - 3.0 * 2 * 4 * 730 / 168) < 1e-9);
        assert_true(fabs(member(row, "break_even_hours_per_month", NULL) - 700 / 2.93) < 1e-9);
        json_decref(doc);
        reset(&rs);

        /* The exact variant, when rented, is all that is listed. */
        rq = request(e, &f,
                     "{\"gpu\": \"h100-sxm-80gb\", \"buy_gpu\": \"h100-pcie-80gb\","
                     " \"jobs_per_week\": 2, \"hours_per_job\": 4}");
        api_rent_vs_buy(&rq, &rs);
        assert_int_equal(rs.status, 200);
        doc = reply_json(&rs);
        row = json_array_get(json_object_get(doc, "rent"), 0);
        assert_string_equal(json_string_value(json_object_get(row, "match")), "exact");
        json_decref(doc);
        reset(&rs);

        /* Buying the unpriced SXM part: 422 naming the priced member of its family. */
        rq = request(e, &f,
                     "{\"gpu\": \"h100-sxm-80gb\", \"jobs_per_week\": 2, \"hours_per_job\": 4}");
        api_rent_vs_buy(&rq, &rs);
        assert_int_equal(rs.status, 422);
        assert_non_null(strstr(rs.body, "h100-pcie-80gb"));
        reset(&rs);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_admin_check),
                cmocka_unit_test(test_gpu_filters_and_etag),
                cmocka_unit_test(test_rendered_reads_match_live),
                cmocka_unit_test(test_rent_vs_buy_arithmetic),
                cmocka_unit_test(test_rent_vs_buy_family),
                cmocka_unit_test(test_price_today_setting),
        };

        return cmocka_run_group_tests_name("catalog_api", tests, setup, teardown);
}
