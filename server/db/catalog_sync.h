/*
 * catalog_sync.h - keeps a catalog holder (catalog/catalog.h) current with
 * the database: a reload loads every catalog table in one transaction
 * (db/catalog_queries.h), links the tables and installs them with
 * catalog_install(); a LISTEN thread reloads on every notification.
 *
 * The catalog below knows nothing of this module: it only accepts
 * snapshots.  main.c creates the sync after the holder and the pool,
 * starts the listener once the schema is migrated, and stops it before
 * freeing the holder.
 *
 * Memory: catalog_sync_new() allocates the sync, which borrows the holder
 * and the pool (both must outlive it); catalog_sync_free() stops the
 * listener and frees it.
 *
 * Thread-safety: catalog_sync_reload() may be called from any thread;
 * reloads are serialised.  start and stop are called from one thread.
 */
#ifndef GPUPLAN_DB_CATALOG_SYNC_H
#define GPUPLAN_DB_CATALOG_SYNC_H

#include <stddef.h>

struct catalog;
struct db_pool;
struct catalog_sync;

/* A sync for catalog c over pool db; NULL on allocation failure or when either is NULL. */
struct catalog_sync *catalog_sync_new(struct catalog *c, struct db_pool *db);
/* Stops the listener if running; the holder and the pool are left alone. */
void catalog_sync_free(struct catalog_sync *s);

/*
 * Load every catalog table through one pooled connection (one REPEATABLE READ
 * transaction, so the snapshot is consistent) and install the result.
 * Reloads are serialised, so a slow older load never replaces a newer one.
 * A load whose content equals the current snapshot keeps the current one.
 * Returns 0, or -1 with a one-line reason in err; the previous snapshot
 * stays current on failure.
 */
int catalog_sync_reload(struct catalog_sync *s, char *err, size_t errlen);

/*
 * Start the thread that LISTENs on channel "gpuplan_catalog" over its own
 * connection (database_url as for the pool; NULL or "" means the PG*
 * environment) and reloads on every notification, after every reconnect
 * (notifications sent while disconnected are lost) and, as a safety net,
 * periodically (GPUPLAN_CATALOG_REFRESH_SECONDS, default 300).
 * Returns 0 or -1.
 */
int catalog_sync_start(struct catalog_sync *s, const char *database_url);
/* Stop and join the listener; nothing when it is not running. */
void catalog_sync_stop(struct catalog_sync *s);

#endif
