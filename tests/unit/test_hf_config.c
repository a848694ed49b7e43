/*
 * test_hf_config.c - the config.json importer on one published config per
 * family (models/hf_config.c), against the family's published parameter count
 * (within 0.5 %), and the KV cache per token against hand calculations,
 * sliding windows and multi-head latent attention included.
 *
 * Each config holds the fields of the model's config.json on the Hugging
 * Face hub that the importer reads; each count names where it is stated.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "models/hf_config.h"
#include "core/model.h"

static void import(const char *text, struct model_arch *a)
{
        json_error_t je;
        char err[1000];
        json_t *cfg = json_loads(text, 0, &je);
        if (!cfg)
                fail_msg("bad test JSON: %s", je.text);
        if (hf_config_import(cfg, a, err, sizeof(err)))
                fail_msg("refused %s: %s", text, err);
        json_decref(cfg);
}

/* The checkpoint without task heads: what model cards and papers count. */
static uint64_t backbone(const struct model_arch *a)
{
        struct model_param_breakdown b;
        assert_int_equal(model_param_breakdown(a, &b), 0);
        return b.total - b.head_extra;
}

static void test_published_counts(void **state)
{
        (void)state;
        static const struct {
                const char *config;
                double published;
                const char *source;
        } rows[] = {
                {"{\"model_type\":\"qwen3\",\"vocab_size\":151936,\"hidden_size\":4096,"
                 "\"intermediate_size\":12288,\"num_hidden_layers\":36,\"num_attention_heads\":32,"
                 "\"num_key_value_heads\":8,\"head_dim\":128,\"max_position_embeddings\":40960,"
                 "\"tie_word_embeddings\":false}",
                 8.2e9, "Qwen/Qwen3-8B model card: 8.2B parameters"},
                {"{\"model_type\":\"gemma2\",\"vocab_size\":256000,\"hidden_size\":3584,"
                 "\"intermediate_size\":14336,\"num_hidden_layers\":42,\"num_attention_heads\":16,"
                 "\"num_key_value_heads\":8,\"head_dim\":256,\"sliding_window\":4096,"
                 "\"max_position_embeddings\":8192,\"hidden_activation\":\"gelu_pytorch_tanh\"}",
                 9241705984.0, "google/gemma-2-9b on the hub: 9,241,705,984 (9.24B) parameters"},
                {"{\"model_type\":\"gemma3_text\",\"vocab_size\":262144,\"hidden_size\":1152,"
                 "\"intermediate_size\":6912,\"num_hidden_layers\":26,\"num_attention_heads\":4,"
                 "\"num_key_value_heads\":1,\"head_dim\":256,\"sliding_window\":512,"
                 "\"sliding_window_pattern\":6,\"max_position_embeddings\":32768}",
                 999885952.0, "google/gemma-3-1b-pt on the hub: 999,885,952 (1.0B) parameters"},
                {"{\"model_type\":\"phi3\",\"vocab_size\":32064,\"hidden_size\":3072,"
                 "\"intermediate_size\":8192,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
                 "\"num_key_value_heads\":32,\"max_position_embeddings\":4096,"
                 "\"sliding_window\":2047,\"tie_word_embeddings\":false}",
                 3.82e9, "microsoft/Phi-3-mini-4k-instruct on the hub: 3.82B (report: 3.8B)"},
                {"{\"model_type\":\"olmo2\",\"vocab_size\":100352,\"hidden_size\":4096,"
                 "\"intermediate_size\":11008,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
                 "\"num_key_value_heads\":32,\"max_position_embeddings\":4096}",
                 7.3e9, "allenai/OLMo-2-1124-7B model card: 7B class, 7.3B on the hub"},
                {"{\"model_type\":\"olmo\",\"vocab_size\":50304,\"hidden_size\":4096,"
                 "\"intermediate_size\":11008,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
                 "\"num_key_value_heads\":32,\"max_position_embeddings\":4096,"
                 "\"tie_word_embeddings\":false}",
                 6.89e9, "allenai/OLMo-7B-0424-hf on the hub: 6.89B (norms without parameters)"},
                {"{\"model_type\":\"starcoder2\",\"vocab_size\":49152,\"hidden_size\":3072,"
                 "\"intermediate_size\":12288,\"num_hidden_layers\":30,\"num_attention_heads\":24,"
                 "\"num_key_value_heads\":2,\"max_position_embeddings\":16384,"
                 "\"sliding_window\":4096,\"use_bias\":true}",
                 3.03e9, "bigcode/starcoder2-3b on the hub: 3.03B parameters"},
                {"{\"model_type\":\"gpt_neox\",\"vocab_size\":50432,\"hidden_size\":4096,"
                 "\"intermediate_size\":16384,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
                 "\"max_position_embeddings\":2048,\"hidden_act\":\"gelu\"}",
                 6857302016.0,
                 "Pythia paper (Biderman et al. 2023), table 1: 6.9B = 6,857,302,016"},
                {"{\"model_type\":\"gptj\",\"vocab_size\":50400,\"n_embd\":4096,\"n_layer\":28,"
                 "\"n_head\":16,\"n_positions\":2048,\"rotary_dim\":64}",
                 6053381344.0, "EleutherAI/gpt-j-6b model card: 6,053,381,344 parameters"},
                {"{\"model_type\":\"falcon\",\"vocab_size\":65024,\"hidden_size\":4544,"
                 "\"num_hidden_layers\":32,\"num_attention_heads\":71,\"multi_query\":true,"
                 "\"parallel_attn\":true,\"bias\":false}",
                 6921720704.0, "tiiuae/falcon-7b on the hub: 6.92B (6,921,720,704)"},
                {"{\"model_type\":\"bloom\",\"vocab_size\":250880,\"hidden_size\":1024,"
                 "\"n_layer\":24,\"n_head\":16}",
                 559214592.0, "bigscience/bloom-560m model card: 559,214,592 parameters"},
                {"{\"model_type\":\"opt\",\"vocab_size\":50272,\"hidden_size\":2048,"
                 "\"num_hidden_layers\":24,\"ffn_dim\":8192,\"num_attention_heads\":32,"
                 "\"max_position_embeddings\":2048,\"word_embed_proj_dim\":2048}",
                 1.32e9, "facebook/opt-1.3b on the hub: 1.32B (OPT paper, table 1: 1.3B)"},
                {"{\"model_type\":\"mpt\",\"d_model\":4096,\"n_heads\":32,\"n_layers\":32,"
                 "\"expansion_ratio\":4,\"max_seq_len\":2048,\"vocab_size\":50432,"
                 "\"no_bias\":true}",
                 6.65e9, "mosaicml/mpt-7b on the hub: 6.65B (model card: 6.7B)"},
                {"{\"model_type\":\"deepseek_v3\",\"vocab_size\":129280,\"hidden_size\":7168,"
                 "\"intermediate_size\":18432,\"moe_intermediate_size\":2048,"
                 "\"num_hidden_layers\":61,\"num_attention_heads\":128,"
                 "\"num_key_value_heads\":128,\"n_shared_experts\":1,\"n_routed_experts\":256,"
                 "\"num_experts_per_tok\":8,\"first_k_dense_replace\":3,\"q_lora_rank\":1536,"
                 "\"kv_lora_rank\":512,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
                 "\"v_head_dim\":128,\"max_position_embeddings\":163840}",
                 671e9, "DeepSeek-V3 technical report: 671B total (main model, without MTP)"},
                {"{\"model_type\":\"qwen2_moe\",\"vocab_size\":151936,\"hidden_size\":2048,"
                 "\"intermediate_size\":5632,\"moe_intermediate_size\":1408,"
                 "\"shared_expert_intermediate_size\":5632,\"num_experts\":60,"
                 "\"num_experts_per_tok\":4,\"num_hidden_layers\":24,\"num_attention_heads\":16,"
                 "\"num_key_value_heads\":16}",
                 14.3e9, "Qwen/Qwen1.5-MoE-A2.7B model card: 14.3B total, 2.7B activated"},
                {"{\"model_type\":\"distilbert\",\"vocab_size\":30522,\"dim\":768,\"n_layers\":6,"
                 "\"n_heads\":12,\"hidden_dim\":3072,\"max_position_embeddings\":512}",
                 66362880.0, "DistilBERT (Sanh et al. 2019): 66M; DistilBertModel 66,362,880"},
                {"{\"model_type\":\"deberta-v2\",\"vocab_size\":128100,\"hidden_size\":768,"
                 "\"num_hidden_layers\":12,\"num_attention_heads\":12,\"intermediate_size\":3072,"
                 "\"max_position_embeddings\":512,\"relative_attention\":true,"
                 "\"position_buckets\":256,\"position_biased_input\":false,\"type_vocab_size\":0}",
                 184e6, "microsoft/deberta-v3-base model card: 86M backbone + 98M embedding"},
                {"{\"model_type\":\"modernbert\",\"vocab_size\":50368,\"hidden_size\":768,"
                 "\"intermediate_size\":1152,\"num_hidden_layers\":22,\"num_attention_heads\":12,"
                 "\"global_attn_every_n_layers\":3,\"local_attention\":128}",
                 149e6, "answerdotai/ModernBERT-base model card: 149M parameters"},
                {"{\"model_type\":\"bart\",\"vocab_size\":50265,\"d_model\":1024,"
                 "\"encoder_layers\":12,\"decoder_layers\":12,\"encoder_attention_heads\":16,"
                 "\"decoder_attention_heads\":16,\"encoder_ffn_dim\":4096,"
                 "\"decoder_ffn_dim\":4096,\"max_position_embeddings\":1024}",
                 406291456.0, "facebook/bart-large on the hub: 406,291,456 (406M)"},
                {"{\"model_type\":\"electra\",\"vocab_size\":30522,\"embedding_size\":128,"
                 "\"hidden_size\":256,\"num_hidden_layers\":12,\"num_attention_heads\":4,"
                 "\"intermediate_size\":1024}",
                 13.5e6, "google/electra-small-discriminator on the hub: 13.5M (paper: 14M)"},
        };
        /* KV elements per token of each row, by hand, in row order. */
        static const struct {
                const char *model_type;
                uint64_t kv;
                const char *why;
        } kv[] = {
                {"qwen3", 73728, "2 x 36 layers x 8 KV heads x 128"},
                {"gemma2", 172032, "2 x 42 x 8 x 256 (before the window)"},
                {"gemma3_text", 13312, "2 x 26 x 1 x 256"},
                {"phi3", 196608, "2 x 32 x 32 x 96"},
                {"olmo2", 262144, "2 x 32 x 32 x 128"},
                {"olmo", 262144, "2 x 32 x 32 x 128"},
                {"starcoder2", 15360, "2 x 30 x 2 x 128"},
                {"gpt_neox", 262144, "2 x 32 x 32 x 128"},
                {"gptj", 229376, "2 x 28 x 16 x 256"},
                {"falcon", 4096, "2 x 32 x 1 (multi-query) x 64"},
                {"bloom", 49152, "2 x 24 x 16 x 64"},
                {"opt", 98304, "2 x 24 x 32 x 64"},
                {"mpt", 262144, "2 x 32 x 32 x 128"},
                {"deepseek_v3", 35136, "61 x (512 latent + 64 rope)"},
                {"qwen2_moe", 98304, "2 x 24 x 16 x 128"},
                {"distilbert", 0, "an encoder caches nothing"},
                {"deberta-v2", 0, "an encoder caches nothing"},
                {"modernbert", 0, "an encoder caches nothing"},
                {"bart", 24576, "2 x 12 decoder layers x 16 x 64 (self-attention)"},
                {"electra", 0, "an encoder caches nothing"},
        };
        assert_int_equal(sizeof(kv) / sizeof(kv[0]), sizeof(rows) / sizeof(rows[0]));
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct model_arch a;
                import(rows[i].config, &a);
                double n = (double)backbone(&a);
                double err = fabs(n - rows[i].published) / rows[i].published;
                if (err > 0.005)
                        fail_msg("row %zu (%s): %.0f parameters, %.2f%% off %s", i, a.model_type, n,
                                 100 * err, rows[i].source);
                assert_string_equal(a.model_type, kv[i].model_type);
                if (model_kv_elements_per_token(&a) != kv[i].kv)
                        fail_msg("%s: %llu KV elements per token, expected %s = %llu", a.model_type,
                                 (unsigned long long)model_kv_elements_per_token(&a), kv[i].why,
                                 (unsigned long long)kv[i].kv);
        }
}

