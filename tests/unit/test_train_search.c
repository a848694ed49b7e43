/*
 * test_train_search.c - the plan search behind compare (server/plan/
 * train_search.c) on a small hand-made catalog, plain structs only.
 *
 * Catalog: a 24 GiB card rented one per pod at 0.50 USD/h, an 80 GiB
 * GPU rented as 8-GPU instances at 16.00 USD/h (2.00 USD per GPU-hour),
 * a 1 GiB card, an inference-only part, a GPU with no memory figure.
 * Workload: a 1.3B-parameter decoder (24 layers, hidden 2048) fully
 * fine-tuned with AdamW in bf16 mixed precision: 16 bytes per parameter
 * of model state (Rajbhandari et al. 2020, ZeRO section 3) = 21 GB before
 * activations, so one 24 GiB card is tight and 1 GiB never fits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "plan/train_search.h"

#define GiB (1024.0 * 1024 * 1024)

#include "catalog_fixtures.h"

static void gpu(struct catalog_tables *t, size_t i, const char *id, double mem_gib, bool train)
{
        struct gpu_spec *g = fixture_gpu(t, i, id, (uint64_t)(mem_gib * GiB));
        g->can_train = train;
        g->cuda = true;
        g->host_link_bytes_per_s = 32e9;
        g->memory_bandwidth_bytes_per_s = 2e12;
        g->flops[GPU_FP32] = 20e12;
        g->flops[GPU_TF32] = 150e12;
        g->flops[GPU_FP16] = 300e12;
        g->flops[GPU_BF16] = 300e12;
        g->link = GPU_LINK_NVLINK;
        g->link_bytes_per_s = 300e9;
}

static int setup(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;

        memset(&t, 0, sizeof(t));
        t.n_gpus = 5;
        t.gpus = calloc(5, sizeof(*t.gpus));
        t.gpu_infos = calloc(5, sizeof(*t.gpu_infos));
        /* Bytewise id order, as the loader sorts. */
        gpu(&t, 0, "big-80", 80, true);
        gpu(&t, 1, "card-24", 24, true);
        gpu(&t, 2, "infer-only", 32, false);
        gpu(&t, 3, "no-memory", 0, true);
        gpu(&t, 4, "tiny-1", 1, true);
        t.n_providers = 2;
        t.providers = calloc(2, sizeof(*t.providers));
        fixture_provider(&t, 0, "alpha", "gpu_cloud");
        fixture_provider(&t, 1, "beta", "gpu_cloud");
        t.n_offerings = t.n_prices = 4;
        t.offerings = calloc(4, sizeof(*t.offerings));
        t.prices = calloc(4, sizeof(*t.prices));
        fixture_offering(&t, 0, "alpha-8x-big", "alpha", "big-80", 8, 16.0);
        fixture_offering(&t, 1, "beta-1x-card", "beta", "card-24", 1, 0.5);
        fixture_offering(&t, 2, "beta-1x-infer", "beta", "infer-only", 1, 0.1);
        fixture_offering(&t, 3, "beta-1x-tiny", "beta", "tiny-1", 1, 0.01);
        fixture_install(c, &t, 1);
        *state = c;
        return 0;
}

static void workload(struct estimate_input *in)
{
        fixture_decoder_1b(in);
}

static const struct plan_train_excluded *find_excluded(const struct plan_train_result *r, size_t gi)
{
        for (size_t i = 0; i < r->n_excluded; i++)
                if (r->excluded[i].gpu_index == gi)
                        return &r->excluded[i];
        return NULL;
}

