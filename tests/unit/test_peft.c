/*
 * test_peft.c - LoRA targets and modules_to_save written with each
 * family's own module names (core/peft.c through api/estimate_decode.c).
 *
 * Expected trainable counts are worked out by hand in each row from the
 * model's published config (LoRA adds r x (in + out) per wrapped matrix,
 * Hu et al. 2021); where PEFT's print_trainable_parameters() output for the
 * same setup is widely published, the row says so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "api/estimate_decode.h"
#include "core/peft.h"

static json_t *models;

static int setup(void **state)
{
        json_error_t e;
        (void)state;
        models = json_load_file(GPUPLAN_SOURCE_DIR "/tests/data/catalog_models.json", 0, &e);
        return models ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        json_decref(models);
        return 0;
}

/* {"id": x} -> {"hf_config": x's config} from the catalog fixture. */
static void resolve(json_t *req)
{
        json_t *m = json_object_get(req, "model"), *id = json_object_get(m, "id"), *row;
        size_t i;
        if (!json_is_string(id))
                return;
        json_array_foreach(models, i, row)
        {
                if (json_equal(json_object_get(row, "id"), id)) {
                        json_object_set_new(
                                req, "model",
                                json_pack("{s:O}", "hf_config", json_object_get(row, "config")));
                        return;
                }
        }
        fail_msg("unknown model %s", json_string_value(id));
}

static int run(const char *text, struct estimate_result *res, struct fields_error *e)
{
        json_error_t je;
        json_t *req = json_loads(text, JSON_REJECT_DUPLICATES, &je);
        struct estimate_input in;
        struct estimate_error ee;
        if (!req)
                fail_msg("bad test JSON: %s: %s", text, je.text);
        resolve(req);
        memset(e, 0, sizeof(*e));
        int rc = estimate_decode_request(req, NULL, NULL, &in, e);
        json_decref(req);
        if (rc)
                return rc;
        if (estimate_run(&in, NULL, 0, res, &ee))
                fail_msg("estimate failed: %s: %s", ee.pointer, ee.detail);
        return 0;
}

/* flan-t5-xxl's published config.json (google/flan-t5-xxl), the fields that matter. */
#define FLAN_T5_XXL                                                                                \
        "{\"hf_config\":{\"model_type\":\"t5\",\"d_model\":4096,\"d_kv\":64,\"num_heads\":64,"     \
        "\"d_ff\":10240,\"num_layers\":24,\"num_decoder_layers\":24,"                              \
        "\"feed_forward_proj\":\"gated-gelu\",\"vocab_size\":32128,"                               \
        "\"tie_word_embeddings\":false,\"relative_attention_num_buckets\":32}}"

/* Qwen3-Next-80B-A3B's config.json (the dimensions test_hf_families
 * counts). */
#define QWEN3_NEXT                                                                                 \
        "{\"model_type\":\"qwen3_next\",\"hidden_size\":2048,\"intermediate_size\":5120,"          \
        "\"num_hidden_layers\":48,\"num_attention_heads\":16,\"num_key_value_heads\":2,"           \
        "\"head_dim\":256,\"vocab_size\":151936,\"num_experts\":512,\"num_experts_per_tok\":10,"   \
        "\"moe_intermediate_size\":512,\"shared_expert_intermediate_size\":512,"                   \
        "\"linear_num_key_heads\":16,\"linear_key_head_dim\":128,\"linear_num_value_heads\":32,"   \
        "\"linear_value_head_dim\":128,\"linear_conv_kernel_dim\":4,"                              \
        "\"full_attention_interval\":4,\"max_position_embeddings\":262144}"

