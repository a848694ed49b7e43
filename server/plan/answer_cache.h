/*
 * answer_cache.h - a small LRU of finished answers, keyed by bytes, with
 * single-flight: while one thread computes the answer to a key, others
 * asking for the same key wait for it instead of computing it again.
 *
 * The API caches compare and rent-vs-buy answers under a key made of the
 * route, the catalog snapshot's content validator and the canonical
 * request body (server/api/answer_cached.c), so a new snapshot never meets an
 * old answer: its keys differ, and the old entries age out.  The cache
 * itself knows nothing of HTTP or JSON: a value is bytes plus an int tag
 * the caller chooses (the API stores the HTTP status).
 *
 * Memory: answer_cache_new() allocates the table; every key and value is
 * copied in, and answer_cache_get() hands out a malloc'd copy of a value
 * for the caller to free, so nothing returned borrows from the cache.
 * Stored bytes (keys + values) stay under the budget given at creation;
 * an answer larger than a quarter of it is not stored.
 *
 * Thread-safety: every function may be called from any thread (one mutex
 * and one condition variable per cache), except answer_cache_free(),
 * called once when no other thread uses the cache.
 */
#ifndef GPUPLAN_PLAN_ANSWER_CACHE_H
#define GPUPLAN_PLAN_ANSWER_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct answer_cache;

/* A key this thread has claimed: it must answer it with answer_cache_put(). */
struct answer_claim {
        size_t slot; /* SIZE_MAX: nothing claimed, put is a no-op */
        uint64_t serial;
};

struct answer_cache_stats {
        uint64_t hits;      /* answered from the cache, waits included */
        uint64_t misses;    /* left to the caller to compute */
        uint64_t waits;     /* of the hits, those that waited for another thread */
        uint64_t evictions; /* stored answers dropped for room */
        size_t entries;     /* answers stored now */
        size_t bytes;       /* their keys and values */
};

/*
 * A cache of slots entries (1..4096) and budget_bytes of keys and values,
 * whose waiters give up after wait_ms (and then compute for themselves).
 * NULL when out of memory or the arguments are out of range.
 */
struct answer_cache *answer_cache_new(unsigned slots, size_t budget_bytes, unsigned wait_ms);
void answer_cache_free(struct answer_cache *c);

/*
 * Look key up.  Returns 1 on a hit with *tag, *value (malloc'd, the
 * caller frees it) and *len set; waits first if another thread holds the
 * claim on key.  Returns 0 on a miss with *claim set: the caller computes
 * the answer and then calls answer_cache_put() with the claim, also when
 * it decides not to store the answer, so that waiters are released.
 */
int answer_cache_get(struct answer_cache *c, const void *key, size_t key_len, int *tag,
                     char **value, size_t *len, struct answer_claim *claim);

/*
 * Answer a claimed key: store value (len bytes, copied) with tag, or,
 * when value is NULL, give the claim up (a waiter then claims the key
 * and computes it itself).  Wakes the waiters either way.
 */
void answer_cache_put(struct answer_cache *c, const struct answer_claim *claim, int tag,
                      const void *value, size_t len);

void answer_cache_stats(struct answer_cache *c, struct answer_cache_stats *out);

#endif