static void test_plans_are_priced_and_fit(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input in;
        struct plan_train_constraints c;
        struct plan_train_result r;
        struct estimate_error e;
        static struct estimate_result check;
        size_t n, n_off;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        const struct catalog_offering *off = catalog_offerings(s, &n_off);

        workload(&in);
        plan_train_search_constraints_defaults(&c);
        c.max_gpus = 16;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        assert_true(r.has_hours);
        assert_true(r.n_plans >= 1);
        for (size_t i = 0; i < r.n_plans; i++) {
                const struct plan_train_plan *p = &r.plans[i];
                const struct catalog_offering *o = &off[p->offering_index];
                double per_gpu_hour = p->price->usd_per_hour / o->gpus_per_instance;

                /* Whole instances only. */
                assert_int_equal(p->gpus % (uint32_t)o->gpus_per_instance, 0);
                assert_int_equal(p->instances * (uint32_t)o->gpus_per_instance, p->gpus);
                /* cost = GPUs x hours x stored price per GPU-hour. */
                assert_true(p->hours > 0);
                assert_close(p->cost_usd, p->gpus * p->hours * per_gpu_hour);
                /* The plan fits by the engine's own full estimate, re-run here. */
                assert_int_equal(estimate_run(&p->input, &gpus[p->gpu_index], 1, &check, &e), 0);
                assert_int_equal(check.per_gpu_total_bytes, p->per_gpu_bytes);
                assert_true(p->per_gpu_bytes <= gpus[p->gpu_index].usable_memory_bytes);
                /* Ranked by cost. */
                if (i > 0)
                        assert_true(r.plans[i - 1].cost_usd <= p->cost_usd * (1 + 1e-4));
        }
        /* The 8-GPU instance is 2.00 USD per GPU-hour: 16.00 / 8. */
        for (size_t i = 0; i < r.n_plans; i++)
                if (strcmp(off[r.plans[i].offering_index].id, "alpha-8x-big") == 0)
                        assert_close(r.plans[i].usd_per_gpu_hour, 2.0);

        /* Excluded with reasons: too small, inference-only, unknown memory. */
        assert_non_null(strstr(find_excluded(&r, 4)->reason, "does not fit"));
        assert_non_null(strstr(find_excluded(&r, 2)->reason, "inference-only"));
        assert_non_null(strstr(find_excluded(&r, 3)->reason, "no memory size"));
        plan_train_search_result_free(&r);
        catalog_release(s);
}

static void test_evaluated_counts_the_plan_space(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input in;
        struct plan_train_constraints c;
        struct plan_train_result r;
        struct estimate_error e;

        workload(&in);
        plan_train_search_constraints_defaults(&c);
        c.max_gpus = 4;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        /*
         * Per GPU checked: count 1 has one strategy (single), counts 2..4
         * have five (ddp, zero1, zero2, zero3, fsdp): 1 + 3 x 5 = 16 layouts,
         * x 5 savers = 80 points.  Three GPUs are checked (big-80, card-24,
         * tiny-1); infer-only and no-memory are excluded before any check.
         */
        assert_int_equal(r.evaluated, 3 * 80);
        /* max_gpus 4 < 8 GPUs per instance: that offering is excluded, not priced. */
        for (size_t i = 0; i < r.n_plans; i++)
                assert_int_not_equal(r.plans[i].gpu_index, 0);
        assert_non_null(strstr(find_excluded(&r, 0)->reason, "more than max_gpus"));
        plan_train_search_result_free(&r);

        /* No savers allowed: one level per layout, 3 GPUs x 16 layouts, and plans add nothing. */
        c.savers_allowed = 0;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        assert_int_equal(r.evaluated, 3 * 16);
        for (size_t i = 0; i < r.n_plans; i++)
                assert_int_equal(r.plans[i].saver, PLAN_SAVER_NONE);
        plan_train_search_result_free(&r);
        catalog_release(s);
}

