/*
 * test_memory.c - the memory model (core/memory.c, core/derive.c): bytes per parameter,
 * activations, KV cache, sharding and quantized weights, against hand calculations.  Each expected
 * figure is derived in the comment beside it from the formula's source, not from the code.
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

#include <jansson.h>

#include "core/estimate.h"
#include "models/hf_config.h"

#include "engine_fixtures.h"

static struct estimate_result res;

static void run(const struct estimate_input *in, const struct gpu_spec *g, size_t n)
{
        run_into(&res, in, g, n);
}

/* No allocator reserve, stated as the caller's choice, so phase totals
 * are the sums of their tensors. */
static void no_reserve(struct estimate_input *in)
{
        in->allocator_reserve_fraction = 0;
        in->set |= EST_SET_RESERVE;
}

static uint64_t states(void)
{
        return res.per_gpu[EST_C_WEIGHTS] + res.per_gpu[EST_C_GRADIENTS] +
               res.per_gpu[EST_C_MASTER] + res.per_gpu[EST_C_OPTIMIZER];
}

/* A small GPT-shaped decoder: 4 blocks, h = 1024, 16 heads of 64, MLP
 * 4096 with tanh GELU, pre-norm LayerNorm, learned positions, a tied
 * 1,000-word vocabulary, no dropout. */
static struct model_arch small_gpt(void)
{
        struct model_arch a;
        memset(&a, 0, sizeof(a));
        a.kind = MODEL_DECODER;
        a.layers = 4;
        a.hidden = 1024;
        a.heads = 16;
        a.kv_heads = 16;
        a.head_dim = 64;
        a.ffn = 4096;
        a.activation = MODEL_ACT_GELU_TANH;
        a.vocab = 1000;
        a.max_positions = 1024;
        a.norm = MODEL_NORM_LAYERNORM;
        a.pre_norm = true;
        a.final_norm = true;
        a.tied_embeddings = true;
        a.position = MODEL_POS_LEARNED;
        return a;
}

/* "Hardware for ML Practitioners": Adam in mixed precision is 16 bytes per parameter before
 * activations (2 fp16 weights + 2 fp16 gradients + 4 fp32 master + 4 + 4
 * Adam moments; PyTorch AMP: 4 fp32 weights + 4 fp32 gradients + 8): a 7B
 * model needs 7e9 x 16 = 112 GB; LLaMA-2-7B exactly 16 x 6,738,415,616. */
static void test_adam_mixed_16_bytes_per_param(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.optimizer = EST_OPT_ADAMW;
        in.batch_size = 1;
        in.sequence_length = 16;
        run(&in, NULL, 0);
        /* The optimizer step holds every state: read it there. */
        assert_int_equal(res.peak_phase, EST_PHASE_OPTIMIZER);
        assert_int_equal(states(), (uint64_t)(16 * P7));
        /* DeepSpeed ZeRO-1 on one GPU keeps the ZeRO paper's split: 2 + 2 + 4 + 8. */
        in.strategy = EST_ZERO1;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS], (uint64_t)(2 * P7));
        assert_int_equal(res.per_gpu[EST_C_MASTER], (uint64_t)(4 * P7));
        assert_int_equal(states(), (uint64_t)(16 * P7));
}

/* The seed's own figure, from the engine: a bare {"parameters": 7e9} is a
 * model of exactly 7,000,000,000 parameters, and Adam in mixed precision
 * holds 16 x 7e9 = 112,000,000,000 bytes of weights, gradients and
 * states at the optimizer step (PyTorch AMP: 4 + 4 + 8 per parameter). */
static void test_seed_7b_adam_is_112e9(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        assert_int_equal(model_arch_from_parameters(7000000000ull, &in.arch), 0);
        in.parameters_hint = 7000000000ull;
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.optimizer = EST_OPT_ADAMW;
        in.batch_size = 1;
        in.sequence_length = 16;
        run(&in, NULL, 0);
        assert_int_equal(res.parameters, 7000000000ull);
        assert_int_equal(res.peak_phase, EST_PHASE_OPTIMIZER);
        assert_int_equal(states(), 112000000000ull);
        assert_int_equal(res.per_gpu[EST_C_OPTIMIZER], 56000000000ull);
}

/* "Hardware for ML Practitioners": fp16 weights of a 7B model are 14 GB: 2 bytes x parameters. */
static void test_fp16_weights(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_INFERENCE;
        in.precision = EST_FP16;
        in.batch_size = 1;
        in.sequence_length = 1;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS], (uint64_t)(2 * P7));
        /* The seed's 7B: 2 x 7e9 = 14,000,000,000 bytes. */
        assert_int_equal(model_arch_from_parameters(7000000000ull, &in.arch), 0);
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS], 14000000000ull);
}

/* "Hardware Requirements for Training of Language Models": optimizer states for a 3B model, fp32 training (states not
 * halved), read from the engine's output:
 *   AdamW: exp_avg + exp_avg_sq, 4 + 4 bytes:       8 x 3e9 = 24e9
 *   Adafactor (beta1 set, as the seed assumes: runtime.adafactor_beta1):
 *     4-byte first moment + factored second moment (a row and a column per
 *     matrix, Shazeer & Stern 2018): about 4 x 3e9 = 12e9 ("about 12 GB")
 *   8-bit Adam: two 1-byte states + an fp32 absmax per 2048 (Dettmers et
 *     al. 2022): 2.004 x 3e9, about 6e9
 *   SGD with momentum and Lion: one fp32 buffer, 12e9; SGD none.
 * Within 1% of the seed's figures. */
