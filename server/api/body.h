/*
 * body.h - a request body read as one JSON object: absent, not JSON
 * (duplicate keys refused), or any other JSON value than an object (a
 * bare number or string included, which RFC 8259 allows at the top) is a
 * 400 naming the rule.
 *
 * Memory: the object returned is a new reference the caller owns.
 * Thread-safety: reentrant.
 */
#ifndef GPUPLAN_API_BODY_H
#define GPUPLAN_API_BODY_H

#include <jansson.h>

#include "api/handler.h"

/* Parse the request body as one JSON object (duplicate keys refused); NULL with rs = 400. */
json_t *api_body_object(const struct api_request *rq, struct api_response *rs);

#endif
