/*
 * server.c - libmicrohttpd transport; see server.h.
 *
 * The access handler follows libmicrohttpd's three-call pattern (headers,
 * body chunks, final call; manual "microhttpd-cb"), with the request
 * context created by the URI-log callback so that the start time and raw
 * URI are known before any decoding (MHD_OPTION_URI_LOG_CALLBACK runs
 * before the URI is percent-decoded).
 */
#include "http/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "api/handler.h"
#include "json/text.h"
#include "app.h"
#include "config.h"
#include "http/framing.h"
#include "api/metrics.h"
#include "http/offload.h"
#include "http/router.h"
#include "http/static_files.h"
#include "log.h"

#define RAW_PATH_MAX   2048
#define REQUEST_ID_MAX 64
/* Request line and headers per connection (MHD's default is 32 KiB). */
#define CONNECTION_MEMORY_BYTES (64u * 1024u)
/* Polls (20 ms apart) with nothing in flight before a drain is complete. */
#define DRAIN_IDLE_POLLS 3
/*
 * Seconds a request body may pause before the connection is closed (the
 * idle timeout applies between requests).  A body that can never complete
 * - a Content-Length larger than what is sent, or a chunk size that no
 * body under the cap reaches (libmicrohttpd 0.9.75 parses chunk sizes
 * itself and waits for up to 2^64 - 1 bytes) - holds its connection no
 * longer than this once the client stops sending, and no more than the
 * drain allowance of the body cap while it keeps sending.  nginx in front
 * buffers whole bodies before it passes them on, so no proxied body
 * pauses.
 */
#define BODY_TIMEOUT_S 5u
/* Workers for handlers that wait on the Hub: one look-up per id runs at a
 * time (models/fetched.h), so a few serve many ids. */
#define HUB_WORKERS 8u

/* Headers on every response we build (the page's needs: scripts, styles,
 * fetch and the chart canvas, all same-origin; no inline code). */
static const struct {
        const char *name;
        const char *value;
} security_headers[] = {
        {"X-Content-Type-Options", "nosniff"},
        {"Content-Security-Policy",
         "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
         "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
         "form-action 'self'; frame-ancestors 'none'"},
        {"Referrer-Policy", "no-referrer"},
        {"X-Frame-Options", "DENY"},
        {"Cross-Origin-Opener-Policy", "same-origin"},
};

struct http_server {
        struct app *app;
        const struct config *cfg;
        struct MHD_Daemon *daemon;
        MHD_socket quiesced;
        struct static_files *files;
        unsigned port;
        unsigned n_routes;
        char id_prefix[9];
        atomic_ulong id_seq;
        /* Epoll pool only: where API_ROUTE_DB and API_ROUTE_SLOW handlers run. */
        struct offload_pool *db_jobs;
        struct offload_pool *slow_jobs;
        struct offload_pool *hub_jobs; /* handlers that answered API_STATUS_WAIT */
};

/* A header or query argument copied out of libmicrohttpd for a worker. */
struct request_value {
        enum MHD_ValueKind kind;
        const char *key;
        const char *value; /* NULL: a query key without '=' */
};

struct request {
        struct http_server *srv;
        struct timespec start;
        char raw_uri[RAW_PATH_MAX];
        bool uri_too_long;
        bool started;   /* the access handler has seen this request */
        bool responded; /* a response is queued */
        bool read_body; /* the route wants the body */
        bool too_large;
        bool body_timeout;   /* the connection runs on BODY_TIMEOUT_S until the reply */
        bool discard_body;   /* a problem is decided: read and drop the body first */
        uint64_t received;   /* body bytes seen, kept or not */
        int deferred_status; /* the problem to send once the body is drained */
        char deferred_detail[192];
        char deferred_hname[32];
        char deferred_hvalue[ROUTER_ALLOW_MAX];
        int route; /* api_routes index or METRICS_ROUTE_* */
        int status;
        uint64_t bytes;
        char method[16];
        char path[RAW_PATH_MAX]; /* raw path below the base path */
        char request_id[REQUEST_ID_MAX];
        char *body;
        size_t body_len;
        size_t body_cap;
        struct router_match match;
        /* An offloaded handler: the connection is suspended until done. */
        struct MHD_Connection *conn;
        struct api_request arq;
        struct api_response offload_rs;
        bool offloaded;
        atomic_bool offload_done;
        struct request_value *values; /* one allocation: the array, then the strings */
        size_t n_values;
};

static double seconds_since(const struct timespec *t0)
{
        struct timespec now;

        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *conn)
{
        struct request *rq = calloc(1, sizeof(*rq));

        (void)conn;
        if (!rq)
                return NULL;
        rq->srv = cls;
        clock_gettime(CLOCK_MONOTONIC, &rq->start);
        size_t n = strlen(uri);
        if (n >= sizeof(rq->raw_uri)) {
                rq->uri_too_long = true;
                n = sizeof(rq->raw_uri) - 1;
        }
        memcpy(rq->raw_uri, uri, n);
        rq->raw_uri[n] = '\0';
        rq->route = METRICS_ROUTE_NONE;
        return rq;
}

