/*
 * model.c - parameter counts and shape checks for struct model_arch.
 *
 * The counts follow the module structure of the Hugging Face transformers
 * implementations (BertModel, RobertaModel, XLMRobertaXLModel, GPT2Model,
 * LlamaModel, MistralModel, MixtralModel, Qwen2Model, T5Model): one matrix
 * per nn.Linear (in x out), one vector per bias and per norm weight, a
 * LayerNorm having a weight and a bias and an RMSNorm a weight only.
 */
#include "core/model.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Sanity caps: larger values are refused as absurd, and they keep every
 * product below in 64 bits with a wide margin. */
#define MODEL_MAX_LAYERS    1024u
#define MODEL_MAX_HIDDEN    131072u
#define MODEL_MAX_HEADS     4096u
#define MODEL_MAX_HEAD_DIM  4096u
#define MODEL_MAX_FFN       1048576u
#define MODEL_MAX_VOCAB     16777216u
#define MODEL_MAX_POSITIONS 16777216u
#define MODEL_MAX_EXPERTS   1024u

static const char *const kind_names[] = {"encoder", "decoder", "encoder_decoder", NULL};
static const char *const activation_names[] = {"gelu", "gelu_tanh", "relu",
                                               "silu", "gelu_new",  NULL};
static const char *const norm_names[] = {"layernorm", "rmsnorm", "layernorm_nobias",
                                         "layernorm_noaffine", NULL};
static const char *const position_names[] = {"learned", "rotary", "relative", "alibi", NULL};

static int parse_name(const char *const *names, const char *s)
{
        if (!s)
                return -1;
        for (int i = 0; names[i]; i++)
                if (strcmp(names[i], s) == 0)
                        return i;
        return -1;
}

const char *model_key_name(enum model_key k)
{
        static const char *const names[] = {
                "vocab_size",
                "hidden_size",
                "intermediate_size",
                "num_hidden_layers",
                "num_attention_heads",
                "num_key_value_heads",
                "head_dim",
                "max_position_embeddings",
                "tie_word_embeddings",
        };
        return (unsigned)k < MODEL_KEY_COUNT ? names[k] : "";
}

double model_key_value(const struct model_arch *a, enum model_key k)
{
        switch (k) {
        case MODEL_KEY_VOCAB:
                return a->vocab;
        case MODEL_KEY_HIDDEN:
                return a->hidden;
        case MODEL_KEY_FFN:
                return a->ffn;
        case MODEL_KEY_LAYERS:
                return a->layers;
        case MODEL_KEY_HEADS:
                return a->heads;
        case MODEL_KEY_KV_HEADS:
                return a->kv_heads;
        case MODEL_KEY_HEAD_DIM:
                return a->head_dim;
        case MODEL_KEY_MAX_POSITIONS:
                return a->max_positions;
        case MODEL_KEY_TIED:
                return a->tied_embeddings;
        default:
                return 0;
        }
}

const char *model_kind_name(enum model_kind k)
{
        return (unsigned)k < MODEL_KIND_COUNT ? kind_names[k] : "";
}

const char *model_activation_name(enum model_activation a)
{
        return (unsigned)a < MODEL_ACT_COUNT ? activation_names[a] : "";
}

const char *model_norm_name(enum model_norm n)
{
        return (unsigned)n < MODEL_NORM_COUNT ? norm_names[n] : "";
}

const char *model_position_name(enum model_position p)
{
        return (unsigned)p < MODEL_POS_COUNT ? position_names[p] : "";
}

int model_kind_parse(const char *s, enum model_kind *out)
{
        int i = parse_name(kind_names, s);
        if (i < 0)
                return -1;
        *out = (enum model_kind)i;
        return 0;
}

int model_activation_parse(const char *s, enum model_activation *out)
{
        int i = parse_name(activation_names, s);
        if (i < 0)
                return -1;
        *out = (enum model_activation)i;
        return 0;
}

int model_norm_parse(const char *s, enum model_norm *out)
{
        int i = parse_name(norm_names, s);
        if (i < 0)
                return -1;
        *out = (enum model_norm)i;
        return 0;
}

