/*
 * test_serving_step.c - a serving engine's iteration (core/serving_step.c)
 * and the load model built on it (plan/serving_load.c), against hand
 * calculations written out beside each check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/serving_step.h"
#include "plan/serving.h"

#define near(a, b, rel) assert_true(fabs((a) - (b)) <= (rel)*fabs(b))

/*
 * A made-up GPU and model whose pass is easy to add up by hand:
 *   matmuls 2e9 FLOPs per token at 1e15 x 0.5 = 5e14 FLOP/s: 4 ns a token;
 *   7e9 weight bytes read per pass at 1e12 B/s x 0.80 = 8e11 B/s: 8.75 ms;
 *   matmul time sqrt(compute^2 + memory^2) (serving_step.c);
 *   32 blocks: a floor of 32 x 8 small kernels x 3 us = 0.768 ms for the
 *   rest of the pass (no attention, cache or element-wise traffic here).
 */
static void toy_speed(struct est_speed *sp)
{
        memset(sp, 0, sizeof(*sp));
        sp->peak = sp->gemm_peak = 1e15;
        sp->gemm_efficiency = 0.5;
        sp->attention_efficiency = 1;
        sp->bandwidth = 1e12;
        sp->bandwidth_efficiency = 0.8; /* capped at 0.70 by the step model */
        sp->linear_flops = 2e9;
        sp->weight_bytes = 7e9;
}

static void toy_engine(struct serving_engine *e, enum serving_prefill_mode mode, uint32_t steps,
                       double iteration_s, double sequence_s, double frontend_s)
{
        serving_step_engine_preset(SERVING_ENGINE_VLLM, e);
        e->prefill = mode;
        e->scheduler_steps = steps;
        e->iteration_seconds = iteration_s;
        e->sequence_seconds = sequence_s;
        e->frontend_seconds = frontend_s;
}

/*
 * NCCL's ring model (tuning.cc, Simple protocol): 8.4 us + 2 (n - 1) hops.
 *   4 GPUs over NVLink: 8.4 + 6 x 3.4 = 28.8 us
 *   8 GPUs over NVLink: 8.4 + 14 x 3.4 = 56.0 us
 *   2 GPUs over PCIe:   8.4 + 2 x 5.7 = 19.8 us
 * A 70B decoder's 80 blocks at TP 4 run 160 of them: 4.608 ms a pass.
 */
static void test_ring_all_reduce_latency(void **state)
{
        struct serving_step_model m;
        struct serving_engine e;
        struct est_speed sp;
        (void)state;
        near(serving_step_ring_all_reduce_seconds(4, true), 28.8e-6, 1e-9);
        near(serving_step_ring_all_reduce_seconds(8, true), 56.0e-6, 1e-9);
        near(serving_step_ring_all_reduce_seconds(2, false), 19.8e-6, 1e-9);
        assert_true(serving_step_ring_all_reduce_seconds(1, true) == 0);
        toy_speed(&sp);
        toy_engine(&e, SERVING_PREFILL_MIXED, 1, 0, 0, 0);
        serving_step_model_init(&m, &sp, &e, 4, 80, true, false);
        near(m.all_reduces_per_pass * m.all_reduce_seconds, 4.608e-3, 1e-9);
}

/*
 * One chunked-prefill iteration: 32 decoding sequences and a prompt chunk,
 * host 0.2 ms an iteration and 10 us a sequence (0.52 ms here).
 *   32 + 480 = 512 tokens: matmuls 512 x 4 ns = 2.048 ms of math against
 *     8.75 ms of weight reads: sqrt(2.048^2 + 8.75^2) = 8.98649 ms;
 *     + 0.768 + 0.52 = 10.27449 ms;
 *   32 + 4064 = 4096 tokens: 16.384 ms of math: sqrt(16.384^2 + 8.75^2)
 *     = 18.57412 ms; + 1.288 = 19.86212 ms.
 * The 480 prompt tokens cost 0.24 ms more than the 32 decode tokens alone
 * would (sqrt(0.128^2 + 8.75^2) = 8.75094 ms): chunked prefill rides on the
 * weight reads decoding pays for anyway.
 */
static void test_chunked_prefill_step(void **state)
{
        struct serving_step_model m;
        struct serving_engine e;
        struct est_speed sp;
        (void)state;
        toy_speed(&sp);
        toy_engine(&e, SERVING_PREFILL_MIXED, 1, 0.2e-3, 10e-6, 0);
        serving_step_model_init(&m, &sp, &e, 1, 32, false, false);
        near(serving_step_seconds(&m, 32, 500, 480, 240), 10.27449e-3, 1e-5);
        near(serving_step_seconds(&m, 32, 500, 4064, 2032), 19.86212e-3, 1e-5);
        near(serving_step_seconds(&m, 32, 500, 0, 0), (8.75094 + 1.288) * 1e-3, 1e-5);
}

