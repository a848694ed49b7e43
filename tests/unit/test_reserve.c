/*
 * test_reserve.c - the caching allocator's reserve replayed over a
 * training step (core/reserve.c), on configurations whose allocation
 * trace can be followed by hand.
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

/* One LLaMA block of width h (heads of 64), MLP 256, a million-word
 * vocabulary so that the loss dominates; LoRA r = 8 on q and v, batch 1,
 * flash attention. */
static struct estimate_input one_block_lora(uint32_t h)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.arch.layers = 1;
        in.arch.hidden = h;
        in.arch.heads = in.arch.kv_heads = h / 64;
        in.arch.head_dim = 64;
        in.arch.ffn = 256;
        in.arch.vocab = 1000000;
        in.mode = EST_LORA;
        in.lora_rank = 8;
        in.lora_targets = EST_LORA_Q | EST_LORA_V;
        in.batch_size = 1;
        in.flash_attention = true;
        return in;
}

/* One tiny block under a 1,000,000-word vocabulary, LoRA (no trained
 * head, adapters of a few KiB), bf16 autocast, 4,096 tokens: the loss is
 * all that matters.  transformers' causal-LM loss, as the replay follows
 * it (n = 4096 x 10^6 logits):
 *   forward   bf16 logits (2n bytes, a new 2n segment), their fp32 copy
 *             (4n, new), the bf16 tensor freed (its segment now whole and
 *             free), fp32 log-probabilities (4n, new);
 *   backward  the log-probabilities' gradient (4n, new: nothing free
 *             holds 4n), the logits' (4n, new) - the peak: 16n allocated
 *             in four 4n segments, with the 2n segment free beside them;
 *             then the frees, and the bf16 gradient (2n) back in the 2n
 *             segment.
 * The second step reuses every segment as it is.  So reserved - allocated
 * = 2n = 8,192,000,000 bytes, and since that segment is whole, an
 * out-of-memory retry could release it: the run needs no more than it
 * allocates (within the few MiB of the block's own tensors). */
static void test_loss_leaves_compute_dtype_segment(void **state)
{
        (void)state;
        struct estimate_input in = one_block_lora(64);
        in.precision = EST_BF16_MIXED;
        in.sequence_length = 4096;
        run(&in);
        double two_n = 2.0 * 4096 * 1e6;
        double gap = (double)res.per_gpu_reserved_bytes - (double)res.per_gpu_allocated_bytes;
        assert_true(fabs(gap - two_n) < 0.01 * two_n);
        double held = (double)res.per_gpu_needed_bytes - 536870912.0 -
                      (double)res.per_gpu_allocated_bytes;
        assert_true(fabs(held) < 0.01 * two_n);
        bool noted = false;
        for (size_t i = 0; i < res.n_assumptions; i++)
                noted |= res.assumptions[i].code == EST_A_ALLOCATOR_REPLAY;
        assert_true(noted);
}

/* A request that states the reserve gets exactly that: 12% of the
 * allocated peak in the reserved and the needed bytes alike. */
static void test_stated_reserve(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 1024;
        in.allocator_reserve_fraction = 0.12;
        in.set |= EST_SET_RESERVE;
        run(&in);
        double a = (double)res.per_gpu_allocated_bytes;
        assert_true(fabs((double)res.per_gpu_reserved_bytes - 1.12 * a) < 16);
        assert_true(fabs((double)res.per_gpu_needed_bytes - 536870912.0 - 1.12 * a) < 16);
}

/* Whatever the configuration, the replay keeps its bounds: the part held
 * in split segments is within the reserve, the run needs no more than it
 * reserves, and nvidia-smi's total is the reserve plus the CUDA context.
 * Eager attention (BERT-style fp32 fine-tune), flash attention under
 * FSDP with op-level checkpointing and expandable segments, QLoRA, a
 * Gemma-2-style LoRA (four norms a block, capped scores and logits,
 * eager), a GPT-2-style fp32 fine-tune through gelu_new. */
