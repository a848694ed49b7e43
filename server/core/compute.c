/*
 * compute.c - FLOPs, time, communication and the bottleneck of one
 * configuration on the chosen GPU.
 */
#include "core/estimate_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- constants, each with its source ------------------------------------ */

/* Fraction of peak HBM bandwidth a decode step reaches (AIConfigurator's
 * mem_bw_empirical_scaling_factor is 0.8). */
static const double decode_bandwidth_efficiency = 0.8;
/* 200 Gb/s HDR InfiniBand, one NIC per GPU (DGX A100 layout). */
static const double default_inter_node_bytes_per_s = 25e9;
/* PCIe 4.0 x16, one direction, when the catalog has no figure. */
static const double default_pcie_bytes_per_s = 32e9;
/* Input pipeline when the request states no throughput: text tokenized
 * on the fly.  The Hugging Face tokenizers README: "Takes less than 20
 * seconds to tokenize a GB of text on a server's CPU" (50e6 bytes/s), and
 * about 4 characters of English text per token (OpenAI tokenizer
 * guidance): 12.5e6 tokens/s per GPU process. */
static const double default_data_tokens_per_s = 50e6 / 4.0;

/* Samples per second the input pipeline of one GPU process delivers. */
static double data_samples_per_s(const struct estimate_input *in, double s)
{
        return in->data_samples_per_s > 0 ? in->data_samples_per_s : default_data_tokens_per_s / s;
}

static enum gpu_precision compute_precision(const struct estimate_input *in)
{
        switch (in->precision) {
        case EST_FP32:
                return GPU_FP32;
        case EST_TF32:
                return GPU_TF32;
        case EST_FP16_MIXED:
        case EST_FP16:
                return GPU_FP16;
        case EST_FP8_MIXED:
                return GPU_FP8;
        default:
                return GPU_BF16;
        }
}

/* The GPU's dense rate at p, or 0.  tf32 falls back to fp32: with
 * torch.backends.cuda.matmul.allow_tf32 on a GPU without tf32 tensor cores
 * the matmuls simply run in fp32.  bf16 and fp8 do not fall back: a GPU
 * without bf16 units (compute capability below 8.0: P100, V100, T4, K80)
 * has no bf16 rate - PyTorch autocast refuses bfloat16 there
 * ("Current CUDA Device does not support bfloat16", see
 * torch.cuda.is_bf16_supported) and vLLM refuses it below compute
 * capability 8.0 - and fp8 matmuls (torch._scaled_mm, Transformer Engine)
 * need compute capability 8.9 or 9.0 (Ada, Hopper). */
static double gpu_flops(const struct gpu_spec *g, enum gpu_precision p)
{
        double f = g->flops[p];
        if (f > 0)
                return f;
        if (p == GPU_TF32)
                return g->flops[GPU_FP32];
        return 0;
}

bool compute_precision_unsupported(const struct estimate_input *in, const struct gpu_spec *g)
{
        enum gpu_precision p = compute_precision(in);
        if (p != GPU_BF16 && p != GPU_FP8)
                return false;
        /* A GPU with no figure at all is unknown, not unsupported. */
        return g->flops[p] <= 0 && (g->flops[GPU_FP16] > 0 || g->flops[GPU_FP32] > 0);
}

enum est_precision compute_precision_suggestion(const struct estimate_input *in,
                                                const struct gpu_spec *g)
{
        if (in->precision == EST_FP8_MIXED && g->flops[GPU_BF16] > 0)
                return EST_BF16_MIXED;
        if (in->precision == EST_BF16 && in->mode == EST_INFERENCE)
                return EST_FP16;
        return EST_FP16_MIXED;
}

/* Default model-FLOPs utilisation by GPU class and precision.  Data-centre
 * parts with HBM and NVLink sustain ~40% in bf16 training (EleutherAI:
 * >= 120 of 312 TFLOP/s on A100; Megatron-LM reports 41-52% at scale),
 * consumer and PCIe parts less; fp32 on the vector units is easier to
 * keep busy (fewer, slower FLOPs per byte). */
