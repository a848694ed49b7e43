/*
 * speed.c - what one forward pass of a model costs on one GPU.
 *
 * The model is Horace He's three regimes ("Making Deep Learning Go Brrrr
 * From First Principles", horace.io/brrr_intro.html, 2022): time goes to
 * compute (FLOPs at the tensor units), to memory (bytes through HBM/GDDR)
 * and to overhead (the host dispatching kernels).  Each kind of work is
 * placed on a roofline (Williams, Waterman and Patterson, CACM 2009): its
 * time is the larger of FLOPs / achieved FLOP/s and bytes / achieved
 * bandwidth.
 *
 *   matmuls      2 x (block + head parameters a token touches) FLOPs per
 *                token; they read every weight once per pass and their
 *                inputs and outputs once per token
 *   attention    4 x query width x context FLOPs per token and layer
 *                (scores and weighted values; Kaplan et al. 2020 Table 1),
 *                reading the cached keys and values in decode
 *   element-wise norms, residual adds, activations, rotary embeddings:
 *                pure memory traffic, counted op by op from how eager
 *                PyTorch (Hugging Face modelling code) and fused kernels
 *                (torch.compile, serving engines) execute them
 *   overhead     eager dispatch: one host-side operator call per op; the
 *                GPU idles when its kernels are shorter than the calls
 *
 * A pass costs max(GPU time, host time) + the engine's fixed per-step
 * overhead.  Training steps are built from passes in compute.c.
 */
#include "core/estimate_internal.h"

#include <math.h>
#include <string.h>

/* ---- constants, each with its source ------------------------------------ */

/*
 * Matmul efficiency: the fraction of the datasheet's dense tensor rate
 * that transformer-sized GEMMs sustain.  FlashAttention-2 (Dao 2023,
 * section 4.2) trains GPT-style models at 225 of 312 TFLOP/s per A100
 * (72% MFU) end to end, so the matmuls themselves run at >= 0.72 there:
 * 0.70 for Ampere, Ada and older tensor units.  Hopper and Blackwell
 * parts fall further below their datasheet rate: the rate assumes the
 * boost clock, which a 700 W H100 does not hold under dense tensor load,
 * and whole-model training on the same software reaches lower MFU than
 * on an A100 (Megatron-LM README: 41-47% on H100 against 52% on A100 in
 * Narayanan et al. 2021); cuBLAS on a B200 sustains 0.68-0.73 on
 * 4096-8192 cubes and less on thinner shapes (pyptx.dev/performance,
 * CUDA 12.8): 0.55.  fp8 matmuls run 1.25-1.75x bf16, not 2x (cuBLAS
 * 12.9 release notes on Hopper): 0.75 of the bf16 efficiency against
 * the fp8 peak.  fp32 on the vector units: SGEMM reaches about 0.85 of
 * peak (cuBLAS vs CUDA-core kernels on an L20, DefTruth CUDA-Learn-Notes).
 */
static const double gemm_efficiency_tensor = 0.70;
static const double gemm_efficiency_hopper = 0.55;
static const double gemm_efficiency_fp8_share = 0.75;
static const double gemm_efficiency_fp32 = 0.85;
/*
 * Fused attention: FlashAttention-2 reaches 50-73% of peak forward and
 * somewhat less backward on an A100 (Dao 2023, figures 4-7); on an H100
 * FlashAttention-2 runs at about 35% of peak (Shah et al. 2024,
 * FlashAttention-3, section 1), the Hopper-specific kernels at 75%.
 */
static const double attention_efficiency_ampere = 0.55;
static const double attention_efficiency_hopper = 0.35;
/* Hopper-specific attention kernels (FlashAttention-3, cuDNN's fused
 * attention behind Transformer Engine, TensorRT-LLM's FMHA): Shah et al.
 * 2024 report 75% of peak for FlashAttention-3 in bf16; 0.60 leaves room
 * for the backward pass and shorter sequences. */
static const double attention_efficiency_hopper_fused = 0.60;
/*
 * Kernels a request names (runtime.attention_kernel), by what their
 * authors or benchmark suites published:
 *   FlashAttention (v1) on an A100: 25-40% of peak (Dao 2023,
 *     FlashAttention-2, arXiv 2307.08691, abstract): 0.30.
 *   Triton's fused attention on an H100, forward, head dim 128: 329-477
 *     TFLOP/s for 512-16,384 tokens (pytorch/benchmark commit ff65cb6,
 *     PR 2391) and 353-420 (commit d5f0a12, PR 2296), 0.33-0.48 of the
 *     H100 SXM's 989 dense bf16 TFLOP/s: 0.40.
 *   FlashAttention-2 (PyTorch SDPA's flash backend) on an H100: 287-304
 *     TFLOP/s in the same run of d5f0a12, 0.29-0.31, beside the FA3
 *     paper's 35%: attention_efficiency_hopper.
 *   FlashAttention-3 on an H100: 430-621 TFLOP/s forward in ff65cb6
 *     (0.43-0.63), up to 75% in its paper: attention_efficiency_hopper_fused;
 *     cuDNN's fused attention is the kernel FA3's paper measures itself
 *     against at that level.
 * Off Hopper, FA3, cuDNN and Triton have no published figure here and take
 * FlashAttention-2's.
 */
