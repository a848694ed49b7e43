/*
 * fuzz_framing.c - libFuzzer harness for the request framing checks
 * (http/framing.h).
 *
 * Input: a header block, one "Name: value" per line ('\n' ends a line;
 * the value starts after ':' and its spaces or tabs; a line without ':'
 * is skipped, as libmicrohttpd refuses it before any handler runs).  NUL
 * and every other byte reach framing_header() as they are.  The verdict
 * is checked against a reference written here from framing.h's rules:
 *
 *   - 400 when a name is empty or not a token or a value holds a control
 *     character other than HTAB (DEL included), when Content-Length
 *     appears twice, or with Transfer-Encoding;
 *   - else 501 when Transfer-Encoding is not one header reading exactly
 *     "chunked" (any case);
 *   - else 0.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        return 0;
}

static bool ref_tchar(unsigned char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool ref_is(const char *p, size_t n, const char *want)
{
        return n == strlen(want) && strncasecmp(p, want, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *p = (const char *)data, *end = p + size, *why = NULL;
        struct framing f;
        bool bad = false;
        unsigned cl = 0, te = 0, hosts = 0;
        bool chunked = false;

        framing_init(&f);
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *le = nl ? nl : end;
                const char *colon = memchr(p, ':', (size_t)(le - p));
                if (colon) {
                        const char *v = colon + 1;
                        size_t nlen = (size_t)(colon - p);
                        while (v < le && (*v == ' ' || *v == '\t'))
                                v++;
                        size_t vlen = (size_t)(le - v);
                        framing_header(&f, p, nlen, v, vlen);
                        /* the reference */
                        bool line_bad = nlen == 0;
                        for (size_t i = 0; i < nlen; i++)
                                line_bad = line_bad || !ref_tchar((unsigned char)p[i]);
                        for (size_t i = 0; !line_bad && i < vlen; i++) {
                                unsigned char c = (unsigned char)v[i];
                                line_bad = (c < 0x20 && c != '\t') || c == 0x7f;
                        }
                        bad = bad || line_bad;
                        if (!line_bad && ref_is(p, nlen, "content-length"))
                                cl++;
                        if (!line_bad && ref_is(p, nlen, "host"))
                                hosts++;
                        if (!line_bad && ref_is(p, nlen, "transfer-encoding")) {
                                te++;
                                chunked = vlen == 7 && strncasecmp(v, "chunked", 7) == 0;
                        }
                }
                p = nl ? nl + 1 : end;
        }
        int want = bad || cl > 1 || (te && cl) || hosts > 1 ? 400
                   : (te > 1 || (te && !chunked))           ? 501
                                                            : 0;
        int got = framing_verdict(&f, &why);
        if (got != want) {
                fprintf(stderr, "fuzz_framing: verdict %d, the reference says %d\n", got, want);
                abort();
        }
        if (got && (!why || !*why)) {
                fprintf(stderr, "fuzz_framing: a refusal without a detail\n");
                abort();
        }
        return 0;
}