static void test_optimizer_states_3b(void **state)
{
        (void)state;
        static const struct {
                enum est_optimizer opt;
                double expect_bytes;
        } rows[] = {
                {EST_OPT_ADAMW, 24e9},        {EST_OPT_ADAFACTOR, 12e9}, {EST_OPT_ADAMW_8BIT, 6e9},
                {EST_OPT_SGD_MOMENTUM, 12e9}, {EST_OPT_LION, 12e9},      {EST_OPT_SGD, 0.0},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct estimate_input in;
                estimate_input_defaults(&in);
                assert_int_equal(model_arch_from_parameters(3000000000ull, &in.arch), 0);
                in.mode = EST_FINE_TUNE;
                in.precision = EST_FP32;
                in.optimizer = rows[i].opt;
                in.adafactor_first_moment = true;
                in.batch_size = 1;
                in.sequence_length = 8;
                in.set |= EST_SET_OPTIMIZER;
                run(&in, NULL, 0);
                assert_int_equal(res.parameters, 3000000000ull);
                /* The step phase may not be the peak for SGD; states are
                 * present in every training phase. */
                double got = (double)res.per_gpu[EST_C_OPTIMIZER];
                double want = rows[i].expect_bytes;
                if (fabs(got - want) > 0.01 * want + 1)
                        fail_msg("%s: %.4g bytes, expected %.4g",
                                 estimate_optimizer_name(rows[i].opt), got, want);
        }
}

/* Activations per block, Korthikanti et al. 2022 eq. 1 with 2-byte
 * elements, MHA, f = 4h, dropout: s*b*h*(34 + 5*a*s/h).
 *   h = 1024, a = 16, s = 512, b = 2, L = 4:
 *   sbh = 512 * 2 * 1024 = 1,048,576; a*s/h = 8; 34 + 40 = 74
 *   per block 77,594,624; four blocks 310,378,496
 * plus the edges of a decoder LM: embedding dropout mask (1 byte), final
 * LayerNorm input (2) and head input (2): 5 * s*b*h = 5,242,880
 *   total 315,621,376.
 * Logits (fp32 cross-entropy, start of backward): 4 copies x 4 bytes x
 * b*s*V = 16 * 2 * 512 * 1000 = 16,384,000. */
static void test_activations_korthikanti(void **state)
{
        (void)state;
        struct estimate_input in;
        struct model_arch a = small_gpt();
        a.dropout = 0.1f;
        estimate_input_defaults(&in);
        in.arch = a;
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16; /* pure 2-byte activations, as in the paper */
        in.optimizer = EST_OPT_SGD;
        in.batch_size = 2;
        in.sequence_length = 512;
        run(&in, NULL, 0);
        /* Eager attention: backward through the last block holds, beside
         * every activation, the softmax's gradient pair - an fp32 gradient
         * in, a bf16 one out (transformers' softmax in fp32 over bf16
         * scores): 6 bytes x 16 heads x 512^2 = 25,165,824 per sample,
         * more than the loss buffers (16n = 16 x 512 x 1,000 = 8,192,000):
         * that phase is the peak. */
        assert_int_equal(res.peak_phase, EST_PHASE_BLOCK_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], 315621376);
        assert_int_equal(res.per_gpu[EST_C_WORKSPACE], 2 * 25165824);

        /* Selective recomputation drops the 5as/h term: 34 * sbh per block
         * = 35,651,584 x 4 = 142,606,336, + 5,242,880 = 147,849,216. */
        in.checkpointing = EST_CKPT_SELECTIVE;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], 147849216);

        /* Flash attention keeps a 4*a*s fp32 log-sum-exp per sample instead
         * of the scores: 4 * 16 * 512 * 2 = 65,536 per block:
         * 142,606,336 + 4 * 65,536 + 5,242,880 = 148,111,360. */
        in.checkpointing = EST_CKPT_NONE;
        in.flash_attention = true;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], 148111360);

        /* Full recomputation keeps each block's input and recomputes one
         * block at a time, when autograd reaches it: after the loss and
         * the head have run their backward and freed the logit gradients.
         * Per sample: inputs 2 * s*h * 4 blocks = 4,194,304; one flash
         * block 34 * s*h + 4*a*s = 17,858,560; edges 5 * s*h = 2,621,440;
         * total 24,674,304, x 16 samples = 394,788,864 at the peak, backward
         * through the last block, with the gradients flowing through it:
         * the MLP's pair, 2 x 2 B x s x ffn = 8,388,608 per sample (the
         * fused attention's output gradient with dQ, dK, dV is 4 x 2 B x
         * s*h = 4,194,304), 134,217,728.  The start of backward holds the
         * loss buffers instead of both: 16n = 16 * 512 * 1,000 = 8,192,000
         * per sample; the head's gradient (1,000 x 1,024 x 2 = 2,048,000)
         * is made by the head's backward, after the loss's, so it is in
         * the block's backward only.  With no allocator reserve the two
         * phases differ by 16 * (17,858,560 + 8,388,608 - 8,192,000) +
         * 2,048,000 = 290,930,688. */
        in.checkpointing = EST_CKPT_FULL;
        in.batch_size = 16;
        no_reserve(&in);
        run(&in, NULL, 0);
        assert_int_equal(res.peak_phase, EST_PHASE_BLOCK_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], 394788864);
        assert_int_equal(res.per_gpu[EST_C_WORKSPACE], 134217728);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 0);
        assert_int_equal(res.phase_total_bytes[EST_PHASE_BLOCK_BACKWARD] -
                                 res.phase_total_bytes[EST_PHASE_BACKWARD],
                         290930688);
        in.batch_size = 2;
        in.set &= ~EST_SET_RESERVE;

        /* Tensor parallel t = 2 (Korthikanti eq. 2): 10 * sbh stays
         * replicated, 24 * sbh (+ scores) is halved. */
        in.checkpointing = EST_CKPT_SELECTIVE;
        in.flash_attention = false;
        in.tensor_parallel = 2;
        in.gpus = 2;
        run(&in, NULL, 0);
        /* per block sbh * (10 + 24/2) = 23,068,672; x 4 = 92,274,688;
         * edges / t = 2,621,440 -> 94,896,128. */
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], 94896128);
}

