/*
 * memory.c - memory per GPU and on the host, phase by phase.
 *
 * How the memory model is built.  Every tensor class the training loop
 * keeps on a GPU is placed in the phases during which it is alive:
 *
 *   forward   end of the forward pass: weights, optimizer states (from the
 *             second step on), gradients only if they accumulate across
 *             micro-batches, every saved activation, logits + log-probs;
 *   backward  start of the backward pass: as forward, plus the gradients of
 *             the loss (log-probs and logits) and of the head's weights;
 *   bwd_end   end of the backward pass: all gradients, activations freed;
 *   optimizer the step: states + gradients + the optimizer's temporaries;
 *   prefill / decode for inference.
 *
 * Each phase is an affine function of the per-GPU batch size b: a fixed
 * part plus a per-sample part, per component.  The peak is the largest
 * phase at the requested b; the largest b that fits a GPU is the smallest
 * solution over the phases, so the fit table over the whole catalog costs
 * a few multiplications per GPU.
 *
 * Arithmetic is in double precision (exact for integers below 2^53 bytes,
 * 8 PiB) and every total is checked against EST_BYTES_LIMIT before it is
 * converted to uint64_t: absurd input is refused, never wrapped.
 */
#include "core/estimate_internal.h"
#include "core/peft.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- constants, each with its source ------------------------------------ */

/* CUDA context + kernels resident per process with lazy module loading
 * (CUDA >= 11.7, PyTorch >= 2.0): about 0.5 GiB on A100/H100.  Anchors use
 * 650 MB (gpu_poor) and 1000 MiB (asmirnov VRAM calculator); the Hugging
 * Face "model memory anatomy" page measured 1,343 MB on a V100 with eager
 * loading of every kernel. */
const double memory_cuda_context_bytes = 512.0 * MIB;
/* PyTorch caching-allocator reserve and fragmentation over the allocated
 * peak, as nvidia-smi shows it; 5% (Megatron-LM maintainers cite ~8% for
 * fragmentation in NVIDIA/Megatron-LM#188; theoretical_memory_usage.py
 * adds 5% to activations). */
const double memory_allocator_reserve_fraction = 0.05;
/* NCCL communicator buffers per process when GPUs talk: AIConfigurator
 * measured 342 MB (TP2) to 392 MB (TP4/8).  NCCL reserves them itself
 * (cudaMalloc / cuMem in ncclCommInitRank), outside PyTorch's caching
 * allocator: nvidia-smi shows them, max_memory_allocated and
 * max_memory_reserved do not, so they sit beside the CUDA context. */
const double memory_nccl_buffer_bytes = 392.0e6;
/* DeepSpeed ZeRO-1/2 default reduce_bucket_size and allgather_bucket_size
 * (elements), DeepSpeed configuration docs. */
const double memory_zero_bucket_elements = 5e8;
/* torchtune OffloadActivations default max_fwd_stash_size: tensors whose
 * GPU copies stay while they are copied out. */
const double memory_offload_stash = 5.0;
/* torchtune CEWithChunkedOutputLoss default num_output_chunks. */
const double memory_loss_chunks = 8.0;
/* Host memory per training process: PyTorch + CUDA libraries, host-side
 * CUDA allocations and pinned staging buffers (typical resident size). */
const double memory_cpu_runtime_bytes = 3.0 * GIB;
const double memory_cpu_data_bytes = 1.0 * GIB;

/* Activation bytes one block keeps for backward, per sample (b = 1),
 * after Korthikanti et al. 2022 (Reducing Activation Recomputation in
 * Large Transformer Models, §4.1): with B bytes per element, a block stores
 *   attention  B*s*h (QKV input) + B*s*(q + 2 kv) (Q, K, V) + B*s*q
 *              (output-projection input) + scores + s*h dropout mask
 *   scores     a*s^2*(2B + 1) without fused attention (softmax output,
 *              dropout mask, dropout output); 0 with flash attention,
 *              which keeps a 4*a*s fp32 log-sum-exp instead
 *   MLP        B*s*h + 2*B*s*f (activation input and output; 4*B*s*f when
 *              gated: gate, up, act(gate), product) + s*h dropout mask
 *   norms      2 * s*h * B (4 when the norm computes in fp32 on half
 *              inputs: RMSNorm upcasts in LLaMA, autocast runs layer_norm
 *              in fp32)
 * which for B = 2, f = 4h, MHA and dropout is the paper's
 * s*h*(34 + 5*a*s/h).  Tensor parallelism divides the attention and MLP
 * internals by t; sequence parallelism divides the rest too (Korthikanti
 * eq. 2 and 4).  cross: an encoder-decoder's decoder block adds a cross
 * attention over s_kv encoder positions. */
/* QLoRA: the gated product into the down projection, per sample. */

/* Elements of a block's largest weight matrix (the MLP's h x ffn, the
 * fused or separate attention projections, one expert's). */
static double memory_largest_matrix(const struct model_arch *a)
{
        double h = a->hidden, q = (double)a->heads * a->head_dim;
        double f = a->ffn > a->dense_ffn ? a->ffn : a->dense_ffn;
        double m = h * f;
        if (h * q > m)
                m = h * q;
        return m;
}

static double qlora_down_input_bytes(const struct model_arch *a, double B, double s)
{
        double ex = a->experts > 1 ? a->active_experts : 1;
        return B * s * a->ffn * ex;
}

/* bitsandbytes' MatMul4Bit saves its input; torchao's LinearNF4, which
 * torchtune's QLoRA builds on (torchao/dtypes/nf4tensor.py: forward keeps
 * ctx.nf4_weight, backward returns grad_output @ weight), does not. */
bool memory_qlora_keeps_inputs(const struct estimate_input *in)
{
        return in->framework != EST_FW_TORCHTUNE;
}

double memory_qlora_saved_bytes(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        double B = d->e_a, t = in->tensor_parallel;
        double q = (double)a->heads * a->head_dim;
        double tokens = (double)d->s * a->layers + (double)d->s_dec * a->decoder_layers;
        double rep = 2.0 * B * a->hidden, shard = B * q + qlora_down_input_bytes(a, B, 1);
        double per_token = in->sequence_parallel ? (rep + shard) / t : rep + shard / t;
        return per_token * tokens;
}

/* QLoRA through bitsandbytes' Linear4bit with its weights sharded (FSDP,
 * ZeRO-3): the quantization state stays whole on every GPU (see
 * memory_model_build). */
static bool memory_replicated_quant_state(const struct estimate_input *in, const struct derived *d)
{
        return in->quantization == EST_QUANT_NF4 && d->training && d->stage >= 3 && d->shard > 1 &&
               memory_qlora_keeps_inputs(in);
}

/* Full or PEFT-free training with torchao float8 linears (fp8_mixed). */
bool memory_float8_linears(const struct estimate_input *in, const struct derived *d)
{
        return d->training && !d->lora && in->precision == EST_FP8_MIXED;
}

/* The model runs transformers' own modeling code: no framework stated, or
 * one that trains or serves the Hugging Face modules as they are. */
static bool memory_hf_modeling(const struct estimate_input *in)
{
        return in->framework == EST_FW_NONE || in->framework == EST_FW_HF_TRAINER ||
               in->framework == EST_FW_ACCELERATE || in->framework == EST_FW_DEEPSPEED ||
               in->framework == EST_FW_TRANSFORMERS;
}

/* Eager attention whose softmax runs in fp32 whatever the compute dtype:
 * autocast puts softmax on its fp32 list, and transformers' rotary
 * decoders (eager_attention_forward in modeling_llama.py and the families
 * copied from it: softmax(..., dtype=torch.float32).to(query.dtype)) and
 * T5 (T5Attention: softmax(scores.float()).type_as(scores)) ask for it
 * themselves.  The fp32 probabilities are kept by softmax's backward and
 * their half copy by the matmul with V.  BERT and GPT-2 take the softmax
 * in the compute dtype. */
bool memory_eager_fp32_softmax(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        if (d->mixed)
                return true;
        return d->e_a < 4 && memory_hf_modeling(in) &&
               (a->position == MODEL_POS_ROTARY || a->position == MODEL_POS_RELATIVE);
}

/*
 * transformers' "gelu_new" / "gelu_fast" (activations.py,
 * NewGELUActivation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 *
 * x^3)))) is a chain of element-wise ops, and eager autograd keeps what
 * each product needs: tanh's result, 0.5 * x and 1 + tanh, three tensors
 * of the MLP width beyond the input the block formula counts.  Under
 * autocast pow is on the fp32 list, so x is also kept as an fp32 copy and
 * the chain after it runs in fp32: the fp32 copy, tanh and 1 + tanh at 4
 * bytes, 0.5 * x at the half width, and with a gated MLP (T5 v1.1) the
 * activation's fp32 result is what the gate product keeps (4 - e_a more
 * than counted).  A compiled block fuses the chain.  Bytes per element of
 * one MLP's intermediate; 0 for every other activation.
 */
double memory_gelu_new_bytes(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        double B = d->e_a;
        if (a->activation != MODEL_ACT_GELU_NEW || in->compile || !memory_hf_modeling(in))
                return 0;
        if (d->mixed)
                return 12.0 + B + (a->gated_mlp ? 4.0 - B : 0);
        return 3.0 * B;
}

/* Norms per block beyond the classic two (Gemma 2 and 3: post-attention
 * and post-feedforward norms as well, Gemma2DecoderLayer); each keeps its
 * input for backward like the others. */
double memory_extra_norms(const struct model_arch *a)
{
        return a->block_norms > 2 ? a->block_norms - 2 : 0;
}