/* KV cache elements per token, by hand. */
static void test_kv_cache(void **state)
{
        (void)state;
        struct model_arch a;

        /* DeepSeek-V3 MLA: 61 layers x (kv_lora_rank 512 + rope 64) = 35,136
         * elements per token (DeepSeek-V2 paper eq. 10: d_c + d_h^R per
         * layer), against 2 x 61 x 128 x 128 = 1,998,848 for plain MHA. */
        import("{\"model_type\":\"deepseek_v3\",\"num_hidden_layers\":61,"
               "\"kv_lora_rank\":512,\"qk_rope_head_dim\":64,\"qk_nope_head_dim\":128}",
               &a);
        assert_int_equal(model_kv_elements_per_token(&a), 61 * (512 + 64));
        assert_true(fabs(model_kv_elements(&a, 1000) - 61.0 * 576 * 1000) < 0.5);

        /* Gemma 2 9B: 42 layers, half local (window 4096), 8 KV heads of
         * 256.  At 8192 tokens: 2 x 8 x 256 = 4096 per layer and token;
         * 21 global layers x 8192 + 21 local x 4096 tokens. */
        import("{\"model_type\":\"gemma2\",\"num_hidden_layers\":42,\"hidden_size\":3584,"
               "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":256,"
               "\"sliding_window\":4096,\"max_position_embeddings\":8192}",
               &a);
        assert_true(fabs(model_kv_elements(&a, 8192) - 4096.0 * (21 * 8192 + 21 * 4096)) < 0.5);
        assert_true(fabs(model_kv_elements(&a, 2000) - 4096.0 * 42 * 2000) < 0.5);
        /* Inverse: the cache of 8192 tokens is exactly filled at 8192. */
        assert_true(fabs(model_kv_tokens_for(&a, model_kv_elements(&a, 8192)) - 8192) < 1e-6);

        /* Gemma 3 1B: 26 layers, every 6th global (4 layers), 1 KV head of
         * 256, window 512: at 32768 tokens 512 x (4 x 32768 + 22 x 512). */
        import("{\"model_type\":\"gemma3_text\",\"num_hidden_layers\":26,\"hidden_size\":1152,"
               "\"num_attention_heads\":4,\"num_key_value_heads\":1,\"head_dim\":256,"
               "\"sliding_window\":512,\"sliding_window_pattern\":6,"
               "\"max_position_embeddings\":32768}",
               &a);
        assert_true(fabs(model_kv_elements(&a, 32768) - 512.0 * (4 * 32768 + 22 * 512)) < 0.5);

        /* Mistral 7B v0.1: every layer local at 4096: 2 x 32 x 8 x 128 x
         * 4096 elements whatever the context beyond the window. */
        import("{\"model_type\":\"mistral\",\"sliding_window\":4096,"
               "\"max_position_embeddings\":32768}",
               &a);
        assert_true(fabs(model_kv_elements(&a, 16384) - 2.0 * 32 * 8 * 128 * 4096) < 0.5);
        assert_true(isinf(model_kv_tokens_for(&a, 1e12)));

        /* Falcon-7B multi-query: 2 x 32 layers x 1 KV head x 64. */
        import("{\"model_type\":\"falcon\"}", &a);
        assert_int_equal(model_kv_elements_per_token(&a), 2 * 32 * 1 * 64);
}

