/*
 * derive.c - what the memory and compute models need, derived once from
 * the input: parameters as run, bytes per weight, gradient, master weight
 * and optimizer state, activation dtype, the parallel layout.
 */
#include "core/estimate_internal.h"
#include "core/peft.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* bitsandbytes 8-bit optimizers quantize states in blocks of 2048 with one
 * fp32 absmax per block (Dettmers et al. 2022, "8-bit Optimizers via
 * Block-wise Quantization"). */
const double derive_bnb_optimizer_block = 2048.0;

static double quant_bytes(const struct estimate_input *in, struct estimate_result *res)
{
        switch (in->quantization) {
        case EST_QUANT_FP8:
                /* fp8 e4m3: 1 byte + a per-tensor (or per-channel) fp32
                 * scale (vLLM fp8, TensorRT-LLM FP8 checkpoints). */
                return 1.0;
        case EST_QUANT_INT8:
                /* LLM.int8 / weight-only int8: 1 byte + an fp32 scale per
                 * output row (negligible, Dettmers et al. 2022). */
                return 1.0;
        case EST_QUANT_INT4: {
                /* GPTQ/AWQ: 4-bit weights, an fp16 scale and a 4-bit zero
                 * point per group of g weights: 4 + 20/g bits. */
                double g = in->quant_group_size ? in->quant_group_size : 128;
                double bits = 4.0 + 20.0 / g;
                ASSUME(res, EST_A_INT4_GROUP, g, bits);
                return bits / 8.0;
        }
        case EST_QUANT_NF4: {
                /* NF4 (Dettmers et al. 2023, QLoRA §3): 4 bits + one fp32
                 * absmax per 64 weights = 0.5 bit; double quantization stores
                 * the absmax in 8 bits with an fp32 constant per 256 blocks:
                 * 8/64 + 32/(64*256) = 0.127 bit. */
                double bits = in->double_quant ? 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 4.5;
                ASSUME(res, EST_A_NF4, bits, 0);
                return bits / 8.0;
        }
        case EST_QUANT_MXFP4:
                /* OCP Microscaling Formats (MX) v1.0, section 5.3.3 (MXFP4):
                 * blocks of 32 FP4 (E2M1) elements sharing one 8-bit E8M0
                 * scale: 4 + 8/32 = 4.25 bits a weight.  derive_input
                 * applies it to the expert matrices only. */
                return 4.25 / 8.0;
        default:
                return 0;
        }
}

static double kv_bytes(enum est_kv_dtype k, double e_a)
{
        switch (k) {
        case EST_KV_FP32:
                return 4;
        case EST_KV_FP16:
        case EST_KV_BF16:
                return 2;
        case EST_KV_FP8:
        case EST_KV_INT8:
                return 1;
        case EST_KV_INT4:
                return 0.5;
        default:
                return e_a;
        }
}

/* LoRA adapter parameters: r x (in + out) per targeted matrix (Hu et al.
 * 2021; PEFT's lora.Linear holds A: r x in and B: out x r).  A fused matrix
 * (GPT-2 c_attn h -> q + 2kv, Phi-3 gate_up_proj h -> 2f) has one A, so it
 * costs r x (h + q + 2kv), less than three separate adapters.  LoRA on the
 * vocabulary matrices (lm_head, embed_tokens: PEFT's lora.Embedding holds
 * A: r x V and B: h x r) costs r x (V + h) each. */
/* Adapter width of one MLP of width w: r x (in + out) per targeted matrix. */
static double lora_mlp_params(const struct model_arch *a, unsigned t, double w)
{
        double h = a->hidden, mlp = 0;
        if (a->gated_mlp) {
                if (t & EST_LORA_GATE)
                        mlp += h + w;
                if (t & EST_LORA_UP)
                        mlp += h + w;
                if (t & EST_LORA_GATE_UP)
                        mlp += h + 2 * w;
        } else if (t & (EST_LORA_UP | EST_LORA_GATE | EST_LORA_GATE_UP)) {
                mlp += h + w;
        }
        if (t & EST_LORA_DOWN)
                mlp += w + h;
        return mlp;
}

static double lora_params(const struct model_arch *a, uint32_t r, unsigned t)
{
        double h = a->hidden, q = (double)a->heads * a->head_dim,
               kv = (double)a->kv_heads * a->head_dim;
        double ex = a->experts > 1 ? a->experts : 1;
        double attn = 0, mlp;
        if (t & EST_LORA_Q) /* with an output gate q_proj emits 2 q */
                attn += h + (a->attn_output_gate ? 2 * q : q);
        if (t & EST_LORA_K)
                attn += h + kv;
        if (t & EST_LORA_V)
                attn += h + kv;
        if (t & EST_LORA_QKV)
                attn += h + q + 2 * kv;
        /* MLA: the output projection reads heads x v_head_dim; the
         * latent projections have their own widths. */
        double mla_o = a->kv_lora_rank ? (double)a->heads * a->v_head_dim : q;
        double nope = a->kv_lora_rank ? (double)a->head_dim - a->qk_rope_dim : 0;
        if (t & EST_LORA_O)
                attn += mla_o + h;
        if (t & EST_LORA_Q_A)
                attn += h + a->q_lora_rank;
        if (t & EST_LORA_Q_B)
                attn += a->q_lora_rank + q;
        if (t & EST_LORA_KV_A)
                attn += h + a->kv_lora_rank + a->qk_rope_dim;
        if (t & EST_LORA_KV_B)
                attn += a->kv_lora_rank + (double)a->heads * (nope + a->v_head_dim);
        mlp = lora_mlp_params(a, t, a->ffn);
        /* The MLP names match every MLP of that shape: routed experts, the
         * shared expert (Qwen2-MoE shared_expert, DeepSeek shared_experts)
         * and the leading dense blocks (DeepSeek first_k_dense_replace). */
        double moe_layers = (double)a->layers - (a->experts > 1 ? a->dense_layers : 0);
        double shared = a->shared_expert_ffn ? lora_mlp_params(a, t, a->shared_expert_ffn) : 0;
        double dense = a->dense_ffn ? a->dense_ffn : a->ffn;
        double total = (attn + mlp * ex + shared) * moe_layers +
                       (attn + lora_mlp_params(a, t, dense)) * ((double)a->layers - moe_layers);
        if (a->kind == MODEL_ENCODER_DECODER)
                total += (2 * attn + mlp * ex) * a->decoder_layers;
        if (a->linear_layers) {
                /* Gated DeltaNet blocks have no q/k/v/o; their own projections */
                double K = (double)a->lin_k_heads * a->lin_k_dim;
                double V = (double)a->lin_v_heads * a->lin_v_dim, lin = 0;
                if (t & EST_LORA_LIN_QKVZ)
                        lin += h + 2 * K + 2 * V;
                if (t & EST_LORA_LIN_BA)
                        lin += h + 2.0 * a->lin_v_heads;
                if (t & EST_LORA_LIN_OUT)
                        lin += V + h;
                total += (lin - attn) * a->linear_layers;
        }
        if (t & EST_LORA_LM_HEAD)
                total += h + a->vocab;
        if (t & EST_LORA_EMBED)
                total += a->vocab + h;
        return total * r;
}

/* Parameters PEFT trains in full for modules_to_save: a trainable copy of
 * each listed module (peft/utils/other.py, ModulesToSaveWrapper).  An
 * encoder's classification head is already trained in full here. */
static double saved_params(const struct estimate_input *in, bool encoder_head)
{
        const struct model_arch *a = &in->arch;
        double h = a->hidden, v = a->vocab, n = 0;
        if (in->lora_modules_to_save & EST_SAVE_LM_HEAD)
                n += v * h;
        if (in->lora_modules_to_save & EST_SAVE_EMBED)
                n += v * h;
        if ((in->lora_modules_to_save & EST_SAVE_CLASSIFIER) && !encoder_head)
                n += h * (double)in->num_labels; /* a decoder's score layer, no bias */
        return n;
}

/*
 * transformers' Adafactor as the Trainer builds it (optim "adafactor":
 * scale_parameter=False, relative_step=False, beta1=None,
 * transformers/optimization.py): no first moment; the second moment of a
 * matrix is factored into a row and a column vector (exp_avg_sq_row,
 * exp_avg_sq_col; Shazeer & Stern 2018), of a vector kept whole
 * (exp_avg_sq), in the gradient's dtype.  Its step works on one parameter
 * at a time in fp32: the squared gradient and the approximated update are
 * full-size fp32 tensors, so the temporaries peak at about twice the
 * largest parameter, 8 bytes per element.
 */
static void adafactor_states(const struct estimate_input *in, struct derived *d, double half)
{
        const struct model_arch *a = &in->arch;
        double h = a->hidden, q = (double)a->heads * a->head_dim;
        double kv = (double)a->kv_heads * a->head_dim, f = a->ffn, V = a->vocab;
        double Ptr = d->P_trainable > 0 ? d->P_trainable : 1;

        if (d->lora) {
                /* A (r x in) and B (out x r): (r + in) + (out + r) state
                 * elements for r (in + out) parameters, about 1 / r each. */
                double r = in->lora_rank > 0 ? in->lora_rank : 8;
                d->e_opt = 4 * half / r + (in->adafactor_first_moment ? 4 * half : 0);
                d->e_opt_temp = 8 * r * fmax(h, f) / Ptr;
                return;
        }
        double mlp = (a->gated_mlp ? 3 : 2) * (h + f) *
                     (a->experts > 1 ? a->experts : 1) + (a->shared_expert_ffn > 0 ? 3 * (h + a->shared_expert_ffn) : 0);
        double block = (h + q) + 2 * (h + kv) + (q + h) + mlp;
        double L = (double)a->layers + a->decoder_layers;
        double heads = d->pb.lm_head > 0 ? 2 : 1; /* the token embedding, and an untied head */
        double factored = L * block + heads * (V + h);
        double matrices = (double)d->pb.linear + heads * V * h;
        double whole = d->P - matrices > 0 ? d->P - matrices : 0;
        d->e_opt = 4 * half * (factored + whole) / Ptr;
        if (in->adafactor_first_moment) /* exp_avg, a whole copy (beta1 set) */
                d->e_opt += 4 * half;
        double largest = fmax(V * h, fmax(h * f, h * q));
        d->e_opt_temp = 8 * largest / Ptr;
}

int derive_input(const struct estimate_input *in, struct derived *d, struct estimate_result *res,
                 struct estimate_error *err)
{
        const struct model_arch *a = &in->arch;
        const char *field, *why;
        char ptr[96];

        memset(d, 0, sizeof(*d));
        if (model_arch_check(a, &field, &why)) {
                snprintf(ptr, sizeof(ptr), "/model/architecture/%s", field);
                return estimate_fail(err, ptr, "architecture", why);
        }
        if (model_param_breakdown(a, &d->pb))
                return estimate_fail(err, "/model", "overflow",
                                     "the parameter count overflows 64 bits");

        d->training = in->mode != EST_INFERENCE;
        d->lora = in->mode == EST_LORA || in->mode == EST_QLORA;
        d->encoder_head = a->kind == MODEL_ENCODER && in->mode != EST_PRE_TRAIN;
        d->lm_logits = d->training && !d->encoder_head;
        d->mixed = in->precision == EST_FP16_MIXED || in->precision == EST_BF16_MIXED ||
                   in->precision == EST_FP8_MIXED;
        d->pure_half = in->precision == EST_FP16 || in->precision == EST_BF16;

        /* Parameters as run: an encoder fine-tuned for classification swaps
         * its MLM head for a task head (pooler-sized dense layer + h x
         * num_labels, as BertForSequenceClassification /
         * RobertaClassificationHead); pre-training drops the pooler
         * (BertForMaskedLM has none). */
        double h = a->hidden;
        double P = (double)d->pb.total;
        if (a->kind == MODEL_ENCODER) {
                double pooler = a->pooler ? (h + 1) * h : 0;
                double mlm = (double)d->pb.head_extra - pooler + (double)d->pb.lm_head;
                if (in->mode == EST_PRE_TRAIN)
                        P -= pooler;
                else if (in->mode != EST_INFERENCE)
                        P = P - mlm - pooler + (h + 1) * h + (h + 1) * (double)in->num_labels;
        }
        d->P = P;
        d->P_linear = (double)d->pb.linear;
        d->layer_params =
                (double)(d->pb.per_layer > d->pb.per_decoder_layer ? d->pb.per_layer
                                                                   : d->pb.per_decoder_layer);
        d->root_params = P - (double)d->pb.linear - (double)d->pb.small; /* embeddings + heads */

        /* Bytes per weight.  Mixed precision follows the ZeRO paper's
         * accounting (Rajbhandari et al. 2020, §3.1): fp16 weights 2 +
         * fp16 gradients 2 + fp32 master 4 + Adam 8 = 16 B/param.  PyTorch
         * AMP keeps fp32 weights and gradients instead (4 + 4 + 8), the same
         * 16 B. */
        switch (in->precision) {
        case EST_FP32:
        case EST_TF32:
                d->e_w = 4;
                d->e_a = 4;
                break;
        default:
                d->e_w = 2;
                d->e_a = 2;
                break;
        }
        /* PyTorch AMP (single GPU, DDP, FSDP MixedPrecision) keeps fp32
         * weights and fp32 gradients (4 + 4 + Adam 8 = 16 B/param, the fp32
         * weights double as the master copy) and, during forward and
         * backward, the half-precision copies autocast makes of every weight
         * (Hugging Face "model training anatomy": 6 bytes per parameter for
         * mixed-precision weights).  DeepSpeed ZeRO keeps the ZeRO paper's
         * fp16 weights + fp16 gradients + fp32 master. */
        d->amp = d->mixed && d->training && !d->lora &&
                 (in->strategy == EST_SINGLE || in->strategy == EST_DDP ||
                  in->strategy == EST_FSDP) &&
                 !(in->offload == EST_OFFLOAD_OPTIMIZER && in->strategy != EST_FSDP);
        double copies_attn, copies_mlp;
        memory_autocast_input_copies(in, d, &copies_attn, &copies_mlp);
        d->autocast_copies_attn = (uint8_t)copies_attn;
        d->autocast_copies_mlp = (uint8_t)copies_mlp;
        if (d->amp)
                d->e_w = 4;
        d->e_q = in->quantization == EST_QUANT_NONE ? d->e_w : quant_bytes(in, res);
        if (in->quantization == EST_QUANT_MXFP4) {
                /* MXFP4 as gpt-oss ships it: transformers swaps only the
                 * experts module for Mxfp4GptOssExperts (src/transformers/
                 * integrations/mxfp4.py, replace_with_mxfp4_linear) and the
                 * checkpoint's quantization_config lists self_attn, the
                 * router, embed_tokens and lm_head in modules_to_not_convert
                 * (openai/gpt-oss-20b config.json).  Routed experts:
                 * linear - linear_active = (E - k) x one expert's matrices,
                 * so all E of them are that x E / (E - k) (validate.c refuses
                 * mxfp4 without routed experts).  The block matrices' bytes
                 * are then experts at 4.25 bits plus the rest at e_w, which
                 * e_q carries as their mean over P_linear. */
                double E = a->experts, k = a->active_experts;
                double routed = ((double)d->pb.linear - (double)d->pb.linear_active) * E / (E - k);
                double rest = d->P_linear - routed;
                d->e_q = (routed * d->e_q + rest * d->e_w) / d->P_linear;
                ASSUME(res, EST_A_MXFP4, routed, rest);
        }
        d->e_kv = kv_bytes(in->kv_dtype, d->e_a);
        if (in->images && a->vision.layers && a->vision.tokens) /* memory.c vision_bytes */
                ASSUME(res, EST_A_VISION_TOWER, a->vision.tokens, a->image_tokens);
        if (in->images && a->image_px_assumed)
                ASSUME(res, EST_A_IMAGE_RESOLUTION, a->image_px_assumed, a->image_tokens);

        if (d->lora) {
                d->e_adapter = d->pure_half ? 2 : 4; /* PEFT keeps adapters in fp32 */
                d->P_trainable = lora_params(a, in->lora_rank, in->lora_targets) +
                                 saved_params(in, d->encoder_head);
                if (d->encoder_head)
                        d->P_trainable += (h + 1) * h + (h + 1) * (double)in->num_labels;
                d->P_head_grad = 0;
        } else if (d->training) {
                d->P_trainable = P;
                /* The first gradient backward writes is the vocabulary
                 * projection's (untied head, or the tied embedding). */
                d->P_head_grad = d->lm_logits ? (double)a->vocab * h : 0;
        }

        if (d->training) {
                d->e_g = d->lora ? d->e_adapter : (d->e_w);
                d->e_master = (d->mixed && !d->lora && !d->amp) ? 4 : 0;
                double half =
                        d->pure_half ? 0.5 : 1.0; /* states kept in bf16 by pure-bf16 recipes */
                switch (in->optimizer) {
                case EST_OPT_SGD:
                        d->e_opt = 0;
                        break;
                case EST_OPT_SGD_MOMENTUM:
                        d->e_opt = 4 * half;
                        break;
                case EST_OPT_ADAM:
                case EST_OPT_ADAMW:
                case EST_OPT_PAGED_ADAMW:
                        d->e_opt = 8 * half; /* exp_avg + exp_avg_sq */
                        /* torch.optim.Adam(W) foreach implementation (the
                         * CUDA default) materialises sqrt(exp_avg_sq) for
                         * every parameter at once: one state-sized temporary.
                         * A per-parameter loop (foreach=False, or the
                         * transformers AdamW behind the Trainer's "adamw_hf",
                         * its default before v4.32 - huggingface/transformers
                         * PR #25109) holds one parameter's worth: none here. */
                        if (in->optimizer != EST_OPT_PAGED_ADAMW &&
                            in->offload == EST_OFFLOAD_NONE && !in->optimizer_per_parameter)
                                d->e_opt_temp = 4 * half;
                        break;
                case EST_OPT_ADAFACTOR:
                        adafactor_states(in, d, half);
                        break;
                case EST_OPT_ADAMW_8BIT:
                case EST_OPT_PAGED_ADAMW_8BIT:
                        d->e_opt = 2 + 2 * 4 / derive_bnb_optimizer_block;
                        break;
                case EST_OPT_LION:
                case EST_OPT_PAGED_LION:
                        d->e_opt = 4 * half; /* one momentum (Chen et al. 2023) */
                        break;
                default:
                        return estimate_fail(err, "/optimizer", "enum", "unknown optimizer");
                }
        }

        /* What nvidia-smi shows beyond the allocated peak: the CUDA context
         * and the caching allocator's reserve (memory.c gives the sources
         * of the defaults); a request may state its runtime's figures. */
        d->context_bytes =
                (in->set & EST_SET_CONTEXT) ? in->cuda_context_bytes : memory_cuda_context_bytes;
        d->reserve_fraction = (in->set & EST_SET_RESERVE) ? in->allocator_reserve_fraction
                                                          : memory_allocator_reserve_fraction;
        d->held_fraction = (in->set & EST_SET_RESERVE) && (in->set & EST_SET_HELD)
                                   ? fmin(in->allocator_held_fraction, d->reserve_fraction)
                                   : d->reserve_fraction;
        d->reserve_replayed = false;

        /* Sequence and tokens. */
        d->s = in->sequence_length;
        d->s_dec = d->s;
        d->token_share = 1;
        if (a->kind == MODEL_ENCODER_DECODER && d->training && in->target_length > 0) {
                /* An encoder-decoder reads s tokens and writes target_length
                 * (T5 and BART fine-tunes pad inputs and labels to their own
                 * lengths: transformers' run_summarization.py
                 * max_source_length / max_target_length).  Matmul work per
                 * sample is each stack's weights times its tokens; the
                 * vocabulary projection runs on the decoder's. */
                double q = (double)a->heads * a->head_dim, kv = (double)a->kv_heads * a->head_dim;
                double attn = (double)a->hidden * (2 * q + 2 * kv);
                double mlp = (a->gated_mlp ? 3.0 : 2.0) * a->hidden * a->ffn;
                double enc = a->layers * (attn + mlp);
                double dec = a->decoder_layers * (2 * attn + mlp) + (double)a->vocab * a->hidden;
                d->s_dec = in->target_length;
                d->token_share = (enc + dec * d->s_dec / d->s) / (enc + dec);
        }
        d->prompt = in->prompt_tokens;
        d->generated = in->generated_tokens;
        if (!d->training) {
                if (!(in->set & EST_SET_PROMPT))
                        d->prompt = d->s > d->generated ? d->s - d->generated : d->s;
        }

        /* Parallel layout. */
        uint32_t mp = in->tensor_parallel * in->pipeline_parallel;
        d->dp = in->gpus / mp;
        d->procs_per_node = in->gpus / in->nodes;
        switch (in->strategy) {
        case EST_ZERO1:
                d->stage = 1;
                break;
        case EST_ZERO2:
                d->stage = 2;
                break;
        case EST_ZERO3:
                d->stage = 3;
                break;
        case EST_FSDP:
                d->stage = in->fsdp_sharding == EST_FSDP_SHARD_GRAD_OP ? 2 : 3;
                break;
        default:
                d->stage = 0;
        }
        d->shard = d->dp;
        if (in->strategy == EST_FSDP && in->fsdp_sharding == EST_FSDP_HYBRID_SHARD)
                d->shard = d->procs_per_node / mp ? d->procs_per_node / mp : 1;
        /* Optimizer offload without a ZeRO stage is DeepSpeed ZeRO-Offload:
         * stage 2 with the CPU step (Ren et al. 2021). */
        if (d->stage == 0 && in->offload == EST_OFFLOAD_OPTIMIZER && d->training)
                d->stage = 2;
        if (d->stage == 0)
                d->shard = 1;

        uint32_t m = in->micro_batches ? in->micro_batches : 1;
        d->mb_fraction = in->pipeline_parallel > 1 ? 1.0 / m : 1.0;
        return 0;
}
