/*
 * test_rent_vs_buy.c - renting against owning (server/plan/rent_vs_buy.c)
 * on a small hand-made catalog, every expected figure worked out by hand
 * in the comments.
 *
 * Catalog (bytewise id order, as the loader sorts):
 *   a100-pcie-40gb  rented by nobody (the family fallback)
 *   a100-sxm-40gb   TDP 400 W; purchase 10 000 USD new, 6 000 USD used
 *   k80             TDP 150 W, two chips per board (the K80 datasheet)
 *   rtx-3090        TDP 350 W, no purchase price
 * Offerings of the a100-sxm-40gb:
 *   alpha-1x-a100   1 GPU per instance, 2.00 USD/h
 *   beta-8x-a100    8 GPUs per instance, 12.00 USD/h (1.50 USD per GPU-hour)
 *   gamma-1x-a100   1 GPU per instance, 0.05 USD/h (cheaper than its power)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "plan/rent_vs_buy.h"

#include "catalog_fixtures.h"

static void gpu(struct catalog_tables *t, size_t i, const char *id, double tdp_watts, int chips)
{
        struct gpu_spec *g = fixture_gpu(t, i, id, 40000000000);

        g->tdp_watts = tdp_watts;
        g->can_train = true;
        t->gpu_infos[i].chips_per_board = chips;
}

static void purchase(struct catalog_tables *t, size_t i, const char *gpu_id, const char *condition,
                     double usd)
{
        t->purchase_prices[i] =
                (struct catalog_purchase_price){.id = (int64_t)i + 1,
                                                .accelerator_id = dup(t, gpu_id),
                                                .condition = dup(t, condition),
                                                .usd = usd,
                                                .as_of = dup(t, "2026-01-01"),
                                                .source = dup(t, "https://example.org/buy")};
}

static int setup(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;

        memset(&t, 0, sizeof(t));
        t.n_gpus = 4;
        t.gpus = calloc(4, sizeof(*t.gpus));
        t.gpu_infos = calloc(4, sizeof(*t.gpu_infos));
        gpu(&t, 0, "a100-pcie-40gb", 250, 1);
        gpu(&t, 1, "a100-sxm-40gb", 400, 1);
        gpu(&t, 2, "k80", 150, 2);
        gpu(&t, 3, "rtx-3090", 350, 1);
        t.n_providers = 3;
        t.providers = calloc(3, sizeof(*t.providers));
        fixture_provider(&t, 0, "alpha", "gpu_cloud");
        fixture_provider(&t, 1, "beta", "gpu_cloud");
        fixture_provider(&t, 2, "gamma", "gpu_cloud");
        t.n_offerings = t.n_prices = 3;
        t.offerings = calloc(3, sizeof(*t.offerings));
        t.prices = calloc(3, sizeof(*t.prices));
        fixture_offering(&t, 0, "alpha-1x-a100", "alpha", "a100-sxm-40gb", 1, 2.0);
        fixture_offering(&t, 1, "beta-8x-a100", "beta", "a100-sxm-40gb", 8, 12.0);
        fixture_offering(&t, 2, "gamma-1x-a100", "gamma", "a100-sxm-40gb", 1, 0.05);
        t.n_purchase_prices = 2;
        t.purchase_prices = calloc(2, sizeof(*t.purchase_prices));
        purchase(&t, 0, "a100-sxm-40gb", "new", 10000);
        purchase(&t, 1, "a100-sxm-40gb", "used", 6000);
        fixture_install(c, &t, 1);
        *state = c;
        return 0;
}

/*
 * The exercise of the "Hardware for ML Practitioners" guide on this catalog: one A100 SXM4 40GB, 2-3 jobs a
 * week of 4-6 hours, 730 hours a month, bought new at 10 000 USD and
 * written off over 3 years, 0.15 USD/kWh, 80% of TDP, 1.3 host overhead.
 */