/* Fields the config leaves out take the family's transformers defaults. */
static void test_defaults(void **state)
{
        (void)state;
        struct model_arch a;
        import("{\"model_type\":\"gemma\"}", &a); /* GemmaConfig(): the 7B shape */
        assert_int_equal(a.hidden, 3072);
        assert_int_equal(a.head_dim, 256);
        assert_int_equal(a.vocab, 256000);
        assert_true(a.tied_embeddings);
        assert_int_equal(a.activation, MODEL_ACT_GELU_TANH);
        /* Every key was left out: each reported key is marked. */
        assert_int_equal(a.defaulted & (1u << MODEL_KEY_HIDDEN), 1u << MODEL_KEY_HIDDEN);
        assert_int_equal(a.defaulted & (1u << MODEL_KEY_TIED), 1u << MODEL_KEY_TIED);
        import("{\"model_type\":\"llama\",\"vocab_size\":32000,\"hidden_size\":4096,"
               "\"intermediate_size\":11008,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
               "\"max_position_embeddings\":4096,\"tie_word_embeddings\":false}",
               &a);
        /* LLaMA-2's config states all but num_key_value_heads and head_dim. */
        assert_int_equal(a.defaulted, (1u << MODEL_KEY_KV_HEADS) | (1u << MODEL_KEY_HEAD_DIM));
        assert_int_equal(model_key_value(&a, MODEL_KEY_KV_HEADS), 32);
        assert_string_equal(model_key_name(MODEL_KEY_KV_HEADS), "num_key_value_heads");
        import("{\"model_type\":\"qwen3_moe\"}", &a);
        assert_int_equal(a.experts, 128);
        assert_int_equal(a.active_experts, 8);
        assert_int_equal(a.ffn, 768);
}

