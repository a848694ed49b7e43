/*
 * test_derive.c - what core/derive.c derives from a request before any
 * memory is counted: trainable parameters, bytes per weight, gradient,
 * master copy, optimizer state and KV element.  Every expected figure is
 * worked out in the comment beside it from the published rule it follows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/estimate_internal.h"

#include "engine_fixtures.h"

static struct estimate_result res;

static void derive_ok(const struct estimate_input *in, struct derived *d)
{
        struct estimate_error err;

        memset(&res, 0, sizeof(res));
        if (derive_input(in, d, &res, &err))
                fail_msg("derive_input: %s %s %s", err.pointer, err.rule, err.detail);
}

static void llama(struct estimate_input *in)
{
        estimate_input_defaults(in);
        in->arch = llama2_7b();
}

/* LoRA r = 8 on q_proj and v_proj of LLaMA-2-7B: each adapter is
 * A (r x in) + B (out x r) = 8 x (4096 + 4096) = 65,536 parameters; two per
 * layer over 32 layers: 32 x 2 x 65,536 = 4,194,304, the count PEFT's
 * print_trainable_parameters() reports for this setup.  PEFT keeps the
 * adapters in fp32: 4 bytes per adapter weight and per gradient. */
static void test_lora_qv_r8(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.mode = EST_LORA;
        in.lora_rank = 8;
        in.lora_targets = EST_LORA_Q | EST_LORA_V;
        derive_ok(&in, &d);
        assert_true(d.training && d.lora);
        assert_true(d.P_trainable == 4194304.0);
        assert_true(d.e_adapter == 4.0);
        assert_true(d.e_g == 4.0);
        assert_true(d.e_master == 0.0);
        assert_true(d.P == P7); /* the base model runs whole */
}

/* LoRA r = 16 on all seven linear modules: per layer q, k, v, o are
 * 4 x (4096 + 4096) = 32,768 and gate, up, down are 3 x (4096 + 11008)
 * = 45,312, together 78,080; x 16 x 32 layers = 39,976,960 (the QLoRA
 * recipe's "all linear layers" on LLaMA-2-7B). */
static void test_lora_all_linear_r16(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.mode = EST_LORA;
        in.lora_rank = 16;
        in.lora_targets = EST_LORA_Q | EST_LORA_K | EST_LORA_V | EST_LORA_O | EST_LORA_GATE |
                          EST_LORA_UP | EST_LORA_DOWN;
        derive_ok(&in, &d);
        assert_true(d.P_trainable == 39976960.0);
}

/* Full pre-training, bf16 mixed, AdamW on one GPU: PyTorch AMP keeps fp32
 * weights (4 B) and fp32 gradients (4 B), which double as the master copy
 * (0 B), plus Adam's exp_avg and exp_avg_sq (4 + 4 = 8 B): 16 B per
 * parameter.  Every parameter trains; the first gradient backward writes
 * is the untied head's, 32,000 x 4,096 = 131,072,000 weights. */
static void test_amp_pretrain(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        derive_ok(&in, &d);
        assert_true(d.amp);
        assert_true(d.e_w == 4.0 && d.e_g == 4.0 && d.e_master == 0.0 && d.e_opt == 8.0);
        assert_true(d.e_w + d.e_g + d.e_master + d.e_opt == 16.0);
        assert_true(d.P_trainable == P7);
        assert_true(d.P_head_grad == 131072000.0);
        assert_true(d.e_a == 2.0); /* bf16 activations */
}

/* The same under DeepSpeed ZeRO-2 on two GPUs: the ZeRO paper's
 * accounting (Rajbhandari et al. 2020, section 3.1) of fp16 weights 2 +
 * fp16 gradients 2 + fp32 master 4 + Adam 8 = 16 B, sharded over 2. */
static void test_zero2_pretrain(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.strategy = EST_ZERO2;
        in.gpus = 2;
        derive_ok(&in, &d);
        assert_false(d.amp);
        assert_true(d.e_w == 2.0 && d.e_g == 2.0 && d.e_master == 4.0 && d.e_opt == 8.0);
}

/* Pure bf16 with SGD and momentum (torchtune's style of keeping states in
 * the parameter dtype): one momentum buffer of 2 bytes, no master copy. */
static void test_pure_bf16_sgd_momentum(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.precision = EST_BF16;
        in.optimizer = EST_OPT_SGD_MOMENTUM;
        derive_ok(&in, &d);
        assert_true(d.pure_half);
        assert_true(d.e_opt == 2.0);
        assert_true(d.e_master == 0.0);
}

/* NF4 with double quantization (Dettmers et al. 2023, QLoRA section 3):
 * 4 bits + 8/64 bit of quantized absmax + 32/(64 x 256) bit of second-level
 * constant = 4.126953125 bits = 0.515869140625 bytes per weight. */
static void test_nf4_double_quant(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.mode = EST_QLORA;
        in.quantization = EST_QUANT_NF4;
        in.double_quant = true;
        derive_ok(&in, &d);
        assert_true(d.e_q == 0.515869140625);
        /* Without double quantization: one fp32 absmax per 64 weights,
         * 4 + 32/64 = 4.5 bits = 0.5625 bytes. */
        in.double_quant = false;
        derive_ok(&in, &d);
        assert_true(d.e_q == 0.5625);
}

/* GPTQ/AWQ int4 with group 128: 4 bits + an fp16 scale and a 4-bit zero
 * per 128 weights, 4 + 20/128 = 4.15625 bits = 0.51953125 bytes. */
static void test_int4_group128(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.mode = EST_INFERENCE;
        in.quantization = EST_QUANT_INT4;
        in.quant_group_size = 128;
        derive_ok(&in, &d);
        assert_true(d.e_q == 0.51953125);
        assert_true(d.e_w == 2.0); /* the rest stays bf16 */
}

/* Inference trains nothing; the KV cache follows the compute dtype unless
 * stated: fp32 -> 4 bytes, bf16 with an fp8 cache -> 1 byte. */
static void test_inference_kv_bytes(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;

        llama(&in);
        in.mode = EST_INFERENCE;
        in.precision = EST_FP32;
        derive_ok(&in, &d);
        assert_false(d.training);
        assert_true(d.P_trainable == 0.0);
        assert_true(d.e_w == 4.0 && d.e_a == 4.0 && d.e_kv == 4.0);

        llama(&in);
        in.mode = EST_INFERENCE;
        in.kv_dtype = EST_KV_FP8;
        derive_ok(&in, &d);
        assert_true(d.e_kv == 1.0);
}

/* A broken architecture is refused with the field's pointer. */
static void test_bad_architecture(void **state)
{
        (void)state;
        struct estimate_input in;
        struct derived d;
        struct estimate_error err;

        llama(&in);
        in.arch.layers = 0;
        memset(&err, 0, sizeof(err));
        assert_int_not_equal(derive_input(&in, &d, &res, &err), 0);
        assert_string_equal(err.pointer, "/model/architecture/layers");
        assert_string_equal(err.rule, "architecture");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lora_qv_r8),
                cmocka_unit_test(test_lora_all_linear_r16),
                cmocka_unit_test(test_amp_pretrain),
                cmocka_unit_test(test_zero2_pretrain),
                cmocka_unit_test(test_pure_bf16_sgd_momentum),
                cmocka_unit_test(test_nf4_double_quant),
                cmocka_unit_test(test_int4_group128),
                cmocka_unit_test(test_inference_kv_bytes),
                cmocka_unit_test(test_bad_architecture),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