/* MHD's log callback; fmt is libmicrohttpd's own printf format. */
__attribute__((format(printf, 2, 0))) static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
        char msg[512];
        size_t n;

        (void)cls;
        vsnprintf(msg, sizeof(msg), fmt, ap);
        n = strlen(msg);
        while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
                msg[--n] = '\0';
        log_warn("libmicrohttpd: %s", msg);
}

/* X-Request-Id from the client if it is short and plain, else a new one. */
static void set_request_id(struct http_server *srv, struct MHD_Connection *conn, struct request *rq)
{
        const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");

        if (v) {
                size_t n = strlen(v);
                bool ok = n > 0 && n < sizeof(rq->request_id);
                for (size_t i = 0; ok && i < n; i++) {
                        char c = v[i];
                        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                             (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == ':';
                }
                if (ok) {
                        memcpy(rq->request_id, v, n + 1);
                        return;
                }
        }
        snprintf(rq->request_id, sizeof(rq->request_id), "%s%08lx", srv->id_prefix,
                 (unsigned long)(atomic_fetch_add(&srv->id_seq, 1) & 0xffffffffUL));
}

static void add_common_headers(struct http_server *srv, struct request *rq, struct MHD_Response *r)
{
        for (size_t i = 0; i < sizeof(security_headers) / sizeof(security_headers[0]); i++)
                MHD_add_response_header(r, security_headers[i].name, security_headers[i].value);
        MHD_add_response_header(r, "X-Request-Id", rq->request_id);
        if (atomic_load(&srv->app->stopping) &&
            !MHD_get_response_header(r, MHD_HTTP_HEADER_CONNECTION))
                MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
}

static enum MHD_Result queue(struct MHD_Connection *conn, struct request *rq, int status,
                             struct MHD_Response *r)
{
        enum MHD_Result ret;

        if (!r)
                return MHD_NO;
        if (rq->body_timeout) { /* the body is in: back to the idle timeout */
                MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT,
                                          (unsigned)rq->srv->cfg->idle_timeout_s);
                rq->body_timeout = false;
        }
        add_common_headers(rq->srv, rq, r);
        ret = MHD_queue_response(conn, (unsigned)status, r);
        MHD_destroy_response(r);
        rq->responded = true;
        rq->status = status;
        return ret;
}

/* Send an api_response (handler output or a transport error) and take its body. */
static enum MHD_Result send_api(struct MHD_Connection *conn, struct request *rq,
                                struct api_response *rs)
{
        struct MHD_Response *r;
        int status = rs->status >= 100 && rs->status <= 599 ? rs->status : 500;

        if (rs->body) {
                r = MHD_create_response_from_buffer(rs->body_len, rs->body, MHD_RESPMEM_MUST_FREE);
                if (!r) {
                        free(rs->body);
                        rs->body = NULL;
                        return MHD_NO;
                }
                rs->body = NULL;
        } else {
                r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
                if (!r)
                        return MHD_NO;
        }
        rq->bytes = rs->body_len;
        if (rs->content_type && rs->body_len)
                MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
        for (unsigned i = 0; i < rs->n_headers && i < API_RESPONSE_HEADERS_MAX; i++)
                MHD_add_response_header(r, rs->headers[i].name, rs->headers[i].value);
        return queue(conn, rq, status, r);
}

static enum MHD_Result send_problem(struct MHD_Connection *conn, struct request *rq, int status,
                                    const char *detail, const char *hname, const char *hvalue)
{
        struct api_response rs;

        memset(&rs, 0, sizeof(rs));
        api_problem(&rs, status, detail);
        if (hname)
                api_reply_header_add(&rs, hname, hvalue);
        return send_api(conn, rq, &rs);
}

/*
 * Answer a request refused from its headers.  When it announces a body of
 * a size we are willing to drain (at most DRAIN_LIMIT), the body is read
 * and dropped first and the problem sent on the final call: closing a
 * socket with unread data makes the kernel send RST, which can overtake
 * the reply on its way to a proxy (nginx then answers 502).
 */
static enum MHD_Result reject(struct MHD_Connection *conn, struct request *rq, int status,
                              const char *detail, const char *hname, const char *hvalue)
{
        const char *cl =
                MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_TRANSFER_ENCODING);
        size_t limit = rq->srv->cfg->body_limit_bytes;
        bool small_body = false;

        if (cl) {
                char *end;
                errno = 0;
                unsigned long long n = strtoull(cl, &end, 10);
                small_body = !errno && !*end && n > 0 && n <= limit + limit / 8;
        } else if (te) {
                small_body = true; /* chunked: drained up to the same allowance */
        }
        if (!small_body)
                return send_problem(conn, rq, status, detail, hname, hvalue);
        rq->discard_body = true;
        rq->deferred_status = status;
        snprintf(rq->deferred_detail, sizeof(rq->deferred_detail), "%s", detail ? detail : "");
        snprintf(rq->deferred_hname, sizeof(rq->deferred_hname), "%s", hname ? hname : "");
        snprintf(rq->deferred_hvalue, sizeof(rq->deferred_hvalue), "%s", hvalue ? hvalue : "");
        return MHD_YES;
}

