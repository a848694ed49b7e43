/*
 * test_uncertainty.c - the error bars' interval (api/uncertainty.c),
 * worked by hand from the order-statistic rule in api/uncertainty.h:
 * with n ratios sorted, x(i) and x(j), i = floor(0.1 (n + 1)) and
 * j = ceil(0.9 (n + 1)) clamped to 1..n, hold a new case with probability
 * (j - i) / (n + 1); below 0.8 the log interval is stretched about its
 * middle by 0.8 over that probability.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "api/uncertainty.h"

static void assert_close(double got, double want)
{
        if (!(fabs(got - want) <= 1e-9 * fabs(want)))
                fail_msg("got %.12g, want %.12g", got, want);
}

/* n = 9: i = floor(1.0) = 1, j = ceil(9.0) = 9: the smallest and largest
 * ratio, (9 - 1) / 10 = 0.8 already, not widened.  Given unsorted. */
static void test_nine_cases(void **state)
{
        (void)state;
        double r[] = {0.95, 0.91, 0.99, 0.93, 0.97, 0.92, 0.96, 0.94, 0.98};
        struct api_interval iv;
        api_uncertainty_interval(r, 9, &iv);
        assert_true(iv.present);
        assert_false(iv.widened);
        assert_int_equal(iv.cases, 9);
        assert_close(iv.low_ratio, 0.91);
        assert_close(iv.high_ratio, 0.99);
}

/* n = 19: i = floor(2.0) = 2, j = ceil(18.0) = 18: the second smallest
 * and the second largest of 0.81, 0.82, ..., 0.99; (18 - 2) / 20 = 0.8. */
static void test_nineteen_cases(void **state)
{
        (void)state;
        double r[19];
        for (int k = 0; k < 19; k++)
                r[k] = 0.81 + 0.01 * (18 - k);
        struct api_interval iv;
        api_uncertainty_interval(r, 19, &iv);
        assert_false(iv.widened);
        assert_close(iv.low_ratio, 0.82);
        assert_close(iv.high_ratio, 0.98);
}

/* n = 4 {1.0, 1.1, 1.2, 1.3}: i = floor(0.5) -> 1, j = ceil(4.5) -> 4, so
 * x(1) = 1.0 and x(4) = 1.3 hold a new case with (4 - 1) / 5 = 0.6.  In
 * logs: 0 and 0.262364264, middle 0.131182132, half-width 0.131182132 x
 * 0.8 / 0.6 = 0.174909509: exp(-0.043727377) = 0.957215 and
 * exp(0.306091641) = 1.358107. */
static void test_few_cases_widened(void **state)
{
        (void)state;
        double r[] = {1.2, 1.0, 1.3, 1.1};
        struct api_interval iv;
        api_uncertainty_interval(r, 4, &iv);
        assert_true(iv.widened);
        double lo = 0, hi = log(1.3), mid = (lo + hi) / 2, half = (hi - lo) / 2 * 0.8 / 0.6;
        assert_close(iv.low_ratio, exp(mid - half));
        assert_close(iv.high_ratio, exp(mid + half));
        assert_true(fabs(iv.low_ratio - 0.957215) < 1e-6);
        assert_true(fabs(iv.high_ratio - 1.358107) < 1e-6);
}

/* One case: +-10% about it (x / 1.1, x x 1.1); none: no interval. */
static void test_one_and_none(void **state)
{
        (void)state;
        double r[] = {1.05};
        struct api_interval iv;
        api_uncertainty_interval(r, 1, &iv);
        assert_true(iv.present && iv.widened);
        assert_close(iv.low_ratio, 1.05 / 1.1);
        assert_close(iv.high_ratio, 1.05 * 1.1);
        api_uncertainty_interval(r, 0, &iv);
        assert_false(iv.present);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nine_cases),
                cmocka_unit_test(test_nineteen_cases),
                cmocka_unit_test(test_few_cases_widened),
                cmocka_unit_test(test_one_and_none),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
