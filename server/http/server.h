/*
 * server.h - the HTTP transport: libmicrohttpd daemon, routing, bodies,
 * static files, access log, metrics, security headers, graceful stop.
 *
 * Thread model, chosen by measuring (2-core machine, wrk -t1 -c32 on
 * /healthz; method and table in README "Thread model"): one thread per
 * connection (MHD_USE_THREAD_PER_CONNECTION with poll) served 33 500 req/s,
 * an epoll pool of 2 served 25 000-26 400; with four clients hitting a
 * /readyz blocked on a table lock, per-connection kept p99 at 4.2 ms while
 * the pool's p99 rose to 77 ms, because a handler waiting on PostgreSQL
 * stalls every connection of its epoll worker.  The hot path (estimate,
 * catalog reads, compare) never blocks, but readiness and admin writes do.
 * So the default is a thread per connection, bounded by
 * GPUPLAN_MAX_CONNECTIONS; GPUPLAN_THREADS=N selects the epoll pool.
 *
 * Per request: a context made when the request line arrives (request id,
 * start time, raw URI), the body accumulated with a hard cap
 * (GPUPLAN_BODY_LIMIT_BYTES: 413 from Content-Length before reading, and
 * for chunked bodies once the cap is crossed), one handler call, and one
 * JSON access-log line when the response completes.  Errors raised here
 * (400, 401, 403, 404, 405, 413, 415) are problem documents built by
 * api/reply.c.  libmicrohttpd's own replies to malformed HTTP (400, 414,
 * 431) stay HTML; they are documented in openapi.yaml.
 *
 * Memory: http_server_start() allocates the server; http_server_free()
 * releases it after http_server_stop().  Request contexts are freed by
 * the completion callback.
 *
 * Thread-safety: start/quiesce/drain/stop are called by main() only.
 */
#ifndef GPUPLAN_HTTP_SERVER_H
#define GPUPLAN_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>

struct app;
struct http_server;

/* Start listening as configured in app->config.  NULL with a reason in err. */
struct http_server *http_server_start(struct app *app, char *err, size_t errlen);

/* The bound TCP port (useful with GPUPLAN_LISTEN port 0). */
unsigned http_server_port(const struct http_server *s);

/*
 * Graceful stop: stop accepting new connections, let requests in flight
 * finish (responses now carry "Connection: close"), waiting at most
 * grace_s seconds.  Returns true when nothing was left in flight.
 */
bool http_server_drain(struct http_server *s, unsigned grace_s);

/* Close every connection and stop the daemon's threads; then free. */
void http_server_stop(struct http_server *s);
void http_server_free(struct http_server *s);

#endif
