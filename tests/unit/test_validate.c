/*
 * test_validate.c - the whole-input checks of core/validate.c: each row
 * changes one thing about a valid LLaMA-2-7B request and names the field
 * (JSON pointer) and rule the refusal must carry, or the warning a
 * tolerable oddity must raise.  The arithmetic that decides each row is
 * written beside it.
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

typedef void (*mutate_fn)(struct estimate_input *in);

struct row {
        const char *why;
        mutate_fn mutate;
        const char *pointer; /* NULL: accepted */
        const char *rule;
        int warning; /* with pointer NULL: a warning code that must be raised, or 0 */
};

static void batch_zero(struct estimate_input *in)
{
        in->batch_size = 0;
}
static void batch_max(struct estimate_input *in)
{
        in->batch_size = 1048576; /* 2^20, the largest allowed */
}
static void batch_over(struct estimate_input *in)
{
        in->batch_size = 1048577;
}
static void gpus_over(struct estimate_input *in)
{
        in->gpus = 4097; /* EST_GPUS_MAX is 4096 */
}
static void nodes_uneven(struct estimate_input *in)
{
        in->strategy = EST_DDP;
        in->gpus = 8;
        in->nodes = 3; /* 8 = 2 x 3 + 2: nodes differ in GPU count */
}
static void tp_not_dividing_gpus(struct estimate_input *in)
{
        in->gpus = 8;
        in->tensor_parallel = 3; /* 8 mod 3 = 2 */
}
static void tp_not_dividing_heads(struct estimate_input *in)
{
        in->gpus = 12;
        in->tensor_parallel = 12; /* 32 heads mod 12 = 8 */
}
/* A model of 48 query heads and 6 key/value heads on tp GPUs. */
static void gqa_48_over_6(struct estimate_input *in, uint32_t tp)
{
        in->arch.heads = 48;
        in->arch.kv_heads = 6;
        in->arch.hidden = 6144;
        in->gpus = tp;
        in->tensor_parallel = tp;
}
static void tp_gqa_not_multiple(struct estimate_input *in)
{
        /* TP 16 divides 48 heads (48 = 3 x 16), but 6 < 16 and 16 mod 6 = 4:
         * the KV heads cannot be replicated evenly. */
        gqa_48_over_6(in, 16);
}
static void tp_gqa_multiple(struct estimate_input *in)
{
        /* TP 12: 48 mod 12 = 0, 6 < 12 and 12 mod 6 = 0: accepted. */
        gqa_48_over_6(in, 12);
}
static void pp_beyond_layers(struct estimate_input *in)
{
        in->gpus = 33;
        in->pipeline_parallel = 33; /* LLaMA-2-7B has 32 layers */
}
static void micro_batches_uneven(struct estimate_input *in)
{
        in->gpus = 2;
        in->pipeline_parallel = 2;
        in->batch_size = 6;
        in->micro_batches = 4; /* 6 mod 4 = 2 */
}
static void micro_batches_without_pp(struct estimate_input *in)
{
        in->micro_batches = 2;
}
static void sequence_parallel_without_tp(struct estimate_input *in)
{
        in->sequence_parallel = true;
}
static void qlora_unquantized(struct estimate_input *in)
{
        in->mode = EST_QLORA;
}
static void full_training_quantized(struct estimate_input *in)
{
        in->mode = EST_FINE_TUNE;
        in->quantization = EST_QUANT_NF4;
}
static void inference_offload(struct estimate_input *in)
{
        in->mode = EST_INFERENCE;
        in->offload = EST_OFFLOAD_OPTIMIZER;
}
static void zero3_one_gpu(struct estimate_input *in)
{
        in->strategy = EST_ZERO3;
}
static void inference_zero3(struct estimate_input *in)
{
        zero3_one_gpu(in);
        in->mode = EST_INFERENCE;
}
static void rope_beyond_max(struct estimate_input *in)
{
        in->sequence_length = 8192; /* max_positions 4096; rotary extrapolates */
}
static void learned_beyond_max(struct estimate_input *in)
{
        in->arch.position = MODEL_POS_LEARNED;
        in->sequence_length = 8192; /* no row 8192 in a 4096-row table */
}
static void prompt_plus_generated_mismatch(struct estimate_input *in)
{
        in->mode = EST_INFERENCE;
        in->prompt_tokens = 400;
        in->generated_tokens = 100;
        in->sequence_length = 512; /* 400 + 100 = 500, not 512 */
        in->set |= EST_SET_PROMPT | EST_SET_GENERATED | EST_SET_SEQUENCE;
}
static void prompt_plus_generated_match(struct estimate_input *in)
{
        in->mode = EST_INFERENCE;
        in->prompt_tokens = 412;
        in->generated_tokens = 100;
        in->sequence_length = 512; /* 412 + 100 = 512 */
        in->set |= EST_SET_PROMPT | EST_SET_GENERATED | EST_SET_SEQUENCE;
}
static void optimizer_in_backward_accumulating(struct estimate_input *in)
{
        in->optimizer_in_backward = true;
        in->gradient_accumulation = 4;
}
static void mfu_over_one(struct estimate_input *in)
{
        in->mfu = 1.5;
}
static void int4_tiny_group(struct estimate_input *in)
{
        in->mode = EST_QLORA;
        in->quantization = EST_QUANT_INT4;
        in->quant_group_size = 8; /* groups are 16..65536 */
}