static void seeds_000(const struct catalog_snapshot *s, struct plan_rvb_input *in)
{
        memset(in, 0, sizeof(*in));
        in->rent_gpu_index = catalog_gpu_index(s, "a100-sxm-40gb");
        in->buy_gpu_index = in->rent_gpu_index;
        in->gpus = 1;
        in->jobs_per_week[0] = 2;
        in->jobs_per_week[1] = 3;
        in->hours_per_job[0] = 4;
        in->hours_per_job[1] = 6;
        in->hours_per_month = PLAN_RVB_DEFAULT_HOURS_PER_MONTH;
        in->pricing = CATALOG_ON_DEMAND;
        in->purchase_usd = 10000;
        in->electricity_usd_per_kwh = 0.15;
        in->life_years = PLAN_RVB_DEFAULT_LIFE_YEARS;
        in->utilisation = PLAN_RVB_DEFAULT_UTILISATION;
        in->pue = 1.3; /* the wall-to-board ratio of the exercise of the "Hardware for ML Practitioners" guide */
}

static const struct plan_rvb_rent *find_rent(const struct catalog_snapshot *s,
                                             const struct plan_rvb_result *r, const char *id)
{
        size_t n;
        const struct catalog_offering *off = catalog_offerings(s, &n);

        for (size_t i = 0; i < r->n_rent; i++)
                if (strcmp(off[r->rent[i].offering_index].id, id) == 0)
                        return &r->rent[i];
        return NULL;
}

static void test_seeds_000_by_hand(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct plan_rvb_input in;
        struct plan_rvb_result r;
        const struct plan_rvb_rent *alpha, *beta, *gamma;

        seeds_000(s, &in);
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);

        /*
         * Usage: jobs x hours x 730 / 168 (weeks in a month = 730 / 168 = 4.345).
         * Low 2 x 4 x 730 / 168 = 5 840 / 168 = 34.7619 h; high 3 x 6 x 730 / 168
         * = 13 140 / 168 = 78.2143 h.
         */
        assert_close(r.hours_per_month[0], 5840.0 / 168);
        assert_close(r.hours_per_month[1], 13140.0 / 168);

        /*
         * Owning: 1 board x 10 000 / (3 x 12) = 277.78 USD a month; at the wall
         * 400 W x 0.8 x 1.3 = 416 W = 0.416 kW x 0.15 USD/kWh = 0.0624 USD/h;
         * low 277.78 + 0.0624 x 34.7619 = 279.947, high 277.78 + 0.0624 x
         * 78.2143 = 282.658 USD a month.
         */
        assert_close(r.boards, 1);
        assert_close(r.amortised_monthly_usd, 10000.0 / 36);
        assert_close(r.power_watts, 416);
        assert_close(r.energy_usd_per_hour, 0.0624);
        assert_close(r.own_monthly_usd[0], 10000.0 / 36 + 0.0624 * 5840.0 / 168);
        assert_close(r.own_monthly_usd[1], 10000.0 / 36 + 0.0624 * 13140.0 / 168);
        assert_true(fabs(r.own_monthly_usd[0] - 279.9469) < 1e-4);
        assert_true(fabs(r.own_monthly_usd[1] - 282.6583) < 1e-4);

        assert_int_equal(r.n_rent, 3);
        /*
         * alpha, 2.00 USD/h: 2.00 x 34.7619 = 69.52 and 2.00 x 78.2143 = 156.43
         * USD a month, both below owning.  Break-even: 277.78 / (2.00 -
         * 0.0624) = 277.78 / 1.9376 = 143.36 hours a month.
         */
        alpha = find_rent(s, &r, "alpha-1x-a100");
        assert_non_null(alpha);
        assert_false(alpha->family);
        assert_close(alpha->instances, 1);
        assert_close(alpha->usd_per_hour, 2.0);
        assert_close(alpha->monthly_usd[0], 2.0 * 5840.0 / 168);
        assert_close(alpha->monthly_usd[1], 2.0 * 13140.0 / 168);
        assert_true(fabs(alpha->break_even_hours_per_month - 143.3618) < 1e-4);
        assert_true(alpha->rent_cheaper[0] && alpha->rent_cheaper[1]);

        /*
         * beta rents 8-GPU instances at 12.00 USD/h: one GPU still pays a
         * whole instance, 12.00 USD/h (1.50 per GPU-hour), 12 x 34.7619 =
         * 417.14 USD a month.  Like for like, that row is set against owning
         * the 8 GPUs it rents: 8 x 10 000 / 36 = 2 222.22 USD a month fixed,
         * 8 x 0.0624 = 0.4992 USD/h of power, 2 222.22 + 0.4992 x 34.7619 =
         * 2 239.5754 USD a month: renting is cheaper at both ends.  Break-even
         * 2 222.22 / (12.00 - 0.4992) = 193.22 hours a month.
         */
        beta = find_rent(s, &r, "beta-8x-a100");
        assert_non_null(beta);
        assert_close(beta->instances, 1);
        assert_close(beta->usd_per_hour, 12.0);
        assert_close(beta->usd_per_gpu_hour, 1.5);
        assert_true(fabs(beta->monthly_usd[0] - 417.1429) < 1e-4);
        assert_int_equal(beta->own.gpus, 8);
        assert_close(beta->own.fixed_monthly_usd, 80000.0 / 36);
        assert_true(fabs(beta->own_monthly_usd[0] - 2239.5754) < 1e-4);
        assert_true(fabs(beta->break_even_hours_per_month - 193.2233) < 1e-4);
        assert_true(beta->rent_cheaper[0] && beta->rent_cheaper[1]);

        /* gamma, 0.05 USD/h, costs less than the 0.0624 USD/h of power: no break-even. */
        gamma = find_rent(s, &r, "gamma-1x-a100");
        assert_non_null(gamma);
        assert_true(gamma->break_even_hours_per_month < 0);
        assert_true(gamma->rent_cheaper[0] && gamma->rent_cheaper[1]);
        plan_rent_vs_buy_result_free(&r);
        catalog_release(s);
}

