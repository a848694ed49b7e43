/*
 * test_model_lookup.c - a checkpoint's quantization_config as the request's
 * quantization (api/model_lookup.c), one row per format, with each
 * format's keys as its library writes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <jansson.h>

#include "api/model_lookup.h"

static void test_quantization_formats(void **state)
{
        (void)state;
        static const struct {
                const char *config, *quantization, *format;
                unsigned group;
        } rows[] = {
                /* AutoGPTQ (TheBloke/Llama-2-7B-Chat-GPTQ) */
                {"{\"quantization_config\":{\"bits\":4,\"group_size\":128,\"desc_act\":false,"
                 "\"quant_method\":\"gptq\"}}",
                 "int4", "GPTQ 4-bit", 128},
                {"{\"quantization_config\":{\"bits\":8,\"group_size\":-1,\"quant_method\":\"gptq\"}"
                 "}",
                 "int8", "GPTQ 8-bit", 0},
                /* AutoAWQ (Qwen/Qwen2.5-7B-Instruct-AWQ); older exports write w_bit, q_group_size
                 */
                {"{\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\","
                 "\"version\":\"gemm\",\"zero_point\":true}}",
                 "int4", "AWQ 4-bit", 128},
                {"{\"quantization_config\":{\"w_bit\":4,\"q_group_size\":64,\"quant_method\":"
                 "\"awq\"}}",
                 "int4", "AWQ 4-bit", 64},
                /* bitsandbytes (unsloth/llama-3-8b-bnb-4bit; an 8-bit save) */
                {"{\"quantization_config\":{\"_load_in_4bit\":true,\"load_in_4bit\":true,"
                 "\"bnb_4bit_quant_type\":\"nf4\",\"quant_method\":\"bitsandbytes\"}}",
                 "nf4", "bitsandbytes 4-bit", 0},
                {"{\"quantization_config\":{\"load_in_8bit\":true,\"load_in_4bit\":false,"
                 "\"quant_method\":\"bitsandbytes\"}}",
                 "int8", "bitsandbytes 8-bit", 0},
                /* DeepSeek-V3's block fp8 */
                {"{\"quantization_config\":{\"activation_scheme\":\"dynamic\",\"fmt\":\"e4m3\","
                 "\"quant_method\":\"fp8\",\"weight_block_size\":[128,128]}}",
                 "fp8", "fp8", 0},
                /* compressed-tensors: FP8 (neuralmagic) and W4A16 */
                {"{\"quantization_config\":{\"config_groups\":{\"group_0\":{\"weights\":"
                 "{\"num_bits\":8,\"type\":\"float\"}}},\"quant_method\":\"compressed-tensors\"}}",
                 "fp8", "compressed-tensors float 8-bit", 0},
                {"{\"quantization_config\":{\"config_groups\":{\"group_0\":{\"weights\":"
                 "{\"num_bits\":4,\"type\":\"int\",\"group_size\":128}}},"
                 "\"quant_method\":\"compressed-tensors\"}}",
                 "int4", "compressed-tensors int 4-bit", 128},
                /* gpt-oss: MXFP4 on the experts (the engine's mxfp4), no group size */
                {"{\"quantization_config\":{\"quant_method\":\"mxfp4\"}}", "mxfp4", "MXFP4", 0},
                /* a wrapper keeps it in text_config */
                {"{\"text_config\":{\"quantization_config\":{\"quant_method\":\"fp8\"}}}", "fp8",
                 "fp8", 0},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                json_t *cfg = json_loads(rows[i].config, 0, NULL);
                const char *q = NULL;
                unsigned group = 99;
                char format[64];
                assert_non_null(cfg);
                assert_int_equal(
                        api_model_lookup_quantization(cfg, &q, &group, format, sizeof(format)), 0);
                assert_string_equal(q, rows[i].quantization);
                assert_string_equal(format, rows[i].format);
                assert_int_equal(group, rows[i].group);
                json_decref(cfg);
        }
        /* none, or one not understood: the request's own quantization stands */
        const char *none[] = {"{}", "{\"quantization_config\":{\"quant_method\":\"hqq\"}}",
                              "{\"quantization_config\":{\"config_groups\":{},"
                              "\"quant_method\":\"compressed-tensors\"}}"};
        for (size_t i = 0; i < 3; i++) {
                json_t *cfg = json_loads(none[i], 0, NULL);
                const char *q = NULL;
                unsigned group;
                char format[64];
                assert_int_equal(
                        api_model_lookup_quantization(cfg, &q, &group, format, sizeof(format)), -1);
                json_decref(cfg);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_quantization_formats),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