/* Eager autocast over fp32 weights (PyTorch AMP on one GPU or under DDP;
 * FSDP's MixedPrecision and Megatron cast the weights instead): the
 * residual stream and the norms' outputs stay fp32, and autocast caches
 * only the casts of leaf tensors that require grad - the weights
 * (aten/src/ATen/autocast_mode.cpp, cached_cast) - so each projection
 * casts its fp32 input to the half dtype again and keeps its own copy for
 * the weight gradient: separate Q, K and V projections keep three copies
 * of the attention input, separate gate and up two of the MLP input.  A
 * compiled block's graph casts once.  The block formula counts one copy
 * of each; these are the others. */
void memory_autocast_input_copies(const struct estimate_input *in, const struct derived *d,
                                  double *attn, double *mlp)
{
        const struct model_arch *a = &in->arch;
        *attn = *mlp = 0;
        if (!d->amp || in->strategy == EST_FSDP || in->framework == EST_FW_MEGATRON ||
            in->compile || a->kv_lora_rank)
                return;
        unsigned all = peft_all_linear(a);
        if (!(all & EST_LORA_QKV))
                *attn = 2;
        if (a->gated_mlp && !(all & EST_LORA_GATE_UP))
                *mlp = 1;
}

/*
 * Bytes per input feature and token that LoRA's A keeps of its own: the
 * wrapped layer's input as A sees it.  PEFT (lora/layer.py, Linear.forward:
 * lora_B(lora_A(dropout(x)))) and litgpt (lora.py, LoRALinear.forward:
 * lora_dropout(x) @ A^T @ B^T) drop the input before A: with p > 0 that is
 * a new tensor A's matmul keeps, plus the 1-byte mask native_dropout keeps.
 * PEFT since 0.12 (autocast_adapter_dtype=True) keeps the adapters in fp32
 * over a half-precision base and casts the input to fp32 before them
 * (_cast_input_dtype), so A keeps a 4-byte copy even with p = 0.  0 when A
 * keeps the layer's input itself (p = 0, adapters in the compute dtype).
 */
static double lora_own_copy_bytes(const struct estimate_input *in, const struct derived *d)
{
        bool fp32_adapters = in->mode == EST_LORA && memory_hf_modeling(in) && d->e_a < 4;
        double e = fp32_adapters ? 4 : d->e_a;
        if (in->lora_dropout > 0)
                return e + 1;
        return fp32_adapters ? e : 0;
}

/*
 * A frozen linear keeps nothing for backward: the gradient of its input
 * needs only the weight, and autograd saves an operand only for the
 * gradients it will compute (derivatives.yaml, mm: self is saved for
 * mat2's gradient).  Under LoRA, and QLoRA through torchao's linear_nf4
 * (bitsandbytes' matmul keeps its input: memory_qlora_keeps_inputs), an
 * input that only frozen matrices read is not kept - the norm outputs into
 * Q/K/V and into the MLP, the attention output into O (eager; flash
 * attention keeps its own output), the MLP product into down - unless a
 * wrapped matrix's A keeps it itself (lora_own_copy_bytes 0).  Bit set:
 * that input is kept.
 */
#define KEEP_QKV_IN  1u
#define KEEP_O_IN    2u
#define KEEP_MLP_IN  4u
#define KEEP_DOWN_IN 8u
#define KEEP_ALL     15u

static unsigned lora_kept_inputs(const struct estimate_input *in, const struct derived *d)
{
        unsigned tg = in->lora_targets, kept = 0;
        if (in->mode != EST_LORA && !(in->mode == EST_QLORA && !memory_qlora_keeps_inputs(in)))
                return KEEP_ALL;
        if (lora_own_copy_bytes(in, d) > 0)
                return 0;
        if (tg & (EST_LORA_Q | EST_LORA_K | EST_LORA_V | EST_LORA_QKV))
                kept |= KEEP_QKV_IN;
        if (tg & EST_LORA_O)
                kept |= KEEP_O_IN;
        if (tg & (EST_LORA_GATE | EST_LORA_UP | EST_LORA_GATE_UP))
                kept |= KEEP_MLP_IN;
        if (tg & EST_LORA_DOWN)
                kept |= KEEP_DOWN_IN;
        return kept;
}

/* Whether the input of the down projection (the MLP's product) is kept:
 * always outside LoRA; the allocator replay's mirror of lora_kept_inputs. */
bool memory_lora_keeps_down_input(const struct estimate_input *in, const struct derived *d)
{
        return (lora_kept_inputs(in, d) & KEEP_DOWN_IN) != 0;
}

/* One block's saved activations per sample over s tokens; s_enc > 0 adds
 * an encoder-decoder's cross-attention over s_enc encoder tokens. */
static double block_activation_bytes(const struct model_arch *a, const struct estimate_input *in,
                                     const struct derived *d, double s, double s_enc)
{
        double B = d->e_a, h = a->hidden, f = a->ffn;
        double q = (double)a->heads * a->head_dim;
        bool flash = in->flash_attention;
        /* Eager attention in transformers repeats K/V heads (repeat_kv). */
        double kv = flash ? (double)a->kv_heads * a->head_dim : q;
        double t = in->tensor_parallel, drop = a->dropout > 0 ? 1.0 : 0.0;
        double heads = a->heads;
        double norm_b = (B < 4 && (a->norm == MODEL_NORM_RMSNORM || d->mixed)) ? 4 : B;
        double score_b;
        if (memory_eager_fp32_softmax(in, d)) {
                /* fp32 probabilities (4) and their half copy for the matmul;
                 * autocast's copy is 2 bytes, a pure-precision model's e_a */
                double half = d->mixed ? 2 : B;
                score_b = drop > 0 ? 4 + 1 + half : 4 + half;
        } else {
                score_b = drop > 0 ? 2 * B + 1 : B;
        }
        /* Gemma 2's eager attention caps the scores: cap * tanh(s / cap)
         * keeps tanh's result (Gemma2Attention, attn_logit_softcapping);
         * the fused kernels take no cap. */
        if (a->attn_softcap > 0)
                score_b += d->mixed ? 2 : B;

        double rep = B * s * h /* QKV input */ + drop * s * h /* attention output dropout mask */;
        double shard = B * s * (q + 2 * kv) + B * s * q;
        if (flash)
                shard += 4.0 * heads * s;
        else if (in->checkpointing != EST_CKPT_SELECTIVE)
                shard += score_b * heads * s * s;
        double attn_rep = rep, attn_shard = shard;

        double mlp_rep = B * s * h + drop * s * h;
        double casts_attn = d->autocast_copies_attn, casts_mlp = d->autocast_copies_mlp;
        rep += casts_attn * B * s * h;
        attn_rep += casts_attn * B * s * h;
        mlp_rep += casts_mlp * B * s * h;
        double mlp_shard = (a->gated_mlp ? 4.0 : 2.0) * B * s * f;
        mlp_shard += memory_gelu_new_bytes(in, d) * s * f;
        double n_norms = 2.0 + memory_extra_norms(a);
        double norms = n_norms * norm_b * s * h;
        if (in->compile) {
                /* torch.compile: Inductor fuses the element-wise ops and its
                 * min-cut partitioner (torch/_functorch/partitioners.py,
                 * min_cut_rematerialization_partition) recomputes cheap
                 * pointwise results in backward rather than saving them.
                 * A norm keeps its input in the compute dtype and an fp32
                 * rstd per token; its output (the QKV and MLP input) is
                 * recomputed; the MLP keeps its matmul outputs (gate and up,
                 * or fc1) and recomputes the activation and product. */
                norms = n_norms * (B * s * h + 4.0 * s);
                attn_rep -= B * s * h;
                rep -= B * s * h;
                mlp_rep -= B * s * h;
                mlp_shard = (a->gated_mlp ? 2.0 : 1.0) * B * s * f;
        }
        if (memory_float8_linears(in, d) && !in->compile) {
                /* torchao Float8Linear, tensorwise scaling: every linear
                 * casts its own input to float8 and autograd keeps that
                 * 1-byte copy for the weight gradient
                 * (torchao/float8/float8_linear.py, Float8Linear.forward and
                 * manual_float8_matmul_with_args_in_float8: save_for_backward
                 * (input_fp8, weight_fp8_t)).  A compute-dtype input nothing
                 * else keeps is dropped: the norm outputs into Q, K, V (three
                 * copies, one per projection) and into gate and up (two, or
                 * one for fc1), the product into down; the attention output
                 * stays for flash attention's backward and gains a copy. */
                double ups = a->gated_mlp ? 2.0 : 1.0;
                attn_rep += (3.0 - B) * s * h;
                attn_shard += s * q;
                mlp_rep += (ups - B) * s * h;
                mlp_shard += (1.0 - B) * s * f;
        }
        if (!in->compile && d->lora) {
                /* frozen matrices keep no inputs (lora_kept_inputs) */
                unsigned kept = lora_kept_inputs(in, d);
                if (!(kept & KEEP_QKV_IN)) {
                        rep -= B * s * h;
                        attn_rep -= B * s * h;
                }
                if (!(kept & KEEP_O_IN) && !flash)
                        attn_shard -= B * s * q;
                if (!(kept & KEEP_MLP_IN))
                        mlp_rep -= B * s * h;
                if (!(kept & KEEP_DOWN_IN))
                        mlp_shard -= B * s * f;
        }
        if (a->experts >
            1) /* routed tokens: each goes through active experts; router logits fp32 */
                mlp_shard = mlp_shard * a->active_experts + 4.0 * s * a->experts;

        /* QLoRA: bitsandbytes' MatMul4Bit keeps its input A for backward
         * whenever A needs a gradient (bitsandbytes autograd/_functions.py,
         * MatMul4Bit.forward: ctx.tensors = (A, B)), where a frozen
         * torch.nn.Linear keeps nothing.  The inputs that no other
         * operation keeps: the two norm outputs (into QKV and into the
         * MLP, shared by gate and up), the attention output into the
         * output projection, and the gated product into the down
         * projection: B*s*(2h + q + f) per block. */
        if (in->mode == EST_QLORA && memory_qlora_keeps_inputs(in)) {
                attn_rep += 2.0 * B * s * h;
                attn_shard += B * s * q;
                mlp_shard += qlora_down_input_bytes(a, B, s);
        }
        double total_rep = attn_rep + mlp_rep + norms + memory_lora_dropout_bytes(in, d) * s / d->s;
        double total_shard = attn_shard + mlp_shard;
        if (s_enc > 0) {
                /* Cross-attention (T5LayerCrossAttention, BART's
                 * encoder_attn): a norm and the query over this block's s
                 * tokens, keys and values projected from the encoder's
                 * s_enc (their input, the encoder output, is one tensor
                 * all blocks share: counted once by the caller), scores
                 * s x s_enc. */
                double x_shard = B * s * q + B * s_enc * 2 * kv + B * s * q;
                if (flash)
                        x_shard += 4.0 * heads * s;
                else if (in->checkpointing != EST_CKPT_SELECTIVE)
                        x_shard += score_b * heads * s * s_enc;
                total_rep += rep + norm_b * s * h;
                total_shard += x_shard;
        }
        if (in->sequence_parallel) {
                /* Megatron-LM all-gathers a linear's sequence-sharded input
                 * again in backward instead of saving it (Korthikanti et al.
                 * 2022 §4.2.2).  PyTorch's native sequence parallelism
                 * (torch.distributed.tensor.parallel, SequenceParallel +
                 * ColwiseParallel, as torchtitan uses it) lets autograd save
                 * the gathered inputs of the QKV and MLP projections: two
                 * full B*s*h tensors per block. */
                double gathered = 0;
                if (in->framework != EST_FW_MEGATRON && in->framework != EST_FW_NONE)
                        gathered = 2.0 * B * s * h * (1.0 - 1.0 / t);
                return (total_rep + total_shard) / t + gathered;
        }
        return total_rep + total_shard / t;
}

