/*
 * test_fit_search.c - "make it fit" (plan/fit_search.c): which combined
 * changes the search proposes for a job that does not fit its GPU.  Each
 * expectation is derived by hand in the comment beside it from bytes per
 * parameter (Rajbhandari et al. 2020, "ZeRO", section 3.1: mixed-precision
 * Adam keeps 2 + 2 + 12 bytes per parameter) and the model's published
 * parameter count, not from the code under test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/estimate.h"
#include "plan/fit_search.h"

#include "engine_fixtures.h"

#define BIT(c) (1u << (c))

static struct plan_fit_result res;

/* LLaMA-2-7B full fine-tune, bf16 mixed AdamW, batch 4 x 512, on g. */
static void fine_tune_7b(struct estimate_input *in)
{
        estimate_input_defaults(in);
        in->arch = llama2_7b();
        in->mode = EST_FINE_TUNE;
        in->precision = EST_BF16_MIXED;
        in->optimizer = EST_OPT_ADAMW;
        in->batch_size = 4;
        in->sequence_length = 512;
        in->gradient_accumulation = 2;
        in->gpu_index = 0;
}

/* LLaMA-2-7B inference in bf16, batch 1, 512 prompt and 128 generated
 * tokens, on g. */
static void inference_7b(struct estimate_input *in)
{
        estimate_input_defaults(in);
        in->arch = llama2_7b();
        in->mode = EST_INFERENCE;
        in->precision = EST_BF16;
        in->batch_size = 1;
        in->prompt_tokens = 512;
        in->generated_tokens = 128;
        in->gpu_index = 0;
}

static void search(const struct estimate_input *in, const struct gpu_spec *g, bool adapters)
{
        struct plan_fit_options o;
        struct estimate_error e;

        plan_fit_search_options_defaults(&o);
        o.allow_adapters = adapters;
        if (plan_fit_search(in, g, 1, &o, &res, &e))
                fail_msg("plan_fit_search: %s %s %s", e.pointer, e.rule, e.detail);
}

/* Every option fits its GPU by the engine's own verdict, and a smaller
 * micro-batch always comes with the accumulation that keeps the global
 * batch (4 x 2 = 8 sequences per step). */
static void check_options(const struct estimate_input *in, const struct gpu_spec *g)
{
        static struct estimate_result r;

        for (size_t i = 0; i < res.n_options; i++) {
                const struct plan_fit_option *o = &res.options[i];
                struct estimate_input x = o->input;
                struct estimate_error e;

                assert_true(o->changes != 0);
                x.gpu_index = 0;
                if (estimate_run(&x, g, 1, &r, &e))
                        fail_msg("option %zu refused: %s", i, e.detail);
                assert_true(r.fits[0].fits);
                assert_true(o->needed_bytes <= res.usable_bytes);
                if (in->mode != EST_INFERENCE)
                        assert_int_equal((uint64_t)o->input.batch_size *
                                                 o->input.gradient_accumulation,
                                         (uint64_t)in->batch_size * in->gradient_accumulation);
                if (i > 0)
                        assert_true(o->gpu_seconds_per_million_tokens >=
                                    res.options[i - 1].gpu_seconds_per_million_tokens);
        }
}

/*
 * 6.74e9 parameters on a 24 GB card, adapters not allowed.  The least one
 * GPU can hold for a full fine-tune is bf16 weights and bf16 gradients
 * with everything else offloaded: 2 + 2 bytes x 6.74e9 = 26.95 GB, more
 * than 24 GB.  So every option must spread the job over more GPUs.
 */
static void test_full_fine_tune_needs_more_gpus(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("24gb", 24e9, 936e9, 142e12);

        fine_tune_7b(&in);
        search(&in, &g, false);
        assert_false(res.fits_already);
        assert_true(res.n_options > 0);
        for (size_t i = 0; i < res.n_options; i++) {
                assert_true(res.options[i].changes & BIT(PLAN_FIT_GPUS));
                assert_true(res.options[i].input.gpus >= 2);
                assert_int_equal(res.options[i].input.mode, EST_FINE_TUNE);
        }
        check_options(&in, &g);
}

/*
 * The same job with LoRA or QLoRA allowed: QLoRA keeps the 6.74e9 base
 * weights in NF4, about 0.5 bytes each (4 bits plus one fp32 scale per 64
 * weights, Dettmers et al. 2023): 3.4 GB, and the adapters' states are a
 * few hundred MB.  So some option fits on the one GPU.
 */
