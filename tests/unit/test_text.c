/*
 * test_text.c - the text rule of every endpoint (json/text.h): UTF-8
 * without NUL, lengths in characters.  Each row's bytes are written out
 * and its count derived by hand from RFC 3629's table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "json/text.h"

struct row {
        const char *s;
        size_t n;
        long chars; /* -1: refused */
        const char *why;
};

static const struct row rows[] = {
        {"", 0, 0, "empty"},
        {"abc", 3, 3, "ASCII"},
        {"\xc3\xa9", 2, 1, "U+00E9 in two bytes"},
        {"\xe2\x82\xac", 3, 1, "U+20AC in three"},
        {"\xf0\x9f\x98\x80", 4, 1, "U+1F600 in four"},
        {"a\xc3\xa9z", 4, 3, "mixed"},
        {"\xef\xbf\xbf", 3, 1, "U+FFFF is a character"},
        {"\xf4\x8f\xbf\xbf", 4, 1, "U+10FFFF, the last"},
        {"a\0b", 3, -1, "NUL"},
        {"\xff", 1, -1, "0xFF never starts a sequence"},
        {"\xc3", 1, -1, "cut short"},
        {"\xc3(", 2, -1, "a bad continuation"},
        {"\xc0\xaf", 2, -1, "overlong '/' (C0 is never valid)"},
        {"\xe0\x80\xaf", 3, -1, "overlong in three bytes"},
        {"\xed\xa0\x80", 3, -1, "U+D800, a surrogate"},
        {"\xf4\x90\x80\x80", 4, -1, "above U+10FFFF"},
        {"\x80", 1, -1, "a lone continuation byte"},
};

static void test_rows(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                long got = text_chars(rows[i].s, rows[i].n);
                if (got != rows[i].chars)
                        fail_msg("%s: expected %ld, got %ld", rows[i].why, rows[i].chars, got);
        }
}

/* 100 "é" are 200 bytes and 100 characters. */
static void test_hundred_accents(void **state)
{
        (void)state;
        char s[201];
        for (int i = 0; i < 100; i++)
                memcpy(s + 2 * i, "\xc3\xa9", 2);
        s[200] = '\0';
        assert_int_equal(strlen(s), 200);
        assert_int_equal(text_chars(s, 200), 100);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rows),
                cmocka_unit_test(test_hundred_accents),
        };
        return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
