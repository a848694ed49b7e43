/*
 * test_frameworks.c - framework behaviour in the memory model: checkpointing
 * policies (torchtitan's op-level policy, layer frequency), torch.compile's
 * fused element-wise ops, logits as each framework feeds the loss, FSDP1
 * flat-parameter gradients and no_sync accumulation, and the framework
 * presets.  Every expected figure is worked out in the comment beside it
 * from the mechanism's source (named in server/core/memory.c), not read
 * from the code.
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

/* The a figure of the first assumption with this code; NAN if absent. */
static double assumption(uint16_t code)
{
        for (size_t i = 0; i < res.n_assumptions; i++)
                if (res.assumptions[i].code == code)
                        return res.assumptions[i].a;
        return NAN;
}

/*
 * A small LLaMA-shaped decoder: 4 blocks, h = 1024, 16 heads of 64 (q =
 * 1024), 4 KV heads (kv = 256), gated MLP f = 2816, RMSNorm, no dropout,
 * vocabulary 1000; pure bf16 (2-byte activations), flash attention, SGD
 * (no optimizer state to speak of), 8 samples of 512 tokens (enough that
 * the start of backward is the peak); the figures below are per sample and
 * the assertions multiply by 8.
 *
 * One block keeps per sample without recomputation (Korthikanti et al.
 * 2022 with fused attention, memory.c block_activation_bytes):
 *   QKV input          2*s*h             = 1,048,576
 *   Q, K, V            2*s*(q + 2kv)     = 1,572,864
 *   attention output   2*s*q             = 1,048,576
 *   log-sum-exp        4*heads*s         =    32,768
 *   MLP input          2*s*h             = 1,048,576
 *   gate, up, act, product  4*2*s*f      = 11,534,336
 *   two RMSNorms, fp32 upcast  2*4*s*h   = 4,194,304
 *   total                                = 20,480,000
 */
static struct estimate_input small_decoder(void)
{
        struct estimate_input in;
        struct model_arch a = small_llama(1000);
        estimate_input_defaults(&in);
        in.arch = a;
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_SGD;
        in.flash_attention = true;
        in.batch_size = 8;
        in.sequence_length = 512;
        return in;
}

/*
 * torchtitan's op-level policy keeps, per block and sample: the block
 * input 2*s*h = 1,048,576; the 1st, 3rd, 5th and 7th matmul outputs in
 * forward order - wq 2*s*q = 1,048,576, wv 2*s*kv = 262,144, w1 2*s*f =
 * 2,883,584, w2 2*s*h = 1,048,576; the attention output 1,048,576 and its
 * log-sum-exp 32,768: 7,372,800.  Backward recomputes the rest of one
 * block: 20,480,000 - 7,372,800 = 13,107,200, once the loss has run its
 * backward (a 1,000-word vocabulary: the recomputation is the peak).  Over
 * 4 blocks the activations shrink by 4 * 20,480,000 - (4 * 7,372,800 +
 * 13,107,200) = 39,321,600 bytes.
 */
static void test_selective_op(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        uint64_t none = res.per_gpu[EST_C_ACTIVATIONS];
        in.checkpointing = EST_CKPT_SELECTIVE_OP;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BLOCK_BACKWARD);
        assert_true(fabs(assumption(EST_A_CHECKPOINT_OP) - 7372800.0) < 0.5);
        assert_int_equal(none - res.per_gpu[EST_C_ACTIVATIONS], 8 * 39321600ull);
}

/*
 * The same policy on a B200 (sm100), where SDPA runs cuDNN's kernel.
 * torchtitan's save list named only the flash and memory-efficient
 * kernels until December 2025, so a release of April 2025 recomputes the
 * attention output (2*s*q = 1,048,576) and its log-sum-exp (4*heads*s =
 * 32,768) with the rest of the block: it keeps 7,372,800 - 1,081,344 =
 * 6,291,456 per block.  The block being recomputed is whole either way,
 * so the other three blocks hold 3 x 1,081,344 = 3,244,032 per sample
 * less: 8 x 3,244,032 = 25,952,256 bytes.  Today's list has the cuDNN
 * kernel: nothing changes.
 */
