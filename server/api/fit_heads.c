/*
 * fit_heads.c - each GPU's fit-row head, written once per snapshot (see
 * fit_heads.h).
 */
#include "api/fit_heads.h"

#include <stdlib.h>
#include <string.h>

#include "api/jsonw.h"
#include "catalog/catalog.h"

/* A head is two catalog strings and a number: far below this. */
#define FIT_HEAD_MAX_BYTES 4096

struct api_fit_heads {
        struct catalog_attachment base; /* first: the snapshot frees it */
        const struct gpu_spec *gpus;    /* the snapshot's array the heads were written for */
        size_t n;
        struct fit_head {
                size_t start, end;     /* head i is text[start, end) */
                uint64_t memory_bytes; /* the figure it holds */
        } * rows;
        char *text;
};

void api_fit_heads_write(struct jsonw *w, const struct gpu_spec *g, uint64_t memory_bytes)
{
        jsonw_object_begin(w);
        jsonw_kstring(w, "gpu", g->id);
        jsonw_kstring(w, "name", g->name);
        if (memory_bytes)
                jsonw_ku64(w, "memory_bytes", memory_bytes);
        else
                jsonw_knull(w, "memory_bytes");
}

static void table_free(struct catalog_attachment *a)
{
        struct api_fit_heads *t = (struct api_fit_heads *)a;

        free(t->rows);
        free(t->text);
        free(t);
}

static struct api_fit_heads *table_build(const struct catalog_snapshot *s)
{
        struct api_fit_heads *t = calloc(1, sizeof(*t));
        struct jsonw w;
        size_t len = 0;

        if (!t)
                return NULL;
        t->base.free_fn = table_free;
        t->gpus = catalog_gpus(s, &t->n);
        t->rows = calloc(t->n + 1, sizeof(*t->rows));
        if (!t->rows)
                goto fail;
        /* All heads in one writer, one after another (with a comma between
         * them that no head includes). */
        jsonw_init(&w, 128 * (t->n + 1), FIT_HEAD_MAX_BYTES * (t->n + 1));
        for (size_t i = 0; i < t->n; i++) {
                const struct gpu_spec *g = &t->gpus[i];
                struct fit_head *h = &t->rows[i];
                /* The engine's fit table reports the usable memory, or the
                 * memory where the catalog gives no usable figure
                 * (core/fit.c); api_fit_heads_get() checks the figure. */
                h->memory_bytes = g->usable_memory_bytes ? g->usable_memory_bytes : g->memory_bytes;
                h->start = w.len + (i > 0);
                api_fit_heads_write(&w, g, h->memory_bytes);
                h->end = w.len;
        }
        t->text = jsonw_finish(&w, &len);
        if (!t->text)
                goto fail;
        return t;
fail:
        table_free(&t->base);
        return NULL;
}

/* table_build() as the catalog's slot builder. */
static struct catalog_attachment *table_attachment(const struct catalog_snapshot *s)
{
        struct api_fit_heads *t = table_build(s);
        return t ? &t->base : NULL;
}

const struct api_fit_heads *api_fit_heads_table(const struct catalog_snapshot *s)
{
        return (const struct api_fit_heads *)catalog_extra_get(s, CATALOG_EXTRA_FIT_HEADS,
                                                               table_attachment);
}

void api_fit_heads_prepare(const struct catalog_snapshot *s)
{
        (void)api_fit_heads_table(s);
}

const char *api_fit_heads_get(const struct api_fit_heads *t, const struct gpu_spec *gpus, size_t i,
                              uint64_t memory_bytes, size_t *len)
{
        if (!t || t->gpus != gpus || i >= t->n || t->rows[i].memory_bytes != memory_bytes)
                return NULL;
        *len = t->rows[i].end - t->rows[i].start;
        return t->text + t->rows[i].start;
}