int model_position_parse(const char *s, enum model_position *out)
{
        int i = parse_name(position_names, s);
        if (i < 0)
                return -1;
        *out = (enum model_position)i;
        return 0;
}

#define CHECK(cond, f, w)                                                                          \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        *field = (f);                                                              \
                        *why = (w);                                                                \
                        return -1;                                                                 \
                }                                                                                  \
        } while (0)

int model_arch_check(const struct model_arch *a, const char **field, const char **why)
{
        CHECK((unsigned)a->kind < MODEL_KIND_COUNT, "kind", "unknown model kind");
        CHECK(a->layers >= 1 && a->layers <= MODEL_MAX_LAYERS, "layers", "must be 1..1024");
        if (a->kind == MODEL_ENCODER_DECODER)
                CHECK(a->decoder_layers >= 1 && a->decoder_layers <= MODEL_MAX_LAYERS,
                      "decoder_layers", "an encoder-decoder needs 1..1024 decoder layers");
        else
                CHECK(a->decoder_layers == 0, "decoder_layers",
                      "only an encoder-decoder has separate decoder layers");
        CHECK(a->hidden >= 1 && a->hidden <= MODEL_MAX_HIDDEN, "hidden_size", "must be 1..131072");
        CHECK(a->heads >= 1 && a->heads <= MODEL_MAX_HEADS, "heads", "must be 1..4096");
        CHECK(a->kv_heads >= 1 && a->kv_heads <= a->heads, "kv_heads", "must be 1..heads");
        CHECK(a->heads % a->kv_heads == 0, "kv_heads", "must divide the number of heads");
        CHECK(a->head_dim >= 1 && a->head_dim <= MODEL_MAX_HEAD_DIM, "head_dim", "must be 1..4096");
        CHECK((uint64_t)a->head_dim * a->heads <= 4u * (uint64_t)MODEL_MAX_HIDDEN, "head_dim",
              "heads x head_dim is absurdly large");
        CHECK(a->ffn >= 1 && a->ffn <= MODEL_MAX_FFN, "ffn_size", "must be 1..1048576");
        CHECK((unsigned)a->activation < MODEL_ACT_COUNT, "activation", "unknown activation");
        CHECK(a->vocab >= 1 && a->vocab <= MODEL_MAX_VOCAB, "vocab_size", "must be 1..16777216");
        CHECK(a->max_positions >= 1 && a->max_positions <= MODEL_MAX_POSITIONS, "max_positions",
              "must be 1..16777216");
        CHECK(a->position_table <= MODEL_MAX_POSITIONS + 16u, "max_positions",
              "position table is absurdly large");
        CHECK(a->type_vocab <= 1024, "type_vocab_size", "must be 0..1024");
        CHECK((unsigned)a->norm < MODEL_NORM_COUNT, "norm", "unknown norm");
        CHECK((unsigned)a->position < MODEL_POS_COUNT, "position_embedding",
              "unknown position embedding");
        CHECK(a->relative_buckets <= 4096, "relative_buckets", "must be 0..4096");
        CHECK(a->experts <= MODEL_MAX_EXPERTS, "experts", "must be 0..1024");
        if (a->experts > 1)
                CHECK(a->active_experts >= 1 && a->active_experts <= a->experts, "active_experts",
                      "must be 1..experts");
        else
                CHECK(a->active_experts <= 1, "active_experts",
                      "a dense model has no routed experts");
        CHECK(a->dropout >= 0.0f && a->dropout < 1.0f, "dropout", "must be in [0, 1)");
        CHECK(a->extra_parameters <= 10000000000000ull, "extra_parameters", "must be 0..1e13");
        CHECK(a->block_norms <= 8, "block_norms", "must be 0..8");
        CHECK(a->dense_layers <= a->layers, "dense_layers", "must be 0..layers");
        CHECK(a->embedding_dim <= MODEL_MAX_HIDDEN, "embedding_dim", "must be 0..131072");
        CHECK(a->shared_expert_ffn <= MODEL_MAX_FFN && a->dense_ffn <= MODEL_MAX_FFN,
              "shared_expert_ffn", "must be 0..1048576");
        CHECK(a->sliding_window <= MODEL_MAX_POSITIONS, "sliding_window", "must be 0..16777216");
        CHECK(a->global_every <= MODEL_MAX_LAYERS, "global_every", "must be 0..1024");
        CHECK(a->qk_norm_params <= 4u * MODEL_MAX_HIDDEN, "qk_norm_params", "absurdly large");
        if (a->linear_layers) {
                CHECK(a->kind == MODEL_DECODER && a->linear_layers <= a->layers, "linear_layers",
                      "a decoder has 0..layers linear-attention blocks");
                CHECK(a->lin_k_heads >= 1 && a->lin_k_heads <= MODEL_MAX_HEADS &&
                              a->lin_v_heads >= 1 && a->lin_v_heads <= MODEL_MAX_HEADS,
                      "linear_num_key_heads", "linear heads must be 1..4096");
                CHECK(a->lin_k_dim >= 1 && a->lin_k_dim <= MODEL_MAX_HEAD_DIM &&
                              a->lin_v_dim >= 1 && a->lin_v_dim <= MODEL_MAX_HEAD_DIM,
                      "linear_key_head_dim", "linear head widths must be 1..4096");
                CHECK(a->lin_conv_kernel <= 64, "linear_conv_kernel_dim", "must be 0..64");
        }
        if (a->kv_lora_rank) {
                CHECK(a->kv_lora_rank <= MODEL_MAX_HIDDEN && a->q_lora_rank <= MODEL_MAX_HIDDEN,
                      "kv_lora_rank", "must be 1..131072");
                CHECK(a->qk_rope_dim < a->head_dim, "qk_rope_head_dim",
                      "must be below the query/key head width");
                CHECK(a->v_head_dim >= 1 && a->v_head_dim <= MODEL_MAX_HEAD_DIM, "v_head_dim",
                      "must be 1..4096");
        }
        return 0;
}