/* Eager autocast over fp32 weights: the norm outputs stay fp32 and
 * autocast caches only the weights' casts, so separate Q, K and V
 * projections each keep their own bf16 copy of the attention input, and
 * separate gate and up projections two of the MLP input.  A 4-block
 * decoder, h = 1024, 512 tokens, batch 2: each copy beyond the first is
 * 2 B x 512 x 1024 = 1,048,576 bytes per sample and block.
 *   separate Q, K, V (LLaMA) vs fused c_attn (GPT-2): 2 copies,
 *     2 x 1,048,576 x 4 blocks x 2 samples = 16,777,216
 *   and gated MLP, separate gate/up (LLaMA) vs fused qkv_proj and
 *     gate_up_proj (Phi-3): 3 copies, 25,165,824
 * torch.compile's graph casts once: no difference. */
static void test_autocast_input_copies(void **state)
{
        (void)state;
        struct estimate_input in;
        struct model_arch a = small_gpt();
        estimate_input_defaults(&in);
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.optimizer = EST_OPT_SGD;
        in.flash_attention = true;
        in.batch_size = 2;
        in.sequence_length = 512;
        for (int compile = 0; compile < 2; compile++) {
                for (int gated = 0; gated < 2; gated++) {
                        in.compile = compile;
                        a.gated_mlp = gated;
                        strcpy(a.model_type, "llama");
                        in.arch = a;
                        run(&in, NULL, 0);
                        enum est_phase phase = res.peak_phase;
                        uint64_t separate = res.per_gpu[EST_C_ACTIVATIONS];
                        strcpy(a.model_type, gated ? "phi3" : "gpt2");
                        in.arch = a;
                        run(&in, NULL, 0);
                        assert_int_equal(res.peak_phase, phase);
                        uint64_t want = compile ? 0 : gated ? 25165824 : 16777216;
                        assert_int_equal(separate - res.per_gpu[EST_C_ACTIVATIONS], want);
                }
        }
}

/* How much more the forward phase totals (no allocator reserve: at the
 * end of forward every saved activation is alive at once) with model to
 * than with model from. */
static int64_t forward_delta(struct estimate_input *in, const struct model_arch *from,
                             const struct model_arch *to)
{
        uint64_t before;
        no_reserve(in);
        in->arch = *from;
        run(in, NULL, 0);
        before = res.phase_total_bytes[EST_PHASE_FORWARD];
        in->arch = *to;
        run(in, NULL, 0);
        return (int64_t)res.phase_total_bytes[EST_PHASE_FORWARD] - (int64_t)before;
}

/*
 * What transformers' eager modules keep beyond the block formula, on the
 * small GPT at batch 2 x 512 tokens (4 blocks, h 1024, 16 heads, MLP 4096,
 * vocabulary 1,000): each check compares two requests that differ in one
 * thing, at the end of forward.
 */
static void test_hf_eager_extras(void **state)
{
        (void)state;
        struct estimate_input in;
        struct model_arch a = small_gpt(), b;
        estimate_input_defaults(&in);
        in.mode = EST_FINE_TUNE;
        in.optimizer = EST_OPT_SGD;
        in.batch_size = 2;
        in.sequence_length = 512;
        in.flash_attention = true;

        /* gelu_new (NewGELUActivation) keeps tanh(.), 0.5 x and 1 + tanh(.)
         * beyond its input: in fp32 3 x 4 bytes x 512 x 4096 x 2 samples x
         * 4 blocks = 201,326,592. */
        in.precision = EST_FP32;
        b = a;
        b.activation = MODEL_ACT_GELU_NEW;
        assert_int_equal(forward_delta(&in, &a, &b), 201326592);
        /* Under autocast pow runs in fp32: its fp32 copy of x, tanh and
         * 1 + tanh at 4 bytes, 0.5 x at 2: 14 x 512 x 4096 x 2 x 4 =
         * 234,881,024. */
        in.precision = EST_BF16_MIXED;
        assert_int_equal(forward_delta(&in, &a, &b), 234881024);
        /* A compiled block fuses the chain. */
        in.compile = true;
        in.set |= EST_SET_COMPILE;
        assert_int_equal(forward_delta(&in, &a, &b), 0);
        in.compile = false;

        /* Two more norms per block (Gemma 2) keep their inputs: a pure bf16
         * LayerNorm keeps 2 bytes, 2 x 2 x 512 x 1024 x 2 x 4 =
         * 16,777,216; their weights and biases add 2 x 2 x 1024 x 4 blocks
         * x 2 bytes = 32,768. */
        in.precision = EST_BF16;
        b = a;
        b.block_norms = 4;
        assert_int_equal(forward_delta(&in, &a, &b), 16777216 + 32768);

        /* The final soft cap keeps tanh's bf16 result: 2 x 512 x 1,000 x 2
         * = 2,048,000 at the end of forward. */
        b = a;
        b.final_softcap = 30;
        assert_int_equal(forward_delta(&in, &a, &b), 2048000);

        /* Eager attention of a rotary decoder: the fp32 softmax (4 bytes)
         * and its bf16 copy (2) instead of GPT-2's bf16 softmax (2): 4 more
         * bytes x 16 heads x 512^2 x 2 x 4 = 134,217,728, less the learned
         * position table rotary positions do without (1024 x 1024 x 2
         * bytes = 2,097,152).  A score cap adds tanh's bf16 result: 2 x 16
         * x 512^2 x 2 x 4 = 67,108,864. */
        in.flash_attention = false;
        b = a;
        b.position = MODEL_POS_ROTARY;
        assert_int_equal(forward_delta(&in, &a, &b), 134217728 - 2097152);
        a = b;
        b.attn_softcap = 50;
        assert_int_equal(forward_delta(&in, &a, &b), 67108864);
}

