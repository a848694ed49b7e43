/*
 * test_jsonw.c - the JSON writer (api/jsonw.c) and the estimate response
 * written with it (estimate_encode_render).
 *
 * Expected texts are written out by hand from RFC 8259 and from the rules
 * jansson 2.14 documents for json_dumps (compact separators, reals with
 * JSON_REAL_PRECISION(15) digits); where many values are checked at once,
 * jansson's own json_dumps is the oracle, since the writer replaces it and
 * must print the same bytes.
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

#include <jansson.h>

#include "api/estimate_decode.h"
#include "api/estimate_encode.h"
#include "api/jsonw.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* The writer's text, checked against expected and freed. */
static void expect_text(struct jsonw *w, const char *expected)
{
        size_t len = 0;
        char *text = jsonw_finish(w, &len);
        assert_non_null(text);
        assert_string_equal(text, expected);
        assert_int_equal(len, strlen(expected));
        free(text);
}

/* Separators: a comma between members and between elements, none after an
 * opening bracket, at any depth (RFC 8259 sections 4 and 5). */
static void test_structure(void **state)
{
        (void)state;
        struct jsonw w;
        jsonw_init(&w, 4, 1024); /* starts small: grows several times */
        jsonw_object_begin(&w);
        jsonw_kint(&w, "a", 1);
        jsonw_key(&w, "b");
        jsonw_array_begin(&w);
        jsonw_bool(&w, true);
        jsonw_bool(&w, false);
        jsonw_null(&w);
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "c", "d");
        jsonw_object_end(&w);
        jsonw_array_begin(&w);
        jsonw_array_end(&w);
        jsonw_array_end(&w);
        jsonw_key(&w, "e");
        jsonw_object_begin(&w);
        jsonw_object_end(&w);
        jsonw_knull(&w, "f");
        jsonw_kstring(&w, "g", NULL);
        jsonw_object_end(&w);
        expect_text(&w, "{\"a\":1,\"b\":[true,false,null,{\"c\":\"d\"},[]],\"e\":{},\"f\":null,"
                        "\"g\":null}");

        /* Member names that need escaping take the general path; a tiny
         * buffer makes the fast path grow it. */
        jsonw_init(&w, 1, 1024);
        jsonw_object_begin(&w);
        jsonw_kint(&w, "plain_name_longer_than_the_buffer", 1);
        jsonw_key(&w, "q\"b\\s\n");
        jsonw_int(&w, 2);
        jsonw_key(&w, "caf\xc3\xa9");
        jsonw_int(&w, 3);
        jsonw_object_end(&w);
        expect_text(&w, "{\"plain_name_longer_than_the_buffer\":1,\"q\\\"b\\\\s\\n\":2,"
                        "\"caf\xc3\xa9\":3}");
}

/*
 * The shorthands paste a literal name between quotes at compile time and
 * copy it unescaped, so debug builds assert that it needs no escaping:
 * the check must pass every plain name and refuse each character JSON
 * would escape, and anything but a quoted name and a colon.
 */
