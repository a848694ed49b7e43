/*
 * test_vision.c - vision towers (models/vision.c) against hand counts from
 * each family's modeling_*.py in transformers, and through the importer
 * against the Hub's published totals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <jansson.h>

#include "core/model.h"
#include "models/hf_config.h"
#include "models/vision.h"

static uint64_t tower(const char *text, const char *type, uint32_t text_hidden, uint64_t *tokens)
{
        json_t *cfg = json_loads(text, 0, NULL);
        struct vision_tower vt;
        char key[64], err[200];
        assert_non_null(cfg);
        assert_int_equal(
                vision_tower_count(cfg, type, text_hidden, &vt, key, sizeof(key), err, sizeof(err)),
                1);
        json_decref(cfg);
        if (tokens)
                *tokens = vt.tokens_per_image;
        return vt.parameters;
}

/* Gemma 3 27B's SigLIP (hidden 1152, MLP 4304, 27 layers, patch 14, image 896):
 *   patch conv 3 x 14 x 14 x 1152 + 1152 = 678,528
 *   positions (896 / 14)^2 = 4096 x 1152 = 4,718,592
 *   per layer q, k, v, o 4 x (1152^2 + 1152) = 5,313,024, fc1 1152 x 4304
 *     + 4304 = 4,962,512, fc2 4304 x 1152 + 1152 = 4,959,360, two
 *     LayerNorms 4608: 15,239,504; x 27 = 411,466,608
 *   post LayerNorm 2304; projector 1152 x 5376 = 6,193,152 and its norm 1152
 *   in all 423,060,336; tokens per image: mm_tokens_per_image 256. */
static void test_siglip_gemma3(void **state)
{
        (void)state;
        uint64_t tokens;
        uint64_t n = tower("{\"mm_tokens_per_image\":256,\"vision_config\":{\"hidden_size\":1152,"
                           "\"image_size\":896,\"intermediate_size\":4304,\"num_hidden_layers\":27,"
                           "\"patch_size\":14,\"vision_use_head\":false}}",
                           "gemma3", 5376, &tokens);
        assert_int_equal(n, 678528ull + 4718592 + 27ull * 15239504 + 2304 + 6193152 + 1152);
        assert_int_equal(tokens, 256);
}

/* Qwen2.5-VL-7B's tower (depth 32, hidden 1280, MLP 3420, out 3584):
 *   Conv3d 3 x 2 x 14 x 14 x 1280 = 1,505,280
 *   per block two RMSNorms 2560, qkv 1280 x 3840 + 3840 = 4,919,040, proj
 *     1280^2 + 1280 = 1,639,680, gate and up 2 x (1280 x 3420 + 3420) =
 *     8,762,040, down 3420 x 1280 + 1280 = 4,378,880: 19,702,200; x 32 =
 *     630,470,400
 *   merger RMSNorm 1280, 5120 x 5120 + 5120 = 26,219,520, 5120 x 3584 +
 *     3584 = 18,353,664: 44,574,464
 *   in all 676,550,144. */
static void test_qwen2_5_vl(void **state)
{
        (void)state;
        assert_int_equal(tower("{\"vision_config\":{\"depth\":32,\"hidden_size\":1280,"
                               "\"intermediate_size\":3420,\"num_heads\":16,\"in_chans\":3,"
                               "\"out_hidden_size\":3584,\"patch_size\":14,"
                               "\"spatial_merge_size\":2,\"temporal_patch_size\":2}}",
                               "qwen2_5_vl", 3584, NULL),
                         676550144ull);
}

/* Llama 3.2 11B Vision (mllama): hidden 1280, MLP 5120, 32 local + 8
 * global layers, patch 14, image 560 (1601 positions with the class
 * token), 4 tiles, 8 aspect ratios (9 table rows), output 7680:
 *   patch 752,640; class 1280; positions 1601 x 1280 + gate = 2,049,281;
 *   tile positions 9 x 4 x 1601 x 1280 = 73,774,080; pre/post tile
 *   embeddings 2 x (9 x 4 x 1280 + 1) = 92,162; two LayerNorms 5120;
 *   local block 4 x 1280^2 + (1280 x 5120 + 5120) + (5120 x 1280 + 1280) +
 *   5120 = 19,672,320, x 32 = 629,514,240; global 8 x 19,672,322 =
 *   157,378,576; projector 7680 x 4096 + 4096 = 31,461,376.
 *   In all 895,028,755; tiles x positions = 6404 image tokens. */
static void test_mllama(void **state)
{
        (void)state;
        uint64_t tokens;
        assert_int_equal(tower("{\"vision_config\":{\"hidden_size\":1280,\"image_size\":560,"
                               "\"intermediate_size\":5120,\"max_num_tiles\":4,"
                               "\"num_global_layers\":8,\"num_hidden_layers\":32,"
                               "\"patch_size\":14,\"vision_output_dim\":7680,"
                               "\"supported_aspect_ratios\":[[1,1],[1,2],[1,3],[1,4],[2,1],[2,2],"
                               "[3,1],[4,1]]}}",
                               "mllama", 4096, &tokens),
                         895028755ull);
        assert_int_equal(tokens, 6404);
}

