/*
 * test_compute.c - FLOPs, time and the bottleneck (core/compute.c),
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

/* Compute: training FLOPs = 3 x forward, forward = 2 x (block matrices)
 * per token + 4 x s x (heads*head_dim) x layers (scores and weighted sum)
 * + 2 x V x h (head).  LLaMA-2-7B, b = 1, s = 1024, 1 GPU:
 *   2 * 6,476,005,376 = 12,952,010,752
 *   4 * 1024 * 4096 * 32 = 536,870,912
 *   2 * 32000 * 4096 = 262,144,000          -> 13,751,025,664 per token
 *   x 3 x 1024 tokens = 42,243,150,839,808 FLOPs per step.
 * At 312e12 FLOP/s and MFU 0.5: 0.2708 s per step, 3781 tokens/s. */
static void test_training_flops_and_time(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 80e9, 2.039e12, 312e12);
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 1024;
        in.mfu = 0.5;
        in.set |= EST_SET_MFU;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_true(fabs(res.flops_per_step - 42243150839808.0) < 1e3);
        double secs = 42243150839808.0 / (312e12 * 0.5);
        assert_true(fabs(res.seconds_per_step - secs) < 1e-9);
        assert_true(fabs(res.tokens_per_second - 1024 / secs) < 1e-6);
        assert_int_equal(res.bottleneck, EST_BOUND_COMPUTE);
        /* Full recomputation: 4 forward passes instead of 3 (x 4/3). */
        in.checkpointing = EST_CKPT_FULL;
        run(&in, &g, 1);
        assert_true(fabs(res.flops_per_step - 42243150839808.0 * 4 / 3) < 1e3);
        /* 6 N D sanity: with D = 1024 tokens, 6 * 6.74e9 * 1024 = 4.14e13,
         * within 3% of the count above (attention and head add the rest). */
        assert_true(fabs(42243150839808.0 / (6 * P7 * 1024) - 1) < 0.03);
}

/* Decode: every generated token reads all weights once: an A100 80GB
 * (2.039e12 B/s) and 7B fp16 weights (13.48e9 bytes) give
 * 2.039e12 / 13,476,831,232 = 151.3 tokens/s as the bandwidth roofline;
 * the engine's figure must be within 5% (it adds the small KV reads). */
static void test_decode_tokens_per_second(void **state)
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
        double hand = 2.039e12 / (2 * P7);
        assert_true(fabs(res.decode_tokens_per_second_roofline / hand - 1) < 0.05);
        assert_true(res.decode_tokens_per_second < res.decode_tokens_per_second_roofline);
        assert_int_equal(res.bottleneck, EST_BOUND_MEMORY_BANDWIDTH);
}

/* Data loading: a pipeline that delivers 0.5 samples/s needs 2 s for a
 * batch of one, longer than the 0.2708 s of compute worked out in
 * test_training_flops_and_time: the step takes 2 s and data loading is the
 * bottleneck.  By default (text tokenized on the fly, 12.5e6 tokens/s) a
 * 1024-token sample takes 1024 / 12.5e6 = 81.92 us: compute-bound. */
static void test_data_loading_bottleneck(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 80e9, 2.039e12, 312e12);
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 1024;
        in.mfu = 0.5;
        in.set |= EST_SET_MFU;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_true(fabs(res.data_seconds_per_step - 1024 / 12.5e6) < 1e-12);
        assert_int_equal(res.bottleneck, EST_BOUND_COMPUTE);
        in.data_samples_per_s = 0.5;
        run(&in, &g, 1);
        assert_true(fabs(res.data_seconds_per_step - 2.0) < 1e-12);
        assert_true(fabs(res.seconds_per_step - 2.0) < 1e-12);
        assert_int_equal(res.bottleneck, EST_BOUND_DATA_LOADING);
}

