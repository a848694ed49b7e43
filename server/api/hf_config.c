/*
 * hf_config.c - import a Hugging Face config.json (see hf_config.h).
 *
 * Defaults per family are those of the transformers configuration classes
 * (BertConfig, RobertaConfig, XLMRobertaConfig, XLMRobertaXLConfig,
 * GPT2Config, LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config,
 * T5Config); the module layout each family implies (norm placement,
 * biases, pooler, MLM head) follows the matching modeling_*.py.
 */
#include "api/hf_config.h"

#include <stdio.h>
#include <string.h>

const char hf_config_supported[] =
        "bert, roberta, xlm-roberta, xlm-roberta-xl, gpt2, llama, mistral, mixtral, qwen2, t5";

struct imp {
        json_t *cfg;
        char *key;
        size_t keylen;
        char *err;
        size_t errlen;
};

static int imp_fail(struct imp *im, const char *key, const char *why)
{
        if (im->key)
                snprintf(im->key, im->keylen, "%s", key);
        if (im->err) {
                if (key[0])
                        snprintf(im->err, im->errlen, "%s: %s", key, why);
                else
                        snprintf(im->err, im->errlen, "%s", why);
        }
        return -1;
}

/* An unsigned integer key: absent (or null) -> def; present -> 1..max. */
static int get_u32(struct imp *im, const char *key, uint32_t def, uint32_t max, uint32_t *out)
{
        json_t *v = json_object_get(im->cfg, key);
        if (!v || json_is_null(v)) {
                *out = def;
                return 0;
        }
        if (!json_is_integer(v))
                return imp_fail(im, key, "must be an integer");
        json_int_t x = json_integer_value(v);
        if (x < 0 || (uint64_t)x > max)
                return imp_fail(im, key, "out of range");
        *out = (uint32_t)x;
        return 0;
}

static int get_bool(struct imp *im, const char *key, bool def, bool *out)
{
        json_t *v = json_object_get(im->cfg, key);
        if (!v || json_is_null(v)) {
                *out = def;
                return 0;
        }
        if (!json_is_boolean(v))
                return imp_fail(im, key, "must be true or false");
        *out = json_is_true(v);
        return 0;
}

static int get_prob(struct imp *im, const char *key, double def, float *out)
{
        json_t *v = json_object_get(im->cfg, key);
        double x = def;
        if (v && !json_is_null(v)) {
                if (!json_is_number(v))
                        return imp_fail(im, key, "must be a number");
                x = json_number_value(v);
                if (!(x >= 0 && x < 1))
                        return imp_fail(im, key, "must be in [0, 1)");
        }
        *out = (float)x;
        return 0;
}

static int activation(struct imp *im, const char *key, enum model_activation def,
                      enum model_activation *out)
{
        json_t *v = json_object_get(im->cfg, key);
        const char *s;
        if (!v || json_is_null(v)) {
                *out = def;
                return 0;
        }
        if (!json_is_string(v))
                return imp_fail(im, key, "must be a string");
        s = json_string_value(v);
        if (!strcmp(s, "gelu") || !strcmp(s, "gelu_python"))
                *out = MODEL_ACT_GELU;
        else if (!strcmp(s, "gelu_new") || !strcmp(s, "gelu_pytorch_tanh") ||
                 !strcmp(s, "gelu_fast"))
                *out = MODEL_ACT_GELU_TANH;
        else if (!strcmp(s, "relu"))
                *out = MODEL_ACT_RELU;
        else if (!strcmp(s, "silu") || !strcmp(s, "swish"))
                *out = MODEL_ACT_SILU;
        else
                return imp_fail(im, key, "unsupported activation (gelu, gelu_new, relu, silu)");
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
                return imp_fail(im, heads_key, "must be a positive integer");
        if (a->head_dim == 0) {
                if (a->hidden % a->heads)
                        return imp_fail(im, heads_key, "must divide the hidden size");
                a->head_dim = a->hidden / a->heads;
        }
        return 0;
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
        a->lm_head_transform = true;
        a->lm_head_bias = true;
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
            activation(im, "activation_function", MODEL_ACT_GELU_TANH, &a->activation))
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

