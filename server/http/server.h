/*
 * server.h - the HTTP transport: libmicrohttpd daemon, routing, bodies,
 * static files, access log, metrics, security headers, graceful stop.
 *
 * Thread model (measured on this project's 2-core build machine; figures
 * and method in README "Thread model"): by default one thread per
 * connection (MHD_USE_THREAD_PER_CONNECTION with poll), bounded by
 * GPUPLAN_MAX_CONNECTIONS.  The hot path (estimate, catalog reads,
 * compare) never blocks, but /readyz and the admin writes wait on
 * PostgreSQL, and in an epoll pool such a wait stalls every connection
 * pinned to that worker.  GPUPLAN_THREADS=N selects an epoll pool of N
 * workers instead, for deployments that keep database routes elsewhere.
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