/* KV cache (inference): 2 (K and V) x layers x kv_heads x head_dim x bytes
 * x tokens x batch.  LLaMA-2-7B, fp16, 4096 tokens, batch 1:
 * 2 * 32 * 32 * 128 * 2 * 4096 = 2,147,483,648 bytes = 2 GiB; with 8 KV
 * heads (GQA) a quarter; an fp8 cache half again. */
/* A fine-tune of a over 2 x 512 tokens in pure bf16 with SGD (no
 * optimizer states), no allocator reserve: each phase total is the sum of
 * its tensors. */
static struct estimate_input bf16_fine_tune(struct model_arch a)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = a;
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_SGD;
        in.batch_size = 2;
        in.sequence_length = 512;
        no_reserve(&in);
        return in;
}

/* Chunked loss (torchtune CEWithChunkedOutputLoss, 8 chunks, its
 * cross-entropy compiled; torchtune pull request #1390).  Decoder of 4
 * blocks, vocabulary 1,000, sequence 512, batch 2, pure bf16: n = s x V =
 * 512,000 logits per sample.
 *   Unchunked, start of backward: fp32 logits, fp32 log-probabilities and
 *   both gradients, 4 x 4n = 16n = 8,192,000 per sample, 16,384,000.
 *   Chunked: every chunk's bf16 logits stay saved until its loss node runs
 *   in backward, which frees them as it hands out that chunk's bf16
 *   gradient, so logits + gradients stay at 2n + 2n/8 = 1,152,000; the
 *   fp32 upcast and log-probabilities of one chunk add 2 x 4n/8 = 512,000:
 *   1,664,000 per sample, 3,328,000 for the batch.  (Counting the bf16
 *   logits and their gradient both in full would give 4n + 512,000 =
 *   2,560,000 per sample.) */
static void test_chunked_loss(void **state)
{
        (void)state;
        /* the start of backward, read as its phase total with no
         * allocator reserve: chunking takes 16,384,000 - 3,328,000 off it */
        struct estimate_input in = bf16_fine_tune(small_gpt());
        run(&in, NULL, 0);
        uint64_t whole = res.phase_total_bytes[EST_PHASE_BACKWARD];
        in.chunked_loss = true;
        run(&in, NULL, 0);
        assert_int_equal(whole - res.phase_total_bytes[EST_PHASE_BACKWARD], 16384000 - 3328000);
}

/*
 * Whether the training loop still holds the model's output at backward.
 * The small GPT, pure bf16, batch 2 x 512 tokens, vocabulary 1,000: n =
 * 512,000 logits per sample.  With fp32 logits the output is the fp32
 * copy (4n bytes); a loop that lets it go before backward (HF Trainer's
 * compute_loss returns the loss alone) starts backward from the saved
 * log-probabilities and the two gradients: 4 x 512,000 x 2 samples =
 * 4,096,000 less at the start of backward.  With the upcast inside the
 * loss the output is the bf16 logits: 2 x 512,000 x 2 = 2,048,000.
 */
static void test_model_output_kept(void **state)
{
        (void)state;
        struct estimate_input in = bf16_fine_tune(small_gpt());
        in.flash_attention = true;
        assert_true(in.output_kept); /* the default: a loop of its own keeps it */
        run(&in, NULL, 0);
        uint64_t kept = res.phase_total_bytes[EST_PHASE_BACKWARD];
        in.output_kept = false;
        run(&in, NULL, 0);
        assert_int_equal(kept - res.phase_total_bytes[EST_PHASE_BACKWARD], 4096000);

        in.logits = EST_LOGITS_UPCAST_IN_LOSS;
        run(&in, NULL, 0);
        uint64_t dropped = res.phase_total_bytes[EST_PHASE_BACKWARD];
        in.output_kept = true;
        run(&in, NULL, 0);
        assert_int_equal(res.phase_total_bytes[EST_PHASE_BACKWARD] - dropped, 2048000);

        /* The presets: HF Trainer drops it, accelerate's loop keeps it; a
         * stated value wins. */
        estimate_input_defaults(&in);
        in.framework = EST_FW_HF_TRAINER;
        estimate_apply_framework(&in);
        assert_false(in.output_kept);
        assert_true(in.framework_set & (1u << EST_FWS_OUTPUT_KEPT));
        estimate_input_defaults(&in);
        in.framework = EST_FW_ACCELERATE;
        estimate_apply_framework(&in);
        assert_true(in.output_kept);
        estimate_input_defaults(&in);
        in.framework = EST_FW_HF_TRAINER;
        in.set |= EST_SET_OUTPUT_KEPT;
        estimate_apply_framework(&in);
        assert_true(in.output_kept);
}