static void test_name_plain(void **state)
{
        (void)state;
        static const struct {
                const char *text;
                bool plain;
                const char *why;
        } rows[] = {
                {"\"gpus_needed\":", true, "snake_case, as the API's names are"},
                {"\"a-b.c/d e~\":", true, "'/', '-', '.', ' ' and '~' need no escape"},
                {"\"\":", true, "the empty name"},
                {"\"q\"b\":", false, "a quote inside"},
                {"\"back\\slash\":", false, "a backslash inside"},
                {"\"tab\there\":", false, "a control character"},
                {"\"caf\xc3\xa9\":", false, "UTF-8 (the fast path copies ASCII only)"},
                {"gpus:", false, "no quotes"},
                {"\"gpus\"", false, "no colon"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                if (jsonw_name_plain(rows[i].text, strlen(rows[i].text)) != rows[i].plain)
                        fail_msg("%s: %s", rows[i].text, rows[i].why);
}

static void test_integers(void **state)
{
        (void)state;
        struct jsonw w;
        jsonw_init(&w, 64, 1024);
        jsonw_array_begin(&w);
        jsonw_int(&w, 0);
        jsonw_int(&w, -1);
        jsonw_int(&w, 1000000007);
        jsonw_int(&w, INT64_MAX);
        jsonw_int(&w, INT64_MIN);
        jsonw_array_end(&w);
        /* 2^63 - 1 = 9223372036854775807; -2^63 = -9223372036854775808. */
        expect_text(&w, "[0,-1,1000000007,9223372036854775807,-9223372036854775808]");

        /* Digits are written eight at a time, then two at a time: zeros
         * inside and at the edges of those groups. */
        jsonw_init(&w, 64, 1024);
        jsonw_array_begin(&w);
        jsonw_int(&w, 9);
        jsonw_int(&w, 10);
        jsonw_int(&w, 99999999);
        jsonw_int(&w, 100000000);
        jsonw_int(&w, 100000001);
        jsonw_int(&w, 1000000000000000000);
        jsonw_int(&w, -12345678901234567);
        jsonw_int(&w, 50000000070000000);
        jsonw_array_end(&w);
        expect_text(&w, "[9,10,99999999,100000000,100000001,1000000000000000000,"
                        "-12345678901234567,50000000070000000]");

        /* Byte counts past INT64_MAX are clamped to it, as the jansson
         * encoder did (json_int_t is signed). */
        jsonw_init(&w, 64, 1024);
        jsonw_object_begin(&w);
        jsonw_ku64(&w, "big", UINT64_MAX);
        jsonw_ku64(&w, "gib", 1073741824u);
        jsonw_object_end(&w);
        expect_text(&w, "{\"big\":9223372036854775807,\"gib\":1073741824}");
}

/* Reals: "%.15g", then ".0" if it reads as an integer, and an exponent
 * without '+' or leading zeros (jansson strconv.c jsonp_dtostr). */
static void test_reals(void **state)
{
        (void)state;
        static const struct {
                double v;
                const char *text;
        } rows[] = {
                {1.0, "1.0"}, /* "%.15g" gives "1": add ".0" */
                {100.0, "100.0"},
                {-0.5, "-0.5"},
                {0.1, "0.1"},                             /* 15 digits hide the binary error */
                {55.04, "55.04"},                         /* a numeric(14,6) price as stored */
                {2.0 / 3.0, "0.666666666666667"},         /* 15 significant digits, rounded */
                {123456789012345.0, "123456789012345.0"}, /* 15 digits: still fixed */
                {1e15, "1e15"},                           /* "1e+15": '+' dropped */
                {1.5e21, "1.5e21"},
                {1e-7, "1e-7"}, /* "1e-07": the zero dropped */
                {123456789012345678.0, "1.23456789012346e17"},
                /* the least subnormal, 2^-1074 = 4.9406564584124654e-324 */
                {5e-324, "4.94065645841247e-324"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct jsonw w;
                jsonw_init(&w, 8, 64);
                jsonw_real(&w, rows[i].v);
                expect_text(&w, rows[i].text);
        }
        /* Not a JSON number: null, as the encoder's real_or_null did. */
        struct jsonw w;
        jsonw_init(&w, 8, 64);
        jsonw_array_begin(&w);
        jsonw_real(&w, NAN);
        jsonw_real(&w, INFINITY);
        jsonw_real(&w, -INFINITY);
        jsonw_array_end(&w);
        expect_text(&w, "[null,null,null]");
}

/* One real written by the writer and by jansson: the same text. */
static void same_as_jansson(double v)
{
        struct jsonw w;
        size_t len;
        jsonw_init(&w, 8, 64);
        jsonw_real(&w, v);
        char *mine = jsonw_finish(&w, &len);
        json_t *r = json_real(v);
        char *theirs = json_dumps(r, DUMP_FLAGS | JSON_ENCODE_ANY);
        assert_non_null(mine);
        assert_non_null(theirs);
        if (strcmp(mine, theirs))
                fail_msg("%.17g: wrote %s, jansson %s", v, mine, theirs);
        free(mine);
        free(theirs);
        json_decref(r);
}

/*
 * The writer prints most reals without printf (fixed-point, 15 digits);
 * jansson, which uses printf, is the oracle: ratios such as a fit's
 * utilization, decimal fractions, ties at the 16th digit, and the edges
 * of the fixed-point range (1e-4 and 1e15, where %g turns scientific) and
 * of the exponent form the writer prints itself (1e-13 and 1e42).
 */
static void test_reals_fast_path(void **state)
{
        (void)state;
        for (int i = 1; i <= 400; i++)
                for (int j = 1; j <= 400; j++)
                        same_as_jansson((double)i / (double)j);
        for (int k = 1; k <= 20000; k++)
                for (int p = -6; p <= 16; p += 2)
                        same_as_jansson((double)k * pow(10.0, p) / 1000.0);
        /* The exponent form, 1e-13 <= |v| < 1e42: FLOP counts, tiny rates. */
        for (int k = 1; k <= 5000; k++)
                for (int p = -14; p <= 44; p += 3)
                        same_as_jansson((double)k * pow(10.0, p) / 1000.0 +
                                        (double)k / 7.0 * pow(10.0, p - 9));
        static const double edges[] = {
                1e-4,
                1.00000000000001e-4,
                9.99999999999999e-5,
                1e15,
                999999999999999.0,
                999999999999999.4,
                999999999999999.5,
                99999999999999.95,
                9.999999999999995,
                0.5,
                1.5,
                2.5,
                0.000125,
                1234567890.12345,
                -0.1,
                -123.456,
                1e14,
                1e14 - 1,
                0.30000000000000004,
                1e-13,
                9.99999999999999e-14,
                1e42,
                9.99999999999999e41,
                9.999999999999995e41,
                1e-5,
                1e16,
                1.5e19,
                3.2e20,
                6.02214076e23,
                -1.25e-7,
        };
        for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
                same_as_jansson(edges[i]);
                same_as_jansson(nextafter(edges[i], 0));
                same_as_jansson(nextafter(edges[i], 1e300));
        }
}

/* jansson as the oracle: reals spread over the whole exponent range. */
static void test_reals_match_jansson(void **state)
{
        (void)state;
        uint64_t x = 88172645463325252ull; /* xorshift64 (Marsaglia 2003) */
        for (int i = 0; i < 20000; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                double mant = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
                int exp = (int)(x % 80) - 40;
                double v = (x & 1 ? -1 : 1) * mant * pow(10.0, exp);
                if (i % 4 == 0)
                        v = floor(v); /* whole numbers, which need the ".0" */
                same_as_jansson(v);
        }
}

/*
 * The writer computes the 15 digits of 1e-13 <= |v| < 1e42 exactly, in
 * whole numbers; jansson (glibc's printf) is the oracle.  Doubles drawn
 * uniformly over their bit patterns in that range hit every binary
 * exponent and mantissa shape, and every text is read back with strtod:
 * 15 digits must give a value within half a unit of the 15th digit.
 * Exact ties at the 16th digit go to printf, which rounds them to even.
 */
static void test_reals_exact_digits(void **state)
{
        (void)state;
        static const struct {
                double v;
                const char *text;
        } ties[] = {
                /* 12345678901234.25 (= 49382715604937 / 4, exact in binary):
                 * the 16th digit is a 5 followed by nothing, so it rounds to
                 * the even 15th digit, 2. */
                {12345678901234.25, "12345678901234.2"},
                {12345678901234.75, "12345678901234.8"}, /* 7 is odd: up to 8 */
                {0.000244140625, "0.000244140625"},      /* 2^-12, 12 digits: no rounding */
        };
        for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++) {
                struct jsonw w;
                jsonw_init(&w, 8, 64);
                jsonw_real(&w, ties[i].v);
                expect_text(&w, ties[i].text);
        }

        uint64_t x = 2463534242ull; /* xorshift64 (Marsaglia 2003) */
        /* Bit patterns of 1e-13 and 1e42: positive doubles order as their bits. */
        double lo_v = 1e-13, hi_v = 1e42;
        uint64_t lo, hi;
        memcpy(&lo, &lo_v, sizeof(lo));
        memcpy(&hi, &hi_v, sizeof(hi));
        for (int i = 0; i < 100000; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                uint64_t bits = lo + x % (hi - lo);
                double v;
                memcpy(&v, &bits, sizeof(v));
                if (i & 1)
                        v = -v;
                same_as_jansson(v);

                struct jsonw w;
                size_t len;
                jsonw_init(&w, 8, 64);
                jsonw_real(&w, v);
                char *text = jsonw_finish(&w, &len);
                assert_non_null(text);
                double back = strtod(text, NULL);
                /* |v| < 10^(X+1), so half a unit of the 15th digit is at most
                 * 0.5 * 10^(X-14) < |v| * 5e-15 (plus the read-back's own
                 * rounding, far smaller). */
                if (!(fabs(back - v) <= fabs(v) * 5.0000001e-15))
                        fail_msg("%.17g printed as %s", v, text);
                free(text);
        }
}

/* Strings: '"', '\' and control characters escaped; '/', DEL and UTF-8 kept
 * (RFC 8259 section 7; jansson escapes '/' only with JSON_ESCAPE_SLASH). */
static void test_strings(void **state)
{
        (void)state;
        struct jsonw w;
        jsonw_init(&w, 8, 1024);
        jsonw_string(&w, "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80");
        expect_text(&w, "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001F\x7f \xc3\xa9 \xe2\x80\x94 "
                        "\xf0\x9f\x98\x80\"");

        /* Every ASCII character, against jansson. */
        char all[128];
        for (int c = 1; c < 128; c++)
                all[c - 1] = (char)c;
        all[127] = '\0';
        jsonw_init(&w, 8, 4096);
        jsonw_string(&w, all);
        size_t len;
        char *mine = jsonw_finish(&w, &len);
        json_t *s = json_string(all);
        char *theirs = json_dumps(s, DUMP_FLAGS | JSON_ENCODE_ANY);
        assert_non_null(mine);
        assert_string_equal(mine, theirs);
        free(mine);
        free(theirs);
        json_decref(s);
}

/*
 * Plain text is scanned eight bytes at a time: a character that needs
 * escaping (or starts UTF-8) must be found at every offset inside and
 * after those words.  jansson is the oracle.
 */
static void test_strings_word_scan(void **state)
{
        static const char *const specials[] = {"\"",       "\\",           "\n", "\x01", "\x1f",
                                               "\xc3\xa9", "\xe2\x80\x94", " ",  "~"};
        (void)state;
        for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++) {
                for (size_t at = 0; at < 40; at++) {
                        char text[64];
                        size_t n = strlen(specials[k]);
                        memset(text, 'a', at);
                        memcpy(text + at, specials[k], n);
                        memset(text + at + n, 'z', 17);
                        text[at + n + 17 - at % 9] = '\0';
                        struct jsonw w;
                        size_t len;
                        jsonw_init(&w, 8, 256);
                        jsonw_string(&w, text);
                        char *mine = jsonw_finish(&w, &len);
                        json_t *js = json_string(text);
                        char *theirs = json_dumps(js, DUMP_FLAGS | JSON_ENCODE_ANY);
                        assert_non_null(mine);
                        if (strcmp(mine, theirs))
                                fail_msg("special %zu at %zu: wrote %s, jansson %s", k, at, mine,
                                         theirs);
                        free(mine);
                        free(theirs);
                        json_decref(js);
                }
        }
}