static void test_constraints_filter_and_rank(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input in;
        struct plan_train_constraints c;
        struct plan_train_result r;
        struct estimate_error e;
        size_t n_off;
        const struct catalog_offering *off = catalog_offerings(s, &n_off);

        workload(&in);

        /* Only provider alpha. */
        plan_train_search_constraints_defaults(&c);
        c.providers[c.n_providers++] = "alpha";
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        for (size_t i = 0; i < r.n_plans; i++)
                assert_string_equal(off[r.plans[i].offering_index].provider_id, "alpha");
        plan_train_search_result_free(&r);

        /* By time: hours never decrease down the list. */
        plan_train_search_constraints_defaults(&c);
        c.rank_by = PLAN_RANK_TIME;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        for (size_t i = 1; i < r.n_plans; i++)
                assert_true(r.plans[i - 1].hours <= r.plans[i].hours * (1 + 1e-4));
        plan_train_search_result_free(&r);

        /* A deadline nothing can meet: no plans, each priced offering says why. */
        plan_train_search_constraints_defaults(&c);
        c.deadline_hours = 1e-6;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        assert_int_equal(r.n_plans, 0);
        for (size_t i = 0; i < r.n_excluded; i++)
                if (r.excluded[i].offering_index != SIZE_MAX)
                        assert_non_null(strstr(r.excluded[i].reason, "deadline"));
        plan_train_search_result_free(&r);

        /* A budget of one cent: the same, for money. */
        plan_train_search_constraints_defaults(&c);
        c.budget_usd = 0.01;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        assert_int_equal(r.n_plans, 0);
        plan_train_search_result_free(&r);
        catalog_release(s);
}

static void test_without_dataset_ranks_per_token(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input in;
        struct plan_train_constraints c;
        struct plan_train_result r;
        struct estimate_error e;

        workload(&in);
        in.dataset_samples = 0;
        plan_train_search_constraints_defaults(&c);
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);
        assert_false(r.has_hours);
        assert_true(r.n_plans >= 1);
        for (size_t i = 0; i < r.n_plans; i++) {
                const struct plan_train_plan *p = &r.plans[i];

                assert_true(p->hours < 0 && p->cost_usd < 0);
                /* USD per million tokens = GPUs x USD/GPU-hour / 3600 / tokens/s x 1e6. */
                assert_close(p->usd_per_million_tokens,
                             p->gpus * p->usd_per_gpu_hour / 3600 / p->tokens_per_second * 1e6);
        }
        plan_train_search_result_free(&r);
        catalog_release(s);
}

/*
 * A second catalog for host memory and precision support:
 *   card-16     16 GiB, bf16 and fp16 at 300 TFLOP/s, rented by three
 *               single-GPU offerings that differ only in host RAM:
 *               12.7 GiB (a free notebook VM), 256 GiB, and unknown;
 *   fp16-only   16 GiB, fp16 at 65 TFLOP/s and no bf16 figure (a T4-like part);
 *   fp32-only   16 GiB, no fp16 or bf16 figure (a K80-like part).
 */
static int setup_hosts(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;

        memset(&t, 0, sizeof(t));
        t.n_gpus = 3;
        t.gpus = calloc(3, sizeof(*t.gpus));
        t.gpu_infos = calloc(3, sizeof(*t.gpu_infos));
        gpu(&t, 0, "card-16", 16, true);
        gpu(&t, 1, "fp16-only", 16, true);
        t.gpus[1].flops[GPU_BF16] = 0;
        t.gpus[1].flops[GPU_FP16] = 65e12;
        t.gpus[1].flops[GPU_TF32] = 0;
        gpu(&t, 2, "fp32-only", 16, true);
        t.gpus[2].flops[GPU_BF16] = 0;
        t.gpus[2].flops[GPU_FP16] = 0;
        t.gpus[2].flops[GPU_TF32] = 0;
        t.n_providers = 1;
        t.providers = calloc(1, sizeof(*t.providers));
        fixture_provider(&t, 0, "alpha", "gpu_cloud");
        t.n_offerings = t.n_prices = 5;
        t.offerings = calloc(5, sizeof(*t.offerings));
        t.prices = calloc(5, sizeof(*t.prices));
        /* Bytewise id order, as the loader sorts. */
        fixture_offering(&t, 0, "big-ram", "alpha", "card-16", 1, 1.0);
        t.offerings[0].ram_bytes = 256 * (uint64_t)GiB;
        fixture_offering(&t, 1, "fp16-box", "alpha", "fp16-only", 1, 0.3);
        fixture_offering(&t, 2, "fp32-box", "alpha", "fp32-only", 1, 0.2);
        fixture_offering(&t, 3, "small-ram", "alpha", "card-16", 1, 0.0);
        t.offerings[3].ram_bytes = (uint64_t)(12.7 * GiB);
        fixture_offering(&t, 4, "unknown-ram", "alpha", "card-16", 1, 0.5);
        fixture_install(c, &t, 2);
        *state = c;
        return 0;
}