/*
 * An encoder-decoder trained on targets shorter than its inputs.  A small
 * T5-like model: 2 + 2 blocks, h = 512, 8 heads of 64, ReLU MLP 2048,
 * RMSNorm, relative positions, vocabulary 1,000, no dropout, pure bf16
 * (B = 2), eager attention (transformers' fp32 softmax over bf16 scores
 * keeps 4 + 2 = 6 bytes per score), batch 2, 512 input tokens.
 *
 * A decoder block over x tokens that attends to S encoder tokens keeps,
 * per sample (RMSNorm inputs at 4 bytes):
 *   self-attention: QKV input 2*512x, Q K V 2*1536x, attention output
 *     2*512x, scores 6*8*x^2; MLP input 2*512x, MLP 2*2*2048x; two norms
 *     2*4*512x: 18,432x + 48x^2
 *   cross-attention: query input 2*512x and its norm 4*512x, Q and the
 *     attention output 2*2*512x, K and V over the encoder 2*2*512*S,
 *     scores 6*8*x*S: 5,120x + 2,048S + 48xS
 * S = 512: x = 512 gives 38,273,024, x = 128 gives 7,995,392; the two
 * decoder blocks of 2 samples differ by 4 x 30,277,632 = 121,110,528.
 * The final norm and head input over the decoder's tokens, (4 + 2) x 512
 * x 384 x 2 = 2,359,296; the fp32 logits and log-probabilities, 8 x 384
 * x 1,000 x 2 = 6,144,000.  At the end of forward: 129,613,824 less.
 */
static void test_target_length(void **state)
{
        (void)state;
        struct model_arch a = small_gpt(); /* resized and made a T5 */
        a.kind = MODEL_ENCODER_DECODER;
        a.layers = a.decoder_layers = 2;
        a.hidden = 512;
        a.heads = a.kv_heads = 8;
        a.ffn = 2048;
        a.activation = MODEL_ACT_RELU;
        a.norm = MODEL_NORM_RMSNORM;
        a.position = MODEL_POS_RELATIVE;
        a.tied_embeddings = false;
        struct estimate_input in = bf16_fine_tune(a);
        run(&in, NULL, 0);
        uint64_t same = res.phase_total_bytes[EST_PHASE_FORWARD];
        double flops_same = res.flops_per_step;
        bool said = false; /* the default is stated */
        for (size_t i = 0; i < res.n_assumptions; i++)
                said |= res.assumptions[i].code == EST_A_DEFAULT_TARGET &&
                        res.assumptions[i].a == 512;
        assert_true(said);
        in.target_length = 512; /* stated equal to the input: nothing changes */
        run(&in, NULL, 0);
        assert_int_equal(res.phase_total_bytes[EST_PHASE_FORWARD], same);
        in.target_length = 128;
        run(&in, NULL, 0);
        assert_int_equal(same - res.phase_total_bytes[EST_PHASE_FORWARD], 129613824);
        /* Matmul work: an encoder block's weights 4 x 512^2 + 2 x 512 x
         * 2048 = 3,145,728 (x 2 blocks = 6,291,456) at 512 tokens; a
         * decoder block's 8 x 512^2 + 2 x 512 x 2048 = 4,194,304 (x 2 =
         * 8,388,608) plus the head's 512,000, at 128 tokens instead: the
         * FLOPs scale by (6,291,456 + 8,900,608 / 4) / 15,192,064 =
         * 0.560614... */
        assert_true(fabs(res.flops_per_step / flops_same - 8516608.0 / 15192064.0) < 1e-9);

        /* A decoder has no separate target. */
        in.arch = small_gpt();
        struct estimate_error err;
        assert_int_equal(estimate_run(&in, NULL, 0, &res, &err), -1);
        assert_string_equal(err.pointer, "/workload/target_length");
}

static void test_kv_cache(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_INFERENCE;
        in.precision = EST_FP16;
        in.flash_attention = true;
        in.batch_size = 1;
        in.sequence_length = 4096;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_KV_CACHE], 2147483648ull);
        in.arch.kv_heads = 8;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_KV_CACHE], 536870912ull);
        in.kv_dtype = EST_KV_FP8;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_KV_CACHE], 268435456ull);
        /* Tensor parallel 4 splits the 8 KV heads 2 per GPU. */
        in.tensor_parallel = 4;
        in.gpus = 4;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_KV_CACHE], 67108864ull);
}

/* ZeRO divides by the data-parallel degree, not by all GPUs: 8 GPUs with
 * tensor parallel 2 are 4 data-parallel ranks.  ZeRO-1 optimizer states
 * per GPU = P/t * 8 / dp.  DDP keeps a bucket copy of the gradients. */
static void test_zero_divides_by_dp(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 16;
        in.strategy = EST_ZERO1;
        in.gpus = 8;
        in.tensor_parallel = 2;
        run(&in, NULL, 0);
        double expect = P7 / 2 * 8 / 4;
        assert_true(fabs((double)res.per_gpu[EST_C_OPTIMIZER] - expect) <= 2);

        /* DDP on 2 GPUs (AMP): gradient buckets = fp32 gradients = 4 P.
         * NCCL's own buffers (392 MB, AIConfigurator's measurement) are
         * outside PyTorch's allocator: in the total beside the 512 MiB
         * CUDA context, not in the allocated peak. */
        in.strategy = EST_DDP;
        in.gpus = 2;
        in.tensor_parallel = 1;
        run(&in, NULL, 0);
        assert_true(fabs((double)res.per_gpu[EST_C_COMM] - 4 * P7) <= 2);
        assert_true(fabs((double)res.per_gpu_total_bytes - (double)res.per_gpu_reserved_bytes -
                         (392e6 + 536870912.0)) <= 2);
}

