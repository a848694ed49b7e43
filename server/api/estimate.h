/*
 * estimate.h - POST /api/v1/estimate: JSON request -> engine -> JSON answer.
 *
 * The handler owns the request's lifecycle only: it parses the body,
 * resolves a Hub model (model_lookup.h), decodes the request
 * (estimate_decode.h), runs the engine and writes the response text
 * (estimate_encode.h).  It keeps nothing between requests and is
 * thread-safe.
 */
#ifndef GPUPLAN_API_ESTIMATE_H
#define GPUPLAN_API_ESTIMATE_H

#include "api/handler.h"

/* POST /api/v1/estimate. */
void api_estimate_handle(const struct api_request *rq, struct api_response *rs);

#endif
