/*
 * model.h - the shape of a transformer, and what follows from it alone.
 *
 * struct model_arch describes an encoder (BERT, RoBERTa, XLM-R), a decoder
 * (GPT-2, LLaMA, Mistral, Mixtral, Qwen2) or an encoder-decoder (T5) with
 * the handful of numbers that decide its parameter count, its activation
 * memory and its FLOPs.  It is a plain value: no pointers, copyable with
 * '=', filled by the Hugging Face config importer (models/hf_config.h), by the
 * "architecture" request object, or by model_arch_from_parameters().
 *
 * The functions here are pure arithmetic on one struct: they allocate
 * nothing, keep no state and are safe to call from any thread.  Counts are
 * exact integers; every function that multiplies user-controlled numbers
 * reports overflow instead of wrapping.
 */
#ifndef GPUPLAN_CORE_MODEL_H
#define GPUPLAN_CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define MODEL_NAME_MAX 96
#define MODEL_TYPE_MAX 32

enum model_kind {
        MODEL_ENCODER = 0,     /* BERT, RoBERTa, XLM-R: bidirectional, masked LM */
        MODEL_DECODER,         /* GPT-2, LLaMA, ...: causal LM */
        MODEL_ENCODER_DECODER, /* T5 */
        MODEL_KIND_COUNT
};

enum model_activation {
        MODEL_ACT_GELU = 0,  /* erf GELU (BERT) */
        MODEL_ACT_GELU_TANH, /* one fused kernel: "gelu_pytorch_tanh" (Gemma, Starcoder2) */
        MODEL_ACT_RELU,      /* T5 v1.0 */
        MODEL_ACT_SILU,      /* LLaMA family (with a gated MLP: SwiGLU) */
        MODEL_ACT_GELU_NEW,  /* the tanh formula written out in Python ops: transformers'
                                "gelu_new" / "gelu_fast" (GPT-2, GPT-J, T5 v1.1, Phi-2) */
        MODEL_ACT_COUNT
};

enum model_norm {
        MODEL_NORM_LAYERNORM = 0,      /* weight + bias */
        MODEL_NORM_RMSNORM,            /* weight only (LLaMA, T5) */
        MODEL_NORM_LAYERNORM_NOBIAS,   /* LayerNorm with a weight only (MPT, Cohere, ModernBERT) */
        MODEL_NORM_LAYERNORM_NOAFFINE, /* LayerNorm without parameters (OLMo 1) */
        MODEL_NORM_COUNT
};

enum model_position {
        MODEL_POS_LEARNED = 0, /* absolute table of max_positions x hidden */
        MODEL_POS_ROTARY,      /* RoPE: no parameters */
        MODEL_POS_RELATIVE,    /* T5 buckets: relative_buckets x heads per stack */
        MODEL_POS_ALIBI,       /* linear biases on the scores: no parameters (BLOOM, MPT) */
        MODEL_POS_COUNT
};

/* The vision tower's encoder blocks as they run, for its activations and
 * FLOPs (the parameters are in model_arch.vision_parameters).  layers 0:
 * no tower. */
struct model_vision {
        uint32_t layers; /* encoder blocks (Llama 3.2 Vision: local + global) */
        uint32_t hidden;
        uint32_t heads;
        uint32_t ffn;    /* MLP width */
        uint32_t tokens; /* tokens one image runs through the blocks: patches (+ class
                            token, padding) before any merger or pooling */
        bool gated_mlp;  /* gate, up, down (Qwen2.5-VL, Pixtral) */
        bool rmsnorm;    /* RMSNorm (Qwen2.5-VL, Pixtral); LayerNorm otherwise */
};

