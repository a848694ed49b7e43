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
/*
 * An optimizer offloaded to the CPU (DeepSpeed ZeRO-Offload, FSDP
 * CPUOffload) steps in host memory: its bytes per parameter are those of
 * the same implementation on the GPU (foreach torch.optim for FSDP, fused
 * CPUAdam for DeepSpeed), through the node's DRAM, shared by every rank on
 * the node.  torch.optim's foreach AdamW over 2^26 fp32 parameters on the
 * 16 host threads of an H100 machine took 63.3 ms (tests/data/
 * time_floors_h100.json): 84 B x 2^26 / 63.3 ms = 89 GB/s.
 */
static const double default_host_memory_bytes_per_s = 89e9;
/* Paged optimizer states move by cudaMemPrefetchAsync (bitsandbytes
 * optim/optimizer.py prefetch_state -> functional.prefetch_tensor) at
 * about 0.8 of the PCIe rate, as pinned copies do (CUDA samples
 * bandwidthTest: about 25-26 GB/s host to device on PCIe 4.0 x16). */
static const double unified_memory_link_share = 0.8;
/* Collectives inside an NVLink node reach about 0.8 of the link's rate
 * (nccl-tests bus bandwidth on DGX H100: about 360-370 of 450 GB/s per
 * direction); between nodes the network figure is already what NCCL
 * sustains. */
static const double collective_link_efficiency = 0.8;
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

static enum est_precision compute_precision_suggestion(const struct estimate_input *in,
                                                       const struct gpu_spec *g)
{
        if (in->precision == EST_FP8_MIXED && g->flops[GPU_BF16] > 0)
                return EST_BF16_MIXED;
        if (in->precision == EST_BF16 && in->mode == EST_INFERENCE)
                return EST_FP16;
        return EST_FP16_MIXED;
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
        /* Gated DeltaNet blocks attend to nothing; their recurrence instead. */
        double layers = (double)a->layers + a->decoder_layers - a->linear_layers;
        double f = 2.0 * (double)d->pb.linear_active + 4.0 * ctx * q * layers +
                   model_recurrent_flops_per_token(a);
        if (a->kind == MODEL_ENCODER_DECODER)
                f += 4.0 * ctx * q * a->decoder_layers; /* cross attention */
        if (with_head)
                f += 2.0 * (double)a->vocab * a->hidden;
        if (d->lora)
                f += 2.0 * d->P_trainable;
        return f;
}

/*
 * FLOPs of the vision tower per sample: 2 per multiply-accumulate of every
 * tower weight (arch.vision_parameters, projector included) for each token
 * an image runs through it (arch.vision.tokens), images per sample of them
 * (Kaplan et al. 2020 Table 1: 2N per token forward).  A trained tower's
 * backward is twice its forward (6N in all); a frozen one (LoRA, QLoRA)
 * has no backward, as nothing before it needs a gradient.
 */
static double vision_flops_per_sample(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        double f = 2.0 * (double)a->vision_parameters * a->vision.tokens * in->images;
        return d->training && !d->lora ? 3.0 * f : f;
}

/* Seconds of FLOPs on gpus at the pass model's achieved matmul rate. */
static double matmul_seconds(const struct est_speed *sp, double flops, double gpus)
{
        double rate = (sp->gemm_peak > 0 ? sp->gemm_peak : sp->peak) * sp->gemm_efficiency;
        return rate > 0 && gpus > 0 ? flops / (gpus * rate) : 0;
}

/* Mean context a token attends to in one pass over s tokens: causal
 * decoders see half the sequence on average, encoders all of it. */
static double attended_context(const struct model_arch *a, double s)
{
        if (a->kind == MODEL_ENCODER)
                return s;
        if (a->kind == MODEL_ENCODER_DECODER)
                return 0.75 * s;
        return s / 2;
}

/*
 * GPU seconds of one micro-batch of training on one GPU from the pass
 * model (speed.c).  Backward costs: the weight and input gradients are
 * two matmuls of a forward's size (Kaplan et al. 2020: 2N forward, 4N
 * backward per token); a frozen weight (LoRA, QLoRA) needs only the input
 * gradient.  FlashAttention's backward runs five matmuls to the forward's
 * two (Dao 2023, algorithm 2): 2.5x.  Element-wise backward reads the
 * saved input and the incoming gradient and writes the outgoing one: 2x.
 * Recomputation repeats a share of the forward.  QLoRA dequantizes every
 * 4-bit matrix to the compute dtype before each matmul (bitsandbytes
 * dequantize_4bit, then F.linear): read packed, write dense, per pass.
 */
