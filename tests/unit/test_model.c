/*
 * test_model.c - parameter counts from architecture (core/model.c) and the
 * config.json importer (models/hf_config.c).
 *
 * Every catalog model's derived count must be within 0.5% of the count its
 * authors or the Hugging Face Hub publish; the published counts and their
 * sources are in tests/data/catalog_models.json.
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

static void test_catalog_counts_match_published(void **state)
{
        (void)state;
        json_error_t e;
        json_t *models =
                json_load_file(GPUPLAN_SOURCE_DIR "/tests/data/catalog_models.json", 0, &e);
        size_t i;
        json_t *m;
        assert_non_null(models);
        assert_true(json_array_size(models) >= 24);
        json_array_foreach(models, i, m)
        {
                struct model_arch a;
                char err[256];
                const char *id = json_string_value(json_object_get(m, "id"));
                double published =
                        (double)json_integer_value(json_object_get(m, "published_parameters"));
                assert_non_null(json_string_value(json_object_get(m, "parameters_source")));
                if (hf_config_import(json_object_get(m, "config"), &a, err, sizeof(err)))
                        fail_msg("%s: %s", id, err);
                double counted = (double)model_parameters(&a);
                double rel = fabs(counted - published) / published;
                if (rel > 0.005)
                        fail_msg("%s: counted %.0f, published %.0f (%.2f%%)", id, counted,
                                 published, rel * 100);
        }
        json_decref(models);
}

/* BERT-base by hand (BertModel + MLM head, as in the checkpoint):
 *   embeddings  30522*768 + 512*768 + 2*768 + LayerNorm 2*768 = 23,837,184
 *   per layer   attention 4*(768*768 + 768) = 2,362,368
 *               MLP 768*3072 + 3072 + 3072*768 + 768 = 4,722,432
 *               two LayerNorms 4*768 = 3,072            -> 7,087,872 x 12 = 85,054,464
 *   pooler      768*768 + 768 = 590,592
 *   MLM head    dense 590,592 + LayerNorm 1,536 + vocab bias 30,522 = 622,650
 *   total       110,104,890 */
static void test_bert_base_by_hand(void **state)
{
        (void)state;
        json_t *cfg = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "model_type", "bert",
                                "vocab_size", 30522, "hidden_size", 768, "num_hidden_layers", 12,
                                "num_attention_heads", 12, "intermediate_size", 3072,
                                "max_position_embeddings", 512, "type_vocab_size", 2);
        struct model_arch a;
        char err[128];
        struct model_param_breakdown b;
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(model_param_breakdown(&a, &b), 0);
        assert_int_equal(b.embeddings, 23837184);
        assert_int_equal(b.per_layer, 7087872);
        assert_int_equal(b.total, 110104890);
        json_decref(cfg);
}

/* Llama-2-7B is published to the parameter: 6,738,415,616.
 *   embeddings 32000*4096 = 131,072,000; untied head the same
 *   per layer  4*4096^2 + 3*4096*11008 + 2*4096 = 202,383,360 x 32
 *   final norm 4096 */
static void test_llama2_7b_exact(void **state)
{
        (void)state;
        json_t *cfg = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:b}", "model_type", "llama",
                                "vocab_size", 32000, "hidden_size", 4096, "intermediate_size",
                                11008, "num_hidden_layers", 32, "num_attention_heads", 32,
                                "tie_word_embeddings", 0);
        struct model_arch a;
        char err[128];
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(model_parameters(&a), 6738415616ull);
        /* KV elements per token: 2 (K, V) x 32 layers x 32 heads x 128 = 262,144 */
        assert_int_equal(model_kv_elements_per_token(&a), 262144);
        json_decref(cfg);
}