static const double attention_efficiency_fa1 = 0.30;
static const double attention_efficiency_triton_hopper = 0.40;
/* Streaming kernels reach about 80% of peak bandwidth (AIConfigurator's
 * mem_bw_empirical_scaling_factor is 0.8). */
static const double bandwidth_efficiency = 0.80;
/*
 * Host cost of one eager PyTorch operator call (Python, dispatcher,
 * launch): about 10 microseconds, the flat floor of small-op timings in
 * He 2022 ("overhead" section).  Operators per block in Hugging Face
 * modelling code, counted from modeling_llama.py (forward): RMSNorm 6
 * twice, q/k/v/o projections 4, reshapes and transposes 6, rotary 10,
 * SDPA 1, MLP 5, residual adds 2 = 40; an encoder block with fused
 * LayerNorm (modeling_bert.py) about 25.  Autograd runs about two
 * backward ops per forward op.
 */
static const double eager_op_seconds = 10e-6;
static const double eager_ops_per_block_rmsnorm = 40;
static const double eager_ops_per_block_layernorm = 25;
/*
 * Fused runtimes still launch kernels: torch.compile (Inductor) about 12
 * per block forward; serving engines replay CUDA graphs (vLLM, llama.cpp,
 * gpt-fast) and pay a per-step cost for scheduling and sampling instead.
 */
static const double compiled_ops_per_block = 12;
static const double launch_seconds = 4e-6; /* cudaLaunchKernel from a compiled wrapper */
static const double serving_step_seconds = 0.5e-3;
/*
 * NCCL's latency model for a ring all-reduce with the LL protocol, the one
 * it picks for the few KiB a decode step's all-reduce carries
 * (NVIDIA/nccl src/graph/tuning.cc at 01afd20: baseLat Ring/LL 3.6 us;
 * hwLat Ring/LL per step 0.47 us over NVLink, 1.0 us over PCIe, 2.7 us
 * over the network; steps 2 (n - 1) for an all-reduce, of which
 * 2 (nodes - 1) cross the network; intra-node steps of a multi-node ring
 * count 1.8 times).  On 8 NVLink GPUs: 3.6 + 14 x 0.47 = 10.2 us; on 8
 * PCIe GPUs 17.6 us.
 */
static const double ring_base_latency_s = 3.6e-6;
static const double ring_step_latency_nvlink_s = 0.47e-6;
static const double ring_step_latency_pcie_s = 1.0e-6;
static const double ring_step_latency_net_s = 2.7e-6;
/* Collectives over NVLink reach about 0.8 of the link's one-way rate
 * (nccl-tests all_reduce_perf bus bandwidth on DGX H100: about 360-370 of
 * 450 GB/s). */
static const double collective_bandwidth_efficiency = 0.8;
/*
 * The least time a kernel takes however few bytes it moves.  Measured by
 * tests/measure/time_floors.py on an H100 SXM with PyTorch 2.11
 * (tests/data/time_floors_h100.json): a 4,096-element add launched 2,000
 * times back to back costs 1.18 us per kernel replayed from a CUDA graph
 * and 10.9 us from eager PyTorch (the Python dispatch, eager_op_seconds
 * below).  Engines that launch from C++ without graphs (llama.cpp before
 * its CUDA graphs, ggml-cuda PR 6766 of May 2024; ExLlama) pay the launch
 * itself, launch_seconds.
 */
static const double kernel_floor_graph_s = 1.18e-6;
/*
 * Weight-only quantized kernels unpack every weight on the CUDA cores
 * before the multiply, in the same instruction stream as the loads: about
 * 2 operations per int8/fp8 weight (convert, scale) and 4 per 4-bit
 * weight (shift and mask, convert, subtract the zero point, scale), as in
 * llama.cpp's dequantize_q4_0/q8_0 and GPTQ/AWQ kernels.  The unpacking is
 * charged on top of the memory time: batch-1 decode with 4-bit weights
 * runs well below the bandwidth a 16-bit model reaches (gpt-fast README:
 * 4.8x fewer bytes, 1.9x the tokens per second on an A100).
 */
static double dequant_ops_per_weight(enum est_quant q)
{
        switch (q) {
        case EST_QUANT_INT8:
        case EST_QUANT_FP8:
                return 2;
        case EST_QUANT_INT4:
        case EST_QUANT_NF4:
        case EST_QUANT_MXFP4:
                return 4;
        default:
                return 0;
        }
}