/* LLaMA, Mistral, Mixtral, Qwen2: pre-RMSNorm, SwiGLU, RoPE decoders. */
static int import_llama_like(struct imp *im, struct model_arch *a, const char *type)
{
        bool mistral = !strcmp(type, "mistral") || !strcmp(type, "mixtral");
        bool qwen = !strcmp(type, "qwen2");
        bool tied = false, attn_bias = false, mlp_bias = false;
        uint32_t kv;

        a->kind = MODEL_DECODER;
        if (get_u32(im, "vocab_size", qwen ? 151936 : 32000, 16777216, &a->vocab) ||
            get_u32(im, "hidden_size", 4096, 131072, &a->hidden) ||
            get_u32(im, "intermediate_size", mistral ? 14336 : (qwen ? 22016 : 11008), 1048576,
                    &a->ffn) ||
            get_u32(im, "num_hidden_layers", 32, 1024, &a->layers) ||
            get_u32(im, "num_attention_heads", 32, 4096, &a->heads) ||
            get_u32(im, "num_key_value_heads", mistral ? 8 : 0, 4096, &kv) ||
            get_u32(im, "head_dim", 0, 4096, &a->head_dim) ||
            get_u32(im, "max_position_embeddings", mistral ? 131072 : (qwen ? 32768 : 2048),
                    16777216, &a->max_positions) ||
            get_bool(im, "tie_word_embeddings", false, &tied) ||
            get_bool(im, "attention_bias", false, &attn_bias) ||
            get_bool(im, "mlp_bias", false, &mlp_bias) ||
            activation(im, "hidden_act", MODEL_ACT_SILU, &a->activation))
                return -1;
        if (!strcmp(type, "mixtral")) {
                if (get_u32(im, "num_local_experts", 8, 1024, &a->experts) ||
                    get_u32(im, "num_experts_per_tok", 2, 1024, &a->active_experts))
                        return -1;
        }
        a->kv_heads = kv ? kv : a->heads;
        if (heads_and_dim(im, a, "num_attention_heads"))
                return -1;
        if (a->kv_heads > a->heads || a->heads % a->kv_heads)
                return imp_fail(im, "num_key_value_heads", "must divide num_attention_heads");
        a->gated_mlp = true;
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_RMSNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->attn_bias = attn_bias;
        a->qkv_bias_only = qwen;
        a->mlp_bias = mlp_bias;
        a->position = MODEL_POS_ROTARY;
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
                        return imp_fail(im, "feed_forward_proj", "must be a string");
                s = json_string_value(ff);
                if (!strncmp(s, "gated-", 6)) {
                        a->gated_mlp = true;
                        s += 6;
                }
                if (!strcmp(s, "relu"))
                        a->activation = MODEL_ACT_RELU;
                else if (!strcmp(s, "gelu") || !strcmp(s, "gelu_new"))
                        a->activation = MODEL_ACT_GELU_TANH;
                else if (!strcmp(s, "silu"))
                        a->activation = MODEL_ACT_SILU;
                else
                        return imp_fail(im, "feed_forward_proj",
                                        "unsupported (relu, gated-gelu, gated-silu)");
        }
        a->tied_embeddings = tied;
        a->norm = MODEL_NORM_RMSNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->position = MODEL_POS_RELATIVE;
        return 0;
}

int hf_config_import_ex(json_t *config, struct model_arch *out, char *key, size_t keylen, char *err,
                        size_t errlen)
{
        struct imp im = {config, key, keylen, err, errlen};
        const char *type, *field, *why;
        int rc;

        if (key && keylen)
                key[0] = '\0';
        memset(out, 0, sizeof(*out));
        if (!json_is_object(config))
                return imp_fail(&im, "",
                                "config must be a JSON object (the contents of config.json)");
        json_t *mt = json_object_get(config, "model_type");
        if (!json_is_string(mt))
                return imp_fail(&im, "model_type",
                                "missing or not a string; supported: bert, roberta, "
                                "xlm-roberta, xlm-roberta-xl, gpt2, llama, mistral, mixtral, "
                                "qwen2, t5");
        type = json_string_value(mt);
        if (!strcmp(type, "bert") || !strcmp(type, "roberta") || !strcmp(type, "xlm-roberta") ||
            !strcmp(type, "xlm-roberta-xl"))
                rc = import_encoder(&im, out, type);
        else if (!strcmp(type, "gpt2"))
                rc = import_gpt2(&im, out);
        else if (!strcmp(type, "llama") || !strcmp(type, "mistral") || !strcmp(type, "mixtral") ||
                 !strcmp(type, "qwen2"))
                rc = import_llama_like(&im, out, type);
        else if (!strcmp(type, "t5"))
                rc = import_t5(&im, out);
        else {
                char why_buf[200];
                snprintf(why_buf, sizeof(why_buf),
                         "model_type \"%.40s\" is not supported; supported: %s", type,
                         hf_config_supported);
                return imp_fail(&im, "model_type", why_buf);
        }
        if (rc)
                return -1;
        set_name(out, config, type);
        if (model_arch_check(out, &field, &why))
                return imp_fail(&im, field, why);
        return 0;
}

int hf_config_import(json_t *config, struct model_arch *out, char *err, size_t errlen)
{
        return hf_config_import_ex(config, out, NULL, 0, err, errlen);
}
