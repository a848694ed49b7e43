/*
 * health.h - the operational endpoints: liveness, readiness, metrics.
 *
 * GET /healthz answers 200 while the process serves requests.  GET /readyz
 * answers 200 only when PostgreSQL is reachable, every embedded migration
 * is applied with its checksum, and a catalog snapshot is loaded; 503 with
 * the reason and Retry-After otherwise.  GET /metrics is the Prometheus
 * exposition of server/api/metrics.h.
 *
 * Handlers follow api/handler.h: stateless, callable from any thread.
 */
#ifndef GPUPLAN_API_HEALTH_H
#define GPUPLAN_API_HEALTH_H

#include "api/handler.h"

void health_live(const struct api_request *rq, struct api_response *rs);
void health_ready(const struct api_request *rq, struct api_response *rs);
void health_metrics(const struct api_request *rq, struct api_response *rs);

#endif