/*
 * Nine GPUs on beta's 8-GPU instances: ceil(9 / 8) = 2 instances = 24.00
 * USD/h; on alpha's 1-GPU instances 9 x 2.00 = 18.00 USD/h.  Owning nine:
 * 9 boards x 10 000 / 36 = 2 500 USD a month, 9 x 416 W = 3 744 W.
 */
static void test_whole_instances_and_boards(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct plan_rvb_input in;
        struct plan_rvb_result r;

        seeds_000(s, &in);
        in.gpus = 9;
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_close(find_rent(s, &r, "beta-8x-a100")->instances, 2);
        assert_close(find_rent(s, &r, "beta-8x-a100")->usd_per_hour, 24.0);
        assert_close(find_rent(s, &r, "alpha-1x-a100")->usd_per_hour, 18.0);
        assert_close(r.boards, 9);
        assert_close(r.amortised_monthly_usd, 2500);
        assert_close(r.power_watts, 3744);
        plan_rent_vs_buy_result_free(&r);

        /*
         * Three K80 GPUs are two boards (two chips per board): 2 x 500 / 36 =
         * 27.78 USD a month; power counts GPUs: 3 x 150 W x 0.8 x 1.3 = 468 W.
         */
        in.buy_gpu_index = catalog_gpu_index(s, "k80");
        in.gpus = 3;
        in.purchase_usd = 500;
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_close(r.boards, 2);
        assert_close(r.amortised_monthly_usd, 1000.0 / 36);
        assert_close(r.power_watts, 468);
        plan_rent_vs_buy_result_free(&r);
        catalog_release(s);
}

