/*
 * test_time_physics.c - the time mechanisms behind the tail (core/speed.c,
 * core/compute.c): ring all-reduce latency, the power-capped clock, kernel
 * floors in small-batch decode, encoder (prefill-only) throughput, paged
 * optimizer overflow, the CPU-offloaded optimizer step and goodput.  Each
 * expected figure is worked by hand in the comment beside it from the
 * formula's source.
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
#include "core/estimate_internal.h"

#include "engine_fixtures.h"

static struct estimate_result res;

static void run(const struct estimate_input *in, const struct gpu_spec *g, size_t n)
{
        run_into(&res, in, g, n);
}

static void assert_close(double got, double want, double rel)
{
        if (!(fabs(got - want) <= rel * fabs(want)))
                fail_msg("got %.9g, want %.9g (+-%.2g%%)", got, want, 100 * rel);
}

/* NCCL's ring/LL model (src/graph/tuning.cc): 3.6 us + 2 (n - 1) hops.
 *   8 GPUs on NVLink: 3.6 + 14 x 0.47 = 10.18 us
 *   8 GPUs on PCIe:   3.6 + 14 x 1.0  = 17.6 us
 *   2 GPUs on NVLink: 3.6 + 2 x 0.47  = 4.54 us
 *   16 GPUs on 2 nodes: 30 steps, 2 on the network (2.7 us), the other
 *   28 at 1.8 x 0.47 = 0.846 us: 3.6 + 23.688 + 5.4 = 32.688 us */
static void test_ring_latency(void **state)
{
        (void)state;
        assert_close(speed_ring_all_reduce_latency_seconds(8, 1, true), 10.18e-6, 1e-9);
        assert_close(speed_ring_all_reduce_latency_seconds(8, 1, false), 17.6e-6, 1e-9);
        assert_close(speed_ring_all_reduce_latency_seconds(2, 1, true), 4.54e-6, 1e-9);
        assert_close(speed_ring_all_reduce_latency_seconds(16, 2, true), 32.688e-6, 1e-9);
        assert_true(speed_ring_all_reduce_latency_seconds(1, 1, true) == 0);
}

/* f ~ P^(1/3): a 700 W part held to 500 W sustains (5/7)^(1/3) = 0.89390
 * of its clock; an A100 400 W part capped at 330 W (0.825)^(1/3) =
 * 0.93789; no cap, or a cap above the TDP, changes nothing.  Through the
 * engine, a GPU with a 700 W TDP capped at 350 W runs its matmuls at
 * 0.5^(1/3) = 0.79370 of the peak. */
static void test_power_capped_clock(void **state)
{
        (void)state;
        assert_close(speed_power_clock_share(500, 700), 0.8939035350965676, 1e-12);
        assert_close(speed_power_clock_share(330, 400), 0.9378887276834518, 1e-12);
        assert_true(speed_power_clock_share(0, 700) == 1);
        assert_true(speed_power_clock_share(800, 700) == 1);
        assert_true(speed_power_clock_share(300, 0) == 1);

        struct estimate_input in;
        struct gpu_spec g = gpu("h100", 80e9, 3.35e12, 989.4e12);
        g.tdp_watts = 700;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_INFERENCE;
        in.precision = EST_BF16;
        in.batch_size = 1;
        in.prompt_tokens = 2048;
        in.generated_tokens = 0;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_close(res.speed.peak, 989.4e12, 1e-12);
        assert_close(res.clock_share, 1, 1e-12);
        in.power_limit_watts = 350;
        run(&in, &g, 1);
        assert_close(res.speed.peak, 989.4e12 * 0.7937005259840998, 1e-12);
        assert_close(res.clock_share, 0.7937005259840998, 1e-12);
        /* A memory variant keeps the clock and changes the bandwidth. */
        in.power_limit_watts = 0;
        in.memory_bandwidth_bytes_per_s = 2.4e12;
        run(&in, &g, 1);
        assert_close(res.speed.bandwidth, 2.4e12, 1e-12);
}