/* How each family's activation runs, and Gemma 2's soft caps.
 * transformers' ACT2FN: "gelu_new" and "gelu_fast" are NewGELUActivation /
 * FastGELUActivation, Python chains of element-wise ops; "gelu_pytorch_tanh"
 * is one F.gelu(approximate="tanh") kernel.  GPT2Config's default
 * activation_function is "gelu_new"; T5Config maps "gated-gelu" to
 * dense_act_fn "gelu_new".  Gemma2Config defaults final_logit_softcapping
 * to 30.0 and attn_logit_softcapping to 50.0 (null turns them off);
 * Gemma3TextConfig has none. */
static void test_activations_and_caps(void **state)
{
        (void)state;
        struct model_arch a;
        import("{\"model_type\":\"gpt2\"}", &a);
        assert_int_equal(a.activation, MODEL_ACT_GELU_NEW);
        import("{\"model_type\":\"gpt2\",\"activation_function\":\"gelu_pytorch_tanh\"}", &a);
        assert_int_equal(a.activation, MODEL_ACT_GELU_TANH);
        import("{\"model_type\":\"t5\",\"feed_forward_proj\":\"gated-gelu\"}", &a);
        assert_int_equal(a.activation, MODEL_ACT_GELU_NEW);
        import("{\"model_type\":\"t5\",\"feed_forward_proj\":\"gelu\"}", &a);
        assert_int_equal(a.activation, MODEL_ACT_GELU);
        import("{\"model_type\":\"gemma2\"}", &a);
        assert_int_equal(a.activation, MODEL_ACT_GELU_TANH);
        assert_int_equal(a.block_norms, 4);
        assert_true(a.final_softcap == 30.0f && a.attn_softcap == 50.0f);
        import("{\"model_type\":\"gemma2\",\"final_logit_softcapping\":null,"
               "\"attn_logit_softcapping\":20.0}",
               &a);
        assert_true(a.final_softcap == 0.0f && a.attn_softcap == 20.0f);
        import("{\"model_type\":\"gemma3_text\"}", &a);
        assert_true(a.final_softcap == 0.0f && a.attn_softcap == 0.0f);
        import("{\"model_type\":\"llama\"}", &a);
        assert_true(a.final_softcap == 0.0f && a.attn_softcap == 0.0f);
}

