/*
 * server.h - the HTTP transport: libmicrohttpd daemon, routing, bodies,
 * static files, access log, metrics, security headers, graceful stop.
 *
 * Thread model: an epoll pool (GPUPLAN_THREADS, default one thread per
 * CPU) runs every handler that neither waits nor computes for long.
 * Routes flagged API_ROUTE_DB (readiness, admin writes, price history,
 * validation) or API_ROUTE_SLOW (compare, rent-vs-buy) are suspended
 * (MHD_suspend_connection), run on a worker pool of their kind
 * (offload.h: as many database workers as pooled connections, one compute
 * worker per CPU) and resumed with their response; the worker reads a copy
 * of the request's headers and query arguments, never the connection.  So
 * a /readyz stuck behind a table lock stalls no event loop (measured in
 * BENCHMARKS.md, "locked").  GPUPLAN_THREADS=0 (or per-connection) keeps
 * the older thread-per-connection model, where handlers simply block.
 * Drain counts suspended requests as in flight; stop finishes the worker
 * pools (which resume their connections) before stopping the daemon, as
 * libmicrohttpd requires.
 *
 * Per request: a context made when the request line arrives (request id,
 * start time, raw URI), the body accumulated with a hard cap
 * (GPUPLAN_BODY_LIMIT_BYTES: 413 from Content-Length before reading, and
 * for chunked bodies once the cap is crossed), one handler call, and one
 * JSON access-log line when the response completes.  Errors raised here
 * (400, 401, 403, 404, 405, 413, 415) are problem documents built by
 * api/problem.c.  libmicrohttpd's own replies to malformed HTTP (400, 414,
 * 431) stay HTML; they are documented in openapi.yaml.
 *
 * Memory: http_server_start() allocates the server and its worker pools;
 * http_server_free() releases them after http_server_stop().  Request
 * contexts (with the copied values of an offloaded request) are freed by
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