/* Checked 64-bit arithmetic: *acc += x * y (and x * y * z). */
static int add_mul(uint64_t *acc, uint64_t x, uint64_t y)
{
        uint64_t p;
        if (__builtin_mul_overflow(x, y, &p) || __builtin_add_overflow(*acc, p, acc))
                return -1;
        return 0;
}

static uint64_t norm_params(const struct model_arch *a)
{
        if (a->norm == MODEL_NORM_LAYERNORM_NOAFFINE)
                return 0;
        return a->norm == MODEL_NORM_LAYERNORM ? 2u * (uint64_t)a->hidden : a->hidden;
}

/* Q, K, V and output projections of one attention block (self or cross).
 * Multi-head latent attention (DeepSeek-V2, Liu et al. 2024, section 2.1;
 * transformers modeling_deepseek_v3.py): q_a (h x q_rank) + its RMSNorm +
 * q_b (q_rank x heads x head_dim), or q_proj directly; kv_a_proj_with_mqa
 * (h x (kv_rank + rope)) + its RMSNorm; kv_b (kv_rank x heads x (nope +
 * v_head)); o_proj (heads x v_head x h). */
static int attention_params(const struct model_arch *a, uint64_t *matrices, uint64_t *vectors)
{
        uint64_t q = (uint64_t)a->heads * a->head_dim;
        uint64_t kv = (uint64_t)a->kv_heads * a->head_dim;
        *matrices = 0;
        *vectors = 0;
        if (a->kv_lora_rank) {
                uint64_t nope = a->head_dim - a->qk_rope_dim;
                if (a->q_lora_rank) {
                        if (add_mul(matrices, a->hidden, a->q_lora_rank) ||
                            add_mul(matrices, a->q_lora_rank, q))
                                return -1;
                        *vectors += a->q_lora_rank;
                } else if (add_mul(matrices, a->hidden, q)) {
                        return -1;
                }
                if (add_mul(matrices, a->hidden, (uint64_t)a->kv_lora_rank + a->qk_rope_dim) ||
                    add_mul(matrices, a->kv_lora_rank,
                            (uint64_t)a->heads * (nope + a->v_head_dim)) ||
                    add_mul(matrices, (uint64_t)a->heads * a->v_head_dim, a->hidden))
                        return -1;
                *vectors += a->kv_lora_rank;
                if (a->attn_bias)
                        *vectors += q + a->hidden;
                return 0;
        }
        if (add_mul(matrices, a->hidden, q + 2 * kv) || add_mul(matrices, q, a->hidden))
                return -1;
        if (a->attn_output_gate && add_mul(matrices, a->hidden, q))
                return -1;
        if (a->attn_bias)
                *vectors = q + 2 * kv + a->hidden;
        else if (a->qkv_bias_only)
                *vectors = q + 2 * kv;
        return 0;
}