/*
 * Current MoE families.  gpt-oss-20b (openai/gpt-oss-20b config.json), per
 * block: attention 2880 x (4096 + 2 x 512) + 4096 x 2880 = 26,542,080 with
 * biases 4096 + 1024 + 2880 = 8,000 and 64 sinks; two RMSNorms 5,760; 32
 * experts of 3 x 2880 x 2880 = 24,883,200 plus biases 2 x 2880 + 2880 =
 * 8,640 each (796,538,880); a router 2880 x 32 + 32 = 92,192: 823,186,976.
 * 24 blocks + untied embeddings and head 2 x 201,088 x 2880 + the final norm
 * 2880 = 20,914,757,184 (the model card: 20.9B total, 3.6B active).  Its
 * layer_types alternate sliding (128 tokens) and full attention.
 * OLMoE-1B-7B (model_type olmoe, read as a generic decoder): 64 experts of
 * 1024 found under num_experts; the model card states 6.9B total.
 */
/* gpt-oss's 24 layer_types: sliding and full alternating (transformers
 * refuses a list whose length is not num_hidden_layers). */
#define LT2      "\"sliding_attention\",\"full_attention\""
#define LT4      LT2 "," LT2 ","
#define LT4_LAST LT2 "," LT2

static void test_current_moe_families(void **state)
{
        (void)state;
        struct model_arch a;
        import("{\"model_type\":\"gpt_oss\",\"vocab_size\":201088,\"hidden_size\":2880,"
               "\"intermediate_size\":2880,\"num_hidden_layers\":24,\"num_attention_heads\":64,"
               "\"num_key_value_heads\":8,\"head_dim\":64,\"attention_bias\":true,"
               "\"num_local_experts\":32,\"num_experts_per_tok\":4,\"sliding_window\":128,"
               "\"max_position_embeddings\":131072,\"tie_word_embeddings\":false,"
               "\"layer_types\":[" LT4 LT4 LT4 LT4 LT4 LT4_LAST "]}",
               &a);
        assert_int_equal(model_parameters(&a), 20914757184ull);
        assert_int_equal(a.experts, 32);
        assert_int_equal(a.active_experts, 4);
        assert_int_equal(a.sliding_window, 128);
        assert_int_equal(a.global_every, 2);
        import("{\"model_type\":\"olmoe\",\"vocab_size\":50304,\"hidden_size\":2048,"
               "\"intermediate_size\":1024,\"num_hidden_layers\":16,\"num_attention_heads\":16,"
               "\"num_key_value_heads\":16,\"num_experts\":64,\"num_experts_per_tok\":8,"
               "\"max_position_embeddings\":4096,\"tie_word_embeddings\":false}",
               &a);
        assert_true(a.generic && a.experts == 64 && a.active_experts == 8);
        double n = (double)model_parameters(&a);
        if (fabs(n - 6.9e9) / 6.9e9 > 0.01)
                fail_msg("olmoe: %.0f parameters against the published 6.9B", n);
        /* Vision-language wrappers: the language model in text_config is
         * read, and the vision tower from vision_config.  Mistral Small 3.1
         * (mistral3 around a mistral text model), per block: attention
         * 5120 x 6144 + 4096 x 5120 = 52,428,800, MLP 3 x 5120 x 32768 =
         * 503,316,480, norms 10,240; 40 blocks + 2 x 131072 x 5120 + 5120 =
         * 23,572,403,200 (of the card's 24B with the vision encoder). */
        import("{\"model_type\":\"mistral3\",\"text_config\":{\"model_type\":\"mistral\","
               "\"hidden_size\":5120,\"intermediate_size\":32768,\"num_hidden_layers\":40,"
               "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":128,"
               "\"vocab_size\":131072,\"max_position_embeddings\":131072},"
               "\"vision_config\":{\"hidden_size\":1024}}",
               &a);
        /* the tower is counted beside it now (models/vision.c) */
        assert_true(a.vision_parameters > 0);
        assert_int_equal(model_parameters(&a) - a.vision_parameters, 23572403200ull);
        /* Llama 4 Scout's text model: 16 routed experts and one shared
         * expert of 8192 per block: attention 5120 x 7168 + 5120 x 5120 =
         * 62,914,560, experts 16 x 3 x 5120 x 8192 = 2,013,265,920, shared
         * 125,829,120, router 5120 x 16 = 81,920, norms 10,240; 48 blocks +
         * 2 x 202048 x 5120 + 5120 = 107,769,861,120 (the card: 109B total
         * with the vision encoder, 17B active). */
        import("{\"model_type\":\"llama4\",\"text_config\":{\"model_type\":\"llama4_text\","
               "\"hidden_size\":5120,\"intermediate_size\":8192,\"num_hidden_layers\":48,"
               "\"num_attention_heads\":40,\"num_key_value_heads\":8,\"head_dim\":128,"
               "\"vocab_size\":202048,\"num_local_experts\":16,\"num_experts_per_tok\":1,"
               "\"max_position_embeddings\":10485760,\"tie_word_embeddings\":false}}",
               &a);
        assert_int_equal(model_parameters(&a), 107769861120ull);
        /* Llama 4 Maverick: 128 experts, an MoE block every second block
         * (interleave_moe_layer_step 2), the other 24 dense MLPs of
         * intermediate_size_mlp 16384.  Embeddings and head 2 x 202048 x
         * 5120 = 2,068,971,520; attention 48 x 62,914,560 = 3,019,898,880;
         * norms 48 x 10,240 + 5120 = 496,640; MoE blocks 24 x (128 x 3 x
         * 5120 x 8192 + 3 x 5120 x 8192 shared + 5120 x 128 router) = 24 x
         * 16,232,611,840 = 389,582,684,160; dense blocks 24 x 3 x 5120 x
         * 16384 = 6,039,797,760; in all 400,711,848,960 (the card: 400B
         * total, 17B active). */
        import("{\"model_type\":\"llama4\",\"text_config\":{\"model_type\":\"llama4_text\","
               "\"hidden_size\":5120,\"intermediate_size\":8192,\"intermediate_size_mlp\":16384,"
               "\"num_hidden_layers\":48,\"num_attention_heads\":40,\"num_key_value_heads\":8,"
               "\"head_dim\":128,\"vocab_size\":202048,\"num_local_experts\":128,"
               "\"num_experts_per_tok\":1,\"interleave_moe_layer_step\":2,"
               "\"attention_chunk_size\":8192,\"max_position_embeddings\":1048576,"
               "\"tie_word_embeddings\":false}}",
               &a);
        assert_int_equal(model_parameters(&a), 400711848960ull);
        /* Chunked attention: the rotary blocks attend inside 8192-token
         * chunks, every 4th block (NoPE, no_rope_layer_interval 4) to the
         * whole context.  At 100,000 tokens the cache holds, per layer and
         * token, 2 x 8 x 128 = 2048 elements: 12 global blocks x 100,000 +
         * 36 chunked x 8192 tokens. */
        assert_int_equal(a.sliding_window, 8192);
        assert_int_equal(a.global_every, 4);
        assert_true(fabs(model_kv_elements(&a, 100000) - 2048.0 * (12 * 100000 + 36 * 8192)) < 0.5);
}