static double train_micro_batch_seconds(const struct estimate_input *in, const struct derived *d,
                                        const struct est_speed *sp, double tokens, double *host)
{
        const struct model_arch *a = &in->arch;
        struct speed_parts f;
        /* Eager attention computes every score of the s x s square and
         * masks the future afterwards; fused kernels skip masked tiles. */
        double ctx = sp->score_elements > 0 ? d->s : attended_context(a, d->s);
        speed_pass_parts(sp, tokens, ctx, 0, &f);
        double rate = (sp->gemm_peak > 0 ? sp->gemm_peak : sp->peak) * sp->gemm_efficiency;
        double bw = sp->bandwidth * sp->bandwidth_efficiency;
        bool frozen = d->lora;

        /* A micro-batch of few tokens leaves SMs idle in its GEMMs' last
         * wave (speed.c, speed_wave_shares). */
        double wave_f, wave_b;
        speed_wave_shares(in, sp, tokens, &wave_f, &wave_b);
        double gemm_f = fmax(f.gemm_compute / wave_f, f.gemm_memory);
        double gemm_b = frozen ? fmax(f.gemm_compute / wave_b, f.gemm_memory)
                               : fmax(2 * f.gemm_compute / wave_b,
                                      2 * f.gemm_memory + sp->weight_bytes / d->e_q * d->e_g / bw);
        if (frozen) /* the adapters: 6 FLOPs per trainable parameter and token */
                gemm_b += 6.0 * d->P_trainable / (in->tensor_parallel * in->pipeline_parallel) *
                          tokens / rate;
        double attn_f = fmax(f.attention_compute, f.attention_memory);
        double attn_b = fmax(2.5 * f.attention_compute, 2 * f.attention_memory);
        double fwd = gemm_f + attn_f + f.elementwise + f.tensor_parallel;
        /*
         * Autocast keeps the weights in fp32 and casts each to the half
         * dtype when a forward first multiplies by it (torch.amp's cast
         * cache lasts one autocast region, so a recomputed forward casts
         * again); the cast's backward turns the half weight gradient into
         * the fp32 one: 4 + 2 bytes per weight each way.  FSDP's
         * MixedPrecision casts in its all-gather instead; Megatron-LM keeps
         * half weights beside its fp32 main copy and does not autocast.
         */
        bool autocast = d->amp && in->strategy != EST_FSDP && in->framework != EST_FW_MEGATRON &&
                        (in->precision == EST_FP16_MIXED || in->precision == EST_BF16_MIXED);
        double cast = autocast && d->e_q > 0 ? sp->weight_bytes / d->e_q * (4 + 2) / bw : 0;
        fwd += cast;
        double t = fwd + gemm_b + attn_b + 2 * f.elementwise + f.tensor_parallel + cast;
        double passes = 3; /* host dispatch: forward + two backward ops per op */

        /* Recomputation during backward. */
        double L = (double)a->layers + a->decoder_layers;
        if (in->checkpointing == EST_CKPT_FULL) {
                double k = in->checkpoint_every > 1 ? in->checkpoint_every : 1;
                double ck = floor((double)a->layers / k) + floor((double)a->decoder_layers / k);
                double share = L > 0 ? ck / L : 1;
                t += share * fwd;
                passes += share;
        } else if (in->checkpointing == EST_CKPT_SELECTIVE) {
                t += attn_f; /* Megatron: the attention core only */
        } else if (in->checkpointing == EST_CKPT_SELECTIVE_OP) {
                /* torchtitan's op policy recomputes every second matmul
                 * and the element-wise ops (see compute_fill's FLOPs). */
                double h = a->hidden, q = (double)a->heads * a->head_dim;
                double kv = (double)a->kv_heads * a->head_dim, ff = a->ffn;
                double all = h * (q + 2 * kv) + q * h + (a->gated_mlp ? 3 : 2) * h * ff;
                double redo = h * kv + q * h + (a->gated_mlp ? h * ff : 0);
                t += (all > 0 ? redo / all : 0) * gemm_f + f.elementwise;
                passes += 0.5;
        }
        if (in->quantization != EST_QUANT_NONE && d->training) {
                double packed = sp->weight_bytes - (d->lm_logits && !a->tied_embeddings
                                                            ? (double)a->vocab * a->hidden /
                                                                      in->tensor_parallel * d->e_w
                                                            : 0);
                double dense = packed / d->e_q * d->e_w;
                double per_pass = (packed + dense) / bw;
                t += per_pass * (in->checkpointing == EST_CKPT_FULL ? 3 : 2);
        }
        *host = f.host * passes;
        return t;
}

/*
 * Parameter tensors the optimizer steps: per block the attention and MLP
 * matrices, their biases and the norms' weights (and biases), plus the
 * embeddings and head (about 8); LoRA steps two small matrices per
 * adapted module.  Counted from the modules of the Hugging Face models.
 */
