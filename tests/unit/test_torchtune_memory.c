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
        struct model_arch a = small_llama(32000);
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

/*
 * OffloadActivations under full checkpointing, the decoder above with 8
 * blocks, its loss compiled, no allocator reserve (each phase total is the
 * sum of its tensors).  Per sample, a block's input is 2 x s x h = 2 x 512
 * x 1024 = 1,048,576 bytes; the final RMSNorm keeps its input upcast to
 * fp32, 4 x s x h = 2,097,152; the output head keeps its bf16 input,
 * 1,048,576.
 *
 * Without offload the end of forward holds all 8 block inputs, the norm's
 * and the head's: 8 x 1,048,576 + 2,097,152 + 1,048,576.  With it, the
 * five newest packed tensors stay in the forward stash (max_fwd_stash_size
 * 5; the norm's input among them, the rest block inputs, so five inputs'
 * worth) and the head's input, which NoOpManager keeps off the CPU:
 * 5 x 1,048,576 + 1,048,576.  Forward ends lighter by 3 x 1,048,576 +
 * 2,097,152 = 5,242,880 per sample, 10,485,760 for the batch.
 *
 * A block's backward held every checkpoint input, the norm's and the
 * head's beside the recomputed block; with offload only the block's
 * reloaded input: lighter by 7 x 1,048,576 + 2,097,152 + 1,048,576 =
 * 10,485,760 per sample, 20,971,520 for the batch.  The CPU holds what
 * left the GPU: 8 x 1,048,576 + 2,097,152 = 10,485,760 per sample,
 * 20,971,520.
 */
static void test_offload_with_full_checkpointing(void **state)
{
        (void)state;
        struct estimate_input in = torchtune_decoder();
        in.arch.layers = 8;
        in.compile = true;
        in.checkpointing = EST_CKPT_FULL;
        in.allocator_reserve_fraction = 0;
        in.set |= EST_SET_RESERVE;
        run(&in);
        uint64_t fwd = res.phase_total_bytes[EST_PHASE_FORWARD];
        uint64_t blk = res.phase_total_bytes[EST_PHASE_BLOCK_BACKWARD];
        assert_int_equal(res.cpu[EST_CPU_ACTIVATIONS], 0);

        in.activation_offload = true;
        run(&in);
        assert_int_equal(fwd - res.phase_total_bytes[EST_PHASE_FORWARD], 10485760ull);
        assert_int_equal(blk - res.phase_total_bytes[EST_PHASE_BLOCK_BACKWARD], 20971520ull);
        assert_int_equal(res.cpu[EST_CPU_ACTIVATIONS], 20971520ull);
}

/*
 * The head's weight gradient is made by the head's backward, after the
 * loss has run its own and freed its buffers: it is not part of the
 * start of backward.  The decoder above, trained in full (the head
 * trained: a 32,000 x 1,024 bf16 gradient of 65,536,000 bytes), eager
 * chunked loss, no checkpointing, no allocator reserve.  Weights,
 * activations and the rest are the same at the end of forward and at the
 * start of backward, so the two phases differ by the loss's buffers alone:
 * forward 6.5n, backward 4n + 8n / 8 = 5n (see above), n = 16,384,000:
 * the start of backward is 1.5n = 24,576,000 per sample lighter,
 * 49,152,000 for the batch.  (With the head's gradient there it would be
 * 65,536,000 - 49,152,000 heavier.)
 */
static void test_head_gradient_after_the_loss(void **state)
{
        (void)state;
        struct estimate_input in = torchtune_decoder();
        in.mode = EST_PRE_TRAIN;
        in.allocator_reserve_fraction = 0;
        in.set |= EST_SET_RESERVE;
        run(&in);
        assert_int_equal(res.phase_total_bytes[EST_PHASE_FORWARD] -
                                 res.phase_total_bytes[EST_PHASE_BACKWARD],
                         49152000ull);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_chunked_loss_compiled_and_eager),
                cmocka_unit_test(test_offload_with_full_checkpointing),
                cmocka_unit_test(test_head_gradient_after_the_loss),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