static const struct plan_train_plan *
find_plan(const struct catalog_snapshot *s, const struct plan_train_result *r, const char *offering)
{
        size_t n_off;
        const struct catalog_offering *off = catalog_offerings(s, &n_off);

        for (size_t i = 0; i < r->n_plans; i++)
                if (strcmp(off[r->plans[i].offering_index].id, offering) == 0)
                        return &r->plans[i];
        return NULL;
}

static const struct plan_train_excluded *find_excluded_offering(const struct catalog_snapshot *s,
                                                                const struct plan_train_result *r,
                                                                const char *offering)
{
        size_t n_off;
        const struct catalog_offering *off = catalog_offerings(s, &n_off);

        for (size_t i = 0; i < r->n_excluded; i++)
                if (r->excluded[i].offering_index != SIZE_MAX &&
                    strcmp(off[r->excluded[i].offering_index].id, offering) == 0)
                        return &r->excluded[i];
        return NULL;
}

/*
 * The 1.3B model on one 16 GiB card: AdamW in mixed precision keeps 16
 * bytes of model state per parameter (ZeRO, Rajbhandari et al. 2020,
 * section 3): 24 x 12 x 2048^2 + 50257 x 2048 + 2048 x 2048 = 1.315e9
 * parameters -> 21.0e9 bytes > 17.2e9 (16 GiB), so only optimizer offload
 * fits.  Offloaded, the CPU holds fp32 parameters, fp32 gradients and both
 * Adam moments, 16 bytes per parameter (ZeRO-Offload, Ren et al. 2021):
 * at least 16 x 1.3e9 = 20.8e9 bytes, more than a 12.7 GiB (13.6e9 byte)
 * notebook VM has and far less than 256 GiB (274.9e9 bytes).
 */
static void test_host_memory_limits_offload(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input in;
        struct plan_train_constraints c;
        struct plan_train_result r;
        struct estimate_error e;
        const struct plan_train_plan *big, *unknown;
        const struct plan_train_excluded *small;

        workload(&in);
        plan_train_search_constraints_defaults(&c);
        c.max_gpus = 1;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);

        /* The free notebook VM would rank first at 0 USD, but its RAM is too small. */
        assert_null(find_plan(s, &r, "small-ram"));
        small = find_excluded_offering(s, &r, "small-ram");
        assert_non_null(small);
        assert_non_null(strstr(small->reason, "CPU memory"));

        big = find_plan(s, &r, "big-ram");
        assert_non_null(big);
        assert_int_equal(big->saver, PLAN_SAVER_OFFLOAD);
        assert_true(big->cpu_bytes_per_instance >= 20.8e9);
        assert_true(big->cpu_bytes_per_instance <= 256 * (uint64_t)GiB);
        assert_false(big->ram_unknown);

        /* Unknown RAM: planned, but flagged rather than assumed to fit. */
        unknown = find_plan(s, &r, "unknown-ram");
        assert_non_null(unknown);
        assert_true(unknown->ram_unknown);
        assert_int_equal(unknown->cpu_bytes_per_instance, big->cpu_bytes_per_instance);
        plan_train_search_result_free(&r);
        catalog_release(s);
}

/*
 * bf16 asked for: the fp16-only part is planned at fp16 mixed precision and
 * timed at its 65 TFLOP/s fp16 rate; the card with bf16 keeps bf16; the
 * part with neither has no rate to time the job with and is excluded.
 */
