/*
 * metrics.c - Prometheus counters; see metrics.h.
 *
 * Counters are plain arrays of atomics indexed by (route, method, status
 * class in a fixed list), allocated once, so recording a request is a few
 * relaxed atomic adds and never takes a lock.  Exposition format:
 * https://prometheus.io/docs/instrumenting/exposition_formats/ (0.0.4).
 */
#include "api/metrics.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/handler.h"
#include "db/pool.h"

static const char *const methods[] = {"GET",   "HEAD",   "POST",    "PUT",
                                      "PATCH", "DELETE", "OPTIONS", "OTHER"};
#define N_METHODS (sizeof(methods) / sizeof(methods[0]))

/* Statuses the service sends; anything else is counted under its class ("2xx"...). */
static const int statuses[] = {200, 201, 204, 301, 304, 400, 401, 403, 404, 405, 406,
                               409, 412, 413, 414, 415, 422, 428, 429, 431, 500, 503};
#define N_LISTED_STATUSES (sizeof(statuses) / sizeof(statuses[0]))
#define N_STATUSES        (N_LISTED_STATUSES + 5) /* + 1xx..5xx catch-alls */

/* Latency bucket upper bounds, seconds (Prometheus client defaults, extended downwards). */
static const double buckets[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                 0.1,    0.25,  0.5,    1,     2.5,  5,     10};
#define N_BUCKETS (sizeof(buckets) / sizeof(buckets[0]))

#define N_NAMED   32
#define NAMED_LEN 96

struct named_counter {
        char name[NAMED_LEN];
        const char *help;
        atomic_ullong value;
};

struct route_hist {
        atomic_ullong bucket[N_BUCKETS]; /* non-cumulative; summed at render */
        atomic_ullong count;
        atomic_ullong sum_ns;
};

struct metrics {
        unsigned n_slots;        /* routes + 2 pseudo-routes */
        atomic_ullong *requests; /* [slot][method][status] */
        struct route_hist *hist; /* [slot] */
        atomic_long inflight;
        time_t start_time;
        pthread_mutex_t named_mu;
        atomic_uint n_named;
        struct named_counter named[N_NAMED];
};

static unsigned route_slot(const struct metrics *m, int route)
{
        if (route >= 0 && (unsigned)route < m->n_slots - 2)
                return (unsigned)route;
        return route == METRICS_ROUTE_STATIC ? m->n_slots - 2 : m->n_slots - 1;
}

static const char *slot_label(const struct metrics *m, unsigned slot)
{
        if (slot == m->n_slots - 2)
                return "static";
        if (slot == m->n_slots - 1)
                return "unmatched";
        return api_routes[slot].pattern;
}

static unsigned method_index(const char *method)
{
        for (unsigned i = 0; i + 1 < N_METHODS; i++)
                if (method && strcmp(method, methods[i]) == 0)
                        return i;
        return N_METHODS - 1;
}

static unsigned status_index(int status)
{
        for (unsigned i = 0; i < N_LISTED_STATUSES; i++)
                if (statuses[i] == status)
                        return i;
        if (status < 100 || status > 599)
                status = 500;
        return (unsigned)(N_LISTED_STATUSES + (unsigned)(status / 100 - 1));
}

struct metrics *metrics_new(unsigned n_routes)
{
        struct metrics *m = calloc(1, sizeof(*m));

        if (!m)
                return NULL;
        m->n_slots = n_routes + 2;
        m->requests = calloc((size_t)m->n_slots * N_METHODS * N_STATUSES, sizeof(*m->requests));
        m->hist = calloc(m->n_slots, sizeof(*m->hist));
        if (!m->requests || !m->hist) {
                metrics_free(m);
                return NULL;
        }
        m->start_time = time(NULL);
        pthread_mutex_init(&m->named_mu, NULL);
        return m;
}

void metrics_free(struct metrics *m)
{
        if (!m)
                return;
        if (m->requests && m->hist)
                pthread_mutex_destroy(&m->named_mu);
        free(m->requests);
        free(m->hist);
        free(m);
}

void metrics_observe(struct metrics *m, int route, const char *method, int status,
                     double duration_seconds)
{
        unsigned slot;
        struct route_hist *h;
        size_t i;

        if (!m)
                return;
        slot = route_slot(m, route);
        i = ((size_t)slot * N_METHODS + method_index(method)) * N_STATUSES + status_index(status);
        atomic_fetch_add_explicit(&m->requests[i], 1, memory_order_relaxed);
        h = &m->hist[slot];
        if (duration_seconds < 0)
                duration_seconds = 0;
        for (unsigned b = 0; b < N_BUCKETS; b++) {
                if (duration_seconds <= buckets[b]) {
                        atomic_fetch_add_explicit(&h->bucket[b], 1, memory_order_relaxed);
                        break;
                }
        }
        atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&h->sum_ns, (unsigned long long)(duration_seconds * 1e9),
                                  memory_order_relaxed);
}

