/*
 * test_estimate.c - the pipeline as a whole (core/estimate.c),
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

/* Absurd input is refused, never wrapped. */
static void test_absurd_input_refused(void **state)
{
        (void)state;
        struct estimate_input in;
        struct estimate_error e;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.arch.max_positions = 16777216;
        in.arch.vocab = 16777216;
        in.mode = EST_PRE_TRAIN;
        in.batch_size = 1048576;
        in.sequence_length = 16777216;
        assert_int_equal(estimate_memory_bytes(&in, &e), 0);
        assert_string_equal(e.rule, "overflow");
        assert_int_not_equal(estimate_run(&in, NULL, 0, &res, &e), 0);
}

/* The two entry points agree, and the headline total is the peak phase's
 * allocated bytes plus what nvidia-smi adds on top: the caching
 * allocator's 5% reserve and a 512 MiB CUDA context (the constants
 * estimate.h names in its assumptions), i.e. total = 1.05 x allocated +
 * 536,870,912, to within rounding of the components. */
static void test_entry_points_agree(void **state)
{
        (void)state;
        struct estimate_input in;
        struct estimate_error e;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.batch_size = 2;
        in.sequence_length = 512;
        run(&in, NULL, 0);
        assert_int_equal(estimate_memory_bytes(&in, &e), res.per_gpu_total_bytes);
        double want = 1.05 * (double)res.per_gpu_allocated_bytes + 536870912.0;
        assert_true(fabs((double)res.per_gpu_total_bytes - want) < 16);
        uint64_t sum = 0;
        for (int c = 0; c < EST_COMPONENT_COUNT; c++)
                sum += res.per_gpu[c];
        assert_int_equal(sum, res.per_gpu_total_bytes);
        assert_int_equal(res.phase_total_bytes[res.peak_phase], res.per_gpu_total_bytes);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_absurd_input_refused),
                cmocka_unit_test(test_entry_points_agree),
        };
        return cmocka_run_group_tests_name("estimate", tests, NULL, NULL);
}
