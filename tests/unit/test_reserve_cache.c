/*
 * test_reserve_cache.c - the allocator replay remembered per configuration
 * (core/reserve_cache.c): an answer from the table is the replay's own,
 * bit for bit, and only what the replay never reads is shared.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/estimate.h"
#include "core/reserve_cache.h"

#include "engine_fixtures.h"

static struct estimate_result off, miss, hit;
static struct gpu_spec gpus[3];

static struct estimate_input llama_fine_tune(void)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 2;
        in.sequence_length = 1024;
        in.flash_attention = true;
        in.dataset_samples = 10000;
        in.gpu_index = 0;
        return in;
}

/* Configurations that take different paths through the replay: sharded
 * states, FSDP1's construction cache, checkpointing, LoRA and QLoRA's
 * dequantized weights, eager attention, expandable segments, pipeline
 * stages, accumulation that keeps gradients. */
static size_t configurations(struct estimate_input *out, size_t cap)
{
        size_t n = 0;
        struct estimate_input in;
#define ADD(stmt)                                                                                  \
        do {                                                                                       \
                in = llama_fine_tune();                                                            \
                stmt;                                                                              \
                if (n < cap)                                                                       \
                        out[n++] = in;                                                             \
        } while (0)
        ADD((void)0);
        ADD((in.strategy = EST_ZERO3, in.gpus = 8));
        ADD((in.strategy = EST_FSDP, in.fsdp_version = 1, in.gpus = 8));
        ADD((in.strategy = EST_FSDP, in.fsdp_version = 2, in.gpus = 4,
             in.checkpointing = EST_CKPT_FULL));
        ADD((in.mode = EST_LORA, in.lora_rank = 16));
        ADD((in.mode = EST_QLORA, in.quantization = EST_QUANT_NF4));
        ADD((in.flash_attention = false, in.sequence_length = 256,
             in.checkpointing = EST_CKPT_SELECTIVE));
        ADD((in.expandable_segments = true, in.gradient_accumulation = 4));
        ADD((in.strategy = EST_DDP, in.gpus = 8, in.pipeline_parallel = 2, in.micro_batches = 2,
             in.batch_size = 4));
        ADD((in.mode = EST_PRE_TRAIN, in.precision = EST_FP32, in.optimizer = EST_OPT_ADAMW));
#undef ADD
        return n;
}

static void run(struct estimate_result *r, const struct estimate_input *in)
{
        memset(r, 0, sizeof(*r));
        run_into(r, in, gpus, 3);
}

static int setup(void **state)
{
        (void)state;
        gpus[0] = gpu("a100-80", 80e9, 2.0e12, 312e12);
        gpus[1] = gpu("l4", 24e9, 0.3e12, 121e12);
        gpus[2] = gpu("h100", 80e9, 3.35e12, 989e12);
        return 0;
}

/* Off, first (a replay, remembered) and second (from the table): the
 * whole result - every byte figure, every fit, every note with the
 * replayed fractions - is the same. */
static void test_same_answer(void **state)
{
        (void)state;
        struct estimate_input cases[16];
        size_t n = configurations(cases, 16);
        assert_int_equal(n, 10);
        for (size_t i = 0; i < n; i++) {
                struct reserve_cache_stats a, b;
                reserve_cache_reset();
                reserve_cache_enable(false);
                run(&off, &cases[i]);
                reserve_cache_enable(true);
                run(&miss, &cases[i]);
                reserve_cache_stats(&a);
                run(&hit, &cases[i]);
                reserve_cache_stats(&b);
                /* the second run replays nothing and finds what the first stored */
                assert_true(a.misses >= 1);
                assert_int_equal(b.misses, a.misses);
                assert_true(b.hits >= a.hits + 1);
                assert_true(off.per_gpu_reserved_bytes > off.per_gpu_allocated_bytes);
                assert_memory_equal(&off, &miss, sizeof(off));
                assert_memory_equal(&off, &hit, sizeof(off));
        }
}

/* The dataset, the epochs, the GPU chosen and the MFU do not reach the
 * replay: a request differing only there is answered from the entry;
 * a different batch or sequence length changes every activation tensor
 * and is replayed. */
