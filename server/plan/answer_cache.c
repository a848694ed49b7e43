/*
 * answer_cache.c - an LRU of finished answers with single-flight; see
 * answer_cache.h.
 *
 * A fixed table of slots scanned linearly: with tens of slots a scan
 * (hash compare first) costs far less than the answers it saves (a
 * compare search takes milliseconds), and needs no second index to keep
 * consistent.  Slots are empty, pending (claimed: one thread is computing
 * the answer, others wait on the condition variable) or ready.  Only
 * ready slots are evicted, least recently used first.
 */
#include "plan/answer_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum slot_state { SLOT_EMPTY = 0, SLOT_PENDING, SLOT_READY };

struct slot {
        enum slot_state state;
        uint64_t hash;
        uint64_t serial;    /* which claim filled it, for answer_cache_put() */
        uint64_t last_used; /* c->tick at the last hit or store */
        char *key;
        size_t key_len;
        char *value;
        size_t len;
        int tag;
};

struct answer_cache {
        pthread_mutex_t mu;
        pthread_cond_t done; /* a pending slot was answered or given up */
        struct slot *slots;
        size_t n_slots;
        size_t budget; /* bytes of ready keys and values */
        unsigned wait_ms;
        uint64_t tick, serial;
        struct answer_cache_stats stats;
};

/* 64-bit FNV-1a (Fowler, Noll, Vo; draft-eastlake-fnv-21, section 2). */
static uint64_t fnv1a(const void *data, size_t len)
{
        const unsigned char *p = data;
        uint64_t h = 0xcbf29ce484222325u;

        for (size_t i = 0; i < len; i++) {
                h ^= p[i];
                h *= 0x100000001b3u;
        }
        return h;
}

struct answer_cache *answer_cache_new(unsigned slots, size_t budget_bytes, unsigned wait_ms)
{
        struct answer_cache *c;
        pthread_condattr_t attr;

        if (slots < 1 || slots > 4096 || budget_bytes < 1)
                return NULL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        c->slots = calloc(slots, sizeof(*c->slots));
        if (!c->slots) {
                free(c);
                return NULL;
        }
        c->n_slots = slots;
        c->budget = budget_bytes;
        c->wait_ms = wait_ms;
        pthread_mutex_init(&c->mu, NULL);
        /* Waits are timed on the monotonic clock: a wall-clock step must not cut or stretch them.
         */
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&c->done, &attr);
        pthread_condattr_destroy(&attr);
        return c;
}

static void slot_clear(struct answer_cache *c, struct slot *s)
{
        if (s->state == SLOT_READY)
                c->stats.bytes -= s->key_len + s->len;
        free(s->key);
        free(s->value);
        memset(s, 0, sizeof(*s));
}

void answer_cache_free(struct answer_cache *c)
{
        if (!c)
                return;
        for (size_t i = 0; i < c->n_slots; i++)
                slot_clear(c, &c->slots[i]);
        free(c->slots);
        pthread_cond_destroy(&c->done);
        pthread_mutex_destroy(&c->mu);
        free(c);
}

static struct slot *find(struct answer_cache *c, uint64_t hash, const void *key, size_t key_len)
{
        for (size_t i = 0; i < c->n_slots; i++) {
                struct slot *s = &c->slots[i];

                if (s->state != SLOT_EMPTY && s->hash == hash && s->key_len == key_len &&
                    memcmp(s->key, key, key_len) == 0)
                        return s;
        }
        return NULL;
}

/* The least recently used ready slot other than keep, or NULL. */
static struct slot *lru(struct answer_cache *c, const struct slot *keep)
{
        struct slot *best = NULL;

        for (size_t i = 0; i < c->n_slots; i++) {
                struct slot *s = &c->slots[i];

                if (s != keep && s->state == SLOT_READY &&
                    (!best || s->last_used < best->last_used))
                        best = s;
        }
        return best;
}

static void evict(struct answer_cache *c, struct slot *s)
{
        slot_clear(c, s);
        c->stats.entries--;
        c->stats.evictions++;
}

/* An empty slot, evicting the least recently used answer if none is; NULL if all are pending. */
static struct slot *free_slot(struct answer_cache *c)
{
        struct slot *s;