static const char *rq_query(const struct api_request *arq, const char *key)
{
        return MHD_lookup_connection_value(arq->transport, MHD_GET_ARGUMENT_KIND, key);
}

static const char *rq_header(const struct api_request *arq, const char *name)
{
        return MHD_lookup_connection_value(arq->transport, MHD_HEADER_KIND, name);
}

/* Media types a JSON body may arrive with: JSON itself, and what curl -d sends by default. */
static bool body_type_ok(const char *ct)
{
        size_t n;

        if (!ct || !*ct)
                return true;
        n = strcspn(ct, "; \t");
        if ((n == 16 && strncasecmp(ct, "application/json", 16) == 0) ||
            (n == 33 && strncasecmp(ct, "application/x-www-form-urlencoded", 33) == 0) ||
            (n == 10 && strncasecmp(ct, "text/plain", 10) == 0) ||
            (n == 8 && strncasecmp(ct, "text/csv", 8) == 0)) /* the price import */
                return true;
        /* application/<anything>+json (RFC 6839 structured suffix). */
        return n > 17 && strncasecmp(ct, "application/", 12) == 0 &&
               strncasecmp(ct + n - 5, "+json", 5) == 0;
}

static enum MHD_Result framing_visit(void *cls, enum MHD_ValueKind kind, const char *key,
                                     size_t key_size, const char *value, size_t value_size)
{
        (void)kind;
        framing_header(cls, key, key_size, value, value_size);
        return MHD_YES;
}

/*
 * Every header, duplicates included, against http/framing.h's rules.  A
 * request refused here is answered at once, before its body is read:
 * libmicrohttpd then reads nothing more from the connection and closes it
 * after the reply, so no byte after these headers can run as a request.
 * A request with a body gets BODY_TIMEOUT_S until its reply.
 */
static enum MHD_Result check_framing(struct MHD_Connection *conn, const char *version,
                                     struct request *rq)
{
        struct framing fr;
        const char *why;
        unsigned idle = rq->srv->cfg->idle_timeout_s;

        framing_init(&fr);
        fr.host_required = version && strcmp(version, MHD_HTTP_VERSION_1_1) == 0;
        MHD_get_connection_values_n(conn, MHD_HEADER_KIND, framing_visit, &fr);
        int status = framing_verdict(&fr, &why);
        if (status)
                return send_problem(conn, rq, status, why, MHD_HTTP_HEADER_CONNECTION, "close");
        if (framing_has_body(&fr, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                              MHD_HTTP_HEADER_CONTENT_LENGTH)) &&
            (idle == 0 || idle > BODY_TIMEOUT_S)) {
                MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, BODY_TIMEOUT_S);
                rq->body_timeout = true;
        }
        return MHD_YES;
}

struct query_check {
        char key[64]; /* the first argument that breaks the rule */
        bool bad;
};

static enum MHD_Result query_visit(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
        struct query_check *qc = cls;
        bool key_ok = key && text_chars(key, key_size) >= 0;

        (void)kind;
        if (key_ok && (!value || text_chars(value, value_size) >= 0))
                return MHD_YES;
        qc->bad = true;
        /* a key that is not text itself is named by its readable start */
        snprintf(qc->key, sizeof(qc->key), "%.*s",
                 key_ok && key_size < sizeof(qc->key) ? (int)key_size : 0, key ? key : "");
        return MHD_NO;
}

/*
 * The text rule of json/text.h on what the path and query carry to a
 * handler: decoded query arguments (libmicrohttpd gives their full
 * length, so "?q=a%00b" is seen whole, not as "a") and path parameters
 * must be UTF-8 without NUL.  Returns MHD_YES when they are; otherwise a
 * 400 is queued (rq->responded).
 */
static enum MHD_Result check_text(struct MHD_Connection *conn, struct request *rq)
{
        struct query_check qc = {{0}, false};

        MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, query_visit, &qc);
        if (qc.bad) {
                struct api_response rs;
                char ptr[80], detail[160];
                memset(&rs, 0, sizeof(rs));
                snprintf(ptr, sizeof(ptr), "?%s", qc.key);
                snprintf(detail, sizeof(detail),
                         "query argument %s holds a NUL or bytes that are not UTF-8", ptr);
                api_problem_field(&rs, 400, ptr, "encoding", detail);
                return send_api(conn, rq, &rs);
        }
        for (unsigned i = 0; i < rq->match.n_params; i++)
                if (text_chars(rq->match.params[i], strlen(rq->match.params[i])) < 0)
                        return reject(conn, rq, 400, "the path holds bytes that are not UTF-8",
                                      NULL, NULL);
        return MHD_YES;
}