static double trainable_tensors(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        double L = (double)a->layers + a->decoder_layers;
        double mlp = a->gated_mlp ? 3 : 2;
        if (d->lora)
                return 2.0 * __builtin_popcount(in->lora_targets) * L;
        double biases = (a->attn_bias ? 4 : (a->qkv_bias_only ? 3 : 0)) + (a->mlp_bias ? mlp : 0);
        double norms =
                (a->block_norms ? a->block_norms : 2) * (a->norm == MODEL_NORM_LAYERNORM ? 2 : 1);
        return L * (4 + mlp + biases + norms) + 8;
}

/*
 * Host time of an optimizer step that loops over parameters
 * (transformers' adamw_hf, torch.optim with foreach=False, bitsandbytes'
 * per-parameter kernels): each tensor's update is a handful of eager
 * operators - AdamW's decay, two moment updates, the denominator's sqrt
 * and add, the addcdiv: about 8 - at eager_op_seconds each.  foreach and
 * fused implementations launch a few kernels for all tensors at once.
 */
static double optimizer_loop_host_seconds(const struct estimate_input *in, const struct derived *d)
{
        if (estimate_optimizer_impl(in) != EST_OPT_IMPL_FOR_LOOP)
                return 0;
        double ops = in->optimizer == EST_OPT_SGD ? 2 : 8;
        return trainable_tensors(in, d) * ops * speed_eager_op_seconds();
}

/*
 * Seconds of one optimizer step on one GPU, without data-parallel traffic:
 * the micro-batches (gradient accumulation x pipeline micro-batches, each
 * on this GPU's stage), the pipeline's fill and drain, and the optimizer
 * step.  *host receives the eager dispatch share when it bounds the GPU.
 */
static double train_step_seconds(const struct estimate_input *in, const struct derived *d,
                                 const struct est_speed *sp, double *host, double *offloaded_bytes)
{
        double host_opt_value = 0, *host_opt = &host_opt_value;
        double m = in->pipeline_parallel > 1 && in->micro_batches > 0 ? in->micro_batches : 1;
        /* an encoder-decoder with a shorter target does less work per
         * sample (derive.c, token_share) */
        double tokens = (double)in->batch_size * d->s * d->token_share / m;
        double h = 0;
        double t = train_micro_batch_seconds(in, d, sp, tokens, &h);
        double micro = fmax(t, h);
        double M = m * in->gradient_accumulation, p = in->pipeline_parallel;
        /* GPipe / 1F1B schedules: M micro-batches over p stages take
         * M + p - 1 slots; the bubble is (p - 1) / (M + p - 1)
         * (Narayanan et al. 2021, section 2.2). */
        double steps = speed_pipeline_slots(M, p);
        /*
         * The optimizer reads the master weights (or the weights), the
         * gradient and every state and writes weights and states back:
         * a streaming kernel over this GPU's shard (foreach/fused AdamW).
         */
        double Ptr = d->P_trainable / (in->tensor_parallel * p * d->shard);
        double master = d->e_master > 0 ? d->e_master : d->e_w;
        double opt_bytes = Ptr * (2 * master + d->e_g + 2 * d->e_opt);
        /*
         * torch.optim's Adam/AdamW outside the fused kernel (adamw.py,
         * _single_tensor_adamw and _multi_tensor_adamw) run each update as
         * its own pass over the tensors: weight decay (read and write the
         * parameter), lerp of exp_avg (m, m, g), exp_avg_sq's mul and
         * addcmul (v, v; v, g, g, v), sqrt into a new tensor, its division
         * and eps add (two each), addcdiv (p, m, denominator, p): 4 p +
         * 3 m + 11 v + 3 g, 84 bytes per fp32 parameter against the fused
         * kernel's 28.
         */
        if ((in->optimizer == EST_OPT_ADAM || in->optimizer == EST_OPT_ADAMW) &&
            estimate_optimizer_impl(in) != EST_OPT_IMPL_FUSED) {
                double state = d->e_opt / 2;
                opt_bytes = Ptr * (4 * master + 3 * state + 11 * state + 3 * d->e_g);
        }
        if (d->e_master > 0)
                opt_bytes += Ptr * d->e_w; /* the half copy refreshed */
        /* clip_grad_norm_: every gradient read for the norms, then scaled
         * in place (torch.nn.utils.clip_grad); fp16 AMP's GradScaler
         * unscales every gradient in place and checks it for inf/NaN
         * (_amp_foreach_non_finite_check_and_unscale_) before the step. */
        if (in->gradient_clipping)
                opt_bytes += Ptr * 3 * d->e_g;
        if (in->precision == EST_FP16_MIXED)
                opt_bytes += Ptr * 2 * d->e_g;
        double opt = in->offload == EST_OFFLOAD_NONE
                             ? opt_bytes / (sp->bandwidth * sp->bandwidth_efficiency)
                             : 0;
        *offloaded_bytes = in->offload == EST_OFFLOAD_NONE ? 0 : opt_bytes;
        double opt_host = optimizer_loop_host_seconds(in, d);
        if (opt_host > opt) {
                *host_opt = opt_host - opt;
                opt = opt_host;
        }
        *host = (h > t ? (h - t) * steps : 0) + *host_opt;
        return steps * micro + opt;
}