/*
 * fp8 attention (TensorRT-LLM's FP8 context FMHA, vLLM's FlashAttention-3
 * over an fp8 cache): the attention FLOPs move to the fp8 rate.  On the
 * toy GPU with 1e6 attention FLOPs per token and context token at 0.5 of
 * the 1e15 peak, a 1,000-token prompt over 500 tokens of context:
 *   matmuls sqrt(4^2 + 8.75^2) = 9.62094 ms;
 *   attention 1,000 x 500 x 1e6 / 5e14 = 1.0 ms, above its 0.096 ms
 *     floor (0.768 / 8), plus the other small kernels' 0.672 ms:
 *     11.29294 ms in all;
 *   at twice the rate (an fp8 rate ratio of 2, an H100's 1,979 over 989
 *     TFLOP/s): attention 0.5 ms, 10.79294 ms.
 * A ratio of 1 or less changes nothing.
 */
static void test_fp8_attention(void **state)
{
        struct serving_step_model m;
        struct serving_engine e;
        struct est_speed sp;
        (void)state;
        toy_speed(&sp);
        sp.attention_flops = 1e6;
        sp.attention_efficiency = 0.5;
        toy_engine(&e, SERVING_PREFILL_MIXED, 1, 0, 0, 0);
        serving_step_model_init(&m, &sp, &e, 1, 32, false, false);
        near(serving_step_seconds(&m, 0, 0, 1000, 500), 11.29294e-3, 1e-5);
        serving_step_fp8_attention(&m, 1);
        near(serving_step_seconds(&m, 0, 0, 1000, 500), 11.29294e-3, 1e-5);
        serving_step_fp8_attention(&m, 2);
        near(serving_step_seconds(&m, 0, 0, 1000, 500), 10.79294e-3, 1e-5);
}

/* Which engine and weight option run attention in fp8: an fp8 cache always,
 * and for TensorRT-LLM fp8 weights too (its FP8 context FMHA needs both). */
static void test_fp8_attention_applies(void **state)
{
        struct serving_option o = {
                .precision = EST_BF16, .quantization = EST_QUANT_FP8, .kv_dtype = EST_KV_FP8};
        (void)state;
        assert_true(serving_fp8_attention(SERVING_ENGINE_TRTLLM, &o));
        assert_true(serving_fp8_attention(SERVING_ENGINE_VLLM, &o));
        assert_false(serving_fp8_attention(SERVING_ENGINE_SGLANG, &o));
        o.quantization = EST_QUANT_NONE;
        assert_false(serving_fp8_attention(SERVING_ENGINE_TRTLLM, &o));
        assert_true(serving_fp8_attention(SERVING_ENGINE_VLLM, &o));
        o.kv_dtype = EST_KV_AUTO;
        o.quantization = EST_QUANT_FP8;
        assert_false(serving_fp8_attention(SERVING_ENGINE_TRTLLM, &o));
        assert_false(serving_fp8_attention(SERVING_ENGINE_VLLM, &o));
}

/* A replica under a multi-step scheduler: k = 10 iterations per
 * scheduling at 1 ms each, a 10 ms front end, a 10.1 ms prefill pass on
 * the toy GPU; the tests below work their figures out from these. */
static void multi_step_replica(struct serving_config *c, struct serving_engine *e,
                               struct est_speed *sp)
{
        memset(c, 0, sizeof(*c));
        toy_speed(sp);
        toy_engine(e, SERVING_PREFILL_SEPARATE, 10, 1e-3, 0, 10e-3);
        serving_step_model_init(&c->step, sp, e, 1, 32, false, false);
        c->max_sequences = 256;
        c->prefill_s = 0.0101;
}

/*
 * Multi-step scheduling (vLLM num_scheduler_steps = 10) and TTFT at an
 * idle replica (one request in a long while), prompts of 100 tokens:
 *   decode iteration T = 8.75 ms of weight reads + 0.768 ms kernel floor
 *     + 1 ms / 10 of scheduling = 9.618 ms;
 *   a new prompt waits for the end of the current block of 10
 *     iterations: median 10 x 9.618 / 2 = 48.09 ms;
 *   its prefill pass: 100 tokens, sqrt(0.4^2 + 8.75^2) = 8.75914 ms of
 *     matmuls + 0.768 + 0.1 = 9.62714 ms;
 *   front end 10 ms: TTFT p50 = 10 + 48.09 + 9.62714 = 67.71714 ms;
 *   tokens stream in bursts of 10: ITL p50 = 96.18 ms.
 * With one scheduler step the same replica: T = 10.518 ms, prefill
 *   10.52714 ms, TTFT p50 = 10 + 5.259 + 10.52714 = 25.78614 ms.
 */