/* QLoRA base weights: NF4 with double quantization is
 * 4 + 8/64 + 32/(64*256) = 4.127 bits per block weight (Dettmers et al.
 * 2023); embeddings and the head stay bf16.  LLaMA-2-7B:
 *   block matrices 32 * (4*4096^2 + 3*4096*11008) = 6,476,005,376
 *   -> x 4.127/8 bytes; norms 32*8192 + 4096 = 266,240 and embeddings +
 *   head 262,144,000 at 2 bytes. */
static void test_qlora_weights(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_QLORA;
        in.quantization = EST_QUANT_NF4;
        in.double_quant = true;
        in.precision = EST_BF16;
        in.lora_rank = 8;
        in.lora_targets = EST_LORA_Q | EST_LORA_V;
        in.batch_size = 1;
        in.sequence_length = 256;
        run(&in, NULL, 0);
        double bits = 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
        double base = 6476005376.0 * bits / 8 + (266240.0 + 262144000.0) * 2;
        /* LoRA r=8 on q and v: 32 * 2 * 8 * (4096 + 4096) = 4,194,304
         * adapters, kept in bf16 here (pure bf16 recipe): 8,388,608 bytes. */
        assert_int_equal(res.trainable_parameters, 4194304);
        double got = (double)res.per_gpu[EST_C_WEIGHTS];
        assert_true(fabs(got - (base + 8388608.0)) < 2);
}

/* QLoRA: bitsandbytes' MatMul4Bit keeps each 4-bit matmul's input for
 * backward (ctx.tensors = (A, B)), which frozen bf16 layers do not: per
 * block B*s*(2h + q + f).  LLaMA-2-7B, bf16, s = 256, b = 1:
 *   2 * 256 * (2*4096 + 4096 + 11008) = 11,927,552 per block.
 * The LoRA run it is compared with (PEFT, adapters on q and v in fp32)
 * keeps a 4-byte copy of the q and v input, 4 * 256 * 8192 = 8,388,608,
 * and not the norm outputs into Q/K/V and into the MLP nor the product
 * into down, which only frozen matrices read: 2 * 256 * (2*4096 + 11008)
 * = 9,830,400 less, so QLoRA keeps 1,441,792 more per block on top:
 *   32 x 13,369,344 = 427,819,008 bytes. */
static void test_qlora_saved_inputs(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_LORA;
        in.precision = EST_BF16;
        in.flash_attention = true;
        in.batch_size = 1;
        in.sequence_length = 256;
        run(&in, NULL, 0);
        uint64_t lora = res.per_gpu[EST_C_ACTIVATIONS];
        in.mode = EST_QLORA;
        in.quantization = EST_QUANT_NF4;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS] - lora, 427819008ull);
        /* torchtune's QLoRA runs torchao's linear_nf4, which keeps only the
         * weight: the same activations as torchtune's LoRA run.  The
         * framework's other defaults are stated, so only the 4-bit kernel
         * differs. */
        in.framework = EST_FW_TORCHTUNE;
        in.checkpointing = EST_CKPT_NONE;
        in.chunked_loss = false;
        in.set |= EST_SET_PRECISION | EST_SET_CHECKPOINTING | EST_SET_FLASH | EST_SET_CHUNKED_LOSS;
        run(&in, NULL, 0);
        uint64_t qlora = res.per_gpu[EST_C_ACTIVATIONS];
        in.mode = EST_LORA;
        in.quantization = EST_QUANT_NONE;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], qlora);
}

/* The runtime a measurement ran under: gradients kept between steps
 * (zero_grad(set_to_none=False), PyTorch < 2.0) are alive during forward;
 * a stated CUDA context and allocator reserve replace the defaults, so
 * total = allocated x (1 + reserve) + context exactly. */
static void test_runtime_overrides(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.precision = EST_BF16; /* pure bf16: 2-byte gradients */
        in.optimizer = EST_OPT_SGD;
        in.batch_size = 4;
        in.sequence_length = 512;
        run(&in, NULL, 0);
        /* Without persistence neither the end of forward nor the start of
         * backward holds a gradient: the head's (32000 x 4096 x 2 bytes)
         * is made by the head's backward, after the loss's. */
        assert_int_equal(res.peak_phase, EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_GRADIENTS], 0);
        in.gradients_persist = true;
        run(&in, NULL, 0);
        /* Now every gradient is alive: 2 x 6,738,415,616 bytes. */
        assert_int_equal(res.peak_phase, EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_GRADIENTS], (uint64_t)(2 * P7));

        in.cuda_context_bytes = 1343.0 * 1048576; /* measured on a V100, eager loading */
        in.allocator_reserve_fraction = 0;
        in.set |= EST_SET_CONTEXT | EST_SET_RESERVE;
        run(&in, NULL, 0);
        assert_int_equal(res.per_gpu_total_bytes - res.per_gpu_allocated_bytes, 1343ull * 1048576);
}

