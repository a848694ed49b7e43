/*
 * catalog_render.c - the catalog's JSON documents, once per snapshot; see
 * catalog_render.h.
 *
 * Every fragment is produced by api_reply_json() on the same jansson
 * document the live handlers build, so the bytes (number formatting, key
 * order, escaping) are exactly the live path's; a list is its fragments
 * joined with "," between a literal head and tail, which is what jansson's
 * JSON_COMPACT output of the whole list is.
 */
#include "api/catalog_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/catalog_json.h"

/*
 * Render doc (reference stolen) through the shared encoder.  A document
 * that cannot be built (NULL: out of memory, or a row the encoder refuses)
 * leaves out->bytes NULL: requests that need it are rendered live, so they
 * answer exactly as they did before this cache, and the rest of the
 * rendering still serves.
 */
static void render(json_t *doc, struct api_text *out)
{
        struct api_response tmp;

        memset(&tmp, 0, sizeof(tmp));
        api_reply_json(&tmp, 200, doc);
        if (tmp.status != 200 || !tmp.body) {
                free(tmp.body);
                return;
        }
        out->bytes = tmp.body;
        out->len = tmp.body_len;
}

/*
 * Bytes of head + rows (all when idx is NULL) joined by "," + tail; 0 when
 * a row has no rendering.
 */
static size_t joined_len(const char *head, const struct api_text *rows, const size_t *idx, size_t n,
                         const char *tail)
{
        size_t len = strlen(head) + strlen(tail) + (n ? n - 1 : 0);

        for (size_t i = 0; i < n; i++) {
                const struct api_text *r = &rows[idx ? idx[i] : i];

                if (!r->bytes)
                        return 0;
                len += r->len;
        }
        return len;
}

static void join_into(char *p, const char *head, const struct api_text *rows, const size_t *idx,
                      size_t n, const char *tail)
{
        size_t l = strlen(head);

        memcpy(p, head, l);
        p += l;
        for (size_t i = 0; i < n; i++) {
                const struct api_text *r = &rows[idx ? idx[i] : i];

                if (i)
                        *p++ = ',';
                memcpy(p, r->bytes, r->len);
                p += r->len;
        }
        l = strlen(tail);
        memcpy(p, tail, l);
        p[l] = '\0';
}

/* A list from rendered rows; left unrendered (NULL) when a row is. */
static void join(const char *head, const struct api_text *rows, const size_t *idx, size_t n,
                 const char *tail, struct api_text *out)
{
        size_t len = joined_len(head, rows, idx, n, tail);

        out->bytes = len ? malloc(len + 1) : NULL;
        if (!out->bytes)
                return;
        join_into(out->bytes, head, rows, idx, n, tail);
        out->len = len;
}

static void texts_free(struct api_text *t, size_t n)
{
        for (size_t i = 0; t && i < n; i++)
                free(t[i].bytes);
        free(t);
}

static void render_free(struct catalog_attachment *a)
{
        struct api_catalog_render *r = (struct api_catalog_render *)a;

        texts_free(r->gpu_rows, r->n_gpus);
        texts_free(r->gpu_docs, r->n_gpus);
        texts_free(r->provider_docs, r->n_providers);
        texts_free(r->price_rows, r->n_prices);
        texts_free(r->purchase_rows, r->n_purchase_prices);
        free(r->loaded_at.bytes);
        free(r->gpus_list.bytes);
        free(r->providers_list.bytes);
        free(r->prices_list.bytes);
        free(r->purchase_list.bytes);
        free(r->settings_list.bytes);
        free(r);
}

/* The settings list exactly as api_settings_list() builds it. */
static json_t *settings_doc(const struct catalog_snapshot *s)
{
        size_t n;
        const struct catalog_setting *st = catalog_settings(s, &n);
        json_t *arr = json_array();

        for (size_t i = 0; arr && i < n; i++)
                json_array_append_new(arr, catalog_json_setting(&st[i]));
        return arr ? json_pack("{s:o}", "settings", arr) : NULL;
}