static double default_mfu(const struct gpu_spec *g, enum gpu_precision p, bool training)
{
        bool dc = g->link == GPU_LINK_NVLINK || g->memory_bytes >= 40000000000ull;
        if (!training)
                return 0.5;
        if (p == GPU_FP32)
                return 0.6;
        if (p == GPU_FP8)
                return dc ? 0.30 : 0.25;
        return dc ? 0.40 : 0.35;
}

/* FLOPs of one forward pass per token: 2 per multiply-accumulate of every
 * block matrix a token touches, the vocabulary projection where logits are
 * computed, and attention scores + weighted values: 2 x 2 x s x q per
 * layer (Kaplan et al. 2020 Table 1; Narayanan et al. 2021 eq. 3). */
static double forward_flops_per_token(const struct estimate_input *in, const struct derived *d,
                                      double ctx, bool with_head)
{
        const struct model_arch *a = &in->arch;
        double q = (double)a->heads * a->head_dim;
        double layers = (double)a->layers + a->decoder_layers;
        double f = 2.0 * (double)d->pb.linear_active + 4.0 * ctx * q * layers;
        if (a->kind == MODEL_ENCODER_DECODER)
                f += 4.0 * ctx * q * a->decoder_layers; /* cross attention */
        if (with_head)
                f += 2.0 * (double)a->vocab * a->hidden;
        if (d->lora)
                f += 2.0 * d->P_trainable;
        return f;
}