/*
 * A Gated DeltaNet token mixer (transformers modeling_qwen3_next.py,
 * Qwen3NextGatedDeltaNet): in_proj_qkvz (hidden x (2 K + 2 V), K = key heads
 * x key width, V = value heads x value width), in_proj_ba (hidden x 2 value
 * heads), out_proj (V x hidden); a depthwise conv1d without bias over
 * q, k and v (2 K + V channels x kernel), dt_bias and A_log per value head,
 * and a gated RMSNorm over one value head's width.
 */
static int linear_mixer_params(const struct model_arch *a, uint64_t *matrices, uint64_t *vectors)
{
        uint64_t K = (uint64_t)a->lin_k_heads * a->lin_k_dim;
        uint64_t V = (uint64_t)a->lin_v_heads * a->lin_v_dim;
        *matrices = 0;
        *vectors = 0;
        if (add_mul(matrices, a->hidden, 2 * K + 2 * V + 2u * a->lin_v_heads) ||
            add_mul(matrices, V, a->hidden) || add_mul(vectors, 2 * K + V, a->lin_conv_kernel))
                return -1;
        *vectors += 2u * a->lin_v_heads + a->lin_v_dim;
        return 0;
}

uint64_t model_recurrent_state_elements(const struct model_arch *a)
{
        if (!a->linear_layers)
                return 0;
        uint64_t K = (uint64_t)a->lin_k_heads * a->lin_k_dim;
        uint64_t V = (uint64_t)a->lin_v_heads * a->lin_v_dim;
        uint64_t conv = (a->lin_conv_kernel > 1 ? a->lin_conv_kernel - 1u : 0) * (2 * K + V);
        uint64_t delta = (uint64_t)a->lin_v_heads * a->lin_k_dim * a->lin_v_dim;
        return (uint64_t)a->linear_layers * (conv + delta);
}

double model_recurrent_flops_per_token(const struct model_arch *a)
{
        return 4.0 * a->linear_layers * a->lin_v_heads * a->lin_k_dim * a->lin_v_dim;
}

/* One MLP of width ffn (one expert, a shared expert or a dense block). */
static int mlp_params(const struct model_arch *a, uint64_t ffn, uint64_t *matrices,
                      uint64_t *vectors)
{
        uint64_t n = a->gated_mlp ? 3 : 2;
        *matrices = 0;
        if (add_mul(matrices, n * a->hidden, ffn))
                return -1;
        *vectors = 0;
        if (a->mlp_bias)
                *vectors = (a->gated_mlp ? 2u * ffn : ffn) + a->hidden;
        return 0;
}

