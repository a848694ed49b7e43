/*
 * test_speed.c - the time model's pieces (core/speed.c) and the serving
 * planner's load model (plan/serving.c) against hand calculations written
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
        near(est_speed_pass_seconds(&sp, 1, 1000, 1000), 8.2910e-3, 1e-4);
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
        double step = est_speed_pass_seconds(&sp, 64, 1000, 64 * 1000);
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
        near(est_speed_pass_seconds(&sp, 2000, 1000, 0), 0.125158, 1e-4);
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
        near(est_speed_pass_seconds(&sp, 1, 1000, 1000), 3.7268e-3, 1e-4);
}

/*
 * The pipeline bubble: 8 micro-batches over 4 stages take 8 + 3 = 11
 * slots, a bubble of 3/11 = 27.3% (Narayanan et al. 2021, section 2.2);
 * one stage has none.
 */
static void test_pipeline_bubble(void **state)
{
        (void)state;
        assert_true(est_pipeline_slots(8, 4) == 11);
        near((est_pipeline_slots(8, 4) - 8) / est_pipeline_slots(8, 4), 3.0 / 11, 1e-12);
        assert_true(est_pipeline_slots(8, 1) == 8);
}

/*
 * A ring all-reduce of 1 GB over 8 GPUs sends 2 x 7/8 x 1 GB = 1.75 GB per
 * GPU; at 100 GB/s that is 17.5 ms.  Alone there is nothing to send.
 */
static void test_ring_all_reduce(void **state)
{
        (void)state;
        near(est_ring_all_reduce_bytes(1e9, 8), 1.75e9, 1e-12);
        near(est_ring_all_reduce_bytes(1e9, 8) / 100e9, 17.5e-3, 1e-12);
        assert_true(est_ring_all_reduce_bytes(1e9, 1) == 0);
}

/*
 * A replica whose decode step is a flat 10 ms (serving overhead only) and
 * whose prefill takes 100 ms; prompts and answers of 100 tokens.  At
 * lambda = 1 request/s:
 *   rho = 1 x 0.1 = 0.1
 *   mean prefill wait (M/D/1) = 0.1 x 0.1 / (2 x 0.9) = 5.556e-3 s
 *   TPOT = 0.010 / 0.9 = 11.111e-3 s
 *   TTFT mean = 5.556e-3 + 0.1 + 0.005 = 0.110556 s
 *   p95 wait: rho = 0.1 > 0.05, so (5.556e-3 / 0.1) x ln(0.1 / 0.05)
 *            = 0.055556 x 0.693147 = 0.038508 s -> TTFT p95 0.143508 s
 *   p50 wait: rho = 0.1 <= 0.5: no wait -> TTFT p50 0.105 s
 *   in flight (Little): 1 x (0.110556 + 100 x 0.011111) = 1.221667
 */
static void flat_replica(struct serving_config *c, uint32_t max_sequences)
{
        memset(c, 0, sizeof(*c));
        c->speed.peak = 1e30;
        c->speed.bandwidth = 1e30;
        c->speed.gemm_efficiency = c->speed.attention_efficiency = 1;
        c->speed.bandwidth_efficiency = 1;
        c->speed.linear_flops = 1;
        c->speed.step_overhead = 0.010;
        c->prefill_s = 0.100;
        c->max_sequences = max_sequences;
}

static void test_replica_load(void **state)
{
        struct serving_config c;
        struct serving_traffic t = {
                .requests_per_second = 1, .prompt_tokens = 100, .output_tokens = 100};
        struct serving_load l;
        (void)state;
        flat_replica(&c, 256);
        serving_replica_load(&c, &t, 1.0, &l);
        assert_true(l.feasible);
        near(l.prefill_utilisation, 0.1, 1e-9);
        near(l.tpot_s, 0.0111111, 1e-5);
        near(l.ttft_mean_s, 0.110556, 1e-5);
        near(l.ttft_p95_s, 0.143508, 1e-5);
        near(l.ttft_p50_s, 0.105, 1e-5);
        near(l.concurrency, 1.221667, 1e-5);
}

/*
 * KV capacity bounds concurrency: the same replica whose cache holds one
 * sequence cannot take 1 request/s (1.22 in flight) but can take 0.5/s:
 *   rho = 0.05, wait = 0.05 x 0.1 / 1.9 = 2.632e-3, TPOT = 0.01 / 0.95
 *   = 10.526e-3, TTFT mean = 0.107632, n = 0.5 x (0.107632 + 1.052632)
 *   = 0.580132 <= 1.
 */
static void test_kv_capacity_bounds_concurrency(void **state)
{
        struct serving_config c;
        struct serving_traffic t = {
                .requests_per_second = 1, .prompt_tokens = 100, .output_tokens = 100};
        struct serving_load l;
        (void)state;
        flat_replica(&c, 1);
        serving_replica_load(&c, &t, 1.0, &l);
        assert_false(l.feasible);
        serving_replica_load(&c, &t, 0.5, &l);
        assert_true(l.feasible);
        near(l.concurrency, 0.580132, 1e-5);
}

/*
 * The TPOT target 12.5 ms on the flat replica: 0.010 / (1 - rho) <= 0.0125
 * holds while rho <= 0.2, i.e. up to 2 requests/s.  Prefills saturate the
 * replica at 10/s (rho = 1): never feasible there.
 */
static void test_tpot_target_and_saturation(void **state)
{
        struct serving_config c;
        struct serving_traffic t = {
                .requests_per_second = 1, .prompt_tokens = 100, .output_tokens = 100};
        struct serving_slo slo = {.tpot_s = 0.0125};
        struct serving_load l;
        (void)state;
        flat_replica(&c, 256);
        serving_replica_load(&c, &t, 1.99, &l);
        assert_true(serving_meets(&l, &slo));
        serving_replica_load(&c, &t, 2.01, &l);
        assert_false(serving_meets(&l, &slo));
        serving_replica_load(&c, &t, 10.0, &l);
        assert_false(l.feasible);
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
                cmocka_unit_test(test_replica_load),
                cmocka_unit_test(test_kv_capacity_bounds_concurrency),
                cmocka_unit_test(test_tpot_target_and_saturation),
        };
        return cmocka_run_group_tests_name("speed", tests, NULL, NULL);
}
