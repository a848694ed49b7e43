/*
 * catalog_sync.c - loads the catalog from the database into its holder and
 * keeps it current with a LISTEN thread.
 *
 * The listener owns one connection of its own (LISTEN cannot share a
 * pooled one); every reload borrows a pooled connection for one
 * transaction and installs the linked tables with catalog_install().
 */
#include "db/catalog_sync.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "db/catalog_queries.h"
#include "db/pool.h"
#include "log.h"

#define CATALOG_CHANNEL                 "gpuplan_catalog"
#define CATALOG_ACQUIRE_TIMEOUT_MS      2000u
#define CATALOG_REFRESH_DEFAULT_SECONDS 300u
#define CATALOG_BACKOFF_MIN_MS          100u
#define CATALOG_BACKOFF_MAX_MS          10000u

struct catalog_sync {
        struct catalog *catalog;     /* borrowed */
        struct db_pool *db;          /* borrowed */
        pthread_mutex_t reload_lock; /* serialises catalog_sync_reload() */

        /* The listener; touched only by start/stop and the thread itself. */
        pthread_t thread;
        int thread_running;
        atomic_bool stop;
        int wake[2]; /* self-pipe: stop wakes the thread's poll() */
        char *database_url;
        unsigned refresh_seconds;
};

struct catalog_sync *catalog_sync_new(struct catalog *c, struct db_pool *db)
{
        struct catalog_sync *s;

        if (!c || !db)
                return NULL;
        s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        if (pthread_mutex_init(&s->reload_lock, NULL)) {
                free(s);
                return NULL;
        }
        s->catalog = c;
        s->db = db;
        atomic_init(&s->stop, false);
        s->wake[0] = s->wake[1] = -1;
        return s;
}

void catalog_sync_free(struct catalog_sync *s)
{
        if (!s)
                return;
        catalog_sync_stop(s);
        pthread_mutex_destroy(&s->reload_lock);
        free(s);
}

int catalog_sync_reload(struct catalog_sync *s, char *err, size_t errlen)
{
        struct catalog_tables t;
        PGconn *conn;
        int rc = -1;

        memset(&t, 0, sizeof(t));
        if (!s) {
                snprintf(err, errlen, "no catalog or no database pool");
                return -1;
        }
        pthread_mutex_lock(&s->reload_lock);
        conn = db_pool_acquire(s->db, CATALOG_ACQUIRE_TIMEOUT_MS);
        if (!conn) {
                snprintf(err, errlen, "database unavailable");
                goto out;
        }
        rc = catalog_queries_load(conn, &t, err, errlen);
        db_pool_release(s->db, conn);
        if (rc)
                goto out;
        rc = catalog_tables_link(&t, err, errlen);
        if (rc)
                goto out;
        catalog_tables_import_archs(&t);
        rc = catalog_install(s->catalog, &t);
        if (rc)
                snprintf(err, errlen, "out of memory building the catalog snapshot");
out:
        pthread_mutex_unlock(&s->reload_lock);
        catalog_tables_free(&t);
        return rc;
}

/* ---- the listener -------------------------------------------------------- */

static uint64_t monotonic_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Sleep up to ms, returning early when stop is requested. */
static void listener_sleep(struct catalog_sync *s, unsigned ms)
{
        struct pollfd pfd = {.fd = s->wake[0], .events = POLLIN};

        if (!atomic_load(&s->stop))
                (void)poll(&pfd, 1, (int)ms);
}

static int listener_reload(struct catalog_sync *s, const char *why)
{
        char err[256];

        if (catalog_sync_reload(s, err, sizeof(err)) == 0) {
                log_debug("catalog reloaded (%s)", why);
                return 0;
        }
        log_warn("catalog reload after %s failed: %s", why, err);
        return -1;
}

/*
 * One connection's life: LISTEN, reload (anything sent before the LISTEN
 * was missed), then wait for notifications, the periodic refresh, or stop.
 * Returns when the connection breaks or stop is requested.
 */
