/*
 * fuzz_static_path.c - libFuzzer harness for static-file resolution
 * (http/static_files.h), fed the way the transport feeds it: the raw path
 * is percent-decoded with router_decode() and then resolved.
 *
 * Input: up to three lines, "raw path\nIf-None-Match\nAccept-Encoding".
 *
 * At start the harness builds a small site in a fresh temporary directory
 * and, beside it, things that must never be served:
 *
 *   outside/secret.txt                 a file outside the served root
 *   site/index.html, app.js, css/site.css, sub/index.html   served
 *   site/.env, site/.git/config        hidden: never served
 *   site/escape -> ../outside          a directory symlink
 *   site/link.txt -> ../outside/secret.txt, site/css/up.css -> ../app.js
 *                                      file symlinks (refused, even inside)
 *
 * Oracle: a 200 answered from a file descriptor must be one of the served
 * files (compared by device and inode).  Every file that must not be
 * served is under 256 bytes, below the size the module compresses, so a
 * gzip body can only come from a served file; its ETag must then carry
 * the size of one of the compressible served files.  A 304 needs an
 * If-None-Match.  The site is removed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/router.h"
#include "http/static_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_INPUT_MAX    4096
#define FUZZ_RAW_PATH_MAX 2048 /* the transport's RAW_PATH_MAX */

struct site_file {
        const char *rel;
        size_t bytes;
        bool served;
        dev_t dev;
        ino_t ino;
};

static struct site_file site[] = {
        {"site/index.html", 2000, true, 0, 0},   {"site/app.js", 3000, true, 0, 0},
        {"site/css/site.css", 100, true, 0, 0},  {"site/sub/index.html", 300, true, 0, 0},
        {"site/.env", 30, false, 0, 0},          {"site/.git/config", 30, false, 0, 0},
        {"outside/secret.txt", 40, false, 0, 0},
};
#define SITE_FILES (sizeof(site) / sizeof(site[0]))

static const char *const site_dirs[] = {"outside", "site", "site/css", "site/sub", "site/.git"};
#define SITE_DIRS (sizeof(site_dirs) / sizeof(site_dirs[0]))

static const char *const site_links[][2] = {
        {"site/escape", "../outside"},
        {"site/link.txt", "../outside/secret.txt"},
        {"site/css/up.css", "../app.js"},
};
#define SITE_LINKS (sizeof(site_links) / sizeof(site_links[0]))

static char tmp_root[256];
static struct static_files *files;

static void die(const char *what)
{
        fprintf(stderr, "fuzz_static_path: %s: %s\n", what, strerror(errno));
        abort();
}

static void fail(const char *what, const char *path)
{
        fprintf(stderr, "fuzz_static_path: %s (decoded path \"%s\")\n", what, path);
        abort();
}

static void at(char *buf, size_t len, const char *rel)
{
        snprintf(buf, len, "%s/%s", tmp_root, rel);
}