/* A tiny decoder whose every kernel is shorter than the floor: 32 blocks,
 * hidden 256, 4 heads of 64, FFN 512 (gated), vocabulary 1,000.  Its
 * largest matmul moves 512 x 256 x 2 B = 262 KB, 0.16 us at 0.8 x 2 TB/s,
 * so every kernel costs the floor.
 *   vLLM (CUDA graphs, 1.18 us): per block 4 matmuls + 5 small + 1
 *   attention = 10 kernels; 32 x 10 x 1.18 us = 377.6 us, plus the
 *   0.5 ms serving step: 877.6 us, 1,139.47 tokens/s at batch 1.
 *   llama.cpp (C++ launches, 4 us, fp16, no flash attention): 7 matmuls
 *   + 14 small + 3 attention = 24 kernels; 32 x 24 x 4 us = 3.072 ms
 *   + 0.5 ms = 3.572 ms, 279.96 tokens/s. */
static struct model_arch tiny_decoder(void)
{
        struct model_arch a = llama2_7b();
        a.hidden = 256;
        a.heads = 4;
        a.kv_heads = 4;
        a.head_dim = 64;
        a.ffn = 512;
        a.vocab = 1000;
        return a;
}

/* The tiny decoder generating 64 tokens after 16, fp16, batch 1, with
 * framework fw's defaults applied. */
static void tiny_decode(struct estimate_input *in, enum est_framework fw)
{
        estimate_input_defaults(in);
        in->arch = tiny_decoder();
        in->mode = EST_INFERENCE;
        in->precision = EST_FP16;
        in->batch_size = 1;
        in->prompt_tokens = 16;
        in->generated_tokens = 64;
        in->framework = fw;
        in->gpu_index = 0;
        estimate_apply_framework(in);
}

static void test_decode_kernel_floor(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 80e9, 2.0e12, 312e12);
        tiny_decode(&in, EST_FW_VLLM);
        run(&in, &g, 1);
        assert_close(res.decode_tokens_per_second, 1.0 / 877.6e-6, 1e-6);

        tiny_decode(&in, EST_FW_LLAMA_CPP);
        in.flash_attention = false;
        run(&in, &g, 1);
        assert_close(res.decode_tokens_per_second, 1.0 / 3.572e-3, 1e-6);
}

/* An encoder has no generated tokens: its throughput is the prompt tokens
 * over the prefill.  BERT-base shaped (12 layers, 768, 12 heads, FFN 3072,
 * vocabulary 30,522), batch 32 x 128 tokens = 4,096 tokens; the FLOPs per
 * token are 2 x 84,934,656 block matrix weights (12 x (4 x 768^2 + 2 x
 * 768 x 3072)) + 4 x 128 x 768 x 12 (scores and values over all 128
 * tokens) = 169,869,312 + 4,718,592 = 174,587,904, so 715,112,054,784
 * FLOPs in all; the MFU is that over (peak x prefill seconds). */
static void test_encoder_inference_throughput(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 80e9, 2.0e12, 312e12);
        struct model_arch a;
        memset(&a, 0, sizeof(a));
        strcpy(a.name, "bert-base");
        strcpy(a.model_type, "bert");
        a.kind = MODEL_ENCODER;
        a.layers = 12;
        a.hidden = 768;
        a.heads = 12;
        a.kv_heads = 12;
        a.head_dim = 64;
        a.ffn = 3072;
        a.vocab = 30522;
        a.max_positions = 512;
        a.norm = MODEL_NORM_LAYERNORM;
        a.position = MODEL_POS_LEARNED;
        a.activation = MODEL_ACT_GELU;
        estimate_input_defaults(&in);
        in.arch = a;
        in.mode = EST_INFERENCE;
        in.precision = EST_FP16;
        in.batch_size = 32;
        in.sequence_length = 128;
        in.prompt_tokens = 128;
        in.generated_tokens = 0;
        in.gpu_index = 0;
        run(&in, &g, 1);
        assert_true(res.prefill_seconds > 0);
        assert_close(res.flops_per_step, 715112054784.0, 1e-3);
        assert_close(res.tokens_per_second, 4096 / res.prefill_seconds, 1e-9);
        assert_close(res.mfu, 715112054784.0 / (312e12 * res.prefill_seconds), 1e-3);
}

