/*
 * fit_heads.h - the part of an estimate's fit-table row that depends on
 * the GPU alone, written once per catalog snapshot.
 *
 * Every estimate answer has a fit row per catalog GPU (openapi.yaml
 * EstimateResponse.fits), and each row opens with the GPU's id and name
 * (escaped JSON strings) and its memory: {"gpu":"a10","name":"NVIDIA A10
 * 24GB","memory_bytes":25769803776.  Writing those per request was about
 * a sixth of rendering an answer; this table holds each GPU's head as
 * text the JSON writer made once (so it reads byte for byte as the writer
 * would write it per request), and the encoder copies it.
 *
 * Memory: the table is built when a snapshot is loaded
 * (api_fit_heads_prepare, which main.c runs with the snapshot's other
 * preparations), or on first use for a snapshot installed without it,
 * and attached to the snapshot (catalog_attach_extra), freed with it;
 * callers borrow it while they hold the snapshot.  Thread-safe: read-only
 * once attached; two threads racing to build it keep one.
 */
#ifndef GPUPLAN_API_FIT_HEADS_H
#define GPUPLAN_API_FIT_HEADS_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpu.h"

struct catalog_snapshot;
struct api_fit_heads;
struct jsonw;

/* The table for snapshot s (built on first use); NULL without a snapshot
 * or when memory runs out. */
const struct api_fit_heads *api_fit_heads_table(const struct catalog_snapshot *s);

/* Build and attach s's table (a catalog_prepare_fn's part). */
void api_fit_heads_prepare(const struct catalog_snapshot *s);

/*
 * The head of the row for gpus[i]: the text {"gpu":..,"name":..,
 * "memory_bytes":.. (an object opened and not closed) and its length in
 * *len.  NULL when t is NULL, was built for another GPU array than gpus,
 * has no row i, or holds another memory figure than memory_bytes (0 is
 * written as null, as the encoder writes it): the caller then writes the
 * members itself.
 */
const char *api_fit_heads_get(const struct api_fit_heads *t, const struct gpu_spec *gpus, size_t i,
                              uint64_t memory_bytes, size_t *len);

/* Writes the head of g's row with memory figure memory_bytes (0: null):
 * what the table holds, and what the encoder writes without it. */
void api_fit_heads_write(struct jsonw *w, const struct gpu_spec *g, uint64_t memory_bytes);

#endif