static void test_selective_op_cudnn_attention(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        in.checkpointing = EST_CKPT_SELECTIVE_OP;
        in.framework = EST_FW_TORCHTITAN;
        in.framework_release = 202504;
        run(&in);
        uint64_t flash = res.per_gpu[EST_C_ACTIVATIONS];
        assert_true(res.peak_phase == EST_PHASE_BLOCK_BACKWARD);
        in.attention_cudnn = true;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BLOCK_BACKWARD);
        assert_true(fabs(assumption(EST_A_CHECKPOINT_OP) - 6291456.0) < 0.5);
        assert_int_equal(flash - res.per_gpu[EST_C_ACTIVATIONS], 8 * 3244032ull);
        in.framework_release = 0;
        run(&in);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS], flash);
}

/*
 * Layer frequency (torchtitan selective_ac_option "2"): of 4 blocks, the
 * 2nd and 4th are checkpointed and keep their input (1,048,576 each); the
 * others keep everything; backward recomputes one block (the peak, after
 * the loss buffers are freed).  Activations:
 * 2 * 1,048,576 + 2 * 20,480,000 + 20,480,000 = 63,537,152 against
 * 81,920,000 without: 18,382,848 less.
 */
static void test_checkpoint_every(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        run(&in);
        uint64_t none = res.per_gpu[EST_C_ACTIVATIONS];
        in.checkpointing = EST_CKPT_FULL;
        in.checkpoint_every = 2;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BLOCK_BACKWARD);
        assert_int_equal(none - res.per_gpu[EST_C_ACTIVATIONS], 8 * 18382848ull);
        assert_true(fabs(assumption(EST_A_CHECKPOINT_EVERY) - 2) < 1e-9);
}

/*
 * torch.compile: each norm keeps its bf16 input and an fp32 rstd per token
 * (2 * (2*s*h + 4*s) = 2,101,248 for two norms), the QKV and MLP inputs
 * are recomputed from them, the MLP keeps gate and up (2*2*s*f =
 * 5,767,168); attention unchanged (2,654,208).  A block: 10,522,624,
 * 9,957,376 less than eager; 4 blocks: 39,829,504 less.
 */
static void test_compile(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        run(&in);
        uint64_t eager = res.per_gpu[EST_C_ACTIVATIONS];
        in.compile = true;
        run(&in);
        assert_int_equal(eager - res.per_gpu[EST_C_ACTIVATIONS], 8 * 39829504ull);
}

/*
 * Logits, n = s * V = 512,000 per sample, bf16 model (2 bytes):
 *   fp32 (the model upcasts):    backward starts with 4 fp32 copies, 16n = 8,192,000
 *   upcast_in_loss (torchtitan): saved fp32 log-probs, their gradient and
 *                                the fp32 logit gradient, 12n = 6,144,000;
 *                                a loop that still holds the model output
 *                                keeps its bf16 logits too, 14n = 7,168,000
 *   fused:                       bf16 logits and bf16 gradient, 4n = 2,048,000
 */
static void test_logits_modes(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 8 * 8192000ull);
        in.logits = EST_LOGITS_UPCAST_IN_LOSS;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 8 * 7168000ull);
        in.output_kept = false; /* torchtitan's train_step: del pred */
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 8 * 6144000ull);
        in.output_kept = true;
        /* The fused loss's buffers are smaller than the gradients flowing
         * through a block's backward, so that phase peaks; the start of
         * backward (no allocator reserve stated) is 8 x (16n - 4n) =
         * 98,304,000 bytes lighter than with fp32 logits. */
        in.logits = EST_LOGITS_FP32;
        in.allocator_reserve_fraction = 0;
        in.set |= EST_SET_RESERVE;
        run(&in);
        uint64_t fp32 = res.phase_total_bytes[EST_PHASE_BACKWARD];
        in.logits = EST_LOGITS_FUSED;
        run(&in);
        assert_int_equal(fp32 - res.phase_total_bytes[EST_PHASE_BACKWARD], 8 * 6144000ull);
}