/* LLaMA-2-7B pre-training in fp32, one sequence of 512 tokens on GPU 0;
 * each test names its own optimizer. */
static void fp32_pre_train_7b(struct estimate_input *in)
{
        estimate_input_defaults(in);
        in->arch = llama2_7b();
        in->mode = EST_PRE_TRAIN;
        in->precision = EST_FP32;
        in->batch_size = 1;
        in->sequence_length = 512;
        in->gpu_index = 0;
}

/* A paged 32-bit AdamW (8 B per parameter of states) beside an fp32
 * LLaMA-2-7B on a 16 GB card: the weights alone (4 x 6.74e9 = 27 GB)
 * exceed the card, so every state byte is
 * overflow: 8 x 6,738,415,616 = 53,907,324,928 B.  Each step moves it in
 * and out, the two directions of a 32 GB/s PCIe link at once at 0.8 of
 * its rate: 2 x 53.907e9 / (2 x 0.8 x 32e9) = 2.10575 s. */
static void test_paged_overflow(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("card16", 16e9, 1.0e12, 165e12);
        g.host_link_bytes_per_s = 32e9;
        fp32_pre_train_7b(&in);
        in.optimizer = EST_OPT_PAGED_ADAMW;
        run(&in, &g, 1);
        assert_int_equal(res.paged_overflow_bytes, 53907324928ull);
        assert_close(res.offload_seconds_per_step, 2.10575, 1e-5);
        assert_true(res.seconds_per_step >= res.compute_seconds_per_step + 2.10575);
        /* On a GPU that holds everything nothing moves. */
        struct gpu_spec big = gpu("big", 400e9, 1.0e12, 165e12);
        run(&in, &big, 1);
        assert_int_equal(res.paged_overflow_bytes, 0);
        assert_true(res.offload_seconds_per_step == 0);
}

/* An fp32 LLaMA-2-7B with its fused AdamW offloaded to the CPU: the step
 * streams 2 x 4 (weights) + 4 (gradient) + 2 x 8 (states) = 28 B per
 * parameter through host DRAM (100 GB/s stated), and the gradients come
 * down and the weights go up over PCIe (4 + 4 B at 32 GB/s):
 *   one GPU:  6,738,415,616 x (28 / 100e9 + 8 / 32e9) = 3.571360 s
 *   8 GPUs of one node under FSDP: each sends its eighth over its own
 *   PCIe link (0.210575 s) and the node's DRAM steps all eight eighths
 *   (1.886756 s): 2.097332 s. */
static void test_cpu_offloaded_step(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("a100", 80e9, 2.0e12, 312e12);
        g.host_link_bytes_per_s = 32e9;
        fp32_pre_train_7b(&in);
        in.optimizer = EST_OPT_ADAMW;
        in.optimizer_impl = EST_OPT_IMPL_FUSED;
        in.offload = EST_OFFLOAD_OPTIMIZER;
        in.host_memory_bytes_per_s = 100e9;
        run(&in, &g, 1);
        assert_close(res.offload_seconds_per_step, P7 * (28 / 100e9 + 8 / 32e9), 1e-9);
        in.strategy = EST_FSDP;
        in.gpus = 8;
        run(&in, &g, 1);
        assert_close(res.offload_seconds_per_step, P7 / 8 * 8 / 32e9 + P7 / 8 * 28 * 8 / 100e9,
                     1e-9);
}

