/*
 * fit_options.h - POST /api/v1/fit_options: the cheapest sets of combined
 * changes that make an estimate request fit its GPU (see fit_options.c and
 * server/plan/fit_search.h).  Stateless and thread-safe; the handler
 * allocates per request and frees before returning.
 */
#ifndef GPUPLAN_API_FIT_OPTIONS_H
#define GPUPLAN_API_FIT_OPTIONS_H

#include "api/handler.h"

void api_fit_options(const struct api_request *rq, struct api_response *rs);

#endif
