/*
 * test_framing.c - request framing decided from the headers
 * (http/framing.h), row by row: each row is a header block as a client
 * sends it and the status RFC 9112 section 6 calls for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "http/framing.h"

struct row {
        const char *headers; /* "Name: value" lines joined by '\n'; '\x01'.. kept as sent */
        size_t len;          /* 0: strlen(headers) (a row with a NUL states it) */
        int status;
        const char *why;
};

/* Feed "Name: value\n..." the way libmicrohttpd hands headers over: the
 * name up to ':', the value after the optional whitespace. */
static int verdict(const struct row *r, struct framing *f)
{
        const char *p = r->headers, *end = p + (r->len ? r->len : strlen(p)), *why;
        framing_init(f);
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *line_end = nl ? nl : end;
                const char *colon = memchr(p, ':', (size_t)(line_end - p));
                assert_non_null(colon);
                const char *v = colon + 1;
                while (v < line_end && (*v == ' ' || *v == '\t'))
                        v++;
                framing_header(f, p, (size_t)(colon - p), v, (size_t)(line_end - v));
                p = nl ? nl + 1 : end;
        }
        return framing_verdict(f, &why);
}

static const struct row rows[] = {
        {"Host: x\nContent-Length: 12", 0, 0, "one Content-Length"},
        {"Host: x\nTransfer-Encoding: chunked", 0, 0, "chunked alone"},
        {"Transfer-Encoding: Chunked", 0, 0, "coding names are case-insensitive (RFC 9112 7)"},
        {"Host: x\nUser-Agent: a\tb", 0, 0, "HTAB is allowed in a value"},
        {"X-Latin: caf\xc3\xa9", 0, 0, "bytes above 0x7F are obs-text, allowed"},
        {"Content-Length: 5\nContent-Length: 5", 0, 400, "equal duplicates"},
        {"Content-Length: 5\nContent-Length: 50", 0, 400, "conflicting duplicates"},
        {"content-length: 5\nCONTENT-LENGTH: 6", 0, 400, "duplicates in other cases"},
        {"Transfer-Encoding: chunked\nContent-Length: 5", 0, 400, "chunked beside Content-Length"},
        {"Content-Length: 5\nTransfer-Encoding: foo", 0, 400,
         "unknown coding beside Content-Length"},
        {"Transfer-Encoding: gzip, chunked", 0, 501, "a coding list"},
        {"Transfer-Encoding: chunked, chunked", 0, 501, "chunked twice in one header"},
        {"Transfer-Encoding: chunked\nTransfer-Encoding: chunked", 0, 501, "two headers"},
        {"Transfer-Encoding: gzip", 0, 501, "an unknown coding"},
        {"Transfer-Encoding: chunked ", 0, 501, "trailing space: not exactly chunked"},
        {"Transfer-Encoding: identity", 0, 501, "identity was removed (RFC 7230)"},
        {"Transfer-Encoding: ", 0, 501, "an empty coding"},
        {"X-A: a\x01z", 0, 400, "SOH in a value"},
        {"X-A: a\rz", 0, 400, "a bare CR in a value"},
        {"X-A: a\x7fz", 0, 400, "DEL in a value"},
        {"X-A: a\x1bz", 0, 400, "ESC in a value"},
        {"X-A: a\0z", 8, 400, "NUL in a value (when it is seen)"},
        {"X A: b", 0, 400, "a space in a name"},
        {"X\x01A: b", 0, 400, "a control character in a name"},
        {"X(A): b", 0, 400, "a separator in a name"},
        {"X-A: a\x01z\nContent-Length: 5\nContent-Length: 6", 0, 400, "the first refusal wins"},
        {"Host: a\nHost: b", 0, 400, "two Host headers (RFC 9112 3.2)"},
        {"Host: a\nhost: a", 0, 400, "two Host headers, equal, in other cases"},
        {"Host: a\nTransfer-Encoding: gzip", 0, 501, "one Host does not hide a bad coding"},
        {"Host: a\nHost: a\nTransfer-Encoding: gzip", 0, 400, "two Hosts are a 400 first"},
        {"Content-Length: 5", 0, 0, "no Host: only HTTP/1.1 requires one, and this row is not"},
};

static void test_rows(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct framing f;
                int got = verdict(&rows[i], &f);
                if (got != rows[i].status)
                        fail_msg("%s: expected %d, got %d", rows[i].why, rows[i].status, got);
        }
}

/* The detail names the header that holds a control character. */
static void test_detail(void **state)
{
        (void)state;
        struct framing f;
        const char *why;
        framing_init(&f);
        framing_header(&f, "X-Trace", 7, "a\x02", 2);
        assert_int_equal(framing_verdict(&f, &why), 400);
        assert_non_null(strstr(why, "X-Trace"));
        assert_non_null(strstr(why, "0x02"));
}

/* RFC 9112 section 3.2: an HTTP/1.1 request without Host is a 400; with
 * one it passes; HTTP/1.0 (host_required left false) needs none. */
static void test_host_required(void **state)
{
        (void)state;
        struct framing f;
        const char *why = NULL;
        framing_init(&f);
        f.host_required = true;
        framing_header(&f, "Content-Length", 14, "5", 1);
        assert_int_equal(framing_verdict(&f, &why), 400);
        assert_non_null(strstr(why, "Host"));
        framing_init(&f);
        f.host_required = true;
        framing_header(&f, "host", 4, "example.org", 11);
        assert_int_equal(framing_verdict(&f, &why), 0);
        framing_init(&f);
        assert_int_equal(framing_verdict(&f, &why), 0);
}

static void test_has_body(void **state)
{
        (void)state;
        struct framing f;
        framing_init(&f);
        framing_header(&f, "Content-Length", 14, "0", 1);
        assert_false(framing_has_body(&f, "0"));
        assert_false(framing_has_body(&f, "000"));
        assert_true(framing_has_body(&f, "10"));
        assert_false(framing_has_body(&f, NULL));
        framing_init(&f);
        framing_header(&f, "Transfer-Encoding", 17, "chunked", 7);
        assert_true(framing_has_body(&f, NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rows),
                cmocka_unit_test(test_detail),
                cmocka_unit_test(test_host_required),
                cmocka_unit_test(test_has_body),
        };
        return cmocka_run_group_tests_name("framing", tests, NULL, NULL);
}
