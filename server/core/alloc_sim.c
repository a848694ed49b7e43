/*
 * alloc_sim.c - PyTorch's CUDA caching allocator, replayed (alloc_sim.h
 * lists the rules and where each comes from).
 */
#include "core/alloc_sim.h"

#include <string.h>

/* c10/cuda/CUDACachingAllocator.cpp (constants of the native backend) */
#define K_MIN_BLOCK    512ull        /* kMinBlockSize */
#define K_SMALL_SIZE   (1ull << 20)  /* kSmallSize: largest small request */
#define K_SMALL_BUFFER (2ull << 20)  /* kSmallBuffer: small-pool segment */
#define K_LARGE_BUFFER (20ull << 20) /* kLargeBuffer */
#define K_MIN_LARGE    (10ull << 20) /* kMinLargeAlloc */
#define K_ROUND_LARGE  (2ull << 20)  /* kRoundLarge */

static uint64_t round_up(uint64_t x, uint64_t to)
{
        return (x + to - 1) / to * to;
}

/* round_size: at least 512 bytes, a multiple of 512. */
static uint64_t round_size(uint64_t bytes)
{
        return bytes < K_MIN_BLOCK ? K_MIN_BLOCK : round_up(bytes, K_MIN_BLOCK);
}

/* get_allocation_size: the segment a request with no fitting block reserves. */
static uint64_t segment_size(uint64_t size)
{
        if (size <= K_SMALL_SIZE)
                return K_SMALL_BUFFER;
        if (size < K_MIN_LARGE)
                return K_LARGE_BUFFER;
        return round_up(size, K_ROUND_LARGE);
}

void alloc_sim_init(struct alloc_sim *s, bool expandable_segments)
{
        s->n_unused = ALLOC_SIM_BLOCKS;
        for (int32_t i = 0; i < ALLOC_SIM_BLOCKS; i++)
                s->unused[i] = ALLOC_SIM_BLOCKS - 1 - i;
        s->n_free[0] = s->n_free[1] = 0;
        memset(s->free_classes, 0, sizeof(s->free_classes));
        for (int c = 0; c < ALLOC_SIM_CLASSES; c++)
                s->free_head[0][c] = s->free_head[1][c] = -1;
        s->tail[0] = s->tail[1] = -1;
        s->next_addr = 0;
        s->allocated = s->reserved = s->peak_allocated = s->peak_reserved = 0;
        s->releasable = s->peak_needed = 0;
        s->expandable = expandable_segments;
        s->overflow = false;
}

void alloc_sim_reset_peaks(struct alloc_sim *s)
{
        s->peak_allocated = s->allocated;
        s->peak_reserved = s->reserved;
        s->peak_needed = s->reserved - s->releasable;
}

uint64_t alloc_sim_block_bytes(const struct alloc_sim *s, int32_t handle)
{
        return handle >= 0 ? s->block[handle].size : 0;
}

static int32_t block_new(struct alloc_sim *s, uint64_t addr, uint64_t size, bool small)
{
        if (s->n_unused == 0) {
                s->overflow = true;
                return -1;
        }
        int32_t i = s->unused[--s->n_unused];
        s->block[i] = (struct alloc_block){.addr = addr,
                                           .size = size,
                                           .prev = -1,
                                           .next = -1,
                                           .free_prev = -1,
                                           .free_next = -1,
                                           .free = false,
                                           .small = small};
        return i;
}

static void block_drop(struct alloc_sim *s, int32_t i)
{
        s->unused[s->n_unused++] = i;
}

/* The free lists hold a pool's free blocks by size class: the power of
 * two below the size and the next two bits (every block is at least 512
 * bytes).  Best fit (the smallest block that holds a request, the lower
 * address among equals: BlockComparatorSize) looks in the request's class,
 * then takes the smallest block of the next non-empty class. */
static int size_class(uint64_t size)
{
        int e = 63 - __builtin_clzll(size | 512);
        int c = (e - 9) * 4 + (int)((size >> (e - 2)) & 3);
        return c < ALLOC_SIM_CLASSES ? c : ALLOC_SIM_CLASSES - 1;
}

/* The first non-empty class of pool p at or after c, or -1. */
static int class_next(const struct alloc_sim *s, int p, int c)
{
        for (int w = c / 64; w < ALLOC_SIM_CLASSES / 64; w++) {
                uint64_t bits = s->free_classes[p][w];
                if (w == c / 64)
                        bits &= ~0ull << (c % 64);
                if (bits)
                        return w * 64 + __builtin_ctzll(bits);
        }
        return -1;
}

static bool block_before(const struct alloc_block *a, const struct alloc_block *b)
{
        return a->size < b->size || (a->size == b->size && a->addr < b->addr);
}

/* The best block of class c holding size bytes, or -1. */
static int32_t class_best(const struct alloc_sim *s, int p, int c, uint64_t size)
{
        int32_t best = -1;
        for (int32_t i = s->free_head[p][c]; i >= 0; i = s->block[i].free_next)
                if (s->block[i].size >= size &&
                    (best < 0 || block_before(&s->block[i], &s->block[best])))
                        best = i;
        return best;
}

static int32_t free_best_fit(const struct alloc_sim *s, int p, uint64_t size)
{
        int c = size_class(size);
        int32_t best = class_best(s, p, c, size);
        if (best >= 0)
                return best;
        int next = c + 1 < ALLOC_SIM_CLASSES ? class_next(s, p, c + 1) : -1;
        return next < 0 ? -1 : class_best(s, p, next, size);
}