/* Whole numbers take a path of their own: the same text as jansson's. */
static void test_reals_whole(void **state)
{
        static const double whole[] = {0.0,
                                       -0.0,
                                       1.0,
                                       -1.0,
                                       7.0,
                                       10.0,
                                       100.0,
                                       1e6,
                                       -2e9,
                                       21757037155.0,
                                       4503599627370496.0 / 8,
                                       999999999999999.0,
                                       -999999999999999.0,
                                       1e15,
                                       1e16};
        (void)state;
        for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
                same_as_jansson(whole[i]);
}

/* Text that is not UTF-8 ends at the last whole character. */
static void test_strings_not_utf8(void **state)
{
        (void)state;
        static const struct {
                const char *in, *out, *why;
        } rows[] = {
                {"ab\xc3", "\"ab\"", "cut inside a two-byte character"},
                {"ab\xe2\x80", "\"ab\"", "cut inside a three-byte character"},
                {"a\xc0\xafz", "\"a\"", "overlong '/' (RFC 3629 section 10)"},
                {"a\xed\xa0\x80z", "\"a\"", "a UTF-16 surrogate, U+D800"},
                {"a\xf4\x90\x80\x80z", "\"a\"", "above U+10FFFF"},
                {"a\x80z", "\"a\"", "a lone continuation byte"},
                {"\xc3\xa9\xff", "\"\xc3\xa9\"", "0xFF never appears in UTF-8"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct jsonw w;
                size_t len;
                jsonw_init(&w, 8, 64);
                jsonw_string(&w, rows[i].in);
                char *text = jsonw_finish(&w, &len);
                assert_non_null(text);
                if (strcmp(text, rows[i].out))
                        fail_msg("%s: wrote %s", rows[i].why, text);
                free(text);
        }
}

/* The cap is a limit, not a truncation: past it there is no text at all. */
static void test_cap(void **state)
{
        (void)state;
        struct jsonw w;
        size_t len = 99;
        jsonw_init(&w, 4, 16);
        jsonw_array_begin(&w);
        jsonw_string(&w, "0123456789"); /* [ + 12 = 13 bytes */
        jsonw_int(&w, 12);              /* + ",12" = 16: exactly the cap */
        jsonw_array_end(&w);            /* 17: over */
        assert_null(jsonw_finish(&w, &len));
        assert_int_equal(len, 0);

        jsonw_init(&w, 4, 16);
        jsonw_array_begin(&w);
        jsonw_string(&w, "0123456789");
        jsonw_int(&w, 1);
        jsonw_array_end(&w); /* 16 bytes */
        expect_text(&w, "[\"0123456789\",1]");

        jsonw_init(&w, 4, 16);
        jsonw_string(&w, "x");
        jsonw_discard(&w);
        assert_null(jsonw_finish(&w, &len));
}

/*
 * A whole estimate response: the text is JSON that jansson reads and,
 * dumped again with the flags of every other reply, gives back the same
 * bytes (the writer and jansson agree on every value and on the order).
 */
static void test_estimate_render_round_trip(void **state)
{
        (void)state;
        static const char *const requests[] = {
                "{\"model\":{\"parameters\":7000000000},\"workload\":{\"mode\":\"qlora\","
                "\"batch_size\":2,\"sequence_length\":1024,\"lora\":{\"rank\":16}},"
                "\"precision\":\"bf16\",\"parallelism\":{\"strategy\":\"ddp\",\"gpus\":2}}",
                "{\"model\":{\"architecture\":{\"name\":\"t\\\"iny\\\\ \\u0001 \\u00e9\","
                "\"kind\":\"decoder\",\"layers\":4,\"hidden_size\":256,\"heads\":4,"
                "\"ffn_size\":1024,\"vocab_size\":32000,\"dropout\":0.05}},"
                "\"workload\":{\"mode\":\"inference\",\"prompt_tokens\":100,"
                "\"generated_tokens\":20},\"kv_cache_precision\":\"fp8\"}",
                "{\"model\":{\"architecture\":{\"kind\":\"encoder_decoder\",\"layers\":6,"
                "\"hidden_size\":512,\"heads\":8,\"ffn_size\":2048,\"vocab_size\":32128}},"
                "\"workload\":{\"mode\":\"pre_train\",\"batch_size\":8,\"sequence_length\":512,"
                "\"dataset\":{\"samples\":1000,\"epochs\":2.5}},\"parallelism\":{\"strategy\":"
                "\"fsdp\",\"gpus\":8,\"tensor_parallel\":2,\"pipeline_parallel\":2}}",
        };
        static struct estimate_result r;
        for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
                json_error_t je;
                json_t *body = json_loads(requests[i], 0, &je);
                struct estimate_input in;
                struct fields_error e;
                struct estimate_error ee;
                size_t len = 0;
                assert_non_null(body);
                if (estimate_decode_request(body, NULL, NULL, &in, &e))
                        fail_msg("request %zu refused: %s %s", i, e.pointer, e.detail);
                json_decref(body);
                assert_int_equal(estimate_run(&in, NULL, 0, &r, &ee), 0);
                char *text = estimate_encode_render(&in, &r, NULL, 0, &len);
                assert_non_null(text);
                assert_int_equal(len, strlen(text));
                json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
                if (!doc)
                        fail_msg("request %zu: not JSON at %d: %s", i, je.position, je.text);
                char *again = json_dumps(doc, DUMP_FLAGS);
                assert_non_null(again);
                assert_string_equal(again, text);
                /* The tree encoder is the same document. */
                json_t *tree = estimate_encode_result(&in, &r, NULL, 0);
                assert_true(json_equal(tree, doc));
                json_decref(tree);
                free(again);
                free(text);
                json_decref(doc);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_structure),
                cmocka_unit_test(test_name_plain),
                cmocka_unit_test(test_integers),
                cmocka_unit_test(test_reals),
                cmocka_unit_test(test_reals_match_jansson),
                cmocka_unit_test(test_reals_fast_path),
                cmocka_unit_test(test_reals_exact_digits),
                cmocka_unit_test(test_strings),
                cmocka_unit_test(test_strings_word_scan),
                cmocka_unit_test(test_reals_whole),
                cmocka_unit_test(test_strings_not_utf8),
                cmocka_unit_test(test_cap),
                cmocka_unit_test(test_estimate_render_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