/*
 * loss_parallel (torch/distributed/tensor/parallel/loss.py), the small
 * decoder on 2 tensor-parallel ranks: each holds n = s * V / 2 = 256,000
 * logits per sample.  Forward: the bf16 logits (2n), the fp32 copy (4n),
 * x - max (4n) and its exponent (4n) are alive together: 14n = 3,584,000.
 * Backward (_nll_loss_and_log_softmax_backward): the saved
 * log-probabilities, zeros_like(x), exp(x) and their sum, or the sum and
 * the product once exp(x) is freed: 4 x 4n = 16n = 4,096,000 per sample,
 * where plain cross_entropy after the same upcast holds 12n = 3,072,000.
 */
static void test_loss_parallel(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        in.gpus = 2;
        in.tensor_parallel = 2;
        in.logits = EST_LOGITS_UPCAST_IN_LOSS;
        in.output_kept = false; /* as torchtitan's train_step drops it */
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 8 * 3072000ull);
        in.logits = EST_LOGITS_LOSS_PARALLEL;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        assert_int_equal(res.per_gpu[EST_C_LOGITS], 8 * 4096000ull);

        /* torchtitan computes the loss so whenever tensor parallelism is on
         * (training.disable_loss_parallel defaults to false), and listed
         * it among its choices */
        in = small_decoder();
        in.set = 0;
        in.gpus = 16;
        in.tensor_parallel = 8;
        in.framework = EST_FW_TORCHTITAN;
        estimate_apply_framework(&in);
        assert_int_equal(in.logits, EST_LOGITS_LOSS_PARALLEL);
        assert_true(in.framework_set & (1u << EST_FWS_LOGITS));
        in = small_decoder();
        in.set = 0;
        in.gpus = 16;
        in.framework = EST_FW_TORCHTITAN;
        estimate_apply_framework(&in);
        assert_int_equal(in.logits, EST_LOGITS_UPCAST_IN_LOSS);
}

/*
 * Sequence parallelism as PyTorch implements it (torchtitan) against
 * Megatron-LM's, the small decoder on 2 tensor-parallel ranks: PyTorch's
 * column-parallel projections keep the all-gathered input whole where
 * Megatron gathers it again in backward.  Per sample, beyond Megatron's
 * sequence-sharded copy (half of 2 B x s x h = 1,048,576 bytes kept either
 * way): the QKV and MLP inputs of each block, 2 x 524,288 x 4 blocks =
 * 4,194,304, and the output projection's input after the final norm,
 * 524,288: 4,718,592 per sample, 37,748,736 for the 8 samples.
 */
static void test_sequence_parallel_gathered(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        in.gpus = 2;
        in.tensor_parallel = 2;
        in.sequence_parallel = true;
        in.logits = EST_LOGITS_UPCAST_IN_LOSS;
        in.framework = EST_FW_MEGATRON;
        run(&in);
        enum est_phase phase = res.peak_phase;
        uint64_t megatron = res.per_gpu[EST_C_ACTIVATIONS];
        in.framework = EST_FW_TORCHTITAN;
        run(&in);
        assert_int_equal(res.peak_phase, phase);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS] - megatron, 37748736ull);
}

/*
 * LLaMA-2-7B LoRA (r = 8 on q and v: 32 * 2 * 8 * (4096 + 4096) =
 * 4,194,304 adapter parameters), pure bf16, FSDP full shard over 2 GPUs.
 *   FSDP1 with use_orig_params and LoRA inside the block units (litgpt):
 *     each unit's flat gradient covers the frozen weights; its shard is
 *     6,738,415,616 * 2 B / 2 = 6,738,415,616 bytes.  With LoRA layers in
 *     units of their own (PEFT's wrap policy) or FSDP2: none.
 *   FSDP1 no_sync with 4 accumulation steps: every block unit's gradient
 *     unsharded, (6,738,415,616 - 2 * 32000 * 4096 [embeddings and head,
 *     the root unit, no trainable parameter]) * 2 + 4,194,304 * 2 =
 *     12,960,931,840 bytes.
 */
