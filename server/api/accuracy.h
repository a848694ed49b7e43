/*
 * accuracy.h - the engine against published measurements, and the seed
 * scenarios beside the engine's figures.
 *
 * GET /api/v1/validation runs every measured case of the measurements
 * table through the engine and returns source, configuration, measured,
 * estimated and relative error per case plus the median and 90th
 * percentile of the absolute errors.  GET /api/v1/scenarios returns the
 * seed's XLM-RoBERTa rows verbatim with the engine's estimate for the
 * assumed setup of each.
 *
 * accuracy_case() is the one place a case is evaluated, shared by
 * the endpoint, the accuracy tool and the unit tests.
 *
 * Ownership: functions borrow their JSON arguments; returned JSON values
 * are new references.  Thread-safe.
 */
#ifndef GPUPLAN_API_ACCURACY_H
#define GPUPLAN_API_ACCURACY_H

#include <stddef.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "api/estimate_decode.h"
#include "api/handler.h"

struct catalog_snapshot;

struct accuracy_result {
        double measured_bytes;
        double estimated_bytes; /* allocated for max_allocated, reserved for max_reserved,
                                 * total (device memory in use) for nvidia_smi */
        double error;           /* (estimated - measured) / measured */
        unsigned long long total_bytes;
        unsigned long long allocated_bytes;
};

/*
 * Evaluate one case: request is an estimate request body, kind is
 * "max_allocated", "max_reserved" or "nvidia_smi".  snap resolves catalog
 * ids (may be NULL when the request names none).  Returns 0, or -1 with
 * err filled.
 */
int accuracy_case(json_t *request, const char *kind, double measured_bytes,
                  const struct catalog_snapshot *snap, struct accuracy_result *out,
                  struct fields_error *err);

/*
 * The engine's figure for a throughput metric (see tests/data/throughput.json
 * "about"): tokens_per_second_per_gpu, mfu, tflops_per_gpu,
 * seconds_per_step, samples_per_second, decode_tokens_per_second, tpot_ms,
 * ttft_ms, prefill_tokens_per_second, output_tokens_per_second.  request
 * must name a catalog GPU.  Returns 0 with *estimated and *error
 * ((estimated - measured) / measured), or -1 with err filled (400 for a
 * request the engine refuses or an unknown metric).
 */
int accuracy_time_case(json_t *request, const char *metric, double measured,
                       const struct catalog_snapshot *snap, double *estimated, double *error,
                       struct fields_error *err);

/* Median and 90th percentile (nearest rank) of |errors|; sorts a copy in buf (n entries). */
void accuracy_summary(const double *errors, size_t n, double *buf, double *median, double *p90);

/*
 * The rows one engine-data query returns (query: a db/ function that
 * renders its table as a JSON array), parsed; a new reference, or NULL with
 * rs filled: 503 when the database cannot answer, 500 naming what (e.g.
 * "measurements") when the text is not an array.
 */
json_t *accuracy_load_rows(const struct api_request *rq, struct api_response *rs,
                           char *(*query)(PGconn *, char *, size_t), const char *what);

void accuracy_handle(const struct api_request *rq, struct api_response *rs);
void accuracy_scenarios_handle(const struct api_request *rq, struct api_response *rs);

#endif
