/*
 * hf_config.c - import a Hugging Face config.json (see hf_config.h).
 *
 * Defaults per family are those of the transformers configuration classes
 * (BertConfig, RobertaConfig, XLMRobertaConfig, XLMRobertaXLConfig,
 * GPT2Config, LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config,
 * T5Config); the module layout each family implies (norm placement,
 * biases, pooler, MLM head) follows the matching modeling_*.py.
 */
#include "models/hf_config.h"
#include "json/fields.h"
#include "models/vision.h"

#include <stdio.h>
#include <string.h>

const char hf_config_supported[] =
        "bert, roberta, xlm-roberta, xlm-roberta-xl, camembert, distilbert, electra, deberta-v2, "
        "modernbert, gpt2, gpt_neox, gptj, falcon, RefinedWeb, RefinedWebModel, bloom, opt, mpt, "
        "llama, mistral, mixtral, "
        "qwen2, qwen3, qwen2_moe, qwen3_moe, gemma, gemma2, gemma3, gemma3_text, phi3, olmo, "
        "olmo2, "
        "granite, internlm2, cohere, starcoder2, deepseek_v2, deepseek_v3, gpt_oss, qwen3_next, "
        "qwen3_5, qwen3_5_moe, glm4_moe, stablelm, kimi_k2, t5, mt5, umt5, bart, mbart, "
        "mllama, qwen2_vl, qwen2_5_vl, llava, mistral3";

struct imp {
        json_t *cfg;
        const char *prefix; /* JSON pointer of cfg: "/text_config" for a wrapper's language model */
        struct fields_error *err;
        uint32_t defaulted; /* MODEL_KEY_* bits of keys the config left out */
};

/* Fill the error record for key of cfg ("" for the config as a whole):
 * its pointer as the config spells it, the rule, "pointer: why". */
static int imp_fail(struct imp *im, const char *key, const char *rule, const char *why)
{
        char pointer[sizeof(im->err->pointer)];

        if (!key[0])
                return field_error_fail(im->err, 400, "", rule, "%s", why);
        snprintf(pointer, sizeof(pointer), "%s/%s", im->prefix, key);
        return field_error_fail(im->err, 400, pointer, rule, "%s: %s", pointer + 1, why);
}

/* The config key a field of struct model_arch came from, as the config
 * spells it (the first of the family's names it holds), for messages. */