void metrics_inflight_add(struct metrics *m, int delta)
{
        if (m)
                atomic_fetch_add(&m->inflight, delta);
}

long metrics_inflight(const struct metrics *m)
{
        return m ? atomic_load(&m->inflight) : 0;
}

static bool metric_name_ok(const char *name)
{
        size_t n = strlen(name);

        if (n == 0 || n >= NAMED_LEN || (name[0] >= '0' && name[0] <= '9'))
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = name[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == ':'))
                        return false;
        }
        return true;
}

void metrics_count(struct metrics *m, const char *name, const char *help, uint64_t n)
{
        unsigned count;

        if (!m || !name || !metric_name_ok(name))
                return;
        count = atomic_load_explicit(&m->n_named, memory_order_acquire);
        for (unsigned i = 0; i < count; i++) {
                if (strcmp(m->named[i].name, name) == 0) {
                        atomic_fetch_add_explicit(&m->named[i].value, n, memory_order_relaxed);
                        return;
                }
        }
        pthread_mutex_lock(&m->named_mu);
        count = atomic_load_explicit(&m->n_named, memory_order_relaxed);
        for (unsigned i = 0; i < count; i++) {
                if (strcmp(m->named[i].name, name) == 0) {
                        atomic_fetch_add_explicit(&m->named[i].value, n, memory_order_relaxed);
                        pthread_mutex_unlock(&m->named_mu);
                        return;
                }
        }
        if (count < N_NAMED) {
                strcpy(m->named[count].name, name);
                m->named[count].help = help ? help : "";
                atomic_store_explicit(&m->named[count].value, n, memory_order_relaxed);
                atomic_store_explicit(&m->n_named, count + 1, memory_order_release);
        }
        pthread_mutex_unlock(&m->named_mu);
}

/* A growable text buffer with a hard cap (curl's dynbuf idea). */
struct textbuf {
        char *p;
        size_t len;
        size_t cap;
        bool failed;
};

#define TEXTBUF_MAX (4u * 1024u * 1024u)

