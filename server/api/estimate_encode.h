/*
 * estimate_encode.h - an estimate's input and result -> the response
 * document (openapi.yaml EstimateResponse).
 *
 * estimate_encode_render() writes the document straight to text, the
 * estimate endpoint's hot path; estimate_encode_result() gives the same
 * document as a jansson tree for callers that embed it in a document of
 * their own (compare, serving plans).
 *
 * Ownership: inputs are borrowed for the call; returned text and trees
 * belong to the caller.  All functions are thread-safe.
 */
#ifndef GPUPLAN_API_ESTIMATE_ENCODE_H
#define GPUPLAN_API_ESTIMATE_ENCODE_H

#include <stddef.h>

#include <jansson.h>

#include "core/estimate.h"

struct api_uncertainty;
struct api_fit_heads;

/*
 * The response document for one run as compact JSON text.  gpus/n_gpus
 * are the array the result's indices refer to.  Returns malloc'd
 * NUL-terminated text the caller frees, its length in *len_out, or NULL
 * on allocation failure.
 */
char *estimate_encode_render(const struct estimate_input *in, const struct estimate_result *res,
                             const struct gpu_spec *gpus, size_t n_gpus, size_t *len_out);

/* The same with the "uncertainty" block (api/uncertainty.h) for the figures
 * of res, unc may be NULL (no block); and the fit rows' heads copied from
 * heads (api/fit_heads.h) where it holds them for gpus (NULL: written). */
char *estimate_encode_render_with(const struct estimate_input *in,
                                  const struct estimate_result *res, const struct gpu_spec *gpus,
                                  size_t n_gpus, const struct api_uncertainty *unc,
                                  const struct api_fit_heads *heads, size_t *len_out);

/*
 * The same document as a jansson tree (the text above, parsed).  Returns a
 * new reference, or NULL on allocation failure.
 */
json_t *estimate_encode_result(const struct estimate_input *in, const struct estimate_result *res,
                               const struct gpu_spec *gpus, size_t n_gpus);

/* The architecture object used in requests and responses; a new reference or NULL. */
json_t *estimate_encode_arch(const struct model_arch *arch);

#endif
