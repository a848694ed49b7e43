/*
 * reserve_cache.c - reserve.c's replay, remembered per configuration
 * (reserve_cache.h says what the key holds and why it is exact).
 */
#include "core/reserve_cache.h"

#include "core/estimate_internal.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

/* Everything the replay reads, byte for byte.  The input and the derived
 * quantities are copied whole (both start zeroed: estimate_input_defaults
 * and derive_input clear them, padding included), then the fields the
 * replay never reads are cleared so that requests differing only there
 * share an entry. */
struct key {
        struct estimate_input in;
        struct derived d;
        double b, compute_peak;
};

struct entry {
        uint64_t hash; /* 0: empty */
        struct key key;
        int rc;
        double gap, held;
};

struct set {
        atomic_uchar lock; /* 0 free, 1 held */
        uint8_t next;      /* the way the next insertion replaces */
        struct entry way[RESERVE_CACHE_WAYS];
};

static struct set table[RESERVE_CACHE_SETS];
static atomic_bool disabled;
static atomic_uint_fast64_t hits, misses;

/* A holder keeps the lock for a key compare or copy; if it was preempted
 * meanwhile, waiters give their CPU back instead of spinning out their
 * time slice. */
static void set_lock(struct set *s)
{
        for (unsigned spins = 0; atomic_exchange_explicit(&s->lock, 1, memory_order_acquire);
             spins++)
                if (spins >= 64)
                        sched_yield();
}

static void set_unlock(struct set *s)
{
        atomic_store_explicit(&s->lock, 0, memory_order_release);
}

/* FNV-1a over 64-bit words (Fowler, Noll, Vo; the 64-bit offset basis
 * and prime of http://www.isthe.com/chongo/tech/comp/fnv/), then a
 * final mix (the finaliser of MurmurHash3's fmix64) so that the set index
 * depends on every bit.  Only picks the set: a hit compares the whole key. */
static uint64_t key_hash(const struct key *k)
{
        const unsigned char *p = (const unsigned char *)k;
        uint64_t h = 0xcbf29ce484222325ull, w;
        size_t i;
        for (i = 0; i + 8 <= sizeof(*k); i += 8) {
                memcpy(&w, p + i, 8);
                h = (h ^ w) * 0x100000001b3ull;
        }
        for (; i < sizeof(*k); i++)
                h = (h ^ p[i]) * 0x100000001b3ull;
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        h *= 0xc4ceb34fe53a85b9ull;
        h ^= h >> 33;
        return h ? h : 1;
}

static void key_build(struct key *k, const struct estimate_input *in, const struct derived *d,
                      double b, double compute_peak)
{
        memset(k, 0, sizeof(*k));
        memcpy(&k->in, in, sizeof(*in));
        memcpy(&k->d, d, sizeof(*d));
        /* Read by the time, cost and fit, never by the replay (reserve.c
         * and the memory.c helpers it calls). */
        memset(k->in.arch.name, 0, sizeof(k->in.arch.name));
        size_t n = strnlen(k->in.arch.model_type, sizeof(k->in.arch.model_type));
        memset(k->in.arch.model_type + n, 0, sizeof(k->in.arch.model_type) - n);
        k->in.dataset_samples = 0;
        k->in.dataset_tokens = 0;
        k->in.epochs = 0;
        k->in.gpu_index = 0;
        k->in.mfu = 0;
        k->in.inter_node_bytes_per_s = 0;
        k->in.data_samples_per_s = 0;
        k->b = b;
        k->compute_peak = compute_peak;
}

int reserve_cache_replayed(const struct estimate_input *in, const struct derived *d, double b,
                           double compute_peak, double *gap, double *held)
{
        struct key k;
        struct entry *e;
        int rc;

        if (atomic_load_explicit(&disabled, memory_order_relaxed) || !d->training || b < 1)
                return reserve_replay(in, d, b, compute_peak, gap, held);
        key_build(&k, in, d, b, compute_peak);
        uint64_t h = key_hash(&k);
        struct set *s = &table[h % RESERVE_CACHE_SETS];

        set_lock(s);
        for (int i = 0; i < RESERVE_CACHE_WAYS; i++) {
                e = &s->way[i];
                if (e->hash == h && !memcmp(&e->key, &k, sizeof(k))) {
                        rc = e->rc;
                        if (rc == 0) {
                                *gap = e->gap;
                                *held = e->held;
                        }
                        set_unlock(s);
                        atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
                        return rc;
                }
        }
        set_unlock(s);

        double g = 0, hd = 0;
        rc = reserve_replay(in, d, b, compute_peak, &g, &hd);
        atomic_fetch_add_explicit(&misses, 1, memory_order_relaxed);

        set_lock(s);
        e = &s->way[s->next];
        s->next = (uint8_t)((s->next + 1) % RESERVE_CACHE_WAYS);
        e->hash = h;
        e->key = k;
        e->rc = rc;
        e->gap = g;
        e->held = hd;
        set_unlock(s);
        if (rc == 0) {
                *gap = g;
                *held = hd;
        }
        return rc;
}

void reserve_cache_stats(struct reserve_cache_stats *out)
{
        out->hits = atomic_load_explicit(&hits, memory_order_relaxed);
        out->misses = atomic_load_explicit(&misses, memory_order_relaxed);
}

void reserve_cache_enable(bool on)
{
        atomic_store_explicit(&disabled, !on, memory_order_relaxed);
}

void reserve_cache_reset(void)
{
        for (int i = 0; i < RESERVE_CACHE_SETS; i++) {
                struct set *s = &table[i];
                set_lock(s);
                for (int j = 0; j < RESERVE_CACHE_WAYS; j++)
                        s->way[j].hash = 0;
                s->next = 0;
                set_unlock(s);
        }
        atomic_store_explicit(&hits, 0, memory_order_relaxed);
        atomic_store_explicit(&misses, 0, memory_order_relaxed);
}
