/*
 * test_decimal.c - doubles in decimal without printf (core/decimal.c).
 *
 * Expected texts are written out by hand from C11 7.21.6.1 (%f, %e, %g
 * and their rounding); where many values are checked at once, glibc's
 * snprintf is the oracle, since decimal_format() stands in for it and
 * must print the same bytes, and every digit string is also read back
 * with strtod.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decimal.h"

/* The formats below come from tables, each with one double conversion
 * (or, in the hand-written rows, as many arguments as conversions). */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* xorshift64 (Marsaglia 2003): reproducible values without a library. */
static uint64_t next(uint64_t *x)
{
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        return *x;
}

/* A double drawn over the bit patterns between lo and hi (both > 0). */
static double between(uint64_t *x, double lo, double hi)
{
        uint64_t a, b, bits;
        double v;
        memcpy(&a, &lo, sizeof(a));
        memcpy(&b, &hi, sizeof(b));
        bits = a + next(x) % (b - a);
        memcpy(&v, &bits, sizeof(v));
        return v;
}

static void test_digits_by_hand(void **state)
{
        (void)state;
        static const struct {
                double v;
                int digits;
                uint64_t m;
                int x;
                const char *why;
        } rows[] = {
                {1.0, 15, 100000000000000ull, 0, "one"},
                {0.1, 15, 100000000000000ull, -1, "0.1000000000000000055...: 15 digits hide it"},
                {0.1, 17, 10000000000000001ull, -1, "17 digits show it"},
                {2.0 / 3.0, 3, 667ull, -1, "0.6666...: up"},
                {9.995, 3, 999ull, 0, "9.99499999999999957...: down, not a tie"},
                {99999.5, 5, 10000ull, 5, "a tie by the digits, but 99999.5 is exact: declined"},
                {97656.25, 4, 9766ull, 4, "9765.625 would tie; 97656.25 at 4 digits: 9766 up"},
                {1e21, 15, 100000000000000ull, 21, "a power of ten"},
                {123456789012345678.0, 15, 123456789012346ull, 17, "above 2^53"},
                {6.02214076e23, 9, 602214076ull, 23, "Avogadro's number as defined"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                uint64_t m = 0;
                int x = 0;
                bool ok = decimal_digits(rows[i].v, rows[i].digits, &m, &x);
                if (i == 5) { /* the tie row */
                        assert_false(ok);
                        continue;
                }
                if (!ok || m != rows[i].m || x != rows[i].x)
                        fail_msg("%s: %d %llu e%d", rows[i].why, ok, (unsigned long long)m, x);
        }
        uint64_t m;
        int x;
        assert_false(decimal_digits(0.0, 15, &m, &x));
        assert_false(decimal_digits(-1.0, 15, &m, &x));
        assert_false(decimal_digits(INFINITY, 15, &m, &x));
        assert_false(decimal_digits(NAN, 15, &m, &x));
        assert_false(decimal_digits(1.0, 18, &m, &x));
        assert_false(decimal_digits(1e-300, 15, &m, &x)); /* 10^314: past 10^27 */
        assert_false(decimal_digits(1e300, 15, &m, &x));
}

static void test_fixed_by_hand(void **state)
{
        (void)state;
        static const struct {
                double v;
                int places;
                bool ok;
                uint64_t out;
                const char *why;
        } rows[] = {
                {512.0, 0, true, 512, "a whole number"},
                {0.094, 3, true, 94, "0.0939999999999999947...: 94"},
                {2.675, 2, true, 267, "2.67499999999999982...: down"},
                {1.005, 2, true, 100, "1.00499999999999989...: down"},
                {0.5, 0, false, 0, "an exact tie"},
                {2.5, 0, false, 0, "an exact tie"},
                {0.125, 2, false, 0, "12.5: an exact tie"},
                {0.0, 3, true, 0, "zero"},
                {1e-300, 2, true, 0, "far below half a unit"},
                {1.8e19, 0, false, 0, "past 10^19"},
                {-1.0, 0, false, 0, "negative"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                uint64_t out = 0;
                bool ok = decimal_fixed(rows[i].v, rows[i].places, &out);
                if (ok != rows[i].ok || (ok && out != rows[i].out))
                        fail_msg("%s: %d %llu", rows[i].why, ok, (unsigned long long)out);
        }
}

/* decimal_format against snprintf for one conversion of v. */
static void same_as_printf(const char *fmt, double v)
{
        char mine[128], theirs[128];
        int n = decimal_format(mine, sizeof(mine), fmt, v);
        int m = snprintf(theirs, sizeof(theirs), fmt, v);
        if (n != m || strcmp(mine, theirs))
                fail_msg("%s of %.17g: wrote %s (%d), printf %s (%d)", fmt, v, mine, n, theirs, m);
}

/* Hand-written texts for the conversions the notes use. */
static void test_format_by_hand(void **state)
{
        (void)state;
        static const struct {
                const char *fmt;
                double v;
                const char *text;
        } rows[] = {
                {"%.0f MiB", 512.0, "512 MiB"},
                {"%.1f%%", 9.4123, "9.4%"},
                {"%.2f GiB", 0.005, "0.01 GiB"}, /* 0.005000000000000000104: up */
                {"%.2f", -0.001, "-0.00"},       /* the sign of a negative survives */
                {"%.0f", -0.0, "-0"},
                {"%.3f", 1234567.0004, "1234567.000"},
                {"%.3g", 97656.25, "9.77e+04"},
                {"%.4g", 97656.25, "9.766e+04"},
                {"%.3g", 0.000164, "0.000164"},  /* exponent -4: still f style */
                {"%.3g", 0.0000164, "1.64e-05"}, /* -5: e style */
                {"%.3g", 12.5, "12.5"},
                {"%.3g", 100.0, "100"},    /* exponent 2 < 3: f style, no point */
                {"%.3g", 1000.0, "1e+03"}, /* exponent 3: e style, zeros dropped */
                {"%.4g", 2.0, "2"},
                {"%g", 100000.0, "100000"},
                {"%g", 1e6, "1e+06"},
                {"%g", 0.0001, "0.0001"},
                {"%g", 1.5e-300, "1.5e-300"}, /* declined: printf's */
                {"%.3g", 0.0, "0"},
                {"%.3g", 1e100, "1e+100"}, /* three exponent digits (declined: printf's) */
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                char buf[64];
                int n = decimal_format(buf, sizeof(buf), rows[i].fmt, rows[i].v);
                if (strcmp(buf, rows[i].text) || n != (int)strlen(rows[i].text))
                        fail_msg("%s of %.17g: wrote %s, want %s", rows[i].fmt, rows[i].v, buf,
                                 rows[i].text);
        }

        char buf[64];
        assert_int_equal(decimal_format(buf, sizeof(buf), "%s and %u, %.1f%% of %s", "one", 7u,
                                        12.25, "all"),
                         strlen("one and 7, 12.2% of all"));
        /* 12.25 is exact: a tie at one decimal, printf's to round (to even). */
        assert_string_equal(buf, "one and 7, 12.2% of all");
        decimal_format(buf, sizeof(buf), "no conversion at all");
        assert_string_equal(buf, "no conversion at all");
        decimal_format(buf, sizeof(buf), "%u%%", 100u);
        assert_string_equal(buf, "100%");
        /* Flags and widths are printf's: the same text either way. */
        decimal_format(buf, sizeof(buf), "[%5.1f|%-4s|%03u]", 2.25, "ab", 7u);
        assert_string_equal(buf, "[  2.2|ab  |007]");
}

/* Like snprintf, the whole length is returned and the text is cut to
 * len - 1 bytes and a NUL. */
static void test_format_truncates(void **state)
{
        (void)state;
        char buf[8];
        memset(buf, 'x', sizeof(buf));
        assert_int_equal(decimal_format(buf, 6, "%s=%.2f", "ratio", 0.5), 10); /* "ratio=0.50" */
        assert_string_equal(buf, "ratio");
        assert_int_equal(buf[6], 'x'); /* nothing past len */
        assert_int_equal(decimal_format(buf, 1, "%.0f", 123.0), 3);
        assert_string_equal(buf, "");
        assert_int_equal(decimal_format(NULL, 0, "%.0f", 123.0), 3);
}

/* Many values for every conversion the notes use, against snprintf; and
 * the digits read back within half a unit of the last digit. */
static void test_format_matches_printf(void **state)
{
        (void)state;
        static const char *const fmts[] = {"%.0f", "%.1f", "%.2f", "%.3f",
                                           "%.3g", "%.4g", "%g",   "%.15g"};
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < 40000; i++) {
                double v;
                switch (i % 4) {
                case 0:
                        v = between(&x, 1e-6, 1e12); /* sizes, ratios, rates */
                        break;
                case 1:
                        v = (double)(next(&x) % 100000) / 1000.0; /* decimal fractions */
                        break;
                case 2:
                        v = (double)(next(&x) % 2000) / 8.0; /* exact halves: ties */
                        break;
                default:
                        v = between(&x, 1e-20, 1e30);
                        break;
                }
                if (next(&x) & 1)
                        v = -v;
                for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
                        same_as_printf(fmts[f], v);
        }

        for (int i = 0; i < 20000; i++) {
                double v = between(&x, 1e-12, 1e20);
                int digits = 1 + (int)(next(&x) % 17);
                uint64_t m;
                int e;
                if (!decimal_digits(v, digits, &m, &e))
                        continue;
                char text[48];
                snprintf(text, sizeof(text), "%llue%d", (unsigned long long)m, e - digits + 1);
                double back = strtod(text, NULL);
                /* |v - m * 10^(e - digits + 1)| <= half a unit of the last
                 * digit <= v * 5 * 10^-digits (m >= 10^(digits - 1)). */
                if (!(fabs(back - v) <= v * 5.0000001 * pow(10.0, -digits)))
                        fail_msg("%.17g to %d digits: %s", v, digits, text);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_digits_by_hand),
                cmocka_unit_test(test_fixed_by_hand),
                cmocka_unit_test(test_format_by_hand),
                cmocka_unit_test(test_format_truncates),
                cmocka_unit_test(test_format_matches_printf),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
