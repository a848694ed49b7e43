/*
 * test_adafactor.c - transformers' Adafactor as the Trainer builds it
 * (core/derive.c adafactor_states): no first moment, a factored second
 * moment, step temporaries of about twice the largest parameter.  Worked
 * by hand for LLaMA-2-7B (engine_fixtures.h).
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

static const struct est_note *assumption(uint16_t code)
{
        for (size_t i = 0; i < res.n_assumptions; i++)
                if (res.assumptions[i].code == code)
                        return &res.assumptions[i];
        return NULL;
}

/*
 * LLaMA-2-7B, fp32 (states in the gradient's dtype, 4 bytes):
 *   per block, rows + columns of q, k, v, o (4096 x 4096 each) and
 *   gate, up, down (4096 x 11008): 4 x 8192 + 3 x 15104 = 78,080;
 *   x 32 blocks = 2,498,560
 *   embedding and untied head (32000 x 4096): 2 x 36,096 = 72,192
 *   vectors kept whole: the 65 RMSNorm weights of 4096 = 266,240
 *   (6,738,415,616 - 32 x 202,375,168 - 2 x 131,072,000)
 *   4 x (2,498,560 + 72,192 + 266,240) = 11,347,968 bytes of states
 * against 8 x 6.74e9 = 53.9 GB for AdamW.  The step's fp32 temporaries:
 * twice the largest parameter, the 131,072,000-element embedding:
 * 8 x 131,072,000 = 1,048,576,000 bytes.  With beta1 set, a first moment
 * adds 4 bytes per parameter: 11,347,968 + 26,953,662,464.
 */
static void test_trainer_adafactor(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_FP32;
        in.optimizer = EST_OPT_ADAFACTOR;
        in.set |= EST_SET_OPTIMIZER;
        in.batch_size = 1;
        in.sequence_length = 128;
        run_into(&res, &in, NULL, 0);
        assert_true(llabs((long long)res.per_gpu[EST_C_OPTIMIZER] - 11347968ll) <= 1);
        const struct est_note *n = assumption(EST_A_ADAFACTOR);
        assert_non_null(n);
        assert_true(fabs(n->a - 11347968.0) < 1);
        assert_true(fabs(n->b - 1048576000.0) < 1);

        in.adafactor_first_moment = true;
        run_into(&res, &in, NULL, 0);
        assert_true(llabs((long long)res.per_gpu[EST_C_OPTIMIZER] -
                          (11347968ll + 4ll * 6738415616ll)) <= 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_trainer_adafactor),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
