/*
 * app.h - the process-wide state every handler can reach.
 *
 * One struct app lives in main() for the life of the process.  Each member
 * is owned by its module and documents its own thread-safety; the struct
 * itself is not modified after the server starts, except for 'stopping'.
 */
#ifndef GPUPLAN_APP_H
#define GPUPLAN_APP_H

#include <stdatomic.h>

struct config;
struct db_pool;
struct catalog;
struct catalog_sync;
struct metrics;
struct answer_cache;
struct fetched_store;
struct hub_settings;

struct app {
        const struct config *config;
        struct db_pool *db;           /* server/db/pool.h; NULL in pure tests */
        struct catalog *catalog;      /* server/catalog/catalog.h: snapshot holder */
        struct catalog_sync *catalog_sync; /* server/db/catalog_sync.h; NULL in pure tests */
        struct metrics *metrics;      /* server/api/metrics.h */
        struct answer_cache *answers; /* server/plan/answer_cache.h; NULL: answers uncached */
        atomic_bool stopping;         /* set by SIGTERM/SIGINT: drain and exit */

        /* Models read from the Hub (server/models/fetched.h) and the Hub
         * client's settings (server/models/hub.h); NULL: no Hub look-ups. */
        struct fetched_store *fetched;
        const struct hub_settings *hub;
};

#endif
