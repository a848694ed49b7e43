/*
 * pool.c - PostgreSQL connection pool; see pool.h.
 *
 * Slots are guarded by one mutex; a thread that finds no free slot waits
 * on a condition variable (CLOCK_MONOTONIC, so a clock change cannot
 * stretch the wait).  Connecting and health checks run outside the mutex:
 * a slow connect holds only its own slot.
 */
#include "db/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

/* After a failed connect, checkouts fail at once for this long (fail fast). */
#define POOL_DOWN_BACKOFF_MS 1000

struct pool_slot {
        PGconn *conn;
        bool in_use;
};

struct db_pool {
        char *url; /* NULL: PG* environment */
        unsigned size;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        struct pool_slot *slots;
        unsigned in_use;
        unsigned waiting;
        struct timespec down_until; /* CLOCK_MONOTONIC; zero when up */
        bool healthy;
        uint64_t acquired_total;
        uint64_t timeouts_total;
        uint64_t connect_failures_total;
        uint64_t reconnects_total;
};

/* Server notices ("relation ... already exists, skipping") go to the debug log, not stderr. */
static void notice_to_log(void *arg, const char *message)
{
        (void)arg;
        log_debug("postgresql: %.*s", (int)strcspn(message, "\n"), message);
}

PGconn *db_pool_connect(const char *database_url, char *err, size_t errlen)
{
        /*
         * Array entries after "dbname" override what the URL says
         * (libpq-connect, PQconnectdbParams with expand_dbname).
         */
        static const char *const keys[] = {"dbname",          "application_name", "connect_timeout",
                                           "keepalives_idle", "options",          NULL};
        const char *values[] = {
                database_url && *database_url ? database_url : NULL,
                "gpuplan",
                "3",
                "30",
                "-c statement_timeout=5000 -c idle_in_transaction_session_timeout=30000 "
                "-c lock_timeout=3000",
                NULL,
        };
        PGconn *c = PQconnectdbParams(keys, values, 1);

        if (!c) {
                snprintf(err, errlen, "cannot connect to database: out of memory");
                return NULL;
        }
        if (PQstatus(c) != CONNECTION_OK) {
                const char *msg = PQerrorMessage(c);
                size_t n = strcspn(msg, "\n");
                snprintf(err, errlen, "cannot connect to database: %.*s", (int)n, msg);
                PQfinish(c);
                return NULL;
        }
        PQsetNoticeProcessor(c, notice_to_log, NULL);
        return c;
}

struct db_pool *db_pool_new(const char *database_url, unsigned size, char *err, size_t errlen)
{
        struct db_pool *p;
        pthread_condattr_t ca;

        if (size == 0)
                size = 1;
        if (database_url && *database_url) {
                char *msg = NULL;
                PQconninfoOption *opts = PQconninfoParse(database_url, &msg);
                if (!opts) {
                        size_t n = msg ? strcspn(msg, "\n") : 0;
                        snprintf(err, errlen, "DATABASE_URL: %.*s", (int)n,
                                 msg ? msg : "out of memory");
                        PQfreemem(msg);
                        return NULL;
                }
                PQconninfoFree(opts);
        }
        p = calloc(1, sizeof(*p));
        if (!p)
                goto oom;
        p->slots = calloc(size, sizeof(*p->slots));
        if (!p->slots)
                goto oom;
        if (database_url && *database_url && !(p->url = strdup(database_url)))
                goto oom;
        p->size = size;
        pthread_mutex_init(&p->mu, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->cv, &ca);
        pthread_condattr_destroy(&ca);
        return p;
oom:
        if (p)
                free(p->slots);
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
}

void db_pool_free(struct db_pool *p)
{
        if (!p)
                return;
        for (unsigned i = 0; i < p->size; i++) {
                if (p->slots[i].in_use)
                        log_warn("database pool freed with a connection checked out");
                if (p->slots[i].conn)
                        PQfinish(p->slots[i].conn);
        }
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p->slots);
        free(p->url);
        free(p);
}

const char *db_pool_url(const struct db_pool *p)
{
        return p->url;
}