static const char *config_key_of(json_t *cfg, const char *field)
{
        static const struct {
                const char *field;
                const char *keys[6];
        } names[] = {
                {"layers",
                 {"num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers"}},
                {"decoder_layers", {"num_decoder_layers", "decoder_layers"}},
                {"hidden", {"hidden_size", "n_embd", "d_model", "dim"}},
                {"heads",
                 {"num_attention_heads", "n_head", "n_heads", "num_heads",
                  "encoder_attention_heads"}},
                {"kv_heads", {"num_key_value_heads", "num_kv_heads", "multi_query_group_num"}},
                {"head_dim", {"head_dim", "d_kv"}},
                {"ffn",
                 {"intermediate_size", "moe_intermediate_size", "d_ff", "ffn_dim", "n_inner",
                  "encoder_ffn_dim"}},
                {"ffn_size", {"intermediate_size", "d_ff", "ffn_dim", "n_inner"}},
                {"vocab", {"vocab_size"}},
                {"max_positions",
                 {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length"}},
                {"experts", {"num_local_experts", "num_experts", "n_routed_experts"}},
                {"active_experts", {"num_experts_per_tok", "experts_per_token", "moe_topk"}},
                {"dense_layers", {"first_k_dense_replace"}},
                {"sliding_window", {"sliding_window", "attention_chunk_size"}},
        };
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                if (strcmp(names[i].field, field))
                        continue;
                for (int k = 0; k < 6 && names[i].keys[k]; k++)
                        if (json_object_get(cfg, names[i].keys[k]))
                                return names[i].keys[k];
                return names[i].keys[0];
        }
        return field;
}

/* transformers' layer_type_validation (configuration_utils.py): every
 * entry one of the known attention kinds, one entry per layer. */
static int check_layer_types(struct imp *im, uint32_t layers)
{
        static const char *const known[] = {"full_attention", "sliding_attention",
                                            "chunked_attention", "linear_attention", NULL};
        json_t *lt = json_object_get(im->cfg, "layer_types"), *x;
        size_t i;
        char why[160];

        if (!lt || json_is_null(lt))
                return 0;
        if (!json_is_array(lt))
                return imp_fail(im, "layer_types", "type", "must be a list of attention kinds");
        if (json_array_size(lt) != layers) {
                snprintf(why, sizeof(why), "has %zu entries for %u layers (num_hidden_layers)",
                         json_array_size(lt), layers);
                return imp_fail(im, "layer_types", "consistency", why);
        }
        json_array_foreach(lt, i, x)
        {
                const char *t = json_string_value(x);
                int k = 0;
                while (t && known[k] && strcmp(t, known[k]))
                        k++;
                if (!t || !known[k]) {
                        snprintf(why, sizeof(why),
                                 "entry %zu is not one of full_attention, sliding_attention, "
                                 "chunked_attention, linear_attention",
                                 i);
                        return imp_fail(im, "layer_types", "enum", why);
                }
        }
        return 0;
}

/* The config keys, under each family's name for them, whose absence the
 * engine lists among its assumptions. */
static const struct {
        const char *key;
        enum model_key what;
} reported_keys[] = {
        {"vocab_size", MODEL_KEY_VOCAB},
        {"hidden_size", MODEL_KEY_HIDDEN},
        {"n_embd", MODEL_KEY_HIDDEN},
        {"d_model", MODEL_KEY_HIDDEN},
        {"dim", MODEL_KEY_HIDDEN},
        {"intermediate_size", MODEL_KEY_FFN},
        {"d_ff", MODEL_KEY_FFN},
        {"ffn_dim", MODEL_KEY_FFN},
        {"hidden_dim", MODEL_KEY_FFN},
        {"encoder_ffn_dim", MODEL_KEY_FFN},
        {"num_hidden_layers", MODEL_KEY_LAYERS},
        {"n_layer", MODEL_KEY_LAYERS},
        {"n_layers", MODEL_KEY_LAYERS},
        {"num_layers", MODEL_KEY_LAYERS},
        {"encoder_layers", MODEL_KEY_LAYERS},
        {"num_attention_heads", MODEL_KEY_HEADS},
        {"n_head", MODEL_KEY_HEADS},
        {"n_heads", MODEL_KEY_HEADS},
        {"num_heads", MODEL_KEY_HEADS},
        {"encoder_attention_heads", MODEL_KEY_HEADS},
        {"num_key_value_heads", MODEL_KEY_KV_HEADS},
        {"num_kv_heads", MODEL_KEY_KV_HEADS},
        {"head_dim", MODEL_KEY_HEAD_DIM},
        {"d_kv", MODEL_KEY_HEAD_DIM},
        {"max_position_embeddings", MODEL_KEY_MAX_POSITIONS},
        {"n_positions", MODEL_KEY_MAX_POSITIONS},
        {"max_seq_len", MODEL_KEY_MAX_POSITIONS},
        {"seq_length", MODEL_KEY_MAX_POSITIONS},
        {"tie_word_embeddings", MODEL_KEY_TIED},
};

static void note_default(struct imp *im, const char *key)
{
        for (size_t i = 0; i < sizeof(reported_keys) / sizeof(reported_keys[0]); i++)
                if (!strcmp(reported_keys[i].key, key))
                        im->defaulted |= 1u << reported_keys[i].what;
}

/* True, noting the default, when the config leaves key out or sets it to
 * null: the family default applies. */
static bool defaulted(struct imp *im, const char *key)
{
        json_t *v = json_object_get(im->cfg, key);

        if (v && !json_is_null(v))
                return false;
        note_default(im, key);
        return true;
}

/* An unsigned integer key: absent (or null) -> def; present -> 0..max. */
static int get_u32(struct imp *im, const char *key, uint32_t def, uint32_t max, uint32_t *out)
{
        uint64_t x = def;

        if (fields_read_uint(im->err, im->cfg, im->prefix, key, FIELD_NULLABLE, 0, max, &x))
                return -1;
        defaulted(im, key);
        *out = (uint32_t)x;
        return 0;
}

static int get_bool(struct imp *im, const char *key, bool def, bool *out)
{
        bool x = def;

        if (fields_read_bool(im->err, im->cfg, im->prefix, key, FIELD_NULLABLE, &x))
                return -1;
        defaulted(im, key);
        *out = x;
        return 0;
}

/* A tanh soft cap (Gemma 2's *_logit_softcapping): a number in [0, 1e6],
 * or null for none (0). */
static int get_softcap(struct imp *im, const char *key, double def, float *out)
{
        json_t *v = json_object_get(im->cfg, key);
        double x = def;

        if (v && json_is_null(v))
                x = 0;
        else if (fields_read_number(im->err, im->cfg, im->prefix, key, 0, 0, 1e6, &x))
                return -1;
        *out = (float)x;
        return 0;
}

/* A dropout probability in [0, 1). */
static int get_prob(struct imp *im, const char *key, double def, float *out)
{
        double x = def;

        if (fields_read_number(im->err, im->cfg, im->prefix, key, FIELD_NULLABLE, 0, 1, &x))
                return -1;
        if (x >= 1)
                return imp_fail(im, key, "range", "must be in [0, 1)");
        *out = (float)x;
        return 0;
}

static int activation(struct imp *im, const char *key, enum model_activation def,
                      enum model_activation *out)
{
        const char *s = NULL;

        if (fields_read_string(im->err, im->cfg, im->prefix, key, FIELD_NULLABLE, 256, &s))
                return -1;
        if (!s)
                *out = def;
        else if (!strcmp(s, "gelu") || !strcmp(s, "gelu_python"))
                *out = MODEL_ACT_GELU;
        else if (!strcmp(s, "gelu_new") || !strcmp(s, "gelu_fast"))
                *out = MODEL_ACT_GELU_NEW;
        else if (!strcmp(s, "gelu_pytorch_tanh") || !strcmp(s, "gelu_approximate"))
                *out = MODEL_ACT_GELU_TANH;
        else if (!strcmp(s, "relu"))
                *out = MODEL_ACT_RELU;
        else if (!strcmp(s, "silu") || !strcmp(s, "swish"))
                *out = MODEL_ACT_SILU;
        else
                return imp_fail(im, key, "enum",
                                "unsupported activation (gelu, gelu_new, relu, silu)");
        return 0;
}

static void set_name(struct model_arch *a, json_t *cfg, const char *type)
{
        json_t *n = json_object_get(cfg, "_name_or_path");
        snprintf(a->model_type, sizeof(a->model_type), "%s", type);
        if (json_is_string(n) && json_string_length(n) > 0)
                snprintf(a->name, sizeof(a->name), "%s", json_string_value(n));
        else
                snprintf(a->name, sizeof(a->name), "%s", type);
}

/* Heads and head_dim: head_dim defaults to hidden / heads, which must divide. */
static int heads_and_dim(struct imp *im, struct model_arch *a, const char *heads_key)
{
        if (a->heads == 0)
                return imp_fail(im, heads_key, "range", "must be a positive integer");
        if (a->head_dim == 0) {
                if (a->hidden % a->heads)
                        return imp_fail(im, heads_key, "consistency",
                                        "must divide the hidden size");
                a->head_dim = a->hidden / a->heads;
        }
        return 0;
}

/* Does config.json's "architectures" name a masked-LM class (or say
 * nothing, in which case the pre-training checkpoint is assumed)? */
static bool has_mlm_head(json_t *cfg)
{
        json_t *arch = json_object_get(cfg, "architectures"), *x;
        size_t i;
        if (!json_is_array(arch) || json_array_size(arch) == 0)
                return true;
        json_array_foreach(arch, i, x)
        {
                const char *c = json_string_value(x);
                if (c && (strstr(c, "ForMaskedLM") || strstr(c, "ForPreTraining")))
                        return true;
        }
        return false;
}

/* BERT, RoBERTa, XLM-R and XLM-R XL: post-LN (XL: pre-LN) encoders. */
static int import_encoder(struct imp *im, struct model_arch *a, const char *type)
{
        bool roberta = strcmp(type, "bert") != 0;
        bool xl = strcmp(type, "xlm-roberta-xl") == 0;
        uint32_t pos;
        bool tied = true;

        a->kind = MODEL_ENCODER;
        if (get_u32(im, "vocab_size", xl ? 250880 : (roberta ? 50265 : 30522), 16777216,
                    &a->vocab) ||
            get_u32(im, "hidden_size", xl ? 2560 : 768, 131072, &a->hidden) ||
            get_u32(im, "num_hidden_layers", xl ? 36 : 12, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", xl ? 32 : 12, 4096, &a->heads) ||
            get_u32(im, "intermediate_size", xl ? 10240 : 3072, 1048576, &a->ffn) ||
            get_u32(im, "max_position_embeddings", xl ? 514 : 512, 16777216, &pos) ||
            get_u32(im, "type_vocab_size", xl ? 1 : 2, 1024, &a->type_vocab) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_prob(im, "hidden_dropout_prob", 0.1, &a->dropout) ||
            activation(im, "hidden_act", MODEL_ACT_GELU, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        /* RoBERTa-style position ids start after padding_idx (1): the
         * table has max_position_embeddings rows, 2 fewer usable. */
        a->position_table = pos;
        a->max_positions = roberta && pos > 2 ? pos - 2 : pos;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->pre_norm = xl;
        a->embedding_norm = !xl;
        a->final_norm = xl;
        a->attn_bias = true;
        a->mlp_bias = true;
        a->position = MODEL_POS_LEARNED;
        a->pooler = true;
        /* The MLM head is in the checkpoint only for *ForMaskedLM /
         * *ForPreTraining; embedding and reranker models (BertModel,
         * XLMRobertaModel, *ForSequenceClassification) ship without it. */
        a->lm_head_transform = a->lm_head_bias = has_mlm_head(im->cfg);
        return 0;
}

static int import_gpt2(struct imp *im, struct model_arch *a)
{
        uint32_t inner;
        bool tied = true;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 50257, 16777216, &a->vocab) ||
            get_u32(im, "n_positions", 1024, 16777216, &a->max_positions) ||
            get_u32(im, "n_embd", 768, 131072, &a->hidden) ||
            get_u32(im, "n_layer", 12, 1024, &a->layers) ||
            get_u32(im, "n_head", 12, 4096, &a->heads) ||
            get_u32(im, "n_inner", 0, 1048576, &inner) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_prob(im, "resid_pdrop", 0.1, &a->dropout) ||
            activation(im, "activation_function", MODEL_ACT_GELU_NEW, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "n_head"))
                return -1;
        a->ffn = inner ? inner : 4 * a->hidden;
        a->position_table = a->max_positions;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->attn_bias = true;
        a->mlp_bias = true;
        a->position = MODEL_POS_LEARNED;
        return 0;
}

/* Defaults of the LLaMA-shaped families' transformers configuration
 * classes (LlamaConfig, MistralConfig, ..., DeepseekV3Config), for the keys
 * a config.json may leave out. */
struct decoder_defaults {
        const char *type;
        uint32_t vocab, hidden, ffn, layers, heads, kv_heads, head_dim, max_positions;
        bool tied;
        enum model_activation act;
};

static const struct decoder_defaults decoder_families[] = {
        {"llama", 32000, 4096, 11008, 32, 32, 0, 0, 2048, false, MODEL_ACT_SILU},
        {"mistral", 32000, 4096, 14336, 32, 32, 8, 0, 131072, false, MODEL_ACT_SILU},
        {"mixtral", 32000, 4096, 14336, 32, 32, 8, 0, 131072, false, MODEL_ACT_SILU},
        {"qwen2", 151936, 4096, 22016, 32, 32, 32, 0, 32768, false, MODEL_ACT_SILU},
        {"qwen3", 151936, 4096, 22016, 32, 32, 32, 128, 32768, false, MODEL_ACT_SILU},
        {"qwen2_moe", 151936, 2048, 5632, 24, 16, 16, 0, 32768, false, MODEL_ACT_SILU},
        {"qwen3_moe", 151936, 2048, 6144, 24, 32, 4, 128, 32768, false, MODEL_ACT_SILU},
        {"gemma", 256000, 3072, 24576, 28, 16, 16, 256, 8192, true, MODEL_ACT_GELU_TANH},
        {"gemma2", 256000, 2304, 9216, 26, 8, 4, 256, 8192, true, MODEL_ACT_GELU_TANH},
        {"gemma3_text", 262208, 2304, 9216, 26, 8, 4, 256, 131072, true, MODEL_ACT_GELU_TANH},
        {"phi3", 32064, 3072, 8192, 32, 32, 0, 0, 4096, false, MODEL_ACT_SILU},
        {"olmo", 50304, 4096, 11008, 32, 32, 0, 0, 2048, false, MODEL_ACT_SILU},
        {"olmo2", 50304, 4096, 11008, 32, 32, 0, 0, 2048, false, MODEL_ACT_SILU},
        {"granite", 32000, 4096, 11008, 32, 32, 0, 0, 2048, false, MODEL_ACT_SILU},
        {"internlm2", 103168, 4096, 11008, 32, 32, 0, 0, 2048, false, MODEL_ACT_SILU},
        {"cohere", 256000, 8192, 22528, 40, 64, 0, 0, 8192, true, MODEL_ACT_SILU},
        {"starcoder2", 49152, 3072, 12288, 30, 24, 2, 0, 4096, true, MODEL_ACT_GELU_TANH},
        {"deepseek_v2", 102400, 5120, 12288, 60, 128, 128, 0, 163840, false, MODEL_ACT_SILU},
        {"deepseek_v3", 129280, 7168, 18432, 61, 128, 128, 0, 163840, false, MODEL_ACT_SILU},
        {"gpt_oss", 201088, 2880, 2880, 24, 64, 8, 64, 131072, false, MODEL_ACT_SILU},
        /* Glm4MoeConfig (GLM-4.5's defaults) and StableLmConfig */
        {"glm4_moe", 151552, 4096, 10944, 46, 96, 8, 128, 131072, false, MODEL_ACT_SILU},
        {"stablelm", 50304, 2560, 6912, 32, 32, 32, 0, 4096, false, MODEL_ACT_SILU},
        /* Qwen3NextConfig's defaults (the 80B-A3B model); Qwen3.5's text
         * configs are read with the same when a key is missing. */
        {"qwen3_next", 151936, 2048, 5120, 48, 16, 2, 256, 32768, false, MODEL_ACT_SILU},
        {"qwen3_5_text", 151936, 2048, 5120, 48, 16, 2, 256, 32768, false, MODEL_ACT_SILU},
        {"qwen3_5_moe_text", 151936, 2048, 5120, 48, 16, 2, 256, 32768, false, MODEL_ACT_SILU},
};

/* Families whose blocks mix Gated DeltaNet and full attention. */
static bool hybrid_linear(const char *type)
{
        return !strcmp(type, "qwen3_next") || !strcmp(type, "qwen3_5_text") ||
               !strcmp(type, "qwen3_5_moe_text");
}

static const struct decoder_defaults *decoder_family(const char *type)
{
        for (size_t i = 0; i < sizeof(decoder_families) / sizeof(decoder_families[0]); i++)
                if (!strcmp(decoder_families[i].type, type))
                        return &decoder_families[i];
        return NULL;
}

static bool is(const char *type, const char *t)
{
        return strcmp(type, t) == 0;
}

/* The first of keys the config has (NULL if none). */
static const char *first_key(json_t *cfg, const char *const *keys)
{
        for (int i = 0; keys[i]; i++)
                if (json_object_get(cfg, keys[i]))
                        return keys[i];
        return NULL;
}

/* An MoE config of a family the importer does not know by name: the expert
 * counts under the keys current families use (num_local_experts: Mixtral,
 * GPT-OSS, GraniteMoE; num_experts: Qwen-MoE, OLMoE; n_routed_experts:
 * DeepSeek) and moe_intermediate_size when the experts are narrower than
 * intermediate_size. */
static int import_generic_moe(struct imp *im, struct model_arch *a, const char *type)
{
        static const char *const count_keys[] = {"num_local_experts", "num_experts",
                                                 "n_routed_experts", NULL};
        static const char *const active_keys[] = {"num_experts_per_tok", "experts_per_token",
                                                  "moe_topk", NULL};
        const char *ck = first_key(im->cfg, count_keys), *ak = first_key(im->cfg, active_keys);
        uint32_t moe_ffn = 0;
        if (!ck || !ak)
                return 0;
        if (get_u32(im, ck, 1, 4096, &a->experts) || get_u32(im, ak, 1, 4096, &a->active_experts))
                return -1;
        if (a->active_experts > a->experts)
                return imp_fail(im, ak, "consistency", "must not exceed the number of experts");
        if (json_object_get(im->cfg, "moe_intermediate_size")) {
                if (get_u32(im, "moe_intermediate_size", 0, 1048576, &moe_ffn))
                        return -1;
                if (moe_ffn)
                        a->ffn = moe_ffn;
        }
        /* Llama 4 (Llama4TextMoe): every token also goes through one shared
         * expert of intermediate_size beside the routed ones. */
        if (is(type, "llama4_text"))
                a->shared_expert_ffn = a->ffn;
        return 0;
}

/*
 * Llama 4's block pattern (transformers modeling_llama4.py,
 * Llama4TextConfig):
 * - interleave_moe_layer_step k: every k-th block is an MoE block, the others
 *   a dense Llama4TextMLP of intermediate_size_mlp (Maverick: k = 2, 16384);
 *   where they sit does not change counts, so they are the dense blocks;
 * - attention_chunk_size: blocks with rotary positions attend inside aligned
 *   chunks of that many tokens, so their cache holds at most one chunk; the
 *   NoPE blocks (no_rope_layers[i] == 0, every no_rope_layer_interval-th, 4
 *   by default; layer_types "full_attention" in current configs) attend to
 *   the whole context.  A chunk bounds the cache as a window of its length
 *   does, and the engine reads it as one.
 */
static int import_llama4(struct imp *im, struct model_arch *a)
{
        uint32_t step = 1, chunk = 0, interval = 4;
        if (get_u32(im, "interleave_moe_layer_step", 1, 1024, &step) ||
            get_u32(im, "attention_chunk_size", 0, 16777216, &chunk) ||
            get_u32(im, "no_rope_layer_interval", 4, 1024, &interval))
                return -1;
        if (step > 1 && a->experts > 1) {
                a->dense_layers = a->layers - a->layers / step;
                if (get_u32(im, "intermediate_size_mlp", a->ffn * 2, 1048576, &a->dense_ffn))
                        return -1;
        }
        if (!chunk || chunk >= a->max_positions)
                return 0;
        json_t *nr = json_object_get(im->cfg, "no_rope_layers");
        json_t *lt = json_object_get(im->cfg, "layer_types");
        size_t i, period = 0, globals = 0;
        json_t *x;
        if (json_is_array(lt) && json_array_size(lt) > 0) {
                json_array_foreach(lt, i, x)
                {
                        const char *t = json_string_value(x);
                        if (t && !strcmp(t, "full_attention") && !globals++)
                                period = i + 1;
                }
        } else if (json_is_array(nr) && json_array_size(nr) > 0) {
                json_array_foreach(nr, i, x)
                {
                        if (json_is_integer(x) && json_integer_value(x) == 0 && !globals++)
                                period = i + 1;
                }
        } else {
                period = interval;
        }
        a->sliding_window = chunk;
        a->global_every = period > 1 ? (uint32_t)period : 0;
        return 0;
}

/* Routed experts, shared experts and leading dense blocks. */
static int import_moe(struct imp *im, struct model_arch *a, const char *type)
{
        uint32_t moe_ffn = 0, shared = 0, n_shared = 0;
        if (is(type, "mixtral"))
                return get_u32(im, "num_local_experts", 8, 1024, &a->experts) ||
                       get_u32(im, "num_experts_per_tok", 2, 1024, &a->active_experts);
        if (is(type, "gpt_oss")) {
                /* GptOssMLP: num_local_experts experts of intermediate_size
                 * with biases (gate_up_proj_bias, down_proj_bias), a router
                 * with a bias; experts_per_token in OpenAI's own configs. */
                const char *ak = json_object_get(im->cfg, "num_experts_per_tok")
                                         ? "num_experts_per_tok"
                                         : "experts_per_token";
                if (get_u32(im, "num_local_experts", 32, 1024, &a->experts) ||
                    get_u32(im, ak, 4, 1024, &a->active_experts))
                        return -1;
                a->qk_norm_params += a->experts; /* router bias */
                return 0;
        }
        if (is(type, "qwen3_5_text"))
                return 0; /* dense */
        if (is(type, "qwen2_moe") || is(type, "qwen3_moe") || is(type, "qwen3_next") ||
            is(type, "qwen3_5_moe_text")) {
                /* Qwen2MoeSparseMoeBlock: experts of moe_intermediate_size, a
                 * shared expert of shared_expert_intermediate_size behind a
                 * hidden x 1 gate; Qwen3-MoE has no shared expert; Qwen3-Next
                 * and Qwen3.5-MoE have Qwen2-MoE's (Qwen3NextSparseMoeBlock:
                 * 512 experts of 512, 10 per token, a shared expert of 512). */
                bool q2 = !is(type, "qwen3_moe");
                bool next = is(type, "qwen3_next") || is(type, "qwen3_5_moe_text");
                if (get_u32(im, "num_experts",
                            next ? 512
                            : q2 ? 60
                                 : 128,
                            1024, &a->experts) ||
                    get_u32(im, "num_experts_per_tok",
                            next ? 10
                            : q2 ? 4
                                 : 8,
                            1024, &a->active_experts) ||
                    get_u32(im, "moe_intermediate_size",
                            next ? 512
                            : q2 ? 1408
                                 : 768,
                            1048576, &moe_ffn))
                        return -1;
                if (q2 && get_u32(im, "shared_expert_intermediate_size", next ? 512 : 5632, 1048576,
                                  &shared))
                        return -1;
                a->ffn = moe_ffn;
                a->shared_expert_ffn = shared;
                a->shared_expert_gate = q2 && shared > 0;
                return 0;
        }
        if (is(type, "deepseek_v2") || is(type, "deepseek_v3") || is(type, "glm4_moe")) {
                /* DeepseekV3MoE (and Glm4MoeMoE, its copy): n_routed_experts of
                 * moe_intermediate_size, n_shared_experts fused into one MLP, the first
                 * first_k_dense_replace blocks dense (intermediate_size). */
                bool glm = is(type, "glm4_moe"), v3 = is(type, "deepseek_v3") || glm;
                uint32_t dense_ffn = a->ffn;
                if (get_u32(im, "n_routed_experts",
                            glm  ? 128
                            : v3 ? 256
                                 : 160,
                            1024, &a->experts) ||
                    get_u32(im, "num_experts_per_tok", v3 ? 8 : 6, 1024, &a->active_experts) ||
                    get_u32(im, "moe_intermediate_size",
                            glm  ? 1408
                            : v3 ? 2048
                                 : 1536,
                            1048576, &moe_ffn) ||
                    get_u32(im, "n_shared_experts", v3 ? 1 : 2, 64, &n_shared) ||
                    get_u32(im, "first_k_dense_replace",
                            glm  ? 1
                            : v3 ? 3
                                 : 1,
                            1024, &a->dense_layers))
                        return -1;
                if (a->dense_layers > a->layers)
                        return imp_fail(im, "first_k_dense_replace", "consistency",
                                        "must not exceed the layers");
                a->ffn = moe_ffn;
                a->shared_expert_ffn = n_shared * moe_ffn;
                a->dense_ffn = dense_ffn;
                /* V3's router also has one score-correction bias per expert. */
                if (v3)
                        a->qk_norm_params += a->experts;
                return 0;
        }
        return 0;
}

/* Multi-head latent attention (DeepSeek-V2/V3 configs). */
static int import_mla(struct imp *im, struct model_arch *a)
{
        uint32_t nope;
        /* q_lora_rank: null (DeepSeek-V2-Lite) projects q directly; absent
         * takes DeepseekV2Config / DeepseekV3Config's 1536. */
        json_t *qr = json_object_get(im->cfg, "q_lora_rank");
        if (qr && json_is_null(qr))
                a->q_lora_rank = 0;
        else if (get_u32(im, "q_lora_rank", 1536, 131072, &a->q_lora_rank))
                return -1;
        if (get_u32(im, "kv_lora_rank", 512, 131072, &a->kv_lora_rank) ||
            get_u32(im, "qk_nope_head_dim", 128, 4096, &nope) ||
            get_u32(im, "qk_rope_head_dim", 64, 4096, &a->qk_rope_dim) ||
            get_u32(im, "v_head_dim", 128, 4096, &a->v_head_dim))
                return -1;
        if (a->kv_lora_rank == 0)
                return imp_fail(im, "kv_lora_rank", "range", "must be a positive integer");
        a->head_dim = nope + a->qk_rope_dim;
        a->kv_heads = a->heads;
        return 0;
}

/*
 * Gated DeltaNet blocks (Qwen3-Next, Qwen3.5): layer_types marks each block
 * "linear_attention" or "full_attention" (else every full_attention_interval-th
 * block, 4 by default, is full attention); the linear blocks' widths come
 * from linear_num_key_heads, linear_key_head_dim, linear_num_value_heads,
 * linear_value_head_dim and linear_conv_kernel_dim.  The full-attention
 * blocks gate their output from a doubled q_proj (attn_output_gate) and
 * norm q and k per head (modeling_qwen3_next.py Qwen3NextAttention).
 */
static int import_linear_attention(struct imp *im, struct model_arch *a)
{
        uint32_t interval = 4;
        bool gate = true;
        json_t *lt = json_object_get(im->cfg, "layer_types");
        if (get_u32(im, "linear_num_key_heads", 16, 4096, &a->lin_k_heads) ||
            get_u32(im, "linear_key_head_dim", 128, 4096, &a->lin_k_dim) ||
            get_u32(im, "linear_num_value_heads", 32, 4096, &a->lin_v_heads) ||
            get_u32(im, "linear_value_head_dim", 128, 4096, &a->lin_v_dim) ||
            get_u32(im, "linear_conv_kernel_dim", 4, 64, &a->lin_conv_kernel) ||
            get_u32(im, "full_attention_interval", 4, 1024, &interval) ||
            get_bool(im, "attn_output_gate", true, &gate))
                return -1;
        if (interval == 0)
                return imp_fail(im, "full_attention_interval", "range",
                                "must be a positive integer");
        if (json_is_array(lt) && json_array_size(lt) > 0) {
                size_t i;
                json_t *x;
                a->linear_layers = 0;
                json_array_foreach(lt, i, x)
                {
                        if (i < a->layers && json_is_string(x) &&
                            !strcmp(json_string_value(x), "linear_attention"))
                                a->linear_layers++;
                }
        } else {
                a->linear_layers = a->layers - a->layers / interval;
        }
        a->attn_output_gate = gate;
        a->qk_norm_params = 2 * a->head_dim;
        return 0;
}

/* Sliding-window attention: Mistral v0.1, Phi-3, Starcoder2 (every layer),
 * Qwen2/3 with use_sliding_window, Gemma 2 (every other layer local:
 * modeling_gemma2.py is_sliding = not layer_idx % 2), Gemma 3
 * (sliding_window_pattern: every 6th layer global). */
static int import_window(struct imp *im, struct model_arch *a, const char *type)
{
        json_t *w = json_object_get(im->cfg, "sliding_window");
        bool use = true;
        uint32_t pattern = 0;
        if (hybrid_linear(type))
                return 0; /* layer_types there names linear blocks, not windows */
        if (is(type, "qwen2") || is(type, "qwen3") || is(type, "qwen2_moe") ||
            is(type, "qwen3_moe")) {
                if (get_bool(im, "use_sliding_window", false, &use))
                        return -1;
        }
        if (!w || json_is_null(w) || !use)
                return 0;
        if (get_u32(im, "sliding_window", 0, 16777216, &a->sliding_window))
                return -1;
        if (a->sliding_window >= a->max_positions)
                a->sliding_window = 0; /* a window as long as the context is no window */
        json_t *lt = json_object_get(im->cfg, "layer_types");
        if (json_is_array(lt) && json_array_size(lt) > 0) {
                /* Current configs list each block's attention ("sliding_attention"
                 * / "full_attention": GPT-OSS, Gemma 3, Qwen3-Next): a full block
                 * every n-th is the window pattern; all full is no window. */
                size_t i, period = 0;
                bool regular = true, any_full = false, all_full = true;
                json_t *x;
                json_array_foreach(lt, i, x)
                {
                        const char *t = json_string_value(x);
                        bool full = t && !strcmp(t, "full_attention");
                        if (full && !any_full)
                                period = i + 1;
                        any_full |= full;
                        all_full &= full;
                        if (period && full != ((i + 1) % period == 0))
                                regular = false;
                }
                if (all_full) {
                        a->sliding_window = 0;
                        return 0;
                }
                if (!any_full || (regular && period > 1)) {
                        a->global_every = any_full ? (uint32_t)period : 0;
                        return 0;
                }
        }
        if (is(type, "gemma2"))
                a->global_every = 2;
        else if (is(type, "gemma3_text")) {
                if (get_u32(im, "sliding_window_pattern", 6, 1024, &pattern))
                        return -1;
                a->global_every = pattern;
        }
        return 0;
}

/* LLaMA-shaped decoders: pre-norm, rotary, gated MLP (Starcoder2: plain
 * GELU MLP with biases), family differences in norms, biases, windows,
 * experts and attention as each modeling_*.py builds them. */
static int import_llama_like(struct imp *im, struct model_arch *a, const char *type)
{
        const struct decoder_defaults *df = decoder_family(type);
        bool tied = df->tied, attn_bias = false, mlp_bias = false, bias = false;
        uint32_t kv;
        const char *act_key =
                json_object_get(im->cfg, "hidden_activation") ? "hidden_activation" : "hidden_act";

        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", df->vocab, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", df->hidden, 131072, &a->hidden) ||
            get_u32(im, "intermediate_size", df->ffn, 1048576, &a->ffn) ||
            get_u32(im, "num_hidden_layers", df->layers, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", df->heads, 4096, &a->heads) ||
            get_u32(im, "num_key_value_heads", df->kv_heads, 4096, &kv) ||
            get_u32(im, "head_dim", df->head_dim, 4096, &a->head_dim) ||
            get_u32(im, "max_position_embeddings", df->max_positions, 16777216,
                    &a->max_positions) ||
            get_bool(im, "tie_word_embeddings", df->tied, &tied) ||
            get_bool(im, "attention_bias", false, &attn_bias) ||
            get_bool(im, "mlp_bias", false, &mlp_bias) ||
            activation(im, act_key, df->act, &a->activation))
                return -1;
        /* LlamaConfig reads a missing (None) num_key_value_heads as
         * num_attention_heads; 0 builds no key/value heads and fails. */
        if (kv == 0 && json_is_integer(json_object_get(im->cfg, "num_key_value_heads")))
                return imp_fail(im, "num_key_value_heads", "range", "must be a positive integer");
        a->kv_heads = kv ? kv : a->heads;
        a->tied_embeddings = tied;
        a->gated_mlp = true;
        a->norm = MODEL_NORM_RMSNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->position = MODEL_POS_ROTARY;
        a->qkv_bias_only = is(type, "qwen2") || is(type, "qwen2_moe");
        a->attn_bias = attn_bias;
        a->mlp_bias = mlp_bias;

        if (is(type, "starcoder2")) {
                /* Starcoder2: LayerNorm, biases on every linear (use_bias),
                 * c_fc / c_proj MLP without a gate. */
                if (get_bool(im, "use_bias", true, &bias))
                        return -1;
                a->gated_mlp = false;
                a->norm = MODEL_NORM_LAYERNORM;
                a->attn_bias = a->mlp_bias = bias;
        } else if (is(type, "internlm2")) {
                if (get_bool(im, "bias", true, &bias))
                        return -1;
                a->attn_bias = bias;
        } else if (is(type, "cohere")) {
                /* CohereLayerNorm has no bias; one norm feeds attention and
                 * MLP in parallel; optional per-head q/k norms. */
                bool qk = false;
                if (get_bool(im, "use_qk_norm", false, &qk))
                        return -1;
                a->norm = MODEL_NORM_LAYERNORM_NOBIAS;
                a->block_norms = 1;
        } else if (is(type, "gemma2") || is(type, "gemma3_text")) {
                a->block_norms = 4; /* input, post-attention, pre- and post-feedforward */
                /* Gemma2Config defaults the caps to 30 (logits) and 50
                 * (attention scores); Gemma3TextConfig to none. */
                bool g2 = is(type, "gemma2");
                if (get_softcap(im, "final_logit_softcapping", g2 ? 30.0 : 0, &a->final_softcap) ||
                    get_softcap(im, "attn_logit_softcapping", g2 ? 50.0 : 0, &a->attn_softcap))
                        return -1;
        } else if (is(type, "olmo")) {
                /* OlmoLayerNorm: F.layer_norm with no weight or bias */
                a->norm = MODEL_NORM_LAYERNORM_NOAFFINE;
        } else if (is(type, "olmo2")) {
                a->block_norms = 2; /* post-attention and post-feedforward (no pre-norms) */
        } else if (is(type, "glm4_moe")) {
                /* Glm4MoeAttention: attention_bias puts biases on q, k and v,
                 * not on o_proj; use_qk_norm adds RMSNorms over head_dim. */
                a->qkv_bias_only = attn_bias;
                a->attn_bias = false;
        } else if (is(type, "stablelm")) {
                /* StableLmDecoderLayer: LayerNorm with bias, use_qkv_bias on
                 * q, k, v only; use_parallel_residual shares one norm. */
                bool qkv = false, parallel = false;
                if (get_bool(im, "use_qkv_bias", false, &qkv) ||
                    get_bool(im, "use_parallel_residual", false, &parallel))
                        return -1;
                a->norm = MODEL_NORM_LAYERNORM;
                a->qkv_bias_only = qkv;
                a->block_norms = parallel ? 1 : 0;
        } else if (is(type, "gpt_oss")) {
                /* GptOssAttention: biases on q, k, v, o and one learned sink
                 * logit per head; the experts carry biases. */
                a->mlp_bias = true;
                a->qk_norm_params += a->heads;
        }
        if (check_layer_types(im, a->layers))
                return -1;
        if (a->heads == 0)
                return imp_fail(im, "num_attention_heads", "range", "must be a positive integer");
        if (a->kv_heads > a->heads || a->heads % a->kv_heads)
                return imp_fail(im, "num_key_value_heads", "consistency",
                                "must divide num_attention_heads");
        if (is(type, "deepseek_v2") || is(type, "deepseek_v3")) {
                if (import_mla(im, a))
                        return -1;
        } else if (heads_and_dim(im, a, "num_attention_heads")) {
                return -1;
        }
        /* q/k norms: RMSNorm over head_dim (Qwen3, Gemma 3), over the whole
         * q and k projections (OLMo 2). */
        if (is(type, "qwen3") || is(type, "qwen3_moe") || is(type, "gemma3_text"))
                a->qk_norm_params = 2 * a->head_dim;
        else if (is(type, "olmo2"))
                a->qk_norm_params = (a->heads + a->kv_heads) * a->head_dim;
        if (is(type, "glm4_moe") && json_is_true(json_object_get(im->cfg, "use_qk_norm")))
                a->qk_norm_params = 2 * a->head_dim;
        if (is(type, "cohere") && json_is_true(json_object_get(im->cfg, "use_qk_norm")))
                /* CohereLayerNorm over (heads, head_dim) for q and k */
                a->qk_norm_params = (a->heads + a->kv_heads) * a->head_dim;
        if (import_moe(im, a, type) || import_window(im, a, type))
                return -1;
        if (hybrid_linear(type) && import_linear_attention(im, a))
                return -1;
        return 0;
}

/* GPT-NeoX (Pythia): LayerNorm, biases everywhere, untied embed_out. */
static int import_gpt_neox(struct imp *im, struct model_arch *a)
{
        bool tied = false, bias = true;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 50432, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 6144, 131072, &a->hidden) ||
            get_u32(im, "intermediate_size", 24576, 1048576, &a->ffn) ||
            get_u32(im, "num_hidden_layers", 44, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", 64, 4096, &a->heads) ||
            get_u32(im, "max_position_embeddings", 2048, 16777216, &a->max_positions) ||
            get_bool(im, "tie_word_embeddings", false, &tied) ||
            get_bool(im, "attention_bias", true, &bias) ||
            activation(im, "hidden_act", MODEL_ACT_GELU, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->pre_norm = a->final_norm = true;
        a->attn_bias = bias;
        a->mlp_bias = true;
        a->position = MODEL_POS_ROTARY;
        return 0;
}

/* GPT-J: one ln_1 per block (attention and MLP in parallel), no attention
 * biases, MLP biases, an untied lm_head with a bias. */
static int import_gptj(struct imp *im, struct model_arch *a)
{
        uint32_t inner;
        bool tied = false;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 50400, 16777216, &a->vocab) ||
            get_u32(im, "n_positions", 2048, 16777216, &a->max_positions) ||
            get_u32(im, "n_embd", 4096, 131072, &a->hidden) ||
            get_u32(im, "n_layer", 28, 1024, &a->layers) ||
            get_u32(im, "n_head", 16, 4096, &a->heads) ||
            get_u32(im, "n_inner", 0, 1048576, &inner) ||
            get_bool(im, "tie_word_embeddings", false, &tied) ||
            activation(im, "activation_function", MODEL_ACT_GELU_NEW, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "n_head"))
                return -1;
        a->ffn = inner ? inner : 4 * a->hidden;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->block_norms = 1;
        a->pre_norm = a->final_norm = true;
        a->mlp_bias = true;
        a->lm_head_bias = true;
        a->position = MODEL_POS_ROTARY;
        return 0;
}