/*
 * fp16 accumulation.  GeForce tensor cores multiply fp16 at twice the rate
 * when they also accumulate in fp16 (Ampere GA102 whitepaper: RTX 3090 142
 * against 71 TFLOPS dense; Ada whitepaper appendix: RTX 4090 330.3 against
 * 165.2); data-centre and workstation parts run both at one rate.  The
 * catalog stores the fp16-accumulate rate apart (fp16_accumulate_flops).
 * Kernels do not realise the whole doubling: a matmul on an RTX 4060
 * (sm_89) measured 53.1 TFLOP/s with fp16 accumulation against 31.0 with
 * fp32, 1.72x of the 2x (triton-lang/triton issue 10851, NCU-profiled,
 * 2026): the fp16-accumulate rate counts at 1.72 / 2 of its datasheet
 * figure, before the matmul efficiency below.
 */
static const double fp16_accumulate_realised = 1.72 / 2;

/*
 * Engines that dequantize a quantized matrix to an fp16 copy and hand the
 * copy to cuBLAS once a pass has enough rows (runtime.dequantize_to_fp16):
 * ExLlama v2 above 50 rows (MAX_Q_GEMM_ROWS in exllamav2's q_matrix), and
 * GPTQ layers running its kernels; llama.cpp's CUDA backend above 32
 * tokens (MMQ_MAX_BATCH_SIZE with tensor cores, ggml-cuda.cu) in builds
 * before its MMQ kernels became the default for quantized types (PR 8075,
 * June 2024) or built with GGML_CUDA_FORCE_CUBLAS; bitsandbytes for any
 * input of more than one token (matmul_4bit calls dequantize_4bit, then
 * F.linear).  The copy costs one read of the packed weights and one fp16
 * write, and the matmul then reads fp16.
 */
static double reconstruct_min_tokens(const struct estimate_input *in)
{
        if (!in->dequantize_to_fp16 || in->quantization == EST_QUANT_NONE ||
            in->quantization == EST_QUANT_FP8)
                return 0;
        if (in->framework == EST_FW_LLAMA_CPP)
                return 32;
        return in->quantization == EST_QUANT_NF4 ? 1 : 50;
}

/* Hopper and Blackwell data-centre parts: >= 500 TFLOP/s dense bf16. */
static bool hopper_class(const struct gpu_spec *g)
{
        return g && !strcmp(g->vendor, "NVIDIA") && g->flops[GPU_BF16] >= 500e12;
}

/* Megatron-LM's tuned Transformer Engine GEMMs hold the Ampere share on
 * Hopper (its README's 41-47% MFU is whole-model, with communication);
 * serving engines do not escape the clock: TensorRT-LLM's own fp8 prefill
 * on an H100 (Llama 2 7B, 2,048 tokens in 36 ms, performance.md of
 * v0.6.1) sustains about 40% of the fp8 datasheet rate. */
static double speed_gemm_efficiency(const struct gpu_spec *g, enum gpu_precision p,
                                    const struct estimate_input *in)
{
        if (p == GPU_FP32)
                return gemm_efficiency_fp32;
        bool tuned = in->framework == EST_FW_MEGATRON;
        double e = hopper_class(g) && !tuned ? gemm_efficiency_hopper : gemm_efficiency_tensor;
        return p == GPU_FP8 ? e * gemm_efficiency_fp8_share : e;
}

/*
 * Head size.  The kernel figures above are for 128-wide heads.  A narrower
 * head does the same softmax work per score for half the matmul FLOPs,
 * and the kernels' share of peak falls with it.  Shah et al. 2024
 * (FlashAttention-3, arXiv 2407.08608, figure 5: forward pass, fp16, H100
 * SXM5, 8k tokens, no causal mask) measured at head dim 64 against 128:
 * FlashAttention-2 322 against 370 TFLOP/s (0.87), FlashAttention-3 496
 * against 646 (0.77), cuDNN 412 against 600 (0.69) and Triton 401 against
 * 392 (no loss: 1).  The ratio is the kernel's, not the GPU's (the
 * non-matmul share of the work doubles on any GPU), so it applies off
 * Hopper too.  Between 64 and 128 the share is interpolated linearly,
 * narrower heads take the 64 figure and wider ones the 128 figure.
 * FlashAttention (v1)'s figure is already one for 64-wide heads.
 */
static const double head_dim_64_share_fa2 = 322.0 / 370.0;
static const double head_dim_64_share_fa3 = 496.0 / 646.0;
static const double head_dim_64_share_cudnn = 412.0 / 600.0;

double speed_attention_head_dim_share(enum est_attention_kernel k, double head_dim)
{
        double r;
        switch (k) {
        case EST_ATTN_KERNEL_SDPA:
        case EST_ATTN_KERNEL_FA2:
                r = head_dim_64_share_fa2;
                break;
        case EST_ATTN_KERNEL_FA3:
                r = head_dim_64_share_fa3;
                break;
        case EST_ATTN_KERNEL_CUDNN:
                r = head_dim_64_share_cudnn;
                break;
        default: /* FA1, Triton */
                return 1;
        }
        if (!(head_dim < 128))
                return 1;
        if (head_dim <= 64)
                return r;
        return r + (1 - r) * (head_dim - 64) / 64;
}

/* Megatron (Transformer Engine) and serving engines bring their own
 * Hopper attention kernels; PyTorch's SDPA runs FlashAttention-2.  *kernel
 * receives the kernel that runs: the named one, or the one the framework
 * brings (Transformer Engine's is cuDNN's; serving engines' FA3-class). */
