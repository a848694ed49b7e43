/*
 * fuzz_router.c - libFuzzer harness for the request router (http/router.h).
 *
 * Input: "METHOD /raw/path" as text (a missing space means GET and the
 * whole input is the path; a NUL ends it, as a C string would).  The
 * harness matches it against the real routing table (api_routes[]) and
 * checks the answer against a reference matcher written here from the
 * contract in router.h, not from router.c:
 *
 *   - a path is split at every '/', each segment percent-decoded on its
 *     own (so "%2F" stays inside its segment);
 *   - the first route whose method matches (HEAD also matching GET) and
 *     whose literal segments equal the decoded segments wins, and its
 *     {name} segments are returned decoded;
 *   - a path some other method accepts is 405 with an Allow list, any
 *     other path 404.
 *
 * The full comparison runs when every segment decodes cleanly and fits a
 * parameter; otherwise only the router's own promises are checked (no
 * crash, a sane result, NUL-terminated strings).  router_decode() is also
 * compared byte for byte with the reference decoder at every output size.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/handler.h"
#include "http/router.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_PATH_MAX 4096

static void fail(const char *what, const char *method, const char *path)
{
        fprintf(stderr, "fuzz_router: %s (method \"%s\", path \"%s\")\n", what, method, path);
        abort();
}

static int ref_hex(unsigned char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        c = (unsigned char)(c | 0x20);
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

/*
 * Reference percent-decoder: RFC 3986 section 2.1 escapes, '+' kept, NUL
 * (raw or encoded) refused, and the result plus its terminator must fit
 * cap bytes.  Returns the length or -1.
 */
static long ref_decode(const char *s, size_t len, char *out, size_t cap)
{
        size_t o = 0;
        size_t i = 0;

        while (i < len) {
                unsigned char c = (unsigned char)s[i];
                if (c == '%') {
                        if (len - i < 3 || ref_hex((unsigned char)s[i + 1]) < 0 ||
                            ref_hex((unsigned char)s[i + 2]) < 0)
                                return -1;
                        c = (unsigned char)(ref_hex((unsigned char)s[i + 1]) * 16 +
                                            ref_hex((unsigned char)s[i + 2]));
                        i += 3;
                } else {
                        i++;
                }
                if (c == 0)
                        return -1;
                if (o + 1 >= cap)
                        return -1;
                out[o++] = (char)c;
        }
        if (cap == 0)
                return -1;
        out[o] = '\0';
        return (long)o;
}

struct ref_segments {
        unsigned n;
        const char *start[FUZZ_PATH_MAX / 2 + 1];
        size_t len[FUZZ_PATH_MAX / 2 + 1];
};

/* Split "/a/b/" into "a", "b", "" (the text after every '/'). */
static void ref_split(const char *path, struct ref_segments *segs)
{
        segs->n = 0;
        for (const char *p = path; *p == '/';) {
                const char *s = p + 1;
                const char *e = s;
                while (*e && *e != '/')
                        e++;
                segs->start[segs->n] = s;
                segs->len[segs->n] = (size_t)(e - s);
                segs->n++;
                p = e;
        }
}

static bool is_param(const char *seg, size_t len)
{
        return len >= 2 && seg[0] == '{' && seg[len - 1] == '}';
}

/* Does pattern match the decoded segments?  Fills params (decoded) in order. */
static bool ref_match(const char *pattern, const struct ref_segments *raw,
                      char params[API_PATH_PARAMS_MAX][ROUTER_PARAM_MAX], unsigned *n_params)
{
        struct ref_segments pat;
        char lit[ROUTER_PARAM_MAX];

        ref_split(pattern, &pat);
        *n_params = 0;
        if (pat.n != raw->n)
                return false;
        for (unsigned i = 0; i < pat.n; i++) {
                long dl = ref_decode(raw->start[i], raw->len[i], lit, sizeof(lit));
                if (dl < 0)
                        return false;
                if (is_param(pat.start[i], pat.len[i])) {
                        if (dl == 0)
                                return false;
                        if (*n_params < API_PATH_PARAMS_MAX)
                                memcpy(params[*n_params], lit, (size_t)dl + 1);
                        (*n_params)++;
                        continue;
                }
                if ((size_t)dl != pat.len[i] || memcmp(lit, pat.start[i], pat.len[i]) != 0)
                        return false;
        }
        return true;
}

/* Every segment decodes and fits a parameter buffer: the reference then decides everything. */
static bool ref_well_formed(const struct ref_segments *raw)
{
        char buf[ROUTER_PARAM_MAX];

        for (unsigned i = 0; i < raw->n; i++)
                if (ref_decode(raw->start[i], raw->len[i], buf, sizeof(buf)) < 0)
                        return false;
        return true;
}