/*
 * Eight rented against eight owned, every part of owning counted.  Eight
 * A100 SXM4 (400 W TDP, 10 000 USD each) in servers at 4 001 USD per GPU
 * slot (chassis, CPUs, memory, networking), 575 W of host per GPU, PUE
 * 1.56, colocation at 184.06 USD per kW-month, 20% resale after 3 years,
 * 0.15 USD/kWh, 80% of TDP while a job runs; 2-3 jobs a week of 4-6 h.
 *
 *   capex      8 x 10 000 + 8 x 4 001 = 112 008 USD
 *   amortised  112 008 x (1 - 0.2) / 36 = 2 489.0667 USD a month
 *   hosting    8 x (400 + 575) W = 7.8 kW x 184.06 = 1 435.668 USD a month
 *   fixed      2 489.0667 + 1 435.668 = 3 924.7347 USD a month
 *   power      8 x (400 x 0.8 + 575) x 1.56 = 8 x 895 x 1.56 = 11 169.6 W
 *   energy     11.1696 kW x 0.15 = 1.67544 USD/h
 *   own        3 924.7347 + 1.67544 x 34.7619 = 3 982.9762 (low),
 *              3 924.7347 + 1.67544 x 78.2143 = 4 055.7780 (high)
 *   rent       beta, one 8-GPU instance at 12.00 USD/h: 417.1429 (low),
 *              938.5714 (high); alpha, eight 1-GPU instances: 16.00 USD/h
 *   break-even beta: 3 924.7347 / (12 - 1.67544) = 380.1358 h a month,
 *              52.07% of a 730-hour month; alpha: 3 924.7347 / (16 -
 *              1.67544) = 273.9864 h.
 */
static void test_eight_rented_vs_eight_owned(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        const struct plan_rvb_rent *alpha, *beta;
        struct plan_rvb_input in;
        struct plan_rvb_result r;

        seeds_000(s, &in);
        in.gpus = 8;
        in.pue = 1.56;
        in.server_usd_per_gpu = 4001;
        in.host_watts_per_gpu = 575;
        in.hosting_usd_per_kw_month = 184.06;
        in.resale_fraction = 0.2;
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        beta = find_rent(s, &r, "beta-8x-a100");
        alpha = find_rent(s, &r, "alpha-1x-a100");
        assert_non_null(beta);
        assert_non_null(alpha);
        assert_int_equal(beta->own.gpus, 8);
        assert_int_equal(alpha->own.gpus, 8);
        assert_close(beta->own.capex_usd, 112008);
        assert_true(fabs(beta->own.amortised_monthly_usd - 2489.0667) < 1e-4);
        assert_true(fabs(beta->own.hosting_monthly_usd - 1435.668) < 1e-6);
        assert_true(fabs(beta->own.power_watts - 11169.6) < 1e-6);
        assert_true(fabs(beta->own.energy_usd_per_hour - 1.67544) < 1e-9);
        assert_true(fabs(beta->own_monthly_usd[0] - 3982.9762) < 1e-4);
        assert_true(fabs(beta->own_monthly_usd[1] - 4055.7780) < 1e-4);
        assert_true(fabs(beta->monthly_usd[1] - 938.5714) < 1e-4);
        assert_true(fabs(beta->break_even_hours_per_month - 380.1358) < 1e-4);
        assert_true(fabs(alpha->usd_per_hour - 16.0) < 1e-12);
        assert_true(fabs(alpha->break_even_hours_per_month - 273.9864) < 1e-4);
        /* The top-level owning figures are for the request's 8 GPUs: the same. */
        assert_true(fabs(r.own_monthly_usd[0] - 3982.9762) < 1e-4);
        /* The series follows the lowest price per GPU-hour: gamma (0.05 USD/h, 8 instances). */
        assert_true(r.series_row < r.n_rent);
        assert_close(r.series_utilisation[PLAN_RVB_SERIES_POINTS - 1], 1.0);
        /* At 100% of 730 hours: rent 8 x 0.05 x 730 = 292 USD; own 3 924.7347 + 1.67544 x 730. */
        assert_true(fabs(r.series_rent_usd[PLAN_RVB_SERIES_POINTS - 1] - 292.0) < 1e-9);
        assert_true(fabs(r.series_own_usd[PLAN_RVB_SERIES_POINTS - 1] - (3924.7347 + 1.67544 * 730)) <
                    1e-3);

        /* Per GPU: beta's 1.50 USD per GPU-hour x 8 = 12.00 USD/h, the same 8 owned. */
        in.basis = PLAN_RVB_PER_GPU;
        plan_rent_vs_buy_result_free(&r);
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_close(find_rent(s, &r, "beta-8x-a100")->usd_per_hour, 12.0);
        assert_close(find_rent(s, &r, "alpha-1x-a100")->usd_per_hour, 16.0);
        plan_rent_vs_buy_result_free(&r);
        catalog_release(s);
}