/*
 * Qwen3-Next-80B-A3B: 48 blocks, every 4th full attention, the other 36
 * Gated DeltaNet (modeling_qwen3_next.py), each with 512 experts of 512.
 *   full attention: q_proj 2048 x (16 x 256 x 2, with the output gate) =
 *     16,777,216, k and v 2048 x 512 each, o_proj 4096 x 2048 = 8,388,608,
 *     q/k norms 2 x 256: 27,263,488
 *   Gated DeltaNet: in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824,
 *     in_proj_ba 2048 x 64 = 131,072, out_proj 4096 x 2048 = 8,388,608,
 *     conv1d 8192 x 4 = 32,768, dt_bias and A_log 2 x 32, norm 128:
 *     33,718,464
 *   MoE + norms: 512 x 3 x 2048 x 512 = 1,610,612,736, router 2048 x 512,
 *     shared expert 3 x 2048 x 512 and its 2048 gate, 2 x 2048 norms:
 *     1,614,813,184
 *   12 x 27,263,488 + 36 x 33,718,464 + 48 x 1,614,813,184 + embeddings and
 *   head 2 x 151936 x 2048 + final norm 2048 = 79,674,391,296 (the card:
 *   80B total, 3B active).
 * The cache: 12 full blocks x 2 x 2 x 256 = 12,288 elements per token;
 * each sequence also keeps, per linear block, the convolution's last 3
 * inputs (3 x 8192) and a 32 x 128 x 128 delta-rule state: 36 x 548,864 =
 * 19,759,104 elements whatever its length.
 */
static void test_qwen3_next(void **state)
{
        (void)state;
        struct model_arch a;
        import("{\"model_type\":\"qwen3_next\",\"hidden_size\":2048,\"intermediate_size\":5120,"
               "\"num_hidden_layers\":48,\"num_attention_heads\":16,\"num_key_value_heads\":2,"
               "\"head_dim\":256,\"vocab_size\":151936,\"max_position_embeddings\":262144,"
               "\"num_experts\":512,\"num_experts_per_tok\":10,\"moe_intermediate_size\":512,"
               "\"shared_expert_intermediate_size\":512,\"linear_num_key_heads\":16,"
               "\"linear_key_head_dim\":128,\"linear_num_value_heads\":32,"
               "\"linear_value_head_dim\":128,\"linear_conv_kernel_dim\":4,"
               "\"full_attention_interval\":4,\"tie_word_embeddings\":false}",
               &a);
        assert_int_equal(a.linear_layers, 36);
        assert_int_equal(model_parameters(&a), 79674391296ull);
        assert_int_equal(model_recurrent_state_elements(&a), 19759104ull);
        assert_true(fabs(model_kv_elements(&a, 100000) - (12288.0 * 100000 + 19759104)) < 0.5);
        /* The inverse: what fits in that cache is 100,000 tokens. */
        assert_true(fabs(model_kv_tokens_for(&a, 12288.0 * 100000 + 19759104) - 100000) < 1e-6);
        /* layer_types says the same as full_attention_interval. */
        import("{\"model_type\":\"qwen3_next\",\"num_hidden_layers\":4,\"layer_types\":"
               "[\"linear_attention\",\"linear_attention\",\"linear_attention\","
               "\"full_attention\"]}",
               &a);
        assert_int_equal(a.linear_layers, 3);
        assert_int_equal(a.sliding_window, 0);
}