struct model_arch {
        char name[MODEL_NAME_MAX];       /* display name, e.g. "XLM-RoBERTa Large" */
        char model_type[MODEL_TYPE_MAX]; /* Hugging Face model_type, "" if none */
        enum model_kind kind;
        uint32_t layers;         /* encoder layers, or decoder layers of a decoder-only model */
        uint32_t decoder_layers; /* encoder-decoder only; 0 otherwise */
        uint32_t hidden;         /* d_model */
        uint32_t heads;          /* query heads */
        uint32_t kv_heads;       /* key/value heads (GQA/MQA); == heads for MHA */
        uint32_t head_dim;       /* per head; hidden / heads unless the config says otherwise */
        uint32_t ffn;            /* intermediate size of one MLP (one expert) */
        bool gated_mlp;          /* three matrices (gate, up, down) instead of two */
        enum model_activation activation;
        uint32_t vocab;
        uint32_t max_positions;  /* longest sequence the model accepts */
        uint32_t position_table; /* rows of the learned position table (RoBERTa: 514) */
        uint32_t type_vocab;     /* token-type (segment) embeddings; 0 for none */
        bool tied_embeddings;    /* LM head shares the input embedding matrix */
        enum model_norm norm;
        bool pre_norm;       /* norm before each block (GPT-2, LLaMA, XLM-R XL) */
        bool embedding_norm; /* a norm right after the embeddings (BERT) */
        bool final_norm;     /* a norm after the last block (pre-norm models) */
        bool attn_bias;      /* biases on Q, K, V and the output projection */
        bool qkv_bias_only;  /* Qwen2: biases on Q, K, V but not on the output projection */
        bool mlp_bias;       /* biases on the MLP matrices */
        enum model_position position;
        uint32_t relative_buckets; /* T5: 32 */
        uint32_t experts;          /* MoE experts per layer; 0 or 1 = dense */
        uint32_t active_experts;   /* experts each token is routed to */
        bool pooler;               /* encoder pooler (dense h x h + bias) in the checkpoint */
        bool lm_head_transform;    /* encoder MLM head: dense + norm before the vocab projection */
        bool lm_head_bias;         /* a bias over the vocabulary in the LM head */
        float dropout; /* hidden/attention dropout probability (masks cost 1 byte/element) */
        uint64_t extra_parameters;  /* block-matrix parameters the shape does not place: the
                                       remainder that makes a bare parameter count exact
                                       (model_arch_from_parameters), a vision tower; 0 otherwise */
        uint64_t vision_parameters; /* of extra_parameters: the vision tower and its projector
                                       of a vision-language checkpoint (reported, not re-added) */
        uint32_t image_tokens;      /* language-model tokens one image becomes; 0 = no tower */
        uint32_t image_px_assumed;  /* the image side image_tokens assumes where tokens follow
                                       the resolution (Qwen2-VL); 0 = fixed by the config */
        struct model_vision vision;
        /* Family structure beyond the classic block (0 = absent). */
        uint32_t block_norms;       /* norms per block; 0 = the classic 2 (1: GPT-J, Falcon-7B
                                       parallel blocks; 4: Gemma 2/3 pre+post norms) */
        uint32_t qk_norm_params;    /* per block: q/k norm weights (Qwen3, OLMo 2, Gemma 3) */
        uint32_t embedding_dim;     /* token table width when it differs from hidden (ELECTRA):
                                       adds an embedding_dim x hidden projection with bias */
        uint32_t shared_expert_ffn; /* always-active shared expert MLP width (Qwen2-MoE,
                                       DeepSeek: n_shared x moe width) */
        bool shared_expert_gate;    /* Qwen2-MoE: a hidden x 1 sigmoid gate on the shared expert */
        uint32_t dense_layers;      /* leading blocks with a dense MLP of dense_ffn instead of
                                       experts (DeepSeek first_k_dense_replace) */
        uint32_t dense_ffn;
        uint32_t sliding_window; /* local attention window in tokens; 0 = none */
        uint32_t global_every;   /* with a window: every n-th block attends to the whole
                                    context (Gemma 2: 2, Gemma 3: 6); 0 = every block local */
        uint32_t q_lora_rank;    /* MLA (DeepSeek-V2/V3): 0 = q projected directly */
        uint32_t kv_lora_rank;   /* MLA latent width; 0 = ordinary K/V projections */
        uint32_t qk_rope_dim;    /* MLA: rotary part of each query/key head */
        uint32_t v_head_dim;     /* MLA: value head width (head_dim is q/k's nope + rope) */
        bool attn_output_gate;   /* q_proj also emits a sigmoid gate on the attention
                                    output: hidden x q more (Qwen3-Next, Qwen3.5) */
        float final_softcap;     /* logits = cap * tanh(logits / cap) (Gemma 2
                                    final_logit_softcapping); 0 = none */
        float attn_softcap;      /* the same on the attention scores (Gemma 2
                                    attn_logit_softcapping; eager attention only) */
        /* Linear-attention blocks (Gated DeltaNet: Qwen3-Next, Qwen3.5): the
         * token mixer of linear_layers of the blocks is a recurrence over a
         * fixed state instead of attention over a growing cache. */
        uint32_t linear_layers;
        uint32_t lin_k_heads, lin_k_dim; /* query/key heads and their width */
        uint32_t lin_v_heads, lin_v_dim; /* value heads and their width */
        uint32_t lin_conv_kernel;        /* causal depthwise convolution over q, k, v */
        bool generic;                    /* an unknown model_type read as a generic gated decoder */
        uint32_t defaulted;              /* MODEL_KEY_* bits: config.json keys the importer took
                                            from the family's transformers defaults */
};

/* Elements of recurrent state one sequence keeps, whatever its length:
 * each linear-attention block's convolution window and delta-rule state. */
uint64_t model_recurrent_state_elements(const struct model_arch *arch);