/* Tokens of one optimizer step over every data-parallel rank. */
static double train_tokens_per_step(const struct estimate_input *in, const struct derived *d)
{
        return (double)in->batch_size * d->s * in->gradient_accumulation * d->dp;
}

/* Tokens of one epoch of the dataset; 0 when the request gives no size. */
static double train_dataset_tokens(const struct estimate_input *in, const struct derived *d)
{
        double tokens = (double)in->dataset_tokens;
        if (tokens <= 0 && in->dataset_samples > 0)
                tokens = (double)in->dataset_samples * d->s;
        return tokens;
}

/* Optimizer steps of the whole job (every epoch); 1 when the dataset size
 * is unknown. */
static double train_steps(const struct estimate_input *in, const struct derived *d, double tokens)
{
        double dataset_tokens = train_dataset_tokens(in, d);
        double epochs = in->epochs > 0 ? in->epochs : 1;
        return dataset_tokens > 0 ? ceil(dataset_tokens / tokens) * epochs : 1;
}

/* Seconds the input pipeline of one process takes to load one step's
 * samples (batch x accumulation). */
static double data_seconds_per_step(const struct estimate_input *in, const struct derived *d)
{
        return (double)in->batch_size * in->gradient_accumulation / data_samples_per_s(in, d->s);
}

/*
 * The link data-parallel collectives run over, bytes/s: NVLink (or the
 * host link) inside a node, capped by the network between nodes.
 * *assumed_ib receives the network figure when the request states none
 * (0 otherwise).
 */
static double dp_link_bytes_per_s(const struct estimate_input *in, const struct gpu_spec *g,
                                  double *assumed_ib)
{
        double link = g->link_bytes_per_s > 0
                              ? g->link_bytes_per_s
                              : (g->host_link_bytes_per_s > 0 ? g->host_link_bytes_per_s
                                                              : default_pcie_bytes_per_s);
        *assumed_ib = 0;
        if (in->nodes > 1) {
                /* DGX A100: eight 200 Gb/s HDR NICs per node, one per
                 * GPU; DGX H100/B200: eight 400 Gb/s ConnectX-7 (NVIDIA
                 * DGX user guides). */
                double def = g->flops[GPU_BF16] >= 500e12 ? 2 * default_inter_node_bytes_per_s
                                                          : default_inter_node_bytes_per_s;
                double ib = in->inter_node_bytes_per_s > 0 ? in->inter_node_bytes_per_s : def;
                link = fmin(link, ib);
                if (!(in->inter_node_bytes_per_s > 0))
                        *assumed_ib = ib;
        }
        return link;
}

/* The rate collectives reach on that link. */
static double dp_link_rate(const struct estimate_input *in, double link)
{
        return link * (in->nodes > 1 ? 1 : collective_link_efficiency);
}

/* Data-parallel bytes each GPU sends per optimizer step.  Ring
 * algorithms: all-reduce moves 2 (n-1)/n of the buffer, all-gather and
 * reduce-scatter (n-1)/n each (Patarasuk & Yuan 2009). */
static double dp_traffic_bytes(const struct estimate_input *in, const struct derived *d)
{
        double n = d->dp;
        double Ptr = d->P_trainable / (in->tensor_parallel * in->pipeline_parallel);
        if (!(n > 1))
                return 0;
        if (d->stage >= 3) {
                /* Every micro-batch gathers the weights in the compute
                 * dtype twice (forward, backward) and reduce-scatters the
                 * gradients in theirs, once per step under no_sync (FSDP
                 * MixedPrecision param_dtype / reduce_dtype). */
                double ga = in->gradient_accumulation;
                double e_c = d->mixed || d->pure_half ? d->e_a : d->e_w;
                double P = d->P / (in->tensor_parallel * in->pipeline_parallel);
                return (n - 1) / n *
                       (2 * P * e_c * ga + Ptr * d->e_g * (in->fsdp_no_sync ? 1 : ga));
        }
        return speed_ring_all_reduce_bytes(Ptr * d->e_g, n);
}

