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
        assert_int_equal(a.image_px_assumed, 896); /* said in the image_resolution assumption */
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
        assert_int_equal(a.image_px_assumed, 0); /* mm_tokens_per_image fixes them */
        assert_int_equal(a.vision.layers, 27);
        assert_int_equal(a.vision.heads, 16);
        assert_int_equal(a.vision.tokens, 4096);
        assert_false(a.vision.gated_mlp || a.vision.rmsnorm);
        json_decref(cfg);
}

/* Tokens per image come from the config, family by family, counted by hand:
 *   LLaVA-1.5 (llava-hf/llava-1.5-7b-hf: CLIP ViT-L at image 336, patch
 *     14): (336 / 14)^2 = 24^2 = 576 patch tokens; strategy "default" drops
 *     the class token, "full" keeps it: 577.
 *   LLaVA around SigLIP (image 384, patch 14): (384 / 14)^2 = 27^2 = 729.
 *   Mistral 3 (Mistral-Small-3.1: Pixtral at image 1540, patch 14, merge
 *     2): 1540 / 14 = 110 patches a side, 110^2 = 12,100 through the tower;
 *     110 / 2 = 55 rows of 55 merged tokens and one [IMG_BREAK] or
 *     [IMG_END] each: 55 x 56 = 3080.
 *   Pixtral-12B as LLaVA (image 1024, patch 16, no merger): 64 rows of 64
 *     patches plus a break each: 64 x 65 = 4160; 4096 through the tower.
 *   Qwen2-VL (patch 14, merge 2) at the assumed 896 x 896 image:
 *     (896 / 14)^2 = 4096 patches, / (2 x 2) = 1024 tokens; at patch 16,
 *     (896 / 16)^2 = 3136 patches, 784 tokens. */
static void test_tokens_per_image(void **state)
{
        (void)state;
        uint64_t tokens;
#define LLAVA_15(strategy)                                                                         \
        "{\"vision_feature_select_strategy\":\"" strategy "\",\"vision_config\":"                  \
        "{\"hidden_size\":1024,\"image_size\":336,\"intermediate_size\":4096,"                     \
        "\"model_type\":\"clip_vision_model\",\"num_attention_heads\":16,"                         \
        "\"num_hidden_layers\":24,\"patch_size\":14}}"
        tower(LLAVA_15("default"), "llava", 4096, &tokens);
        assert_int_equal(tokens, 576);
        tower(LLAVA_15("full"), "llava", 4096, &tokens);
        assert_int_equal(tokens, 577);

        tower("{\"vision_config\":{\"model_type\":\"siglip_vision_model\",\"hidden_size\":1152,"
              "\"image_size\":384,\"patch_size\":14,\"intermediate_size\":4304,"
              "\"num_hidden_layers\":27}}",
              "llava", 3584, &tokens);
        assert_int_equal(tokens, 729);

        struct model_arch a;
        char err[300];
        json_t *cfg = json_loads(
                "{\"model_type\":\"mistral3\",\"spatial_merge_size\":2,"
                "\"multimodal_projector_bias\":false,"
                "\"text_config\":{\"model_type\":\"mistral\",\"hidden_size\":5120,"
                "\"intermediate_size\":32768,\"num_hidden_layers\":40,\"num_attention_heads\":32,"
                "\"num_key_value_heads\":8,\"head_dim\":128,\"vocab_size\":131072},"
                "\"vision_config\":{\"model_type\":\"pixtral\",\"hidden_size\":1024,"
                "\"image_size\":1540,\"patch_size\":14,\"intermediate_size\":4096,"
                "\"num_hidden_layers\":24,\"num_attention_heads\":16}}",
                0, NULL);
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(a.image_tokens, 3080);
        assert_int_equal(a.vision.tokens, 12100);
        json_decref(cfg);

        cfg = json_loads(
                "{\"model_type\":\"llava\",\"text_config\":{\"model_type\":\"mistral\","
                "\"hidden_size\":5120,\"intermediate_size\":14336,\"num_hidden_layers\":40,"
                "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":128,"
                "\"vocab_size\":131072},"
                "\"vision_config\":{\"model_type\":\"pixtral\",\"hidden_size\":1024,"
                "\"image_size\":1024,\"patch_size\":16,\"intermediate_size\":4096,"
                "\"num_hidden_layers\":24,\"num_attention_heads\":16}}",
                0, NULL);
        assert_int_equal(hf_config_import(cfg, &a, err, sizeof(err)), 0);
        assert_int_equal(a.image_tokens, 4160);
        assert_int_equal(a.vision.tokens, 4096);
        json_decref(cfg);

        tower("{\"vision_config\":{\"depth\":32,\"embed_dim\":1280,\"patch_size\":14,"
              "\"spatial_merge_size\":2}}",
              "qwen2_vl", 3584, &tokens);
        assert_int_equal(tokens, 1024);
        tower("{\"vision_config\":{\"depth\":32,\"embed_dim\":1280,\"patch_size\":16,"
              "\"spatial_merge_size\":2}}",
              "qwen2_vl", 3584, &tokens);
        assert_int_equal(tokens, 784);
}

/* Pixtral-12B as LLaVA: the Pixtral tower (patch conv 3 x 16 x 16 x 1024
 * = 786,432, its RMSNorm 1024, 24 blocks of two RMSNorms 2048, q, k, v, o
 * 4 x 1024^2 = 4,194,304 and a gated MLP 3 x 1024 x 4096 = 12,582,912:
 * 16,779,264; x 24 = 402,702,336) and LlavaMultiModalProjector with its
 * biases, 1024 x 5120 + 5120 + 5120^2 + 5120 = 31,467,520: in all
 * 434,957,312.  No patch merger (that is Mistral 3's). */
static void test_pixtral_llava(void **state)
{
        (void)state;
        assert_int_equal(
                tower("{\"vision_config\":{\"model_type\":\"pixtral\",\"hidden_size\":1024,"
                      "\"image_size\":1024,\"patch_size\":16,\"intermediate_size\":4096,"
                      "\"num_hidden_layers\":24}}",
                      "llava", 5120, NULL),
                786432ull + 1024 + 24ull * 16779264 + 31467520);
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
                cmocka_unit_test(test_siglip_gemma3),    cmocka_unit_test(test_qwen2_5_vl),
                cmocka_unit_test(test_mllama),           cmocka_unit_test(test_through_importer),
                cmocka_unit_test(test_bad_key),          cmocka_unit_test(test_tower_blocks),
                cmocka_unit_test(test_tokens_per_image), cmocka_unit_test(test_pixtral_llava),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