static int build(const struct catalog_snapshot *s, struct api_catalog_render *r)
{
        size_t n;
        const struct catalog_provider *prov = catalog_providers(s, &r->n_providers);
        const struct catalog_price *prices = catalog_prices(s, &r->n_prices);
        const struct catalog_purchase_price *pp = catalog_purchase_prices(s, &r->n_purchase_prices);
        json_t *loaded_at;
        char tail[160];

        catalog_gpus(s, &r->n_gpus);
        r->gpu_rows = calloc(r->n_gpus + 1, sizeof(*r->gpu_rows));
        r->gpu_docs = calloc(r->n_gpus + 1, sizeof(*r->gpu_docs));
        r->provider_docs = calloc(r->n_providers + 1, sizeof(*r->provider_docs));
        r->price_rows = calloc(r->n_prices + 1, sizeof(*r->price_rows));
        r->purchase_rows = calloc(r->n_purchase_prices + 1, sizeof(*r->purchase_rows));
        if (!r->gpu_rows || !r->gpu_docs || !r->provider_docs || !r->price_rows ||
            !r->purchase_rows)
                return -1;
        for (size_t i = 0; i < r->n_gpus; i++) {
                render(catalog_json_gpu(s, i, false), &r->gpu_rows[i]);
                render(catalog_json_gpu(s, i, true), &r->gpu_docs[i]);
        }
        for (size_t i = 0; i < r->n_providers; i++)
                render(catalog_json_provider(s, &prov[i], true), &r->provider_docs[i]);
        for (size_t i = 0; i < r->n_prices; i++)
                render(catalog_json_price(s, &prices[i]), &r->price_rows[i]);
        for (size_t i = 0; i < r->n_purchase_prices; i++)
                render(catalog_json_purchase_price(s, &pp[i]), &r->purchase_rows[i]);
        /* A bare string is not a document the shared encoder accepts; quote it here. */
        loaded_at = json_string(catalog_loaded_at(s));
        r->loaded_at.bytes = loaded_at ? json_dumps(loaded_at, JSON_ENCODE_ANY) : NULL;
        json_decref(loaded_at);
        if (!r->loaded_at.bytes)
                return -1;
        r->loaded_at.len = strlen(r->loaded_at.bytes);
        n = r->n_gpus;
        if (snprintf(tail, sizeof(tail), "],\"count\":%zu,\"catalog_loaded_at\":%.*s}", n,
                     (int)r->loaded_at.len, r->loaded_at.bytes) >= (int)sizeof(tail))
                return -1;
        join("{\"gpus\":[", r->gpu_rows, NULL, n, tail, &r->gpus_list);
        join("{\"providers\":[", r->provider_docs, NULL, r->n_providers, "]}", &r->providers_list);
        join("{\"prices\":[", r->price_rows, NULL, r->n_prices, "]}", &r->prices_list);
        join("{\"purchase_prices\":[", r->purchase_rows, NULL, r->n_purchase_prices, "]}",
             &r->purchase_list);
        render(settings_doc(s), &r->settings_list);
        return 0;
}

const struct api_catalog_render *api_catalog_render(const struct catalog_snapshot *s)
{
        struct catalog_attachment *a = catalog_attachment(s);
        struct api_catalog_render *r;

        if (a)
                return (const struct api_catalog_render *)a;
        r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->base.free_fn = render_free;
        if (build(s, r)) {
                render_free(&r->base);
                return NULL;
        }
        return (const struct api_catalog_render *)catalog_attach(s, &r->base);
}

static int reply_buffer(struct api_response *rs, char *bytes, size_t len)
{
        free(rs->body);
        rs->status = 200;
        rs->content_type = "application/json";
        rs->body = bytes;
        rs->body_len = len;
        return 0;
}

int api_catalog_render_text(struct api_response *rs, const struct api_text *t)
{
        char *copy;

        if (!t || !t->bytes)
                return -1;
        copy = malloc(t->len + 1);
        if (!copy)
                return -1;
        memcpy(copy, t->bytes, t->len);
        copy[t->len] = '\0';
        return reply_buffer(rs, copy, t->len);
}

int api_catalog_render_rows(struct api_response *rs, const char *head, const struct api_text *rows,
                            const size_t *idx, size_t n, const char *tail)
{
        size_t len = joined_len(head, rows, idx, n, tail);
        char *buf = len ? malloc(len + 1) : NULL;

        if (!buf)
                return -1;
        join_into(buf, head, rows, idx, n, tail);
        return reply_buffer(rs, buf, len);
}