void compute_fill(const struct estimate_input *in, const struct derived *d,
                  const struct gpu_spec *g, struct estimate_result *r)
{
        double gpus = in->gpus;
        enum gpu_precision prec = compute_precision(in);
        double peak = g ? gpu_flops(g, prec) : 0;
        double mfu = in->mfu > 0 ? in->mfu : (g ? default_mfu(g, prec, d->training) : 0);
        r->mfu = mfu;
        r->peak_flops_per_gpu = peak;
        if (g && !(in->set & EST_SET_MFU))
                ASSUME(r, EST_A_MFU, mfu, 0);
        if (g && compute_precision_unsupported(in, g)) {
                r->precision_unsupported = true;
                r->suggested_precision = compute_precision_suggestion(in, g);
                WARN(r, EST_W_PRECISION_UNSUPPORTED, in->precision, r->suggested_precision);
        } else if (g && peak <= 0) {
                WARN(r, EST_W_GPU_NO_FLOPS, 0, 0);
        }

        if (d->training) {
                double s = d->s;
                double tokens = (double)in->batch_size * s * in->gradient_accumulation * d->dp;
                /* Training = forward + backward (2x forward): 6 N per token
                 * (Kaplan et al. 2020; Narayanan et al. 2021); full
                 * recomputation repeats the forward: x 4/3.  LoRA skips the
                 * frozen weights' gradient GEMMs: 4 N per token. */
                double fwd = forward_flops_per_token(in, d, s, d->lm_logits);
                double mult = d->lora ? 2.0 : 3.0;
                const struct model_arch *a = &in->arch;
                double L = (double)a->layers + a->decoder_layers;
                if (in->checkpointing == EST_CKPT_FULL) {
                        /* One more forward of the checkpointed blocks. */
                        double k = in->checkpoint_every > 1 ? in->checkpoint_every : 1;
                        double ck =
                                floor((double)a->layers / k) + floor((double)a->decoder_layers / k);
                        mult += L > 0 ? ck / L : 1.0;
                }
                if (in->checkpointing == EST_CKPT_SELECTIVE_OP) {
                        /* torchtitan's op policy recomputes every second matmul
                         * (LLaMA: wk, wo, w3) and the element-wise ops: the
                         * share of a block's matmul FLOPs those matmuls are. */
                        double h = a->hidden, q = (double)a->heads * a->head_dim;
                        double kv = (double)a->kv_heads * a->head_dim, f = a->ffn;
                        double all = h * (q + 2 * kv) + q * h + (a->gated_mlp ? 3 : 2) * h * f;
                        double redo = h * kv + q * h + (a->gated_mlp ? h * f : 0);
                        mult += all > 0 ? redo / all : 0;
                }
                double flops_step = fwd * mult * tokens;
                if (in->checkpointing == EST_CKPT_SELECTIVE)
                        flops_step += 4.0 * s * (double)in->arch.heads * in->arch.head_dim *
                                      ((double)in->arch.layers + in->arch.decoder_layers) * tokens;
                r->flops_per_step = flops_step;
                r->tokens_per_step = tokens;
                double dataset_tokens = (double)in->dataset_tokens;
                if (dataset_tokens <= 0 && in->dataset_samples > 0)
                        dataset_tokens = (double)in->dataset_samples * s;
                double epochs = in->epochs > 0 ? in->epochs : 1;
                if (dataset_tokens > 0) {
                        r->steps = ceil(dataset_tokens / tokens) * epochs;
                } else {
                        r->steps = 1;
                        ASSUME(r, EST_A_DATASET_UNKNOWN, 0, 0);
                }
                r->flops_total = r->flops_per_step * r->steps;
                if (!g || peak <= 0 || mfu <= 0)
                        return;
                r->compute_seconds_per_step = flops_step / (gpus * peak * mfu);

                /* Communication per optimizer step, per GPU, ring algorithms:
                 * all-reduce moves 2 (n-1)/n of the buffer, all-gather and
                 * reduce-scatter (n-1)/n each (Patarasuk & Yuan 2009). */
                double link = g->link_bytes_per_s > 0
                                      ? g->link_bytes_per_s
                                      : (g->host_link_bytes_per_s > 0 ? g->host_link_bytes_per_s
                                                                      : default_pcie_bytes_per_s);
                if (in->nodes > 1) {
                        double ib = in->inter_node_bytes_per_s > 0 ? in->inter_node_bytes_per_s
                                                                   : default_inter_node_bytes_per_s;
                        link = fmin(link, ib);
                        if (!(in->inter_node_bytes_per_s > 0))
                                ASSUME(r, EST_A_INTER_NODE, ib, 0);
                }
                double n = d->dp, bytes = 0;
                double Ptr = d->P_trainable / (in->tensor_parallel * in->pipeline_parallel);
                if (n > 1) {
                        if (d->stage >= 3)
                                bytes = 3.0 * (n - 1) / n *
                                        (d->P / (in->tensor_parallel * in->pipeline_parallel)) *
                                        d->e_w * in->gradient_accumulation;
                        else
                                bytes = 2.0 * (n - 1) / n * Ptr * d->e_g;
                }
                double tp_bytes = 0;
                if (in->tensor_parallel > 1) {
                        double tt = in->tensor_parallel;
                        tp_bytes = 4.0 * ((double)in->arch.layers + in->arch.decoder_layers) * 2.0 *
                                   (tt - 1) / tt * in->batch_size * s * in->arch.hidden * d->e_a *
                                   in->gradient_accumulation;
                }
                double host = 0;
                if (in->offload != EST_OFFLOAD_NONE) {
                        double hl = g->host_link_bytes_per_s > 0 ? g->host_link_bytes_per_s
                                                                 : default_pcie_bytes_per_s;
                        host = (d->e_g + d->e_w) * Ptr / d->shard / hl;
                        if (in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS)
                                host += 2.0 * d->e_w * d->P / d->shard / hl *
                                        in->gradient_accumulation;
                }
                r->comm_bytes_per_step = bytes + tp_bytes;
                r->link_bytes_per_s = link;
                double comm = bytes / link + host;
                double tp_time = tp_bytes / (g->link_bytes_per_s > 0 ? g->link_bytes_per_s
                                                                     : default_pcie_bytes_per_s);
                r->comm_seconds_per_step = comm + tp_time;
                /* The input pipeline: each process loads batch x
                 * accumulation samples per step.  Loader workers prefetch
                 * (PyTorch DataLoader prefetch_factor), so loading overlaps
                 * the step and only the slowest of the three counts. */
                double rate = data_samples_per_s(in, s);
                double data = (double)in->batch_size * in->gradient_accumulation / rate;
                r->data_seconds_per_step = data;
                ASSUME(r, EST_A_DATA_LOADING, rate, data);
                /* Data-parallel traffic overlaps the backward pass; tensor
                 * parallel all-reduces sit on the critical path. */
                double slowest = fmax(r->compute_seconds_per_step, fmax(comm, data));
                r->seconds_per_step = slowest + tp_time;
                if (data >= slowest && data > r->compute_seconds_per_step)
                        r->bottleneck = EST_BOUND_DATA_LOADING;
                else if (comm > r->compute_seconds_per_step)
                        r->bottleneck = EST_BOUND_INTERCONNECT;
                else
                        r->bottleneck = EST_BOUND_COMPUTE;
                r->total_seconds = r->seconds_per_step * r->steps;
                r->tokens_per_second = r->seconds_per_step > 0 ? tokens / r->seconds_per_step : 0;
                return;
        }

        /* Inference: prefill is compute-bound, decode reads every weight
         * (and the KV cache) once per generated token. */
        double b = in->batch_size;
        double prefill_flops =
                forward_flops_per_token(in, d, d->prompt, in->arch.kind != MODEL_ENCODER) *
                d->prompt * b;
        double gen = d->generated;
        double decode_flops = 0;
        if (gen > 0)
                decode_flops = forward_flops_per_token(in, d, d->prompt + gen / 2, true) * gen * b;
        r->flops_per_step = prefill_flops + decode_flops;
        r->tokens_per_step = b * (d->prompt + gen);
        r->steps = 1;
        r->flops_total = r->flops_per_step;
        /* Bytes one decode step reads per GPU: the weights and the KV cache
         * at the average context (r->decode_bytes_per_token is filled by
         * the caller from the memory model). */
        if (!g || peak <= 0)
                return;
        double pm = in->mfu > 0 ? in->mfu : 0.5;
        r->prefill_seconds = prefill_flops / (gpus * peak * pm);
        double bw = g->memory_bandwidth_bytes_per_s;
        if (bw > 0 && r->decode_bytes_per_token > 0) {
                double step_mem = (double)r->decode_bytes_per_token / bw;
                double step_flops = forward_flops_per_token(in, d, d->prompt + gen / 2, true) * b /
                                    (gpus * peak * pm);
                r->decode_tokens_per_second_roofline = b / fmax(step_mem, step_flops);
                double step = fmax(step_mem / decode_bandwidth_efficiency, step_flops);
                r->decode_tokens_per_second = b / step;
                ASSUME(r, EST_A_DECODE_EFFICIENCY, decode_bandwidth_efficiency, 0);
                r->memory_seconds_per_step = step_mem / decode_bandwidth_efficiency * gen;
                r->compute_seconds_per_step = r->prefill_seconds + step_flops * gen;
                r->total_seconds = r->prefill_seconds + (gen > 0 ? gen * step : 0);
                r->seconds_per_step = r->total_seconds;
                r->tokens_per_second =
                        r->total_seconds > 0 ? r->tokens_per_step / r->total_seconds : 0;
                r->bottleneck =
                        (gen > 0 &&
                         step_mem / decode_bandwidth_efficiency * gen > r->prefill_seconds &&
                         step_mem / decode_bandwidth_efficiency > step_flops)
                                ? EST_BOUND_MEMORY_BANDWIDTH
                                : EST_BOUND_COMPUTE;
        } else {
                r->total_seconds = r->prefill_seconds;
                r->seconds_per_step = r->total_seconds;
        }
}
