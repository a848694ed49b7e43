/*
 * test_model_id.c - model ids as users paste them (models/model_id.c): Hub
 * URLs read as repository ids, and repository ids with a revision.  The
 * URL forms are those the Hub's pages show: huggingface.co/{org}/{name},
 * /tree/{rev} for a branch or commit, /blob/{rev}/{file} and
 * /resolve/{rev}/{file} for a file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "models/model_id.h"

static void test_without_host(void **state)
{
        (void)state;
        static const struct {
                const char *typed, *id;
        } rows[] = {
                {"https://huggingface.co/meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-hf"},
                {"HTTPS://HuggingFace.co/meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-hf"},
                {"http://huggingface.co/gpt2", "gpt2"},
                {"huggingface.co/org/name", "org/name"},
                {"https://hf.co/org/name", "org/name"},
                {"hf.co/org/name", "org/name"},
                /* no host: as typed */
                {"llama-2-7b", "llama-2-7b"},
                {"meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-hf"},
                {"https://example.com/org/name", "https://example.com/org/name"},
                {"", ""},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                assert_string_equal(model_id_without_host(rows[i].typed), rows[i].id);
}

static void test_hub_ids(void **state)
{
        (void)state;
        static const struct {
                const char *typed, *repo, *rev;
        } ok[] = {
                {"Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", ""},
                {"https://huggingface.co/Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", ""},
                {"https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/", "Qwen/Qwen2.5-7B-Instruct",
                 ""},
                {"hf.co/openai/gpt-oss-20b/tree/main", "openai/gpt-oss-20b", "main"},
                {"https://huggingface.co/openai/gpt-oss-20b/blob/abc123/config.json",
                 "openai/gpt-oss-20b", "abc123"},
                {"http://mirror.example:8080/hf/org/name", "org/name", ""},
        };
        char repo[201], rev[201];
        for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
                assert_true(model_id_hub_repo(ok[i].typed, "http://mirror.example:8080/hf", repo,
                                              sizeof(repo), rev, sizeof(rev)));
                assert_string_equal(repo, ok[i].repo);
                assert_string_equal(rev, ok[i].rev);
        }
        static const char *const not_hub[] = {"llama-2-7b",
                                              "a/b/c",
                                              "/name",
                                              "org/",
                                              "org/../x",
                                              "org/na me",
                                              "https://huggingface.co/org/name/x"};
        for (size_t i = 0; i < sizeof(not_hub) / sizeof(not_hub[0]); i++)
                assert_false(model_id_hub_repo(not_hub[i], "https://huggingface.co", repo,
                                               sizeof(repo), rev, sizeof(rev)));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_without_host),
                cmocka_unit_test(test_hub_ids),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
