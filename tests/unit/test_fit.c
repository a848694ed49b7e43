/*
 * test_fit.c - the fit table, the largest batch, GPUs needed and the serving answer (core/fit.c),
 * against hand calculations.  Each expected figure is derived in the
 * comment beside it from the formula's source, not from the code.
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

#include "engine_fixtures.h"

static struct estimate_result res;

static void run(const struct estimate_input *in, const struct gpu_spec *g, size_t n)
{
        run_into(&res, in, g, n);
}

/* "Hardware for ML Practitioners": a 3B full fine-tune with Adam does not fit a 24 GB RTX 3090:
 * 3e9 x 16 bytes (AMP: 4 fp32 weights + 4 gradients + 8 Adam) = 48e9 bytes
 * of weights, gradients and states alone, twice the card. */
static void test_3b_does_not_fit_3090(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("rtx-3090", 24e9, 936e9, 71e12);
        estimate_input_defaults(&in);
        assert_int_equal(model_arch_from_parameters(3000000000ull, &in.arch), 0);
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 512;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_int_equal(res.n_fits, 1);
        assert_false(res.fits[0].fits);
        assert_int_equal(res.fits[0].max_batch_size, 0);
        assert_int_equal(res.parameters, 3000000000ull);
        assert_true(res.per_gpu_total_bytes > 48e9);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS] + res.per_gpu[EST_C_GRADIENTS] +
                                 res.per_gpu[EST_C_OPTIMIZER] + res.per_gpu[EST_C_MASTER],
                         48000000000ull);
        /* ZeRO-3 over several 3090s would hold it: the table says how many. */
        assert_true(res.fits[0].gpus_needed >= 2);
        assert_true(res.n_suggestions > 0);
}

/* A GPU without bf16 (a V100: compute capability 7.0, fp16 tensor cores
 * only) must never be told to switch from fp32 to bf16 mixed precision;
 * the mixed-precision LoRA/QLoRA suggestions there plan in fp16. */
static void test_no_bf16_suggestion_without_bf16(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("v100-16gb", 16e9, 900e9, 125e12);
        g.flops[GPU_BF16] = 0;
        estimate_input_defaults(&in);
        /* 350M pre-training, 16 x 1024 tokens, fused attention: the
         * activations dominate, so half-width activations save far more
         * than the 3% a suggestion needs (about 30%). */
        assert_int_equal(model_arch_from_parameters(350000000ull, &in.arch), 0);
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_FP32;
        in.flash_attention = true;
        in.batch_size = 16;
        in.sequence_length = 1024;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_true(res.n_suggestions > 0);
        for (size_t i = 0; i < res.n_suggestions; i++)
                assert_int_not_equal(res.suggestions[i].code, EST_S_BF16_MIXED);

        /* The same job on a GPU with bf16 (an A100-class part with 16 GB, as small) gets it. */
        struct gpu_spec a = gpu("a100-16gb", 16e9, 1.5e12, 312e12);
        run(&in, &a, 1);
        bool bf16 = false;
        for (size_t i = 0; i < res.n_suggestions; i++)
                bf16 |= res.suggestions[i].code == EST_S_BF16_MIXED;
        assert_true(bf16);
}

/* The largest batch: total(b) is affine per phase, so the largest batch
 * that fits is found exactly; one more sample must not fit. */
static void test_max_batch_is_exact(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("g40", 40e9, 1.5e12, 312e12);
        estimate_input_defaults(&in);
        assert_int_equal(model_arch_from_parameters(350000000ull, &in.arch), 0);
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 1024;
        in.gpu_index = 0;
        run(&in, &g, 1);
        uint32_t bmax = res.fits[0].max_batch_size;
        assert_true(bmax > 1);
        struct estimate_error e;
        in.batch_size = bmax;
        assert_true(estimate_memory_bytes(&in, &e) <= 40e9);
        in.batch_size = bmax + 1;
        assert_true(estimate_memory_bytes(&in, &e) > 40e9);
}

/* Serving (vLLM-style reservation): LLaMA-2-7B fp16 on an A100 80GB with
 * gpu_memory_utilization 0.9; a 128 + 128 token context. */
static void test_serving_capacity(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100-80gb", 80e9, 2.039e12, 312e12);
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_INFERENCE;
        in.precision = EST_FP16;
        in.batch_size = 1;
        in.prompt_tokens = 128;
        in.generated_tokens = 128;
        in.sequence_length = 256;
        in.set |= EST_SET_PROMPT | EST_SET_GENERATED | EST_SET_SEQUENCE;
        in.gpu_index = 0;
        run(&in, &g, 1);
        /* Serving: 0.9 x 80e9 - weights - activation reserve - context,
         * divided by 2 * 32 * 32 * 128 * 2 = 524,288 bytes per token. */
        double kv = 0.9 * 80e9 - 2 * P7 - 4.8 * 1073741824.0 - 512.0 * 1048576.0;
        assert_int_equal(res.kv_bytes_per_token, 524288);
        assert_int_equal(res.serving_max_context_tokens, (uint64_t)floor(kv / 524288));
        assert_int_equal(res.serving_concurrent_sequences, (uint64_t)floor(kv / (524288.0 * 256)));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_3b_does_not_fit_3090),
                cmocka_unit_test(test_no_bf16_suggestion_without_bf16),
                cmocka_unit_test(test_max_batch_is_exact),
                cmocka_unit_test(test_serving_capacity),
        };
        return cmocka_run_group_tests_name("fit", tests, NULL, NULL);
}
