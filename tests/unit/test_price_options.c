/*
 * test_price_options.c - the day price ages are reckoned from
 * (api/price_options.c): GPUPLAN_TODAY when it is a valid date, else the
 * real date.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <time.h>

#include "api/price_options.h"

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
        assert_int_equal(api_price_options_today(), 20784);
        assert_int_equal(setenv("GPUPLAN_TODAY", "2000-03-01", 1), 0);
        assert_int_equal(api_price_options_today(), 11017);
        /* Malformed: the real date. */
        assert_int_equal(setenv("GPUPLAN_TODAY", "2026-13-01", 1), 0);
        assert_true(api_price_options_today() - real <= 1 && api_price_options_today() >= real);
        assert_int_equal(setenv("GPUPLAN_TODAY", "2026-11-27x", 1), 0);
        assert_true(api_price_options_today() >= real);
        assert_int_equal(unsetenv("GPUPLAN_TODAY"), 0);
        assert_true(api_price_options_today() - real <= 1 && api_price_options_today() >= real);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_price_today_setting),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