/* Goodput of a long run, Young/Daly: 1,024 GPUs failing at 2e-5 per
 * GPU-hour give a job MTBF of 3600 / (2e-5 x 1024) = 175,781.25 s.  The
 * checkpoint is written at 100 GB/s; its bytes are the estimate's own
 * (weights + states), so the save takes C = bytes / 1e11 s and blocks.
 * The interval is sqrt(2 C M); each interruption loses the restart
 * (600 s) + half an interval; the wall time is
 * T (1 + C / tau) / (1 - (600 + tau / 2) / M). */
static void test_goodput(void **state)
{
        (void)state;
        struct estimate_input in;
        struct gpu_spec g = gpu("h100", 80e9, 3.35e12, 989.4e12);
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 4096;
        in.strategy = EST_FSDP;
        in.gpus = 1024;
        in.nodes = 128;
        in.dataset_tokens = 1000000000000ull;
        in.failures_per_gpu_hour = 2e-5;
        in.checkpoint_write_bytes_per_s = 1e11;
        in.gpu_index = 0;
        run(&in, &g, 1);
        const struct est_goodput *gp = &res.goodput;
        assert_true(gp->present);
        assert_close(gp->mtbf_seconds, 175781.25, 1e-12);
        /* bf16 mixed AdamW: 4 B fp32 weights (autocast keeps them) + 8 B states */
        assert_close(gp->checkpoint_bytes, P7 * (4 + 8), 1e-3);
        double c = gp->checkpoint_bytes / 1e11;
        assert_close(gp->checkpoint_seconds, c, 1e-12);
        double tau = sqrt(2 * c * 175781.25);
        assert_close(gp->checkpoint_interval_s, tau, 1e-12);
        double w = res.total_seconds * (1 + c / tau) / (1 - (600 + tau / 2) / 175781.25);
        assert_close(gp->effective_seconds, w, 1e-12);
        assert_close(gp->goodput, res.total_seconds / w, 1e-12);
        assert_close(gp->expected_interruptions, w / 175781.25, 1e-12);
        /* An asynchronous save blocks only for the copy to host memory
         * (bytes / 1,024 GPUs / 32 GB/s PCIe) but the next save waits for
         * the write: the interval is at least the write, C = bytes / 1e11. */
        in.checkpoint_async = true;
        run(&in, &g, 1);
        assert_close(res.goodput.checkpoint_blocking_seconds, c / 1024 * 1e11 / 32e9, 1e-12);
        assert_true(res.goodput.checkpoint_interval_s >= c);
        /* Interrupted faster than it can progress: it never finishes. */
        in.checkpoint_async = false;
        in.failures_per_gpu_hour = 0.5; /* MTBF 3600 / 512 = 7.03 s, under the restart */
        run(&in, &g, 1);
        assert_true(res.goodput.present);
        assert_true(res.goodput.goodput == 0 && res.goodput.effective_seconds == 0);
        /* Inference has no goodput block. */
        in.mode = EST_INFERENCE;
        in.strategy = EST_SINGLE;
        in.gpus = 1;
        in.nodes = 1;
        in.prompt_tokens = 128;
        in.generated_tokens = 16;
        run(&in, &g, 1);
        assert_false(res.goodput.present);
}

/*
 * Wave quantization (speed.c, speed_wave_shares), a BERT-large block
 * (h = 1,024, 16 heads of 64, MLP 4,096, not gated) on a V100's 80 SMs,
 * 128 x 128 output tiles.
 *   512 tokens (4 row tiles): q, k, v, o and down write 1,024 columns,
 *   4 x 8 = 32 tiles, one wave on 80 SMs: 32 / 80 = 0.4; up writes 4,096,
 *   4 x 32 = 128 tiles, two waves: 128 / 160 = 0.8.  FLOP weights (N x K):
 *   q, k, v, o 1,048,576 each, up and down 4,194,304 each, 12,582,912 in
 *   all.  Forward: (4 x 1,048,576 x 0.4 + 4,194,304 x 0.8 + 4,194,304 x
 *   0.4) / 12,582,912 = 0.53333.  The input gradients write tokens x K:
 *   K = 1,024 (0.4) for q, k, v, o and up, 4,096 (0.8) for down: 0.53333
 *   too; the weight gradients (split over the tokens they reduce) lose
 *   nothing: backward (0.53333 + 1) / 2 = 0.76667.
 *   2,560 tokens (20 row tiles): 160 and 640 tiles, exactly 2 and 8
 *   waves: nothing lost.  Without an SM count nothing is modelled.
 */
