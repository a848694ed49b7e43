/*
 * reserve_cache.h - the allocator replay of reserve.c, remembered per
 * configuration of tensors.
 *
 * A replay (reserve_replay) walks some nine hundred allocations
 * and frees through the allocator model: most of a training estimate's
 * time.  Its result depends only on the tensors of one configuration: the
 * request's model, workload, numerics, savers, parallel layout and runtime
 * settings as the engine derived them (struct estimate_input and struct
 * derived), the micro-batch and the allocated peak it is compared with.
 * It does not depend on the GPU, its price, the dataset's size, the epochs
 * or the MFU, which is what plan searches and repeated requests vary.
 *
 * reserve_cache_replayed() answers what reserve_replay() would,
 * bit for bit: the key is those inputs themselves, byte for byte (with the
 * fields named above cleared), compared in full on every hit, so two
 * configurations never share an entry; a hash only picks where to look.
 *
 * State: one process-wide table of RESERVE_CACHE_ENTRIES entries (about
 * 4 MiB of static storage, touched only as it fills), the one piece of
 * mutable state in core/.  It allocates nothing.  Each set of entries has
 * its own lock (spin, then sched_yield), held while one key is compared or
 * copied (well under a microsecond), never while a replay runs; safe on any
 * number of threads.
 * An entry is replaced round-robin within its set when the set is full.
 */
#ifndef GPUPLAN_CORE_RESERVE_CACHE_H
#define GPUPLAN_CORE_RESERVE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

struct estimate_input;
struct derived;

#define RESERVE_CACHE_WAYS    8
#define RESERVE_CACHE_SETS    512
#define RESERVE_CACHE_ENTRIES (RESERVE_CACHE_WAYS * RESERVE_CACHE_SETS)

/* reserve_replay(in, d, b, compute_peak, gap, held), remembered:
 * the same return value and the same *gap and *held. */
int reserve_cache_replayed(const struct estimate_input *in, const struct derived *d, double b,
                           double compute_peak, double *gap, double *held);

/* Counters since start (or the last reserve_cache_reset): lookups answered
 * from the table, and replays run. */
struct reserve_cache_stats {
        uint64_t hits, misses;
};
void reserve_cache_stats(struct reserve_cache_stats *out);

/* Turn the table on (the default) or off: off, every call replays.  For
 * benchmarks and tests that compare both paths. */
void reserve_cache_enable(bool on);

/* Forget every entry and zero the counters.  Not to be called while
 * another thread estimates. */
void reserve_cache_reset(void);

#endif