/* Falcon: multi-query attention (7B) or grouped KV heads with
 * new_decoder_architecture (40B, 180B: two norms per block); parallel
 * attention and MLP under one norm otherwise; no biases by default.
 *
 * The first releases of falcon-40b and falcon-7b ran on their repositories'
 * own code (configuration_RW.py, modelling_RW.py) with model_type
 * "RefinedWeb" and "RefinedWebModel" and the sizes spelled n_layer, n_head
 * and n_head_kv.  RefinedWeb's DecoderLayer is the new decoder architecture
 * (ln_attn and ln_mlp, a fused query_key_value of (2 x n_head_kv + n_head)
 * x head_dim outputs); RefinedWebModel's is multi-query under one
 * input_layernorm (tiiuae/falcon-40b and falcon-7b, modelling_RW.py as first
 * published, e.g. the copy in github.com/Decentralised-AI/falcon-40b at
 * commit 56dde4bf2921ba5363c1f3952e9b2041ccb45357). */
static int import_falcon(struct imp *im, struct model_arch *a, const char *type)
{
        const bool rw = is(type, "RefinedWeb"), rw_any = rw || is(type, "RefinedWebModel");
        const char *layers_key = rw_any ? "n_layer" : "num_hidden_layers";
        const char *heads_key = rw_any ? "n_head" : "num_attention_heads";
        const char *kv_key = rw_any ? "n_head_kv" : "num_kv_heads";
        bool tied = true, mq = true, newarch = false, parallel = true, bias = false, alibi = false;
        uint32_t kv, ffn;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 65024, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 4544, 131072, &a->hidden) ||
            get_u32(im, layers_key, 32, 1024, &a->layers) ||
            get_u32(im, heads_key, 71, 4096, &a->heads) || get_u32(im, kv_key, 0, 4096, &kv) ||
            get_u32(im, "ffn_hidden_size", 0, 1048576, &ffn) ||
            get_u32(im, "max_position_embeddings", 2048, 16777216, &a->max_positions) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_bool(im, "multi_query", true, &mq) ||
            get_bool(im, "new_decoder_architecture", rw, &newarch) ||
            get_bool(im, "parallel_attn", true, &parallel) || get_bool(im, "bias", false, &bias) ||
            get_bool(im, "alibi", false, &alibi))
                return -1;
        if (heads_and_dim(im, a, heads_key))
                return -1;
        a->kv_heads = newarch ? (kv ? kv : a->heads) : (mq ? 1 : a->heads);
        if (a->kv_heads > a->heads || a->heads % a->kv_heads)
                return imp_fail(im, kv_key, "consistency",
                                rw_any ? "must divide n_head" : "must divide num_attention_heads");
        a->ffn = ffn ? ffn : 4 * a->hidden;
        a->activation = MODEL_ACT_GELU;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->block_norms = newarch ? 2 : (parallel ? 1 : 2);
        a->pre_norm = a->final_norm = true;
        a->attn_bias = a->mlp_bias = bias;
        a->position = alibi ? MODEL_POS_ALIBI : MODEL_POS_ROTARY;
        return 0;
}

