/*
 * test_loss_compile.c - torchtitan's loss under compile follows the
 * release a request names (core/estimate.c, estimate_apply_framework):
 * compiled with the model since April 2025 (components/loss.py), eager
 * before; loss_parallel with tensor parallelism either way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/estimate.h"

static enum est_logits logits_for(bool compile, uint32_t release, uint32_t tp)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.mode = EST_PRE_TRAIN;
        in.framework = EST_FW_TORCHTITAN;
        in.compile = compile;
        in.set |= EST_SET_COMPILE;
        in.framework_release = release;
        in.tensor_parallel = tp;
        in.gpus = 8 * tp;
        estimate_apply_framework(&in);
        return in.logits;
}

static void test_torchtitan_loss_by_release(void **state)
{
        (void)state;
        /* December 2024: blocks compiled, the loss eager (upcast in loss) */
        assert_int_equal(logits_for(true, 202412, 1), EST_LOGITS_UPCAST_IN_LOSS);
        /* April 2025 and today's: the loss compiled, no fp32 copy */
        assert_int_equal(logits_for(true, 202504, 1), EST_LOGITS_FUSED);
        assert_int_equal(logits_for(true, 0, 1), EST_LOGITS_FUSED);
        /* compile off: eager whatever the release */
        assert_int_equal(logits_for(false, 0, 1), EST_LOGITS_UPCAST_IN_LOSS);
        /* tensor parallel: loss_parallel */
        assert_int_equal(logits_for(true, 0, 8), EST_LOGITS_LOSS_PARALLEL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_torchtitan_loss_by_release),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
