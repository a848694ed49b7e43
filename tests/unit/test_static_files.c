/*
 * test_static_files.c - path resolution below the static directory,
 * validators, gzip negotiation.  Builds a small tree in a temporary
 * directory, with a secret next to it and symlinks pointing at it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/static_files.h"

static char base[64];
static char root[96];

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int setup(void **state)
{
        char p[160];

        (void)state;
        snprintf(base, sizeof(base), "/tmp/gpuplan-static-XXXXXX");
        if (!mkdtemp(base))
                return -1;
        snprintf(root, sizeof(root), "%s/www", base);
        mkdir(root, 0755);
        snprintf(p, sizeof(p), "%s/js", root);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/secret.txt", base);
        write_file(p, "SECRET");
        snprintf(p, sizeof(p), "%s/index.html", root);
        write_file(p, "<!doctype html><title>x</title>");
        snprintf(p, sizeof(p), "%s/js/app.js", root);
        /* 2 KB of repetitive text: compresses well. */
        FILE *f = fopen(p, "w");
        for (int i = 0; i < 100; i++)
                fputs("export const value = 42;\n", f);
        fclose(f);
        snprintf(p, sizeof(p), "%s/.env", root);
        write_file(p, "hidden");
        char target[160];
        snprintf(target, sizeof(target), "%s/secret.txt", base);
        snprintf(p, sizeof(p), "%s/link.txt", root);
        if (symlink(target, p))
                return -1;
        snprintf(p, sizeof(p), "%s/up", root);
        if (symlink(base, p))
                return -1;
        return 0;
}

static int teardown(void **state)
{
        char cmd[128];

        (void)state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

static struct static_file get(struct static_files *sf, const char *path, const char *inm,
                              const char *ae)
{
        struct static_file f;

        assert_int_equal(static_files_get(sf, path, inm, ae, &f), 0);
        return f;
}

static void test_resolution(void **state)
{
        static const struct {
                const char *path;
                int status;
                const char *why;
        } rows[] = {
                {"/", 200, "index.html"},
                {"/index.html", 200, "a file"},
                {"/js/app.js", 200, "nested file"},
                {"/js/", 404, "directory without index.html"},
                {"/js", 404, "a directory is not a file"},
                {"/../secret.txt", 404, "'..' segment"},
                {"/js/../../secret.txt", 404, "'..' deeper"},
                {"/./index.html", 404, "'.' segment"},
                {"/.env", 404, "hidden file"},
                {"/link.txt", 404, "symlink to a file outside"},
                {"/up/secret.txt", 404, "symlinked directory"},
                {"/nope", 404, "missing"},
                {"//index.html", 200, "empty segments collapse"},
                {"index.html", 404, "not absolute"},
        };
        char err[256];
        struct static_files *sf = static_files_open(root, err, sizeof(err));

        (void)state;
        assert_non_null(sf);
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct static_file f = get(sf, rows[i].path, NULL, NULL);
                if (f.status != rows[i].status)
                        fail_msg("%s (%s): %d, want %d", rows[i].path, rows[i].why, f.status,
                                 rows[i].status);
                static_files_release(&f);
        }
        static_files_close(sf);
}

static void test_etag_and_gzip(void **state)
{
        char err[256];
        struct static_files *sf = static_files_open(root, err, sizeof(err));
        struct static_file plain;
        struct static_file gz;
        struct static_file again;
        char inm[160];

        (void)state;
        plain = get(sf, "/js/app.js", NULL, NULL);
        assert_int_equal(plain.status, 200);
        assert_true(plain.fd >= 0);
        assert_int_equal(plain.size, 100 * 25);
        assert_string_equal(plain.content_type, "text/javascript; charset=utf-8");
        assert_false(plain.gzip);

        gz = get(sf, "/js/app.js", NULL, "br, gzip");
        assert_true(gz.gzip);
        assert_non_null(gz.body);
        assert_true(gz.size < plain.size);
        /* gzip header magic, RFC 1952 section 2.3.1. */
        assert_int_equal(gz.body[0], 0x1f);
        assert_int_equal(gz.body[1], 0x8b);
        assert_string_not_equal(gz.etag, plain.etag);

        snprintf(inm, sizeof(inm), "\"x\", %s", plain.etag);
        again = get(sf, "/js/app.js", inm, NULL);
        assert_int_equal(again.status, 304);
        static_files_release(&again);
        again = get(sf, "/js/app.js", gz.etag, "gzip");
        assert_int_equal(again.status, 304);
        static_files_release(&again);
        /* The cached copy is served the second time, byte for byte. */
        again = get(sf, "/js/app.js", NULL, "gzip");
        assert_int_equal(again.size, gz.size);
        assert_memory_equal(again.body, gz.body, gz.size);
        static_files_release(&again);
        static_files_release(&plain);
        static_files_release(&gz);
        static_files_close(sf);
}

static void test_accepts_gzip(void **state)
{
        static const struct {
                const char *header;
                bool gzip;
        } rows[] = {
                {"gzip", true},
                {"gzip, deflate, br", true},
                {"br;q=1.0, gzip;q=0.8", true},
                {"*", true},
                {"gzip;q=0", false},
                {"gzip;q=0.000", false},
                {"gzip;q=0.001", true},
                {"identity", false},
                {"", false},
                {NULL, false},
                {"x-gzip-not", false},
        };
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                if (static_files_accepts_gzip(rows[i].header) != rows[i].gzip)
                        fail_msg("Accept-Encoding: %s", rows[i].header ? rows[i].header : "(none)");
}

static void test_etag_matches(void **state)
{
        (void)state;
        assert_true(static_files_etag_matches("\"a\"", "\"a\""));
        assert_true(static_files_etag_matches("W/\"a\"", "\"a\"")); /* weak comparison */
        assert_true(static_files_etag_matches("\"b\" , \"a\"", "\"a\""));
        assert_true(static_files_etag_matches("*", "\"a\""));
        assert_false(static_files_etag_matches("\"ab\"", "\"a\""));
        assert_false(static_files_etag_matches(NULL, "\"a\""));
}

static void test_content_types(void **state)
{
        (void)state;
        assert_string_equal(static_files_content_type("a.css"), "text/css; charset=utf-8");
        assert_string_equal(static_files_content_type("a.MJS"), "text/javascript; charset=utf-8");
        assert_string_equal(static_files_content_type("chart.umd.min.js.map"), "application/json");
        assert_string_equal(static_files_content_type("x.svg"), "image/svg+xml");
        assert_string_equal(static_files_content_type("README"), "application/octet-stream");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_resolution),    cmocka_unit_test(test_etag_and_gzip),
                cmocka_unit_test(test_accepts_gzip),  cmocka_unit_test(test_etag_matches),
                cmocka_unit_test(test_content_types),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