/* First call: route and reject early.  Returns MHD_YES to continue reading. */
static enum MHD_Result first_call(struct MHD_Connection *conn, struct request *rq,
                                  const char *method, const char *version)
{
        struct http_server *srv = rq->srv;
        const char *base = srv->cfg->base_path;
        size_t blen = strlen(base);
        char *path = rq->raw_uri;

        rq->started = true;
        metrics_inflight_add(srv->app->metrics, 1);
        snprintf(rq->method, sizeof(rq->method), "%s", method);
        set_request_id(srv, conn, rq);
        enum MHD_Result framed = check_framing(conn, version, rq);
        if (framed != MHD_YES || rq->responded)
                return framed;
        if (rq->uri_too_long)
                return reject(conn, rq, 414, "the request target is longer than 2047 bytes", NULL,
                              NULL);
        path[strcspn(path, "?#")] = '\0';
        if (path[0] != '/') {
                /* A server MUST accept the absolute-form, http://host/path,
                 * and route by its path (RFC 9112 section 3.2.2); the
                 * asterisk-form and anything else are not paths. */
                size_t scheme = strncasecmp(path, "http://", 7) == 0    ? 7
                                : strncasecmp(path, "https://", 8) == 0 ? 8
                                                                        : 0;
                if (!scheme)
                        return reject(conn, rq, 400,
                                      "the request target must be a path that begins with \"/\" "
                                      "or an absolute http(s) URI",
                                      NULL, NULL);
                char *slash = strchr(path + scheme, '/');
                if (slash) {
                        path = slash;
                } else {
                        path[0] = '/'; /* http://host alone: the root */
                        path[1] = '\0';
                }
        }
        if (blen && strncmp(path, base, blen) == 0 && (path[blen] == '\0' || path[blen] == '/')) {
                if (path[blen] == '\0') {
                        /* "/gpuplan" -> "/gpuplan/", so the page's relative URLs resolve. */
                        struct api_response rs;
                        char loc[160];
                        memset(&rs, 0, sizeof(rs));
                        rs.status = 301;
                        snprintf(loc, sizeof(loc), "%s/", base);
                        api_reply_header_add(&rs, "Location", loc);
                        return send_api(conn, rq, &rs);
                }
                path += blen;
        }
        snprintf(rq->path, sizeof(rq->path), "%s", path);

        switch (router_match(api_routes, method, rq->path, &rq->match)) {
        case ROUTER_BAD_PATH:
                return reject(conn, rq, 400, "the path has a malformed %-escape or an encoded NUL",
                              NULL, NULL);
        case ROUTER_METHOD_NOT_ALLOWED:
                return reject(conn, rq, 405, "the path does not accept this method", "Allow",
                              rq->match.allow);
        case ROUTER_NOT_FOUND:
                if (strncmp(rq->path, "/api/", 5) == 0 || strcmp(rq->path, "/api") == 0)
                        return reject(conn, rq, 404, "no such API endpoint", NULL, NULL);
                if (strcmp(method, "OPTIONS") == 0) {
                        struct api_response rs;
                        memset(&rs, 0, sizeof(rs));
                        rs.status = 204;
                        api_reply_header_add(&rs, "Allow", "GET, HEAD, OPTIONS");
                        rq->route = METRICS_ROUTE_STATIC;
                        return send_api(conn, rq, &rs);
                }
                if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
                        return reject(conn, rq, 405, "static files accept GET and HEAD only",
                                      "Allow", "GET, HEAD, OPTIONS");
                rq->route = METRICS_ROUTE_STATIC;
                return MHD_YES;
        case ROUTER_FOUND:
                break;
        }
        if (rq->match.route < 0) { /* OPTIONS on an API path */
                struct api_response rs;
                memset(&rs, 0, sizeof(rs));
                rs.status = 204;
                api_reply_header_add(&rs, "Allow", rq->match.allow);
                return send_api(conn, rq, &rs);
        }
        rq->route = rq->match.route;
        enum MHD_Result text_ok = check_text(conn, rq);
        if (text_ok != MHD_YES || rq->responded || rq->discard_body)
                return text_ok;
        const struct api_route *route = &api_routes[rq->match.route];
        if (route->flags & API_ROUTE_BODY) {
                const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                             MHD_HTTP_HEADER_CONTENT_LENGTH);
                const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                             MHD_HTTP_HEADER_CONTENT_TYPE);
                if (cl) {
                        char *end;
                        errno = 0;
                        unsigned long long n = strtoull(cl, &end, 10);
                        size_t limit = srv->cfg->body_limit_bytes;
                        if (errno || *end || n > limit) {
                                char detail[128];
                                snprintf(detail, sizeof(detail),
                                         "the request body is larger than %zu bytes",
                                         srv->cfg->body_limit_bytes);
                                return reject(conn, rq, 413, detail, NULL, NULL);
                        }
                }
                if (!body_type_ok(ct))
                        return reject(conn, rq, 415, "send the request body as application/json",
                                      "Accept-Post", "application/json");
                rq->read_body = true;
        }
        return MHD_YES;
}

static int body_append(struct request *rq, const char *data, size_t n, size_t limit)
{
        if (rq->too_large)
                return -1;
        if (n > limit || rq->body_len > limit - n) {
                rq->too_large = true;
                free(rq->body);
                rq->body = NULL;
                rq->body_len = rq->body_cap = 0;
                return -1;
        }
        if (rq->body_len + n + 1 > rq->body_cap) {
                size_t cap = rq->body_cap ? rq->body_cap : 4096;
                while (cap < rq->body_len + n + 1)
                        cap *= 2;
                if (cap > limit + 1)
                        cap = limit + 1;
                char *p = realloc(rq->body, cap);
                if (!p)
                        return -2;
                rq->body = p;
                rq->body_cap = cap;
        }
        memcpy(rq->body + rq->body_len, data, n);
        rq->body_len += n;
        rq->body[rq->body_len] = '\0';
        return 0;
}

