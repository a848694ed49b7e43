/*
 * handler.h - the contract between the HTTP transport and the API handlers.
 *
 * The transport (server/http) matches a request against api_routes[],
 * fills a struct api_request and calls the route's handler, which fills a
 * struct api_response.  Handlers never see libmicrohttpd; the transport
 * never sees jansson.  This keeps every handler testable with a plain
 * struct and no socket.
 *
 * Ownership: everything an api_request points to is owned by the
 * transport and lives until the handler returns.  api_response.body is
 * malloc'd by the handler (through the api_reply_* helpers) and freed by
 * the transport after sending.  Handlers run on many threads at once: they
 * may only read shared state through the app's snapshot and pool APIs.
 */
#ifndef GPUPLAN_API_HANDLER_H
#define GPUPLAN_API_HANDLER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct app;

#define API_PATH_PARAMS_MAX      4
#define API_RESPONSE_HEADERS_MAX 8

struct api_request {
        const char *method;                      /* "GET", "POST", ... (HEAD arrives as GET) */
        const char *path;                        /* decoded path below the base path, no query */
        const char *route;                       /* the matched pattern, e.g. "/api/v1/gpus/{id}" */
        const char *params[API_PATH_PARAMS_MAX]; /* {name} segments, in order, decoded */
        unsigned n_params;
        const char *body; /* request body, NUL-terminated; NULL if none */
        size_t body_len;
        const char *request_id; /* echoed X-Request-Id or a generated one */
        struct app *app;
        /* Query argument / header by name (headers case-insensitive); NULL if absent. */
        const char *(*query)(const struct api_request *rq, const char *key);
        const char *(*header)(const struct api_request *rq, const char *name);
        void *transport; /* opaque, for query() and header() */
        /* false on an event-loop thread: a handler that finds it must wait
         * (a Hub look-up) answers API_STATUS_WAIT and is run again where it
         * may block (see API_STATUS_WAIT). */
        bool may_block;
};

/*
 * A handler on an event-loop thread (rq->may_block false) that needs to
 * wait - a model the Hub must be asked for - sets rs->status to this and
 * returns without a body; the transport suspends the connection and runs
 * the handler again on its Hub worker pool with may_block true.
 */
#define API_STATUS_WAIT 1

struct api_header {
        char name[48];
        char value[256];
};

struct api_response {
        int status;
        const char *content_type; /* static string */
        char *body;               /* malloc'd; freed by the transport */
        size_t body_len;
        struct api_header headers[API_RESPONSE_HEADERS_MAX];
        unsigned n_headers;
};

typedef void (*api_handler_fn)(const struct api_request *rq, struct api_response *rs);

/* Route flags. */
#define API_ROUTE_BODY 0x01u /* reads a JSON request body */
/*
 * The handler may block: it waits on PostgreSQL (API_ROUTE_DB) or computes
 * for tens of milliseconds (API_ROUTE_SLOW).  On the epoll pool the
 * transport runs such handlers on a worker thread of their own kind
 * (server/http/offload.h), so that they never stall an event loop; query()
 * and header() then read copies of the request's values.
 */
#define API_ROUTE_DB   0x02u
#define API_ROUTE_SLOW 0x04u

struct api_route {
        const char *method;
        const char *pattern; /* literal segments and {name} segments */
        api_handler_fn handler;
        unsigned flags;
};

/* The routing table, in server/api/routes.c; ends with a NULL method. */
extern const struct api_route api_routes[];

/*
 * Filling a response (reply.c).  Fill rs with a JSON document and status.
 * Steals the reference to doc (also on failure).  On allocation failure rs
 * becomes a bare 500.
 */
void api_reply_json(struct api_response *rs, int status, json_t *doc);

/* As api_reply_json, with the given Content-Type (a static string); doc NULL
 * (building it ran out of memory) gives the bare 500. */
void api_reply_doc(struct api_response *rs, int status, const char *content_type, json_t *doc);

/*
 * Problem documents (problem.c).
 * Fill rs with an RFC 9457 application/problem+json document: type, title
 * (from the status), status and detail.  The one place problem documents are
 * built.  detail is copied.
 */
void api_problem(struct api_response *rs, int status, const char *detail);

/*
 * A validation problem: as api_problem, plus "errors": [{"pointer": pointer,
 * "rule": rule, "detail": detail}] and top-level "pointer"/"rule" copies.
 * pointer is an RFC 6901 JSON pointer into the request body ("/workload/batch_size")
 * or, for query parameters, "?name".
 */
void api_problem_field(struct api_response *rs, int status, const char *pointer, const char *rule,
                       const char *detail);

/* Add a response header; returns 0, or -1 if the header table is full. */
int api_reply_header_add(struct api_response *rs, const char *name, const char *value);

#endif