static void test_bounds(void **state)
{
        (void)state;
        struct estimate_input in;
        for (int k = 0; k < 5; k++) {
                estimate_input_defaults(&in);
                in.arch = llama2_7b();
                in.batch_size = 2;
                in.sequence_length = 1024;
                if (k == 0) {
                        in.mode = EST_FINE_TUNE;
                        in.arch.layers = 12;
                        in.gradients_persist = true;
                } else if (k == 1) {
                        in.mode = EST_PRE_TRAIN;
                        in.precision = EST_BF16_MIXED;
                        in.flash_attention = true;
                        in.strategy = EST_FSDP;
                        in.fsdp_version = 2;
                        in.gpus = 8;
                        in.checkpointing = EST_CKPT_SELECTIVE_OP;
                        in.expandable_segments = true;
                } else if (k == 3) {
                        in.mode = EST_LORA;
                        in.precision = EST_BF16;
                        in.lora_targets = EST_LORA_Q | EST_LORA_V;
                        in.arch.layers = 8;
                        in.arch.block_norms = 4;
                        in.arch.attn_softcap = 50;
                        in.arch.final_softcap = 30;
                } else if (k == 4) {
                        in.mode = EST_FINE_TUNE;
                        in.precision = EST_FP32;
                        in.arch.layers = 8;
                        in.arch.gated_mlp = false;
                        in.arch.activation = MODEL_ACT_GELU_NEW;
                } else {
                        in.mode = EST_QLORA;
                        in.quantization = EST_QUANT_NF4;
                        in.precision = EST_BF16;
                        in.lora_rank = 16;
                        in.lora_targets = EST_LORA_Q | EST_LORA_K | EST_LORA_V | EST_LORA_O;
                        in.flash_attention = true;
                        in.checkpointing = EST_CKPT_FULL;
                }
                run(&in);
                double a = (double)res.per_gpu_allocated_bytes;
                double r = (double)res.per_gpu_reserved_bytes;
                double ctx = 536870912.0 + (in.gpus > 1 ? 392e6 : 0);
                double need = (double)res.per_gpu_needed_bytes - ctx;
                assert_true(r >= a && r <= 2 * a);
                assert_true(need >= a - 16 && need <= r + 16);
                assert_true(fabs((double)res.per_gpu_total_bytes - r - ctx) < 16);
        }
}

/* FSDP1 builds each unit on the GPU before sharding it
 * (_init_param_handle_from_module): the unit's tensors arrive whole, are
 * concatenated into a flat parameter, the rank's chunk is cloned and the
 * flat storage freed.  One small block (h = 1024, about 10 MB of weights)
 * under an untied 1,000,000-word vocabulary, LoRA on q and v, pure bf16,
 * FSDP1 over 2 GPUs, 16 tokens.  The root unit dominates:
 *   embedding and head       2 x 1,024,000,000 x 2 B, each a new segment
 *   flat parameter           4,096,000,000 B, a new segment
 *   originals freed          two free 2,048,000,000 B segments
 *   shard clone              2,048,000,000 B: the first of them, reused
 *   flat freed               a free 4,096,000,000 B segment
 * so after construction the compute stream holds the 2,048,000,000 B
 * shard (plus the block's few MB) and 2,048,000,000 + 4,096,000,000 B of
 * cached free segments: 8,192,000,000 B reserved.  Training on 16 tokens
 * needs far less than the cache on that stream, so max_memory_reserved is
 * those 8,192,000,000 B plus the gathered root unit in the all-gather
 * stream (communication_buffers).  The cached segments are whole and free:
 * an out-of-memory retry releases them, so the run needs only what it
 * allocates.  FSDP2 (meta-device init, sharded on creation) has no such
 * cache. */
static void test_fsdp1_construction_cache(void **state)
{
        (void)state;
        struct estimate_input in = one_block_lora(1024);
        in.arch.tied_embeddings = false;
        in.precision = EST_BF16;
        in.sequence_length = 16;
        in.strategy = EST_FSDP;
        in.fsdp_version = 1;
        in.gpus = 2;
        run(&in);
        double expect = 8192000000.0 + (double)res.per_gpu[EST_C_COMM];
        double r = (double)res.per_gpu_reserved_bytes;
        assert_true(fabs(r - expect) < 0.01 * 8192000000.0);
        double ctx = 536870912.0 + 392e6;
        double need = (double)res.per_gpu_needed_bytes - ctx;
        assert_true(fabs(need - (double)res.per_gpu_allocated_bytes) < 0.01 * 8192000000.0);

        in.fsdp_version = 2;
        run(&in);
        r = (double)res.per_gpu_reserved_bytes - (double)res.per_gpu_allocated_bytes;
        assert_true(r < 0.1 * 6144000000.0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_loss_leaves_compute_dtype_segment),
                cmocka_unit_test(test_stated_reserve),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_fsdp1_construction_cache),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