/*
 * One block's working set while it runs without keeping anything for
 * backward (inference, a frozen tower), per sample over s tokens: its
 * input and output (B*s*h each) and the larger of the MLP intermediates
 * (gate, up and their product, or fc1 and its activation) and the
 * attention's Q, K, V with, for eager attention, the scores and their
 * softmax; buffers are reused block to block.
 */
static double live_block_bytes(const struct model_arch *a, const struct estimate_input *in,
                               const struct derived *d, double s)
{
        double B = d->e_a, t = in->tensor_parallel;
        double h = a->hidden, f = a->ffn, q = (double)a->heads * a->head_dim;
        double ex = a->experts > 1 ? a->active_experts : 1;
        double mlp_ws = s * f * B * (a->gated_mlp ? 3 : 2) * ex / t;
        double attn_ws = s * (q + 2 * (double)a->kv_heads * a->head_dim) * B / t;
        if (!in->flash_attention)
                attn_ws += 2 * B * (double)a->heads / t * s * s; /* scores + softmax */
        return 2 * s * h * B + fmax(mlp_ws, attn_ws);
}

/*
 * The vision tower's blocks as a block of the engine's shape (MHA, pre-
 * norm, no dropout, no experts), so that one image's tokens go through the
 * same per-block formulas as text: an input whose arch is the tower's.
 */
static void vision_input(const struct estimate_input *in, struct estimate_input *vin)
{
        const struct model_vision *v = &in->arch.vision;
        struct model_arch *a = &vin->arch;
        *vin = *in;
        memset(a, 0, sizeof(*a));
        a->kind = MODEL_ENCODER;
        a->layers = v->layers;
        a->hidden = v->hidden;
        a->heads = v->heads;
        a->kv_heads = v->heads;
        a->head_dim = v->heads ? v->hidden / v->heads : v->hidden;
        a->ffn = v->ffn;
        a->gated_mlp = v->gated_mlp;
        a->activation = v->gated_mlp ? MODEL_ACT_SILU : MODEL_ACT_GELU;
        a->norm = v->rmsnorm ? MODEL_NORM_RMSNORM : MODEL_NORM_LAYERNORM;
        a->pre_norm = true;
}

/* Whether the tower is trained: full fine-tuning and pre-training train
 * every weight; LoRA and QLoRA freeze it (PEFT wraps the target modules of
 * the language model, and the tower's input, the pixels, needs no
 * gradient, so autograd records nothing in it). */
static bool vision_trained(const struct derived *d)
{
        return d->training && !d->lora;
}

/*
 * The vision tower per sample of in->images images, each of
 * arch.vision.tokens tokens (attention runs within one image: Qwen2-VL's
 * cu_seqlens, one batch row per image or per Llama 3.2 Vision tile set):
 *   live      the working set of the block running (live_block_bytes)
 *   saved     what a trained tower keeps for backward, every block
 *             (block_activation_bytes); with full checkpointing each
 *             checkpointed block keeps its input, B*s*h
 *   recompute one block's saved bytes, rebuilt in backward when
 *             checkpointed
 * A frozen tower saves nothing (vision_trained).  Qwen2.5-VL attends
 * within 112-pixel windows in all blocks but its fullatt_block_indexes
 * (modeling_qwen2_5_vl.py, get_window_index): eager scores are counted over
 * the whole image in every block, which the live block (a full-attention
 * one) does hold and a trained tower's windowed blocks do not.
 */
static void vision_bytes(const struct estimate_input *in, const struct derived *d, double *live,
                         double *saved, double *recompute)
{
        const struct model_vision *v = &in->arch.vision;
        double n = in->images, s = v->tokens, L = v->layers;
        struct estimate_input vin;
        *live = *saved = *recompute = 0;
        if (n == 0 || L == 0 || s == 0)
                return;
        vision_input(in, &vin);
        *live = n * live_block_bytes(&vin.arch, &vin, d, s);
        if (!vision_trained(d))
                return;
        double block = n * block_activation_bytes(&vin.arch, &vin, d, s, 0);
        if (in->checkpointing == EST_CKPT_FULL) {
                double k = in->checkpoint_every > 1 ? in->checkpoint_every : 1;
                double ck = floor(L / k);
                double t = in->sequence_parallel ? in->tensor_parallel : 1;
                *saved = n * d->e_a * s * v->hidden * ck / t + block * (L - ck);
                *recompute = ck > 0 ? block : 0;
        } else {
                *saved = block * L;
        }
}

/*
 * torchtitan's op-level selective checkpointing, per block and sample
 * (torchtitan/distributed/activation_checkpoint.py: _op_sac_save_list and
 * the policy of _apply_op_sac).  Inside the checkpointed block the outputs
 * of aten.mm are saved except every second one, counted in forward order
 * (LLaMA: wq kept, wk recomputed, wv kept, wo recomputed, w1 kept, w3
 * recomputed, w2 kept), and so are the fused attention's outputs (the
 * attention output and its fp32 log-sum-exp); every other op is recomputed
 * in backward.  The checkpoint keeps the block input.  Column-parallel
 * outputs are split over t; row-parallel ones too with sequence
 * parallelism (the reduce-scatter output is what is kept).
 */
double memory_sac_op_block_bytes(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        double B = d->e_a, s = d->s, h = a->hidden, t = in->tensor_parallel;
        double q = (double)a->heads * a->head_dim, kv = (double)a->kv_heads * a->head_dim;
        double ex = a->experts > 1 ? a->active_experts : 1;
        double rows = in->sequence_parallel ? t : 1; /* how outputs of width h are split */
        /* mm outputs in forward order: {width, split} */
        double width[8], split[8];
        int n = 0;
        width[n] = q, split[n++] = t;
        width[n] = kv, split[n++] = t;
        width[n] = kv, split[n++] = t;
        width[n] = h, split[n++] = rows;
        width[n] = a->ffn * ex, split[n++] = t;
        if (a->gated_mlp)
                width[n] = a->ffn * ex, split[n++] = t;
        width[n] = h, split[n++] = rows;
        double kept = B * s * h / rows; /* the block input */
        for (int i = 0; i < n; i += 2)  /* the 1st, 3rd, ... mm */
                kept += B * s * width[i] / split[i];
        if (!memory_sac_recomputes_attention(in))
                kept += (B * s * q + 4.0 * a->heads * s) / t; /* attention output + log-sum-exp */
        return kept;
}

/* torchtitan's op policy saves the outputs of the ops on its save list:
 * mm and the flash and memory-efficient SDPA kernels
 * (torchtitan/models/llama3/infra/parallelize.py, _save_list, through
 * November 2025).  cuDNN's SDPA kernel, which PyTorch runs first on sm100
 * (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
 * check_prefer_cudnn_attention), joined the list on 2025-12-01 (torchtitan
 * pull request #2095); before that its output and statistics were
 * recomputed with the rest of the block. */
bool memory_sac_recomputes_attention(const struct estimate_input *in)
{
        return in->checkpointing == EST_CKPT_SELECTIVE_OP && in->flash_attention &&
               in->attention_cudnn && in->framework == EST_FW_TORCHTITAN &&
               in->framework_release != 0 && in->framework_release < 202512;
}

/* What LoRA's A keeps of its own, per block and sample
 * (lora_own_copy_bytes for every wrapped matrix's input features). */