/* BLOOM: ALiBi, a LayerNorm on the word embeddings, biases, 4h GELU MLP. */
static int import_bloom(struct imp *im, struct model_arch *a)
{
        bool tied = true;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 250880, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 64, 131072, &a->hidden) ||
            get_u32(im, "n_layer", 2, 1024, &a->layers) ||
            get_u32(im, "n_head", 8, 4096, &a->heads) ||
            get_u32(im, "seq_length", 2048, 16777216, &a->max_positions) ||
            get_bool(im, "tie_word_embeddings", true, &tied))
                return -1;
        if (json_object_get(im->cfg, "n_embed") && !json_object_get(im->cfg, "hidden_size") &&
            get_u32(im, "n_embed", 64, 131072, &a->hidden))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "n_head"))
                return -1;
        a->ffn = 4 * a->hidden;
        /* bloom_gelu_forward runs through GeLUFunction, an autograd
         * function that keeps only its input: one kernel's worth. */
        a->activation = MODEL_ACT_GELU_TANH;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->embedding_norm = true;
        a->pre_norm = a->final_norm = true;
        a->attn_bias = a->mlp_bias = true;
        a->position = MODEL_POS_ALIBI;
        return 0;
}

/* OPT: learned positions with an offset of 2 (OPTLearnedPositionalEmbedding),
 * ReLU fc1/fc2, biases, LayerNorm before (most sizes) or after the block. */
