/*
 * metrics.h - Prometheus counters of the HTTP service.
 *
 * Requests are counted by route (the matched pattern, never the raw path,
 * so label cardinality is bounded by the routing table), method and status,
 * with a latency histogram per route; plus requests in flight and any named
 * counters other modules add with metrics_count().  metrics_render()
 * writes the Prometheus text exposition format 0.0.4, including the
 * database pool's state when a pool is given.
 *
 * Memory: metrics_new() allocates one struct freed by metrics_free();
 * metrics_render() returns a malloc'd string the caller frees.
 *
 * Thread-safety: recording functions are lock-free (atomics) except
 * metrics_count() on a name's first use; all may be called from any thread.
 */
#ifndef GPUPLAN_API_METRICS_H
#define GPUPLAN_API_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct metrics;
struct db_pool;

/* Pseudo-routes for requests that matched no route. */
#define METRICS_ROUTE_STATIC (-1) /* served from the static directory */
#define METRICS_ROUTE_NONE   (-2) /* 404 / 405 / rejected before routing */

/* n_routes: entries in api_routes[] (labels are taken from it). */
struct metrics *metrics_new(unsigned n_routes);
void metrics_free(struct metrics *m);

/* Record a finished request.  route: index into api_routes[] or a METRICS_ROUTE_*. */
void metrics_observe(struct metrics *m, int route, const char *method, int status,
                     double duration_seconds);

void metrics_inflight_add(struct metrics *m, int delta);
long metrics_inflight(const struct metrics *m);

/*
 * Add n to the counter called name (a valid Prometheus metric name ending
 * in "_total", e.g. "gpuplan_catalog_reloads_total"; help is a static
 * one-line description).  Up to 32 names; further names are ignored.
 */
void metrics_count(struct metrics *m, const char *name, const char *help, uint64_t n);

/* The exposition text; *len set to its length.  NULL on allocation failure. */
char *metrics_render(struct metrics *m, struct db_pool *pool, size_t *len);

#endif