static void test_wave_quantization(void **state)
{
        (void)state;
        struct estimate_input in;
        struct est_speed sp;
        double fwd, bwd;
        estimate_input_defaults(&in);
        memset(&in.arch, 0, sizeof(in.arch));
        in.arch.hidden = 1024;
        in.arch.heads = 16;
        in.arch.kv_heads = 16;
        in.arch.head_dim = 64;
        in.arch.ffn = 4096;
        in.arch.layers = 24;
        memset(&sp, 0, sizeof(sp));
        sp.sm_count = 80;
        speed_wave_shares(&in, &sp, 512, &fwd, &bwd);
        assert_close(fwd, 6.4 / 12, 1e-12);
        assert_close(bwd, (6.4 / 12 + 1) / 2, 1e-12);
        speed_wave_shares(&in, &sp, 2560, &fwd, &bwd);
        assert_close(fwd, 1, 1e-12);
        assert_close(bwd, 1, 1e-12);
        sp.sm_count = 0;
        speed_wave_shares(&in, &sp, 512, &fwd, &bwd);
        assert_close(fwd, 1, 1e-12);
}

/*
 * The attention kernel a request names sets the share of peak its fused
 * attention runs at (speed.c, from the FlashAttention-2 and -3 papers and
 * pytorch/benchmark's published H100 runs).  Llama 2 7B, bf16 pre-training
 * with flash attention: 32 blocks of 32 heads x 128, so 4 x 4,096 x 32 =
 * 524,288 attention FLOPs per token and attended context token.  One pass
 * over 4,096 tokens with 2,048 attended each: 4,096 x 2,048 x 524,288 =
 * 4.398046511e12 FLOPs.
 *   A100 (312 TFLOP/s): FlashAttention-1 at 0.30: 4.398e12 / 93.6e12 =
 *   46.988 ms; FlashAttention-2 (and SDPA) at 0.55: / 171.6e12 = 25.629 ms;
 *   FlashAttention-3 has no Ampere kernel figure: FA2's.
 *   H100 (989.4 TFLOP/s): FA2 at 0.35: / 346.29e12 = 12.700 ms; Triton at
 *   0.40: / 395.76e12 = 11.113 ms; FA3 and cuDNN at 0.60: / 593.64e12 =
 *   7.4086 ms.
 */
static double attention_pass_seconds_hd(enum est_attention_kernel k, struct gpu_spec *g,
                                        uint32_t head_dim, enum est_framework fw)
{
        struct estimate_input in;
        struct speed_parts p;
        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        /* the same query width (4,096) in heads of head_dim */
        in.arch.heads = in.arch.kv_heads = 4096 / head_dim;
        in.arch.head_dim = head_dim;
        in.framework = fw;
        in.mode = EST_PRE_TRAIN;
        in.precision = EST_BF16_MIXED;
        in.batch_size = 1;
        in.sequence_length = 4096;
        in.flash_attention = true;
        in.attention_kernel = k;
        in.gpu_index = 0;
        run(&in, g, 1);
        speed_pass_parts(&res.speed, 4096, 2048, 0, &p);
        return p.attention_compute;
}

static double attention_pass_seconds(enum est_attention_kernel k, struct gpu_spec *g)
{
        return attention_pass_seconds_hd(k, g, 128, EST_FW_NONE);
}