int model_param_breakdown(const struct model_arch *a, struct model_param_breakdown *o)
{
        const char *f, *w;
        uint64_t att_m, att_v, mlp_m, mlp_v;
        uint64_t experts = a->experts > 1 ? a->experts : 1;
        uint64_t active = a->experts > 1 ? a->active_experts : 1;
        uint64_t h = a->hidden;

        memset(o, 0, sizeof(*o));
        if (model_arch_check(a, &f, &w))
                return -1;
        if (attention_params(a, &att_m, &att_v) || mlp_params(a, a->ffn, &mlp_m, &mlp_v))
                return -1;

        /* Embeddings: token table, learned positions, token types, and the
         * norm BERT/RoBERTa apply to their sum; ELECTRA's narrower table
         * adds a projection to the hidden size (embeddings_project). */
        uint64_t e = a->embedding_dim ? a->embedding_dim : h;
        if (add_mul(&o->embeddings, a->vocab, e))
                return -1;
        if (a->position == MODEL_POS_LEARNED) {
                uint64_t rows = a->position_table ? a->position_table : a->max_positions;
                if (add_mul(&o->embeddings, rows, e))
                        return -1;
        }
        if (add_mul(&o->embeddings, a->type_vocab, e))
                return -1;
        if (a->embedding_norm)
                o->embeddings += a->norm == MODEL_NORM_LAYERNORM ? 2 * e : e;
        if (a->embedding_dim && a->embedding_dim != a->hidden && add_mul(&o->embeddings, e + 1, h))
                return -1;

        /* One block: attention + MLP (x experts, + a shared expert) + its
         * norms (+ router).  Leading dense blocks of an MoE model
         * (DeepSeek first_k_dense_replace) have one MLP of dense_ffn. */
        uint64_t norms = a->block_norms ? a->block_norms : 2;
        uint64_t block_m = att_m, block_small = att_v + norms * norm_params(a) + a->qk_norm_params;
        if (add_mul(&block_m, experts, mlp_m) || add_mul(&block_small, experts, mlp_v))
                return -1;
        uint64_t block_active_m = att_m;
        if (add_mul(&block_active_m, active, mlp_m))
                return -1;
        if (a->experts > 1 && add_mul(&block_small, h, a->experts))
                return -1; /* router: hidden x experts, no bias (Mixtral) */
        if (a->shared_expert_ffn) {
                uint64_t sm, sv;
                if (mlp_params(a, a->shared_expert_ffn, &sm, &sv))
                        return -1;
                block_m += sm;
                block_active_m += sm;
                block_small += sv + (a->shared_expert_gate ? h : 0);
        }
        uint64_t dense_m = 0, dense_small = 0, dense_n = a->experts > 1 ? a->dense_layers : 0;
        if (dense_n) {
                uint64_t dm, dv;
                if (mlp_params(a, a->dense_ffn ? a->dense_ffn : a->ffn, &dm, &dv))
                        return -1;
                dense_m = att_m + dm;
                dense_small = att_v + norms * norm_params(a) + a->qk_norm_params + dv;
        }
        o->per_layer = block_m + block_small;
        uint64_t moe_n = a->layers - dense_n;
        if (add_mul(&o->linear, moe_n, block_m) ||
            add_mul(&o->linear_active, moe_n, block_active_m) ||
            add_mul(&o->small, moe_n, block_small) || add_mul(&o->linear, dense_n, dense_m) ||
            add_mul(&o->linear_active, dense_n, dense_m) ||
            add_mul(&o->small, dense_n, dense_small))
                return -1;

        if (a->kind == MODEL_ENCODER_DECODER) {
                /* T5 decoder block: self-attention, cross-attention (same
                 * shapes), MLP and three norms. */
                uint64_t dm = 2 * att_m, ds = 2 * att_v + 3 * norm_params(a);
                if (add_mul(&dm, experts, mlp_m) || add_mul(&ds, experts, mlp_v))
                        return -1;
                uint64_t dam = 2 * att_m;
                if (add_mul(&dam, active, mlp_m))
                        return -1;
                o->per_decoder_layer = dm + ds;
                if (add_mul(&o->linear, a->decoder_layers, dm) ||
                    add_mul(&o->linear_active, a->decoder_layers, dam) ||
                    add_mul(&o->small, a->decoder_layers, ds))
                        return -1;
        }

        /* Linear-attention blocks trade their attention for a Gated
         * DeltaNet mixer (and no q/k norms). */
        if (a->linear_layers) {
                uint64_t lm, lv, n = a->linear_layers;
                uint64_t att_small = att_v + a->qk_norm_params;
                if (linear_mixer_params(a, &lm, &lv) || n > a->layers)
                        return -1;
                o->linear -= n * att_m;
                o->linear_active -= n * att_m;
                o->small -= n * att_small;
                if (add_mul(&o->linear, n, lm) || add_mul(&o->linear_active, n, lm) ||
                    add_mul(&o->small, n, lv))
                        return -1;
        }

        /* Relative position buckets: one table per stack, in its first block. */
        if (a->position == MODEL_POS_RELATIVE) {
                uint64_t stacks = a->kind == MODEL_ENCODER_DECODER ? 2 : 1;
                if (add_mul(&o->small, stacks * a->relative_buckets, a->heads))
                        return -1;
        }
        if (a->final_norm)
                o->small += (a->kind == MODEL_ENCODER_DECODER ? 2 : 1) * norm_params(a);

        if (!a->tied_embeddings && add_mul(&o->lm_head, a->vocab, h))
                return -1;
        if (a->pooler && add_mul(&o->head_extra, h + 1, h))
                return -1;
        if (a->lm_head_transform) {
                if (add_mul(&o->head_extra, h + 1, h))
                        return -1;
                o->head_extra += norm_params(a);
        }
        if (a->lm_head_bias)
                o->head_extra += a->vocab;

        /* A bare count's remainder counts as block matrices (it is
         * quantized, trained and multiplied like them). */
        if (__builtin_add_overflow(o->linear, a->extra_parameters, &o->linear) ||
            __builtin_add_overflow(o->linear_active, a->extra_parameters, &o->linear_active))
                return -1;

        uint64_t t = 0;
        if (__builtin_add_overflow(o->embeddings, o->linear, &t) ||
            __builtin_add_overflow(t, o->small, &t) || __builtin_add_overflow(t, o->lm_head, &t) ||
            __builtin_add_overflow(t, o->head_extra, &t))
                return -1;
        o->total = t;
        return 0;
}

