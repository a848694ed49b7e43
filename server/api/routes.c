/*
 * routes.c - the routing table: method + path pattern -> handler.
 *
 * Patterns are literal segments and {name} segments (one whole segment
 * each); the transport (server/http/router.c) matches them on the raw,
 * still percent-encoded path, so "%2F" inside a {name} is part of that
 * segment, and decodes each parameter before the handler sees it.  A path
 * that matches a pattern under another method gets 405 with Allow.
 * HEAD is served by the GET route; OPTIONS is answered by the transport.
 *
 * Add one line per endpoint, grouped by owner, and document it in
 * openapi.yaml.
 */
#include <stddef.h>

#include "api/handler.h"
#include "api/health.h"

const struct api_route api_routes[] = {
        /* Operations */
        {"GET", "/healthz", health_live, 0},
        {"GET", "/readyz", health_ready, 0},
        {"GET", "/metrics", health_metrics, 0},

        {NULL, NULL, NULL, 0},
};