/* LLaMA-2-7B, LoRA r = 8 on q and v, pure bf16, AdamW, one sample of 512
 * tokens, flash attention. */
static struct estimate_input llama2_lora(void)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_LORA;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_ADAMW;
        in.lora_rank = 8;
        in.lora_targets = EST_LORA_Q | EST_LORA_V;
        in.batch_size = 1;
        in.sequence_length = 512;
        in.flash_attention = true;
        return in;
}

static void test_fsdp1_lora_gradients(void **state)
{
        (void)state;
        struct estimate_input in = llama2_lora();
        in.checkpointing = EST_CKPT_FULL;
        in.strategy = EST_FSDP;
        in.gpus = 2;
        run(&in);
        assert_true(isnan(assumption(EST_A_FSDP1_FLAT_GRADS)));
        in.fsdp_use_orig_params = true;
        run(&in);
        assert_true(fabs(assumption(EST_A_FSDP1_FLAT_GRADS) - 6738415616.0) < 1);
        assert_true(isnan(assumption(EST_A_FSDP_NO_SYNC)));
        in.fsdp_version = 2;
        run(&in);
        assert_true(isnan(assumption(EST_A_FSDP1_FLAT_GRADS)));
        in.fsdp_version = 1;
        in.gradient_accumulation = 4;
        in.fsdp_no_sync = true;
        run(&in);
        assert_true(fabs(assumption(EST_A_FSDP_NO_SYNC) - 12960931840.0) < 1);
        assert_true(res.per_gpu[EST_C_GRADIENTS] >= 12960931840ull);
        /* QLoRA: the flat gradient has the flat parameter's size, so it is
         * as large as the (4-bit) frozen weights' shard; the weights add
         * the adapters (4,194,304 x 2 B, part of each unit's flat parameter
         * and so sharded over the two GPUs like it) and bitsandbytes'
         * quantization state, whole on each GPU (102,768,640 bytes with
         * double quantization, the default: see
         * test_bnb_quant_state_replicated). */
        in.mode = EST_QLORA;
        in.quantization = EST_QUANT_NF4;
        in.gradient_accumulation = 1;
        run(&in);
        double frozen = assumption(EST_A_FSDP1_FLAT_GRADS);
        assert_true(fabs((double)res.per_gpu[EST_C_WEIGHTS] - frozen - 4194304.0 * 2 / 2 -
                         102768640.0) < 2);
        assert_true(frozen < 6738415616.0 / 2); /* well under the bf16 figure */
        in.mode = EST_LORA;
        in.quantization = EST_QUANT_NONE;
        in.gradient_accumulation = 4;
        /* PEFT-style units: only the 4,194,304 adapter gradients, 2 B each. */
        in.fsdp_use_orig_params = false;
        run(&in);
        assert_true(fabs(assumption(EST_A_FSDP_NO_SYNC) - 8388608.0) < 1);
}

/*
 * QLoRA over FSDP on 2 GPUs, LLaMA-2-7B: 32 x (4 x 4096^2 + 3 x 4096 x
 * 11008) = 6,476,005,376 block weights in NF4 with double quantization,
 * whose state (8-bit absmax per 64 weights, an fp32 constant per 256
 * blocks) is (8/64 + 32/16384) / 8 = 0.015869140625 B per weight:
 * 102,768,640 bytes.  bitsandbytes keeps it beside each Linear4bit, whole
 * on every rank, so the GPU holds the half of it the sharded view leaves
 * out, 51,384,320 bytes more than torchao's NF4Tensor (torchtune), which
 * shards its scalers with the data; with the parameters offloaded to the
 * CPU all 102,768,640 stay.
 */
