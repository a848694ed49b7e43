/*
 * test_log.c - JSON string encoding of log fields and level names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "log.h"

static void test_json_string(void **state)
{
        static const struct {
                const char *in;
                const char *out;
        } rows[] = {
                {"plain", "\"plain\""},
                {"q\"b\\", "\"q\\\"b\\\\\""},
                {"a\nb\tc", "\"a\\nb\\u0009c\""},
                {"\x01", "\"\\u0001\""},
                {"caf\xc3\xa9", "\"caf\xc3\xa9\""},            /* valid UTF-8 kept */
                {"\xff", "\"\\u00ff\""},                       /* invalid byte escaped */
                {"\xc0\xaf", "\"\\u00c0\\u00af\""},            /* overlong '/' (RFC 3629 s.10) */
                {"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""}, /* UTF-16 surrogate */
                {"", "\"\""},
        };
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                char buf[64] = "";
                size_t len = 0;
                assert_int_equal(log_json_string(buf, sizeof(buf), &len, rows[i].in), 0);
                assert_string_equal(buf, rows[i].out);
                assert_int_equal(len, strlen(rows[i].out));
        }
}

static void test_json_string_full(void **state)
{
        char buf[8] = "ab";
        size_t len = 2;

        (void)state;
        /* "\"abcdef\"" needs 8 bytes + NUL: refused, buffer left as it was. */
        assert_int_equal(log_json_string(buf, sizeof(buf), &len, "abcdef"), -1);
        assert_int_equal(len, 2);
        assert_string_equal(buf, "ab");
}

static void test_levels(void **state)
{
        (void)state;
        assert_int_equal(log_level_parse("DEBUG"), LOG_LEVEL_DEBUG);
        assert_int_equal(log_level_parse("warning"), LOG_LEVEL_WARN);
        assert_int_equal(log_level_parse("error"), LOG_LEVEL_ERROR);
        assert_int_equal(log_level_parse("trace"), -1);
        assert_int_equal(log_level_parse(NULL), -1);
        log_set_level(LOG_LEVEL_WARN);
        assert_false(log_enabled(LOG_LEVEL_INFO));
        assert_true(log_enabled(LOG_LEVEL_ERROR));
        log_set_level(LOG_LEVEL_INFO);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_json_string),
                cmocka_unit_test(test_json_string_full),
                cmocka_unit_test(test_levels),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