double memory_lora_dropout_bytes(const struct estimate_input *in, const struct derived *d)
{
        const struct model_arch *a = &in->arch;
        unsigned tg = in->lora_targets;
        double h = a->hidden, q = (double)a->heads * a->head_dim, f = a->ffn;
        double ex = a->experts > 1 ? a->active_experts : 1;
        double in_features = 0;
        double per = d->lora ? lora_own_copy_bytes(in, d) : 0;

        if (per <= 0)
                return 0;
        in_features += h * (((tg & EST_LORA_Q) != 0) + ((tg & EST_LORA_K) != 0) +
                            ((tg & EST_LORA_V) != 0) + ((tg & EST_LORA_QKV) != 0));
        if (tg & EST_LORA_O)
                in_features += a->kv_lora_rank ? (double)a->heads * a->v_head_dim : q;
        /* MLA's latent projections read h (q_a, kv_a) or the latents */
        in_features += h * (((tg & EST_LORA_Q_A) != 0) + ((tg & EST_LORA_KV_A) != 0));
        if (tg & EST_LORA_Q_B)
                in_features += a->q_lora_rank;
        if (tg & EST_LORA_KV_B)
                in_features += a->kv_lora_rank;
        if (a->linear_layers && a->layers) {
                /* Gated DeltaNet blocks: their own projections instead (the
                 * in_proj pair reads h, out_proj the value heads); a block's
                 * share is the mean over both kinds. */
                double lin = h * (((tg & EST_LORA_LIN_QKVZ) != 0) + ((tg & EST_LORA_LIN_BA) != 0));
                if (tg & EST_LORA_LIN_OUT)
                        lin += (double)a->lin_v_heads * a->lin_v_dim;
                double share = (double)a->linear_layers / a->layers;
                in_features = in_features * (1 - share) + lin * share;
        }
        if (a->gated_mlp)
                in_features += h * ex *
                               (((tg & EST_LORA_GATE) != 0) + ((tg & EST_LORA_UP) != 0) +
                                ((tg & EST_LORA_GATE_UP) != 0));
        else if (tg & (EST_LORA_UP | EST_LORA_GATE | EST_LORA_GATE_UP))
                in_features += h * ex;
        if (tg & EST_LORA_DOWN)
                in_features += f * ex;
        return per * d->s * in_features;
}

/* torchtune's CEWithChunkedOutputLoss (torchtune/modules/loss/
 * ce_chunked_output_loss.py at 10ff7cd2, compute_cross_entropy:
 * F.cross_entropy(logits.float(), ...) per chunk; apply_compile_strategy
 * compiles that method alone when the recipe's compile is on).  Other
 * chunked losses keep the one-chunk-at-a-time model below. */
enum memory_chunked_ce memory_chunked_ce(const struct estimate_input *in)
{
        if (in->framework != EST_FW_TORCHTUNE)
                return MEMORY_CE_ONE_CHUNK;
        return in->compile ? MEMORY_CE_COMPILED : MEMORY_CE_EAGER_KEPT;
}

/* litgpt QLoRA (finetune/lora.py --quantize bnb.*): Lightning's
 * BitsandbytesPrecision.convert_module replaces every nn.Linear, lm_head
 * included, with a bitsandbytes 4-bit layer. */
static bool litgpt_quantized_head(const struct estimate_input *in, const struct derived *d)
{
        return in->framework == EST_FW_LITGPT && in->mode == EST_QLORA && d->training &&
               d->lm_logits;
}

/* Logits and loss buffers per sample (see the EST_A_LOGITS_FP32 note):
 * cross-entropy in fp32 over n = s x V elements.  At the end of forward
 * the model's output object holds the fp32 logits and log_softmax has
 * saved fp32 log-probabilities (2 x 4n); at the start of backward their
 * gradients join them (4 x 4n).  A loop that lets the output go before
 * backward (output_kept false: HF Trainer's compute_loss returns the loss
 * alone) frees the logits there: autograd keeps no reference to them, as
 * the loss's log_softmax saves its result and the upcast and the shift's
 * copy save nothing (3 x 4n).
 *
 * Chunked loss (torchtune CEWithChunkedOutputLoss with its
 * compute_cross_entropy compiled, as the class documents and the README
 * figures were measured; torchtune pull request #1390): the output
 * projection runs per chunk of C = 8, each chunk's loss saves only its
 * logits in the compute dtype (e_a * n / C), and the fp32 upcast and
 * log-probabilities exist for one chunk at a time (8n / C).  In backward
 * each chunk's loss node hands out the chunk's logit gradient and the
 * autograd engine frees that node's saved logits (retain_graph=False), so
 * saved logits plus logit gradients never exceed e_a * n + e_a * n / C:
 * the logits and their gradient are not both alive in full. */
static void logits_bytes(const struct estimate_input *in, const struct derived *d, double *fwd,
                         double *bwd)
{
        double n;
        const struct model_arch *a = &in->arch;
        *fwd = *bwd = 0;
        if (!d->training)
                return;
        if (d->encoder_head) {
                n = in->num_labels;
                *fwd = 8 * n;
                *bwd = 16 * n;
                return;
        }
        n = (double)d->s_dec * a->vocab / in->tensor_parallel;
        /* Gemma 2 caps the logits in the model (Gemma2ForCausalLM.forward,
         * final_logit_softcapping; litgpt and torchtune the same):
         * cap * tanh(logits / cap) keeps tanh's result in the compute
         * dtype until the loss's gradient reaches it, per chunk when the
         * output is chunked. */
        double cap = a->final_softcap > 0 ? d->e_a * n : 0;
        if (in->chunked_loss)
                cap /= memory_loss_chunks;
        *fwd = *bwd = cap;
        double c = n / memory_loss_chunks;
        if (in->chunked_loss && memory_chunked_ce(in) == MEMORY_CE_COMPILED) {
                /* Inductor fuses compute_cross_entropy's upcast, log-sum-exp
                 * and gradient into kernels that read the bf16 chunk and
                 * write its bf16 gradient: each chunk's graph saves its
                 * logits (the recipe's del logits frees nothing), none of
                 * the fp32 tensors exists; backward adds one chunk's
                 * gradient before the chunk's saved logits go. */
                *fwd += d->e_a * n;
                *bwd += d->e_a * (n + c);
        } else if (in->chunked_loss && memory_chunked_ce(in) == MEMORY_CE_EAGER_KEPT) {
                /* Eager, F.cross_entropy(logits.float(), ...) runs chunk by
                 * chunk, but autograd keeps every chunk's fp32 log_softmax
                 * result (LogSoftmaxBackward saves its output; the upcast's
                 * ToCopyBackward saves nothing).  Forward ends with the bf16
                 * chunks, all of the fp32 log-probabilities and the last
                 * chunk's upcast: (e + 4) n + 4n / C.  The recipe deletes
                 * the logits before backward (output_kept false); backward
                 * starts at the last chunk with every saved log-probability,
                 * the nll gradient and the log_softmax gradient of one
                 * chunk: 4n + 8n / C. */
                *fwd += (d->e_a + 4) * n + 4 * c;
                *bwd += 4 * n + 8 * c + (in->output_kept ? d->e_a * n : 0);
        } else if (in->chunked_loss) {
                *fwd += d->e_a * n + 8 * n / memory_loss_chunks;
                *bwd += d->e_a * n * (1 + 1 / memory_loss_chunks) + 8 * n / memory_loss_chunks;
        } else if (in->logits == EST_LOGITS_FUSED) {
                /* A fused or compiled cross-entropy (Inductor fuses the
                 * upcast, log-sum-exp and softmax - one-hot): it keeps the
                 * compute-dtype logits and writes their gradient in the
                 * same dtype; no fp32 copy is materialised. */
                *fwd += d->e_a * n;
                *bwd += 2 * d->e_a * n;
        } else if (in->logits == EST_LOGITS_UPCAST_IN_LOSS) {
                /* cross_entropy(logits.float(), ...) (torchtitan; Megatron's
                 * vocab-parallel loss): while the loss runs, the
                 * compute-dtype logits, their fp32 copy and the fp32
                 * log-probabilities log_softmax saves; backward starts with
                 * the saved log-probabilities, their gradient and the fp32
                 * logit gradient, and the compute-dtype logits when the
                 * loop still holds the model output (torchtitan's
                 * train_step drops it: del pred). */
                *fwd += (d->e_a + 8) * n;
                *bwd += 12 * n + (in->output_kept ? d->e_a * n : 0);
        } else if (in->logits == EST_LOGITS_LOSS_PARALLEL) {
                /* The same upcast under torch.distributed.tensor.parallel
                 * loss_parallel (torchtitan with tensor parallelism): its
                 * log_softmax is a decomposition over the local vocabulary
                 * shard (torch/distributed/tensor/parallel/loss.py,
                 * _log_softmax), so beside the compute-dtype logits and the
                 * fp32 copy it allocates x - max, exp of that and the
                 * result: (e_a + 12) n while it runs.  Its backward fuses
                 * nll_loss and log_softmax (_nll_loss_and_log_softmax_backward:
                 * (zeros_like(x) scattered - 1 + exp(x)) * grad): next to the
                 * saved log-probabilities, the zeros, exp(x), their sum and
                 * the product are fp32 tensors of n each, three alive at once
                 * when the product is allocated: 16n. */
                *fwd += (d->e_a + 12) * n;
                *bwd += 16 * n;
        } else {
                *fwd += 8 * n;
                *bwd += 12 * n + (in->output_kept ? 4 * n : 0);
        }
}