static void listener_session(struct catalog_sync *s, PGconn *conn)
{
        uint64_t refresh_ms = (uint64_t)s->refresh_seconds * 1000u;
        uint64_t next_refresh, retry_at = 0;
        unsigned retry_ms = CATALOG_BACKOFF_MIN_MS;
        bool pending = true; /* a full reload is owed after (re)connecting */

        next_refresh = monotonic_ms() + refresh_ms;
        while (!atomic_load(&s->stop)) {
                struct pollfd pfd[2] = {{.fd = PQsocket(conn), .events = POLLIN},
                                        {.fd = s->wake[0], .events = POLLIN}};
                uint64_t now = monotonic_ms(), wait_ms;
                PGnotify *n;

                if (now >= next_refresh) {
                        pending = true;
                        next_refresh = now + refresh_ms;
                }
                if (pending && now >= retry_at) {
                        if (listener_reload(s, "notification or reconnect") == 0) {
                                pending = false;
                                retry_ms = CATALOG_BACKOFF_MIN_MS;
                        } else {
                                retry_at = monotonic_ms() + retry_ms;
                                retry_ms = retry_ms * 2 > CATALOG_BACKOFF_MAX_MS
                                                   ? CATALOG_BACKOFF_MAX_MS
                                                   : retry_ms * 2;
                        }
                        continue;
                }
                wait_ms = next_refresh - now;
                if (pending && retry_at - now < wait_ms)
                        wait_ms = retry_at - now;
                if (poll(pfd, 2, (int)wait_ms) < 0 && errno != EINTR)
                        return;
                if (!(pfd[0].revents & (POLLIN | POLLERR | POLLHUP)))
                        continue;
                if (!PQconsumeInput(conn) || PQstatus(conn) == CONNECTION_BAD) {
                        log_warn("catalog listener lost its connection: %s", PQerrorMessage(conn));
                        return;
                }
                /* Many NOTIFYs (one per table in a write) fold into one reload. */
                while ((n = PQnotifies(conn)) != NULL) {
                        pending = true;
                        PQfreemem(n);
                }
        }
}

static void *listener_main(void *arg)
{
        struct catalog_sync *s = arg;
        unsigned backoff_ms = CATALOG_BACKOFF_MIN_MS;

        while (!atomic_load(&s->stop)) {
                char err[256] = "";
                PGconn *conn = db_pool_connect(s->database_url, err, sizeof(err));
                PGresult *res;

                if (!conn) {
                        log_warn("catalog listener cannot connect (retry in %u ms): %s", backoff_ms,
                                 err);
                        goto backoff;
                }
                res = PQexecParams(conn, "LISTEN " CATALOG_CHANNEL, 0, NULL, NULL, NULL, NULL, 0);
                if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                        log_warn("catalog listener: LISTEN failed: %s", PQerrorMessage(conn));
                        PQclear(res);
                        PQfinish(conn);
                        goto backoff;
                }
                PQclear(res);
                log_info("catalog listener subscribed to %s", CATALOG_CHANNEL);
                backoff_ms = CATALOG_BACKOFF_MIN_MS;
                listener_session(s, conn);
                PQfinish(conn);
                continue;
        backoff:
                listener_sleep(s, backoff_ms);
                backoff_ms = backoff_ms * 2 > CATALOG_BACKOFF_MAX_MS ? CATALOG_BACKOFF_MAX_MS
                                                                     : backoff_ms * 2;
        }
        return NULL;
}

int catalog_sync_start(struct catalog_sync *s, const char *database_url)
{
        const char *env = getenv("GPUPLAN_CATALOG_REFRESH_SECONDS");
        unsigned long refresh = CATALOG_REFRESH_DEFAULT_SECONDS;

        if (!s || s->thread_running)
                return -1;
        if (env && *env) {
                char *end;

                errno = 0;
                refresh = strtoul(env, &end, 10);
                if (errno || *end || refresh < 1 || refresh > 86400) {
                        log_warn("GPUPLAN_CATALOG_REFRESH_SECONDS=%s is not 1..86400; using %u",
                                 env, CATALOG_REFRESH_DEFAULT_SECONDS);
                        refresh = CATALOG_REFRESH_DEFAULT_SECONDS;
                }
        }
        s->refresh_seconds = (unsigned)refresh;
        s->database_url = strdup(database_url ? database_url : "");
        if (!s->database_url)
                return -1;
        if (pipe(s->wake)) {
                free(s->database_url);
                s->database_url = NULL;
                s->wake[0] = s->wake[1] = -1;
                return -1;
        }
        atomic_store(&s->stop, false);
        if (pthread_create(&s->thread, NULL, listener_main, s)) {
                close(s->wake[0]);
                close(s->wake[1]);
                s->wake[0] = s->wake[1] = -1;
                free(s->database_url);
                s->database_url = NULL;
                return -1;
        }
        s->thread_running = 1;
        return 0;
}

void catalog_sync_stop(struct catalog_sync *s)
{
        if (!s || !s->thread_running)
                return;
        atomic_store(&s->stop, true);
        if (write(s->wake[1], "x", 1) < 0)
                log_warn("catalog listener: cannot wake the thread: %s", strerror(errno));
        pthread_join(s->thread, NULL);
        s->thread_running = 0;
        close(s->wake[0]);
        close(s->wake[1]);
        s->wake[0] = s->wake[1] = -1;
        free(s->database_url);
        s->database_url = NULL;
}
