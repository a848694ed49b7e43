/*
 * test_notes.c - the names and sentences core/notes.c renders for the
 * engine's note codes: machine names are the API's stable identifiers,
 * sentences carry the note's figures in the units a reader expects
 * (GiB = 2^30 bytes), and a short buffer truncates instead of overrunning.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/estimate.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void test_names(void **state)
{
        (void)state;
        assert_string_equal(notes_name(EST_A_MFU), "mfu");
        assert_string_equal(notes_name(EST_A_DEFAULT_BATCH), "default_batch_size");
        assert_string_equal(notes_name(EST_S_BIGGER_GPU), "bigger_gpu");
        assert_string_equal(notes_name(EST_S_TENSOR_PARALLEL),
                            "more_gpus_tensor_parallel");
        /* A code without a machine name has the empty one, never NULL. */
        assert_string_equal(notes_name(65535), "");
}

struct text_row {
        struct est_note note;
        const char *text;
};

static void test_texts(void **state)
{
        (void)state;
        static const struct text_row rows[] = {
                /* a = 8 per GPU, printed with no decimals */
                {{EST_A_DEFAULT_BATCH, 8, 0}, "batch_size not given: 8 per GPU"},
                /* 80 x 2^30 = 85,899,345,920 bytes is 80.0 GiB */
                {{EST_S_BIGGER_GPU, 85899345920.0, 0}, "a GPU with 80.0 GiB holds it as requested"},
                /* b = GPUs */
                {{EST_S_ZERO3, 0, 8}, "shard with ZeRO-3/FSDP over 8 GPUs of this size"},
                {{EST_S_SMALLER_BATCH, 0, 4},
                 "batch size 4 per GPU fits; raise gradient accumulation to keep the global batch"},
                /* b = the target bits: q (0x01) | v (0x04), listed in module order */
                {{EST_A_DEFAULT_LORA, 8, 0x05},
                 "lora not given: rank 8 on q,v (PEFT defaults; QLoRA paper: all linear layers)"},
                /* 1.5 x 2^30 bytes = 1.50 GiB */
                {{EST_S_QLORA, 1610612736.0, 0}, "QLoRA (NF4 base weights): 1.50 GiB per GPU"},
                {{EST_A_MFU, 0.4, 0},
                 "model FLOPs utilisation 0.40 (default for this GPU class and precision)"},
                /* An unknown code still reads as something. */
                {{65535, 0, 0}, "note 65535"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                char buf[512];

                assert_string_equal(notes_text(&rows[i].note, buf, sizeof(buf)),
                                    rows[i].text);
        }
}

static void test_short_buffer(void **state)
{
        (void)state;
        struct est_note n = {EST_A_DEFAULT_BATCH, 8, 0};
        char buf[10];

        memset(buf, 'x', sizeof(buf));
        /* 9 characters and the terminator: "batch_siz" */
        assert_string_equal(notes_text(&n, buf, sizeof(buf)), "batch_siz");
        /* No room at all: nothing is written and the buffer is handed back. */
        assert_ptr_equal(notes_text(&n, buf, 0), buf);
        assert_null(notes_text(&n, NULL, 16));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_texts),
                cmocka_unit_test(test_short_buffer),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