/* An unknown type with LLaMA keys is a generic decoder; SSMs are refused. */
static void test_generic_and_refused(void **state)
{
        (void)state;
        struct model_arch a;
        import("{\"model_type\":\"exaone\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
               "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"intermediate_size\":14336,"
               "\"vocab_size\":102400}",
               &a);
        assert_true(a.generic);
        assert_string_equal(a.model_type, "exaone");
        /* 2 x 102400 x 4096 + 32 x (4096 x 6144 + 4096 x 4096 + 3 x 4096 x 14336 + 2 x
         * 4096) + 4096 */
        assert_int_equal(model_parameters(&a), 2ull * 102400 * 4096 +
                                                       32ull * (4096ull * 6144 + 4096ull * 4096 +
                                                                3ull * 4096 * 14336 + 2 * 4096) +
                                                       4096);

        static const char *const refused[][2] = {
                {"{\"model_type\":\"mamba\",\"hidden_size\":768}", "out of scope"},
                /* hybrids with Mamba blocks and LLaMA keys are not generic decoders */
                {"{\"model_type\":\"nemotron_h\",\"hidden_size\":4096,\"num_hidden_layers\":52,"
                 "\"num_attention_heads\":32,\"intermediate_size\":21504,\"vocab_size\":131072,"
                 "\"hybrid_override_pattern\":\"M-M-M-M*-\"}",
                 "hybrid_override_pattern: state-space (Mamba) blocks are out of scope"},
                {"{\"model_type\":\"granitemoehybrid\",\"hidden_size\":1536,"
                 "\"num_hidden_layers\":40,\"num_attention_heads\":12,\"intermediate_size\":512,"
                 "\"vocab_size\":100352,\"layer_types\":[\"mamba\",\"attention\"]}",
                 "layer_types: state-space"},
                {"{\"model_type\":\"xyzzy\",\"hidden_size\":768}", "generic decoder"},
                {"{\"model_type\":\"deepseek_v3\",\"kv_lora_rank\":0}", "kv_lora_rank"},
                {"{\"model_type\":\"deepseek_v3\",\"first_k_dense_replace\":99}",
                 "first_k_dense_replace"},
                {"{\"model_type\":\"gemma2\",\"sliding_window\":\"4k\"}", "sliding_window"},
                {"{\"model_type\":\"gemma2\",\"final_logit_softcapping\":\"high\"}",
                 "final_logit_softcapping"},
                {"{\"model_type\":\"gemma2\",\"attn_logit_softcapping\":-1}",
                 "attn_logit_softcapping"},
                {"{\"model_type\":\"falcon\",\"num_kv_heads\":7,"
                 "\"new_decoder_architecture\":true}",
                 "num_kv_heads"},
        };
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
                json_t *cfg = json_loads(refused[i][0], 0, NULL);
                char err[1000], key[64];
                assert_non_null(cfg);
                if (!hf_config_import_ex(cfg, &a, key, sizeof(key), err, sizeof(err)))
                        fail_msg("accepted %s", refused[i][0]);
                if (!strstr(err, refused[i][1]))
                        fail_msg("%s: \"%s\" does not say %s", refused[i][0], err, refused[i][1]);
                json_decref(cfg);
        }
}

/* The error record names the key by its JSON pointer as the config spells
 * it (inside text_config for a wrapper's language model) and the rule. */