static void test_multi_step_ttft(void **state)
{
        struct serving_config c;
        struct serving_engine e;
        struct est_speed sp;
        struct serving_traffic t = {.prompt_tokens = 100, .output_tokens = 100};
        struct serving_load l;
        (void)state;
        multi_step_replica(&c, &e, &sp);
        serving_load_replica(&c, &t, 1e-6, &l);
        assert_true(l.feasible);
        near(l.ttft_p50_s, 67.71714e-3, 1e-4);
        near(l.itl_p50_s, 96.18e-3, 1e-4);
        near(l.itl_burst_tokens, 10.0, 1e-12);
        e.scheduler_steps = 1;
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        serving_load_replica(&c, &t, 1e-6, &l);
        near(l.ttft_p50_s, 25.78614e-3, 1e-4);
}

/*
 * The saturation point: chunked prefill, no host costs, prompts of 10
 * tokens and answers of 101, at most 50 running sequences.  Every
 * iteration is about 55 tokens: T = sqrt(0.00022^2 + 8.75^2) + 0.768
 * = 9.518 ms.  In flight: the decoding n = lambda x 100 x T plus those
 * waiting for their first token, lambda x TTFT with TTFT = T / 2 (the
 * wait for the next iteration) + 9.519 ms (the iteration carrying the
 * prompt's 10 tokens) = 14.277 ms: lambda x (0.9518 + 0.014277) s = 50 at
 * lambda = 51.756 requests/s.  Above, the replica is overloaded.
 */
static void test_saturation_point(void **state)
{
        struct serving_config c;
        struct serving_engine e;
        struct est_speed sp;
        struct serving_traffic t = {.prompt_tokens = 10, .output_tokens = 101};
        struct serving_load l;
        (void)state;
        memset(&c, 0, sizeof(c));
        toy_speed(&sp);
        toy_engine(&e, SERVING_PREFILL_MIXED, 1, 0, 0, 0);
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        c.max_sequences = 50;
        c.prefill_s = 0.010;
        /* To 0.1%: the prefill queue adds a few microseconds. */
        near(serving_load_replica_max_rate(&c, &t), 51.756, 1e-3);
        serving_load_replica(&c, &t, 49.0, &l);
        assert_true(l.feasible);
        assert_false(l.overloaded);
        near(l.tpot_s, 9.518e-3, 1e-3);
        serving_load_replica(&c, &t, 60.0, &l);
        assert_false(l.feasible);
        assert_true(l.overloaded);
}

/*
 * One closed-loop user: each request finds the replica idle (the last one
 * has just ended), so it waits for no scheduling point and no queue.  The
 * multi-step replica of test_multi_step_ttft (k = 10, 1 ms per scheduling
 * spread over 10 iterations, front end 10 ms):
 *   prefill pass of 100 tokens = 10.52714 - 0.9 = 9.62714 ms,
 *   TTFT = 10 + 9.62714 = 19.62714 ms (the open loop's 67.7 ms waited
 *   half a 10-step block for the scheduler);
 *   TPOT = one decode iteration of 1 sequence = 96.18 / 10 = 9.618 ms;
 *   a request lasts 19.62714 + 99 x 9.618 = 971.80914 ms: 1.029010 req/s.
 */
static void test_single_user_closed_loop(void **state)
{
        struct serving_config c;
        struct serving_engine e;
        struct est_speed sp;
        struct serving_traffic t = {.prompt_tokens = 100, .output_tokens = 100, .concurrency = 1};
        struct serving_load l;
        (void)state;
        multi_step_replica(&c, &e, &sp);
        serving_load_replica_closed(&c, &t, 1, &l);
        assert_true(l.feasible);
        assert_false(l.overloaded);
        near(l.ttft_mean_s, 19.62714e-3, 1e-4);
        near(l.ttft_p99_s, 19.62714e-3, 1e-4);
        near(l.tpot_s, 9.618e-3, 1e-4);
        near(l.delivered_rps, 1.029010, 1e-4);
}

