/*
 * routes.c - the routing table: method + path pattern -> handler.
 *
 * Patterns are literal segments and {name} segments (one whole segment
 * each); the transport (server/http/router.c) matches them on the raw,
 * still percent-encoded path, so "%2F" inside a {name} is part of that
 * segment, and decodes each parameter before the handler sees it.  A path
 * that matches a pattern under another method gets 405 with Allow.
 * HEAD is served by the GET route; OPTIONS is answered by the transport.
 *
 * Add one line per endpoint, grouped by owner, and document it in
 * openapi.yaml.  Flag every handler that can reach PostgreSQL with
 * API_ROUTE_DB and every one that computes for more than about a
 * millisecond with API_ROUTE_SLOW (handler.h): unflagged handlers run on
 * the event loop.
 */
#include <stddef.h>

#include "api/catalog_api.h"
#include "api/estimate.h"
#include "api/fit_options.h"
#include "api/handler.h"
#include "api/health.h"
#include "api/model_lookup.h"
#include "api/serving_validation.h"
#include "api/accuracy.h"

const struct api_route api_routes[] = {
        /* Operations */
        {"GET", "/healthz", health_live, 0},
        {"GET", "/readyz", health_ready, API_ROUTE_DB},
        {"GET", "/metrics", health_metrics, 0},

        /*
         * Catalog, prices and ownership settings (catalog_api.h).  The write
         * handlers check the admin token themselves (admin_check: 401
         * without credentials, 403 for a wrong token or when writes are off).
         */
        {"GET", "/api/v1/gpus", api_gpus_list, 0},
        {"GET", "/api/v1/gpus/{id}", api_gpus_get, 0},
        {"PUT", "/api/v1/gpus/{id}", api_gpus_put, API_ROUTE_BODY | API_ROUTE_DB},
        {"GET", "/api/v1/providers", api_providers_list, 0},
        {"GET", "/api/v1/providers/{id}", api_providers_get, 0},
        {"PUT", "/api/v1/providers/{id}", api_providers_put, API_ROUTE_BODY | API_ROUTE_DB},
        {"PUT", "/api/v1/offerings/{id}", api_providers_offerings_put,
         API_ROUTE_BODY | API_ROUTE_DB},
        {"GET", "/api/v1/prices", api_prices_list, API_ROUTE_DB},
        {"POST", "/api/v1/prices", api_prices_post, API_ROUTE_BODY | API_ROUTE_DB},
        {"POST", "/api/v1/prices/import/skypilot", price_import_api_skypilot,
         API_ROUTE_BODY | API_ROUTE_DB},
        {"GET", "/api/v1/purchase_prices", api_prices_purchase_list, 0},
        {"POST", "/api/v1/purchase_prices", api_prices_purchase_post,
         API_ROUTE_BODY | API_ROUTE_DB},
        {"GET", "/api/v1/settings", api_settings_list, 0},
        {"PUT", "/api/v1/settings/{key}", api_settings_put, API_ROUTE_BODY | API_ROUTE_DB},
        /*
         * Plan searches (server/plan/): API_ROUTE_SLOW runs them on the compute
         * pool, one worker per CPU, which is what bounds how many run at once.
         */
        {"POST", "/api/v1/compare", api_compare, API_ROUTE_BODY | API_ROUTE_SLOW},
        {"POST", "/api/v1/rent_vs_buy", api_rent_vs_buy, API_ROUTE_BODY | API_ROUTE_SLOW},
        {"POST", "/api/v1/serving_plan", api_serving_plan, API_ROUTE_BODY | API_ROUTE_SLOW},
        {"POST", "/api/v1/fit_options", api_fit_options, API_ROUTE_BODY | API_ROUTE_SLOW},

        /* Estimation engine (estimate.h, accuracy.h) */
        {"POST", "/api/v1/estimate", api_estimate_handle, API_ROUTE_BODY},
        {"GET", "/api/v1/models", api_models_list, 0},
        {"GET", "/api/v1/models/{id}", api_models_get, 0},
        {"PUT", "/api/v1/models/{id}", api_models_put, API_ROUTE_BODY | API_ROUTE_DB},
        {"GET", "/api/v1/hub/{org}/{name}", api_model_lookup_hub_get, 0},
        {"GET", "/api/v1/validation", accuracy_handle, API_ROUTE_DB},
        {"GET", "/api/v1/validation/serving", api_serving_validation_handle, API_ROUTE_DB},
        {"GET", "/api/v1/scenarios", accuracy_scenarios_handle, API_ROUTE_DB},

        {NULL, NULL, NULL, 0},
};