static void test_bnb_quant_state_replicated(void **state)
{
        (void)state;
        struct estimate_input in = llama2_lora();
        in.mode = EST_QLORA;
        in.quantization = EST_QUANT_NF4;
        in.double_quant = true;
        in.checkpointing = EST_CKPT_FULL;
        in.strategy = EST_FSDP;
        in.fsdp_version = 2;
        in.gpus = 2;
        in.framework = EST_FW_TORCHTUNE;
        run(&in);
        uint64_t torchao = res.per_gpu[EST_C_WEIGHTS];
        in.framework = EST_FW_NONE;
        run(&in);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS] - torchao, 51384320ull);
        in.offload = EST_OFFLOAD_OPTIMIZER_AND_PARAMS;
        run(&in);
        assert_int_equal(res.per_gpu[EST_C_WEIGHTS], 102768640ull);
}

/* LLaMA-2-7B pre-training in pure bf16 with AdamW and flash attention,
 * FSDP2 over 8 GPUs. */
static struct estimate_input llama2_fsdp2_pretrain(uint32_t batch, uint32_t sequence)
{
        struct estimate_input in;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_ADAMW;
        in.flash_attention = true;
        in.batch_size = batch;
        in.sequence_length = sequence;
        in.strategy = EST_FSDP;
        in.fsdp_version = 2;
        in.gpus = 8;
        return in;
}

/*
 * Gradient shards in the reduce-scatter stream's pool (FSDP2 foreach_reduce
 * allocates the reduce-scatter output on its own stream; the caching
 * allocator reuses a freed block only for the stream it came from).
 * LLaMA-2-7B, 6,738,415,616 parameters, pure bf16 over 8 GPUs: each GPU
 * holds a 6,738,415,616 * 2 / 8 = 1,684,603,904-byte gradient shard.
 * zero_grad() frees it after the step; forward and backward of the next
 * step cannot use that memory, so with no allocator allowance
 * (allocator_reserve_fraction 0) reserved exceeds allocated by exactly the
 * shard while a forward or backward phase is the peak.  With gradient
 * accumulation the shards stay allocated (nothing extra); DDP keeps its
 * gradients in the compute stream's pool (nothing extra).  Cached whole
 * blocks are released before an out-of-memory error, so they never decide
 * whether a GPU holds the run.
 */
static void test_gradient_pool(void **state)
{
        (void)state;
        struct estimate_input in = llama2_fsdp2_pretrain(4, 4096);
        in.allocator_reserve_fraction = 0;
        in.set |= EST_SET_RESERVE;
        run(&in);
        const double shard = 1684603904.0;
        assert_true(fabs(assumption(EST_A_GRADIENT_POOL) - shard) < 1);
        assert_true(res.peak_phase == EST_PHASE_FORWARD || res.peak_phase == EST_PHASE_BACKWARD);
        assert_true(fabs((double)res.per_gpu_reserved_bytes - (double)res.per_gpu_allocated_bytes -
                         shard) < 2);
        /* A GPU with room for the allocations (and the 512 MiB context) but
         * not for the cached shards still holds the run: the allocator frees
         * unsplit cached blocks before it reports out of memory. */
        double room = (double)res.per_gpu_allocated_bytes + 512.0 * 1048576 + shard / 2;
        struct gpu_spec g = gpu("tight", room, 2e12, 300e12);
        run_into(&res, &in, &g, 1);
        assert_true(res.n_fits == 1 && res.fits[0].fits);
        assert_true((double)res.per_gpu_total_bytes > room);
        in.fsdp_version = 1; /* FSDP1's post-backward stream: the same */
        run(&in);
        assert_true(fabs(assumption(EST_A_GRADIENT_POOL) - shard) < 1);
        in.gradient_accumulation = 2;
        run(&in);
        assert_true(isnan(assumption(EST_A_GRADIENT_POOL)));
        assert_true(res.per_gpu_reserved_bytes == res.per_gpu_allocated_bytes);
        in.gradient_accumulation = 1;
        in.strategy = EST_DDP;
        in.arch.layers = 4; /* fits DDP's whole copy; nothing cached either way */
        run(&in);
        assert_true(isnan(assumption(EST_A_GRADIENT_POOL)));
        assert_true(res.per_gpu_reserved_bytes == res.per_gpu_allocated_bytes);
}

