/*
 * estimate_decode.h - the estimate request, JSON -> struct estimate_input.
 *
 * estimate_decode_request() validates a request object field by field
 * (types, ranges, enum names, unknown keys, contradictions) and fills a
 * struct estimate_input; a failure fills a struct fields_error (api/fields.h)
 * with the JSON pointer, the rule and a detail, which the caller turns
 * into a problem document.  The compare, serving and accuracy endpoints
 * reuse it: they decode the same workload object, telling the decoder
 * which extra top-level keys to leave alone (e.g. "constraints").
 *
 * Ownership: decode borrows body and the snapshot for the duration of the
 * call and keeps nothing.  All functions are thread-safe.
 */
#ifndef GPUPLAN_API_ESTIMATE_DECODE_H
#define GPUPLAN_API_ESTIMATE_DECODE_H

#include <jansson.h>

#include "api/fields.h"
#include "core/estimate.h"

struct catalog_snapshot;

/*
 * Decode and validate body into in.  snap resolves "model": {"id"} and
 * "gpu" (may be NULL: then ids are refused with 503-worthy detail and
 * status 503).  extra_keys is a NULL-terminated list of top-level keys
 * the caller handles itself (NULL for none); any other unknown key is a
 * 400.  Returns 0, or -1 with err filled.
 */
int estimate_decode_request(json_t *body, const struct catalog_snapshot *snap,
                            const char *const *extra_keys, struct estimate_input *in,
                            struct fields_error *err);

#endif
