/*
 * serving_validation.h - GET /api/v1/validation/serving: the serving
 * planner against published load tests.
 *
 * Reads the rows of migrations/0028_serving_loadtests.sql (not a hot
 * path: it waits on PostgreSQL), asks POST /api/v1/serving_plan's answer
 * function about each row's deployment at its load, and compares the time
 * to first token and time per output token with the measured ones (the
 * statistic each row names: median, mean or p99).  The answer lists every
 * case with its error and the median and p90 of |error| per engine and
 * metric.  No state; thread-safe.
 */
#ifndef GPUPLAN_API_SERVING_VALIDATION_H
#define GPUPLAN_API_SERVING_VALIDATION_H

#include "api/handler.h"

void api_serving_validation_handle(const struct api_request *rq, struct api_response *rs);

#endif