/*
 * torchao float8 linears (precision fp8_mixed), the small decoder above,
 * no checkpointing.  Each linear keeps its own 1-byte input copy and the
 * float8 transpose of its weight (Float8Linear.forward,
 * save_for_backward(input_fp8, weight_fp8_t)).  Per block and sample,
 * against bf16 mixed precision:
 *   Q, K, V inputs: three 1-byte copies for one 2-byte norm output
 *                   (3 - 2) * s*h = +524,288
 *   output projection: a copy beside the kept attention output
 *                   s*q           = +524,288
 *   gate and up: two 1-byte copies for one 2-byte norm output   0
 *   down: a 1-byte copy for the 2-byte product  (1 - 2) * s*f = -1,441,792
 *   total                                       = -393,216
 * 4 blocks x 8 samples: -12,582,912 bytes.  Float8 weight copies, 1 byte
 * per block matrix weight: q 1,048,576 + k, v 2 x 262,144 + o 1,048,576 +
 * gate, up, down 3 x 2,883,584 = 11,272,192 per block, 45,088,768 for 4.
 * Activations grow by 45,088,768 - 12,582,912 = 32,505,856 bytes.
 * force_recompute_fp8_weight_in_bwd drops the weight copies
 * (-12,582,912 net), and so does FSDP's float8 all-gather, which also
 * gathers each block's 11,272,192 linear weights at 1 byte instead of 2.
 */
static void test_float8(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        in.precision = EST_BF16_MIXED;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        double bf16 = (double)res.per_gpu[EST_C_ACTIVATIONS];
        in.precision = EST_FP8_MIXED;
        run(&in);
        assert_true(res.peak_phase == EST_PHASE_BACKWARD);
        assert_true(fabs((double)res.per_gpu[EST_C_ACTIVATIONS] - bf16 - 32505856.0) < 2);
        assert_true(assumption(EST_A_FLOAT8_SAVED) > 0);
        in.float8_recompute_weight = true;
        run(&in);
        assert_true(fabs((double)res.per_gpu[EST_C_ACTIVATIONS] - bf16 + 12582912.0) < 2);
        in.float8_recompute_weight = false;
        in.strategy = EST_FSDP;
        in.fsdp_version = 2;
        in.gpus = 2;
        run(&in);
        double comm_bf16_gather = (double)res.per_gpu[EST_C_COMM];
        double act_fsdp = (double)res.per_gpu[EST_C_ACTIVATIONS];
        in.float8_all_gather = true;
        run(&in);
        assert_true(fabs((double)res.per_gpu[EST_C_ACTIVATIONS] - (act_fsdp - 45088768.0)) < 2);
        /* two gathered blocks, 11,272,192 weights each, one byte saved per weight */
        assert_true(fabs(comm_bf16_gather - (double)res.per_gpu[EST_C_COMM] - 2 * 11272192.0) < 2);
}

/*
 * What FSDP keeps gathered beyond the block being computed and the one
 * being prefetched.  LLaMA-2-7B blocks hold 4 x 4096^2 + 3 x 4096 x 11008 +
 * 2 x 4096 = 202,383,360 parameters, 404,766,720 bytes gathered in bf16.
 * FSDP2 reshard_after_forward=False keeps all 32 from forward to backward:
 * 30 more than the two in flight, 12,143,001,600 bytes.  reshard_after_forward=4
 * on 8 ranks keeps each block sharded over 4: 32 x 404,766,720 / 4 =
 * 3,238,133,760 bytes.  FSDP1 with limit_all_gathers=False lets the CPU
 * gather every unit ahead of the GPU: the same 30 extra blocks.
 */