static int import_opt(struct imp *im, struct model_arch *a)
{
        bool tied = true, before = true, bias = true;
        uint32_t proj;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 50272, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 768, 131072, &a->hidden) ||
            get_u32(im, "num_hidden_layers", 12, 1024, &a->layers) ||
            get_u32(im, "ffn_dim", 3072, 1048576, &a->ffn) ||
            get_u32(im, "num_attention_heads", 12, 4096, &a->heads) ||
            get_u32(im, "max_position_embeddings", 2048, 16777216, &a->max_positions) ||
            get_u32(im, "word_embed_proj_dim", 0, 131072, &proj) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_bool(im, "do_layer_norm_before", true, &before) ||
            get_bool(im, "enable_bias", true, &bias) ||
            activation(im, "activation_function", MODEL_ACT_RELU, &a->activation))
                return -1;
        if (proj && proj != a->hidden)
                return imp_fail(im, "word_embed_proj_dim", "unsupported",
                                "an embedding projection (OPT-350m) is not modelled; it must "
                                "equal hidden_size");
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        a->position_table = a->max_positions + 2;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->pre_norm = before;
        a->final_norm = before;
        a->attn_bias = a->mlp_bias = bias;
        a->position = MODEL_POS_LEARNED;
        return 0;
}

/* MPT: ALiBi, no biases (no_bias), LayerNorm without bias, expansion_ratio. */
static int import_mpt(struct imp *im, struct model_arch *a)
{
        uint32_t ratio;
        bool no_bias = true;
        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", 50368, 16777216, &a->vocab) ||
            get_u32(im, "d_model", 2048, 131072, &a->hidden) ||
            get_u32(im, "n_layers", 24, 1024, &a->layers) ||
            get_u32(im, "n_heads", 16, 4096, &a->heads) ||
            get_u32(im, "expansion_ratio", 4, 64, &ratio) ||
            get_u32(im, "max_seq_len", 2048, 16777216, &a->max_positions) ||
            get_bool(im, "no_bias", true, &no_bias))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "n_heads"))
                return -1;
        a->ffn = ratio * a->hidden;
        a->activation = MODEL_ACT_GELU;
        a->tied_embeddings = true;
        a->norm = no_bias ? MODEL_NORM_LAYERNORM_NOBIAS : MODEL_NORM_LAYERNORM;
        a->pre_norm = a->final_norm = true;
        a->attn_bias = a->mlp_bias = !no_bias;
        a->position = MODEL_POS_ALIBI;
        return 0;
}