static void test_adapters_fit_one_gpu(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("24gb", 24e9, 936e9, 142e12);
        bool one_gpu = false;

        fine_tune_7b(&in);
        search(&in, &g, true);
        assert_true(res.n_options > 0);
        for (size_t i = 0; i < res.n_options; i++)
                if (res.options[i].input.gpus == 1) {
                        one_gpu = true;
                        assert_true(res.options[i].changes & BIT(PLAN_FIT_ADAPTERS));
                }
        assert_true(one_gpu);
        check_options(&in, &g);
        assert_true(res.combinations > 0);
        assert_true(res.candidates >= res.n_options);
}

/* A job that fits is left alone: 7B inference in bf16 is 13.5 GB of
 * weights (2 bytes x 6.74e9), well inside 80 GB. */
static void test_fits_already(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("80gb", 80e9, 2e12, 989e12);

        inference_7b(&in);
        search(&in, &g, false);
        assert_true(res.fits_already);
        assert_int_equal(res.n_options, 0);
}

/*
 * 7B inference in bf16 on a 6 GB card: 13.5 GB of weights.  int8 weights
 * are 6.74 GB, still more than the card; int4 with a bf16 scale per 128
 * weights is 4.125 bits, 3.5 GB, plus bf16 embedding and head
 * (2 x 32000 x 4096 x 2 bytes = 0.52 GB): about 4 GB, which fits.  So
 * quantization alone is an option, and it is int4, never int8.
 */
static void test_inference_int4_alone(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("6gb", 6e9, 360e9, 30e12);
        bool quant_alone = false;

        inference_7b(&in);
        search(&in, &g, false);
        assert_false(res.fits_already);
        for (size_t i = 0; i < res.n_options; i++) {
                const struct plan_fit_option *o = &res.options[i];
                if (o->changes == BIT(PLAN_FIT_QUANTIZATION)) {
                        quant_alone = true;
                        assert_int_equal(o->input.quantization, EST_QUANT_INT4);
                }
                if (o->input.gpus == 1)
                        assert_int_not_equal(o->input.quantization, EST_QUANT_NONE);
        }
        assert_true(quant_alone);
        check_options(&in, &g);
}

/* An inference-only part never trains, whatever changes: no option, and
 * the reason says why, without a search. */
static void test_inference_only_part(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("npu", 96e9, 800e9, 300e12);

        g.can_train = false;
        fine_tune_7b(&in);
        search(&in, &g, true);
        assert_false(res.fits_already);
        assert_int_equal(res.request_reason, EST_FIT_CANNOT_TRAIN);
        assert_int_equal(res.n_options, 0);
        assert_int_equal(res.combinations, 0);
}

/*
 * A V100 has no bf16 rate (compute capability 7.0, NVIDIA CUDA C
 * Programming Guide): a bf16 mixed request cannot run there at all, so
 * every option must switch to fp16 mixed precision.
 */
static void test_bf16_on_a_gpu_without_it(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("v100", 32e9, 900e9, 125e12);

        g.flops[GPU_BF16] = 0;
        fine_tune_7b(&in);
        search(&in, &g, true);
        assert_true(res.n_options > 0);
        for (size_t i = 0; i < res.n_options; i++) {
                assert_true(res.options[i].changes & BIT(PLAN_FIT_PRECISION));
                assert_int_equal(res.options[i].input.precision, EST_FP16_MIXED);
        }
        check_options(&in, &g);
}

/*
 * fp8 mixed precision on a GPU without fp8 (an A100: no fp8 tensor cores
 * before Ada / Hopper) cannot run and no change searched offers another
 * precision for it: nothing is found, after a bounded number of engine
 * runs rather than one per combination.
 */
static void test_bounded_when_nothing_runs(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 40e9, 1555e9, 312e12);

        fine_tune_7b(&in);
        in.precision = EST_FP8_MIXED;
        search(&in, &g, true);
        assert_int_equal(res.n_options, 0);
        assert_true(res.candidates <= 256);
}

/* Without a GPU there is nothing to fit: the error names /gpu. */
static void test_needs_a_gpu(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("24gb", 24e9, 936e9, 142e12);
        struct plan_fit_options o;
        struct estimate_error e;

        fine_tune_7b(&in);
        in.gpu_index = -1;
        plan_fit_search_options_defaults(&o);
        memset(&e, 0, sizeof(e));
        assert_int_equal(plan_fit_search(&in, &g, 1, &o, &res, &e), -1);
        assert_string_equal(e.pointer, "/gpu");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_full_fine_tune_needs_more_gpus),
                cmocka_unit_test(test_adapters_fit_one_gpu),
                cmocka_unit_test(test_fits_already),
                cmocka_unit_test(test_inference_int4_alone),
                cmocka_unit_test(test_inference_only_part),
                cmocka_unit_test(test_bf16_on_a_gpu_without_it),
                cmocka_unit_test(test_bounded_when_nothing_runs),
                cmocka_unit_test(test_needs_a_gpu),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