        for (size_t i = 0; i < c->n_slots; i++)
                if (c->slots[i].state == SLOT_EMPTY)
                        return &c->slots[i];
        s = lru(c, NULL);
        if (s)
                evict(c, s);
        return s;
}

static void deadline_after(struct timespec *ts, unsigned ms)
{
        clock_gettime(CLOCK_MONOTONIC, ts);
        ts->tv_sec += ms / 1000;
        ts->tv_nsec += (long)(ms % 1000) * 1000000L;
        if (ts->tv_nsec >= 1000000000L) {
                ts->tv_sec++;
                ts->tv_nsec -= 1000000000L;
        }
}

int answer_cache_get(struct answer_cache *c, const void *key, size_t key_len, int *tag,
                     char **value, size_t *len, struct answer_claim *claim)
{
        uint64_t hash = fnv1a(key, key_len);
        struct timespec deadline;
        bool waited = false;
        struct slot *s;

        claim->slot = SIZE_MAX;
        claim->serial = 0;
        *value = NULL;
        *len = 0;
        pthread_mutex_lock(&c->mu);
        for (;;) {
                s = find(c, hash, key, key_len);
                if (!s)
                        break;
                if (s->state == SLOT_READY) {
                        char *copy = malloc(s->len ? s->len : 1);

                        if (!copy)
                                goto miss; /* no memory for the copy: the caller computes */
                        memcpy(copy, s->value, s->len);
                        s->last_used = ++c->tick;
                        *tag = s->tag;
                        *value = copy;
                        *len = s->len;
                        c->stats.hits++;
                        c->stats.waits += waited;
                        pthread_mutex_unlock(&c->mu);
                        return 1;
                }
                /* Pending: another thread computes it.  Wait, but not forever. */
                if (!waited)
                        deadline_after(&deadline, c->wait_ms);
                waited = true;
                if (pthread_cond_timedwait(&c->done, &c->mu, &deadline) == ETIMEDOUT)
                        goto miss;
        }
        /* Nobody has it: claim it, so that later arrivals wait for this thread. */
        s = key_len <= c->budget / 4 ? free_slot(c) : NULL;
        if (s) {
                s->key = malloc(key_len ? key_len : 1);
                if (s->key) {
                        memcpy(s->key, key, key_len);
                        s->key_len = key_len;
                        s->hash = hash;
                        s->state = SLOT_PENDING;
                        s->serial = ++c->serial;
                        claim->slot = (size_t)(s - c->slots);
                        claim->serial = s->serial;
                }
        }
miss:
        c->stats.misses++;
        pthread_mutex_unlock(&c->mu);
        return 0;
}

void answer_cache_put(struct answer_cache *c, const struct answer_claim *claim, int tag,
                      const void *value, size_t len)
{
        struct slot *s, *old;
        size_t need;

        if (claim->slot == SIZE_MAX)
                return;
        pthread_mutex_lock(&c->mu);
        s = claim->slot < c->n_slots ? &c->slots[claim->slot] : NULL;
        if (!s || s->state != SLOT_PENDING || s->serial != claim->serial)
                goto out; /* not this claim's slot (a caller bug): leave it alone */
        need = s->key_len + len;
        if (!value || need > c->budget / 4)
                goto give_up;
        while (c->stats.bytes + need > c->budget && (old = lru(c, s)))
                evict(c, old);
        if (c->stats.bytes + need > c->budget)
                goto give_up; /* nothing left to evict (cannot happen: need <= budget / 4) */
        s->value = malloc(len ? len : 1);
        if (!s->value)
                goto give_up;
        memcpy(s->value, value, len);
        s->len = len;
        s->tag = tag;
        s->state = SLOT_READY;
        s->last_used = ++c->tick;
        c->stats.bytes += need;
        c->stats.entries++;
        goto out;
give_up:
        slot_clear(c, s);
out:
        pthread_cond_broadcast(&c->done);
        pthread_mutex_unlock(&c->mu);
}

void answer_cache_stats(struct answer_cache *c, struct answer_cache_stats *out)
{
        pthread_mutex_lock(&c->mu);
        *out = c->stats;
        pthread_mutex_unlock(&c->mu);
}
