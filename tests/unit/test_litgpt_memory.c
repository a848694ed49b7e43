/*
 * test_litgpt_memory.c - litgpt's QLoRA as its code runs it
 * (core/memory.c, core/estimate.c): bitsandbytes quantizes lm_head too,
 * its chunked head dequantizes the whole head for every chunk, and its
 * head is never tied to the embeddings.  Expected figures are worked out
 * by hand beside each assertion.
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

static void run(const struct estimate_input *in)
{
        run_into(&res, in, NULL, 0);
}

/* LLaMA-2-7B QLoRA, NF4 without double quantization, rank 8 on q and v,
 * pure bf16, one sample of 256 tokens, no allocator reserve. */
static struct estimate_input qlora_7b(enum est_framework fw)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_QLORA;
        in.quantization = EST_QUANT_NF4;
        in.double_quant = false;
        in.lora_rank = 8;
        in.lora_targets = EST_LORA_Q | EST_LORA_V;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_SGD;
        in.flash_attention = true;
        in.chunked_loss = true;
        in.batch_size = 1;
        in.sequence_length = 256;
        in.allocator_reserve_fraction = 0;
        in.set |= EST_SET_RESERVE;
        in.framework = fw;
        return in;
}

/*
 * The head is V x h = 32,000 x 4,096 = 131,072,000 weights.  bf16: 2
 * bytes each; NF4 with an fp32 absmax per block of 64: 0.5 + 4 / 64 =
 * 0.5625.  litgpt stores it quantized: 131,072,000 x 1.4375 =
 * 188,416,000 bytes less in every phase.
 *
 * The dequantization workspace: a block's largest matrix is the MLP's
 * 11,008 x 4,096 = 45,088,768 weights, 90,177,536 bytes in bf16; the head
 * dequantized whole is 262,144,000.  While the loss and the head run
 * (end of forward, start of backward) litgpt's workspace is the head's:
 * 262,144,000 - 90,177,536 = 171,966,464 more than a block's.  In a
 * block's backward it is the block's matrix again.
 */
static void test_quantized_head(void **state)
{
        (void)state;
        struct estimate_input in = qlora_7b(EST_FW_NONE);
        run(&in);
        uint64_t fwd = res.phase_total_bytes[EST_PHASE_FORWARD];
        uint64_t bwd = res.phase_total_bytes[EST_PHASE_BACKWARD];
        uint64_t blk = res.phase_total_bytes[EST_PHASE_BLOCK_BACKWARD];

        in = qlora_7b(EST_FW_LITGPT);
        run(&in);
        int64_t d_fwd = (int64_t)res.phase_total_bytes[EST_PHASE_FORWARD] - (int64_t)fwd;
        int64_t d_bwd = (int64_t)res.phase_total_bytes[EST_PHASE_BACKWARD] - (int64_t)bwd;
        int64_t d_blk = (int64_t)res.phase_total_bytes[EST_PHASE_BLOCK_BACKWARD] - (int64_t)blk;
        assert_true(llabs(d_fwd - (171966464ll - 188416000ll)) <= 2);
        assert_true(llabs(d_bwd - (171966464ll - 188416000ll)) <= 2);
        assert_true(llabs(d_blk + 188416000ll) <= 2);
}

/*
 * Gemma-style tied embeddings: litgpt builds lm_head as its own
 * nn.Linear, so its preset unties them; a 256,000 x 2,048 head adds
 * 524,288,000 parameters to the count.
 */
static void test_head_never_tied(void **state)
{
        (void)state;
        struct estimate_input in = qlora_7b(EST_FW_NONE);
        in.arch.vocab = 256000;
        in.arch.hidden = 2048;
        in.arch.heads = 8;
        in.arch.kv_heads = 1;
        in.arch.head_dim = 256;
        in.arch.ffn = 16384;
        in.arch.layers = 2;
        in.arch.tied_embeddings = true;
        in.mode = EST_LORA;
        in.quantization = EST_QUANT_NONE;
        run(&in);
        uint64_t tied = res.parameters;
        in.framework = EST_FW_LITGPT;
        estimate_apply_framework(&in);
        assert_false(in.arch.tied_embeddings);
        run(&in);
        assert_int_equal(res.parameters - tied, 524288000ull);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_quantized_head),
                cmocka_unit_test(test_head_never_tied),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