/* GQA: Llama-3-8B keeps 8 KV heads: 2 x 32 x 8 x 128 = 65,536 elements per token. */
static void test_gqa_kv_elements(void **state)
{
        (void)state;
        json_t *cfg = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "model_type", "llama",
                                "vocab_size", 128256, "hidden_size", 4096, "intermediate_size",
                                14336, "num_hidden_layers", 32, "num_attention_heads", 32,
                                "num_key_value_heads", 8);
        struct model_arch a;
        char err[128];
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(model_kv_elements_per_token(&a), 65536);
        json_decref(cfg);
}

static void test_importer_refuses(void **state)
{
        (void)state;
        static const struct {
                const char *json, *key, *why;
        } rows[] = {
                {"{\"model_type\":\"xyzzy\"}", "model_type",
                 "unknown family lists the supported ones"},
                {"{\"hidden_size\":8}", "model_type", "model_type is required"},
                {"{\"model_type\":\"llama\",\"hidden_size\":\"big\"}", "hidden_size", "type"},
                {"{\"model_type\":\"llama\",\"num_attention_heads\":7}", "num_attention_heads",
                 "heads must divide the hidden size"},
                {"{\"model_type\":\"llama\",\"num_key_value_heads\":5}", "num_key_value_heads",
                 "kv heads must divide heads"},
                {"{\"model_type\":\"gpt2\",\"n_layer\":-1}", "n_layer", "range"},
                {"{\"model_type\":\"bert\",\"hidden_dropout_prob\":1.5}", "hidden_dropout_prob",
                 "probability"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                json_error_t e;
                json_t *cfg = json_loads(rows[i].json, 0, &e);
                struct model_arch a;
                char key[64], err[256];
                assert_non_null(cfg);
                if (hf_config_import_ex(cfg, &a, key, sizeof(key), err, sizeof(err)) == 0)
                        fail_msg("accepted %s (%s)", rows[i].json, rows[i].why);
                if (strcmp(key, rows[i].key))
                        fail_msg("%s: key %s, expected %s", rows[i].json, key, rows[i].key);
                json_decref(cfg);
        }
        json_t *cfg = json_pack("{s:s}", "model_type", "xyzzy");
        struct model_arch a;
        char err[256];
        assert_int_not_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_non_null(strstr(err, "xlm-roberta-xl"));
        json_decref(cfg);
}

/* A bare parameter count gets a shape whose count is exactly it, for
 * counts from 1e6 to 1e13 (the accepted range), and a shape that looks
 * like the published decoder of that size: LLaMA-2-7B has 32 layers of
 * hidden size 4096 (Touvron et al. 2023), so a 7e9 count gets 32 layers
 * and a hidden size within 128 x 2 of 4096. */
static void test_shape_from_parameters(void **state)
{
        (void)state;
        static const uint64_t counts[] = {1000000ull,      3000000ull,       125000000ull,
                                          3000000000ull,   7000000000ull,    70000000000ull,
                                          123456789012ull, 10000000000000ull};
        for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
                struct model_arch a;
                const char *f, *w;
                assert_int_equal(model_arch_from_parameters(counts[i], &a), 0);
                assert_int_equal(model_arch_check(&a, &f, &w), 0);
                if (model_parameters(&a) != counts[i])
                        fail_msg("%llu: shape has %llu parameters", (unsigned long long)counts[i],
                                 (unsigned long long)model_parameters(&a));
                /* The remainder is less than one FFN column (3 h L). */
                assert_true(a.extra_parameters < 3ull * a.hidden * a.layers);
        }
        struct model_arch a;
        assert_int_equal(model_arch_from_parameters(7000000000ull, &a), 0);
        assert_int_equal(a.layers, 32);
        assert_true(a.hidden >= 4096 - 256 && a.hidden <= 4096 + 256);
        assert_int_not_equal(model_arch_from_parameters(10, &a), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_catalog_counts_match_published),
                cmocka_unit_test(test_bert_base_by_hand),
                cmocka_unit_test(test_llama2_7b_exact),
                cmocka_unit_test(test_gqa_kv_elements),
                cmocka_unit_test(test_importer_refuses),
                cmocka_unit_test(test_shape_from_parameters),
        };
        return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