/* A mixture of experts reads only the experts its tokens use.  Mixtral
 * 8x7B, bf16, prompt 128 + 64 generated tokens:
 *   attention matrices per layer 4096 x (4096 + 2 x 1024) + 4096 x 4096
 *                                = 41,943,040
 *   one expert (gate, up, down)  3 x 4096 x 14336 = 176,160,768
 *   norms + router per layer     2 x 4096 + 4096 x 8 = 40,960
 *   embeddings + head            2 x 32000 x 4096 = 262,144,000
 *   total = 32 x (41,943,040 + 8 x 176,160,768 + 40,960) + 4096 + 262,144,000
 *         = 46,702,792,704 (the published 46.7B)
 * Batch 1 touches k = 2 experts per layer; the 6 others are not read:
 *   46,702,792,704 - 32 x 6 x 176,160,768 = 12,879,925,248 (12.9B active)
 *   x 2 bytes = 25,759,850,496.
 * Batch 8 touches E (1 - (1 - k/E)^b) = 8 x (1 - 0.75^8) = 7.19909668
 * experts per layer: 46,702,792,704 - 32 x 0.80090332 x 176,160,768
 *   = 42,187,984,896 parameters, x 2 = 84,375,969,792 bytes.
 * KV read per step at the average context 128 + 64/2 = 160 tokens:
 *   2 x 32 layers x 8 heads x 128 x 2 bytes = 131,072 per token,
 *   x 160 = 20,971,520 per sequence.
 * On an H100 SXM (3.35e12 B/s) batch 1 runs at 3.35e12 / 25,780,822,016
 * = 129.94 tokens/s (bandwidth roofline), not the 35.8 of reading all
 * 46.7B parameters. */
static void test_moe_decode_reads_active_experts(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("h100", 80e9, 3.35e12, 989e12);
        estimate_input_defaults(&in);
        in.arch = mixtral_8x7b();
        in.mode = EST_INFERENCE;
        in.precision = EST_BF16;
        in.batch_size = 1;
        in.prompt_tokens = 128;
        in.generated_tokens = 64;
        in.sequence_length = 192;
        in.set |= EST_SET_PROMPT | EST_SET_GENERATED | EST_SET_SEQUENCE;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_int_equal(res.checkpoint_parameters, 46702792704ull);
        assert_true(fabs((double)res.decode_bytes_per_token - (25759850496.0 + 20971520.0)) < 16);
        assert_true(fabs(res.decode_tokens_per_second_roofline - 129.94) < 0.01);
        /* Prefill FLOPs use the active parameters: per prompt token
         * 2 x 12,616,466,432 (active block matrices: 32 x (41,943,040 +
         * 2 x 176,160,768)) + 4 x 128 x 4096 x 32 (attention) + 2 x 32000 x
         * 4096 (head) = 25,232,932,864 + 67,108,864 + 262,144,000
         * = 25,562,185,728; x 128 tokens = 3,271,959,773,184.  Each of the
         * 64 decode tokens: the same at the average context 160. */
        double decode_fwd = 2 * 12616466432.0 + 4 * 160.0 * 4096 * 32 + 2 * 32000.0 * 4096;
        assert_true(fabs(res.flops_per_step - (3271959773184.0 + decode_fwd * 64)) < 1e4);

        in.batch_size = 8;
        run(&in, &g, 1);
        assert_true(fabs((double)res.decode_bytes_per_token - (84375969792.0 + 8 * 20971520.0)) <
                    1e4);
}

static bool has_warning(uint16_t code)
{
        for (size_t i = 0; i < res.n_warnings; i++)
                if (res.warnings[i].code == code)
                        return true;
        return false;
}

/* A GPU without bf16 units is not timed at its fp16 rate.  A T4 (Turing,
 * compute capability 7.5; NVIDIA T4 datasheet: 65 TFLOPS fp16 tensor,
 * 8.1 TFLOPS fp32, no bf16) cannot run bf16 mixed precision: PyTorch
 * autocast refuses bfloat16 below compute capability 8.0.  The engine must
 * give no time, warn, suggest fp16_mixed and mark the fit row.  In
 * fp16_mixed the step of test_training_flops_and_time (42,243,150,839,808
 * FLOPs) takes 42,243,150,839,808 / (65e12 x 0.5) = 1.29979 s. */