/*
 * Closed-loop arrivals come just after an iteration ends: a user sends its
 * next request as the last token of the previous one arrives, and that
 * token left the engine at the end of an iteration (a block of k under
 * multi-step).  The request reaches the scheduler a front end F later
 * and waits for the next boundary it has not missed.  On the multi-step
 * replica of test_multi_step_ttft (block 10 x 9.618 = 96.18 ms, prefill
 * 9.62714 ms, F = 10 ms), at a negligible rate so that no queue forms:
 *   open loop: F + block / 2 + prefill = 10 + 48.09 + 9.62714 = 67.71714 ms;
 *   closed loop of 5 users: the boundary 96.18 ms after the last one,
 *     86.18 ms after arriving; TTFT = 10 + 86.18 + 9.62714 = 105.80714 ms
 *     (the whole block plus the prefill: the front end hides in the wait).
 * One scheduler step (T = 10.518 ms, prefill 10.52714 ms): F = 10 ms falls
 *   inside one iteration, TTFT = 10.518 + 10.52714 = 21.04514 ms; with
 *   F = 25 ms the request misses two boundaries and is taken at the third,
 *   3 x 10.518 = 31.554 ms after the last token: TTFT = 31.554 + 10.52714
 *   = 42.08114 ms.
 */
static void test_closed_loop_aligned_arrivals(void **state)
{
        struct serving_config c;
        struct serving_engine e;
        struct est_speed sp;
        struct serving_traffic t = {.prompt_tokens = 100, .output_tokens = 100, .concurrency = 5};
        struct serving_load l;
        (void)state;
        multi_step_replica(&c, &e, &sp);
        serving_load_replica(&c, &t, 1e-6, &l);
        assert_true(l.feasible);
        near(l.ttft_p50_s, 105.80714e-3, 1e-4);
        near(l.ttft_p99_s, 105.80714e-3, 1e-4);
        near(l.ttft_mean_s, 105.80714e-3, 1e-4);
        e.scheduler_steps = 1;
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        serving_load_replica(&c, &t, 1e-6, &l);
        near(l.ttft_p50_s, 21.04514e-3, 1e-4);
        e.frontend_seconds = 25e-3;
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        serving_load_replica(&c, &t, 1e-6, &l);
        near(l.ttft_p50_s, 42.08114e-3, 1e-4);
        t.concurrency = 0;
        serving_load_replica(&c, &t, 1e-6, &l);
        near(l.ttft_p50_s, (25 + 5.259 + 10.52714) * 1e-3, 1e-4);
}

/*
 * The burst of a closed loop: 4 users send 3,000-token prompts at once to
 * an idle toy replica (no host cost, front end 10 ms, budget 8,192
 * tokens).  Chunked prefill, first come first served:
 *   iteration 1: prompts 1 and 2 whole and 2,192 tokens of prompt 3:
 *     8,192 tokens, sqrt(32.768^2 + 8.75^2) = 33.91614 ms of matmuls
 *     + 0.768 = 34.68414 ms; prompts 1 and 2 have their first token;
 *   iteration 2: 2 decodes, the last 808 tokens of prompt 3 and all of
 *     prompt 4: 3,810 tokens, sqrt(15.24^2 + 8.75^2) = 17.57328 + 0.768
 *     = 18.34128 ms, ending at 53.02542 ms;
 *   TTFT mean 10 + (2 x 34.68414 + 2 x 53.02542) / 4 = 53.85478 ms,
 *   the last 10 + 53.02542 = 63.02542 ms.
 * Prefill first: whole prompts, two to a pass (6,000 tokens:
 *   sqrt(24^2 + 8.75^2) = 25.54528 + 0.768 = 26.31330 ms), decodes
 *   waiting: 10 + (2 x 26.31330 + 2 x 52.62661) / 4 = 49.46995 ms, the
 *   last 62.62661 ms.
 * A running-sequence limit of 3 leaves the fourth user out (it waits for
 *   a slot): iteration 2 carries 2 decodes and prompt 3's last 808
 *   tokens, 810 tokens, sqrt(3.24^2 + 8.75^2) = 9.33060 + 0.768 =
 *   10.09860 ms, ending at 44.78274 ms: mean 10 + (2 x 34.68414 +
 *   44.78274) / 3 = 48.05034 ms, the last 54.78274 ms.
 * Two users of 20,000-token prompts (chunked): prompt 1 fills two
 *   iterations of 8,192 tokens alone, then its last 3,616 tokens and
 *   4,576 of prompt 2 fill a third (3 x 34.68414 = 104.05241 ms, prompt
 *   1's first token); prompt 2 then fills one iteration with prompt 1's
 *   decode (8,191 + 1 tokens, 34.68414 ms) and ends in one of 7,233 + 1
 *   tokens: sqrt(28.936^2 + 8.75^2) = 30.23003 + 0.768 = 30.99803 ms, at
 *   169.73458 ms: mean 10 + (104.05241 + 169.73458) / 2 = 146.89349 ms,
 *   the last 179.73458 ms.  Iterations a prompt fills alone are counted
 *   at once, not one by one.
 * One user has no burst (0: not reported).
 */