static double attention_kernel_efficiency(const struct gpu_spec *g, const struct estimate_input *in,
                                          bool training, enum est_attention_kernel *kernel)
{
        bool hopper = hopper_class(g);
        *kernel = in->attention_kernel;
        switch (in->attention_kernel) {
        case EST_ATTN_KERNEL_FA1:
                return attention_efficiency_fa1;
        case EST_ATTN_KERNEL_SDPA:
        case EST_ATTN_KERNEL_FA2:
                return hopper ? attention_efficiency_hopper : attention_efficiency_ampere;
        case EST_ATTN_KERNEL_TRITON:
                return hopper ? attention_efficiency_triton_hopper : attention_efficiency_ampere;
        case EST_ATTN_KERNEL_FA3:
        case EST_ATTN_KERNEL_CUDNN:
                if (!hopper)
                        *kernel = EST_ATTN_KERNEL_FA2; /* no kernel of their own off Hopper */
                return hopper ? attention_efficiency_hopper_fused : attention_efficiency_ampere;
        case EST_ATTN_KERNEL_AUTO:
        case EST_ATTN_KERNEL_COUNT:
                break;
        }
        *kernel = EST_ATTN_KERNEL_FA2;
        if (!hopper)
                return attention_efficiency_ampere;
        if (in->framework == EST_FW_MEGATRON) {
                *kernel = EST_ATTN_KERNEL_CUDNN;
                return attention_efficiency_hopper_fused;
        }
        if (in->framework == EST_FW_VLLM || (!training && in->framework == EST_FW_NONE)) {
                *kernel = EST_ATTN_KERNEL_FA3;
                return attention_efficiency_hopper_fused;
        }
        return attention_efficiency_hopper;
}

static double speed_attention_efficiency(const struct gpu_spec *g, const struct estimate_input *in,
                                         bool training)
{
        enum est_attention_kernel k;
        double e = attention_kernel_efficiency(g, in, training, &k);
        return e * speed_attention_head_dim_share(k, in->arch.head_dim);
}

double speed_ring_all_reduce_latency_seconds(double ranks, double nodes, bool nvlink)
{
        if (!(ranks > 1))
                return 0;
        double steps = 2 * (ranks - 1);
        double net_steps = nodes > 1 ? 2 * (nodes - 1) : 0;
        double hop = nvlink ? ring_step_latency_nvlink_s : ring_step_latency_pcie_s;
        if (nodes > 1)
                hop *= 1.8;
        if (net_steps > steps)
                net_steps = steps;
        return ring_base_latency_s + (steps - net_steps) * hop + net_steps * ring_step_latency_net_s;
}

double speed_power_clock_share(double limit_watts, double tdp_watts)
{
        if (!(limit_watts > 0) || !(tdp_watts > 0) || limit_watts >= tdp_watts)
                return 1;
        return cbrt(limit_watts / tdp_watts);
}

/*
 * Kernels one decode pass launches per block, by engine, counted from
 * their model code: vLLM's Llama (fused qkv_proj and gate_up_proj; fused
 * add + RMSNorm twice, rotary, reshape_and_cache, silu_and_mul: 4 matmuls,
 * 5 small kernels, 1 attention); gpt-fast (wqkv, wo, w1, w3, w2: 5
 * matmuls, Inductor's fused norm, rotary, cache update and silu-mul
 * kernels: 5); llama.cpp's llama graph (q, k, v, o, gate, up, down as 7
 * mat-vecs, each quantized weight's input first converted to q8_1 by its
 * own kernel; rms_norm and mul twice, rope twice, two cache copies, a
 * contiguous copy, two residual adds, silu and mul: 14; without flash
 * attention KQ, softmax and KQV are 3 kernels); ExLlama (7 q4 matmuls,
 * 2 norms, rotary, 2 residual adds, silu-mul: 6 small, attention through
 * PyTorch's SDPA).
 */
static void decode_kernels(const struct estimate_input *in, struct est_speed *sp, double layers,
                           double attn_layers)
{
        bool quantized = in->quantization != EST_QUANT_NONE && in->quantization != EST_QUANT_FP8;
        double mm = 4, small = 5, attn = 1;
        double floor_s = kernel_floor_graph_s;
        if (in->framework == EST_FW_LLAMA_CPP) {
                mm = 7;
                small = 14 + (quantized ? 7 : 0);
                attn = in->flash_attention ? 1 : 3;
                floor_s = launch_seconds;
        } else if (in->framework == EST_FW_EXLLAMA) {
                mm = 7;
                small = 6;
                floor_s = launch_seconds;
        } else if (in->framework == EST_FW_NONE) {
                mm = 5;
        }
        sp->kernel_floor = floor_s;
        sp->matmul_kernels = mm * layers;
        sp->small_kernels = small * layers;
        sp->attention_kernels = attn * attn_layers;
}

