/*
 * resolve.h - the look-up of a Hub repository the catalog lacks: first the
 * database's copy (any replica may have read it), then the Hub, whose
 * answer is stored for the next request.  What a user typed becomes a
 * repository and revision in models/model_id.h.
 *
 * The order a model id is resolved in is catalog -> team -> fetched (this
 * replica's memory, then the database) -> Hub -> error; the catalog and
 * team steps are the snapshot's (catalog/catalog.h), the rest is here.
 *
 * Memory: resolve_fill() fills a struct fetched_entry whose strings the
 * caller frees (fetched_entry_free).  Thread-safety: every function may be
 * called from any thread; resolve_fill() blocks on the database and the
 * Hub, so it runs only where a handler may block (api_request.may_block).
 */
#ifndef GPUPLAN_DB_RESOLVE_H
#define GPUPLAN_DB_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "models/fetched.h"

struct db_pool;
struct hub_settings;

struct resolve_ctx {
        struct db_pool *db;             /* NULL: no database copy */
        const struct hub_settings *hub; /* never NULL */
        unsigned db_timeout_ms;         /* waiting for a pooled connection */
        int64_t now_s;
};

/* A fetched_fill_fn: the database's copy when fresh, else the Hub's answer
 * (stored back).  ctx is a struct resolve_ctx. */
int resolve_fill(void *ctx, const char *repo, const char *revision, struct fetched_entry *out,
                 struct fetched_problem *p);

/* The quant_method of config's quantization_config ("" when none) into out. */
void resolve_quant_method(const char *config_text, char *out, size_t outlen);

#endif