void compute_floor(const struct estimate_input *in, const struct derived *d,
                   struct estimate_floor *f)
{
        memset(f, 0, sizeof(*f));
        if (!d->training)
                return;
        f->traffic_bytes = dp_traffic_bytes(in, d);
        f->blocks = (double)in->arch.layers + in->arch.decoder_layers;
        f->data_seconds = data_seconds_per_step(in, d);
        f->tokens_per_step = train_tokens_per_step(in, d);
        f->steps = train_steps(in, d, f->tokens_per_step);
}

double compute_floor_step_seconds(const struct estimate_input *in, const struct estimate_floor *f,
                                  const struct gpu_spec *g)
{
        double assumed_ib;
        /* compute_fill: the step is busy for compute + exposed + ... and
         * the traffic is exposed beyond the compute, plus one block's
         * share: busy >= comm (1 + 1 / blocks); comm >= the traffic at
         * the link's rate. */
        double comm = f->traffic_bytes / dp_link_rate(in, dp_link_bytes_per_s(in, g, &assumed_ib));
        double busy = comm > 0 && f->blocks > 0 ? comm + comm / f->blocks : comm;
        return fmax(busy, f->data_seconds);
}

void compute_fill(const struct estimate_input *in, const struct derived *d,
                  const struct gpu_spec *g, struct estimate_result *r)
{
        double gpus = in->gpus;
        enum gpu_precision prec = compute_precision(in);
        /* fp8 checkpoints run W8A8 fp8 matmuls where the GPU has fp8
         * tensor cores (vLLM fp8, TensorRT-LLM FP8), weight-only else. */
        if (!d->training && in->quantization == EST_QUANT_FP8 && g && g->flops[GPU_FP8] > 0)
                prec = GPU_FP8;
        double peak = g ? gpu_flops(g, prec) : 0;
        bool fixed_mfu = in->mfu > 0;
        r->peak_flops_per_gpu = peak;
        if (g && fixed_mfu)
                r->mfu = in->mfu;
        if (g && compute_precision_unsupported(in, g)) {
                r->precision_unsupported = true;
                r->suggested_precision = compute_precision_suggestion(in, g);
                WARN(r, EST_W_PRECISION_UNSUPPORTED, in->precision, r->suggested_precision);
        } else if (g && peak <= 0) {
                WARN(r, EST_W_GPU_NO_FLOPS, 0, 0);
        }
        if (g && peak > 0) {
                speed_build(in, d, g, prec, &r->speed);
                r->clock_share = r->speed.clock_share;
                if (r->speed.clock_share < 1)
                        ASSUME(r, EST_A_POWER_LIMIT, in->power_limit_watts,
                               r->speed.clock_share);
        }
        const struct est_speed *sp = &r->speed;
        if (d->training) {
                double s = d->s;
                double tokens = train_tokens_per_step(in, d);
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
                double flops_step = fwd * mult * tokens * d->token_share;
                double vision_step = vision_flops_per_sample(in, d) * in->batch_size *
                                     in->gradient_accumulation * d->dp;
                flops_step += vision_step;
                if (in->checkpointing == EST_CKPT_SELECTIVE)
                        flops_step += 4.0 * s * (double)in->arch.heads * in->arch.head_dim *
                                      ((double)in->arch.layers + in->arch.decoder_layers) * tokens;
                r->flops_per_step = flops_step;
                r->tokens_per_step = tokens;
                r->steps = train_steps(in, d, tokens);
                if (!(train_dataset_tokens(in, d) > 0))
                        ASSUME(r, EST_A_DATASET_UNKNOWN, 0, 0);
                r->flops_total = r->flops_per_step * r->steps;
                if (!g || peak <= 0)
                        return;
                double host = 0, compute, cpu_opt_bytes = 0;
                if (fixed_mfu) {
                        compute = flops_step / (gpus * peak * in->mfu);
                        ASSUME(r, EST_A_MFU, in->mfu, 0);
                } else {
                        compute = train_step_seconds(in, d, sp, &host, &cpu_opt_bytes);
                }
                if (!fixed_mfu) /* flops_step carries it at the caller's utilisation */
                        compute += matmul_seconds(sp, vision_step, gpus);
                r->compute_seconds_per_step = compute;

                /* Communication per optimizer step, per GPU. */
                double assumed_ib;
                double link = dp_link_bytes_per_s(in, g, &assumed_ib);
                if (assumed_ib > 0)
                        ASSUME(r, EST_A_INTER_NODE, assumed_ib, 0);
                double bytes = dp_traffic_bytes(in, d);
                double Ptr = d->P_trainable / (in->tensor_parallel * in->pipeline_parallel);
                double tp_bytes = 0;
                if (in->tensor_parallel > 1) {
                        double tt = in->tensor_parallel;
                        tp_bytes = 4.0 * ((double)in->arch.layers + in->arch.decoder_layers) * 2.0 *
                                   (tt - 1) / tt * in->batch_size * s * in->arch.hidden * d->e_a *
                                   in->gradient_accumulation;
                }
                double host_link = 0, offload = 0;
                double hl = g->host_link_bytes_per_s > 0 ? g->host_link_bytes_per_s
                                                         : default_pcie_bytes_per_s;
                if (in->offload != EST_OFFLOAD_NONE) {
                        /*
                         * The step itself does not overlap the next forward
                         * (DeepSpeed ZeRO-Offload, Ren et al. 2021, section 5:
                         * the CPU step sits between backward and the next
                         * forward unless delayed parameter update is on; FSDP
                         * steps after backward): the gradients come down and
                         * the updated weights go up over PCIe, and the CPU
                         * streams the states of every rank on the node.
                         */
                        double ranks = in->nodes > 0 ? (double)in->gpus / in->nodes : in->gpus;
                        double host_bw = in->host_memory_bytes_per_s > 0
                                                 ? in->host_memory_bytes_per_s
                                                 : default_host_memory_bytes_per_s;
                        offload = (d->e_g + d->e_w) * Ptr / d->shard / hl +
                                  cpu_opt_bytes * ranks / host_bw;
                        ASSUME(r, EST_A_OFFLOAD_STEP, host_bw, offload);
                        if (in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS)
                                host_link += 2.0 * d->e_w * d->P / d->shard / hl *
                                             in->gradient_accumulation;
                } else if (in->optimizer >= EST_OPT_PAGED_ADAMW) {
                        /*
                         * Paged optimizer states that do not fit beside the
                         * rest are evicted to host memory and prefetched back
                         * for every step: each step moves the overflow in and
                         * out (2 x overflow), the two directions of the PCIe
                         * link at once, at unified-memory speed.  Under
                         * optimizer-in-backward bitsandbytes synchronises
                         * after each parameter's step, so none of it overlaps
                         * the backward either (bitsandbytes docs, "Paged
                         * optimizers").
                         */
                        double cap = (double)(g->usable_memory_bytes ? g->usable_memory_bytes
                                                                    : g->memory_bytes);
                        double over = cap > 0 ? (double)r->per_gpu_needed_bytes - cap : 0;
                        over = fmin(over, (double)r->per_gpu[EST_C_OPTIMIZER]);
                        if (over > 0) {
                                r->paged_overflow_bytes = (uint64_t)llround(over);
                                offload = 2 * over / (2 * hl * unified_memory_link_share);
                                ASSUME(r, EST_A_PAGED_OVERFLOW, over, offload);
                        }
                }
                r->offload_seconds_per_step = offload;
                r->comm_bytes_per_step = bytes + tp_bytes;
                r->link_bytes_per_s = link;
                double comm = bytes / dp_link_rate(in, link) + host_link;
                /* Tensor-parallel all-reduces sit on the critical path; the
                 * pass model already charges them when it is used. */
                double tp_time =
                        fixed_mfu ? tp_bytes / (g->link_bytes_per_s > 0 ? g->link_bytes_per_s
                                                                        : default_pcie_bytes_per_s)
                                  : 0;
                /*
                 * Data-parallel traffic overlaps the backward pass (DDP
                 * buckets, FSDP prefetch) except what cannot: the first
                 * gather before any compute and the last reduction after
                 * it, one block's share of the traffic.
                 */
                double exposed = comm > compute ? comm - compute : 0;
                if (comm > 0 && L > 0)
                        exposed += comm / L;
                r->comm_seconds_per_step = comm + tp_time;
                /* The input pipeline: each process loads batch x
                 * accumulation samples per step.  Loader workers prefetch
                 * (PyTorch DataLoader prefetch_factor), so loading overlaps
                 * the step and only the slowest part counts. */
                double data = data_seconds_per_step(in, d);
                r->data_seconds_per_step = data;
                ASSUME(r, EST_A_DATA_LOADING, data_samples_per_s(in, s), data);
                double busy = compute + exposed + tp_time + offload;
                r->seconds_per_step = fmax(busy, data);
                if (data >= busy)
                        r->bottleneck = EST_BOUND_DATA_LOADING;
                else if (comm > compute)
                        r->bottleneck = EST_BOUND_INTERCONNECT;
                else if (host >= 0.5 * compute)
                        r->bottleneck = EST_BOUND_HOST_OVERHEAD;
                else
                        r->bottleneck = EST_BOUND_COMPUTE;
                r->total_seconds = r->seconds_per_step * r->steps;
                r->tokens_per_second = r->seconds_per_step > 0 ? tokens / r->seconds_per_step : 0;
                r->mfu = r->seconds_per_step > 0 ? flops_step / (gpus * peak * r->seconds_per_step)
                                                 : 0;
                if (!fixed_mfu)
                        ASSUME(r, EST_A_SPEED_MODEL, sp->gemm_efficiency, sp->attention_efficiency);
                return;
        }

        /* Inference: prefill is compute-bound, decode reads every weight
         * (and the KV cache) once per generated token. */
        double b = in->batch_size;
        double vision_flops = vision_flops_per_sample(in, d) * b;
        double prefill_flops =
                forward_flops_per_token(in, d, d->prompt, in->arch.kind != MODEL_ENCODER) *
                        d->prompt * b +
                vision_flops;
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
        double bw = g->memory_bandwidth_bytes_per_s;
        double ctx = d->prompt + gen / 2;
        if (fixed_mfu) {
                /* The caller's utilisation: prefill at it, decode at the
                 * bandwidth roofline. */
                r->prefill_seconds = prefill_flops / (gpus * peak * in->mfu);
                ASSUME(r, EST_A_MFU, in->mfu, 0);
        } else {
                /* The memory model knows the cache per token (windows,
                 * latent attention): use it for the decode reads. */
                if (r->kv_bytes_per_token > 0)
                        r->speed.kv_bytes = (double)r->kv_bytes_per_token;
                r->prefill_seconds = speed_pass_seconds(sp, b * d->prompt,
                                                        attended_context(&in->arch, d->prompt), 0);
                ASSUME(r, EST_A_SPEED_MODEL, sp->gemm_efficiency, sp->attention_efficiency);
                if (sp->step_overhead > 0)
                        ASSUME(r, EST_A_STEP_OVERHEAD, sp->step_overhead, 0);
                else
                        ASSUME(r, EST_A_HOST_DISPATCH, sp->host_seconds_per_pass,
                               in->compile ? 0 : 1);
        }
        if (!fixed_mfu) /* prefill_flops carries it at the caller's utilisation */
                r->prefill_seconds += matmul_seconds(sp, vision_flops, gpus);
        r->total_seconds = r->prefill_seconds;
        r->seconds_per_step = r->total_seconds;
        r->compute_seconds_per_step = r->prefill_seconds;
        if (!(bw > 0) || r->decode_bytes_per_token == 0 || gen <= 0) {
                /* Encoders and prefill-only runs: every token is a prompt
                 * token, processed in the prefill. */
                r->bottleneck = EST_BOUND_COMPUTE;
                if (r->total_seconds > 0) {
                        r->tokens_per_second = r->tokens_per_step / r->total_seconds;
                        r->mfu = r->flops_per_step / (gpus * peak * r->total_seconds);
                }
                return;
        }
        double step_mem = (double)r->decode_bytes_per_token / bw;
        double step_flops = forward_flops_per_token(in, d, ctx, true) * b / (gpus * peak);
        r->decode_tokens_per_second_roofline = b / fmax(step_mem, step_flops);
        double step;
        if (fixed_mfu) {
                step = fmax(step_mem / decode_bandwidth_efficiency, step_flops / in->mfu);
                ASSUME(r, EST_A_DECODE_EFFICIENCY, decode_bandwidth_efficiency, 0);
                r->bottleneck = step_mem / decode_bandwidth_efficiency > step_flops / in->mfu
                                        ? EST_BOUND_MEMORY_BANDWIDTH
                                        : EST_BOUND_COMPUTE;
        } else {
                struct speed_parts p;
                speed_pass_parts(sp, b, ctx, b * ctx, &p);
                step = speed_pass_seconds(sp, b, ctx, b * ctx);
                double mem = p.gemm_memory + p.attention_memory + p.elementwise;
                double cmp = p.gemm_compute + p.attention_compute;
                if (p.host > speed_parts_gpu(&p))
                        r->bottleneck = EST_BOUND_HOST_OVERHEAD;
                else
                        r->bottleneck = mem >= cmp ? EST_BOUND_MEMORY_BANDWIDTH : EST_BOUND_COMPUTE;
        }
        r->decode_tokens_per_second = b / step;
        r->memory_seconds_per_step = step_mem / decode_bandwidth_efficiency * gen;
        r->compute_seconds_per_step = r->prefill_seconds + step_flops * gen;
        r->total_seconds = r->prefill_seconds + gen * step;
        r->seconds_per_step = r->total_seconds;
        r->tokens_per_second = r->total_seconds > 0 ? r->tokens_per_step / r->total_seconds : 0;
        r->mfu = r->total_seconds > 0 ? r->flops_per_step / (gpus * peak * r->total_seconds) : 0;
}