static void test_closed_loop_burst(void **state)
{
        struct serving_config c;
        struct serving_engine e;
        struct est_speed sp;
        struct serving_traffic t = {.prompt_tokens = 3000, .output_tokens = 100, .concurrency = 4};
        struct serving_load l;
        (void)state;
        memset(&c, 0, sizeof(c));
        toy_speed(&sp);
        toy_engine(&e, SERVING_PREFILL_MIXED, 1, 0, 0, 10e-3);
        e.max_batched_tokens = 8192;
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        c.max_sequences = 256;
        c.prefill_s = 0.035;
        serving_load_replica_closed(&c, &t, 4, &l);
        near(l.ttft_burst_mean_s, 53.85478e-3, 1e-5);
        near(l.ttft_burst_max_s, 63.02542e-3, 1e-5);
        e.prefill = SERVING_PREFILL_SEPARATE;
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        serving_load_replica_closed(&c, &t, 4, &l);
        near(l.ttft_burst_mean_s, 49.46995e-3, 1e-5);
        near(l.ttft_burst_max_s, 62.62661e-3, 1e-5);
        e.prefill = SERVING_PREFILL_MIXED;
        serving_step_model_init(&c.step, &sp, &e, 1, 32, false, false);
        c.max_sequences = 3;
        serving_load_replica_closed(&c, &t, 4, &l);
        near(l.ttft_burst_mean_s, 48.05034e-3, 1e-5);
        near(l.ttft_burst_max_s, 54.78274e-3, 1e-5);
        c.max_sequences = 256;
        t.prompt_tokens = 20000;
        t.concurrency = 2;
        serving_load_replica_closed(&c, &t, 2, &l);
        near(l.ttft_burst_mean_s, 146.89349e-3, 1e-5);
        near(l.ttft_burst_max_s, 179.73458e-3, 1e-5);
        t.prompt_tokens = 3000;
        t.concurrency = 1;
        serving_load_replica_closed(&c, &t, 1, &l);
        assert_true(l.ttft_burst_mean_s == 0 && l.ttft_burst_max_s == 0);
}

/*
 * Quantiles of a sum of waits, against hand calculations:
 *   U uniform over [0, 10) plus X exponential with mean 1: for s <= 10 the
 *   CDF is (s - (1 - e^-s)) / 10, so the median solves s = 6 - e^-s:
 *   s = 5.99752 (the sum of the parts' medians, 5 + ln 2 = 5.693, is 5%
 *   short; the mean is 6).
 *   A queue alone (window 1 us): 0 with probability 0.5, else exponential
 *   with mean 2: P(Y > t) = 0.5 e^(-t/2) = 0.05 at t = 2 ln 10 = 4.60517
 *   (plus about half the 1 us window).  Its median is the window's end,
 *   1 us: the half that does not queue spreads over the whole window.
 */
static void test_ttft_spread_quantile(void **state)
{
        struct serving_ttft_spread a = {.window_s = 10, .mu_s = 1};
        struct serving_ttft_spread b = {.window_s = 1e-6, .rho = 0.5, .nu_s = 2};
        (void)state;
        near(serving_load_ttft_spread_quantile(&a, 0.5), 5.99752, 1e-5);
        near(serving_load_ttft_spread_quantile(&b, 0.95), 4.60517, 1e-5);
        near(serving_load_ttft_spread_quantile(&b, 0.5), 1e-6, 1e-3);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ring_all_reduce_latency),
                cmocka_unit_test(test_chunked_prefill_step),
                cmocka_unit_test(test_fp8_attention),
                cmocka_unit_test(test_fp8_attention_applies),
                cmocka_unit_test(test_multi_step_ttft),
                cmocka_unit_test(test_saturation_point),
                cmocka_unit_test(test_single_user_closed_loop),
                cmocka_unit_test(test_closed_loop_aligned_arrivals),
                cmocka_unit_test(test_closed_loop_burst),
                cmocka_unit_test(test_ttft_spread_quantile),
        };
        return cmocka_run_group_tests_name("serving_step", tests, NULL, NULL);
}