static enum MHD_Result serve_static(struct MHD_Connection *conn, struct request *rq)
{
        struct http_server *srv = rq->srv;
        struct static_file f;
        struct MHD_Response *r;
        char decoded[RAW_PATH_MAX];

        if (!srv->files || router_decode(rq->path, strlen(rq->path), decoded, sizeof(decoded)) < 0)
                return send_problem(conn, rq, 404, "no such file", NULL, NULL);
        if (static_files_get(srv->files, decoded,
                             MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match"),
                             MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept-Encoding"),
                             &f))
                return send_problem(conn, rq, 500, "cannot read the file", NULL, NULL);
        if (f.status == 404)
                return send_problem(conn, rq, 404, "no such file", NULL, NULL);
        if (f.status == 304) {
                r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        } else if (f.body) {
                r = MHD_create_response_from_buffer((size_t)f.size, f.body, MHD_RESPMEM_MUST_FREE);
                if (r)
                        f.body = NULL;
        } else {
                r = MHD_create_response_from_fd64(f.size, f.fd);
                if (r)
                        f.fd = -1; /* MHD closes it */
        }
        static_files_release(&f);
        if (!r)
                return MHD_NO;
        rq->bytes = f.status == 200 ? f.size : 0;
        MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, f.etag);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, f.cache_control);
        MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
        if (f.status == 200) {
                MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, f.content_type);
                if (f.gzip)
                        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        }
        return queue(conn, rq, f.status, r);
}

/* query()/header() of an offloaded request: its copied values. */
static const char *copied_value(const struct api_request *arq, enum MHD_ValueKind kind,
                                const char *key)
{
        const struct request *rq = arq->transport;

        for (size_t i = 0; i < rq->n_values; i++) {
                const struct request_value *v = &rq->values[i];
                if (v->kind == kind && (kind == MHD_HEADER_KIND ? strcasecmp(v->key, key) == 0
                                                                : strcmp(v->key, key) == 0))
                        return v->value;
        }
        return NULL;
}

static const char *copied_query(const struct api_request *arq, const char *key)
{
        return copied_value(arq, MHD_GET_ARGUMENT_KIND, key);
}

static const char *copied_header(const struct api_request *arq, const char *name)
{
        return copied_value(arq, MHD_HEADER_KIND, name);
}

struct value_copy {
        struct request *rq;
        size_t count;
        size_t string_bytes;
        char *strings; /* NULL while counting */
};

static enum MHD_Result value_visit(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
        struct value_copy *vc = cls;
        size_t kl = key ? strlen(key) + 1 : 1;
        size_t vl = value ? strlen(value) + 1 : 0;

        if (vc->strings) {
                struct request_value *v = &vc->rq->values[vc->count];
                char *k = vc->strings + vc->string_bytes;
                memcpy(k, key ? key : "", kl);
                v->kind = kind;
                v->key = k;
                v->value = NULL;
                if (value) {
                        memcpy(k + kl, value, vl);
                        v->value = k + kl;
                }
        }
        vc->count++;
        vc->string_bytes += kl + vl;
        return MHD_YES;
}

/*
 * Copy the headers and query arguments a handler may ask for, so that a
 * worker never reads libmicrohttpd's connection state.  Bounded by the
 * connection memory limit (CONNECTION_MEMORY_BYTES).  -1: out of memory.
 */
static int copy_values(struct MHD_Connection *conn, struct request *rq)
{
        const enum MHD_ValueKind kinds = MHD_HEADER_KIND | MHD_GET_ARGUMENT_KIND;
        struct value_copy vc = {rq, 0, 0, NULL};
        size_t n;

        MHD_get_connection_values(conn, kinds, value_visit, &vc);
        n = vc.count;
        rq->values = malloc(n * sizeof(*rq->values) + vc.string_bytes + 1);
        if (!rq->values)
                return -1;
        vc = (struct value_copy){rq, 0, 0, (char *)(rq->values + n)};
        MHD_get_connection_values(conn, kinds, value_visit, &vc);
        rq->n_values = vc.count < n ? vc.count : n;
        return 0;
}

/* On an offload worker: run the handler, then hand the connection back. */
static void offload_run(void *arg)
{
        struct request *rq = arg;

        api_routes[rq->match.route].handler(&rq->arq, &rq->offload_rs);
        atomic_store(&rq->offload_done, true);
        MHD_resume_connection(rq->conn);
}

static enum MHD_Result respond(struct MHD_Connection *conn, struct request *rq,
                               struct api_response *rs)
{
        if (rs->status == 0 && !rs->body)
                api_problem(rs, 500, "the handler produced no response");
        return send_api(conn, rq, rs);
}

static enum MHD_Result offload(struct MHD_Connection *conn, struct request *rq,
                               struct offload_pool *pool);