static void test_fsdp_gathered_blocks(void **state)
{
        (void)state;
        struct estimate_input in = llama2_fsdp2_pretrain(1, 2048);
        in.checkpointing = EST_CKPT_FULL;
        run(&in);
        double comm = (double)res.per_gpu[EST_C_COMM];
        assert_true(isnan(assumption(EST_A_FSDP_KEPT)));
        in.fsdp_forward_shards = 1;
        run(&in);
        assert_true(fabs(assumption(EST_A_FSDP_KEPT) - 12143001600.0) < 1);
        assert_true(fabs((double)res.per_gpu[EST_C_COMM] - comm - 12143001600.0) < 2);
        in.fsdp_forward_shards = 4;
        run(&in);
        assert_true(fabs(assumption(EST_A_FSDP_KEPT) - 3238133760.0) < 1);
        in.fsdp_forward_shards = 3; /* does not divide 8 ranks */
        struct estimate_error e;
        assert_int_equal(estimate_run(&in, NULL, 0, &res, &e), -1);
        assert_string_equal(e.pointer, "/parallelism/fsdp_reshard_after_forward");
        in.fsdp_forward_shards = 0;
        in.fsdp_version = 1;
        in.fsdp_limit_all_gathers = false;
        run(&in);
        assert_true(fabs(assumption(EST_A_FSDP_UNLIMITED) - 12143001600.0) < 1);
}

/*
 * What LoRA's A keeps, on q and v of LLaMA-2-7B in bf16, 512 tokens, no
 * checkpointing (h = 4096, MLP 11008, 32 blocks).
 *
 * litgpt (LoRALinear: adapters in the model's dtype).  p = 0: A keeps the
 * norm output q, k and v read, nothing of its own.  p > 0: the dropped
 * bf16 input and the 1-byte mask of each wrapped matrix, (2 + 1) * 512 *
 * (4096 + 4096) = 12,582,912 bytes per block, while the norm output, read
 * now only by frozen matrices, is no longer kept: 2 * 512 * 4096 =
 * 4,194,304 less, so 32 blocks add 32 * 8,388,608 = 268,435,456 bytes.
 *
 * PEFT >= 0.12 (adapters kept in fp32, the input cast to fp32 before
 * them): p = 0 keeps a 4-byte copy, 4 * 512 * 8192 = 16,777,216 per block;
 * p > 0 the fp32 dropped copy and the mask, 5 * 512 * 8192 = 20,971,520;
 * the norm output is not kept in either, so p adds 32 * 4,194,304 =
 * 134,217,728 bytes.
 */
static void test_lora_dropout(void **state)
{
        (void)state;
        struct estimate_input in = llama2_lora();
        in.framework = EST_FW_LITGPT;
        in.chunked_loss = false;
        in.set |= EST_SET_PRECISION | EST_SET_CHECKPOINTING | EST_SET_FLASH | EST_SET_CHUNKED_LOSS |
                  EST_SET_LOGITS | EST_SET_COMPILE;
        run(&in);
        uint64_t plain = res.per_gpu[EST_C_ACTIVATIONS];
        assert_true(isnan(assumption(EST_A_LORA_DROPOUT)));
        in.lora_dropout = 0.05;
        run(&in);
        assert_true(fabs(assumption(EST_A_LORA_DROPOUT) - 12582912.0) < 0.5);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS] - plain, 268435456);

        in = llama2_lora();
        run(&in);
        plain = res.per_gpu[EST_C_ACTIVATIONS];
        assert_true(fabs(assumption(EST_A_LORA_DROPOUT) - 16777216.0) < 0.5);
        in.lora_dropout = 0.05;
        run(&in);
        assert_true(fabs(assumption(EST_A_LORA_DROPOUT) - 20971520.0) < 0.5);
        assert_int_equal(res.per_gpu[EST_C_ACTIVATIONS] - plain, 134217728);
}

