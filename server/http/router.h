/*
 * router.h - match a request against the routing table (api/routes.c).
 *
 * Matching runs on the raw, still percent-encoded path, one segment at a
 * time, so an encoded "/" (%2F) stays inside its segment and cannot create
 * or skip a route segment.  Literal segments compare equal after decoding;
 * {name} segments match any non-empty segment and are decoded into the
 * match.  HEAD matches GET routes.  Paths with a bad escape or an encoded
 * NUL are refused.
 *
 * Also here: the path decoder used for static files.
 *
 * Memory: nothing allocated; results live in the caller's struct.
 * Thread-safety: pure functions of their arguments.
 */
#ifndef GPUPLAN_HTTP_ROUTER_H
#define GPUPLAN_HTTP_ROUTER_H

#include <stddef.h>

#include "api/handler.h"

#define ROUTER_PARAM_MAX 256
#define ROUTER_ALLOW_MAX 96

enum router_result {
        ROUTER_FOUND = 0,          /* m->route and params set */
        ROUTER_NOT_FOUND,          /* no pattern matches the path */
        ROUTER_METHOD_NOT_ALLOWED, /* m->allow lists the methods that match */
        ROUTER_BAD_PATH,           /* bad %-escape, encoded NUL, parameter too long */
};

struct router_match {
        int route; /* index into the table, or -1 */
        unsigned n_params;
        char params[API_PATH_PARAMS_MAX][ROUTER_PARAM_MAX];
        /* Methods the path accepts, "GET, HEAD, OPTIONS" style, for Allow. */
        char allow[ROUTER_ALLOW_MAX];
};

/*
 * Match method + raw_path (no query string) against routes (ending with a
 * NULL method).  For OPTIONS, returns ROUTER_FOUND with route -1 when any
 * pattern matches the path, and fills allow.
 */
enum router_result router_match(const struct api_route *routes, const char *method,
                                const char *raw_path, struct router_match *m);

/*
 * Percent-decode src[0..len) into dst (dstlen bytes with the NUL).
 * Returns the decoded length, or -1 on a bad escape, an encoded or raw
 * NUL, or no room.  '+' is kept as is (it only means space in queries).
 */
long router_decode(const char *src, size_t len, char *dst, size_t dstlen);

#endif