static enum MHD_Result dispatch(struct MHD_Connection *conn, struct request *rq)
{
        struct http_server *srv = rq->srv;
        const struct api_route *route = &api_routes[rq->match.route];
        struct api_request *arq = &rq->arq;
        struct api_response rs;
        struct offload_pool *pool = NULL;

        memset(arq, 0, sizeof(*arq));
        memset(&rs, 0, sizeof(rs));
        arq->method = strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method;
        arq->path = rq->path;
        arq->route = route->pattern;
        arq->n_params = rq->match.n_params;
        for (unsigned i = 0; i < arq->n_params; i++)
                arq->params[i] = rq->match.params[i];
        arq->body = rq->read_body ? rq->body : NULL;
        arq->body_len = rq->read_body ? rq->body_len : 0;
        arq->request_id = rq->request_id;
        arq->app = srv->app;
        arq->query = rq_query;
        arq->header = rq_header;
        arq->transport = conn;
        arq->may_block = !srv->db_jobs; /* thread per connection: a handler may wait */
        if (route->flags & API_ROUTE_DB)
                pool = srv->db_jobs;
        else if (route->flags & API_ROUTE_SLOW)
                pool = srv->slow_jobs;
        if (pool)
                return offload(conn, rq, pool);
        route->handler(arq, &rs);
        if (rs.status == API_STATUS_WAIT && srv->hub_jobs) {
                free(rs.body);
                arq->may_block = true;
                return offload(conn, rq, srv->hub_jobs);
        }
        if (rs.status == API_STATUS_WAIT)
                api_problem(&rs, 500, "the handler asked to wait where it already could");
        return respond(conn, rq, &rs);
}

/* Run the matched handler on a worker of pool; the connection is suspended meanwhile. */
static enum MHD_Result offload(struct MHD_Connection *conn, struct request *rq,
                               struct offload_pool *pool)
{
        struct api_request *arq = &rq->arq;
        struct api_response rs;

        memset(&rs, 0, sizeof(rs));
        arq->may_block = true;
        if (copy_values(conn, rq) == 0) {
                arq->query = copied_query;
                arq->header = copied_header;
                arq->transport = rq;
                rq->conn = conn;
                rq->offloaded = true;
                /*
                 * Suspend before submitting: the worker may finish and resume
                 * before this call returns, and a resume must follow its suspend.
                 */
                MHD_suspend_connection(conn);
                if (offload_submit(pool, offload_run, rq) == 0)
                        return MHD_YES;
                /* Ring full or stopping: run it here rather than refuse it. */
                offload_run(rq);
                return MHD_YES;
        }
        api_routes[rq->match.route].handler(arq, &rs);
        return respond(conn, rq, &rs);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                      const char *method, const char *version,
                                      const char *upload_data, size_t *upload_data_size,
                                      void **con_cls)
{
        struct request *rq = *con_cls;
        struct http_server *srv = cls;
        int rc;

        (void)url;
        if (!rq)
                return MHD_NO; /* the URI logger could not allocate */
        if (!rq->started)
                return first_call(conn, rq, method, version);
        if (*upload_data_size != 0) {
                size_t limit = srv->cfg->body_limit_bytes;
                rq->received += *upload_data_size;
                /*
                 * Drained bodies are bounded too: a refused request's body up
                 * to the allowance of reject(), a chunked body past the cap up
                 * to 8 times the cap (so its 413 can still be sent); beyond
                 * that the connection is closed without a reply.
                 */
                if ((rq->discard_body && rq->received > limit + limit / 8) ||
                    (rq->too_large && rq->received / 8 > limit))
                        return MHD_NO;
                if (rq->read_body && !rq->discard_body) {
                        rc = body_append(rq, upload_data, *upload_data_size,
                                         srv->cfg->body_limit_bytes);
                        if (rc == -2)
                                return MHD_NO;
                }
                *upload_data_size = 0;
                return MHD_YES;
        }
        if (rq->responded)
                return MHD_YES;
        if (rq->offloaded) /* called again after MHD_resume_connection() */
                return atomic_load(&rq->offload_done) ? respond(conn, rq, &rq->offload_rs)
                                                      : MHD_YES;
        if (rq->deferred_status)
                return send_problem(conn, rq, rq->deferred_status, rq->deferred_detail,
                                    rq->deferred_hname[0] ? rq->deferred_hname : NULL,
                                    rq->deferred_hvalue);
        if (rq->too_large) {
                char detail[128];
                snprintf(detail, sizeof(detail), "the request body is larger than %zu bytes",
                         srv->cfg->body_limit_bytes);
                return send_problem(conn, rq, 413, detail, NULL, NULL);
        }
        if (rq->route == METRICS_ROUTE_STATIC)
                return serve_static(conn, rq);
        return dispatch(conn, rq);
}

/*
 * Append the peer address and, when a proxy set it, X-Real-IP (nginx
 * passes the client's address there; it is logged, never trusted).
 */