static void tb_printf(struct textbuf *b, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void tb_printf(struct textbuf *b, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (b->failed)
                return;
        for (;;) {
                size_t room = b->cap - b->len;
                va_start(ap, fmt);
                n = vsnprintf(b->p + b->len, room, fmt, ap);
                va_end(ap);
                if (n < 0) {
                        b->failed = true;
                        return;
                }
                if ((size_t)n < room) {
                        b->len += (size_t)n;
                        return;
                }
                size_t ncap = b->cap * 2;
                while (ncap - b->len <= (size_t)n)
                        ncap *= 2;
                char *np = ncap <= TEXTBUF_MAX ? realloc(b->p, ncap) : NULL;
                if (!np) {
                        b->failed = true;
                        return;
                }
                b->p = np;
                b->cap = ncap;
        }
}

static void render_status(char out[16], unsigned si)
{
        if (si < N_LISTED_STATUSES)
                snprintf(out, 16, "%d", statuses[si]);
        else
                snprintf(out, 16, "%uxx", si - (unsigned)N_LISTED_STATUSES + 1);
}

char *metrics_render(struct metrics *m, struct db_pool *pool, size_t *len)
{
        struct textbuf b = {malloc(16384), 0, 16384, false};
        char st[16];

        if (!b.p)
                return NULL;
        tb_printf(&b, "# HELP gpuplan_http_requests_total HTTP requests by route pattern, method "
                      "and status.\n# TYPE gpuplan_http_requests_total counter\n");
        for (unsigned s = 0; s < m->n_slots; s++) {
                for (unsigned mi = 0; mi < N_METHODS; mi++) {
                        for (unsigned si = 0; si < N_STATUSES; si++) {
                                size_t i = ((size_t)s * N_METHODS + mi) * N_STATUSES + si;
                                unsigned long long v =
                                        atomic_load_explicit(&m->requests[i], memory_order_relaxed);
                                if (!v)
                                        continue;
                                render_status(st, si);
                                tb_printf(&b,
                                          "gpuplan_http_requests_total{route=\"%s\",method=\"%s\","
                                          "status=\"%s\"} %llu\n",
                                          slot_label(m, s), methods[mi], st, v);
                        }
                }
        }
        tb_printf(&b, "# HELP gpuplan_http_request_duration_seconds Time from request headers to "
                      "response queued, by route pattern.\n"
                      "# TYPE gpuplan_http_request_duration_seconds histogram\n");
        for (unsigned s = 0; s < m->n_slots; s++) {
                struct route_hist *h = &m->hist[s];
                unsigned long long count = atomic_load(&h->count);
                unsigned long long cum = 0;
                if (!count)
                        continue;
                for (unsigned k = 0; k < N_BUCKETS; k++) {
                        cum += atomic_load(&h->bucket[k]);
                        tb_printf(&b,
                                  "gpuplan_http_request_duration_seconds_bucket{route=\"%s\","
                                  "le=\"%g\"} %llu\n",
                                  slot_label(m, s), buckets[k], cum);
                }
                tb_printf(&b,
                          "gpuplan_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} "
                          "%llu\n"
                          "gpuplan_http_request_duration_seconds_sum{route=\"%s\"} %.9f\n"
                          "gpuplan_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
                          slot_label(m, s), count, slot_label(m, s),
                          (double)atomic_load(&h->sum_ns) / 1e9, slot_label(m, s), count);
        }
        tb_printf(&b,
                  "# HELP gpuplan_http_requests_in_flight Requests being processed now.\n"
                  "# TYPE gpuplan_http_requests_in_flight gauge\n"
                  "gpuplan_http_requests_in_flight %ld\n"
                  "# HELP gpuplan_process_start_time_seconds Start of the process, Unix time.\n"
                  "# TYPE gpuplan_process_start_time_seconds gauge\n"
                  "gpuplan_process_start_time_seconds %lld\n",
                  metrics_inflight(m), (long long)m->start_time);
        if (pool) {
                struct db_pool_stats ps;
                db_pool_stats(pool, &ps);
                tb_printf(&b,
                          "# HELP gpuplan_db_pool_connections Database pool connections by state.\n"
                          "# TYPE gpuplan_db_pool_connections gauge\n"
                          "gpuplan_db_pool_connections{state=\"max\"} %u\n"
                          "gpuplan_db_pool_connections{state=\"open\"} %u\n"
                          "gpuplan_db_pool_connections{state=\"in_use\"} %u\n"
                          "# HELP gpuplan_db_pool_waiting Threads waiting for a pool connection.\n"
                          "# TYPE gpuplan_db_pool_waiting gauge\n"
                          "gpuplan_db_pool_waiting %u\n"
                          "# HELP gpuplan_db_up Whether the last database contact succeeded.\n"
                          "# TYPE gpuplan_db_up gauge\n"
                          "gpuplan_db_up %d\n"
                          "# HELP gpuplan_db_pool_acquired_total Connections handed out.\n"
                          "# TYPE gpuplan_db_pool_acquired_total counter\n"
                          "gpuplan_db_pool_acquired_total %llu\n"
                          "# HELP gpuplan_db_pool_timeouts_total Checkouts that gave up (busy or "
                          "database down).\n"
                          "# TYPE gpuplan_db_pool_timeouts_total counter\n"
                          "gpuplan_db_pool_timeouts_total %llu\n"
                          "# HELP gpuplan_db_connect_failures_total Failed connection attempts.\n"
                          "# TYPE gpuplan_db_connect_failures_total counter\n"
                          "gpuplan_db_connect_failures_total %llu\n"
                          "# HELP gpuplan_db_reconnects_total Broken connections replaced.\n"
                          "# TYPE gpuplan_db_reconnects_total counter\n"
                          "gpuplan_db_reconnects_total %llu\n",
                          ps.size, ps.open, ps.in_use, ps.waiting, ps.healthy ? 1 : 0,
                          (unsigned long long)ps.acquired_total,
                          (unsigned long long)ps.timeouts_total,
                          (unsigned long long)ps.connect_failures_total,
                          (unsigned long long)ps.reconnects_total);
        }
        unsigned count = atomic_load_explicit(&m->n_named, memory_order_acquire);
        for (unsigned i = 0; i < count; i++)
                tb_printf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", m->named[i].name,
                          m->named[i].help, m->named[i].name, m->named[i].name,
                          atomic_load(&m->named[i].value));
        if (b.failed) {
                free(b.p);
                return NULL;
        }
        *len = b.len;
        return b.p;
}