/* ---- goodput at scale ------------------------------------------------------ */

/*
 * Unexpected interruptions per GPU-hour: Meta's Llama 3 405B pre-training
 * saw 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s
 * (Llama Team, "The Llama 3 Herd of Models", 2024, section 3.3.4 and
 * table 5): 419 / (54 x 24 x 16,384) = 1.97e-5 per GPU-hour.
 */
static const double default_failures_per_gpu_hour = 419.0 / (54.0 * 24.0 * 16384.0);
/* Checkpoint storage: the same run's Tectonic store sustained 2 TB/s
 * across its 16,384 GPUs (ibid., section 3.3.1): 2e12 / 16,384 = 122 MB/s
 * per GPU, the job's write bandwidth growing with its GPUs. */
static const double default_write_bytes_per_s_per_gpu = 2e12 / 16384.0;
/* Detecting the failure, rescheduling, loading the checkpoint and warming
 * up: a stated assumption of ten minutes (the request can give its own). */
static const double default_restart_seconds = 600;

void compute_goodput(const struct estimate_input *in, const struct derived *d,
                     struct estimate_result *r)
{
        struct est_goodput *gp = &r->goodput;
        double n = in->gpus;

        memset(gp, 0, sizeof(*gp));
        if (!d->training || !(r->total_seconds > 0) || !(r->seconds_per_step > 0) ||
            (in->dataset_tokens == 0 && in->dataset_samples == 0))
                return;
        gp->present = true;
        gp->gpu_hours = r->total_seconds * n / 3600;
        gp->failures_per_gpu_hour = in->failures_per_gpu_hour > 0 ? in->failures_per_gpu_hour
                                                                   : default_failures_per_gpu_hour;
        /* Failures of independent GPUs add: the job's mean time between
         * interruptions is 1 / (rate x GPUs). */
        gp->mtbf_seconds = 3600 / (gp->failures_per_gpu_hour * n);
        /* A checkpoint holds the trained weights and the optimizer's states
         * and master copy (LoRA: the adapters and theirs). */
        double weights = d->lora ? d->P_trainable : d->P;
        gp->checkpoint_bytes = weights * d->e_w + d->P_trainable * (d->e_master + d->e_opt);
        gp->checkpoint_write_bytes_per_s = in->checkpoint_write_bytes_per_s > 0
                                                   ? in->checkpoint_write_bytes_per_s
                                                   : default_write_bytes_per_s_per_gpu * n;
        gp->checkpoint_seconds = gp->checkpoint_bytes / gp->checkpoint_write_bytes_per_s;
        /* An asynchronous save (torch.distributed.checkpoint.async_save)
         * blocks only for the copy of each GPU's shard to host memory. */
        double hl = default_pcie_bytes_per_s;
        gp->checkpoint_blocking_seconds =
                in->checkpoint_async ? fmin(gp->checkpoint_seconds, gp->checkpoint_bytes / n / hl)
                                     : gp->checkpoint_seconds;
        gp->restart_seconds =
                in->restart_seconds > 0 ? in->restart_seconds : default_restart_seconds;
        /* Young (1974) and Daly (2006): the interval that minimises the
         * time lost, sqrt(2 x checkpoint cost x MTBF); never shorter than
         * a step, nor than the write itself when saves run beside training
         * (the next save waits for the last). */
        double delta = gp->checkpoint_blocking_seconds;
        if (in->checkpoint_interval_s > 0) {
                gp->checkpoint_interval_s = in->checkpoint_interval_s;
        } else {
                double floor_s = fmax(r->seconds_per_step,
                                      in->checkpoint_async ? gp->checkpoint_seconds : 0);
                gp->checkpoint_interval_s = fmax(sqrt(2 * delta * gp->mtbf_seconds), floor_s);
                gp->interval_optimal = true;
        }
        double tau = gp->checkpoint_interval_s;
        /* On average an interruption loses half an interval of work and
         * the restart (Daly 2006, first-order model). */
        gp->lost_seconds_per_interruption = gp->restart_seconds + tau / 2;
        /* Wall time W: the work plus its saves, T (1 + delta / tau), and
         * W / MTBF interruptions each losing the above:
         * W = T (1 + delta / tau) / (1 - lost / MTBF). */
        double keep = 1 - gp->lost_seconds_per_interruption / gp->mtbf_seconds;
        if (!(keep > 0))
                return; /* it never finishes: goodput 0, no effective time */
        gp->effective_seconds = r->total_seconds * (1 + delta / tau) / keep;
        gp->expected_interruptions = gp->effective_seconds / gp->mtbf_seconds;
        gp->goodput = r->total_seconds / gp->effective_seconds;
}