static void log_remote(struct MHD_Connection *conn, char *fields, size_t cap, size_t *len)
{
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const char *real = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Real-IP");
        char addr[INET6_ADDRSTRLEN] = "";

        if (ci && ci->client_addr) {
                const struct sockaddr *sa = ci->client_addr;
                if (sa->sa_family == AF_INET)
                        inet_ntop(AF_INET,
                                  &((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr,
                                  sizeof(addr));
                else if (sa->sa_family == AF_INET6)
                        inet_ntop(AF_INET6,
                                  &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, addr,
                                  sizeof(addr));
        }
        if (addr[0] && *len + 10 + 2 * sizeof(addr) < cap) {
                memcpy(fields + *len, ",\"remote\":", 10);
                *len += 10;
                fields[*len] = '\0';
                log_json_string(fields, cap, len, addr);
        }
        if (real && *len + 16 < cap) {
                memcpy(fields + *len, ",\"real_ip\":", 11);
                *len += 11;
                fields[*len] = '\0';
                if (log_json_string(fields, cap, len, real) != 0) {
                        *len -= 11;
                        fields[*len] = '\0';
                }
        }
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
        struct http_server *srv = cls;
        struct request *rq = *con_cls;
        char fields[LOG_LINE_MAX / 2];
        size_t len = 0;
        double secs;
        int status;

        if (!rq)
                return;
        *con_cls = NULL;
        secs = seconds_since(&rq->start);
        status = rq->status;
        if (!rq->responded) {
                /* libmicrohttpd answered by itself (malformed request) or nothing was sent. */
                const union MHD_ConnectionInfo *ci =
                        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_HTTP_STATUS);
                status = ci ? (int)ci->http_status : 0;
        }
        if (rq->started)
                metrics_inflight_add(srv->app->metrics, -1);
        metrics_observe(srv->app->metrics, rq->route, rq->method[0] ? rq->method : "OTHER", status,
                        secs);
        if (log_enabled(LOG_LEVEL_INFO)) {
                int n;
                memcpy(fields, "\"method\":", 9);
                len = 9;
                log_json_string(fields, sizeof(fields), &len, rq->method[0] ? rq->method : "-");
                n = snprintf(fields + len, sizeof(fields) - len, ",\"path\":");
                len += (size_t)n;
                log_json_string(fields, sizeof(fields), &len, rq->path[0] ? rq->path : rq->raw_uri);
                n = snprintf(fields + len, sizeof(fields) - len,
                             ",\"status\":%d,\"bytes\":%llu,\"duration_ms\":%.3f,\"request_id\":",
                             status, (unsigned long long)rq->bytes, secs * 1e3);
                if (n > 0 && (size_t)n < sizeof(fields) - len)
                        len += (size_t)n;
                log_json_string(fields, sizeof(fields), &len, rq->request_id);
                log_remote(conn, fields, sizeof(fields), &len);
                if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
                        static const char *const why[] = {"ok",       "error",      "timeout",
                                                          "shutdown", "read_error", "client_abort"};
                        n = snprintf(fields + len, sizeof(fields) - len, ",\"termination\":\"%s\"",
                                     (unsigned)toe < 6 ? why[toe] : "other");
                        if (n > 0 && (size_t)n < sizeof(fields) - len)
                                len += (size_t)n;
                }
                log_access(fields);
        }
        free(rq->offload_rs.body); /* set only if the response was never sent */
        free(rq->values);
        free(rq->body);
        free(rq);
}

/* Resolve host:port into a socket address; -1 with a reason. */
static int resolve(const struct config *cfg, struct sockaddr_storage *ss, socklen_t *len, char *err,
                   size_t errlen)
{
        struct addrinfo hints;
        struct addrinfo *res = NULL;
        char port[16];
        int rc;

        memset(&hints, 0, sizeof(hints));
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
        snprintf(port, sizeof(port), "%u", cfg->listen_port);
        rc = getaddrinfo(cfg->listen_host, port, &hints, &res);
        if (rc != 0) {
                snprintf(err, errlen, "GPUPLAN_LISTEN: cannot resolve %s: %s", cfg->listen_host,
                         gai_strerror(rc));
                return -1;
        }
        memcpy(ss, res->ai_addr, res->ai_addrlen);
        *len = res->ai_addrlen;
        freeaddrinfo(res);
        return 0;
}

struct http_server *http_server_start(struct app *app, char *err, size_t errlen)
{
        const struct config *cfg = app->config;
        struct http_server *srv = calloc(1, sizeof(*srv));
        struct sockaddr_storage ss;
        socklen_t sslen;
        unsigned flags;
        uint32_t rnd = 0;