static bool method_serves(const char *route_method, const char *method)
{
        return strcmp(route_method, method) == 0 ||
               (strcmp(method, "HEAD") == 0 && strcmp(route_method, "GET") == 0);
}

static bool list_has(const char *allow, const char *method)
{
        size_t ml = strlen(method);

        if (ml == 0)
                return false;
        for (const char *p = allow; (p = strstr(p, method)) != NULL; p += ml)
                if ((p == allow || p[-1] == ' ') && (p[ml] == ',' || p[ml] == '\0'))
                        return true;
        return false;
}

static void check_decoder(const char *path, size_t len)
{
        static char mine[FUZZ_PATH_MAX + 1];
        static char theirs[FUZZ_PATH_MAX + 1];

        /* Every output size from 0 up to one more than the input needs. */
        for (size_t cap = 0; cap <= len + 1; cap += 1 + cap / 8) {
                long a = ref_decode(path, len, mine, cap);
                long b = router_decode(path, len, theirs, cap);
                if (a != b)
                        fail("router_decode disagrees with the reference on the length", "-", path);
                if (a >= 0 && memcmp(mine, theirs, (size_t)a + 1) != 0)
                        fail("router_decode disagrees with the reference on the bytes", "-", path);
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static char text[FUZZ_PATH_MAX + 1];
        static struct router_match m;
        static struct ref_segments raw;
        static char ref_params[API_PATH_PARAMS_MAX][ROUTER_PARAM_MAX];
        char method[16] = "GET";
        const char *path;
        size_t len;

        if (size > FUZZ_PATH_MAX)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        len = strlen(text);
        path = text;
        char *sp = memchr(text, ' ', len);
        if (sp && (size_t)(sp - text) < sizeof(method)) {
                memcpy(method, text, (size_t)(sp - text));
                method[sp - text] = '\0';
                path = sp + 1;
        }

        check_decoder(path, strlen(path));

        enum router_result rc = router_match(api_routes, method, path, &m);

        /* The router's own promises, whatever the input. */
        if (memchr(m.allow, '\0', sizeof(m.allow)) == NULL)
                fail("Allow list not terminated", method, path);
        if (m.n_params > API_PATH_PARAMS_MAX)
                fail("too many parameters", method, path);
        for (unsigned i = 0; i < m.n_params && rc == ROUTER_FOUND; i++)
                if (memchr(m.params[i], '\0', ROUTER_PARAM_MAX) == NULL)
                        fail("parameter not terminated", method, path);
        switch (rc) {
        case ROUTER_FOUND:
                if (m.route < 0 && strcmp(method, "OPTIONS") != 0)
                        fail("found without a route", method, path);
                if (m.route >= 0 && !method_serves(api_routes[m.route].method, method))
                        fail("found a route of another method", method, path);
                break;
        case ROUTER_METHOD_NOT_ALLOWED:
                if (m.allow[0] == '\0' || list_has(m.allow, method))
                        fail("405 with an empty Allow list, or one naming the method", method,
                             path);
                break;
        case ROUTER_NOT_FOUND:
        case ROUTER_BAD_PATH:
                break;
        default:
                fail("result outside the enum", method, path);
        }

        /* The reference decides well-formed absolute paths completely. */
        if (path[0] != '/') {
                if (rc != ROUTER_BAD_PATH)
                        fail("a relative path was not refused", method, path);
                return 0;
        }
        ref_split(path, &raw);
        if (!ref_well_formed(&raw))
                return 0;
        int want = -1;
        bool other_method = false;
        unsigned n_params = 0;
        for (int i = 0; api_routes[i].method; i++) {
                unsigned np;
                if (!ref_match(api_routes[i].pattern, &raw, ref_params, &np))
                        continue;
                if (method_serves(api_routes[i].method, method) && strcmp(method, "OPTIONS") != 0) {
                        want = i;
                        n_params = np;
                        break;
                }
                other_method = true;
        }
        if (want >= 0) {
                if (rc != ROUTER_FOUND || m.route != want)
                        fail("the reference found a different route", method, path);
                if (m.n_params != n_params)
                        fail("parameter count differs from the pattern's", method, path);
                for (unsigned i = 0; i < n_params; i++)
                        if (strcmp(m.params[i], ref_params[i]) != 0)
                                fail("a parameter decoded differently", method, path);
        } else if (other_method) {
                if (strcmp(method, "OPTIONS") == 0) {
                        if (rc != ROUTER_FOUND || m.route != -1 || !list_has(m.allow, "OPTIONS"))
                                fail("OPTIONS on a known path is not answered with Allow", method,
                                     path);
                } else if (rc != ROUTER_METHOD_NOT_ALLOWED) {
                        fail("a path another method serves is not 405", method, path);
                }
        } else if (rc != ROUTER_NOT_FOUND) {
                fail("an unknown path is not 404", method, path);
        }
        return 0;
}