static void phase_set(struct phase_mem *p, enum est_component c, double fixed, double per)
{
        p->present = true;
        p->fixed[c] += fixed;
        p->per_sample[c] += per;
}

void memory_cpu(const struct estimate_input *in, const struct derived *d,
                double cpu[EST_CPU_COMPONENT_COUNT])
{
        double procs = d->procs_per_node;
        /* The CPU optimizer (DeepSpeed CPUAdam, FSDP CPUOffload) keeps fp32
         * parameters, fp32 gradients and the optimizer states: with Adam
         * 4 + 4 + 8 = 16 B per parameter (ZeRO-Offload, Ren et al. 2021),
         * sharded over the data-parallel ranks, summed over this node. */
        if (in->offload != EST_OFFLOAD_NONE && d->training) {
                bool eight_bit = in->optimizer == EST_OPT_ADAMW_8BIT ||
                                 in->optimizer == EST_OPT_PAGED_ADAMW_8BIT;
                double per_param = 4 + 4 + (d->pure_half && !eight_bit ? d->e_opt * 2 : d->e_opt);
                cpu[EST_CPU_OFFLOADED] = d->P_trainable * per_param / d->shard * procs;
        }
        /* Loading: each process (or rank 0 only) reads the checkpoint into
         * CPU memory; counted as resident for the run (an upper bound: the
         * allocator seldom gives it back). */
        double load_bytes = d->P * (d->e_w > 2 ? d->e_w : 2);
        cpu[EST_CPU_MODEL_LOAD] = load_bytes * (in->model_load == EST_LOAD_RANK_ZERO ? 1.0 : procs);
        cpu[EST_CPU_RUNTIME] = memory_cpu_runtime_bytes * procs;
        cpu[EST_CPU_DATA] = memory_cpu_data_bytes * procs;
}

/* Build the phases of one configuration.  Returns 0 or -1 (err filled). */
int memory_model_build(const struct estimate_input *in, const struct derived *d,
                       struct mem_model *mm, struct estimate_result *res,
                       struct estimate_error *err)
{
        const struct model_arch *a = &in->arch;
        double t = in->tensor_parallel, p = in->pipeline_parallel;
        double S = d->shard;
        bool offload_opt = in->offload != EST_OFFLOAD_NONE;
        bool offload_params = in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS;

        (void)err; /* every input was checked before; kept for symmetry with estimate_build() */
        memset(mm, 0, sizeof(*mm));
        mm->overhead_fixed = d->context_bytes + (in->gpus > 1 ? memory_nccl_buffer_bytes : 0);
        mm->reserve_fraction = d->reserve_fraction;
        mm->held_fraction = d->held_fraction;

        /* Weights per GPU: block matrices split over t x p; embeddings and
         * head split over t (vocabulary-parallel).  With a pipeline the
         * first stage holds the embeddings and the last the head; a tied
         * head keeps its own copy of the word embeddings on the last stage
         * (Megatron-LM: "word embeddings are shared between the first and
         * last stages", initialize_word_embeddings).  Quantized runs store
         * block matrices at e_q. */
        double blocks = d->P_linear + (double)d->pb.small;
        double rest = d->P - blocks; /* embeddings, heads */
        bool first_stage = p < 2 || d->pp_stage == 0;
        bool last_stage = p < 2 || d->pp_stage == 1;
        if (p > 1) {
                double emb = fmin((double)d->pb.embeddings, rest);
                rest = first_stage
                               ? emb
                               : rest - emb +
                                         (a->tied_embeddings ? (double)a->vocab * a->hidden : 0);
        }
        double W = d->P_linear * d->e_q / (t * p) + (double)d->pb.small * d->e_w / p +
                   rest * d->e_w / t;
        /* bitsandbytes QLoRA under FSDP or ZeRO-3: only the packed 4-bit
         * storage is a parameter (bnb_4bit_quant_storage); each
         * Linear4bit's quant_state (absmax, nested absmax, code) is a plain
         * attribute, quantized on every rank and never sharded, gathered
         * or offloaded (bitsandbytes pull request #970; fsdp_qlora pull
         * request #4 keeps "the quant_state dictionary attached to all
         * rank's Linear4bit layers").  torchao's NF4Tensor (torchtune)
         * shards its scalers with the data. */
        double q_state =
                memory_replicated_quant_state(in, d) ? d->P_linear * (d->e_q - 0.5) / (t * p) : 0;
        W -= q_state;
        /* litgpt's bitsandbytes quantization replaces lm_head as well: the
         * head is stored at e_q, not the compute dtype. */
        double head_elems = (double)a->vocab * a->hidden / t;
        if (litgpt_quantized_head(in, d) && last_stage)
                W -= head_elems * (d->e_w - d->e_q);
        double adapters = d->lora ? d->P_trainable * d->e_adapter / (t * p) : 0;
        double Ptr = d->P_trainable / (t * p);
        double G = Ptr * d->e_g, M = Ptr * d->e_master, O = Ptr * d->e_opt, T = Ptr * d->e_opt_temp;
        double head_grad = last_stage ? d->P_head_grad * d->e_g / t : 0;
        double comm = 0, comm_bwd = 0;
        double gathered_kept = 0; /* FSDP: gathered blocks held from forward into backward */

        if (d->stage >= 1) {
                M /= S;
                O /= S;
                T /= S;
        }
        if (d->stage >= 2)
                G /= S;
        if (d->stage >= 3) {
                /* with LoRA the frozen base is sharded too, and so are the
                 * adapters: FSDP and ZeRO-3 shard every parameter of a unit
                 * (or, FSDP1 with PEFT's wrap policy, of the adapter's own
                 * unit) */
                W /= S;
                adapters /= S;
        }
        if (offload_opt) {
                M = O = T = 0;
        }
        W += q_state;
        if (offload_params) {
                W = q_state;
                adapters = 0;
                G = 0;
                head_grad = 0;
        }

        /* Communication buffers in PyTorch's allocator (NCCL's own are in
         * overhead_fixed). */
        if (d->training && d->dp > 1) {
                if (d->stage == 0) {
                        /* DDP: the reducer's buckets hold a flat copy of every
                         * gradient unless gradient_as_bucket_view=True
                         * (PyTorch DistributedDataParallel docs). */
                        comm += Ptr * d->e_g;
                        ASSUME(res, EST_A_DDP_BUCKETS, Ptr * d->e_g, 0);
                } else if (d->stage <= 2 && in->strategy != EST_FSDP) {
                        /* DeepSpeed reduce and all-gather buckets (5e8 elements each). */
                        double rb = fmin(memory_zero_bucket_elements, Ptr) * d->e_g;
                        double ab = fmin(memory_zero_bucket_elements, Ptr) * d->e_w;
                        comm += rb + ab;
                }
        }
        if (d->training && d->stage >= 3) {
                /* FSDP / ZeRO-3: the root unit (embeddings, head) stays
                 * gathered from forward to backward (FSDP does not reshard
                 * the root after forward); one block is being computed and
                 * the next prefetched (backward_prefetch=BACKWARD_PRE);
                 * backward adds one unsharded block gradient before its
                 * reduce-scatter (PyTorch FSDP docs). */
                double unit = d->layer_params / (t * p);
                double root = d->root_params / t;
                /* FSDP2 (fully_shard per module, torchtitan / torchtune):
                 * the embeddings are their own group and are resharded
                 * after forward; the final norm and output projection stay
                 * unsharded for backward (reshard_after_forward=False for
                 * the last group).  FSDP1 keeps the root's flat parameter
                 * (embeddings + head) gathered from forward to backward. */
                if (in->strategy == EST_FSDP && in->fsdp_version == 2)
                        root = fmin(root, (double)a->vocab * a->hidden / t);
                double e_gather = d->mixed ? 2 : d->e_w; /* MixedPrecision(param_dtype) */
                double unit_bytes = unit * e_gather;
                if (in->quantization != EST_QUANT_NONE) {
                        /* QLoRA under FSDP shards the packed 4-bit storage
                         * (bitsandbytes bnb_4bit_quant_storage, Answer.AI
                         * fsdp_qlora): a block is gathered at its packed size,
                         * dequantized one matrix at a time in the matmul. */
                        double L = (double)a->layers + a->decoder_layers;
                        double lin = L > 0 ? (double)d->pb.linear / L / (t * p) : 0;
                        if (lin > unit)
                                lin = unit;
                        unit_bytes = lin * (memory_replicated_quant_state(in, d) ? 0.5 : d->e_q) +
                                     (unit - lin) * e_gather;
                }
                if (memory_float8_linears(in, d) && in->float8_all_gather &&
                    in->strategy == EST_FSDP) {
                        /* torchao's float8 all-gather (WeightWithDynamicFloat8CastTensor,
                         * fsdp_pre_all_gather): each shard of a Float8Linear
                         * weight is cast to float8 before the all-gather, so
                         * a block's linear weights arrive at 1 byte each. */
                        double L = (double)a->layers + a->decoder_layers;
                        double lin = L > 0 ? fmin((double)d->pb.linear / L / (t * p), unit) : 0;
                        unit_bytes = lin + (unit - lin) * e_gather;
                }
                comm += root * e_gather + 2 * unit_bytes;
                double L_units = (double)a->layers + a->decoder_layers;
                if (in->strategy == EST_FSDP && in->fsdp_version != 2 &&
                    !in->fsdp_limit_all_gathers) {
                        /* FSDP1 limit_all_gathers=False: the CPU thread issues
                         * all-gathers without waiting for the GPU, so in a step
                         * whose kernels take longer than their launch every
                         * unit ends up gathered at once (FullyShardedDataParallel
                         * docs, limit_all_gathers: "only two consecutive FSDP
                         * instances" with it; without it, no bound). */
                        double extra = fmax(L_units / p - 2, 0) * unit_bytes;
                        gathered_kept += extra;
                        ASSUME(res, EST_A_FSDP_UNLIMITED, extra, 0);
                }
                if (in->strategy == EST_FSDP && in->fsdp_version == 2 &&
                    in->fsdp_forward_shards > 0) {
                        /* FSDP2 reshard_after_forward=False keeps every block's
                         * gathered parameters from its forward to its backward;
                         * an integer k reshards them over k ranks instead of all
                         * (torch.distributed.fsdp.fully_shard docs). */
                        double k = in->fsdp_forward_shards;
                        double extra = k > 1 ? L_units / p * unit_bytes / k
                                             : fmax(L_units / p - 2, 0) * unit_bytes;
                        gathered_kept += extra;
                        ASSUME(res, EST_A_FSDP_KEPT, extra, k);
                }
                /* With LoRA only trainable parameters have gradients (FSDP2,
                 * DeepSpeed, FSDP1 wrapping the adapters apart); FSDP1 with
                 * frozen and trainable parameters in one flat parameter
                 * (use_orig_params) keeps a gradient over all of it. */
                double unit_grad = unit;
                if (d->lora && !(in->strategy == EST_FSDP && in->fsdp_version != 2 &&
                                 in->fsdp_use_orig_params)) {
                        double L = (double)a->layers + a->decoder_layers;
                        unit_grad = L > 0 ? fmin(unit, d->P_trainable / L / (t * p)) : unit;
                }
                comm_bwd += unit_grad * d->e_g + (offload_params ? d->P_head_grad * d->e_g / t : 0);
                ASSUME(res, EST_A_FSDP_GATHER, 2, 0);
        }