static void test_error_record(void **state)
{
        (void)state;
        static const struct {
                const char *config, *pointer, *rule;
        } rows[] = {
                {"[1]", "", "type"},
                {"{\"hidden_size\":768}", "/model_type", "required"},
                {"{\"model_type\":\"llama\",\"hidden_size\":\"4k\"}", "/hidden_size", "type"},
                {"{\"model_type\":\"llama\",\"num_hidden_layers\":-1}", "/num_hidden_layers",
                 "range"},
                {"{\"model_type\":\"gemma3\",\"text_config\":{\"model_type\":\"gemma3_text\","
                 "\"hidden_size\":true}}",
                 "/text_config/hidden_size", "type"},
                {"{\"model_type\":\"llama\",\"hidden_act\":\"tanh\"}", "/hidden_act", "enum"},
                {"{\"model_type\":\"llama\",\"num_attention_heads\":32,"
                 "\"num_key_value_heads\":5}",
                 "/num_key_value_heads", "consistency"},
                {"{\"model_type\":\"mamba\",\"hidden_size\":768}", "/model_type", "unsupported"},
                {"{\"model_type\":\"gpt2\",\"resid_pdrop\":1}", "/resid_pdrop", "range"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                json_t *cfg = json_loads(rows[i].config, 0, NULL);
                struct model_arch a;
                struct fields_error e;
                assert_non_null(cfg);
                if (!hf_config_read(cfg, &a, &e))
                        fail_msg("accepted %s", rows[i].config);
                if (strcmp(e.pointer, rows[i].pointer) || strcmp(e.rule, rows[i].rule))
                        fail_msg("%s: pointer \"%s\" rule \"%s\", want \"%s\" \"%s\" (%s)",
                                 rows[i].config, e.pointer, e.rule, rows[i].pointer, rows[i].rule,
                                 e.detail);
                assert_int_equal(e.status, 400);
                json_decref(cfg);
        }
}

/* The first config.json of tiiuae/falcon-40b and falcon-7b, as their
 * repositories published them for their own modelling_RW.py: model_type
 * RefinedWeb / RefinedWebModel, sizes as n_layer, n_head, n_head_kv.  They
 * are the same models as the later FalconConfig spelling, so they count and
 * cache the same. */
static void test_falcon_first_release(void **state)
{
        (void)state;
        struct model_arch a;

        /* falcon-40b's file as first published (a copy: github.com/
         * Decentralised-AI/falcon-40b config.json, commit
         * e7950c40d6bc9caca678af160de9c79f33f93699). */
        import("{\"alibi\": false, \"apply_residual_connection_post_layernorm\": false,"
               " \"architectures\": [\"RWForCausalLM\"], \"attention_dropout\": 0.0,"
               " \"bias\": false, \"bos_token_id\": 1, \"eos_token_id\": 2,"
               " \"hidden_dropout\": 0.0, \"hidden_size\": 8192, \"initializer_range\": 0.02,"
               " \"layer_norm_epsilon\": 1e-05, \"model_type\": \"RefinedWeb\", \"n_head\": 128,"
               " \"n_head_kv\": 8, \"n_layer\": 60, \"parallel_attn\": true,"
               " \"torch_dtype\": \"bfloat16\", \"vocab_size\": 65024}",
               &a);
        assert_string_equal(a.model_type, "falcon");
        assert_int_equal(a.layers, 60);
        assert_int_equal(a.heads, 128);
        assert_int_equal(a.kv_heads, 8);
        assert_int_equal(a.head_dim, 64);
        assert_int_equal(a.block_norms, 2); /* ln_attn and ln_mlp */
        /* By hand (modelling_RW.py): embeddings 65,024 x 8,192 = 532,676,608;
         * per block ln_attn + ln_mlp with bias 4 x 8,192 = 32,768,
         * query_key_value (2 x 8 + 128) x 64 x 8,192 = 75,497,472, dense
         * 8,192^2 = 67,108,864, MLP 2 x 8,192 x 32,768 = 536,870,912:
         * 679,510,016, x 60 = 40,770,600,960; ln_f 16,384.  Head tied, as
         * RWConfig leaves tie_word_embeddings at its default:
         * 41,303,293,952. */
        assert_int_equal(backbone(&a), 41303293952ULL);
        /* 2 x 60 layers x 8 KV heads x 64 */
        assert_int_equal(model_kv_elements_per_token(&a), 2 * 60 * 8 * 64);

        /* falcon-7b's first file: RefinedWebModel, multi-query under one
         * input_layernorm (keys as gpu_poor's all_configs.json,
         * github.com/RahulSChand/gpu_poor, lists them for tiiuae/falcon-7b). */
        import("{\"architectures\": [\"RWForCausalLM\"], \"model_type\": \"RefinedWebModel\","
               " \"hidden_size\": 4544, \"n_head\": 71, \"n_layer\": 32, \"multi_query\": true,"
               " \"parallel_attn\": true, \"bias\": false, \"vocab_size\": 65024}",
               &a);
        assert_int_equal(a.kv_heads, 1);
        assert_int_equal(a.block_norms, 1);
        /* tiiuae/falcon-7b on the hub: 6,921,720,704, as the FalconConfig row above */
        assert_true(fabs((double)backbone(&a) - 6921720704.0) / 6921720704.0 < 0.005);

        /* Their keys are the ones named in errors. */
        json_t *cfg = json_loads("{\"model_type\": \"RefinedWeb\", \"hidden_size\": 8192,"
                                 " \"n_head\": 128, \"n_head_kv\": 7, \"n_layer\": 60}",
                                 0, NULL);
        char err[1000], key[64];
        assert_non_null(cfg);
        assert_int_not_equal(hf_config_import_ex(cfg, &a, key, sizeof(key), err, sizeof(err)), 0);
        assert_string_equal(key, "n_head_kv");
        assert_non_null(strstr(err, "must divide n_head"));
        json_decref(cfg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_published_counts),
                cmocka_unit_test(test_kv_cache),
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_activations_and_caps),
                cmocka_unit_test(test_generic_and_refused),
                cmocka_unit_test(test_current_moe_families),
                cmocka_unit_test(test_qwen3_next),
                cmocka_unit_test(test_error_record),
                cmocka_unit_test(test_falcon_first_release),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
