/*
 * test_alloc_sim.c - the caching-allocator model (core/alloc_sim.c) against
 * traces worked out by hand from the rules of PyTorch's
 * c10/cuda/CUDACachingAllocator.cpp: round_size (512-byte multiples),
 * get_allocation_size (2 MiB small segments, 20 MiB for requests under
 * 10 MiB, else rounded up to 2 MiB), should_split (large-pool remainders of
 * more than 1 MiB), best fit by (size, address), merging on free, and
 * release_cached_blocks (whole free segments).  MiB = 1,048,576 bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/alloc_sim.h"

#define MIB 1048576ull

static struct alloc_sim sim;

/* 1 byte is rounded to 512 and served from a 2 MiB small-pool segment;
 * exactly 1 MiB is still small and fits the 2 MiB - 512 left in that
 * segment; 1 MiB + 1 byte is large, rounded to 1 MiB + 512, and reserves
 * a 20 MiB segment whose remainder (> 1 MiB) is split off. */
static void test_rounding_and_pools(void **state)
{
        (void)state;
        alloc_sim_init(&sim, false);
        int32_t a = alloc_sim_malloc(&sim, 1);
        assert_int_equal(alloc_sim_block_bytes(&sim, a), 512);
        assert_int_equal(sim.reserved, 2 * MIB);
        int32_t b = alloc_sim_malloc(&sim, MIB);
        assert_int_equal(alloc_sim_block_bytes(&sim, b), MIB);
        assert_int_equal(sim.reserved, 2 * MIB);
        int32_t c = alloc_sim_malloc(&sim, MIB + 1);
        assert_int_equal(alloc_sim_block_bytes(&sim, c), MIB + 512);
        assert_int_equal(sim.reserved, 22 * MIB);
        assert_int_equal(sim.allocated, 512 + MIB + MIB + 512);
}

/* Three 8 MiB tensors: the first reserves 20 MiB and leaves 12 MiB free;
 * the second takes 8 of those 12 and leaves 4 (4 > 1 MiB: split); the
 * third fits nowhere and reserves a second 20 MiB segment.  A 4 MiB
 * request then takes the 4 MiB hole (best fit: 4 < 12), so 40 MiB hold
 * 28 MiB. */
static void test_twenty_mib_packing(void **state)
{
        (void)state;
        alloc_sim_init(&sim, false);
        alloc_sim_malloc(&sim, 8 * MIB);
        alloc_sim_malloc(&sim, 8 * MIB);
        assert_int_equal(sim.reserved, 20 * MIB);
        alloc_sim_malloc(&sim, 8 * MIB);
        assert_int_equal(sim.reserved, 40 * MIB);
        int32_t d = alloc_sim_malloc(&sim, 4 * MIB);
        assert_int_equal(alloc_sim_block_bytes(&sim, d), 4 * MIB);
        assert_int_equal(sim.reserved, 40 * MIB);
        assert_int_equal(sim.allocated, 28 * MIB);
        assert_int_equal(sim.peak_allocated, 28 * MIB);
}

/* A remainder of at most 1 MiB stays inside the block: 19.5 MiB is
 * >= 10 MiB, so its segment is the request rounded up to 2 MiB, 20 MiB,
 * and the 0.5 MiB left over is not split off: the block (and the
 * allocated count, as max_memory_allocated reports it) is 20 MiB. */
static void test_small_remainder_not_split(void **state)
{
        (void)state;
        alloc_sim_init(&sim, false);
        int32_t a = alloc_sim_malloc(&sim, 19 * MIB + MIB / 2);
        assert_int_equal(alloc_sim_block_bytes(&sim, a), 20 * MIB);
        assert_int_equal(sim.allocated, 20 * MIB);
        assert_int_equal(sim.reserved, 20 * MIB);
}

/* Best fit: with free blocks of 64 and 32 MiB (two segments), 30 MiB goes
 * to the 32 MiB block and splits it (2 MiB > 1 MiB left); the 64 MiB one
 * stays whole for a later 64 MiB request, and nothing new is reserved. */