        if (!d->training) {
                /* Inference: weights + KV cache + the largest layer's
                 * intermediates for the prompt (buffers are reused layer to
                 * layer) + last-token logits. */
                double kvh = a->kv_heads >= t ? a->kv_heads / t : 1; /* replicate when kv < t */
                if (a->kv_heads < t && a->kind != MODEL_ENCODER && !a->kv_lora_rank)
                        WARN(res, EST_W_TP_REPLICATES_KV, a->kv_heads, t);
                /* Bytes per cached element on this GPU: KV heads split over
                 * TP (replicated below one head per rank), MLA's latent
                 * replicated on every rank, layers split over PP. */
                double kv_e = d->e_kv / p * (a->kv_lora_rank ? 1 : kvh / a->kv_heads);
                double ctx = (double)d->prompt + d->generated;
                double kv_cross = a->kind == MODEL_ENCODER_DECODER
                                          ? model_kv_elements(a, d->prompt) * kv_e
                                          : 0;
                double s = d->prompt, B = d->e_a;
                double h = a->hidden, f = a->ffn, q = (double)a->heads * a->head_dim;
                double ex = a->experts > 1 ? a->active_experts : 1;
                double ws = live_block_bytes(a, in, d, s);
                /* The tower runs its blocks before the language model's
                 * first one: only the larger working set is ever live. */
                double vis_live, vis_saved, vis_rec;
                vision_bytes(in, d, &vis_live, &vis_saved, &vis_rec);
                ws = fmax(ws, vis_live);
                double logit = a->kind == MODEL_ENCODER ? 4.0 * in->num_labels
                                                        : (double)a->vocab / t * (B + 4);
                struct phase_mem *pf = &mm->ph[EST_PHASE_PREFILL];
                /* Quantized serving: one block's weights at the compute dtype
                 * beside the packed ones, as while a block is quantized on
                 * load (bitsandbytes through litgpt and transformers); the
                 * measured nf4 generate peaks (LitGPT resource tables)
                 * carry it. */
                double deq = in->quantization != EST_QUANT_NONE ? d->layer_params * 2 / (t * p) : 0;
                phase_set(pf, EST_C_WORKSPACE, deq, 0);
                if (a->kind != MODEL_ENCODER && d->generated > 0)
                        phase_set(&mm->ph[EST_PHASE_DECODE], EST_C_WORKSPACE, deq, 0);
                phase_set(pf, EST_C_WEIGHTS, W, 0);
                phase_set(pf, EST_C_KV_CACHE, 0, model_kv_elements(a, s) * kv_e + kv_cross);
                phase_set(pf, EST_C_ACTIVATIONS, 0, ws);
                phase_set(pf, EST_C_LOGITS, 0, logit);
                phase_set(pf, EST_C_COMM, comm, 0);
                if (a->kind != MODEL_ENCODER && d->generated > 0) {
                        struct phase_mem *dc = &mm->ph[EST_PHASE_DECODE];
                        double ws1 =
                                2 * h * B + fmax(f * B * (a->gated_mlp ? 3 : 2) * ex / t,
                                                 (q + 2.0 * a->kv_heads * a->head_dim) * B / t +
                                                         2 * B * (double)a->heads / t * ctx);
                        phase_set(dc, EST_C_WEIGHTS, W, 0);
                        phase_set(dc, EST_C_KV_CACHE, 0,
                                  model_kv_elements(a, ctx) * kv_e + kv_cross);
                        phase_set(dc, EST_C_ACTIVATIONS, 0, ws1);
                        phase_set(dc, EST_C_LOGITS, 0, logit);
                        phase_set(dc, EST_C_COMM, comm, 0);
                } else if (a->kind != MODEL_ENCODER) {
                        /* sequence_length alone: the KV cache holds the whole context */
                        pf->per_sample[EST_C_KV_CACHE] =
                                model_kv_elements(a, ctx) * kv_e + kv_cross;
                }
                return 0;
        }