/*
 * Presets fill only what the request left unset, and say so: torchtitan
 * on 8 GPUs sets bf16 mixed precision, the op-level policy, flash
 * attention, the loss upcast, a fused optimizer, FSDP and FSDP2; a stated
 * checkpointing survives, and applying the preset twice changes nothing.
 */
static void test_presets(void **state)
{
        (void)state;
        struct estimate_input in = small_decoder();
        in.set = 0;
        in.gpus = 8;
        in.framework = EST_FW_TORCHTITAN;
        estimate_apply_framework(&in);
        assert_int_equal(in.precision, EST_BF16_MIXED);
        assert_int_equal(in.checkpointing, EST_CKPT_SELECTIVE_OP);
        assert_true(in.flash_attention);
        assert_int_equal(in.logits, EST_LOGITS_UPCAST_IN_LOSS);
        assert_int_equal(in.strategy, EST_FSDP);
        assert_int_equal(in.fsdp_version, 2);
        assert_true(in.framework_set & (1u << EST_FWS_CHECKPOINTING));
        /* run_train.sh: PYTORCH_ALLOC_CONF="expandable_segments:True" */
        assert_true(in.expandable_segments);
        assert_true(in.framework_set & (1u << EST_FWS_EXPANDABLE_SEGMENTS));
        struct estimate_input again = in;
        estimate_apply_framework(&again);
        assert_memory_equal(&again, &in, sizeof(in));
        run(&in);
        size_t listed = 0;
        for (size_t i = 0; i < res.n_assumptions; i++)
                listed += res.assumptions[i].code == EST_A_FRAMEWORK;
        assert_int_equal(listed, (size_t)__builtin_popcount(in.framework_set));

        /* The request's own choice stands. */
        in = small_decoder();
        in.set = EST_SET_CHECKPOINTING;
        in.checkpointing = EST_CKPT_FULL;
        in.framework = EST_FW_TORCHTITAN;
        estimate_apply_framework(&in);
        assert_int_equal(in.checkpointing, EST_CKPT_FULL);
        assert_false(in.framework_set & (1u << EST_FWS_CHECKPOINTING));

        /* litgpt on several GPUs: FSDP1, per-block checkpointing, no_sync
         * under accumulation; torchtune: pure bf16, full checkpointing,
         * chunked loss. */
        in = small_decoder();
        in.set = 0;
        in.gpus = 4;
        in.gradient_accumulation = 8;
        in.framework = EST_FW_LITGPT;
        estimate_apply_framework(&in);
        assert_int_equal(in.strategy, EST_FSDP);
        assert_int_equal(in.fsdp_version, 1);
        assert_int_equal(in.checkpointing, EST_CKPT_FULL);
        assert_true(in.fsdp_no_sync);
        assert_true(in.chunked_loss);
        assert_false(in.fsdp_use_orig_params); /* pre-training: no LoRA to share units with */
        in = small_decoder();
        in.set = 0;
        in.framework = EST_FW_TORCHTUNE;
        estimate_apply_framework(&in);
        assert_int_equal(in.precision, EST_BF16);
        assert_int_equal(in.checkpointing, EST_CKPT_FULL);
        assert_true(in.chunked_loss);
        assert_int_equal(in.strategy, EST_SINGLE); /* one GPU: nothing to shard */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_selective_op),
                cmocka_unit_test(test_selective_op_cudnn_attention),
                cmocka_unit_test(test_checkpoint_every),
                cmocka_unit_test(test_compile),
                cmocka_unit_test(test_logits_modes),
                cmocka_unit_test(test_loss_parallel),
                cmocka_unit_test(test_sequence_parallel_gathered),
                cmocka_unit_test(test_fsdp1_lora_gradients),
                cmocka_unit_test(test_bnb_quant_state_replicated),
                cmocka_unit_test(test_gradient_pool),
                cmocka_unit_test(test_float8),
                cmocka_unit_test(test_fsdp_gathered_blocks),
                cmocka_unit_test(test_lora_dropout),
                cmocka_unit_test(test_presets),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