uint64_t model_parameters(const struct model_arch *arch)
{
        struct model_param_breakdown b;
        if (model_param_breakdown(arch, &b))
                return 0;
        return b.total;
}

/* Elements one layer caches per token: K and V of every KV head, or
 * MLA's compressed latent plus the shared rotary key. */
static uint64_t kv_per_layer_token(const struct model_arch *a)
{
        if (a->kv_lora_rank)
                return (uint64_t)a->kv_lora_rank + a->qk_rope_dim;
        return 2u * (uint64_t)a->kv_heads * a->head_dim;
}

static uint32_t kv_layers(const struct model_arch *a)
{
        if (a->kind == MODEL_ENCODER)
                return 0;
        if (a->kind == MODEL_ENCODER_DECODER)
                return a->decoder_layers;
        return a->layers - (a->linear_layers < a->layers ? a->linear_layers : a->layers);
}

/* Layers that attend to the whole context; the rest hold the window. */
static uint32_t global_layers(const struct model_arch *a)
{
        uint32_t n = kv_layers(a);
        if (!a->sliding_window)
                return n;
        return a->global_every ? n / a->global_every : 0;
}

uint64_t model_kv_elements_per_token(const struct model_arch *a)
{
        /* K and V: 2 x layers x kv_heads x head_dim (GQA-aware; the cross
         * attention cache of an encoder-decoder is counted by the engine). */
        return kv_layers(a) * kv_per_layer_token(a);
}

double model_kv_elements(const struct model_arch *a, double tokens)
{
        double per = (double)kv_per_layer_token(a);
        double g = global_layers(a), l = (double)kv_layers(a) - g;
        double local = a->sliding_window && tokens > a->sliding_window ? a->sliding_window : tokens;
        double state = tokens > 0 ? (double)model_recurrent_state_elements(a) : 0;
        return per * (g * tokens + l * local) + state;
}

