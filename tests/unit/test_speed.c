/*
 * test_speed.c - the time model's pieces (core/speed.c)
 * against hand calculations written
 * out beside each check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/estimate.h"
#include "plan/serving.h"

#define near(a, b, rel) assert_true(fabs((a) - (b)) <= (rel)*fabs(b))

/*
 * A 7B dense decoder on an A100 SXM 80GB, written out by hand:
 *   peak 312e12 FLOP/s (bf16 dense), matmuls at 0.70, attention at 0.55;
 *   bandwidth 2.039e12 B/s at 0.80 = 1.6312e12 B/s achieved;
 *   2 x 6.5e9 = 1.3e10 matmul FLOPs per token, 13e9 weight bytes per pass;
 *   attention 4 x 4096 x 32 = 524,288 FLOPs per token per context token;
 *   KV cache 2 x 32 layers x 4096 x 2 bytes = 524,288 bytes per token.
 * Matmul inputs/outputs and element-wise traffic left out (0) so that the
 * sums below stay short.
 */
static void seven_b(struct est_speed *sp)
{
        memset(sp, 0, sizeof(*sp));
        sp->peak = 312e12;
        sp->bandwidth = 2.039e12;
        sp->gemm_efficiency = 0.70;
        sp->attention_efficiency = 0.55;
        sp->bandwidth_efficiency = 0.80;
        sp->activation_bytes = 2;
        sp->linear_flops = 1.3e10;
        sp->weight_bytes = 13e9;
        sp->attention_flops = 524288;
        sp->kv_bytes = 524288;
}

/*
 * Decode, one sequence at context 1000:
 *   matmuls: compute 1.3e10 / 218.4e12 = 5.952e-5 s; memory 13e9 / 1.6312e12
 *            = 7.9696e-3 s -> 7.9696e-3 s (memory-bound)
 *   attention: compute 1000 x 524288 / 171.6e12 = 3.055e-6 s; memory
 *            1000 x 524288 / 1.6312e12 = 3.2141e-4 s -> 3.2141e-4 s
 *   step = 8.2910e-3 s: 120.6 tokens/s.
 */
static void test_decode_batch_1(void **state)
{
        struct est_speed sp;
        (void)state;
        seven_b(&sp);
        near(speed_pass_seconds(&sp, 1, 1000, 1000), 8.2910e-3, 1e-4);
}

/*
 * Decode, 64 sequences at context 1000:
 *   matmuls: compute 64 x 1.3e10 / 218.4e12 = 3.8095e-3 s; memory still
 *            7.9696e-3 s (the weights are read once for the batch)
 *   attention: compute 64 x 1000 x 524288 / 171.6e12 = 1.9554e-4 s;
 *            memory 64,000 x 524288 / 1.6312e12 = 2.0570e-2 s
 *   step = 7.9696e-3 + 2.0570e-2 = 2.8540e-2 s: 2,242 tokens/s, 18.6x
 *   batch 1 for 64x the sequences (the KV reads now dominate).
 */
static void test_decode_batch_64(void **state)
{
        struct est_speed sp;
        (void)state;
        seven_b(&sp);
        double step = speed_pass_seconds(&sp, 64, 1000, 64 * 1000);
        near(step, 2.8540e-2, 1e-4);
        near(64 / step, 2242.5, 1e-3);
}

/*
 * Prefill of one 2,000-token prompt (mean context 1,000, nothing read
 * from the cache):
 *   matmuls: compute 2000 x 1.3e10 / 218.4e12 = 0.119048 s; memory 7.97e-3
 *   attention: 2000 x 1000 x 524288 / 171.6e12 = 6.1105e-3 s
 *   = 0.125158 s: compute-bound.
 */
static void test_prefill(void **state)
{
        struct est_speed sp;
        (void)state;
        seven_b(&sp);
        near(speed_pass_seconds(&sp, 2000, 1000, 0), 0.125158, 1e-4);
}

/*
 * Weight-only int4 on the same GPU: 13e9 x 4.16/16 = 3.38e9 bytes, and
 * 6.5e9 weights x 4 unpacking ops at the 19.5e12 fp32 rate = 1.3333e-3 s
 * on top: memory 3.38e9 / 1.6312e12 = 2.0721e-3, attention 3.2141e-4,
 * total 3.7268e-3 s at batch 1 (268 tokens/s, not the 482 the bytes alone
 * would give).
 */
static void test_decode_int4_unpacking(void **state)
{
        struct est_speed sp;
        (void)state;
        seven_b(&sp);
        sp.weight_bytes = 3.38e9;
        sp.dequant_ops = 6.5e9 * 4;
        sp.alu_rate = 19.5e12;
        near(speed_pass_seconds(&sp, 1, 1000, 1000), 3.7268e-3, 1e-4);
}

/*
 * The pipeline bubble: 8 micro-batches over 4 stages take 8 + 3 = 11
 * slots, a bubble of 3/11 = 27.3% (Narayanan et al. 2021, section 2.2);
 * one stage has none.
 */
static void test_pipeline_bubble(void **state)
{
        (void)state;
        assert_true(speed_pipeline_slots(8, 4) == 11);
        near((speed_pipeline_slots(8, 4) - 8) / speed_pipeline_slots(8, 4), 3.0 / 11, 1e-12);
        assert_true(speed_pipeline_slots(8, 1) == 8);
}

/*
 * A ring all-reduce of 1 GB over 8 GPUs sends 2 x 7/8 x 1 GB = 1.75 GB per
 * GPU; at 100 GB/s that is 17.5 ms.  Alone there is nothing to send.
 */
static void test_ring_all_reduce(void **state)
{
        (void)state;
        near(speed_ring_all_reduce_bytes(1e9, 8), 1.75e9, 1e-12);
        near(speed_ring_all_reduce_bytes(1e9, 8) / 100e9, 17.5e-3, 1e-12);
        assert_true(speed_ring_all_reduce_bytes(1e9, 1) == 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decode_batch_1),
                cmocka_unit_test(test_decode_batch_64),
                cmocka_unit_test(test_prefill),
                cmocka_unit_test(test_decode_int4_unpacking),
                cmocka_unit_test(test_pipeline_bubble),
                cmocka_unit_test(test_ring_all_reduce),
        };
        return cmocka_run_group_tests_name("speed", tests, NULL, NULL);
}
