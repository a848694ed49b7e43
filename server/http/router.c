/*
 * router.c - segment-wise route matching; see router.h.
 */
#include "http/router.h"

#include <stdbool.h>
#include <string.h>

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

long router_decode(const char *src, size_t len, char *dst, size_t dstlen)
{
        size_t out = 0;

        for (size_t i = 0; i < len; i++) {
                int c = (unsigned char)src[i];
                if (c == '%') {
                        int hi, lo;
                        if (i + 2 >= len)
                                return -1;
                        hi = hexval(src[i + 1]);
                        lo = hexval(src[i + 2]);
                        if (hi < 0 || lo < 0)
                                return -1;
                        c = hi * 16 + lo;
                        i += 2;
                }
                if (c == 0 || out + 1 >= dstlen)
                        return -1;
                dst[out++] = (char)c;
        }
        if (dstlen == 0)
                return -1;
        dst[out] = '\0';
        return (long)out;
}

/* Next segment of a path: *p points at '/' or NUL; returns false at the end. */
static bool next_segment(const char **p, const char **seg, size_t *len)
{
        if (**p != '/')
                return false;
        (*p)++;
        *seg = *p;
        /* Segments are a few bytes: a plain loop, not strcspn's setup. */
        while (**p && **p != '/')
                (*p)++;
        *len = (size_t)(*p - *seg);
        return true;
}

/* Does pattern match raw_path?  Fills params when m is not NULL.  -1: bad path. */
static int match_pattern(const char *pattern, const char *raw_path, struct router_match *m)
{
        const char *pp = pattern;
        const char *rp = raw_path;
        const char *pseg = NULL;
        const char *rseg = NULL;
        size_t plen = 0;
        size_t rlen = 0;
        unsigned n = 0;
        char lit[ROUTER_PARAM_MAX];

        for (;;) {
                bool pmore = next_segment(&pp, &pseg, &plen);
                bool rmore = next_segment(&rp, &rseg, &rlen);
                if (!pmore || !rmore)
                        return pmore == rmore;
                if (plen >= 2 && pseg[0] == '{' && pseg[plen - 1] == '}') {
                        if (rlen == 0)
                                return 0;
                        if (n >= API_PATH_PARAMS_MAX)
                                return 0;
                        if (m && router_decode(rseg, rlen, m->params[n], ROUTER_PARAM_MAX) < 0)
                                return -1;
                        n++;
                        continue;
                }
                if (rlen < sizeof(lit) && !memchr(rseg, '%', rlen)) {
                        /* Nothing to decode (and no NUL inside a C string):
                         * the segment is its own text.  Every route is tried
                         * for every request, so this is the common case. */
                        if (rlen != plen || memcmp(rseg, pseg, plen) != 0)
                                return 0;
                        continue;
                }
                long dl = router_decode(rseg, rlen, lit, sizeof(lit));
                if (dl < 0) {
                        /* Too long or malformed: it cannot equal a literal anyway. */
                        if (rlen < sizeof(lit))
                                return -1;
                        return 0;
                }
                if ((size_t)dl != plen || memcmp(lit, pseg, plen) != 0)
                        return 0;
        }
}

static int match_and_count(const char *pattern, const char *raw_path, struct router_match *m)
{
        int rc;

        if (m)
                m->n_params = 0;
        rc = match_pattern(pattern, raw_path, m);
        if (rc == 1 && m) {
                /* Count the {params} of the pattern. */
                unsigned n = 0;
                for (const char *p = pattern; (p = strchr(p, '{')) != NULL; p++)
                        n++;
                m->n_params = n > API_PATH_PARAMS_MAX ? API_PATH_PARAMS_MAX : n;
        }
        return rc;
}

static void allow_add(char *allow, const char *method)
{
        size_t n = strlen(allow);
        size_t ml = strlen(method);

        /* Already listed? */
        for (const char *p = allow; (p = strstr(p, method)) != NULL; p += ml)
                if ((p == allow || p[-1] == ' ') && (p[ml] == ',' || p[ml] == '\0'))
                        return;
        if (n + ml + 3 >= ROUTER_ALLOW_MAX)
                return;
        if (n)
                memcpy(allow + n, ", ", 3), n += 2;
        memcpy(allow + n, method, ml + 1);
}

enum router_result router_match(const struct api_route *routes, const char *method,
                                const char *raw_path, struct router_match *m)
{
        bool is_head = strcmp(method, "HEAD") == 0;
        bool path_known = false;

        m->route = -1;
        m->n_params = 0;
        m->allow[0] = '\0';
        if (raw_path[0] != '/')
                return ROUTER_BAD_PATH;
        for (int i = 0; routes[i].method; i++) {
                bool same = strcmp(routes[i].method, method) == 0 ||
                            (is_head && strcmp(routes[i].method, "GET") == 0);
                int rc = match_and_count(routes[i].pattern, raw_path, same ? m : NULL);
                if (rc < 0)
                        return ROUTER_BAD_PATH;
                if (rc == 0)
                        continue;
                path_known = true;
                if (same && strcmp(method, "OPTIONS") != 0) {
                        m->route = i;
                        return ROUTER_FOUND;
                }
                allow_add(m->allow, routes[i].method);
                if (strcmp(routes[i].method, "GET") == 0)
                        allow_add(m->allow, "HEAD");
        }
        if (!path_known)
                return ROUTER_NOT_FOUND;
        allow_add(m->allow, "OPTIONS");
        if (strcmp(method, "OPTIONS") == 0)
                return ROUTER_FOUND;
        return ROUTER_METHOD_NOT_ALLOWED;
}