        /* Training activations per sample on this stage: its layers x
         * block bytes x the micro-batches it holds. */
        double s = d->s, s_dec = d->s_dec, act = 0;
        double mbf = d->mb_fraction;
        bool enc_dec = a->kind == MODEL_ENCODER_DECODER;
        double layer_act = block_activation_bytes(a, in, d, s, 0);
        double dec_act = enc_dec ? block_activation_bytes(a, in, d, s_dec, s) : 0;
        double L = a->layers, Ld = a->decoder_layers;
        double full_act = layer_act * L + dec_act * Ld;
        double B = d->e_a, h = a->hidden;
        double norm_b = (B < 4 && (a->norm == MODEL_NORM_RMSNORM || d->mixed)) ? 4 : B;
        double whole_blocks = L + Ld; /* blocks whose forward keeps everything */
        if (in->checkpointing == EST_CKPT_FULL) {
                /* Each checkpointed block keeps its input (B*s*h); backward
                 * recomputes one block at a time (Chen et al. 2016;
                 * Korthikanti §5).  With checkpoint_every = k only every
                 * k-th block is checkpointed (torchtitan's layer-frequency
                 * "selective" option: blocks whose running count is a
                 * multiple of k), the others keep everything. */
                double k = in->checkpoint_every > 1 ? in->checkpoint_every : 1;
                double ck = floor(L / k), ckd = floor(Ld / k);
                act = B * s * h * (ck + ckd) / (in->sequence_parallel ? t : 1) +
                      layer_act * (L - ck) + dec_act * (Ld - ckd) + fmax(layer_act, dec_act);
                whole_blocks = L - ck + Ld - ckd + 1;
        } else if (in->checkpointing == EST_CKPT_SELECTIVE_OP) {
                /* What the op policy keeps, every block; backward
                 * recomputes the rest of one block at a time. */
                double kept = memory_sac_op_block_bytes(in, d);
                act = kept * (L + Ld) + fmax(fmax(layer_act, dec_act) - kept, 0);
                whole_blocks = 1;
        } else {
                act = full_act;
        }
        /* The one block whose activations a checkpoint recomputes in
         * backward (full: all of them; op-level: what the policy does not
         * keep).  It is materialised only after the loss and the head have
         * run their backward and freed the logit gradients, so it peaks in
         * a phase of its own (block_backward) rather than on top of them
         * (torch.utils.checkpoint recomputes a block when autograd reaches
         * it). */
        double rec = 0;
        if (in->checkpointing == EST_CKPT_FULL)
                rec = fmax(layer_act, dec_act);
        else if (in->checkpointing == EST_CKPT_SELECTIVE_OP)
                rec = fmax(fmax(layer_act, dec_act) - memory_sac_op_block_bytes(in, d), 0);
        act -= rec;
        /* Pipeline, 1F1B (Narayanan et al. 2021; Korthikanti et al. 2022
         * §4.2.3): stage i holds the activations of p - i micro-batches
         * (at most m) for its L/p layers, so the first stage holds min(m, p)
         * and the last one; the per-sample figure is per micro-batch
         * sample.  One micro-batch's block is recomputed at a time. */
        double held = 1;
        if (p > 1)
                held = first_stage ? fmin((double)(in->micro_batches ? in->micro_batches : 1), p)
                                   : 1;
        act *= (p > 1 ? held / p : 1.0) * mbf;
        rec *= mbf;
        /* The gradients flowing through a block's backward, per sample: each
         * operation's backward holds the gradient it receives and the one it
         * returns.  The largest pair is the softmax's with eager attention
         * (_softmax_backward_data: grad_output and grad_input over the
         * scores): an fp32 softmax - fp32 runs, and autocast, which lists
         * softmax among its fp32 ops - holds 4 + 4 bytes per score;
         * transformers' softmax(dtype=torch.float32) over half-precision
         * scores (LLaMA in pure bf16) receives an fp32 gradient and returns
         * one in the input's dtype, 4 + 2.  Otherwise the MLP's pair (the
         * gradients of the activation function's output and input,
         * 2 x B s f), or the fused attention's output gradient with dQ, dK
         * and dV. */
        double heads_t = (double)a->heads / t, q_w = (double)a->heads * a->head_dim;
        double ex_a = a->experts > 1 ? a->active_experts : 1;
        double per_score = B >= 4 || d->mixed ? 8.0 : 6.0;
        double ws_attn = in->flash_attention ? 4.0 * B * s * q_w / t : per_score * heads_t * s * s;
        double ws_mlp = 2.0 * B * s * a->ffn * ex_a / t;
        double flowing = fmax(ws_attn, ws_mlp) * mbf;
        /* Embedding output (+ norm and dropout for BERT-style encoders) on
         * the first stage and, for language-model heads, the final norm +
         * head input (+ the MLM transform: dense, GELU, norm) on the last. */
        double edge_in = (a->embedding_norm ? norm_b * s * h : 0) + (a->dropout > 0 ? s * h : 0);
        if (enc_dec) {
                /* The encoder's final norm, its dropout, and its output,
                 * which every cross-attention's key and value projections
                 * keep; the decoder's embedding dropout. */
                edge_in += (a->final_norm ? norm_b * s * h : 0) + B * s * h;
                edge_in += a->dropout > 0 ? (s + s_dec) * h : 0;
        }
        double edge_out = 0;
        if (d->lm_logits) {
                edge_out += (a->final_norm ? norm_b * s_dec * h : 0) + B * s_dec * h;
                if (a->lm_head_transform)
                        edge_out += 2 * B * s_dec * h + norm_b * s_dec * h;
        }
        double edge = (first_stage ? edge_in * held : 0) + (last_stage ? edge_out : 0);
        act += edge * mbf / t;
        /* The vision tower, on the first stage: what a trained tower keeps
         * for each micro-batch it holds, and its checkpointed block rebuilt
         * in backward when that is the larger one.  Its live block runs
         * before any text block has kept anything: it bounds the forward
         * phase from below. */
        double vis_live, vis_saved, vis_rec;
        vision_bytes(in, d, &vis_live, &vis_saved, &vis_rec);
        if (first_stage) {
                act += vis_saved * held * mbf;
                rec = fmax(rec, vis_rec * mbf);
        } else {
                vis_live = 0;
        }
        if (last_stage && d->lm_logits && in->sequence_parallel &&
            in->framework != EST_FW_MEGATRON && in->framework != EST_FW_NONE) {
                /* PyTorch's native sequence parallelism gathers the final
                 * norm's output for the column-parallel output projection
                 * (torchtitan: ColwiseParallel(input_layouts=Shard(1))),
                 * whose backward keeps it whole, as in every block. */
                act += B * s * h * (1.0 - 1.0 / t) * mbf;
        }
        if (d->amp && d->stage < 3) {
                double copies = d->P * 2 / (t * p);
                phase_set(&mm->ph[EST_PHASE_FORWARD], EST_C_WORKSPACE, copies, 0);
                phase_set(&mm->ph[EST_PHASE_BACKWARD], EST_C_WORKSPACE, copies, 0);
                phase_set(&mm->ph[EST_PHASE_BLOCK_BACKWARD], EST_C_WORKSPACE, copies, 0);
                ASSUME(res, EST_A_AUTOCAST_COPIES, copies, 0);
        }
        if (d->lora && in->mode == EST_QLORA) {
                /* bitsandbytes MatMul4Bit and torchao's linear_nf4
                 * dequantize one weight to bf16, multiply, and drop it
                 * (dequantizing again in backward): the largest matrix of a
                 * block is the workspace, not the whole block. */
                double deq = memory_largest_matrix(a) * 2 / t;
                /* litgpt's quantized lm_head runs once per chunk of its
                 * chunked head (GPT.forward, lm_head_chunk_size), and each
                 * call dequantizes the whole V x h matrix, in forward and
                 * again in backward: while the loss and the head run, the
                 * workspace is the larger of the two. */
                double deq_loss = litgpt_quantized_head(in, d) && last_stage
                                          ? fmax(deq, (double)a->vocab * a->hidden * 2 / t)
                                          : deq;
                phase_set(&mm->ph[EST_PHASE_FORWARD], EST_C_WORKSPACE, deq_loss, 0);
                phase_set(&mm->ph[EST_PHASE_BACKWARD], EST_C_WORKSPACE, deq_loss, 0);
                phase_set(&mm->ph[EST_PHASE_BLOCK_BACKWARD], EST_C_WORKSPACE, deq, 0);
        }
        /* Float8Linear keeps each weight's float8 transpose for backward
         * too (save_for_backward(input_fp8, weight_fp8_t)): the whole
         * weight, unsharded, for every block whose forward is kept, unless
         * force_recompute_fp8_weight_in_bwd recasts it in backward or the
         * weight arrived in float8 from FSDP's all-gather (the saved tensor
         * is then the gathered weight, which FSDP frees after forward and
         * gathers again). */
        double f8_weights = 0;
        if (memory_float8_linears(in, d) && !in->float8_recompute_weight &&
            !(in->float8_all_gather && in->strategy == EST_FSDP)) {
                double Lb = (double)a->layers + a->decoder_layers;
                f8_weights = Lb > 0 ? (double)d->pb.linear / Lb / t * whole_blocks / p : 0;
        }
        if (memory_float8_linears(in, d)) {
                /* The 1-byte input copies one block keeps per sample. */
                double ex = a->experts > 1 ? a->active_experts : 1;
                double q = (double)a->heads * a->head_dim;
                double copies = in->compile ? 0
                                            : s * ((3.0 + (a->gated_mlp ? 2.0 : 1.0)) * h +
                                                   (q + a->ffn * ex) / t);
                ASSUME(res, EST_A_FLOAT8_SAVED, copies, f8_weights);
        }
        mm->act_per_sample_total = act + rec;
        double act_block_bwd = -1; /* the block-backward phase's own figure, when it has one */
        if (in->activation_offload && in->checkpointing == EST_CKPT_FULL &&
            in->checkpoint_every <= 1) {
                /*
                 * torchtune's OffloadActivations under full checkpointing
                 * (torchtune/training/_activation_offloading.py at 05cda5e9):
                 * the only tensors its pack hook sees are each checkpoint's
                 * input, copied to pinned CPU memory on a side stream; the
                 * GPU copy stays in its forward stash until
                 * max_fwd_stash_size (5) newer tensors have been packed,
                 * and the stash is emptied once backward reaches the first
                 * node that unpacks.  The output head runs under a
                 * NoOpManager (get_act_offloading_ctx_manager), so its
                 * saved input stays.  Forward ends, and the loss's
                 * backward runs, with the last five block inputs and the
                 * head's input; a block's backward holds its reloaded
                 * input and its recomputation (rec).
                 */
                double in_b = B * s * h / (in->sequence_parallel ? t : 1) * mbf;
                double head = last_stage && d->lm_logits ? B * s_dec * h * mbf / t : 0;
                double stash = fmin(memory_offload_stash, L + Ld) * in_b;
                mm->cpu[EST_CPU_ACTIVATIONS] =
                        fmax(act - head, 0) * in->batch_size * d->procs_per_node;
                act = stash + head;
                act_block_bwd = in_b;
        } else if (in->activation_offload) {
                /* Only the block being computed and the one being copied
                 * stay on the GPU (torchtune OffloadActivations). */
                double kept = 2 * fmax(layer_act, dec_act) * mbf + edge * mbf / t;
                mm->cpu[EST_CPU_ACTIVATIONS] =
                        (act + rec - kept) * in->batch_size * d->procs_per_node;
                act = kept;
                rec = 0;
        }

        double lf, lb;
        logits_bytes(in, d, &lf, &lb);
        if (in->pipeline_parallel > 1) {
                /* Only the last stage computes the head and the loss. */
                lf *= last_stage ? mbf : 0;
                lb *= last_stage ? mbf : 0;
        }

        /* Gradients exist during forward when they accumulate over
         * micro-batches, or when zero_grad() zeroes them in place instead
         * of freeing them (set_to_none=False, the PyTorch default before
         * 2.0: torch.optim.Optimizer.zero_grad docs). */
        bool ga = in->gradient_accumulation > 1 || in->gradients_persist;
        double G_fwd = ga ? G : 0;
        /*
         * FSDP1 no_sync (Lightning Fabric's no_backward_sync, accelerate's
         * accumulate()): micro-batches that skip the reduce-scatter keep
         * every unit's gradient unsharded until the step's last micro-batch
         * (FullyShardedDataParallel.no_sync docs: gradients accumulate in
         * unsharded form).  With LoRA the unit's flat gradient covers its
         * frozen weights too, in their dtype; the root unit (embeddings,
         * head) holds no trainable parameter and gets none.
         */
        double G_unsharded = 0;
        if (in->fsdp_no_sync && in->strategy == EST_FSDP && in->fsdp_version != 2 &&
            in->gradient_accumulation > 1) {
                double frozen_units = d->lora && in->fsdp_use_orig_params
                                              ? d->P_linear * d->e_q + (double)d->pb.small * d->e_w
                                              : 0;
                G_unsharded = (frozen_units + d->P_trainable * d->e_g) / (t * p);
                G_fwd = fmax(G_fwd, G_unsharded);
                ASSUME(res, EST_A_FSDP_NO_SYNC, G_unsharded, 0);
        }
        struct phase_mem *fw = &mm->ph[EST_PHASE_FORWARD];
        struct phase_mem *bw = &mm->ph[EST_PHASE_BACKWARD];
        struct phase_mem *be = &mm->ph[EST_PHASE_BACKWARD_END];
        struct phase_mem *op = &mm->ph[EST_PHASE_OPTIMIZER];
        struct phase_mem *all[3] = {fw, bw, be};