static void test_bf16_replanned_on_gpus_without_it(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input in;
        struct plan_train_constraints c;
        struct plan_train_result r;
        struct estimate_error e;
        static struct estimate_result check;
        size_t n;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        const struct plan_train_plan *fp16, *bf16;
        const struct plan_train_excluded *fp32;

        workload(&in);
        /* A 124M-parameter model (12 layers, hidden 768) fits 16 GiB without savers. */
        in.arch.layers = 12;
        in.arch.hidden = 768;
        in.arch.heads = 12;
        in.arch.kv_heads = 12;
        in.arch.head_dim = 64;
        in.arch.ffn = 3072;
        plan_train_search_constraints_defaults(&c);
        c.max_gpus = 1;
        assert_int_equal(plan_train_search(s, &in, &c, &r, &e), 0);

        fp16 = find_plan(s, &r, "fp16-box");
        assert_non_null(fp16);
        assert_true(fp16->precision_substituted);
        assert_int_equal(fp16->input.precision, EST_FP16_MIXED);
        assert_int_equal(estimate_run(&fp16->input, &gpus[fp16->gpu_index], 1, &check, &e), 0);
        assert_close(check.peak_flops_per_gpu, 65e12);
        assert_int_equal(check.per_gpu_total_bytes, fp16->per_gpu_bytes);

        bf16 = find_plan(s, &r, "big-ram");
        assert_non_null(bf16);
        assert_false(bf16->precision_substituted);
        assert_int_equal(bf16->input.precision, EST_BF16_MIXED);

        assert_null(find_plan(s, &r, "fp32-box"));
        fp32 = find_excluded_offering(s, &r, "fp32-box");
        assert_non_null(fp32);
        assert_non_null(strstr(fp32->reason, "throughput"));
        plan_train_search_result_free(&r);
        catalog_release(s);
}

/* The savers a plan adds over the request, as labelled in the compare answer. */
static void test_savers_added(void **state)
{
        static const struct {
                bool base_flash;
                enum est_checkpointing base_ckpt, run_ckpt;
                bool run_flash, run_offload;
                unsigned want;
                const char *why;
        } rows[] = {
                {false, EST_CKPT_NONE, EST_CKPT_NONE, false, false, 0, "the request as given"},
                {false, EST_CKPT_NONE, EST_CKPT_NONE, true, false, PLAN_ALLOW_FLASH, "flash added"},
                {true, EST_CKPT_NONE, EST_CKPT_NONE, true, false, 0, "flash was asked for"},
                {false, EST_CKPT_NONE, EST_CKPT_SELECTIVE, true, false,
                 PLAN_ALLOW_FLASH | PLAN_ALLOW_SELECTIVE, "selective level"},
                {false, EST_CKPT_SELECTIVE, EST_CKPT_FULL, true, false,
                 PLAN_ALLOW_FLASH | PLAN_ALLOW_FULL, "full replaces the asked selective"},
                {true, EST_CKPT_FULL, EST_CKPT_FULL, true, true, PLAN_ALLOW_OFFLOAD,
                 "only offload is new"},
        };

        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct estimate_input base, run;

                estimate_input_defaults(&base);
                base.flash_attention = rows[i].base_flash;
                base.checkpointing = rows[i].base_ckpt;
                run = base;
                run.flash_attention = rows[i].run_flash;
                run.checkpointing = rows[i].run_ckpt;
                if (rows[i].run_offload)
                        run.offload = EST_OFFLOAD_OPTIMIZER;
                if (plan_train_search_savers_added(&base, &run) != rows[i].want)
                        fail_msg("%s: got 0x%x, want 0x%x", rows[i].why,
                                 plan_train_search_savers_added(&base, &run), rows[i].want);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plans_are_priced_and_fit),
                cmocka_unit_test(test_evaluated_counts_the_plan_space),
                cmocka_unit_test(test_constraints_filter_and_rank),
                cmocka_unit_test(test_without_dataset_ranks_per_token),
                cmocka_unit_test(test_savers_added),
        };
        const struct CMUnitTest host_tests[] = {
                cmocka_unit_test(test_host_memory_limits_offload),
                cmocka_unit_test(test_bf16_replanned_on_gpus_without_it),
        };
        int failed =
                cmocka_run_group_tests_name("train_search", tests, setup, fixture_catalog_teardown);

        return failed + cmocka_run_group_tests_name("train_search hosts and precision", host_tests,
                                                    setup_hosts, fixture_catalog_teardown);
}