static void test_bf16_on_gpu_without_bf16(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g[2];
        g[0] = gpu("t4", 16e9, 320e9, 65e12);
        g[0].flops[GPU_FP32] = 8.1e12;
        g[0].flops[GPU_TF32] = 0;
        g[0].flops[GPU_BF16] = 0;
        g[0].link = GPU_LINK_PCIE;
        g[1] = gpu("a100", 80e9, 2.039e12, 312e12);
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_LORA;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 256;
        in.mfu = 0.5;
        in.set |= EST_SET_MFU;
        in.gpu_index = 0;
        run(&in, g, 2);
        assert_true(res.precision_unsupported);
        assert_int_equal(res.suggested_precision, EST_FP16_MIXED);
        assert_true(res.seconds_per_step == 0);
        assert_true(res.peak_flops_per_gpu == 0);
        assert_true(has_warning(EST_W_PRECISION_UNSUPPORTED));
        assert_false(res.fits[0].fits);
        assert_int_equal(res.fits[0].reason, EST_FIT_PRECISION_UNSUPPORTED);
        assert_int_equal(res.fits[1].reason, EST_FIT_OK);

        /* fp16_mixed runs, at the fp16 rate. */
        in.mode = EST_PRE_TRAIN;
        in.sequence_length = 1024;
        in.precision = EST_FP16_MIXED;
        run(&in, g, 2);
        assert_false(res.precision_unsupported);
        assert_false(has_warning(EST_W_PRECISION_UNSUPPORTED));
        assert_true(fabs(res.seconds_per_step - 42243150839808.0 / (65e12 * 0.5)) < 1e-9);
        assert_true(fabs(res.seconds_per_step - 1.29979) < 1e-5);
}

/* fp8 before Ada/Hopper: an A100 (no fp8 tensor cores; 312 TFLOPS bf16)
 * asked for fp8_mixed is not timed at its bf16 rate; bf16_mixed is
 * suggested.  An H100 SXM with its 1979 TFLOPS dense fp8 figure is timed:
 * 42,243,150,839,808 / (1979e12 x 0.5) = 0.042691 s. */
static void test_fp8_before_hopper(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g[2];
        g[0] = gpu("a100", 80e9, 2.039e12, 312e12);
        g[1] = gpu("h100", 80e9, 3.35e12, 989e12);
        g[1].flops[GPU_FP8] = 1979e12;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_FP8_MIXED;
        in.batch_size = 1;
        in.sequence_length = 1024;
        in.mfu = 0.5;
        in.set |= EST_SET_MFU;
        in.gpu_index = 0;
        run(&in, g, 2);
        assert_true(res.precision_unsupported);
        assert_int_equal(res.suggested_precision, EST_BF16_MIXED);
        assert_true(res.seconds_per_step == 0);
        assert_int_equal(res.fits[0].reason, EST_FIT_PRECISION_UNSUPPORTED);
        in.gpu_index = 1;
        run(&in, g, 2);
        assert_false(res.precision_unsupported);
        assert_true(fabs(res.seconds_per_step - 0.042691) < 1e-6);
}

/* A one-prompt prefill of LLaMA-2-7B in fp16 on an RTX 4090-like card
 * (1008 GB/s; 165.2 TFLOPS fp16 with fp32 accumulation, 330.3 with fp16
 * accumulation: Ada whitepaper appendix).  The block matmuls of 512
 * tokens are 512 x 2 x 6,476,005,376 = 6.6314e12 FLOPs (the head runs for
 * the last position only).  At 0.70 of the fp32-accumulate rate they take
 * 6.6314e12 / 115.64e12 = 57.345 ms; with fp16 accumulation the rate is
 * 330.3e12 x 1.72 / 2 (the realised share of the doubling) = 284.058e12,
 * x 0.70 = 198.84e12: 33.350 ms.  Both are above the weight read
 * (12.95e9 B / 806.4e9 B/s = 16.1 ms), so the prefill shortens by the
 * difference, 23.995 ms.  bf16 accumulates in fp32 on every part: no
 * change. */
static void prefill_4090(struct estimate_input *in, struct gpu_spec *g)
{
        *g = gpu("rtx-4090", 24e9, 1008e9, 165.2e12);
        g->fp16_accumulate_flops = 330.3e12;
        estimate_input_defaults(in);
        in->arch = llama2_7b();
        in->mode = EST_INFERENCE;
        in->precision = EST_FP16;
        in->batch_size = 1;
        in->prompt_tokens = 512;
        in->generated_tokens = 0;
        in->sequence_length = 512;
        in->set |= EST_SET_PROMPT | EST_SET_GENERATED | EST_SET_SEQUENCE;
        in->gpu_index = 0;
}

