/*
 * catalog_api.h - the catalog, pricing, compare and rent-vs-buy endpoints
 * (handlers for server/api/routes.c) and their JSON encoders.
 *
 * Reads are served from the catalog snapshot, never a database round trip
 * (except price history with as_of / history=all).  Writes need the admin
 * token, run one audited transaction each, and reload this replica's
 * snapshot before answering, so the writer reads its own write here; other
 * replicas reload on the NOTIFY the write's triggers send.
 *
 * Memory: encoders return new JSON references (NULL on allocation
 * failure) that the caller owns.  Thread-safety: all reentrant.
 */
#ifndef GPUPLAN_API_CATALOG_API_H
#define GPUPLAN_API_CATALOG_API_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "api/handler.h"
#include "catalog/catalog.h"

/* GET /api/v1/gpus, GET|PUT /api/v1/gpus/{id} (gpus.c) */
void api_gpus_list(const struct api_request *rq, struct api_response *rs);
void api_gpus_get(const struct api_request *rq, struct api_response *rs);
void api_gpus_put(const struct api_request *rq, struct api_response *rs);

/* GET /api/v1/providers, GET|PUT /api/v1/providers/{id}, PUT /api/v1/offerings/{id} (providers.c) */
void api_providers_list(const struct api_request *rq, struct api_response *rs);
void api_providers_get(const struct api_request *rq, struct api_response *rs);
void api_providers_put(const struct api_request *rq, struct api_response *rs);
void api_providers_offerings_put(const struct api_request *rq, struct api_response *rs);

/* GET|POST /api/v1/prices, GET|POST /api/v1/purchase_prices (prices.c) */
void api_prices_list(const struct api_request *rq, struct api_response *rs);
void api_prices_post(const struct api_request *rq, struct api_response *rs);
void price_import_api_skypilot(const struct api_request *rq, struct api_response *rs);
void api_prices_purchase_list(const struct api_request *rq, struct api_response *rs);
void api_prices_purchase_post(const struct api_request *rq, struct api_response *rs);

/* GET /api/v1/settings, PUT /api/v1/settings/{key} (settings.c) */
void api_settings_list(const struct api_request *rq, struct api_response *rs);
void api_settings_put(const struct api_request *rq, struct api_response *rs);

/* POST /api/v1/compare, POST /api/v1/rent_vs_buy (compare.c, rent_vs_buy.c) */
void api_compare(const struct api_request *rq, struct api_response *rs);
void api_rent_vs_buy(const struct api_request *rq, struct api_response *rs);
/* GET /api/v1/models and GET /api/v1/models/{id} (models.c). */
void api_models_list(const struct api_request *rq, struct api_response *rs);
void api_models_get(const struct api_request *rq, struct api_response *rs);
/* PUT /api/v1/models/{id}: a team's own model (admin). */
void api_models_put(const struct api_request *rq, struct api_response *rs);

/* POST /api/v1/serving_plan (serving_plan.c, search in plan/serving.c) */
void api_serving_plan(const struct api_request *rq, struct api_response *rs);

/*
 * The serving plan for one request body on snapshot s, as the JSON object
 * POST /api/v1/serving_plan answers (the caller owns it), or NULL with rs
 * holding the problem document.  Thread-safe.
 */
json_t *api_serving_plan_answer(const struct catalog_snapshot *s, json_t *body,
                                struct api_response *rs);

#endif
