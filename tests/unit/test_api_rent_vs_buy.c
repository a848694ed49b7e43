/*
 * test_api_rent_vs_buy.c - POST /api/v1/rent_vs_buy (api/rent_vs_buy.c)
 * on the fixture catalog, every figure worked out by hand in the comments:
 * usage hours, the owned GPU's monthly cost and power, break-even hours,
 * instances larger than one GPU, the family fallback when the exact part is
 * not rented, and the 400 and 422 refusals.  The plan arithmetic alone is
 * test_rent_vs_buy.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "api/catalog_api.h"

#include "api_fixture.h"

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
        struct fixture_env *e = *state;
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
static void test_rent_vs_buy_family(void **state)
{
        struct fixture_env *e = *state;
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
                cmocka_unit_test(test_rent_vs_buy_arithmetic),
                cmocka_unit_test(test_rent_vs_buy_family),
        };

        return cmocka_run_group_tests_name("api_rent_vs_buy", tests, fixture_setup,
                                           fixture_teardown);
}
