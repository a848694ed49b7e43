/*
 * catalog_tables.h - the plain tables a catalog snapshot is built from.
 *
 * server/db/catalog_queries.c fills a struct catalog_tables from one
 * database transaction, server/db/catalog_sync.c links them and hands them
 * to catalog_install(), which wraps them into a refcounted snapshot.  Unit
 * tests install hand-made tables the same way.
 *
 * Memory: the arrays are malloc'd and every string points into the tables'
 * own arena; catalog_tables_free() releases all of it at once.  A struct
 * catalog_tables is filled by one thread and then only read.
 */
#ifndef GPUPLAN_CATALOG_CATALOG_TABLES_H
#define GPUPLAN_CATALOG_CATALOG_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

struct catalog_arena_chunk;

struct catalog_tables {
        struct gpu_spec *gpus;
        struct catalog_gpu_info *gpu_infos;
        size_t n_gpus;
        struct catalog_model *models;
        size_t n_models;
        struct catalog_provider *providers;
        size_t n_providers;
        struct catalog_offering *offerings;
        size_t n_offerings;
        struct catalog_price *prices;
        size_t n_prices;
        struct catalog_purchase_price *purchase_prices;
        size_t n_purchase_prices;
        struct catalog_setting *settings;
        size_t n_settings;
        /* The validation tables as JSON arrays (db/engine_queries.h shapes):
         * measured memory and measured throughput; "[]" when empty. */
        const char *validation_memory_json;
        const char *validation_time_json;
        uint64_t content_hash[2];       /* FNV-1a over every loaded cell (two offsets) */
        struct catalog_arena_chunk *arena;
};

/* Copy len bytes of text into the tables' arena, NUL-terminated; NULL on allocation failure. */
char *catalog_tables_strndup(struct catalog_tables *t, const char *text, size_t len);

/* Free every array and the arena; t may then be reused after zeroing. */
void catalog_tables_free(struct catalog_tables *t);

/*
 * Resolve cross-references (offering -> accelerator and provider, price ->
 * offering, purchase price -> accelerator) by id.  Returns 0, or -1 with
 * the first dangling id named in err.
 */
int catalog_tables_link(struct catalog_tables *t, char *err, size_t errlen);

/*
 * Fill every model's architecture from its stored config.json through the
 * Hugging Face config importer (models/hf_config.h), so catalog models and
 * pasted configs take one path.  A config the importer refuses leaves
 * arch_ok false and is logged; the model stays listed (its published count
 * is still worth showing).
 */
void catalog_tables_import_archs(struct catalog_tables *t);

/*
 * Wrap t into a snapshot and make it current (unless its content hash
 * equals the current one's).  Takes t's contents in every case (t is left
 * zeroed).  Returns 0, or -1 when out of memory.  db/catalog_sync.c uses it
 * after a load; unit tests use it to install hand-made tables.
 */
int catalog_install(struct catalog *c, struct catalog_tables *t);

#endif
