/*
 * catalog.h - the in-memory catalog snapshot and its holder.
 *
 * The catalog (accelerators, models, providers, offerings, current prices,
 * settings) is loaded from PostgreSQL into one immutable struct
 * catalog_snapshot.  Readers take a reference with catalog_acquire() and
 * drop it with catalog_release(); a reload builds a new snapshot and swaps
 * it in atomically, so a reader sees either the old catalog or the new one,
 * never a mix.  The hot path (estimate, catalog reads, compare) reads only
 * snapshots and never waits on the database.
 *
 * Thread-safety: every function here may be called from any thread.
 * A snapshot is read-only for its whole life and freed when its last
 * reference is released.
 */
#ifndef GPUPLAN_CATALOG_CATALOG_H
#define GPUPLAN_CATALOG_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpu.h"
#include "core/model.h"

struct catalog_model {
        char id[64];
        char name[96];
        char family[48];
        struct model_arch arch;         /* imported from the stored config.json */
        uint64_t published_parameters;
        char *parameters_source;        /* owned by the snapshot */
        char *hf_config_json;           /* the stored config.json, compact text */
};

struct catalog_snapshot;        /* defined in catalog.c; see accessors below */

struct catalog;                 /* the holder: current snapshot + reload state */
struct db_pool;

/* A holder with no snapshot yet; NULL on allocation failure.  Freed by catalog_free(). */
struct catalog *catalog_new(void);
/* Stops the listener if running, drops the current snapshot. */
void catalog_free(struct catalog *c);

/*
 * Load every catalog table through one pooled connection (one REPEATABLE READ
 * transaction, so the snapshot is consistent) and swap the result in.
 * Returns 0, or -1 with a one-line reason in err; the previous snapshot
 * stays current on failure.
 */
int catalog_reload(struct catalog *c, struct db_pool *db, char *err, size_t errlen);

/*
 * Start the thread that LISTENs on channel "gpuplan_catalog" over its own
 * connection (database_url as for the pool; NULL or "" means the PG*
 * environment) and reloads through db on every notification, after every
 * reconnect (notifications sent while disconnected are lost) and, as a
 * safety net, periodically.  Returns 0 or -1.
 */
int catalog_listener_start(struct catalog *c, struct db_pool *db, const char *database_url);
void catalog_listener_stop(struct catalog *c);

/*
 * The current snapshot with one reference taken, or NULL if none has been
 * loaded yet.  Pair every non-NULL result with catalog_release().
 */
const struct catalog_snapshot *catalog_acquire(struct catalog *c);
void catalog_release(const struct catalog_snapshot *s);

/* Accelerators as engine inputs, in catalog order (by id). */
const struct gpu_spec *catalog_gpus(const struct catalog_snapshot *s, size_t *count);
const struct gpu_spec *catalog_gpu(const struct catalog_snapshot *s, const char *id);

/* Catalog models, in catalog order (by id). */
const struct catalog_model *catalog_models(const struct catalog_snapshot *s, size_t *count);
const struct catalog_model *catalog_model(const struct catalog_snapshot *s, const char *id);

/* A strong validator for the snapshot's content, for ETag headers ("\"...\""). */
const char *catalog_etag(const struct catalog_snapshot *s);

#endif