static void test_what_is_shared(void **state)
{
        (void)state;
        struct estimate_input in = llama_fine_tune();
        struct reserve_cache_stats s0, s1, s2;

        reserve_cache_reset();
        run(&miss, &in);
        reserve_cache_stats(&s0);
        in.dataset_samples = 123457;
        in.epochs = 3;
        in.gpu_index = 2;
        in.mfu = 0.33;
        snprintf(in.arch.name, sizeof(in.arch.name), "%s", "another name");
        run(&hit, &in);
        reserve_cache_stats(&s1);
        assert_int_equal(s1.misses, s0.misses);
        assert_true(s1.hits > s0.hits);
        /* the memory is the same; the time is not */
        assert_int_equal(hit.per_gpu_total_bytes, miss.per_gpu_total_bytes);
        assert_int_equal(hit.per_gpu_reserved_bytes, miss.per_gpu_reserved_bytes);

        in.batch_size = 3;
        run(&hit, &in);
        reserve_cache_stats(&s2);
        assert_true(s2.misses > s1.misses);
        in.batch_size = 2;
        in.sequence_length = 1025;
        run(&hit, &in);
        reserve_cache_stats(&s1);
        assert_true(s1.misses > s2.misses);
}

/* More configurations than the table holds: every answer stays the
 * replay's own as entries are replaced. */
static void test_replacement(void **state)
{
        (void)state;
        struct estimate_input in = llama_fine_tune();
        reserve_cache_reset();
        for (uint32_t pass = 0; pass < 2; pass++) {
                for (uint32_t s = 1; s <= 40; s++) {
                        in.sequence_length = 64 * s;
                        reserve_cache_enable(false);
                        run(&off, &in);
                        reserve_cache_enable(true);
                        run(&hit, &in);
                        assert_int_equal(off.per_gpu_reserved_bytes, hit.per_gpu_reserved_bytes);
                        assert_int_equal(off.per_gpu_needed_bytes, hit.per_gpu_needed_bytes);
                }
        }
}

/* Four threads share the table (as the server's event loops and workers
 * do), each walking the configurations in its own order: every answer is
 * the replay's own. */
#define THREAD_CASES 10
static struct estimate_input thread_cases[THREAD_CASES];
static uint64_t thread_expected[THREAD_CASES][2];
static atomic_int thread_mismatches;

static void *thread_walk(void *arg)
{
        unsigned seed = (unsigned)(uintptr_t)arg;
        struct estimate_result *r = malloc(sizeof(*r));
        struct estimate_error e;
        if (!r) {
                atomic_fetch_add(&thread_mismatches, 1);
                return NULL;
        }
        for (int k = 0; k < 60; k++) {
                size_t i = (size_t)((seed * 7u + (unsigned)k * 3u) % THREAD_CASES);
                if (estimate_run(&thread_cases[i], gpus, 3, r, &e) ||
                    r->per_gpu_reserved_bytes != thread_expected[i][0] ||
                    r->per_gpu_needed_bytes != thread_expected[i][1])
                        atomic_fetch_add(&thread_mismatches, 1);
        }
        free(r);
        return NULL;
}

static void test_threads(void **state)
{
        (void)state;
        pthread_t t[4];
        assert_int_equal(configurations(thread_cases, THREAD_CASES), THREAD_CASES);
        reserve_cache_reset();
        reserve_cache_enable(false);
        for (size_t i = 0; i < THREAD_CASES; i++) {
                run(&off, &thread_cases[i]);
                thread_expected[i][0] = off.per_gpu_reserved_bytes;
                thread_expected[i][1] = off.per_gpu_needed_bytes;
        }
        reserve_cache_enable(true);
        for (uintptr_t i = 0; i < 4; i++)
                assert_int_equal(pthread_create(&t[i], NULL, thread_walk, (void *)(i + 1)), 0);
        for (int i = 0; i < 4; i++)
                pthread_join(t[i], NULL);
        assert_int_equal(atomic_load(&thread_mismatches), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_same_answer),
                cmocka_unit_test(test_what_is_shared),
                cmocka_unit_test(test_replacement),
                cmocka_unit_test(test_threads),
        };
        return cmocka_run_group_tests_name("reserve_cache", tests, setup, NULL);
}