double model_kv_tokens_for(const struct model_arch *a, double elements)
{
        double per = (double)kv_per_layer_token(a);
        double g = global_layers(a), n = kv_layers(a), l = n - g;
        double state = (double)model_recurrent_state_elements(a);
        if (state > 0) { /* one sequence's fixed state comes first */
                if (elements <= state)
                        return 0;
                elements -= state;
                if (n <= 0)
                        return INFINITY;
        }
        if (per <= 0 || n <= 0 || elements <= 0)
                return 0;
        double t = elements / (per * n); /* every layer holding every token */
        if (!a->sliding_window || t <= a->sliding_window)
                return t;
        if (g == 0)
                return INFINITY; /* a window bounds the cache whatever the context */
        return (elements / per - l * a->sliding_window) / g;
}

/* The decoder model_arch_from_parameters() assumes, at hidden size hid,
 * vocabulary V and FFN size ffn. */
static void shape_fill(struct model_arch *a, uint32_t layers, uint32_t hid, uint32_t V,
                       uint32_t ffn)
{
        memset(a, 0, sizeof(*a));
        strcpy(a->name, "decoder from a parameter count");
        a->kind = MODEL_DECODER;
        a->layers = layers;
        a->hidden = hid;
        a->head_dim = hid >= 2048 ? 128 : 64;
        a->heads = hid / a->head_dim;
        a->kv_heads = a->heads;
        a->ffn = ffn;
        a->gated_mlp = true;
        a->activation = MODEL_ACT_SILU;
        a->vocab = V;
        a->max_positions = 4096;
        a->norm = MODEL_NORM_RMSNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->position = MODEL_POS_ROTARY;
}

int model_arch_from_parameters(uint64_t n, struct model_arch *a)
{
        double V = 32000.0, L, h;
        if (n < 1000000u || n > 10000000000000u)
                return -1;
        /* Layer buckets after the shapes of published decoders (GPT-2 small
         * 12, LLaMA-7B 32, 13B 40, 30B 60, 65/70B 80). */
        if (n < 300000000u)
                L = 12;
        else if (n < 1500000000u)
                L = 24;
        else if (n < 10000000000u)
                L = 32;
        else if (n < 24000000000u)
                L = 40;
        else if (n < 55000000000u)
                L = 60;
        else
                L = 80;
        /* A SwiGLU block with f = 8h/3 has 12 h^2 matrix parameters; the
         * untied embedding and head add 2 V h: 12 L h^2 + 2 V h = N. */
        h = (-2.0 * V + sqrt(4.0 * V * V + 48.0 * L * (double)n)) / (24.0 * L);
        uint32_t hid = (uint32_t)(floor(h / 128.0 + 0.5) * 128.0);
        if (hid < 128)
                hid = 128;
        /* Tiny counts: a 32000-row vocabulary alone would exceed them; keep
         * the embeddings to at most half the count (at least 256 rows). */
        uint32_t vocab = 32000;
        if (2.0 * V * hid > (double)n / 2) {
                double v = (double)n / (4.0 * hid);
                vocab = v < 256 ? 256 : (uint32_t)v;
        }
        /* The FFN size fills the count: with ffn = 0 the shape has c0
         * parameters, and each FFN column adds 3 h L (gate, up, down).
         * Narrow the hidden size, then halve the layers, if even one
         * column does not fit. */
        for (;;) {
                shape_fill(a, (uint32_t)L, hid, vocab, 1);
                uint64_t column = 3u * (uint64_t)hid * (uint64_t)L;
                uint64_t c1 = model_parameters(a);
                if (c1 > n && hid <= 128 && L > 1) {
                        L = floor(L / 2);
                        continue;
                }
                if (c1 <= n || hid <= 128) {
                        uint64_t c0 = c1 - column;
                        uint64_t ffn = c1 <= n ? (n - c0) / column : 1;
                        if (ffn > 1048576u)
                                ffn = 1048576u;
                        a->ffn = (uint32_t)ffn;
                        break;
                }
                hid -= 128;
        }
        uint64_t c = model_parameters(a);
        if (c > n)
                return -1;
        a->extra_parameters = n - c;
        return 0;
}
