/*
 * offload.c - worker threads with a bounded FIFO of jobs; see offload.h.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "http/offload.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "errbuf.h"

struct offload_job {
        offload_fn fn;
        void *arg;
};

struct offload_pool {
        pthread_mutex_t lock;
        pthread_cond_t work; /* a job was queued, or stopping */
        struct offload_job *ring;
        unsigned cap;
        unsigned head;  /* next job to run */
        unsigned count; /* queued, not yet taken */
        unsigned running;
        bool stopping;
        unsigned n_threads;
        pthread_t *threads;
        char name[16];
};

static void *worker(void *arg)
{
        struct offload_pool *p = arg;

        pthread_setname_np(pthread_self(), p->name);
        pthread_mutex_lock(&p->lock);
        for (;;) {
                while (p->count == 0 && !p->stopping)
                        pthread_cond_wait(&p->work, &p->lock);
                if (p->count == 0)
                        break; /* stopping, and nothing left to run */
                struct offload_job job = p->ring[p->head];
                p->head = (p->head + 1) % p->cap;
                p->count--;
                p->running++;
                pthread_mutex_unlock(&p->lock);
                job.fn(job.arg);
                pthread_mutex_lock(&p->lock);
                p->running--;
        }
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

struct offload_pool *offload_start(const char *name, unsigned n, unsigned queue_cap, char *err,
                                   size_t errlen)
{
        struct offload_pool *p;

        if (n == 0 || n > 256 || queue_cap == 0) {
                errbuf_set(err, errlen, "offload pool %s: bad size (%u threads, %u slots)", name, n,
                           queue_cap);
                return NULL;
        }
        p = calloc(1, sizeof(*p));
        if (!p)
                goto oom;
        p->ring = calloc(queue_cap, sizeof(*p->ring));
        p->threads = calloc(n, sizeof(*p->threads));
        if (!p->ring || !p->threads)
                goto oom;
        p->cap = queue_cap;
        snprintf(p->name, sizeof(p->name), "%s", name);
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->work, NULL);
        for (; p->n_threads < n; p->n_threads++) {
                if (pthread_create(&p->threads[p->n_threads], NULL, worker, p) != 0) {
                        errbuf_set(err, errlen, "offload pool %s: cannot start thread %u", name,
                                   p->n_threads + 1);
                        offload_stop(p);
                        return NULL;
                }
        }
        return p;
oom:
        if (p) {
                free(p->ring);
                free(p->threads);
                free(p);
        }
        errbuf_set(err, errlen, "offload pool %s: out of memory", name);
        return NULL;
}

int offload_submit(struct offload_pool *p, offload_fn fn, void *arg)
{
        int rc = -1;

        pthread_mutex_lock(&p->lock);
        if (!p->stopping && p->count < p->cap) {
                p->ring[(p->head + p->count) % p->cap] = (struct offload_job){fn, arg};
                p->count++;
                pthread_cond_signal(&p->work);
                rc = 0;
        }
        pthread_mutex_unlock(&p->lock);
        return rc;
}

unsigned offload_pending(struct offload_pool *p)
{
        unsigned n;

        pthread_mutex_lock(&p->lock);
        n = p->count + p->running;
        pthread_mutex_unlock(&p->lock);
        return n;
}

void offload_stop(struct offload_pool *p)
{
        if (!p)
                return;
        pthread_mutex_lock(&p->lock);
        p->stopping = true;
        pthread_cond_broadcast(&p->work);
        pthread_mutex_unlock(&p->lock);
        for (unsigned i = 0; i < p->n_threads; i++)
                pthread_join(p->threads[i], NULL);
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->lock);
        free(p->threads);
        free(p->ring);
        free(p);
}
