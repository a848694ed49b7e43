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
static const char *const activation_names[] = {"gelu", "gelu_tanh", "relu", "silu", NULL};
static const char *const norm_names[] = {"layernorm", "rmsnorm", NULL};
static const char *const position_names[] = {"learned", "rotary", "relative", NULL};

static int parse_name(const char *const *names, const char *s)
{
        if (!s)
                return -1;
        for (int i = 0; names[i]; i++)
                if (strcmp(names[i], s) == 0)
                        return i;
        return -1;
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
        return a->norm == MODEL_NORM_LAYERNORM ? 2u * (uint64_t)a->hidden : a->hidden;
}

/* Q, K, V and output projections of one attention block (self or cross). */
static int attention_params(const struct model_arch *a, uint64_t *matrices, uint64_t *vectors)
{
        uint64_t q = (uint64_t)a->heads * a->head_dim;
        uint64_t kv = (uint64_t)a->kv_heads * a->head_dim;
        *matrices = 0;
        if (add_mul(matrices, a->hidden, q + 2 * kv) || add_mul(matrices, q, a->hidden))
                return -1;
        *vectors = 0;
        if (a->attn_bias)
                *vectors = q + 2 * kv + a->hidden;
        else if (a->qkv_bias_only)
                *vectors = q + 2 * kv;
        return 0;
}

/* One expert's MLP. */
static int mlp_params(const struct model_arch *a, uint64_t *matrices, uint64_t *vectors)
{
        uint64_t n = a->gated_mlp ? 3 : 2;
        *matrices = 0;
        if (add_mul(matrices, n * a->hidden, a->ffn))
                return -1;
        *vectors = 0;
        if (a->mlp_bias)
                *vectors = (a->gated_mlp ? 2u * (uint64_t)a->ffn : a->ffn) + a->hidden;
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
        if (attention_params(a, &att_m, &att_v) || mlp_params(a, &mlp_m, &mlp_v))
                return -1;

        /* Embeddings: token table, learned positions, token types, and the
         * norm BERT/RoBERTa apply to their sum. */
        if (add_mul(&o->embeddings, a->vocab, h))
                return -1;
        if (a->position == MODEL_POS_LEARNED) {
                uint64_t rows = a->position_table ? a->position_table : a->max_positions;
                if (add_mul(&o->embeddings, rows, h))
                        return -1;
        }
        if (add_mul(&o->embeddings, a->type_vocab, h))
                return -1;
        if (a->embedding_norm)
                o->embeddings += norm_params(a);

        /* One block: attention + MLP (x experts) + two norms (+ router). */
        uint64_t block_m = att_m, block_small = att_v + 2 * norm_params(a);
        if (add_mul(&block_m, experts, mlp_m) || add_mul(&block_small, experts, mlp_v))
                return -1;
        if (a->experts > 1 && add_mul(&block_small, h, a->experts))
                return -1; /* router: hidden x experts, no bias (Mixtral) */
        uint64_t block_active_m = att_m;
        if (add_mul(&block_active_m, active, mlp_m))
                return -1;
        o->per_layer = block_m + block_small;
        if (add_mul(&o->linear, a->layers, block_m) ||
            add_mul(&o->linear_active, a->layers, block_active_m) ||
            add_mul(&o->small, a->layers, block_small))
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

uint64_t model_kv_elements_per_token(const struct model_arch *a)
{
        uint32_t layers;
        if (a->kind == MODEL_ENCODER)
                return 0;
        layers = a->kind == MODEL_ENCODER_DECODER ? a->decoder_layers : a->layers;
        /* K and V: 2 x layers x kv_heads x head_dim (GQA-aware; the cross
         * attention cache of an encoder-decoder is counted by the engine). */
        return 2u * (uint64_t)layers * a->kv_heads * a->head_dim;
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