static int import_t5(struct imp *im, struct model_arch *a)
{
        bool tied = true;
        json_t *ff = json_object_get(im->cfg, "feed_forward_proj");
        a->kind = MODEL_ENCODER_DECODER;
        if (get_u32(im, "vocab_size", 32128, 16777216, &a->vocab) ||
            get_u32(im, "d_model", 512, 131072, &a->hidden) ||
            get_u32(im, "d_kv", 64, 4096, &a->head_dim) ||
            get_u32(im, "d_ff", 2048, 1048576, &a->ffn) ||
            get_u32(im, "num_layers", 6, 1024, &a->layers) ||
            get_u32(im, "num_decoder_layers", 0, 1024, &a->decoder_layers) ||
            get_u32(im, "num_heads", 8, 4096, &a->heads) ||
            get_u32(im, "relative_attention_num_buckets", 32, 4096, &a->relative_buckets) ||
            get_u32(im, "n_positions", 512, 16777216, &a->max_positions) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_prob(im, "dropout_rate", 0.1, &a->dropout))
                return -1;
        if (a->decoder_layers == 0)
                a->decoder_layers = a->layers;
        a->kv_heads = a->heads;
        a->activation = MODEL_ACT_RELU;
        if (ff && !json_is_null(ff)) {
                const char *s;
                if (!json_is_string(ff))
                        return imp_fail(im, "feed_forward_proj", "type", "must be a string");
                s = json_string_value(ff);
                if (!strncmp(s, "gated-", 6)) {
                        a->gated_mlp = true;
                        s += 6;
                }
                if (!strcmp(s, "relu"))
                        a->activation = MODEL_ACT_RELU;
                else if (!strcmp(s, "gelu_new") || (!strcmp(s, "gelu") && a->gated_mlp))
                        /* T5Config: "gated-gelu" runs dense_act_fn "gelu_new" */
                        a->activation = MODEL_ACT_GELU_NEW;
                else if (!strcmp(s, "gelu"))
                        a->activation = MODEL_ACT_GELU;
                else if (!strcmp(s, "silu"))
                        a->activation = MODEL_ACT_SILU;
                else
                        return imp_fail(im, "feed_forward_proj", "enum",
                                        "unsupported (relu, gated-gelu, gated-silu)");
        }
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_RMSNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->position = MODEL_POS_RELATIVE;
        return 0;
}

/* DistilBERT: BERT blocks without token types or pooler; the MLM head
 * is vocab_transform + vocab_layer_norm + a tied projector with a bias. */