/*
 * Element-wise bytes per token and block of one forward pass, e bytes per
 * activation element.  Eager counts follow the Hugging Face modules op by
 * op: RMSNorm upcasts to fp32, squares, averages, multiplies and casts
 * back (~18 e per element: 36 bytes in bf16); nn.LayerNorm is one fused
 * kernel (read + write); SiLU-gated MLPs run silu then mul (5 e per
 * intermediate element); rotate_half builds q and k through a cat, two
 * muls and an add (10 e per element); a residual add reads two and
 * writes one (3 e); dropout writes a 1-byte mask as well.  Fused kernels
 * read each input once and write each output once.  Under autocast
 * (PyTorch AMP, fp32 weights with half copies) layer_norm is on the
 * fp32 list (torch.amp autocast op reference): the residual add of a half
 * output to the fp32 stream writes fp32, the norm reads and writes fp32 and
 * the next matmul casts its input back: about 12 e per element for norm
 * and residual together instead of 5 e.
 */
static double elementwise_block_bytes(const struct estimate_input *in, double e, bool fused,
                                      bool training, bool autocast)
{
        const struct model_arch *a = &in->arch;
        double h = a->hidden, q = (double)a->heads * a->head_dim;
        double kv = (double)a->kv_heads * a->head_dim;
        double f = (double)a->ffn * (a->experts > 1 ? a->active_experts : 1) + a->shared_expert_ffn;
        double norms = a->block_norms ? a->block_norms : 2;
        bool rms = a->norm == MODEL_NORM_RMSNORM;
        double bytes = 0;

        if (autocast && !fused && !rms)
                bytes += norms * h * 12 * e; /* norm + residual in fp32 */
        else
                bytes += norms * h * (rms && !fused ? 18 * e : 2 * e) + 2 * 3 * e * h;
        if (a->gated_mlp)
                bytes += f * (fused ? 3 * e : 5 * e);
        else
                bytes += f * 2 * e;
        if (a->position == MODEL_POS_ROTARY)
                bytes += (q + kv) * (fused ? 2 * e : 10 * e);
        if (!fused)
                bytes += 2 * e * q; /* attention output made contiguous */
        if (training && a->dropout > 0)
                bytes += 2 * h * (2 * e + 1);
        if (a->experts > 1) /* tokens permuted to and from their experts */
                bytes += 4 * e * h * a->active_experts;
        return bytes;
}

/*
 * Bytes one attention score costs in an eager forward pass (Hugging Face
 * modelling code: matmul, scale, mask, softmax, dropout, matmul): the
 * scores written (e), scaled and masked in place of copies (2 e each),
 * softmax reading e and writing s (fp32 under autocast, where softmax is
 * on the fp32 list), dropout reading and writing s plus a 1-byte mask, the
 * cast back to e before the value matmul, which reads them (e).  fp16
 * autocast training: 2 + 4 + 4 + 6 + 9 + 6 + 2 = 33 bytes.
 */
static double eager_score_bytes(double e, bool autocast, bool dropout)
{
        double s = autocast ? 4 : e;
        return e + 2 * e + 2 * e + (e + s) + (dropout ? 2 * s + 1 : 0) + (s != e ? s + e : 0) + e;
}

/*
 * Operator calls autocast adds to an eager block's forward
 * (aten/src/ATen/autocast_mode.cpp): linear and matmul are
 * lower_precision_fp ops, which cast every floating-point input that is
 * not yet half, so each weight and each bias is cast (the weight cast
 * cache lasts one autocast region); layer_norm, softmax and the other fp32
 * ops cast their half input up.  Each cast is one more operator call, and
 * its backward one more (counted by the passes in compute.c).  FSDP's
 * MixedPrecision gathers half weights and Megatron-LM keeps its own half
 * copies: they do not autocast.
 */
static double autocast_casts_per_block(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        bool autocast = d->amp && in->strategy != EST_FSDP && in->framework != EST_FW_MEGATRON &&
                        (in->precision == EST_FP16_MIXED || in->precision == EST_BF16_MIXED);
        if (!autocast)
                return 0;
        double mlp = a->gated_mlp ? 3 : 2;
        double weights = 4 + mlp;
        double biases = (a->attn_bias ? 4 : (a->qkv_bias_only ? 3 : 0)) + (a->mlp_bias ? mlp : 0);
        double fp32_ops = (a->block_norms ? a->block_norms : 2) + (in->flash_attention ? 0 : 1);
        return weights + biases + fp32_ops;
}