static void test_fp16_accumulate_prefill(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g;
        prefill_4090(&in, &g);
        run(&in, &g, 1);
        double fp32_acc = res.prefill_seconds;
        assert_true(fabs(res.speed.gemm_peak - 165.2e12) < 1);
        in.fp16_accumulation = true;
        run(&in, &g, 1);
        assert_true(fabs(res.speed.gemm_peak - 284.058e12) < 1e6);
        assert_true(fabs((fp32_acc - res.prefill_seconds) - 23.995e-3) < 0.01e-3);
        in.precision = EST_BF16;
        run(&in, &g, 1);
        assert_true(fabs(res.speed.gemm_peak - 165.2e12) < 1);
}

/* The same prefill over int8 weights (1 byte each).  Unpacking on the
 * CUDA cores costs 6,476,005,376 x 2 ops / 10.325e12 (fp32 rate) =
 * 1.2544 ms; an engine that first copies the matrices to fp16 reads 1
 * byte and writes 2 per weight: 6,476,005,376 x 3 / 806.4e9 = 24.092 ms
 * instead, 22.837 ms more (the matmuls stay compute-bound: 33.4 ms
 * against 16.1 ms of fp16 weight reads).  A one-token decode step stays
 * under the 50-row threshold and does not copy. */
static void test_dequantize_copy(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g;
        prefill_4090(&in, &g);
        in.fp16_accumulation = true;
        in.quantization = EST_QUANT_INT8;
        run(&in, &g, 1);
        double direct = res.prefill_seconds;
        in.dequantize_to_fp16 = true;
        run(&in, &g, 1);
        assert_true(fabs((res.prefill_seconds - direct) - 22.837e-3) < 0.01e-3);
        double step_copy = speed_pass_seconds(&res.speed, 1, 512, 512);
        in.dequantize_to_fp16 = false;
        run(&in, &g, 1);
        assert_true(fabs(speed_pass_seconds(&res.speed, 1, 512, 512) - step_copy) < 1e-12);
}

/* The optimizer step of a full fp32 fine-tune of LLaMA-2-7B on one A100
 * (2.039e12 B/s x 0.80 = 1.6312e12 B/s).  torch.optim's foreach AdamW
 * moves 84 bytes per parameter, the fused kernel 28 (adamw.py): the
 * difference is 6,738,415,616 x 56 / 1.6312e12 = 231.33 ms per step.
 * Clipping the gradients' norm reads them and scales them in place:
 * 6,738,415,616 x 12 / 1.6312e12 = 49.57 ms more. */
static void test_optimizer_implementation(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 80e9, 2.039e12, 312e12);
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_FINE_TUNE;
        in.precision = EST_FP32;
        in.optimizer = EST_OPT_ADAMW;
        in.batch_size = 1;
        in.sequence_length = 512;
        in.set |= EST_SET_BATCH | EST_SET_SEQUENCE | EST_SET_PRECISION | EST_SET_OPTIMIZER;
        in.gpu_index = 0;
        in.optimizer_impl = EST_OPT_IMPL_FUSED;
        run(&in, &g, 1);
        double fused = res.seconds_per_step;
        in.optimizer_impl = EST_OPT_IMPL_FOREACH;
        run(&in, &g, 1);
        assert_true(fabs((res.seconds_per_step - fused) - 231.33e-3) < 0.01e-3);
        double foreach = res.seconds_per_step;
        in.gradient_clipping = true;
        run(&in, &g, 1);
        assert_true(fabs((res.seconds_per_step - foreach) - 49.57e-3) < 0.01e-3);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_training_flops_and_time),
                cmocka_unit_test(test_decode_tokens_per_second),
                cmocka_unit_test(test_data_loading_bottleneck),
                cmocka_unit_test(test_bf16_on_gpu_without_bf16),
                cmocka_unit_test(test_fp8_before_hopper),
                cmocka_unit_test(test_moe_decode_reads_active_experts),
                cmocka_unit_test(test_fp16_accumulate_prefill),
                cmocka_unit_test(test_dequantize_copy),
                cmocka_unit_test(test_optimizer_implementation),
        };
        return cmocka_run_group_tests_name("compute", tests, NULL, NULL);
}