static void test_trainable_counts(void **state)
{
        (void)state;
        static const struct {
                const char *model, *lora;
                uint64_t trainable;
                const char *why;
        } rows[] = {
                {"{\"id\":\"llama-2-7b\"}", "\"rank\":8,\"targets\":[\"q_proj\",\"v_proj\"]",
                 4194304,
                 "32 layers x 2 x 8 x (4096 + 4096); PEFT prints 4,194,304 for Llama-2-7b r=8 q,v"},
                {"{\"id\":\"llama-2-7b\"}", "\"rank\":16,\"targets\":\"all-linear\"", 39976960,
                 "32 x 16 x (4 x 8192 + 3 x (4096 + 11008))"},
                {"{\"id\":\"llama-2-7b\"}",
                 "\"rank\":16,\"targets\":[\"q_proj\",\"k_proj\",\"v_proj\",\"o_proj\","
                 "\"gate_proj\",\"up_proj\",\"down_proj\"]",
                 39976960, "the same seven matrices by name"},
                {"{\"id\":\"llama-2-7b\"}",
                 "\"rank\":16,\"targets\":[\"q_proj\",\"output_proj\",\"w1\",\"w2\",\"w3\","
                 "\"k_proj\",\"v_proj\"]",
                 39976960, "torchtune's names for the same seven matrices"},
                {"{\"id\":\"llama-2-7b\"}",
                 "\"rank\":8,\"targets\":[\"q_proj\",\"v_proj\"],\"modules_to_save\":[\"lm_head\"]",
                 4194304 + 32000ull * 4096, "adapters + a trainable copy of the 32000 x 4096 head"},
                {"{\"id\":\"gpt2\"}", "\"rank\":8,\"targets\":[\"c_attn\"]", 294912,
                 "12 x 8 x (768 + 3 x 768): c_attn is one fused matrix; PEFT prints 294,912"},
                {"{\"id\":\"gpt2\"}", "\"rank\":8,\"targets\":[\"c_attn\",\"c_proj\"]", 811008,
                 "12 x 8 x ((768 + 2304) + (768 + 768) + (3072 + 768)) = 12 x 8 x 8448: c_proj is "
                 "attn and mlp"},
                {"{\"id\":\"gpt2\"}", "\"rank\":8,\"targets\":[\"attn.c_proj\"]", 147456,
                 "12 x 8 x (768 + 768): the dotted suffix picks the attention projection only"},
                {"{\"id\":\"roberta-base\"}", "\"rank\":8,\"targets\":[\"query\",\"value\"]",
                 887042,
                 "12 x 2 x 8 x 1536 = 294,912 + classifier dense 768 x 768 + 768 + out_proj "
                 "768 x 2 + 2; PEFT's sequence-classification example prints 887,042"},
                {"{\"id\":\"bert-base-uncased\"}", "\"rank\":8,\"targets\":[\"dense\"]", 1476866,
                 "dense = attention.output.dense + intermediate.dense + output.dense: 12 x 8 x "
                 "(1536 + 3840 + 3840) = 884,736 + the 592,130-parameter head"},
                {"{\"id\":\"bert-base-uncased\"}",
                 "\"rank\":8,\"targets\":[\"attention.output.dense\"]", 12 * 8 * 1536 + 592130,
                 "only the attention output projection"},
                {"{\"id\":\"mixtral-8x7b\"}", "\"rank\":8,\"targets\":[\"w1\",\"w2\",\"w3\"]",
                 113246208, "32 layers x 8 experts x 3 x 8 x (4096 + 14336)"},
                {FLAN_T5_XXL, "\"rank\":16,\"targets\":[\"q\",\"v\"]", 18874368,
                 "24 x 2 x 16 x 8192 (encoder) + 24 x 4 x 16 x 8192 (decoder self + cross); "
                 "PEFT prints 18,874,368 for flan-t5-xxl r=16 q,v"},
                {FLAN_T5_XXL, "\"rank\":8,\"targets\":[\"wi_0\",\"wi_1\",\"wo\"]",
                 48ull * 8 * 3 * (4096 + 10240), "48 blocks x 8 x 3 x (4096 + 10240)"},
                {"{\"id\":\"distilbert-base-uncased\"}",
                 "\"rank\":8,\"targets\":[\"q_lin\",\"v_lin\"]", 6 * 2 * 8 * 1536 + 592130,
                 "6 layers x 2 x 8 x (768 + 768) + pre_classifier 768 x 768 + 768 + classifier "
                 "768 x 2 + 2"},
                {"{\"id\":\"deberta-v3-base\"}",
                 "\"rank\":8,\"targets\":[\"query_proj\",\"value_proj\"]",
                 12 * 2 * 8 * 1536 + 592130,
                 "12 layers x 2 x 8 x (768 + 768) + the pooler and classifier (592,130)"},
                {"{\"id\":\"mpt-7b\"}",
                 "\"rank\":8,\"targets\":[\"Wqkv\",\"out_proj\",\"up_proj\",\"down_proj\"]",
                 32ull * 8 * ((4096 + 3 * 4096) + (4096 + 4096) + 2 * (4096 + 16384)),
                 "32 x 8 x (fused Wqkv 4096 + 12288, out_proj 4096 + 4096, up and down "
                 "4096 + 16384 each)"},
                {"{\"id\":\"bart-base\"}",
                 "\"rank\":8,\"targets\":[\"q_proj\",\"v_proj\",\"fc1\",\"fc2\"]",
                 6ull * 8 * (2 * 1536 + 2 * 3840) + 6ull * 8 * (4 * 1536 + 2 * 3840),
                 "encoder 6 x 8 x (q, v 768 + 768; fc1, fc2 768 + 3072); decoder 6 x 8 x (q, v "
                 "in self and cross attention; fc1, fc2)"},
                {"{\"id\":\"deepseek-v2-lite\"}",
                 "\"rank\":8,\"targets\":[\"q_proj\",\"kv_a_proj_with_mqa\",\"kv_b_proj\","
                 "\"o_proj\"]",
                 27ull * 8 *
                         ((2048 + 16 * 192) + (2048 + 512 + 64) + (512 + 16 * (128 + 128)) +
                          (16 * 128 + 2048)),
                 "27 layers x 8 x (q_proj 2048 + 3072, kv_a 2048 + 576, kv_b 512 + 4096, o_proj "
                 "2048 + 2048): multi-head latent attention's own widths"},
                {"{\"id\":\"deepseek-v2-lite\"}", "\"rank\":8,\"targets\":\"all-linear\"",
                 27ull * 8 * 16448 + 26ull * 8 * (64 * 3 * (2048 + 1408) + 3 * (2048 + 2816)) +
                         8ull * 3 * (2048 + 10944),
                 "attention 8 x 16,448 on 27 layers; 26 MoE layers of 64 experts (3 x (2048 + "
                 "1408)) and a 2 x 1408 shared expert (3 x (2048 + 2816)); one dense layer "
                 "(3 x (2048 + 10944))"},
                {"{\"hf_config\":" QWEN3_NEXT "}", "\"rank\":8,\"targets\":\"all-linear\"",
                 8ull * (12 * 21504 + 36 * 22592 + 48 * (513 * 7680)),
                 "Qwen3-Next: 12 attention blocks x (q 2048 + 8192 with the output gate, k and v "
                 "2048 + 512, o 4096 + 2048); 36 Gated DeltaNet blocks x (in_proj_qkvz 2048 + "
                 "12288, in_proj_ba 2048 + 64, out_proj 4096 + 2048); 48 x 513 MLPs (512 experts "
                 "and the shared one) x 3 x (2048 + 512)"},
                {"{\"hf_config\":" QWEN3_NEXT "}", "\"rank\":8,\"targets\":[\"q_proj\",\"v_proj\"]",
                 8ull * 12 * ((2048 + 8192) + (2048 + 512)),
                 "q_proj and v_proj exist in the 12 full-attention blocks only"},
                {"{\"id\":\"starcoder2-7b\"}", "\"rank\":8,\"targets\":[\"c_fc\",\"c_proj\"]",
                 32ull * 8 * 2 * (4608 + 18432),
                 "32 layers x 8 x 2 x (4608 + 18432): c_fc up, c_proj down"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                char body[2048];
                struct estimate_result res;
                struct fields_error e;
                snprintf(body, sizeof(body),
                         "{\"model\":%s,\"workload\":{\"mode\":\"lora\",\"batch_size\":1,"
                         "\"sequence_length\":128,\"lora\":{%s}}}",
                         rows[i].model, rows[i].lora);
                if (run(body, &res, &e))
                        fail_msg("row %zu refused: %s: %s", i, e.pointer, e.detail);
                if (res.trainable_parameters != rows[i].trainable)
                        fail_msg("row %zu (%s): %llu trainable, expected %llu", i, rows[i].why,
                                 (unsigned long long)res.trainable_parameters,
                                 (unsigned long long)rows[i].trainable);
        }
}

/* A name the model does not have is a 400 at that element, listing the
 * names this model does have. */
static void test_unknown_names_list_the_valid_ones(void **state)
{
        (void)state;
        static const struct {
                const char *model, *lora, *pointer, *must_list;
        } rows[] = {
                {"{\"id\":\"gpt2\"}", "\"targets\":[\"c_attn\",\"q_proj\"]",
                 "/workload/lora/targets/1", "c_attn"},
                {"{\"id\":\"roberta-base\"}", "\"targets\":[\"wi_0\"]", "/workload/lora/targets/0",
                 "dense"},
                {"{\"id\":\"t5-base\"}", "\"targets\":[\"wi_0\"]", "/workload/lora/targets/0",
                 "wi"},
                {"{\"id\":\"llama-2-7b\"}", "\"targets\":[\"c_attn\"]", "/workload/lora/targets/0",
                 "gate_proj"},
                {"{\"id\":\"llama-2-7b\"}", "\"targets\":\"everything\"", "/workload/lora/targets",
                 "all-linear"},
                {"{\"id\":\"llama-2-7b\"}",
                 "\"targets\":[\"q_proj\"],\"modules_to_save\":[\"wte2\"]",
                 "/workload/lora/modules_to_save/0", "lm_head"},
                {"{\"id\":\"llama-2-7b\"}", "\"targets\":[7]", "/workload/lora/targets/0",
                 "q_proj"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                char body[2048];
                struct estimate_result res;
                struct fields_error e;
                snprintf(body, sizeof(body),
                         "{\"model\":%s,\"workload\":{\"mode\":\"lora\",\"lora\":{%s}}}",
                         rows[i].model, rows[i].lora);
                if (!run(body, &res, &e))
                        fail_msg("row %zu accepted", i);
                assert_int_equal(e.status, 400);
                assert_string_equal(e.pointer, rows[i].pointer);
                if (!strstr(e.detail, rows[i].must_list))
                        fail_msg("row %zu: \"%s\" does not list %s", i, e.detail,
                                 rows[i].must_list);
        }
}

/* T5 v1.0 has one ungated wi; v1.1 / Flan-T5 split it into wi_0 and wi_1. */
static void test_t5_gating_decides_wi(void **state)
{
        (void)state;
        struct model_arch a;
        unsigned bits = 0;
        memset(&a, 0, sizeof(a));
        snprintf(a.model_type, sizeof(a.model_type), "t5");
        a.kind = MODEL_ENCODER_DECODER;
        a.gated_mlp = false;
        assert_int_equal(peft_target_bits(&a, "wi", &bits), 0);
        assert_int_equal(bits, EST_LORA_UP);
        assert_int_equal(peft_target_bits(&a, "wi_0", &bits), -1);
        a.gated_mlp = true;
        bits = 0;
        assert_int_equal(peft_target_bits(&a, "wi_0", &bits), 0);
        assert_int_equal(bits, EST_LORA_GATE);
        assert_int_equal(peft_target_bits(&a, "wi", &bits), -1);
        /* all-linear: q, k, v, o and the three gated-MLP matrices. */
        assert_int_equal(peft_all_linear(&a), EST_LORA_ALL);
        a.gated_mlp = false;
        assert_int_equal(peft_all_linear(&a), EST_LORA_ALL & ~EST_LORA_GATE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_trainable_counts),
                cmocka_unit_test(test_unknown_names_list_the_valid_ones),
                cmocka_unit_test(test_t5_gating_decides_wi),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