/* Bytes of free block b that release_cached_blocks could hand back: a
 * whole segment, or the whole pages of an expandable one. */
static uint64_t block_releasable(const struct alloc_sim *s, const struct alloc_block *b)
{
        if (s->expandable) {
                uint64_t page = b->small ? K_SMALL_BUFFER : K_LARGE_BUFFER;
                return b->size / page * page;
        }
        return b->prev < 0 && b->next < 0 ? b->size : 0;
}

static void free_insert(struct alloc_sim *s, int32_t i)
{
        struct alloc_block *b = &s->block[i];
        int p = b->small, c = size_class(b->size);
        int32_t h = s->free_head[p][c];
        b->free_prev = -1;
        b->free_next = h;
        if (h >= 0)
                s->block[h].free_prev = i;
        s->free_head[p][c] = i;
        s->free_classes[p][c / 64] |= 1ull << (c % 64);
        s->n_free[p]++;
        s->releasable += block_releasable(s, b);
        b->free = true;
}

static void free_remove(struct alloc_sim *s, int32_t i)
{
        struct alloc_block *b = &s->block[i];
        int p = b->small, c = size_class(b->size);
        if (b->free_prev >= 0)
                s->block[b->free_prev].free_next = b->free_next;
        else
                s->free_head[p][c] = b->free_next;
        if (b->free_next >= 0)
                s->block[b->free_next].free_prev = b->free_prev;
        if (s->free_head[p][c] < 0)
                s->free_classes[p][c / 64] &= ~(1ull << (c % 64));
        s->n_free[p]--;
        s->releasable -= block_releasable(s, b);
        b->free = false;
}

/* Expandable segments: grow pool p's one segment so that its last block is
 * free and holds size bytes; returns that block (free, off the free list)
 * or -1 on overflow. */
static int32_t expand(struct alloc_sim *s, int p, uint64_t size)
{
        uint64_t page = p ? K_SMALL_BUFFER : K_LARGE_BUFFER;
        int32_t t = s->tail[p];
        if (t >= 0 && s->block[t].free) {
                uint64_t grow = round_up(size - s->block[t].size, page);
                free_remove(s, t);
                s->block[t].size += grow;
                s->reserved += grow;
                return t;
        }
        uint64_t grow = round_up(size, page);
        /* each pool's segment has its own address range */
        uint64_t addr = t >= 0 ? s->block[t].addr + s->block[t].size : ((uint64_t)(p + 1) << 56);
        int32_t b = block_new(s, addr, grow, p == 1);
        if (b < 0)
                return -1;
        s->block[b].prev = t;
        if (t >= 0)
                s->block[t].next = b;
        s->tail[p] = b;
        s->reserved += grow;
        return b;
}

int32_t alloc_sim_malloc(struct alloc_sim *s, uint64_t bytes)
{
        if (s->overflow)
                return -1;
        uint64_t size = round_size(bytes);
        int p = size <= K_SMALL_SIZE;
        int32_t b;
        int32_t fit = free_best_fit(s, p, size);

        if (fit >= 0) {
                b = fit;
                free_remove(s, b);
        } else if (s->expandable) {
                b = expand(s, p, size);
        } else {
                uint64_t seg = segment_size(size);
                b = block_new(s, s->next_addr, seg, p == 1);
                s->next_addr += seg;
                s->reserved += seg;
        }
        if (b < 0)
                return -1;

        /* should_split */
        uint64_t remaining = s->block[b].size - size;
        bool split =
                (p == 1 || s->expandable) ? remaining >= K_MIN_BLOCK : remaining > K_SMALL_SIZE;
        if (split) {
                int32_t r = block_new(s, s->block[b].addr + size, remaining, p == 1);
                if (r < 0) {
                        free_insert(s, b);
                        return -1;
                }
                s->block[r].prev = b;
                s->block[r].next = s->block[b].next;
                if (s->block[b].next >= 0)
                        s->block[s->block[b].next].prev = r;
                s->block[b].next = r;
                s->block[b].size = size;
                if (s->tail[p] == b)
                        s->tail[p] = r;
                free_insert(s, r);
        }
        s->allocated += s->block[b].size;
        if (s->allocated > s->peak_allocated)
                s->peak_allocated = s->allocated;
        if (s->reserved > s->peak_reserved)
                s->peak_reserved = s->reserved;
        if (s->reserved - s->releasable > s->peak_needed)
                s->peak_needed = s->reserved - s->releasable;
        return b;
}

/* Absorb block n, which directly follows b in its segment; neither is on
 * a free list. */
static void absorb(struct alloc_sim *s, int32_t b, int32_t n)
{
        int p = s->block[b].small;
        s->block[b].size += s->block[n].size;
        s->block[b].next = s->block[n].next;
        if (s->block[n].next >= 0)
                s->block[s->block[n].next].prev = b;
        if (s->tail[p] == n)
                s->tail[p] = b;
        block_drop(s, n);
}

void alloc_sim_free(struct alloc_sim *s, int32_t handle)
{
        if (handle < 0 || s->overflow)
                return;
        int32_t b = handle;
        s->allocated -= s->block[b].size;
        int32_t n = s->block[b].next, pv = s->block[b].prev;
        if (n >= 0 && s->block[n].free) {
                free_remove(s, n);
                absorb(s, b, n);
        }
        if (pv >= 0 && s->block[pv].free) {
                free_remove(s, pv);
                absorb(s, pv, b);
                b = pv;
        }
        free_insert(s, b);
}
