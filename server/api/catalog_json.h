/*
 * catalog_json.h - the catalog's entities (accelerators, offerings,
 * providers, prices, purchase prices, settings, models) as the API's JSON.
 *
 * Every reader of an entity's JSON calls down into these encoders: the
 * GET handlers, the per-snapshot rendering (catalog_render.h) and the
 * replies to writes (api/catalog.h), so one shape is served everywhere.
 *
 * Memory: each encoder returns a new jansson object the caller owns, or
 * NULL when memory ran out.  Thread-safety: pure functions of an acquired
 * snapshot; safe from any thread while the caller holds it.
 */
#ifndef GPUPLAN_API_CATALOG_JSON_H
#define GPUPLAN_API_CATALOG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/gpu.h"

/* Field values as the API shows them: 0 -> null (unknown), NULL text -> null. */
json_t *catalog_json_num(double v);
json_t *catalog_json_u64(uint64_t v);
json_t *catalog_json_int(int64_t v);
json_t *catalog_json_str(const char *s);

/* The throughput_flops keys, by enum gpu_precision ("fp32", "bf16", ...). */
extern const char *const catalog_json_precision_keys[GPU_PRECISION_COUNT];

/* index is into catalog_gpus(); detail adds offerings with prices and purchase prices. */
json_t *catalog_json_gpu(const struct catalog_snapshot *s, size_t index, bool detail);
/* A price row in the contract's shape; its offering is looked up in s by id. */
json_t *catalog_json_price(const struct catalog_snapshot *s, const struct catalog_price *p);
json_t *catalog_json_purchase_price(const struct catalog_snapshot *s,
                                    const struct catalog_purchase_price *p);
json_t *catalog_json_offering(const struct catalog_snapshot *s, const struct catalog_offering *o);
json_t *catalog_json_provider(const struct catalog_snapshot *s, const struct catalog_provider *p,
                              bool with_offerings);
json_t *catalog_json_setting(const struct catalog_setting *st);
/* A model as GET /api/v1/models{,/id} shows it (models.c). */
json_t *catalog_json_model(const struct catalog_model *m, bool detail);

#endif