/* Through the importer: the text model and the tower together give the
 * Hub's safetensors totals of the two checkpoints, 10,670,220,835 for
 * meta-llama/Llama-3.2-11B-Vision (the card: 10.6B) and 8,292,166,656 for
 * Qwen/Qwen2.5-VL-7B-Instruct (its page: 8.29B). */
static void test_through_importer(void **state)
{
        (void)state;
        struct model_arch a;
        char err[300];
        json_t *cfg = json_loads(
                "{\"model_type\":\"mllama\",\"text_config\":{\"model_type\":\"mllama_text_model\","
                "\"cross_attention_layers\":[3,8,13,18,23,28,33,38],\"hidden_size\":4096,"
                "\"intermediate_size\":14336,\"num_hidden_layers\":40,\"num_attention_heads\":32,"
                "\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false},"
                "\"vision_config\":{\"hidden_size\":1280,\"image_size\":560,"
                "\"intermediate_size\":5120,\"max_num_tiles\":4,\"num_global_layers\":8,"
                "\"num_hidden_layers\":32,\"patch_size\":14,\"vision_output_dim\":7680,"
                "\"supported_aspect_ratios\":[[1,1],[1,2],[1,3],[1,4],[2,1],[2,2],[3,1],[4,1]]}}",
                0, NULL);
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(a.vision_parameters, 895028755ull);
        assert_int_equal(model_parameters(&a), 10670220835ull);
        /* The blocks as they run (MllamaVisionModel): 32 local + 8 global,
         * each tile's 1601 positions padded to 1608 (a multiple of 8,
         * num_padding_patches), 4 tiles attended together: 6432 tokens. */
        assert_int_equal(a.vision.layers, 40);
        assert_int_equal(a.vision.hidden, 1280);
        assert_int_equal(a.vision.heads, 16);
        assert_int_equal(a.vision.ffn, 5120);
        assert_int_equal(a.vision.tokens, 4 * 1608);
        assert_false(a.vision.gated_mlp || a.vision.rmsnorm);
        json_decref(cfg);
}

/* Qwen2.5-VL-7B's blocks through the importer: 32 of hidden 1280, 16
 * heads, a gated MLP of 3420, RMSNorms.  An image of 896 x 896 is
 * (896 / 14)^2 = 4096 patches through every block, which the 2 x 2 merger
 * folds into the 1024 tokens the language model reads.  Gemma 3's SigLIP
 * runs (896 / 14)^2 = 4096 patches too, then pools them to 256. */
static void test_tower_blocks(void **state)
{
        (void)state;
        struct model_arch a;
        char err[300];
        json_t *cfg = json_loads(
                "{\"model_type\":\"qwen2_5_vl\",\"hidden_size\":3584,"
                "\"intermediate_size\":18944,\"num_hidden_layers\":28,"
                "\"num_attention_heads\":28,\"num_key_value_heads\":4,\"vocab_size\":152064,"
                "\"vision_config\":{\"depth\":32,\"hidden_size\":1280,"
                "\"intermediate_size\":3420,\"num_heads\":16,\"out_hidden_size\":3584,"
                "\"patch_size\":14,\"spatial_merge_size\":2,\"temporal_patch_size\":2}}",
                0, NULL);
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(a.image_tokens, 1024);
        assert_int_equal(a.vision.layers, 32);
        assert_int_equal(a.vision.hidden, 1280);
        assert_int_equal(a.vision.heads, 16);
        assert_int_equal(a.vision.ffn, 3420);
        assert_int_equal(a.vision.tokens, 4096);
        assert_true(a.vision.gated_mlp && a.vision.rmsnorm);
        json_decref(cfg);

        cfg = json_loads("{\"model_type\":\"gemma3\",\"mm_tokens_per_image\":256,"
                         "\"text_config\":{\"model_type\":\"gemma3_text\",\"hidden_size\":5376,"
                         "\"intermediate_size\":21504,\"num_hidden_layers\":62,"
                         "\"num_attention_heads\":32,\"num_key_value_heads\":16,"
                         "\"head_dim\":128,\"vocab_size\":262208},"
                         "\"vision_config\":{\"hidden_size\":1152,\"image_size\":896,"
                         "\"intermediate_size\":4304,\"num_attention_heads\":16,"
                         "\"num_hidden_layers\":27,\"patch_size\":14,"
                         "\"vision_use_head\":false}}",
                         0, NULL);
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(a.image_tokens, 256);
        assert_int_equal(a.vision.layers, 27);
        assert_int_equal(a.vision.heads, 16);
        assert_int_equal(a.vision.tokens, 4096);
        assert_false(a.vision.gated_mlp || a.vision.rmsnorm);
        json_decref(cfg);
}

/* A vision_config value out of range names its key under vision_config. */
static void test_bad_key(void **state)
{
        (void)state;
        json_t *cfg = json_loads("{\"vision_config\":{\"depth\":0}}", 0, NULL);
        struct vision_tower vt;
        char key[64], err[200];
        assert_int_equal(vision_tower_count(cfg, "qwen2_5_vl", 3584, &vt, key, sizeof(key), err,
                                            sizeof(err)),
                         -1);
        assert_string_equal(key, "vision_config/depth");
        json_decref(cfg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_siglip_gemma3), cmocka_unit_test(test_qwen2_5_vl),
                cmocka_unit_test(test_mllama),        cmocka_unit_test(test_through_importer),
                cmocka_unit_test(test_bad_key),       cmocka_unit_test(test_tower_blocks),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
