/*
 * alloc_sim.h - a model of PyTorch's CUDA caching allocator, to replay a
 * sequence of tensor allocations and frees and learn how many bytes the
 * allocator reserves from the device for them.
 *
 * The rules are those of c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.x,
 * the native backend, one stream):
 *
 *   - a request is rounded up to a multiple of 512 bytes (round_size);
 *   - requests of at most 1 MiB are served from the small pool, larger ones
 *     from the large pool; a pool never lends to the other;
 *   - the smallest cached free block that holds the request is taken (best
 *     fit, lower address first among equals: get_free_block);
 *   - with none, a new segment is reserved with cudaMalloc: 2 MiB for a
 *     small request, 20 MiB for a request under 10 MiB, otherwise the
 *     request rounded up to 2 MiB (get_allocation_size);
 *   - a block larger than the request is split when the remainder is at
 *     least 512 bytes (small pool) or more than 1 MiB (large pool); an
 *     unsplit remainder stays inside the allocated block (should_split);
 *   - a freed block merges with free neighbours of its segment
 *     (free_block / try_merge_blocks); segments are never returned on
 *     their own, so reserved memory only grows;
 *   - when cudaMalloc fails, every cached segment with nothing allocated
 *     in it is released and the call retried (release_cached_blocks): so
 *     the device must hold at least the reserved bytes less those whole
 *     free segments, which peak_needed tracks.
 *
 * With expandable_segments:True (PYTORCH_CUDA_ALLOC_CONF) each pool is one
 * segment that grows at its end in pages of 20 MiB (large pool) or 2 MiB
 * (small pool), any remainder of at least 512 bytes is split off, and the
 * pages a free block covers whole can be unmapped when memory runs short.
 *
 * The state lives in the caller's struct (about 44 KiB): no allocation, no
 * globals, one simulation per struct, safe on any number of threads.  When
 * a trace needs more blocks than ALLOC_SIM_BLOCKS the simulation stops
 * counting and sets overflow; the caller falls back to its default.
 */
#ifndef GPUPLAN_CORE_ALLOC_SIM_H
#define GPUPLAN_CORE_ALLOC_SIM_H

#include <stdbool.h>
#include <stdint.h>

#define ALLOC_SIM_BLOCKS 1024

/* free lists per pool: four per power of two, 2^9 .. 2^56 bytes */
#define ALLOC_SIM_CLASSES 192

struct alloc_block {
        uint64_t addr, size;
        int32_t prev, next;           /* neighbours in the segment, -1 at its ends */
        int32_t free_prev, free_next; /* neighbours in its free list */
        bool free, small;
};

struct alloc_sim {
        struct alloc_block block[ALLOC_SIM_BLOCKS];
        int32_t unused[ALLOC_SIM_BLOCKS]; /* stack of unused block slots */
        int32_t n_unused;
        /* free blocks of each pool (0 large, 1 small) by size class: the
         * heads of doubly linked lists, and which classes are non-empty */
        int32_t free_head[2][ALLOC_SIM_CLASSES];
        uint64_t free_classes[2][ALLOC_SIM_CLASSES / 64];
        int32_t n_free[2];
        int32_t tail[2]; /* expandable: the last block of each pool's segment */
        uint64_t next_addr;
        uint64_t allocated, reserved;           /* now */
        uint64_t releasable;                    /* free whole segments (pages) */
        uint64_t peak_allocated, peak_reserved; /* since init or the last reset */
        uint64_t peak_needed;                   /* largest reserved - releasable at an allocation */
        bool expandable;
        bool overflow;
};

/* Start an empty allocator: nothing reserved. */
void alloc_sim_init(struct alloc_sim *s, bool expandable_segments);

/* Allocate bytes (> 0); returns a handle for alloc_sim_free, or -1 when
 * the simulation has run out of block slots (overflow is set). */
int32_t alloc_sim_malloc(struct alloc_sim *s, uint64_t bytes);

/* Free what alloc_sim_malloc returned; -1 is ignored. */
void alloc_sim_free(struct alloc_sim *s, int32_t handle);

/* Restart the peaks from the current state (torch.cuda.reset_peak_memory_stats). */
void alloc_sim_reset_peaks(struct alloc_sim *s);

/* Bytes the block of a handle occupies (the rounded request, or the whole
 * block when its remainder was too small to split off). */
uint64_t alloc_sim_block_bytes(const struct alloc_sim *s, int32_t handle);

#endif