static void remove_site(void)
{
        char path[512];

        if (files)
                static_files_close(files);
        files = NULL;
        for (size_t i = 0; i < SITE_LINKS; i++) {
                at(path, sizeof(path), site_links[i][0]);
                unlink(path);
        }
        for (size_t i = 0; i < SITE_FILES; i++) {
                at(path, sizeof(path), site[i].rel);
                unlink(path);
        }
        for (size_t i = SITE_DIRS; i-- > 0;) {
                at(path, sizeof(path), site_dirs[i]);
                rmdir(path);
        }
        rmdir(tmp_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        const char *tmp = getenv("TMPDIR");
        char path[512];
        char err[256];
        struct stat st;

        (void)argc;
        (void)argv;
        snprintf(tmp_root, sizeof(tmp_root), "%s/gpuplan-fuzz-static-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(tmp_root))
                die("mkdtemp");
        atexit(remove_site);
        for (size_t i = 0; i < SITE_DIRS; i++) {
                at(path, sizeof(path), site_dirs[i]);
                if (mkdir(path, 0755) != 0)
                        die(path);
        }
        for (size_t i = 0; i < SITE_FILES; i++) {
                FILE *f;
                at(path, sizeof(path), site[i].rel);
                f = fopen(path, "wb");
                if (!f)
                        die(path);
                for (size_t b = 0; b < site[i].bytes; b++)
                        fputc(b % 64 == 63 ? '\n' : 'a' + (int)(i % 26), f);
                if (fclose(f) != 0 || stat(path, &st) != 0)
                        die(path);
                site[i].dev = st.st_dev;
                site[i].ino = st.st_ino;
        }
        for (size_t i = 0; i < SITE_LINKS; i++) {
                at(path, sizeof(path), site_links[i][0]);
                if (symlink(site_links[i][1], path) != 0)
                        die(path);
        }
        at(path, sizeof(path), "site");
        files = static_files_open(path, err, sizeof(err));
        if (!files) {
                fprintf(stderr, "fuzz_static_path: static_files_open: %s\n", err);
                abort();
        }
        return 0;
}

/* Split the input at '\n' into at most three NUL-terminated fields. */
static unsigned split_lines(char *text, char *fields[3])
{
        unsigned n = 0;

        fields[n++] = text;
        for (char *p = text; *p && n < 3; p++) {
                if (*p == '\n') {
                        *p = '\0';
                        fields[n++] = p + 1;
                }
        }
        return n;
}

static void check_result(const char *decoded, const char *inm, const struct static_file *f)
{
        struct stat st;

        switch (f->status) {
        case 404:
                if (f->fd >= 0 || f->body)
                        fail("404 holds a file", decoded);
                return;
        case 304:
                if (!inm)
                        fail("304 without If-None-Match", decoded);
                if (f->fd >= 0 || f->body)
                        fail("304 holds a file", decoded);
                return;
        case 200:
                break;
        default:
                fail("status outside 200/304/404", decoded);
        }
        if (!f->content_type || !f->cache_control || f->etag[0] != '"')
                fail("200 without Content-Type, Cache-Control or ETag", decoded);
        if (f->gzip) {
                if (!f->body || f->fd >= 0)
                        fail("gzip answer without a body", decoded);
                /* The ETag starts with the identity size in hex: "<size>-<mtime>-gz". */
                unsigned long long identity = strtoull(f->etag + 1, NULL, 16);
                bool known = false;
                for (size_t i = 0; i < SITE_FILES; i++)
                        if (site[i].served && site[i].bytes == identity && site[i].bytes > 256)
                                known = true;
                if (!known)
                        fail("gzip answer for a file that is not served", decoded);
                return;
        }
        if (f->fd < 0 || fstat(f->fd, &st) != 0)
                fail("200 without an open file", decoded);
        if ((uint64_t)st.st_size != f->size)
                fail("size differs from the file's", decoded);
        for (size_t i = 0; i < SITE_FILES; i++) {
                if (site[i].dev != st.st_dev || site[i].ino != st.st_ino)
                        continue;
                if (!site[i].served)
                        fail("served a file that must not be served", decoded);
                return;
        }
        fail("served a file outside the site", decoded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static char text[FUZZ_INPUT_MAX + 1];
        static char decoded[FUZZ_RAW_PATH_MAX];
        char *fields[3] = {NULL, NULL, NULL};
        struct static_file f;

        if (size > FUZZ_INPUT_MAX)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        unsigned n = split_lines(text, fields);
        const char *inm = n > 1 ? fields[1] : NULL;
        const char *ae = n > 2 ? fields[2] : NULL;

        /* The helpers on their own, with arbitrary header text. */
        (void)static_files_accepts_gzip(fields[0]);
        (void)static_files_etag_matches(fields[0], "\"7d0-1\"");
        (void)static_files_content_type(fields[0]);

        if (router_decode(fields[0], strlen(fields[0]), decoded, sizeof(decoded)) < 0)
                return 0;
        if (static_files_get(files, decoded, inm, ae, &f) != 0)
                return 0; /* an I/O failure: the transport answers 500 */
        check_result(decoded, inm, &f);
        static_files_release(&f);
        return 0;
}