        for (int i = 0; i < 3; i++) {
                phase_set(all[i], EST_C_WEIGHTS, W + adapters, 0);
                phase_set(all[i], EST_C_MASTER, M, 0);
                phase_set(all[i], EST_C_OPTIMIZER, O, 0);
                phase_set(all[i], EST_C_COMM, comm, 0);
        }
        phase_set(fw, EST_C_GRADIENTS, G_fwd, 0);
        phase_set(fw, EST_C_ACTIVATIONS, f8_weights, fmax(act, vis_live * mbf));
        phase_set(bw, EST_C_ACTIVATIONS, f8_weights, 0);
        phase_set(fw, EST_C_LOGITS, 0, lf);

        /* The head's weight gradient does not exist yet while the loss
         * runs its backward: the head's backward (the linear's mm for
         * grad_weight, torch/csrc/autograd/FunctionsManual.cpp) runs once
         * the loss has handed it the logits' gradient and freed its own
         * buffers, and is counted in the block-backward phase.  Under
         * FSDP2 its reduce-scatter copy in the reduce dtype
         * (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py,
         * foreach_reduce) is made in the post-backward of the head's
         * group, after that group's backward, so later still. */
        phase_set(bw, EST_C_GRADIENTS, G_fwd, 0);
        phase_set(bw, EST_C_ACTIVATIONS, 0, act);
        phase_set(bw, EST_C_LOGITS, 0, lb);
        phase_set(bw, EST_C_COMM, comm_bwd + gathered_kept, 0);
        phase_set(fw, EST_C_COMM, gathered_kept, 0);
        /* Backward through the last block: as the start of backward, with
         * the block's activations (recomputed under a checkpoint) and the
         * gradients flowing through it in place of the loss buffers. */
        struct phase_mem *rc = &mm->ph[EST_PHASE_BLOCK_BACKWARD];
        phase_set(rc, EST_C_WEIGHTS, W + adapters, 0);
        phase_set(rc, EST_C_MASTER, M, 0);
        phase_set(rc, EST_C_OPTIMIZER, O, 0);
        phase_set(rc, EST_C_COMM, comm + comm_bwd + gathered_kept, 0);
        phase_set(rc, EST_C_GRADIENTS, fmax(G_fwd, head_grad), 0);
        phase_set(rc, EST_C_ACTIVATIONS, f8_weights, (act_block_bwd >= 0 ? act_block_bwd : act) + rec);
        phase_set(rc, EST_C_WORKSPACE, 0, flowing);

        /*
         * FSDP1 flat parameters with frozen and trainable parameters in one
         * unit (LoRA; use_orig_params=True): the unit's gradient is one flat
         * tensor over all its parameters, frozen ones zero-filled, and its
         * reduce-scattered shard stays until the next forward
         * (torch/distributed/fsdp/_runtime_utils.py, _post_backward_hook and
         * _reset_flat_param_grad_info_if_needed).  FSDP2 and DeepSpeed keep
         * gradients of trainable parameters only.
         */
        if (d->lora && in->strategy == EST_FSDP && in->fsdp_version != 2 &&
            in->fsdp_use_orig_params) {
                /* A flat gradient has the flat parameter's dtype and size:
                 * as many bytes as the frozen weights it covers (QLoRA's
                 * 4-bit weights packed in a bf16 quant_storage, without
                 * bitsandbytes' quant_state, which is no parameter). */
                double e_lin = memory_replicated_quant_state(in, d) ? 0.5 : d->e_q;
                double frozen = (d->P_linear * e_lin + (d->P - d->P_linear) * d->e_w) / (S * t * p);
                /* Under no_sync the accumulated unsharded gradient is the
                 * larger of the two and is what backward ends with; the
                 * shards replace it unit by unit on the last micro-batch. */
                if (G_unsharded <= 0)
                        phase_set(be, EST_C_GRADIENTS, frozen, 0);
                phase_set(op, EST_C_GRADIENTS, frozen, 0);
                ASSUME(res, EST_A_FSDP1_FLAT_GRADS, frozen, 0);
        }
        if (in->optimizer_in_backward) {
                /* Gradients are applied and freed layer by layer: at most
                 * one block's (or the head's) gradient exists. */
                double one = fmax(d->layer_params, d->P_head_grad) * d->e_g / t;
                phase_set(be, EST_C_GRADIENTS, fmin(one, G), 0);
                phase_set(be, EST_C_WORKSPACE, fmin(one, G) / d->e_g * d->e_opt_temp, 0);
        } else {
                phase_set(be, EST_C_GRADIENTS, fmax(G, G_unsharded), 0);
                phase_set(be, EST_C_COMM, comm_bwd, 0);
                phase_set(op, EST_C_WEIGHTS, W + adapters, 0);
                phase_set(op, EST_C_MASTER, M, 0);
                phase_set(op, EST_C_OPTIMIZER, O, 0);
                phase_set(op, EST_C_GRADIENTS, G, 0);
                phase_set(op, EST_C_WORKSPACE, T, 0);
                /* ZeRO-3/FSDP gathers are released before the step; DDP
                 * and DeepSpeed buckets stay. */
                phase_set(op, EST_C_COMM, d->stage >= 3 ? 0 : comm, 0);
        }
        /* The first block's activations are the last to be freed. */
        phase_set(be, EST_C_ACTIVATIONS, 0, layer_act * mbf);

        /*
         * Gradient shards live in the reduce-scatter stream's pool.  FSDP2
         * allocates each reduce-scatter output under its reduce-scatter
         * stream and keeps it as the sharded gradient
         * (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py,
         * foreach_reduce); FSDP1 allocates the new gradient shard under its
         * post-backward stream (_runtime_utils.py, _get_reduce_scatter_tensors).
         * The caching allocator ties a freed block to the stream it was
         * allocated on and reuses it for that stream only
         * (c10/cuda/CUDACachingAllocator.cpp, "Allocations are associated
         * with a stream").  So once zero_grad() frees the shards, their
         * blocks stay reserved through the next forward and backward until
         * the reduce-scatters fill them again: reserved, not allocated.
         * With gradient accumulation the shards stay allocated instead.
         */
        if (in->strategy == EST_FSDP && d->stage >= 2 && d->dp > 1 && !offload_params &&
            !in->optimizer_in_backward) {
                double shards = G;
                if (d->lora && in->fsdp_version != 2 && in->fsdp_use_orig_params)
                        shards = fmax(shards,
                                      (d->P_linear * d->e_q + (d->P - d->P_linear) * d->e_w) /
                                              (S * t * p));
                double accumulated =
                        in->gradient_accumulation > 1 && !in->fsdp_no_sync ? shards : 0;
                double cached = fmax(shards - accumulated, 0);
                fw->cached += cached;
                bw->cached += cached;
                rc->cached += cached;
                if (cached > 0)
                        ASSUME(res, EST_A_GRADIENT_POOL, cached, 0);
        }
        return 0;
}

/* Allocated bytes of one phase at batch b. */
double memory_phase_allocated(const struct phase_mem *p, double b)
{
        double s = 0;
        for (int c = 0; c < EST_COMPONENT_COUNT; c++)
                s += p->fixed[c] + p->per_sample[c] * b;
        return s;
}

/* Reserved bytes of one phase at batch b, before the CUDA context: the
 * phase's allocations with the compute pool's reserve (reserve.c), plus
 * what other streams' pools hold cached. */
double memory_phase_reserved(const struct mem_model *mm, const struct phase_mem *p, double b)
{
        return memory_phase_allocated(p, b) * (1 + mm->reserve_fraction) + p->cached;
}

/* When cudaMalloc fails the allocator frees every cached block that is not
 * split and tries again (CUDACachingAllocator.cpp, release_cached_blocks):
 * whole segments cached for this stream or another give way, so only
 * allocations and the holes in split segments decide whether a phase
 * fits. */
double memory_phase_needed(const struct mem_model *mm, const struct phase_mem *p, double b)
{
        return memory_phase_allocated(p, b) * (1 + mm->held_fraction);
}

double memory_max_needed(const struct mem_model *mm, double b)
{
        double m = 0;
        for (int i = 0; i < EST_PHASE_COUNT; i++)
                if (mm->ph[i].present)
                        m = fmax(m, memory_phase_needed(mm, &mm->ph[i], b));
        return m;
}

/* The caching allocator never hands a segment back on its own
 * (c10/cuda/CUDACachingAllocator.cpp: cudaFree only on empty_cache() or
 * when a cudaMalloc fails), so max_memory_reserved is the largest phase's
 * reservation. */
enum est_phase memory_peak_phase(const struct mem_model *mm, double b, double *reserved)
{
        enum est_phase best = EST_PHASE_FORWARD;
        double m = -1;
        for (int i = 0; i < EST_PHASE_COUNT; i++) {
                if (!mm->ph[i].present)
                        continue;
                double x = memory_phase_reserved(mm, &mm->ph[i], b);
                if (x > m) {
                        m = x;
                        best = (enum est_phase)i;
                }
        }
        *reserved = m < 0 ? 0 : m;
        return best;
}

double memory_max_allocated(const struct mem_model *mm, double b)
{
        double m = 0;
        for (int i = 0; i < EST_PHASE_COUNT; i++)
                if (mm->ph[i].present)
                        m = fmax(m, memory_phase_allocated(&mm->ph[i], b));
        return m;
}