/* Pipeline parallelism, 1F1B: the first stage holds the embeddings and
 * min(m, p) micro-batches of activations, the last the head, one
 * micro-batch and the logits.  LLaMA-2-7B, pure bf16, p = 2, b = 2 in
 * m = 2 micro-batches:
 *   weights, either stage: blocks 6,476,005,376 / 2 + norms 266,240 / 2
 *   + one 32000 x 4096 table (embeddings or head) = 3,369,207,808
 *   parameters x 2 bytes = 6,738,415,616 bytes.
 * With the 32k vocabulary the first stage sets the peak (no logits).
 * With a 1,000,000-token vocabulary and 1,024 tokens the last does: its
 * fp32 loss buffers are 16 x s x V = 16 x 1,024 x 1e6 = 16,384,000,000
 * bytes for its one micro-batch of one sample, more than the embeddings'
 * gradient (1e6 x 4096 x 2 = 8,192,000,000) the first stage ends its
 * backward with. */
static void test_pipeline_stages(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_SGD;
        in.batch_size = 2;
        in.sequence_length = 512;
        in.gpus = 2;
        in.pipeline_parallel = 2;
        in.micro_batches = 2;
        run(&in, NULL, 0);
        assert_int_equal(res.pipeline_stage, 0);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS], 6738415616ull);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 0);
        in.arch.vocab = 1000000;
        in.sequence_length = 1024;
        run(&in, NULL, 0);
        assert_int_equal(res.pipeline_stage, 1);
        assert_int_equal(res.peak_phase, EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 16384000000ull);
}

/* A published config.json kept with the Hub fixtures, imported. */
static struct model_arch hub_arch(const char *file)
{
        char path[512];
        json_error_t je;
        char err[300];
        struct model_arch a;
        snprintf(path, sizeof(path), "%s/tests/integration/hub/configs/%s", GPUPLAN_SOURCE_DIR,
                 file);
        json_t *cfg = json_load_file(path, 0, &je);
        if (!cfg)
                fail_msg("%s: %s", path, je.text);
        if (hf_config_import(cfg, &a, err, sizeof(err)))
                fail_msg("%s: %s", file, err);
        json_decref(cfg);
        return a;
}

/*
 * MXFP4 as gpt-oss ships it: the routed experts' matrices in 4-bit e2m1
 * with one 8-bit scale per 32 (4.25 bits, OCP MX v1.0), everything else
 * bf16 (modules_to_not_convert in the config).  The published checkpoints:
 * "Checkpoint Size 60.8GiB 12.8GiB" for 120b and 20b, the last row of table 1
 * ("Model parameter counts", section 2) of the gpt-oss-120b & gpt-oss-20b
 * Model Card (OpenAI, 2025-08-05, arXiv:2508.10925v1), whose rows above it
 * give 116.83B and 20.91B total parameters.
 *   20b: experts 24 x 32 x 3 x 2880 x 2880 = 19,110,297,600 weights x
 *        4.25 / 8 = 10,152,345,600 bytes; the other 20,914,757,184 -
 *        19,110,297,600 = 1,804,459,584 parameters (the Hub's BF16 total) x 2
 *        = 3,608,919,168; in all 13,761,264,768 bytes = 12.82 GiB.
 *   120b: experts 36 x 128 x 3 x 2880 x 2880 = 114,661,785,600 x 4.25 / 8 =
 *        60,914,073,600 bytes; the other 2,167,371,072 x 2 = 4,334,742,144;
 *        in all 65,248,815,744 bytes = 60.77 GiB.
 * Read as int4 with a scale per 32 over every block matrix (as before) the
 * attention would be 4-bit too and the 20b would be about 12.2 GiB.
 */
static void test_mxfp4_gpt_oss_checkpoint(void **state)
{
        (void)state;
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.mode = EST_INFERENCE;
        in.quantization = EST_QUANT_MXFP4;
        in.batch_size = 1;
        in.sequence_length = 128;
        in.arch = hub_arch("openai__gpt-oss-20b.json");
        run(&in, NULL, 0);
        double w = (double)res.per_gpu[EST_C_WEIGHTS];
        if (fabs(w - 13761264768.0) > 2)
                fail_msg("gpt-oss-20b weights %.0f, expected 13,761,264,768", w);
        if (fabs(w / 1073741824.0 - 12.8) > 0.05)
                fail_msg("gpt-oss-20b %.2f GiB against the card's 12.8", w / 1073741824.0);
        in.arch = hub_arch("openai__gpt-oss-120b.json");
        run(&in, NULL, 0);
        w = (double)res.per_gpu[EST_C_WEIGHTS];
        if (fabs(w - 65248815744.0) > 2)
                fail_msg("gpt-oss-120b weights %.0f, expected 65,248,815,744", w);
        if (fabs(w / 1073741824.0 - 60.8) > 0.05)
                fail_msg("gpt-oss-120b %.2f GiB against the card's 60.8", w / 1073741824.0);
        /* A dense model has no routed experts to store in MXFP4: refused. */
        struct estimate_error e;
        in.arch = llama2_7b();
        assert_int_equal(estimate_run(&in, NULL, 0, &res, &e), -1);
        assert_string_equal(e.pointer, "/quantization");
}

/* What one image per sample adds to the forward phase's bytes and to
 * the FLOPs of a step, against none. */
static void one_image_more(struct estimate_input *in, uint64_t *bytes, double *flops)
{
        in->images = 0;
        run(in, NULL, 0);
        *bytes = res.phase_total_bytes[EST_PHASE_FORWARD];
        *flops = res.flops_per_step;
        in->images = 1;
        run(in, NULL, 0);
        *bytes = res.phase_total_bytes[EST_PHASE_FORWARD] - *bytes;
        *flops = res.flops_per_step - *flops;
}