static const struct row rows[] = {
        {"batch 0", batch_zero, "/workload/batch_size", "range", 0},
        {"batch 2^20 is the edge", batch_max, NULL, NULL, 0},
        {"batch 2^20 + 1", batch_over, "/workload/batch_size", "range", 0},
        {"4097 GPUs", gpus_over, "/parallelism/gpus", "range", 0},
        {"8 GPUs on 3 nodes", nodes_uneven, "/parallelism/nodes", "divides", 0},
        {"TP 3 on 8 GPUs", tp_not_dividing_gpus, "/parallelism/gpus", "divides", 0},
        {"TP 12 over 32 heads", tp_not_dividing_heads, "/parallelism/tensor_parallel", "divides",
         0},
        {"TP 16 over 6 KV heads", tp_gqa_not_multiple, "/parallelism/tensor_parallel", "divides",
         0},
        {"TP 12 over 6 KV heads", tp_gqa_multiple, NULL, NULL, 0},
        {"33 stages, 32 layers", pp_beyond_layers, "/parallelism/pipeline_parallel", "range", 0},
        {"batch 6 in 4 micro-batches", micro_batches_uneven, "/parallelism/micro_batches",
         "divides", 0},
        {"micro-batches without a pipeline", micro_batches_without_pp,
         "/parallelism/micro_batches", "contradiction", 0},
        {"sequence parallel without TP", sequence_parallel_without_tp,
         "/parallelism/sequence_parallel", "contradiction", 0},
        {"qlora over bf16 weights", qlora_unquantized, "/quantization", "contradiction", 0},
        {"full fine-tune of nf4 weights", full_training_quantized, "/quantization",
         "contradiction", 0},
        {"offload in inference", inference_offload, "/parallelism/offload", "contradiction", 0},
        {"zero3 in inference", inference_zero3, "/parallelism/strategy", "contradiction", 0},
        {"zero3 on one GPU", zero3_one_gpu, NULL, NULL, EST_W_ZERO3_ONE_GPU},
        {"rotary past max_positions", rope_beyond_max, NULL, NULL, EST_W_SEQUENCE_BEYOND_MAX},
        {"learned positions past the table", learned_beyond_max, "/workload/sequence_length",
         "range", 0},
        {"400 + 100 != 512", prompt_plus_generated_mismatch, "/workload/sequence_length",
         "contradiction", 0},
        {"412 + 100 == 512", prompt_plus_generated_match, NULL, NULL, 0},
        {"optimizer in backward with accumulation", optimizer_in_backward_accumulating,
         "/memory_savers/optimizer_in_backward", "contradiction", 0},
        {"mfu 1.5", mfu_over_one, "/mfu", "range", 0},
        {"int4 group of 8", int4_tiny_group, "/quantization_group_size", "range", 0},
};

static bool has_warning(const struct estimate_result *r, int code)
{
        for (size_t i = 0; i < r->n_warnings; i++)
                if (r->warnings[i].code == code)
                        return true;
        return false;
}

static void test_rows(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *w = &rows[i];
                static struct estimate_result res;
                struct estimate_input in;
                struct estimate_error err;
                int rc;

                estimate_input_defaults(&in);
                in.arch = llama2_7b();
                w->mutate(&in);
                memset(&res, 0, sizeof(res));
                memset(&err, 0, sizeof(err));
                rc = validate_input(&in, &res, &err);
                if (w->pointer) {
                        if (rc == 0 || strcmp(err.pointer, w->pointer) || strcmp(err.rule, w->rule))
                                fail_msg("%s: expected %s %s, got rc %d %s %s (%s)", w->why,
                                         w->pointer, w->rule, rc, err.pointer, err.rule,
                                         err.detail);
                } else {
                        if (rc != 0)
                                fail_msg("%s: refused: %s %s (%s)", w->why, err.pointer, err.rule,
                                         err.detail);
                        if (w->warning && !has_warning(&res, w->warning))
                                fail_msg("%s: warning %d not raised", w->why, w->warning);
                }
        }
}

/* LLaMA-2-7B's defaults, changed by change when it is not NULL, must be
 * accepted; the result stays valid until the next call. */
static const struct estimate_result *accepted_7b(void (*change)(struct estimate_input *in))
{
        static struct estimate_result res;
        struct estimate_input in;
        struct estimate_error err;

        estimate_input_defaults(&in);
        in.arch = llama2_7b();
        if (change)
                change(&in);
        memset(&res, 0, sizeof(res));
        assert_int_equal(validate_input(&in, &res, &err), 0);
        return &res;
}

/* The defaults themselves are a valid request and warn about nothing. */
static void test_defaults_clean(void **state)
{
        (void)state;
        const struct estimate_result *res = accepted_7b(NULL);
        assert_int_equal(res->n_warnings, 0);
}

/* The rotary warning carries the two lengths it compares. */
static void test_sequence_warning_figures(void **state)
{
        (void)state;
        const struct estimate_result *res = accepted_7b(rope_beyond_max);
        assert_int_equal(res->n_warnings, 1);
        assert_int_equal(res->warnings[0].code, EST_W_SEQUENCE_BEYOND_MAX);
        assert_true(res->warnings[0].a == 8192.0);
        assert_true(res->warnings[0].b == 4096.0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rows),
                cmocka_unit_test(test_defaults_clean),
                cmocka_unit_test(test_sequence_warning_figures),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