void speed_build(const struct estimate_input *in, const struct derived *d, const struct gpu_spec *g,
                 enum gpu_precision prec, struct est_speed *sp)
{
        const struct model_arch *a = &in->arch;
        double tp = in->tensor_parallel, pp = in->pipeline_parallel;
        double layers = ((double)a->layers + a->decoder_layers) / pp;
        /* Gated DeltaNet blocks (Yang et al. 2024, "Gated Delta Networks")
         * attend to nothing: the rest of the blocks do. */
        double lin = a->linear_layers && a->layers > 0
                             ? (double)a->linear_layers / a->layers * layers
                             : 0;
        double attn_layers = layers - lin;
        double q = (double)a->heads * a->head_dim, h = a->hidden;
        double kv = (double)a->kv_heads * a->head_dim;
        double f = (double)a->ffn * (a->experts > 1 ? a->active_experts : 1) + a->shared_expert_ffn;
        /* Megatron-LM runs Transformer Engine's fused norm, activation,
         * rotary and softmax kernels (megatron/core/fusions). */
        /* Framework none at inference is a serving engine (fused kernels,
         * flash attention) unless the request says flash_attention false:
         * then it is eager PyTorch, as transformers' generate() runs. */
        bool eager_none = in->framework == EST_FW_NONE && (in->set & EST_SET_FLASH) &&
                          !in->flash_attention;
        bool fused = in->compile || in->framework == EST_FW_VLLM ||
                     in->framework == EST_FW_MEGATRON || in->framework == EST_FW_LLAMA_CPP ||
                     in->framework == EST_FW_EXLLAMA ||
                     (!d->training && in->framework == EST_FW_NONE && !eager_none);
        /* ggml graphs keep activations in fp32 (GGML_TYPE_F32) and each
         * cuBLAS matmul converts its input to fp16 and its fp16 result back
         * (ggml_cuda_op_mul_mat_cublas: to_fp16_cuda, to_fp32_cuda). */
        bool ggml = in->framework == EST_FW_LLAMA_CPP;
        double e_act = ggml ? 4 : d->e_a;

        memset(sp, 0, sizeof(*sp));
        sp->peak = g ? g->flops[prec] : 0;
        if (g && sp->peak <= 0 && prec == GPU_TF32)
                sp->peak = g->flops[GPU_FP32];
        /* A power cap lowers the clock the tensor units sustain; memory
         * bandwidth does not follow the SM clock. */
        sp->clock_share = speed_power_clock_share(in->power_limit_watts, g ? g->tdp_watts : 0);
        sp->peak *= sp->clock_share;
        sp->bandwidth = g ? g->memory_bandwidth_bytes_per_s : 0;
        sp->sm_count = g && g->cuda ? g->sm_count : 0;
        sp->gemm_efficiency = speed_gemm_efficiency(g, prec, in);
        sp->gemm_peak = sp->peak;
        if (in->fp16_accumulation && prec == GPU_FP16 && g &&
            g->fp16_accumulate_flops * fp16_accumulate_realised * sp->clock_share > sp->peak)
                sp->gemm_peak =
                        g->fp16_accumulate_flops * fp16_accumulate_realised * sp->clock_share;
        /* Serving engines always run fused attention (paged attention,
         * FlashInfer, TensorRT-LLM FMHA, llama.cpp's flash kernels). */
        bool flash = in->flash_attention || (fused && !d->training);
        sp->attention_efficiency =
                flash ? speed_attention_efficiency(g, in, d->training) : sp->gemm_efficiency;
        if (!flash) {
                sp->score_elements = (double)a->heads / tp * attn_layers;
                sp->score_bytes = eager_score_bytes(d->e_a, d->amp, d->training && a->dropout > 0);
        }
        sp->bandwidth_efficiency = bandwidth_efficiency;
        sp->activation_bytes = d->e_a;

