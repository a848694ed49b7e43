/*
 * replay_main.c - run a fuzz harness over saved inputs, without libFuzzer.
 *
 * Each harness's LLVMFuzzerTestOneInput() is linked with this main() into
 * a plain executable (built by gcc in every configuration, sanitizers
 * included) that reads every file of the directories or files named on
 * the command line and feeds each to the harness once.  ctest runs it over
 * the harness's seed corpus, so the corpus and every crash reproducer
 * saved there stay regression tests.  The same idea as jansson's
 * test/ossfuzz/standaloneengine.cc.
 *
 * Exit status: 0 when at least one input ran; 1 when none was found or a
 * file could not be read (a missing corpus must not pass silently).  A
 * harness failure aborts, which fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Inputs larger than this are not corpus files; refuse rather than allocate. */
#define REPLAY_MAX_BYTES (16u * 1024u * 1024u)

static int run_file(const char *path, unsigned *count)
{
        FILE *f = fopen(path, "rb");
        uint8_t *buf;
        long len;
        size_t got;

        if (!f) {
                fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
                return -1;
        }
        if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || len > (long)REPLAY_MAX_BYTES ||
            fseek(f, 0, SEEK_SET) != 0) {
                fprintf(stderr, "cannot size %s\n", path);
                fclose(f);
                return -1;
        }
        /* One byte more than needed so an empty file still gets a valid pointer. */
        buf = malloc((size_t)len + 1);
        if (!buf) {
                fclose(f);
                return -1;
        }
        got = fread(buf, 1, (size_t)len, f);
        fclose(f);
        if (got != (size_t)len) {
                fprintf(stderr, "short read on %s\n", path);
                free(buf);
                return -1;
        }
        /* An exact-size copy, so ASan catches a harness reading past the end. */
        uint8_t *exact = malloc(got ? got : 1);
        if (!exact) {
                free(buf);
                return -1;
        }
        memcpy(exact, buf, got);
        free(buf);
        LLVMFuzzerTestOneInput(exact, got);
        free(exact);
        (*count)++;
        return 0;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every regular file in dir, in name order (stable output). */
static int run_dir(const char *dir, unsigned *count)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        char **names = NULL;
        size_t n = 0;
        size_t cap = 0;
        int rc = 0;

        if (!d) {
                fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
                return -1;
        }
        while ((e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                        continue;
                if (n == cap) {
                        size_t ncap = cap ? cap * 2 : 64;
                        char **grown = realloc(names, ncap * sizeof(*names));
                        if (!grown) {
                                rc = -1;
                                break;
                        }
                        names = grown;
                        cap = ncap;
                }
                size_t len = strlen(dir) + strlen(e->d_name) + 2;
                names[n] = malloc(len);
                if (!names[n]) {
                        rc = -1;
                        break;
                }
                snprintf(names[n], len, "%s/%s", dir, e->d_name);
                n++;
        }
        closedir(d);
        if (n)
                qsort(names, n, sizeof(*names), compare_names);
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
                        rc = run_file(names[i], count);
                free(names[i]);
        }
        free(names);
        return rc;
}

int main(int argc, char **argv)
{
        unsigned count = 0;

        LLVMFuzzerInitialize(&argc, &argv);
        for (int i = 1; i < argc; i++) {
                struct stat st;
                int rc;

                if (stat(argv[i], &st) != 0) {
                        fprintf(stderr, "cannot stat %s: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                rc = S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i], &count);
                if (rc)
                        return 1;
        }
        printf("%s: %u inputs replayed\n", argv[0], count);
        return count ? 0 : 1;
}