static int import_distilbert(struct imp *im, struct model_arch *a)
{
        bool sinusoidal = false;
        a->kind = MODEL_ENCODER;
        if (get_u32(im, "vocab_size", 30522, 16777216, &a->vocab) ||
            get_u32(im, "dim", 768, 131072, &a->hidden) ||
            get_u32(im, "n_layers", 6, 1024, &a->layers) ||
            get_u32(im, "n_heads", 12, 4096, &a->heads) ||
            get_u32(im, "hidden_dim", 3072, 1048576, &a->ffn) ||
            get_u32(im, "max_position_embeddings", 512, 16777216, &a->max_positions) ||
            get_bool(im, "sinusoidal_pos_embds", false, &sinusoidal) ||
            get_prob(im, "dropout", 0.1, &a->dropout) ||
            activation(im, "activation", MODEL_ACT_GELU, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "n_heads"))
                return -1;
        a->tied_embeddings = true;
        a->norm = MODEL_NORM_LAYERNORM;
        a->embedding_norm = true;
        a->attn_bias = a->mlp_bias = true;
        /* sinusoidal tables are a buffer of the same shape, not trained */
        a->position = MODEL_POS_LEARNED;
        a->position_table = sinusoidal ? 0 : a->max_positions;
        a->lm_head_transform = true;
        a->lm_head_bias = true;
        return 0;
}

/* DeBERTa-v2/v3: relative-position embeddings (2 x position_buckets rows,
 * or 2 x max_relative_positions) with a LayerNorm in the encoder, absolute
 * positions only with position_biased_input; counted as a learned table of
 * that many rows. */