/* FLOPs of the linear-attention blocks' recurrence per token, all blocks:
 * the delta rule updates and reads a key x value state per value head,
 * about 4 dk dv (Yang et al. 2024, "Gated Delta Networks"). */
double model_recurrent_flops_per_token(const struct model_arch *arch);

/* The config.json keys whose absence the engine reports (struct
 * model_arch.defaulted), by what they set. */
enum model_key {
        MODEL_KEY_VOCAB = 0,
        MODEL_KEY_HIDDEN,
        MODEL_KEY_FFN,
        MODEL_KEY_LAYERS,
        MODEL_KEY_HEADS,
        MODEL_KEY_KV_HEADS,
        MODEL_KEY_HEAD_DIM,
        MODEL_KEY_MAX_POSITIONS,
        MODEL_KEY_TIED,
        MODEL_KEY_COUNT
};

/* "vocab_size", "hidden_size", ...: the name used in messages. */
const char *model_key_name(enum model_key k);

/* The value arch holds for key k (1 or 0 for tied embeddings). */
double model_key_value(const struct model_arch *arch, enum model_key k);

/* Parameters by where they live; the sum is model_parameters(). */
struct model_param_breakdown {
        uint64_t embeddings;        /* token + position + type tables (+ their norm) */
        uint64_t linear;            /* every matrix of the attention and MLP blocks (all experts) */
        uint64_t linear_active;     /* the same, counting only the experts a token uses */
        uint64_t small;             /* norms, biases, routers, relative buckets */
        uint64_t lm_head;           /* untied vocabulary projection (0 when tied) */
        uint64_t head_extra;        /* pooler, MLM transform, vocab bias */
        uint64_t per_layer;         /* one (encoder / decoder-only) block, all experts */
        uint64_t per_decoder_layer; /* one decoder block of an encoder-decoder; 0 otherwise */
        uint64_t total;
};

/*
 * Check that arch is self-consistent (non-zero sizes, heads divide hidden
 * unless head_dim is set, kv_heads divides heads, active <= experts, sizes
 * below the sanity caps).  Returns 0, or -1 with the offending field name
 * (a member of the architecture object, e.g. "kv_heads") in *field and a
 * one-line reason in *why (both static strings).
 */
int model_arch_check(const struct model_arch *arch, const char **field, const char **why);

/*
 * Count the parameters of the checkpoint arch describes: embeddings,
 * blocks, final norm, LM head when untied, pooler / MLM head when present.
 * Returns 0 and fills *out, or -1 if a count overflows 64 bits.
 */
int model_param_breakdown(const struct model_arch *arch, struct model_param_breakdown *out);

/* model_param_breakdown().total, or 0 on overflow. */
uint64_t model_parameters(const struct model_arch *arch);

/*
 * Key/value elements cached per token across all layers: 2 (K and V) x
 * decoder layers x kv_heads x head_dim.  Multiply by the bytes per element
 * of the cache.  Encoders cache nothing (0).
 */
uint64_t model_kv_elements_per_token(const struct model_arch *arch);

/*
 * Key/value elements cached for a context of tokens, all layers: blocks
 * with a sliding window hold at most the window (Mistral v0.1, Gemma 2/3
 * local layers), multi-head latent attention holds kv_lora_rank +
 * qk_rope_dim per token and layer (DeepSeek-V2 paper, section 2.1.2).
 * Encoders cache nothing.  model_kv_tokens_for() inverts it: the longest
 * context whose cache fits in elements (0 if none).
 */
double model_kv_elements(const struct model_arch *arch, double tokens);
double model_kv_tokens_for(const struct model_arch *arch, double elements);

/*
 * Fill arch with a LLaMA-like decoder (RMSNorm, SwiGLU, RoPE, untied,
 * vocabulary 32000, MHA) whose parameter count is exactly parameters.
 * Layers come from the size buckets in model.c; the hidden size solves
 * 12*L*h^2 + 2*V*h = N, rounded to a multiple of 128; the FFN size is then
 * the largest that keeps the count at or below N, and the remainder (less
 * than one FFN column, 3*h*L parameters) goes to extra_parameters.  Very
 * small counts shrink the vocabulary so the embeddings leave room for the
 * blocks.  Returns 0, or -1 if parameters is outside 1e6 .. 1e13.
 */
int model_arch_from_parameters(uint64_t parameters, struct model_arch *arch);

/* Names used in JSON ("encoder", "gelu", "rmsnorm", "rotary", ...) and back. */
const char *model_kind_name(enum model_kind k);
const char *model_activation_name(enum model_activation a);
const char *model_norm_name(enum model_norm n);
const char *model_position_name(enum model_position p);
int model_kind_parse(const char *s, enum model_kind *out);
int model_activation_parse(const char *s, enum model_activation *out);
int model_norm_parse(const char *s, enum model_norm *out);
int model_position_parse(const char *s, enum model_position *out);

#endif