static void test_attention_kernel_table(void **state)
{
        (void)state;
        struct gpu_spec a100 = gpu("a100", 80e9, 2.0e12, 312e12);
        struct gpu_spec h100 = gpu("h100", 80e9, 3.35e12, 989.4e12);
        snprintf(h100.vendor, sizeof(h100.vendor), "NVIDIA"); /* Hopper: >= 500 TFLOP/s */
        double flops = 4096.0 * 2048 * 524288;
        assert_close(flops, 4.398046511104e12, 1e-12);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_FA1, &a100), 46.988e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_FA2, &a100), 25.629e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_SDPA, &a100), 25.629e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_FA3, &a100), 25.629e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_FA2, &h100), 12.700e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_TRITON, &h100), 11.113e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_FA3, &h100), 7.4086e-3, 1e-4);
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_CUDNN, &h100), 7.4086e-3, 1e-4);
        /* Unnamed, a plain PyTorch training step on an H100 runs FA2. */
        assert_close(attention_pass_seconds(EST_ATTN_KERNEL_AUTO, &h100), 12.700e-3, 1e-4);
}

/*
 * Head size: the same 4.398e12 attention FLOPs in 64 heads of 64 instead
 * of 32 of 128.  The FlashAttention-3 paper's figure 5 (H100, fp16
 * forward, 8k tokens, no causal mask) at head dim 64 against 128: FA2 322
 * / 370 = 0.870270, FA3 496 / 646 = 0.767802, cuDNN 412 / 600 = 0.686667,
 * Triton 401 / 392 (kept at 1).
 *   A100, FA2 at 0.55 x 0.870270: 4.398e12 / 149.34e12 = 29.450 ms
 *   A100, FA2, head dim 96 (42 heads, query width 4,032: 4.3293e12
 *     FLOPs): 0.870270 + 0.129730 x 32 / 64 = 0.935135:
 *     4.3293e12 / 160.47e12 = 26.979 ms
 *   H100, FA2 at 0.35 x 0.870270: 4.398e12 / 301.37e12 = 14.594 ms
 *   H100, FA3 at 0.60 x 0.767802: 4.398e12 / 455.80e12 = 9.6491 ms
 *   H100, cuDNN at 0.60 x 0.686667: 4.398e12 / 407.63e12 = 10.789 ms
 *   H100, Triton at 0.40: 11.113 ms, as at 128
 *   A100, FlashAttention-1: 46.988 ms, its figure is already a 64-wide one
 *   H100, Megatron with no kernel named runs Transformer Engine's cuDNN
 *     attention: 10.789 ms
 * Heads of 256 keep the 128 figure: FA2 on an A100 25.629 ms.
 */
static void test_attention_head_dim(void **state)
{
        (void)state;
        struct gpu_spec a100 = gpu("a100", 80e9, 2.0e12, 312e12);
        struct gpu_spec h100 = gpu("h100", 80e9, 3.35e12, 989.4e12);
        snprintf(h100.vendor, sizeof(h100.vendor), "NVIDIA");
        enum est_framework none = EST_FW_NONE;
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_FA2, &a100, 64, none), 29.450e-3,
                     1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_FA2, &a100, 96, none), 26.979e-3,
                     1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_FA2, &h100, 64, none), 14.594e-3,
                     1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_FA3, &h100, 64, none), 9.6491e-3,
                     1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_CUDNN, &h100, 64, none),
                     10.789e-3, 1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_TRITON, &h100, 64, none),
                     11.113e-3, 1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_FA1, &a100, 64, none), 46.988e-3,
                     1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_AUTO, &h100, 64, EST_FW_MEGATRON),
                     10.789e-3, 1e-4);
        assert_close(attention_pass_seconds_hd(EST_ATTN_KERNEL_FA2, &a100, 256, none), 25.629e-3,
                     1e-4);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wave_quantization),
                cmocka_unit_test(test_ring_latency),
                cmocka_unit_test(test_power_capped_clock),
                cmocka_unit_test(test_decode_kernel_floor),
                cmocka_unit_test(test_encoder_inference_throughput),
                cmocka_unit_test(test_paged_overflow),
                cmocka_unit_test(test_cpu_offloaded_step),
                cmocka_unit_test(test_goodput),
                cmocka_unit_test(test_attention_kernel_table),
                cmocka_unit_test(test_attention_head_dim),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
