/*
 * fuzz_hf_config.c - libFuzzer harness for the Hugging Face config.json
 * importer (models/hf_config.h) and the model arithmetic behind it
 * (core/model.h).
 *
 * Input: either a config.json as text (the input starts with '{'), which
 * keeps the seeds readable, or bytes that a data provider turns into a
 * config object built from the keys the supported families really use
 * (fuzz_json.h explains why: jansson itself is not instrumented).
 *
 * Checks: the importer either refuses with a reason (and a NUL-terminated
 * key) or returns an architecture that model_arch_check() accepts; the
 * parameter breakdown either reports overflow or adds up to
 * model_parameters(); the engine's memory estimate with default settings
 * either answers or refuses with a rule.  Any crash, leak or undefined
 * behaviour on the way is a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/hf_config.h"
#include "core/estimate.h"
#include "core/model.h"
#include "fuzz_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const char *const model_types[] = {
        "bert",    "roberta",    "xlm-roberta", "xlm-roberta-xl",
        "gpt2",    "llama",      "mistral",     "mixtral",
        "qwen2",   "t5",         "gpt_neox",    "",
        "BERT",    "qwen3",      "qwen2_moe",   "qwen3_moe",
        "gemma",   "gemma2",     "gemma3",      "gemma3_text",
        "phi3",    "olmo2",      "granite",     "internlm2",
        "cohere",  "starcoder2", "deepseek_v2", "deepseek_v3",
        "gptj",    "falcon",     "bloom",       "opt",
        "mpt",     "distilbert", "deberta-v2",  "modernbert",
        "electra", "bart",       "mt5",         "mamba",
        "exaone",  NULL,
};
static const char *const activations[] = {
        "gelu",  "gelu_new", "gelu_fast",  "gelu_python", "gelu_pytorch_tanh", "relu", "silu",
        "swish", "tanh",     "quick_gelu", NULL,
};
static const char *const ffn_projections[] = {"relu", "gated-gelu", "gated-silu",
                                              "gelu", "gated-",     NULL};

static const struct fz_field config_fields[] = {
        {"hidden_size", FZ_INT, NULL, NULL},
        {"num_hidden_layers", FZ_INT, NULL, NULL},
        {"num_attention_heads", FZ_INT, NULL, NULL},
        {"num_key_value_heads", FZ_INT, NULL, NULL},
        {"intermediate_size", FZ_INT, NULL, NULL},
        {"vocab_size", FZ_INT, NULL, NULL},
        {"max_position_embeddings", FZ_INT, NULL, NULL},
        {"type_vocab_size", FZ_INT, NULL, NULL},
        {"head_dim", FZ_INT, NULL, NULL},
        {"tie_word_embeddings", FZ_BOOL, NULL, NULL},
        {"hidden_act", FZ_ENUM, activations, NULL},
        {"hidden_dropout_prob", FZ_NUMBER, NULL, NULL},
        {"attention_bias", FZ_BOOL, NULL, NULL},
        {"mlp_bias", FZ_BOOL, NULL, NULL},
        {"num_local_experts", FZ_INT, NULL, NULL},
        {"num_experts_per_tok", FZ_INT, NULL, NULL},
        /* GPT-2 */
        {"n_embd", FZ_INT, NULL, NULL},
        {"n_layer", FZ_INT, NULL, NULL},
        {"n_head", FZ_INT, NULL, NULL},
        {"n_inner", FZ_INT, NULL, NULL},
        {"n_positions", FZ_INT, NULL, NULL},
        {"activation_function", FZ_ENUM, activations, NULL},
        {"resid_pdrop", FZ_NUMBER, NULL, NULL},
        /* T5 */
        {"d_model", FZ_INT, NULL, NULL},
        {"d_ff", FZ_INT, NULL, NULL},
        {"d_kv", FZ_INT, NULL, NULL},
        {"num_layers", FZ_INT, NULL, NULL},
        {"num_decoder_layers", FZ_INT, NULL, NULL},
        {"num_heads", FZ_INT, NULL, NULL},
        {"relative_attention_num_buckets", FZ_INT, NULL, NULL},
        {"feed_forward_proj", FZ_ENUM, ffn_projections, NULL},
        {"dropout_rate", FZ_NUMBER, NULL, NULL},
        /* Families beyond LLaMA: windows, MoE, MLA, older decoders, encoders */
        {"sliding_window", FZ_INT, NULL, NULL},
        {"sliding_window_pattern", FZ_INT, NULL, NULL},
        {"use_sliding_window", FZ_BOOL, NULL, NULL},
        {"num_experts", FZ_INT, NULL, NULL},
        {"moe_intermediate_size", FZ_INT, NULL, NULL},
        {"shared_expert_intermediate_size", FZ_INT, NULL, NULL},
        {"n_routed_experts", FZ_INT, NULL, NULL},
        {"n_shared_experts", FZ_INT, NULL, NULL},
        {"first_k_dense_replace", FZ_INT, NULL, NULL},
        {"q_lora_rank", FZ_INT, NULL, NULL},
        {"kv_lora_rank", FZ_INT, NULL, NULL},
        {"qk_nope_head_dim", FZ_INT, NULL, NULL},
        {"qk_rope_head_dim", FZ_INT, NULL, NULL},
        {"v_head_dim", FZ_INT, NULL, NULL},
        {"num_kv_heads", FZ_INT, NULL, NULL},
        {"multi_query", FZ_BOOL, NULL, NULL},
        {"new_decoder_architecture", FZ_BOOL, NULL, NULL},
        {"parallel_attn", FZ_BOOL, NULL, NULL},
        {"ffn_dim", FZ_INT, NULL, NULL},
        {"word_embed_proj_dim", FZ_INT, NULL, NULL},
        {"n_layers", FZ_INT, NULL, NULL},
        {"n_heads", FZ_INT, NULL, NULL},
        {"expansion_ratio", FZ_INT, NULL, NULL},
        {"dim", FZ_INT, NULL, NULL},
        {"hidden_dim", FZ_INT, NULL, NULL},
        {"embedding_size", FZ_INT, NULL, NULL},
        {"position_buckets", FZ_INT, NULL, NULL},
        {"relative_attention", FZ_BOOL, NULL, NULL},
        {"global_attn_every_n_layers", FZ_INT, NULL, NULL},
        {"local_attention", FZ_INT, NULL, NULL},
        {"encoder_layers", FZ_INT, NULL, NULL},
        {"decoder_layers", FZ_INT, NULL, NULL},
        {"encoder_attention_heads", FZ_INT, NULL, NULL},
        {"encoder_ffn_dim", FZ_INT, NULL, NULL},
        {"decoder_ffn_dim", FZ_INT, NULL, NULL},
        {"use_bias", FZ_BOOL, NULL, NULL},
        /* Present in real files, ignored by the importer. */
        {"_name_or_path", FZ_STRING, NULL, NULL},
        {"architectures", FZ_ENUM_ARRAY, model_types, NULL},
        {"torch_dtype", FZ_ENUM, (const char *const[]){"float32", "bfloat16", "float16", NULL},
         NULL},
        {"rope_theta", FZ_NUMBER, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static void fail(const char *what, const char *detail)
{
        fprintf(stderr, "fuzz_hf_config: %s (%s)\n", what, detail);
        abort();
}

static json_t *build_config(struct fuzz_input *in)
{
        json_t *cfg = fz_object(in, config_fields, 0);

        if (!cfg)
                return NULL;
        /* model_type decides the family: set it in most runs, with a family name. */
        switch (fuzz_u8(in) % 8) {
        case 0:
                break;
        case 1:
                json_object_set_new(cfg, "model_type", fz_any(in, 1));
                break;
        default:
                json_object_set_new(
                        cfg, "model_type",
                        json_string(model_types[fuzz_pick(
                                in, sizeof(model_types) / sizeof(model_types[0]) - 1)]));
        }
        return cfg;
}

static void check_arch(const struct model_arch *arch)
{
        struct model_param_breakdown b;
        const char *field = NULL;
        const char *why = NULL;

        if (model_arch_check(arch, &field, &why) != 0)
                fail("imported an architecture model_arch_check refuses", field ? field : "?");
        if (memchr(arch->name, '\0', sizeof(arch->name)) == NULL ||
            memchr(arch->model_type, '\0', sizeof(arch->model_type)) == NULL)
                fail("name or model_type not terminated", "");
        if (model_param_breakdown(arch, &b) == 0) {
                uint64_t sum = 0;
                const uint64_t parts[] = {b.embeddings, b.linear, b.small, b.lm_head, b.head_extra};
                for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
                        if (__builtin_add_overflow(sum, parts[i], &sum))
                                fail("breakdown parts overflow although the total did not",
                                     arch->model_type);
                if (sum != b.total)
                        fail("breakdown parts do not add up to the total", arch->model_type);
                if (model_parameters(arch) != b.total)
                        fail("model_parameters differs from the breakdown total", arch->model_type);
                if (b.linear_active > b.linear)
                        fail("more active linear parameters than linear parameters",
                             arch->model_type);
        } else if (model_parameters(arch) != 0) {
                fail("breakdown overflowed but model_parameters answered", arch->model_type);
        }

        /* The memory estimate of a default workload: an answer, or a refusal with a rule. */
        struct estimate_input ein;
        struct estimate_error eerr;
        estimate_input_defaults(&ein);
        ein.arch = *arch;
        memset(&eerr, 0, sizeof(eerr));
        if (estimate_memory_bytes(&ein, &eerr) == 0 && eerr.rule[0] == '\0')
                fail("estimate_memory_bytes returned 0 without a rule", arch->model_type);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct fuzz_input in = {data, size};
        struct model_arch arch;
        char key[64];
        char err[256];
        json_t *cfg;

        if (size > 65536)
                return 0;
        if (size > 0 && data[0] == '{')
                cfg = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
        else
                cfg = build_config(&in);
        if (!cfg)
                return 0;
        memset(key, 'x', sizeof(key));
        memset(err, 'x', sizeof(err));
        int rc = hf_config_import_ex(cfg, &arch, key, sizeof(key), err, sizeof(err));
        if (rc == 0) {
                check_arch(&arch);
        } else {
                /* On failure both buffers are filled (on success they are left alone). */
                if (memchr(key, '\0', sizeof(key)) == NULL ||
                    memchr(err, '\0', sizeof(err)) == NULL)
                        fail("key or reason not terminated", "");
                if (rc != -1 || err[0] == '\0')
                        fail("refused without a reason", key);
        }
        json_decref(cfg);
        return 0;
}