static void test_best_fit(void **state)
{
        (void)state;
        alloc_sim_init(&sim, false);
        int32_t big = alloc_sim_malloc(&sim, 64 * MIB);
        int32_t mid = alloc_sim_malloc(&sim, 32 * MIB);
        alloc_sim_free(&sim, big);
        alloc_sim_free(&sim, mid);
        int32_t a = alloc_sim_malloc(&sim, 30 * MIB);
        assert_int_equal(alloc_sim_block_bytes(&sim, a), 30 * MIB);
        int32_t b = alloc_sim_malloc(&sim, 64 * MIB);
        assert_int_equal(alloc_sim_block_bytes(&sim, b), 64 * MIB);
        assert_int_equal(sim.reserved, 96 * MIB);
}

/* Fragmentation and what an OOM retry can release: 30 MiB reserves a
 * 30 MiB segment; freed, it cannot hold 40 MiB, which reserves 40 more:
 * 70 MiB reserved for 40 allocated.  The 30 MiB segment is whole and
 * free, so release_cached_blocks could hand it back: the run needs 40.
 * Freeing the 40 as well merges nothing across segments (two whole free
 * segments, 70 MiB releasable). */
static void test_segments_and_release(void **state)
{
        (void)state;
        alloc_sim_init(&sim, false);
        int32_t a = alloc_sim_malloc(&sim, 30 * MIB);
        alloc_sim_free(&sim, a);
        int32_t b = alloc_sim_malloc(&sim, 40 * MIB);
        assert_int_equal(sim.reserved, 70 * MIB);
        assert_int_equal(sim.peak_allocated, 40 * MIB);
        assert_int_equal(sim.peak_reserved, 70 * MIB);
        assert_int_equal(sim.peak_needed, 40 * MIB);
        alloc_sim_free(&sim, b);
        assert_int_equal(sim.releasable, 70 * MIB);
        assert_int_equal(sim.n_free[0], 2);
}

/* Merging: two 8 MiB blocks and the 4 MiB remainder share one 20 MiB
 * segment; freeing both merges all three back into one whole free
 * segment (one free block of 20 MiB, releasable). */
static void test_merge_on_free(void **state)
{
        (void)state;
        alloc_sim_init(&sim, false);
        int32_t a = alloc_sim_malloc(&sim, 8 * MIB);
        int32_t b = alloc_sim_malloc(&sim, 8 * MIB);
        assert_int_equal(sim.n_free[0], 1); /* the 4 MiB remainder */
        assert_int_equal(sim.releasable, 0);
        alloc_sim_free(&sim, a);
        assert_int_equal(sim.n_free[0], 2); /* a is not next to the remainder */
        alloc_sim_free(&sim, b);
        assert_int_equal(sim.n_free[0], 1);
        assert_int_equal(sim.releasable, 20 * MIB);
        int32_t c = alloc_sim_malloc(&sim, 20 * MIB);
        assert_int_equal(alloc_sim_block_bytes(&sim, c), 20 * MIB);
        assert_int_equal(sim.reserved, 20 * MIB);
}

/* expandable_segments:True: the same 30-then-40 MiB trace maps 40 MiB
 * (30 rounded up to 20 MiB pages) for the first request and keeps the
 * 10 MiB tail free; the freed 30 merges with it into 40 free MiB, which
 * hold the second request: 40 MiB reserved instead of 70. */
static void test_expandable_segments(void **state)
{
        (void)state;
        alloc_sim_init(&sim, true);
        int32_t a = alloc_sim_malloc(&sim, 30 * MIB);
        assert_int_equal(sim.reserved, 40 * MIB);
        alloc_sim_free(&sim, a);
        alloc_sim_malloc(&sim, 40 * MIB);
        assert_int_equal(sim.reserved, 40 * MIB);
        /* growing past the end maps only the missing pages: 50 MiB more
         * when nothing is free at the tail = 60 MiB of pages */
        alloc_sim_malloc(&sim, 50 * MIB);
        assert_int_equal(sim.reserved, 100 * MIB);
        /* remainders of any size are split: 512 bytes of 1 MiB + 512 */
        int32_t s = alloc_sim_malloc(&sim, MIB + 512);
        assert_int_equal(alloc_sim_block_bytes(&sim, s), MIB + 512);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rounding_and_pools),
                cmocka_unit_test(test_twenty_mib_packing),
                cmocka_unit_test(test_small_remainder_not_split),
                cmocka_unit_test(test_best_fit),
                cmocka_unit_test(test_segments_and_release),
                cmocka_unit_test(test_merge_on_free),
                cmocka_unit_test(test_expandable_segments),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