        if (!srv) {
                snprintf(err, errlen, "out of memory");
                return NULL;
        }
        srv->app = app;
        srv->cfg = cfg;
        srv->quiesced = MHD_INVALID_SOCKET;
        for (srv->n_routes = 0; api_routes[srv->n_routes].method; srv->n_routes++)
                ;
        if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
                rnd = (uint32_t)time(NULL) ^ (uint32_t)getpid();
        snprintf(srv->id_prefix, sizeof(srv->id_prefix), "%08x", rnd);
        if (resolve(cfg, &ss, &sslen, err, errlen))
                goto fail;
        {
                char msg[300];
                srv->files = static_files_open(cfg->static_dir, msg, sizeof(msg));
                if (!srv->files)
                        log_warn("%s; the web page will not be served", msg);
        }
        flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
        if (cfg->threads == 0) {
                flags |= MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
        } else {
                /*
                 * Blocking handlers leave the event loop.  Database jobs get as
                 * many workers as the database pool has connections (more
                 * would only wait for one); slow computations one per CPU.
                 * Each ring holds one job per connection, so it cannot fill.
                 */
                long cpus = sysconf(_SC_NPROCESSORS_ONLN);
                unsigned n_slow = cpus < 1 ? 1u : cpus > 64 ? 64u : (unsigned)cpus;
                unsigned n_db = cfg->db_pool_size ? cfg->db_pool_size : 1u;
                flags |= MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
                srv->db_jobs = offload_start("gpuplan-db", n_db > 256 ? 256u : n_db,
                                             cfg->connection_limit, err, errlen);
                if (!srv->db_jobs)
                        goto fail;
                srv->slow_jobs =
                        offload_start("gpuplan-slow", n_slow, cfg->connection_limit, err, errlen);
                if (!srv->slow_jobs)
                        goto fail;
                /* Hub look-ups wait on the network for up to their time limit:
                 * a pool of their own, so that neither database work nor plan
                 * searches queue behind them. */
                srv->hub_jobs = offload_start("gpuplan-hub", HUB_WORKERS, cfg->connection_limit,
                                              err, errlen);
                if (!srv->hub_jobs)
                        goto fail;
        }
        if (ss.ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        /* The pool size option only exists for the epoll model. */
        struct MHD_OptionItem pool_opts[] = {
                {cfg->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END,
                 (intptr_t)cfg->threads, NULL},
                {MHD_OPTION_END, 0, NULL},
        };
        srv->daemon = MHD_start_daemon(
                flags, 0, NULL, NULL, access_handler, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger,
                srv, MHD_OPTION_ARRAY, pool_opts, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->connection_limit,
                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->idle_timeout_s,
                MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY_BYTES,
                MHD_OPTION_PER_IP_CONNECTION_LIMIT, 0u, MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u,
                MHD_OPTION_URI_LOG_CALLBACK, uri_logger, srv, MHD_OPTION_NOTIFY_COMPLETED,
                completed, srv, MHD_OPTION_END);
        if (!srv->daemon) {
                snprintf(err, errlen, "cannot listen on %s:%u (address in use or not local?)",
                         cfg->listen_host, cfg->listen_port);
                goto fail;
        }
        {
                const union MHD_DaemonInfo *di =
                        MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
                srv->port = di ? di->port : cfg->listen_port;
        }
        return srv;
fail:
        offload_stop(srv->db_jobs);
        offload_stop(srv->slow_jobs);
        offload_stop(srv->hub_jobs);
        static_files_close(srv->files);
        free(srv);
        return NULL;
}

unsigned http_server_port(const struct http_server *s)
{
        return s->port;
}

bool http_server_drain(struct http_server *s, unsigned grace_s)
{
        struct timespec t0;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        s->quiesced = MHD_quiesce_daemon(s->daemon);
        /*
         * Refuse new connections now instead of leaving them in the listen
         * backlog until the daemon stops.  The descriptor itself stays open
         * until after MHD_stop_daemon(), as libmicrohttpd requires.
         */
        if (s->quiesced != MHD_INVALID_SOCKET)
                shutdown(s->quiesced, SHUT_RDWR);
        /*
         * In flight counts every request whose headers arrived, suspended
         * ones included.  A connection accepted just before the quiesce may
         * not have delivered its request yet, so the count must stay at zero
         * for a few polls in a row.
         */
        for (unsigned idle_polls = 0; idle_polls < DRAIN_IDLE_POLLS;) {
                if (metrics_inflight(s->app->metrics) > 0)
                        idle_polls = 0;
                else
                        idle_polls++;
                if (idle_polls == 0 && seconds_since(&t0) >= (double)grace_s)
                        return false;
                struct timespec ts = {0, 20 * 1000 * 1000};
                nanosleep(&ts, NULL);
        }
        return true;
}

void http_server_stop(struct http_server *s)
{
        struct timespec t0;

        if (!s || !s->daemon)
                return;
        /*
         * Stopping the daemon while a connection is suspended violates
         * libmicrohttpd's API (manual, "flow"): finish every offloaded job
         * (each resumes its connection), then give the event loops a moment
         * to send those responses.
         */
        offload_stop(s->db_jobs);
        offload_stop(s->slow_jobs);
        offload_stop(s->hub_jobs);
        s->db_jobs = s->slow_jobs = s->hub_jobs = NULL;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (metrics_inflight(s->app->metrics) > 0 && seconds_since(&t0) < 1.0) {
                struct timespec ts = {0, 5 * 1000 * 1000};
                nanosleep(&ts, NULL);
        }
        MHD_stop_daemon(s->daemon);
        s->daemon = NULL;
        if (s->quiesced != MHD_INVALID_SOCKET)
                close(s->quiesced);
        s->quiesced = MHD_INVALID_SOCKET;
}

void http_server_free(struct http_server *s)
{
        if (!s)
                return;
        http_server_stop(s);
        static_files_close(s->files);
        free(s);
}
