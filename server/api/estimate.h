/*
 * estimate.h - POST /api/v1/estimate: JSON request -> engine -> JSON answer.
 *
 * api_estimate_decode() validates a request object field by field (types,
 * ranges, enum names, unknown keys, contradictions) and fills a struct
 * estimate_input; api_estimate_render() turns an input and its result into
 * the response text (api_estimate_encode() into the same document as a
 * tree).  The compare endpoint reuses both: it decodes the
 * same workload object (telling the decoder which extra top-level keys to
 * leave alone, e.g. "constraints") and encodes results of its own runs.
 *
 * Ownership: decode borrows body and the snapshot for the duration of the
 * call and keeps nothing; encode returns a new reference the caller owns.
 * All functions are thread-safe.
 */
#ifndef GPUPLAN_API_ESTIMATE_H
#define GPUPLAN_API_ESTIMATE_H

#include <stddef.h>

#include <jansson.h>

#include "api/handler.h"
#include "core/estimate.h"

struct catalog_snapshot;

/* Where a request went wrong: the same three strings the problem document carries. */
struct api_estimate_error {
        char pointer[128]; /* RFC 6901 pointer, "/workload/batch_size" */
        char rule[48];     /* "type", "range", "enum", "unknown_field", "required", ... */
        char detail[1024]; /* room to list the valid names for a model */
        int status;        /* 400, or 404 for an unknown catalog model/GPU id */
};

/* Fill e (status, pointer, rule, printf-style detail); returns -1. */
__attribute__((format(printf, 5, 6))) int api_estimate_fail(struct api_estimate_error *e,
                                                            int status, const char *ptr,
                                                            const char *rule, const char *fmt, ...);

/*
 * Decode and validate body into in.  snap resolves "model": {"id"} and
 * "gpu" (may be NULL: then ids are refused with 503-worthy detail and
 * status 503).  extra_keys is a NULL-terminated list of top-level keys
 * the caller handles itself (NULL for none); any other unknown key is a
 * 400.  Returns 0, or -1 with err filled.
 */
int api_estimate_decode(json_t *body, const struct catalog_snapshot *snap,
                        const char *const *extra_keys, struct estimate_input *in,
                        struct api_estimate_error *err);

/*
 * The response document for one run (see openapi.yaml EstimateResponse) as
 * compact JSON text, written without building a tree (the endpoint's hot
 * path).  gpus/n_gpus are the array the result's indices refer to.  Returns
 * malloc'd NUL-terminated text the caller frees, its length in *len_out, or
 * NULL on allocation failure.
 */
char *api_estimate_render(const struct estimate_input *in, const struct estimate_result *res,
                          const struct gpu_spec *gpus, size_t n_gpus, size_t *len_out);

/* The same with the "uncertainty" block (api/uncertainty.h) for the figures
 * of res; unc may be NULL (no block). */
struct api_uncertainty;
char *api_estimate_render_with(const struct estimate_input *in, const struct estimate_result *res,
                               const struct gpu_spec *gpus, size_t n_gpus,
                               const struct api_uncertainty *unc, size_t *len_out);

/*
 * The same document as a jansson tree (the text above, parsed), for callers
 * that embed it in a document of their own.  Returns a new reference, or
 * NULL on allocation failure.
 */
json_t *api_estimate_encode(const struct estimate_input *in, const struct estimate_result *res,
                            const struct gpu_spec *gpus, size_t n_gpus);

/* The architecture object used in requests and responses. */
json_t *api_model_arch_encode(const struct model_arch *arch);

/* POST /api/v1/estimate. */
void api_estimate_handle(const struct api_request *rq, struct api_response *rs);

#endif
