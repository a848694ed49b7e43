/*
 * api_fixture.h - a small catalog installed in an app, and a fake transport,
 * for the unit tests that call catalog handlers without a socket or a
 * database (test_admin.c, test_gpus.c, test_catalog_render.c,
 * test_api_rent_vs_buy.c).
 *
 * Catalog: six GPUs (a100-80 80 GiB 300 W; h100-pcie-80gb 350 W and
 * h100-sxm-80gb 700 W, memory unknown; mi300x 192 GiB 750 W; npu-x 16 GiB,
 * no TDP, cannot train; rtx-3090 24 GiB 350 W), one provider "cloud" with
 * three on-demand offerings (1x a100-80 at 1.50/h, 1x h100-sxm at 3.00/h,
 * 8x a100-80 at 16.00/h), purchase prices for a100-80 (10 800 USD) and
 * h100-pcie-80gb (25 200 USD), and the settings PUE 1.25, 0.20 USD/kWh,
 * utilisation 0.8, 3-year life and a 36 500-day price age limit.  The
 * admin token is "correct-horse-battery-staple".
 *
 * Include after cmocka.h.  fixture_setup()/fixture_teardown() are the
 * group's setup and teardown; *state is a struct fixture_env.
 */
#ifndef GPUPLAN_TESTS_API_FIXTURE_H
#define GPUPLAN_TESTS_API_FIXTURE_H

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "api/handler.h"
#include "app.h"
#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "config.h"

#include "catalog_fixtures.h"

#define GiB (1024.0 * 1024 * 1024)

/* ---- a fake transport ---------------------------------------------------- */

struct fake {
        const char *query[8][2];
        const char *header[8][2];
};

static inline const char *fake_query(const struct api_request *rq, const char *key)
{
        const struct fake *f = rq->transport;

        for (int i = 0; i < 8 && f->query[i][0]; i++)
                if (strcmp(f->query[i][0], key) == 0)
                        return f->query[i][1];
        return NULL;
}

static inline const char *fake_header(const struct api_request *rq, const char *name)
{
        const struct fake *f = rq->transport;

        for (int i = 0; i < 8 && f->header[i][0]; i++)
                if (strcasecmp(f->header[i][0], name) == 0)
                        return f->header[i][1];
        return NULL;
}

struct fixture_env {
        struct config cfg;
        struct app app;
};

static inline int fixture_setup(void **state)
{
        struct fixture_env *e = calloc(1, sizeof(*e));
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
        t.n_prices = 3;
        t.prices = calloc(3, sizeof(*t.prices));
        fixture_offering(&t, 0, "cloud-1x-a100", "cloud", "a100-80", 1, 1.5);
        fixture_offering(&t, 1, "cloud-1x-h100-sxm", "cloud", "h100-sxm-80gb", 1, 3.0);
        fixture_offering(&t, 2, "cloud-8x-a100", "cloud", "a100-80", 8, 16.0);
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

static inline int fixture_teardown(void **state)
{
        struct fixture_env *e = *state;

        catalog_free(e->app.catalog);
        free(e->cfg.admin_token);
        free(e);
        return 0;
}

static inline struct api_request request(struct fixture_env *e, struct fake *f, const char *body)
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

static inline json_t *reply_json(const struct api_response *rs)
{
        json_t *doc = json_loadb(rs->body, rs->body_len, 0, NULL);

        assert_non_null(doc);
        return doc;
}

static inline void reset(struct api_response *rs)
{
        free(rs->body);
        memset(rs, 0, sizeof(*rs));
}

#endif
