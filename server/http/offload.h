/*
 * offload.h - a fixed set of worker threads for handlers that must not run
 * on an event-loop thread.
 *
 * The HTTP transport runs on an epoll pool (server.h): a handler that
 * waits on PostgreSQL or computes for tens of milliseconds would stall
 * every connection of its epoll worker.  Such a request is suspended
 * (MHD_suspend_connection) and its handler submitted here; the job
 * resumes the connection when it is done.  This is GNU Taler's design
 * (a suspended connection resumed by a worker) with the blocking work moved off
 * the event loop instead of pinning a PGconn to each event-loop thread.
 *
 * Memory: offload_start() allocates the pool and a job ring of queue_cap
 * slots; offload_stop() runs every queued job, joins the threads and frees
 * the pool.  The pool never owns a job's argument.
 *
 * Thread-safety: offload_submit() and offload_pending() may be called from
 * any thread; offload_stop() once, by the owner, after the last submit.
 */
#ifndef GPUPLAN_HTTP_OFFLOAD_H
#define GPUPLAN_HTTP_OFFLOAD_H

#include <stddef.h>

struct offload_pool;

typedef void (*offload_fn)(void *arg);

/* Start n threads (1..256) named name (up to 15 characters) with room for
 * queue_cap waiting jobs.  NULL with a reason in err. */
struct offload_pool *offload_start(const char *name, unsigned n, unsigned queue_cap, char *err,
                                   size_t errlen);

/* Queue fn(arg).  0, or -1 when the ring is full or the pool is stopping
 * (the caller then runs the job itself or refuses the request). */
int offload_submit(struct offload_pool *p, offload_fn fn, void *arg);

/* Jobs queued or running. */
unsigned offload_pending(struct offload_pool *p);

/* Run what is queued, join the threads, free the pool.  NULL is a no-op. */
void offload_stop(struct offload_pool *p);

#endif