static void test_family_fallback_and_providers(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        const char *only_beta[] = {"beta"};
        struct plan_rvb_input in;
        struct plan_rvb_result r;

        /* Nobody rents the PCIe 40GB: the three A100 SXM4 offerings answer, as family. */
        seeds_000(s, &in);
        in.rent_gpu_index = catalog_gpu_index(s, "a100-pcie-40gb");
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_string_equal(r.family, "a100");
        assert_int_equal(r.n_rent, 3);
        for (size_t i = 0; i < r.n_rent; i++)
                assert_true(r.rent[i].family);
        plan_rent_vs_buy_result_free(&r);

        /* A provider list keeps its providers only. */
        seeds_000(s, &in);
        in.providers = only_beta;
        in.n_providers = 1;
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_int_equal(r.n_rent, 1);
        assert_non_null(find_rent(s, &r, "beta-8x-a100"));
        plan_rent_vs_buy_result_free(&r);

        /* An empty list (not NULL) lists nobody: nothing to rent, exact or family. */
        in.n_providers = 0;
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_int_equal(r.n_rent, 0);
        plan_rent_vs_buy_result_free(&r);

        /* The RTX 3090 has no family member rented: none. */
        seeds_000(s, &in);
        in.rent_gpu_index = catalog_gpu_index(s, "rtx-3090");
        assert_int_equal(plan_rent_vs_buy_compute(s, &in, &r), 0);
        assert_int_equal(r.n_rent, 0);
        plan_rent_vs_buy_result_free(&r);
        catalog_release(s);
}

static void test_purchase_prefers_new(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        size_t a100 = catalog_gpu_index(s, "a100-sxm-40gb");

        assert_close(plan_rent_vs_buy_purchase(s, a100, NULL)->usd, 10000);
        assert_close(plan_rent_vs_buy_purchase(s, a100, "new")->usd, 10000);
        assert_close(plan_rent_vs_buy_purchase(s, a100, "used")->usd, 6000);
        assert_null(plan_rent_vs_buy_purchase(s, catalog_gpu_index(s, "rtx-3090"), NULL));
        catalog_release(s);
}

static void test_gpu_family(void **state)
{
        static const struct {
                const char *id, *family, *why;
        } rows[] = {
                {"a100-sxm-40gb", "a100", "form factor and size dropped"},
                {"a100-pcie-80gb", "a100", "pcie is a form factor"},
                {"h100-nvl-94gb", "h100", "nvl is a form factor"},
                {"v100-sxm2-16gb", "v100", "sxm2 starts with sxm"},
                {"rtx-3090", "rtx-3090", "no form factor or size"},
                {"a10g", "a10g", "one segment"},
                {"l40s", "l40s", "one segment"},
                {"mi300x-192gb", "mi300x", "size dropped"},
        };
        char out[GPU_ID_MAX];

        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                plan_rent_vs_buy_gpu_family(rows[i].id, out, sizeof(out));
                if (strcmp(out, rows[i].family) != 0)
                        fail_msg("%s: got %s, want %s (%s)", rows[i].id, out, rows[i].family,
                                 rows[i].why);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_seeds_000_by_hand),
                cmocka_unit_test(test_whole_instances_and_boards),
                cmocka_unit_test(test_eight_rented_vs_eight_owned),
                cmocka_unit_test(test_family_fallback_and_providers),
                cmocka_unit_test(test_purchase_prefers_new),
                cmocka_unit_test(test_gpu_family),
        };

        return cmocka_run_group_tests_name("rent_vs_buy", tests, setup, fixture_catalog_teardown);
}