static int import_deberta(struct imp *im, struct model_arch *a)
{
        bool biased = true, relative = false;
        uint32_t pos, buckets, maxrel_u;
        json_t *mr = json_object_get(im->cfg, "max_relative_positions");
        a->kind = MODEL_ENCODER;
        if (get_u32(im, "vocab_size", 128100, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 1536, 131072, &a->hidden) ||
            get_u32(im, "num_hidden_layers", 24, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", 24, 4096, &a->heads) ||
            get_u32(im, "intermediate_size", 6144, 1048576, &a->ffn) ||
            get_u32(im, "max_position_embeddings", 512, 16777216, &pos) ||
            get_u32(im, "type_vocab_size", 0, 1024, &a->type_vocab) ||
            get_u32(im, "position_buckets", 0, 65536, &buckets) ||
            get_bool(im, "position_biased_input", true, &biased) ||
            get_bool(im, "relative_attention", false, &relative) ||
            get_prob(im, "hidden_dropout_prob", 0.1, &a->dropout) ||
            activation(im, "hidden_act", MODEL_ACT_GELU, &a->activation))
                return -1;
        maxrel_u = pos;
        if (mr && json_is_integer(mr) && json_integer_value(mr) > 0 &&
            json_integer_value(mr) <= 16777216)
                maxrel_u = (uint32_t)json_integer_value(mr);
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        a->max_positions = pos;
        a->position = MODEL_POS_LEARNED;
        a->position_table =
                (biased ? pos : 0) + (relative ? 2 * (buckets ? buckets : maxrel_u) : 0);
        a->tied_embeddings = true;
        a->norm = MODEL_NORM_LAYERNORM;
        a->embedding_norm = true;
        a->final_norm = relative; /* encoder.LayerNorm of the relative embeddings */
        a->attn_bias = a->mlp_bias = true;
        a->lm_head_transform = true;
        a->lm_head_bias = true;
        return 0;
}

/* ModernBERT: no biases, bias-free LayerNorms, GeGLU (Wi: h -> 2 x
 * intermediate), alternating global and local (128-token) attention, an
 * MLM head of dense + norm + a tied decoder with a bias. */
static int import_modernbert(struct imp *im, struct model_arch *a)
{
        bool tied = true, bias = false;
        uint32_t every, window;
        a->kind = MODEL_ENCODER;
        if (get_u32(im, "vocab_size", 50368, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 768, 131072, &a->hidden) ||
            get_u32(im, "intermediate_size", 1152, 1048576, &a->ffn) ||
            get_u32(im, "num_hidden_layers", 22, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", 12, 4096, &a->heads) ||
            get_u32(im, "max_position_embeddings", 8192, 16777216, &a->max_positions) ||
            get_u32(im, "global_attn_every_n_layers", 3, 1024, &every) ||
            get_u32(im, "local_attention", 128, 16777216, &window) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_bool(im, "attention_bias", false, &bias) ||
            activation(im, "hidden_activation", MODEL_ACT_GELU, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        a->gated_mlp = true;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM_NOBIAS;
        a->embedding_norm = a->pre_norm = a->final_norm = true;
        a->attn_bias = a->mlp_bias = bias;
        a->position = MODEL_POS_ROTARY;
        a->lm_head_transform = true;
        a->lm_head_bias = true;
        a->sliding_window = window;
        a->global_every = every;
        return 0;
}

/* ELECTRA: BERT blocks; a narrower embedding table is projected to the
 * hidden size.  No pooler; the discriminator's small head is left out. */
static int import_electra(struct imp *im, struct model_arch *a)
{
        uint32_t pos;
        a->kind = MODEL_ENCODER;
        if (get_u32(im, "vocab_size", 30522, 16777216, &a->vocab) ||
            get_u32(im, "embedding_size", 128, 131072, &a->embedding_dim) ||
            get_u32(im, "hidden_size", 256, 131072, &a->hidden) ||
            get_u32(im, "num_hidden_layers", 12, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", 4, 4096, &a->heads) ||
            get_u32(im, "intermediate_size", 1024, 1048576, &a->ffn) ||
            get_u32(im, "max_position_embeddings", 512, 16777216, &pos) ||
            get_u32(im, "type_vocab_size", 2, 1024, &a->type_vocab) ||
            get_prob(im, "hidden_dropout_prob", 0.1, &a->dropout) ||
            activation(im, "hidden_act", MODEL_ACT_GELU, &a->activation))
                return -1;
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        if (a->embedding_dim == a->hidden)
                a->embedding_dim = 0;
        a->max_positions = a->position_table = pos;
        a->tied_embeddings = true;
        a->norm = MODEL_NORM_LAYERNORM;
        a->embedding_norm = true;
        a->attn_bias = a->mlp_bias = true;
        a->position = MODEL_POS_LEARNED;
        return 0;
}

/* BART: post-LN encoder-decoder, a learned position table per stack (offset
 * 2) and a layernorm_embedding per stack (counted as the two final norms),
 * biases, shared tied embeddings; final_logits_bias is a buffer. */
static int import_bart(struct imp *im, struct model_arch *a)
{
        uint32_t pos, dec_ffn;
        bool tied = true;
        a->kind = MODEL_ENCODER_DECODER;
        if (get_u32(im, "vocab_size", 50265, 16777216, &a->vocab) ||
            get_u32(im, "d_model", 1024, 131072, &a->hidden) ||
            get_u32(im, "encoder_layers", 12, 1024, &a->layers) ||
            get_u32(im, "decoder_layers", 12, 1024, &a->decoder_layers) ||
            get_u32(im, "encoder_attention_heads", 16, 4096, &a->heads) ||
            get_u32(im, "encoder_ffn_dim", 4096, 1048576, &a->ffn) ||
            get_u32(im, "decoder_ffn_dim", 4096, 1048576, &dec_ffn) ||
            get_u32(im, "max_position_embeddings", 1024, 16777216, &pos) ||
            get_bool(im, "tie_word_embeddings", true, &tied) ||
            get_prob(im, "dropout", 0.1, &a->dropout) ||
            activation(im, "activation_function", MODEL_ACT_GELU, &a->activation))
                return -1;
        if (dec_ffn != a->ffn)
                return imp_fail(im, "decoder_ffn_dim", "consistency", "must equal encoder_ffn_dim");
        a->kv_heads = a->heads;
        if (heads_and_dim(im, a, "encoder_attention_heads"))
                return -1;
        a->max_positions = pos;
        a->position = MODEL_POS_LEARNED;
        a->position_table = 2 * (pos + 2);
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_LAYERNORM;
        a->final_norm = true;
        a->attn_bias = a->mlp_bias = true;
        return 0;
}

/* An unknown model_type whose config has the LLaMA keys: a generic gated
 * decoder (the engine warns that it assumed so). */
/* A config with state-space (Mamba) blocks, whatever its model_type:
 * Nemotron-H (hybrid_override_pattern), Granite 4.0 hybrids and Bamba
 * (mamba_* keys, layer_types "mamba"), Falcon-H1, Zamba. */
static const char *ssm_key(json_t *cfg)
{
        static const char *const keys[] = {"mamba_d_state",
                                           "mamba_n_heads",
                                           "ssm_state_size",
                                           "hybrid_override_pattern",
                                           "mamba_d_ssm",
                                           "attn_layer_indices",
                                           NULL};
        const char *k = first_key(cfg, keys);
        json_t *lt = json_object_get(cfg, "layer_types");
        size_t i;
        json_t *x;
        if (k)
                return k;
        if (json_is_array(lt))
                json_array_foreach(lt, i, x)
                {
                        const char *t = json_string_value(x);
                        if (t && strstr(t, "mamba"))
                                return "layer_types";
                }
        return NULL;
}

static bool llama_shaped(json_t *cfg)
{
        static const char *const keys[] = {"hidden_size",         "num_hidden_layers",
                                           "num_attention_heads", "intermediate_size",
                                           "vocab_size",          NULL};
        for (int i = 0; keys[i]; i++)
                if (!json_is_integer(json_object_get(cfg, keys[i])))
                        return false;
        return true;
}

/*
 * The vision tower of a vision-language wrapper (vision.h), carried in
 * extra_parameters; and Mllama's cross-attention blocks (MllamaCrossAttention
 * DecoderLayer): per block a q and a k RMSNorm over head_dim and two tanh
 * gates beyond the LLaMA block, and 8 more embedding rows
 * (vocab_size + 8, modeling_mllama.py).
 */
static int import_vision(struct imp *im, json_t *config, const char *outer, struct model_arch *a)
{
        struct vision_tower vt;
        char vkey[64] = "", why[200] = "";
        int v = vision_tower_count(config, outer, a->hidden, &vt, vkey, sizeof(vkey), why,
                                   sizeof(why));
        struct imp top = *im;

        top.cfg = config;
        top.prefix = "";
        if (v < 0) {
                const char *colon = strchr(why, ':');
                return imp_fail(&top, vkey, "vision", colon ? colon + 2 : why);
        }
        if (v == 0)
                return 0;
        a->vision_parameters = vt.parameters;
        a->extra_parameters += vt.parameters;
        /* The tokens one image becomes, and the patches its tower runs, as
         * vision.c reads them from the config (Qwen2-VL: at an assumed
         * 896 x 896 image, whose tokens follow the resolution). */
        a->image_tokens = (uint32_t)(vt.tokens_per_image < 1048576 ? vt.tokens_per_image : 1048576);
        a->image_px_assumed = vt.image_px_assumed;
        a->vision = vt.shape;
        if (!a->image_tokens || !a->vision.tokens)
                return imp_fail(&top, "vision_config", "consistency",
                                "image_size and patch_size give no image tokens");
        if (is(outer, "mllama")) {
                json_t *cross = json_object_get(im->cfg, "cross_attention_layers");
                uint64_t n = json_is_array(cross) ? json_array_size(cross) : 0;
                a->extra_parameters += n * (2ull * a->head_dim + 2) + 8ull * a->hidden;
        }
        return 0;
}

int hf_config_read(json_t *config, struct model_arch *out, struct fields_error *err)
{
        struct imp im = {config, "", err, 0};
        const char *type, *outer, *field, *why;
        int rc;

        memset(err, 0, sizeof(*err));
        memset(out, 0, sizeof(*out));
        if (!json_is_object(config))
                return imp_fail(&im, "", "type",
                                "config must be a JSON object (the contents of config.json)");
        json_t *mt = json_object_get(config, "model_type");
        if (!json_is_string(mt))
                return imp_fail(&im, "model_type", "required",
                                "missing or not a string; supported: see the "
                                "importer's list in the API description");
        type = json_string_value(mt);
        outer = type;
        /* Multimodal Gemma 3 keeps the language model in text_config. */
        json_t *text = json_object_get(config, "text_config");
        if (is(type, "gemma3") && json_is_object(text)) {
                im.cfg = text;
                im.prefix = "/text_config";
                type = "gemma3_text";
        } else if (is(type, "qwen2_vl") || is(type, "qwen2_5_vl")) {
                /* Qwen2-VL / Qwen2.5-VL: a Qwen2 language model, its keys at
                 * the top level (text_config in newer configs). */
                if (json_is_object(text)) {
                        im.cfg = text;
                        im.prefix = "/text_config";
                }
                type = "qwen2";
        } else if (is(type, "kimi_k2")) {
                type = "deepseek_v3"; /* Kimi K2 runs DeepseekV3ForCausalLM */
        } else if (json_is_object(text) && !json_object_get(config, "hidden_size") &&
                   json_is_string(json_object_get(text, "model_type"))) {
                /* Other vision-language wrappers (Llama 4, Mistral 3, LLaVA,
                 * Mllama) do the same: the language model is read from
                 * text_config, the tower from vision_config (vision.h). */
                im.cfg = text;
                im.prefix = "/text_config";
                type = json_string_value(json_object_get(text, "model_type"));
                if (is(type, "mllama_text_model") || is(type, "mllama"))
                        type = "llama"; /* MllamaTextModel: LLaMA blocks + cross-attention */
        }
        if (is(type, "bert") || is(type, "roberta") || is(type, "xlm-roberta") ||
            is(type, "xlm-roberta-xl") || is(type, "camembert"))
                rc = import_encoder(&im, out, is(type, "camembert") ? "roberta" : type);
        else if (is(type, "gpt2"))
                rc = import_gpt2(&im, out);
        else if (decoder_family(type))
                rc = import_llama_like(&im, out, type);
        else if (is(type, "t5") || is(type, "mt5") || is(type, "umt5"))
                rc = import_t5(&im, out);
        else if (is(type, "gpt_neox"))
                rc = import_gpt_neox(&im, out);
        else if (is(type, "gptj"))
                rc = import_gptj(&im, out);
        else if (is(type, "falcon") || is(type, "RefinedWeb") || is(type, "RefinedWebModel")) {
                rc = import_falcon(&im, out, type);
                type = "falcon"; /* one family for the engine, LoRA targets included */
        } else if (is(type, "bloom"))
                rc = import_bloom(&im, out);
        else if (is(type, "opt"))
                rc = import_opt(&im, out);
        else if (is(type, "mpt"))
                rc = import_mpt(&im, out);
        else if (is(type, "distilbert"))
                rc = import_distilbert(&im, out);
        else if (is(type, "deberta-v2") || is(type, "deberta"))
                rc = import_deberta(&im, out);
        else if (is(type, "modernbert"))
                rc = import_modernbert(&im, out);
        else if (is(type, "electra"))
                rc = import_electra(&im, out);
        else if (is(type, "bart") || is(type, "mbart"))
                rc = import_bart(&im, out);
        else if (is(type, "mamba") || is(type, "mamba2") || is(type, "jamba") ||
                 is(type, "falcon_mamba") || is(type, "rwkv") || is(type, "recurrent_gemma"))
                return imp_fail(&im, "model_type", "unsupported",
                                "state-space and recurrent models (mamba, mamba2, jamba, rwkv) "
                                "are out of scope: their memory is a recurrent state, not a "
                                "KV cache, and is not modelled");
        else if (ssm_key(im.cfg))
                return imp_fail(&im, ssm_key(im.cfg), "unsupported",
                                "state-space (Mamba) blocks are out of scope: their memory is a "
                                "recurrent state, not a KV cache, and is not modelled (Gated "
                                "DeltaNet hybrids, qwen3_next and qwen3_5, are)");
        else if (llama_shaped(im.cfg)) {
                rc = import_llama_like(&im, out, "llama") || import_generic_moe(&im, out, type) ||
                     (is(type, "llama4_text") && import_llama4(&im, out));
                out->generic = true;
        } else {
                char why_buf[1000];
                snprintf(why_buf, sizeof(why_buf),
                         "model_type \"%.40s\" is not supported (supported: %s); a config "
                         "with integer hidden_size, num_hidden_layers, num_attention_heads, "
                         "intermediate_size and vocab_size is read as a generic decoder",
                         type, hf_config_supported);
                return imp_fail(&im, "model_type", "enum", why_buf);
        }
        if (rc)
                return -1;
        if (import_vision(&im, config, outer, out))
                return -1;
        set_name(out, config, type);
        out->defaulted = im.defaulted;
        if (model_arch_check(out, &field, &why))
                return imp_fail(&im, config_key_of(im.cfg, field), "architecture", why);
        return 0;
}

int hf_config_import_ex(json_t *config, struct model_arch *out, char *key, size_t keylen, char *err,
                        size_t errlen)
{
        struct fields_error e;

        if (hf_config_read(config, out, &e) == 0) {
                if (key && keylen)
                        key[0] = '\0';
                return 0;
        }
        if (key && keylen)
                snprintf(key, keylen, "%s", e.pointer[0] ? e.pointer + 1 : "");
        if (err && errlen)
                snprintf(err, errlen, "%s", e.detail);
        return -1;
}

int hf_config_import(json_t *config, struct model_arch *out, char *err, size_t errlen)
{
        return hf_config_import_ex(config, out, NULL, 0, err, errlen);
}