/*
 * The vision tower's activations and FLOPs, on LLaMA-2-7B's language model
 * with Gemma 3's SigLIP tower (modeling_siglip.py: 27 pre-norm blocks,
 * hidden 1152, 16 heads, MLP 4304, LayerNorms, no gate), one 896 x 896
 * image = (896 / 14)^2 = 4096 patches through every block, 423,060,336
 * tower parameters; pure bf16 (B = 2).
 *
 * Inference, eager attention: the block running holds its input and output
 * 2 x 4096 x 1152 x 2 = 18,874,368 and the larger of the MLP's fc1 and GELU
 * output 2 x 4096 x 4304 x 2 = 70,516,736 and the attention's Q, K, V
 * 4096 x 3456 x 2 = 28,311,552 with scores and softmax 2 x 2 x 16 x 4096^2
 * = 1,073,741,824 (1,102,053,376): 1,120,927,744 per image.  The language
 * model's prefill block over 128 tokens holds 2 x 128 x 4096 x 2 +
 * 128 x 11008 x 2 x 3 = 10,551,296; only the larger is ever live, so two
 * images raise the prefill by 2 x 1,120,927,744 - 10,551,296 =
 * 2,231,304,192.
 *
 * Full fine-tuning, flash attention: each tower block keeps (Korthikanti
 * et al. 2022 §4.1) its QKV input 9,437,184, Q, K, V and the attention
 * output 2 x 4096 x (3456 + 1152) = 37,748,736 with the log-sum-exp
 * 4 x 16 x 4096 = 262,144, the MLP input 9,437,184, fc1's output and the
 * GELU's 2 x 2 x 4096 x 4304 = 70,516,736, two LayerNorm inputs
 * 2 x 2 x 4096 x 1152 = 18,874,368: 146,276,352; x 27 blocks =
 * 3,949,461,504 more at the end of forward for one image.
 *
 * LoRA freezes the tower: nothing of it is kept, and its live block (flash:
 * 18,874,368 + 70,516,736) is smaller than what the text blocks keep.
 *
 * FLOPs: 2 x 423,060,336 x 4096 = 3,465,710,272,512 per image forward;
 * x 3 when trained, x 1 when frozen.
 */
static void test_vision_tower_activations(void **state)
{
        (void)state;
        struct estimate_input in;
        struct model_arch text = llama2_7b(), vlm = text;
        const double fwd_flops = 2.0 * 423060336.0 * 4096.0;
        vlm.vision_parameters = 423060336;
        vlm.extra_parameters = 423060336;
        vlm.image_tokens = 256;
        vlm.vision = (struct model_vision){27, 1152, 16, 4304, 4096, false, false};

        estimate_input_defaults(&in);
        in.mode = EST_INFERENCE;
        in.precision = EST_BF16;
        in.flash_attention = false;
        in.batch_size = 1;
        in.sequence_length = 128;
        no_reserve(&in);
        in.arch = vlm;
        run(&in, NULL, 0);
        uint64_t before = res.phase_total_bytes[EST_PHASE_PREFILL], bytes;
        double flops_before = res.flops_per_step, flops;
        in.images = 2;
        run(&in, NULL, 0);
        assert_int_equal(res.phase_total_bytes[EST_PHASE_PREFILL] - before, 2231304192ull);
        assert_true(fabs(res.flops_per_step - flops_before - 2 * fwd_flops) < 1e3);
        bool noted = false;
        for (size_t i = 0; i < res.n_assumptions; i++)
                noted |= res.assumptions[i].code == EST_A_VISION_TOWER &&
                         res.assumptions[i].a == 4096 && res.assumptions[i].b == 256;
        assert_true(noted);

        in.mode = EST_FINE_TUNE;
        in.optimizer = EST_OPT_SGD;
        in.flash_attention = true;
        in.sequence_length = 512;
        one_image_more(&in, &bytes, &flops);
        assert_int_equal(bytes, 3949461504ull);
        assert_true(fabs(flops - 3 * fwd_flops) < 1e3);

        in.mode = EST_LORA;
        one_image_more(&in, &bytes, &flops);
        assert_int_equal(bytes, 0);
        assert_true(fabs(flops - fwd_flops) < 1e3);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_adam_mixed_16_bytes_per_param),
                cmocka_unit_test(test_seed_7b_adam_is_112e9),
                cmocka_unit_test(test_fp16_weights),
                cmocka_unit_test(test_optimizer_states_3b),
                cmocka_unit_test(test_activations_korthikanti),
                cmocka_unit_test(test_autocast_input_copies),
                cmocka_unit_test(test_hf_eager_extras),
                cmocka_unit_test(test_chunked_loss),
                cmocka_unit_test(test_model_output_kept),
                cmocka_unit_test(test_target_length),
                cmocka_unit_test(test_kv_cache),
                cmocka_unit_test(test_zero_divides_by_dp),
                cmocka_unit_test(test_qlora_weights),
                cmocka_unit_test(test_qlora_saved_inputs),
                cmocka_unit_test(test_runtime_overrides),
                cmocka_unit_test(test_pipeline_stages),
                cmocka_unit_test(test_mxfp4_gpt_oss_checkpoint),
                cmocka_unit_test(test_vision_tower_activations),
        };
        return cmocka_run_group_tests_name("memory", tests, NULL, NULL);
}