        /* Matmuls of one token on this GPU: the stage's blocks split by TP. */
        double linear = (double)d->pb.linear_active / pp / tp;
        double head = d->lm_logits ? (double)a->vocab * h / tp : 0;
        sp->linear_flops = 2.0 * (linear + head);
        /* Inputs and outputs of every matmul of a block (q, k, v, o, MLP). */
        double io = (h + q) + 2 * (h + kv) + (q + h) +
                    (a->gated_mlp ? 2 * (h + f) + (f + h) : 2 * (h + f));
        sp->gemm_io_bytes =
                layers * io / tp * d->e_a + (head > 0 ? (h + a->vocab / tp) * d->e_a : 0);
        /* Weights read per pass: quantized matrices at their packed size. */
        sp->weight_bytes = (double)d->pb.linear / pp / tp * d->e_q + head * d->e_w;
        if (a->experts > 1 && a->active_experts < a->experts) {
                double E = a->experts, k = a->active_experts;
                /* (linear - linear_active) is the E - k experts a token skips. */
                sp->expert_weight_bytes = (double)(d->pb.linear - d->pb.linear_active) * E /
                                          (E - k) / pp / tp * d->e_q;
                sp->experts = E;
                sp->active_experts = k;
        }
        if (!d->training && !(in->quantization == EST_QUANT_FP8 && prec == GPU_FP8) && g) {
                sp->dequant_ops =
                        (double)d->pb.linear / pp / tp * dequant_ops_per_weight(in->quantization);
                sp->alu_rate = g->flops[GPU_FP32];
                sp->reconstruct_min_tokens = reconstruct_min_tokens(in);
                if (sp->reconstruct_min_tokens > 0) {
                        sp->reconstruct_weights = (double)d->pb.linear / pp / tp;
                        sp->reconstruct_packed_bytes = d->e_q;
                }
        }
        /* Their recurrence (this stage's share), and a decode step reads
         * and writes each sequence's state. */
        if (lin > 0) {
                double share = lin / a->linear_layers / tp;
                sp->linear_flops += model_recurrent_flops_per_token(a) * share;
                sp->state_bytes = 2.0 * (double)model_recurrent_state_elements(a) * share * d->e_kv;
        }
        sp->attention_flops = 4.0 * q / tp * attn_layers;
        if (a->kind == MODEL_ENCODER_DECODER)
                sp->attention_flops += 4.0 * q / tp * a->decoder_layers / pp;
        sp->kv_bytes = 2.0 * kv / tp * attn_layers * d->e_kv;
        sp->elementwise_bytes =
                layers * elementwise_block_bytes(in, e_act, fused, d->training, d->amp) / tp;
        if (ggml) /* fp32 read + fp16 write of each input, the reverse for each output */
                sp->elementwise_bytes += layers * io / tp * (4 + 2);
        if (head > 0) /* logits written, then softmax / loss read them */
                sp->elementwise_bytes += (double)a->vocab / tp * (d->e_a + 8);
        if (fused && !in->compile && !d->training) {
                sp->host_seconds_per_pass = 0;
                sp->step_overhead = serving_step_seconds;
                decode_kernels(in, sp, layers, attn_layers);
        } else {
                double ops =
                        fused ? compiled_ops_per_block
                              : (a->norm == MODEL_NORM_RMSNORM ? eager_ops_per_block_rmsnorm
                                                               : eager_ops_per_block_layernorm);
                if (!fused)
                        ops += autocast_casts_per_block(in, d);
                sp->host_seconds_per_pass =
                        layers * ops * (fused ? launch_seconds : eager_op_seconds);
                sp->step_overhead = 0;
        }
        /* Tensor parallel: two all-reduces of the block output per layer
         * forward (Megatron-LM, Shoeybi et al. 2019, figure 3), ring
         * volume 2 (t-1)/t. */
        if (tp > 1) {
                sp->tp_bytes = layers * 2 * 2 * (tp - 1) / tp * h * d->e_a;
                sp->tp_bandwidth = (g && g->link_bytes_per_s > 0 ? g->link_bytes_per_s : 32e9) *
                                   collective_bandwidth_efficiency;
                bool nvlink = g && g->link == GPU_LINK_NVLINK;
                sp->tp_latency = layers * 2 * speed_ring_all_reduce_latency_seconds(tp, 1, nvlink);
        }
}

/* The touched share of the expert matrices when tokens route top-k of E
 * experts independently and uniformly: E (1 - (1 - k/E)^tokens) / E. */
static double experts_touched(const struct est_speed *sp, double tokens)
{
        if (sp->experts <= 1 || sp->active_experts >= sp->experts)
                return 1;
        return 1.0 - pow(1.0 - sp->active_experts / sp->experts, tokens);
}

/* The share of the weights a pass over tokens reads. */
static double experts_share(const struct est_speed *sp, double tokens)
{
        if (!(sp->weight_bytes > 0))
                return 1;
        return (sp->weight_bytes - sp->expert_weight_bytes +
                sp->expert_weight_bytes * experts_touched(sp, tokens)) /
               sp->weight_bytes;
}

void speed_pass_parts(const struct est_speed *sp, double tokens, double context,
                      double kv_tokens_read, struct speed_parts *p)
{
        double rate = (sp->gemm_peak > 0 ? sp->gemm_peak : sp->peak) * sp->gemm_efficiency;
        double bw = sp->bandwidth * sp->bandwidth_efficiency;

        memset(p, 0, sizeof(*p));
        if (!(rate > 0) || !(bw > 0))
                return;
        double share = experts_share(sp, tokens);
        double weights = sp->weight_bytes * share;
        /* Reconstructed matrices: the matmuls read the fp16 copies. */
        bool rebuild = sp->reconstruct_min_tokens > 0 && tokens > sp->reconstruct_min_tokens;
        double rebuilt = rebuild ? sp->reconstruct_weights * share : 0;
        weights += rebuilt * (2 - sp->reconstruct_packed_bytes);
        p->gemm_compute = tokens * sp->linear_flops / rate;
        p->gemm_memory = (weights + tokens * sp->gemm_io_bytes) / bw;
        p->attention_compute =
                tokens * context * sp->attention_flops / (sp->peak * sp->attention_efficiency);
        /* Decode reads the cache; eager attention moves every score
         * through memory several times (eager_score_bytes). */
        p->attention_memory = (kv_tokens_read * sp->kv_bytes +
                               tokens * context * sp->score_elements * sp->score_bytes) /
                              bw;
        if (sp->state_bytes > 0 && kv_tokens_read > 0 && context > 0)
                p->attention_memory += kv_tokens_read / context * sp->state_bytes / bw;
        p->elementwise = tokens * sp->elementwise_bytes / bw;
        /*
         * Each kernel takes at least the floor: the pass's time is the sum
         * over kernels of max(bytes / bandwidth, floor).  Within a class the
         * kernels are alike in size, so the class costs max(its bytes /
         * bandwidth, its kernels x floor): small-batch decode's norms and
         * rotary move a few KiB each and cost the floor; a prompt's do not.
         */
        if (sp->kernel_floor > 0) {
                p->gemm_memory = fmax(p->gemm_memory, sp->matmul_kernels * sp->kernel_floor);
                p->elementwise = fmax(p->elementwise, sp->small_kernels * sp->kernel_floor);
                p->attention_memory =
                        fmax(p->attention_memory, sp->attention_kernels * sp->kernel_floor);
        }
        if (sp->dequant_ops > 0 && sp->alu_rate > 0)
                p->dequant = sp->dequant_ops * share / sp->alu_rate;
        if (rebuild) /* its own kernel: packed read and fp16 write */
                p->dequant = fmax(p->dequant, rebuilt * (sp->reconstruct_packed_bytes + 2) / bw);
        if (sp->tp_bytes > 0 && sp->tp_bandwidth > 0)
                p->tensor_parallel = tokens * sp->tp_bytes / sp->tp_bandwidth + sp->tp_latency;
        p->host = sp->host_seconds_per_pass;
}