static void ts_add_ms(struct timespec *t, unsigned ms)
{
        t->tv_sec += ms / 1000;
        t->tv_nsec += (long)(ms % 1000) * 1000000L;
        if (t->tv_nsec >= 1000000000L) {
                t->tv_sec++;
                t->tv_nsec -= 1000000000L;
        }
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* GNUnet's reconnect_if_down test: true when c is usable. */
static bool conn_alive(PGconn *c)
{
        if (PQconsumeInput(c) == 1 && PQstatus(c) == CONNECTION_OK)
                return PQtransactionStatus(c) == PQTRANS_IDLE;
        return false;
}

PGconn *db_pool_acquire(struct db_pool *p, unsigned timeout_ms)
{
        struct timespec now;
        struct timespec deadline;
        struct pool_slot *slot = NULL;
        PGconn *c;
        char err[256];

        clock_gettime(CLOCK_MONOTONIC, &now);
        deadline = now;
        ts_add_ms(&deadline, timeout_ms);
        pthread_mutex_lock(&p->mu);
        for (;;) {
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (ts_before(&now, &p->down_until))
                        goto fail_locked;
                /* Prefer a slot with an open connection. */
                for (unsigned i = 0; i < p->size; i++) {
                        if (p->slots[i].in_use)
                                continue;
                        if (!slot || (!slot->conn && p->slots[i].conn))
                                slot = &p->slots[i];
                }
                if (slot)
                        break;
                if (!ts_before(&now, &deadline))
                        goto fail_locked;
                p->waiting++;
                int rc = pthread_cond_timedwait(&p->cv, &p->mu, &deadline);
                p->waiting--;
                if (rc == ETIMEDOUT) {
                        /* One last look: a slot may have freed at the deadline. */
                        deadline = now;
                }
        }
        slot->in_use = true;
        p->in_use++;
        c = slot->conn;
        pthread_mutex_unlock(&p->mu);

        if (c && !conn_alive(c)) {
                log_info("database connection lost; reconnecting");
                PQfinish(c);
                c = NULL;
                pthread_mutex_lock(&p->mu);
                slot->conn = NULL;
                p->reconnects_total++;
                pthread_mutex_unlock(&p->mu);
        }
        if (!c) {
                c = db_pool_connect(p->url, err, sizeof(err));
                pthread_mutex_lock(&p->mu);
                if (!c) {
                        if (p->healthy || p->connect_failures_total == 0)
                                log_warn("%s", err);
                        p->healthy = false;
                        p->connect_failures_total++;
                        clock_gettime(CLOCK_MONOTONIC, &p->down_until);
                        ts_add_ms(&p->down_until, POOL_DOWN_BACKOFF_MS);
                        slot->in_use = false;
                        p->in_use--;
                        pthread_cond_signal(&p->cv);
                        goto fail_locked;
                }
                if (!p->healthy)
                        log_info("database connection established");
                slot->conn = c;
                pthread_mutex_unlock(&p->mu);
        }
        pthread_mutex_lock(&p->mu);
        p->healthy = true;
        p->acquired_total++;
        pthread_mutex_unlock(&p->mu);
        return c;

fail_locked:
        p->timeouts_total++;
        pthread_mutex_unlock(&p->mu);
        return NULL;
}

void db_pool_release(struct db_pool *p, PGconn *c)
{
        struct pool_slot *slot = NULL;
        bool drop = false;
        PGresult *res;

        if (!c)
                return;
        switch (PQtransactionStatus(c)) {
        case PQTRANS_IDLE:
                break;
        case PQTRANS_INTRANS:
        case PQTRANS_INERROR:
                res = PQexec(c, "ROLLBACK");
                drop = PQresultStatus(res) != PGRES_COMMAND_OK;
                PQclear(res);
                break;
        default: /* a query still running, or the connection is gone */
                drop = true;
                break;
        }
        if (PQstatus(c) != CONNECTION_OK)
                drop = true;
        pthread_mutex_lock(&p->mu);
        for (unsigned i = 0; i < p->size; i++)
                if (p->slots[i].conn == c)
                        slot = &p->slots[i];
        if (!slot) {
                pthread_mutex_unlock(&p->mu);
                log_error("db_pool_release: connection not from this pool");
                PQfinish(c);
                return;
        }
        if (drop) {
                slot->conn = NULL;
                p->reconnects_total++;
        }
        slot->in_use = false;
        p->in_use--;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (drop)
                PQfinish(c);
}

bool db_pool_healthy(struct db_pool *p)
{
        bool h;

        pthread_mutex_lock(&p->mu);
        h = p->healthy;
        pthread_mutex_unlock(&p->mu);
        return h;
}

void db_pool_stats(struct db_pool *p, struct db_pool_stats *out)
{
        pthread_mutex_lock(&p->mu);
        out->size = p->size;
        out->open = 0;
        for (unsigned i = 0; i < p->size; i++)
                if (p->slots[i].conn)
                        out->open++;
        out->in_use = p->in_use;
        out->waiting = p->waiting;
        out->healthy = p->healthy;
        out->acquired_total = p->acquired_total;
        out->timeouts_total = p->timeouts_total;
        out->connect_failures_total = p->connect_failures_total;
        out->reconnects_total = p->reconnects_total;
        pthread_mutex_unlock(&p->mu);
}

bool db_pool_error_is_unavailable(const PGresult *res)
{
        const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

        /* Errors libpq raises itself (connection lost) carry no SQLSTATE. */
        if (!state)
                return true;
        /* PostgreSQL error codes appendix: class 08, 57P01-57P03, 57014, 53300. */
        return strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
               strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0 ||
               strcmp(state, "57014") == 0 || strcmp(state, "53300") == 0;
}
