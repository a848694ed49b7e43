/*
 * catalog_render.h - the catalog's JSON documents, rendered once per
 * snapshot and served as bytes.
 *
 * Building a jansson tree and dumping it for every GET /api/v1/gpus cost
 * far more than the request itself (the profile was jansson allocation and
 * number formatting).  The catalog only changes when a new snapshot is
 * swapped in, so the first reader of a snapshot renders every list and
 * every per-row fragment through the shared encoder (api_reply_json, so the
 * bytes are exactly what the live path would send) and attaches them to the
 * snapshot; later readers copy bytes.  Filtered lists are assembled from
 * the per-row fragments, so they cost a memcpy per row.
 *
 * Memory: the rendering belongs to its snapshot (a catalog attachment) and
 * is freed with it; pointers into it are valid while the caller holds the
 * snapshot.  Thread-safety: api_catalog_render() may race on a fresh
 * snapshot; every racer builds, one wins, the others free theirs.  A
 * rendering is immutable once attached.
 */
#ifndef GPUPLAN_API_CATALOG_RENDER_H
#define GPUPLAN_API_CATALOG_RENDER_H

#include <stddef.h>

#include "api/handler.h"
#include "catalog/catalog.h"

struct api_text {
        char *bytes; /* compact JSON, not NUL-terminated in joins; NULL = not rendered */
        size_t len;
};

struct api_catalog_render {
        struct catalog_attachment base;
        size_t n_gpus, n_providers, n_prices, n_purchase_prices;
        struct api_text *gpu_rows;      /* [n_gpus] catalog_json_gpu(s, i, false) */
        struct api_text *gpu_docs;      /* [n_gpus] catalog_json_gpu(s, i, true) */
        struct api_text *provider_docs; /* [n_providers] with offerings = a list row */
        struct api_text *price_rows;    /* [n_prices] catalog_prices() order */
        struct api_text *purchase_rows; /* [n_purchase_prices] */
        struct api_text loaded_at;      /* "\"2026-...Z\"": the list's catalog_loaded_at */
        struct api_text gpus_list;      /* GET /api/v1/gpus without a query */
        struct api_text providers_list; /* GET /api/v1/providers without a query */
        struct api_text prices_list;    /* GET /api/v1/prices without a query */
        struct api_text purchase_list;  /* GET /api/v1/purchase_prices without a query */
        struct api_text settings_list;  /* GET /api/v1/settings */
};

/*
 * The rendering of s, built on first use.  NULL only when memory ran out;
 * a document that could not be rendered has bytes NULL, and the replies
 * below refuse it.  Either way the caller renders live, as before.
 */
const struct api_catalog_render *api_catalog_render(const struct catalog_snapshot *s);

/* rs = 200 application/json with a copy of t.  Returns 0, or -1 (rs untouched) when t is
 * unrendered or memory ran out. */
int api_catalog_render_text(struct api_response *rs, const struct api_text *t);

/*
 * rs = 200 application/json: head, then rows[idx[0]], ",", rows[idx[1]], ...,
 * then tail (head and tail are literal JSON text).  Returns 0, or -1 (rs untouched) when a
 * chosen row is unrendered or memory ran out.
 */
int api_catalog_render_rows(struct api_response *rs, const char *head, const struct api_text *rows,
                            const size_t *idx, size_t n, const char *tail);

#endif