double speed_parts_gpu(const struct speed_parts *p)
{
        return fmax(p->gemm_compute, p->gemm_memory) +
               fmax(p->attention_compute, p->attention_memory) + p->elementwise + p->dequant +
               p->tensor_parallel;
}

double speed_pass_seconds(const struct est_speed *sp, double tokens, double context,
                          double kv_tokens_read)
{
        struct speed_parts p;
        speed_pass_parts(sp, tokens, context, kv_tokens_read, &p);
        double gpu = speed_parts_gpu(&p);
        if (!(gpu > 0))
                return 0;
        return fmax(gpu, p.host) + sp->step_overhead;
}

double speed_pipeline_slots(double micro_batches, double stages)
{
        return micro_batches + (stages > 1 ? stages - 1 : 0);
}

double speed_ring_all_reduce_bytes(double bytes, double n)
{
        return n > 1 ? 2.0 * (n - 1) / n * bytes : 0;
}

/*
 * Wave quantization.  A tensor-core GEMM runs one thread block per output
 * tile, 128 x 128 in CUTLASS's default configurations for Volta, Turing,
 * Ampere and Hopper tensor ops (cutlass/gemm/device/default_gemm_configuration.h,
 * ThreadblockShape GemmShape<128, 128, ...>), and the SMs take the tiles
 * in waves of one tile each: a GEMM of T tiles on S SMs takes ceil(T / S)
 * waves, so only T / (ceil(T / S) S) of the SMs' time does work.  Large
 * GEMMs run many waves and lose little; a 512-row matmul into 1,024
 * columns is 4 x 8 = 32 tiles, 40% of a V100's 80 SMs.
 */
static const double wave_tile_rows = 128, wave_tile_cols = 128;

static double wave_utilization(double rows, double cols, double sms)
{
        double tiles = ceil(rows / wave_tile_rows) * ceil(cols / wave_tile_cols);
        if (!(tiles > 0) || !(sms > 0))
                return 1;
        return tiles / (ceil(tiles / sms) * sms);
}

/*
 * The share of the SMs' time a training micro-batch's block matmuls use,
 * FLOP-weighted over the block's matrices (each N outputs x K inputs on
 * this rank: tensor parallelism splits the outputs of the column-parallel
 * q, k, v, gate and up and the inputs of o and down) and the head: the
 * forward GEMM writes tokens x N, backward writes the input gradient
 * (tokens x K) and the weight gradient (N x K).  1 when the SM count is
 * unknown or for mixtures of experts (their GEMMs are grouped).
 */
void speed_wave_shares(const struct estimate_input *in, const struct est_speed *sp,
                       double tokens, double *fwd, double *bwd)
{
        const struct model_arch *a = &in->arch;
        double t = in->tensor_parallel, sms = sp->sm_count;
        *fwd = *bwd = 1;
        if (!(sms > 0) || a->experts > 1 || a->kv_lora_rank || a->linear_layers)
                return;
        double h = a->hidden, q = (double)a->heads * a->head_dim;
        double kv = (double)a->kv_heads * a->head_dim, f = a->ffn;
        double n[8], k[8];
        int m = 0;
        n[m] = q / t, k[m++] = h;
        n[m] = kv / t, k[m++] = h;
        n[m] = kv / t, k[m++] = h;
        n[m] = h, k[m++] = q / t;
        n[m] = f / t, k[m++] = h;
        if (a->gated_mlp)
                n[m] = f / t, k[m++] = h;
        n[m] = h, k[m++] = f / t;
        double w = 0, wf = 0, wb = 0;
        for (int i = 0; i < m; i++) {
                double flops = n[i] * k[i];
                w += flops;
                wf += flops * wave_utilization(tokens, n[i], sms);
                wb += flops * 0.5 * (wave_utilization(tokens, k[i], sms) + 1);
        }
        if (w > 0) {
                *fwd = wf / w;
                *bwd = wb / w;
        }
}

double speed_eager_op_seconds(void)
{
        return eager_op_seconds;
}
