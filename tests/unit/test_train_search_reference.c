/*
 * test_train_search_reference.c - the plan search behind compare (server/
 * plan/train_search.c) prepares each layout's memory model once and times
 * it on every GPU, works out its memory table only where the search
 * looks, and skips layouts whose time floor ranks them after a plan it
 * already has.  It must rank exactly the plans the exhaustive search
 * ranked, which runs every layout through estimate_run() on every GPU
 * (train_search_reference.c).  Both run here over a varied catalog and a
 * varied set of requests and constraints (80 chosen, 120 drawn at random
 * from a fixed seed), and every plan, every exclusion reason and the count
 * of points evaluated must be the same, figure for figure (no tolerance:
 * the same engine arithmetic on the same inputs).  The floor itself is
 * checked against estimate_run() layout by layout.
 *
 * Catalog (ids in bytewise order, as the loader sorts them):
 *   a100-80   80 GiB, bf16 312 TFLOP/s, NVLink 300 GB/s
 *   a40-48    48 GiB, bf16 150 TFLOP/s, PCIe only
 *   fp16-16   16 GiB, fp16 125 TFLOP/s, no bf16 (V100-like: bf16 replanned)
 *   fp32-12   12 GiB, fp32 only (K80-like: mixed precision has no rate)
 *   infer-24  inference-only part
 *   l4-24     24 GiB, bf16 120 TFLOP/s
 *   nomem     no memory figure
 *   tiny-2    2 GiB: fits nothing that trains
 * offered one, two, four and eight to an instance, with and without a
 * network figure and a RAM figure (one too small for offloading), by two
 * clouds and a notebook service (one session: no second instance).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "plan/train_search.h"
#include "train_search_reference.h"

#define GiB (1024.0 * 1024 * 1024)

#include "catalog_fixtures.h"

static void gpu(struct catalog_tables *t, size_t i, const char *id, double mem_gib, double bf16,
                double link_bytes_per_s, bool train)
{
        struct gpu_spec *g = fixture_gpu(t, i, id, (uint64_t)(mem_gib * GiB));
        g->can_train = train;
        g->cuda = true;
        g->host_link_bytes_per_s = 32e9;
        g->memory_bandwidth_bytes_per_s = 1.5e12;
        g->flops[GPU_FP32] = 19.5e12;
        g->flops[GPU_TF32] = bf16 / 2;
        g->flops[GPU_FP16] = bf16;
        g->flops[GPU_BF16] = bf16;
        g->link = link_bytes_per_s > 0 ? GPU_LINK_NVLINK : GPU_LINK_PCIE;
        g->link_bytes_per_s = link_bytes_per_s;
}

static int setup(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;
        size_t n = 0;

        memset(&t, 0, sizeof(t));
        t.n_gpus = 8;
        t.gpus = calloc(8, sizeof(*t.gpus));
        t.gpu_infos = calloc(8, sizeof(*t.gpu_infos));
        gpu(&t, 0, "a100-80", 80, 312e12, 300e9, true);
        gpu(&t, 1, "a40-48", 48, 150e12, 0, true);
        gpu(&t, 2, "fp16-16", 16, 125e12, 150e9, true);
        t.gpus[2].flops[GPU_BF16] = 0;
        gpu(&t, 3, "fp32-12", 12, 0, 0, true);
        t.gpus[3].flops[GPU_TF32] = 0;
        gpu(&t, 4, "infer-24", 24, 200e12, 0, false);
        gpu(&t, 5, "l4-24", 24, 120e12, 0, true);
        gpu(&t, 6, "nomem", 0, 100e12, 0, true);
        gpu(&t, 7, "tiny-2", 2, 50e12, 0, true);
        t.n_providers = 3;
        t.providers = calloc(3, sizeof(*t.providers));
        fixture_provider(&t, 0, "alpha", "gpu_cloud");
        fixture_provider(&t, 1, "beta", "hyperscaler");
        fixture_provider(&t, 2, "gamma", "notebook");
        t.n_offerings = t.n_prices = 14;
        t.offerings = calloc(14, sizeof(*t.offerings));
        t.prices = calloc(14, sizeof(*t.prices));
        fixture_offering(&t, n++, "alpha-1x-a100", "alpha", "a100-80", 1, 1.9);
        fixture_offering(&t, n, "alpha-1x-l4", "alpha", "l4-24", 1, 0.7);
        t.offerings[n++].ram_bytes = (uint64_t)(30 * GiB);
        fixture_offering(&t, n, "alpha-2x-a40", "alpha", "a40-48", 2, 1.6);
        t.offerings[n++].network_bytes_per_s = 12.5e9;
        fixture_offering(&t, n++, "alpha-4x-fp16", "alpha", "fp16-16", 4, 3.0);
        fixture_offering(&t, n, "alpha-8x-a100", "alpha", "a100-80", 8, 14.0);
        t.offerings[n].network_bytes_per_s = 400e9;
        t.offerings[n++].ram_bytes = (uint64_t)(2048 * GiB);
        fixture_offering(&t, n++, "beta-1x-fp32", "beta", "fp32-12", 1, 0.2);
        fixture_offering(&t, n++, "beta-1x-infer", "beta", "infer-24", 1, 0.4);
        fixture_offering(&t, n, "beta-1x-l4", "beta", "l4-24", 1, 0.8);
        t.offerings[n++].ram_bytes = (uint64_t)(256 * GiB);
        fixture_offering(&t, n++, "beta-1x-nomem", "beta", "nomem", 1, 0.3);
        fixture_offering(&t, n++, "beta-1x-tiny", "beta", "tiny-2", 1, 0.05);
        fixture_offering(&t, n, "beta-4x-a100", "beta", "a100-80", 4, 8.0);
        t.offerings[n++].network_bytes_per_s = 100e9;
        fixture_offering(&t, n++, "beta-8x-l4", "beta", "l4-24", 8, 6.0);
        fixture_offering(&t, n, "gamma-1x-fp16", "gamma", "fp16-16", 1, 0.0);
        t.offerings[n++].ram_bytes = (uint64_t)(12.7 * GiB);
        fixture_offering(&t, n++, "gamma-2x-l4", "gamma", "l4-24", 2, 1.2);
        assert_int_equal(n, 14);
        fixture_install(c, &t, 3);
        *state = c;
        return 0;
}

/* A 7B Llama-shaped decoder (32 layers, hidden 4096, gated MLP 11008). */
static void decoder_7b(struct estimate_input *in)
{
        fixture_decoder_1b(in);
        in->arch.layers = 32;
        in->arch.hidden = 4096;
        in->arch.heads = 32;
        in->arch.kv_heads = 32;
        in->arch.head_dim = 128;
        in->arch.ffn = 11008;
        in->arch.vocab = 32000;
        in->arch.max_positions = 4096;
        in->arch.position_table = 0;
        in->arch.tied_embeddings = false;
        in->arch.gated_mlp = true;
        in->arch.attn_bias = false;
        in->arch.mlp_bias = false;
        in->sequence_length = 1024;
        in->dataset_samples = 20000;
}

enum workload_kind {
        W_FULL_BF16,
        W_FULL_FP32,
        W_FULL_7B,
        W_LORA_7B,
        W_QLORA_7B,
        W_PRETRAIN_NO_DATASET,
        W_CHECKPOINTED_BATCH_32,
        W_INFERENCE_7B,
        W_INFERENCE_1B,
        W_TORCHTITAN_7B,
        W_COUNT
};

static void workload(struct estimate_input *in, enum workload_kind w)
{
        switch (w) {
        case W_FULL_BF16:
                fixture_decoder_1b(in);
                break;
        case W_FULL_FP32:
                fixture_decoder_1b(in);
                in->precision = EST_FP32;
                break;
        case W_FULL_7B:
                decoder_7b(in);
                break;
        case W_LORA_7B:
                decoder_7b(in);
                in->mode = EST_LORA;
                in->lora_rank = 16;
                break;
        case W_QLORA_7B:
                decoder_7b(in);
                in->mode = EST_QLORA;
                in->quantization = EST_QUANT_NF4;
                break;
        case W_PRETRAIN_NO_DATASET:
                fixture_decoder_1b(in);
                in->mode = EST_PRE_TRAIN;
                in->dataset_samples = 0;
                break;
        case W_CHECKPOINTED_BATCH_32:
                fixture_decoder_1b(in);
                in->batch_size = 32;
                in->gradient_accumulation = 4;
                in->checkpointing = EST_CKPT_SELECTIVE;
                break;
        case W_INFERENCE_7B:
                decoder_7b(in);
                in->mode = EST_INFERENCE;
                in->batch_size = 16;
                in->sequence_length = 2048;
                in->generated_tokens = 256;
                in->dataset_samples = 0;
                break;
        case W_INFERENCE_1B:
                fixture_decoder_1b(in);
                in->mode = EST_INFERENCE;
                in->batch_size = 1;
                in->generated_tokens = 128;
                in->dataset_samples = 0;
                break;
        case W_TORCHTITAN_7B:
                decoder_7b(in);
                in->mode = EST_PRE_TRAIN;
                in->framework = EST_FW_TORCHTITAN;
                in->gpus = 8; /* the preset sees several GPUs; the search re-lays them */
                estimate_apply_framework(in);
                in->gpus = 1;
                break;
        case W_COUNT:
                break;
        }
}

enum constraint_kind {
        C_DEFAULTS,
        C_BY_TIME,
        C_DEADLINE,
        C_BUDGET,
        C_NO_SAVERS,
        C_FLASH_AND_FULL,
        C_MAX_3_GPUS,
        C_ONE_PROVIDER,
        C_COUNT
};

static void constraints(struct plan_train_constraints *c, enum constraint_kind k)
{
        plan_train_search_constraints_defaults(c);
        switch (k) {
        case C_DEFAULTS:
                break;
        case C_BY_TIME:
                c->rank_by = PLAN_RANK_TIME;
                break;
        case C_DEADLINE:
                c->deadline_hours = 20;
                break;
        case C_BUDGET:
                c->budget_usd = 60;
                c->rank_by = PLAN_RANK_TIME;
                break;
        case C_NO_SAVERS:
                c->savers_allowed = 0;
                break;
        case C_FLASH_AND_FULL:
                c->savers_allowed = PLAN_ALLOW_FLASH | PLAN_ALLOW_FULL;
                c->max_gpus = 16;
                break;
        case C_MAX_3_GPUS:
                c->max_gpus = 3;
                break;
        case C_ONE_PROVIDER:
                c->providers[c->n_providers++] = "beta";
                break;
        case C_COUNT:
                break;
        }
}

/* a and b the same double, NaN included. */
static void same_double(double a, double b, const char *what, int w, int k, size_t i)
{
        if (!(a == b || (isnan(a) && isnan(b))))
                fail_msg("workload %d, constraints %d, plan %zu: %s %.17g (reference) != %.17g", w,
                         k, i, what, a, b);
}

static void same_plan(const struct plan_train_plan *a, const struct plan_train_plan *b, int w,
                      int k, size_t i)
{
        if (a->gpu_index != b->gpu_index || a->offering_index != b->offering_index ||
            a->price != b->price || a->gpus != b->gpus || a->instances != b->instances ||
            a->strategy != b->strategy || a->saver != b->saver ||
            a->per_gpu_bytes != b->per_gpu_bytes ||
            a->cpu_bytes_per_instance != b->cpu_bytes_per_instance ||
            a->ram_unknown != b->ram_unknown ||
            a->precision_substituted != b->precision_substituted || a->bottleneck != b->bottleneck)
                fail_msg("workload %d, constraints %d, plan %zu: offering %zu, %u GPUs,"
                         " strategy %d, saver %d, %llu + %llu CPU bytes (reference) != offering"
                         " %zu, %u GPUs, strategy %d, saver %d, %llu + %llu CPU bytes",
                         w, k, i, a->offering_index, a->gpus, a->strategy, a->saver,
                         (unsigned long long)a->per_gpu_bytes,
                         (unsigned long long)a->cpu_bytes_per_instance, b->offering_index, b->gpus,
                         b->strategy, b->saver, (unsigned long long)b->per_gpu_bytes,
                         (unsigned long long)b->cpu_bytes_per_instance);
        same_double(a->hours, b->hours, "hours", w, k, i);
        same_double(a->cost_usd, b->cost_usd, "cost_usd", w, k, i);
        same_double(a->usd_per_gpu_hour, b->usd_per_gpu_hour, "usd_per_gpu_hour", w, k, i);
        same_double(a->tokens_per_second, b->tokens_per_second, "tokens_per_second", w, k, i);
        same_double(a->usd_per_million_tokens, b->usd_per_million_tokens, "usd_per_million_tokens",
                    w, k, i);
        same_double(a->seconds_per_step, b->seconds_per_step, "seconds_per_step", w, k, i);
        /* The input a plan states: what the engine ran with. */
        assert_int_equal(a->input.gpus, b->input.gpus);
        assert_int_equal(a->input.nodes, b->input.nodes);
        assert_int_equal(a->input.strategy, b->input.strategy);
        assert_int_equal(a->input.tensor_parallel, b->input.tensor_parallel);
        assert_int_equal(a->input.precision, b->input.precision);
        assert_int_equal(a->input.flash_attention, b->input.flash_attention);
        assert_int_equal(a->input.checkpointing, b->input.checkpointing);
        assert_int_equal(a->input.offload, b->input.offload);
        assert_int_equal(a->input.logits, b->input.logits);
        assert_int_equal(a->input.gpu_index, b->input.gpu_index);
        same_double(a->input.inter_node_bytes_per_s, b->input.inter_node_bytes_per_s,
                    "inter_node_bytes_per_s", w, k, i);
        same_double(a->input.allocator_reserve_fraction, b->input.allocator_reserve_fraction,
                    "allocator_reserve_fraction", w, k, i);
}

/* What the varied cases reached, so that the comparison is not vacuous. */
struct reach {
        size_t plans, multi_instance, substituted, offloaded, by_token, inference_tp;
        uint64_t skipped; /* runs the pruned search skipped */
        size_t excluded_memory, excluded_ram, excluded_rate, excluded_deadline, excluded_budget;
};

static void tally(struct reach *t, const struct plan_train_result *r)
{
        t->plans += r->n_plans;
        for (size_t i = 0; i < r->n_plans; i++) {
                const struct plan_train_plan *p = &r->plans[i];

                t->multi_instance += p->instances > 1;
                t->substituted += p->precision_substituted;
                t->offloaded += p->saver == PLAN_SAVER_OFFLOAD;
                t->by_token += !r->has_hours;
                t->inference_tp += p->input.mode == EST_INFERENCE && p->gpus > 1;
        }
        for (size_t i = 0; i < r->n_excluded; i++) {
                const char *why = r->excluded[i].reason;

                t->excluded_memory += strstr(why, "does not fit") != NULL;
                t->excluded_ram += strstr(why, "CPU memory") != NULL;
                t->excluded_rate += strstr(why, "throughput figure") != NULL;
                t->excluded_deadline += strstr(why, "deadline") != NULL;
                t->excluded_budget += strstr(why, "over budget") != NULL;
        }
}

/*
 * Both searches on one request: the same answer, plan for plan and reason
 * for reason.  Returns false when the engine refuses the request (both
 * must, with the same words); tallies what the answer reached.
 */
static bool same_answer(const struct catalog_snapshot *s, const struct estimate_input *in,
                        const struct plan_train_constraints *c, int w, int k, struct reach *t)
{
        struct plan_train_result ref, got;
        struct estimate_error e_ref, e_got;
        int rc_ref, rc_got;

        memset(&e_ref, 0, sizeof(e_ref));
        memset(&e_got, 0, sizeof(e_got));
        rc_ref = train_search_reference(s, in, c, &ref, &e_ref);
        rc_got = plan_train_search(s, in, c, &got, &e_got);
        assert_int_equal(rc_got, rc_ref);
        if (rc_ref) {
                assert_string_equal(e_got.detail, e_ref.detail);
                return false;
        }
        assert_int_equal(got.has_hours, ref.has_hours);
        assert_int_equal(got.evaluated, ref.evaluated);
        if (got.n_plans != ref.n_plans)
                fail_msg("workload %d, constraints %d: %zu plans (reference %zu)", w, k,
                         got.n_plans, ref.n_plans);
        for (size_t i = 0; i < ref.n_plans; i++)
                same_plan(&ref.plans[i], &got.plans[i], w, k, i);
        assert_int_equal(got.n_excluded, ref.n_excluded);
        for (size_t i = 0; i < ref.n_excluded; i++) {
                assert_int_equal(got.excluded[i].gpu_index, ref.excluded[i].gpu_index);
                assert_int_equal(got.excluded[i].offering_index, ref.excluded[i].offering_index);
                assert_string_equal(got.excluded[i].reason, ref.excluded[i].reason);
        }
        tally(t, &ref);
        t->skipped += got.skipped;
        plan_train_search_result_free(&ref);
        plan_train_search_result_free(&got);
        return true;
}

static void test_same_plans_as_the_exhaustive_search(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct reach t;
        size_t cases = 0;

        memset(&t, 0, sizeof(t));
        for (int w = 0; w < W_COUNT; w++) {
                for (int k = 0; k < C_COUNT; k++) {
                        struct estimate_input in;
                        struct plan_train_constraints c;

                        workload(&in, (enum workload_kind)w);
                        constraints(&c, (enum constraint_kind)k);
                        cases += same_answer(s, &in, &c, w, k, &t);
                }
        }
        /* Every request above is valid, and between them they reach every
         * kind of plan and every reason an offering is left out. */
        assert_int_equal(cases, W_COUNT * C_COUNT);
        assert_true(t.plans > 0);
        assert_true(t.multi_instance > 0);
        assert_true(t.substituted > 0);
        assert_true(t.offloaded > 0);
        assert_true(t.by_token > 0);
        assert_true(t.inference_tp > 0);
        assert_true(t.excluded_memory > 0);
        assert_true(t.excluded_ram > 0);
        assert_true(t.excluded_rate > 0);
        assert_true(t.excluded_deadline > 0);
        assert_true(t.excluded_budget > 0);
        assert_true(t.skipped > 0);
        catalog_release(s);
}

/* A small deterministic generator (Knuth's MMIX LCG), so that every run
 * checks the same bodies. */
static uint32_t next_random(uint64_t *x)
{
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        return (uint32_t)(*x >> 33);
}

#define PICK(x, arr) ((arr)[next_random(x) % (sizeof(arr) / sizeof((arr)[0]))])

/*
 * Many more bodies: each workload above with its batch, sequence, gradient
 * accumulation, dataset, epochs, precision and optimizer drawn at random,
 * under random constraints.  Between them the pruned search must skip
 * layouts (its floor bites) and still answer as the exhaustive one.
 */
static void test_same_plans_on_many_bodies(void **state)
{
        static const uint32_t batches[] = {1, 2, 4, 8, 16, 32};
        static const uint32_t sequences[] = {128, 256, 512, 1024, 2048};
        static const uint32_t accumulations[] = {1, 2, 4, 8};
        static const uint64_t samples[] = {0, 500, 20000, 1000000};
        static const double epochs[] = {1, 3};
        static const enum est_precision precisions[] = {EST_BF16_MIXED, EST_FP16_MIXED, EST_FP32,
                                                        EST_BF16};
        static const enum est_optimizer optimizers[] = {EST_OPT_ADAMW, EST_OPT_SGD_MOMENTUM,
                                                        EST_OPT_ADAMW_8BIT, EST_OPT_ADAFACTOR};
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct reach t;
        uint64_t x = 26;
        size_t cases = 0;

        memset(&t, 0, sizeof(t));
        for (int i = 0; i < 120; i++) {
                struct estimate_input in;
                struct plan_train_constraints c;
                int w = (int)(next_random(&x) % W_COUNT), k = (int)(next_random(&x) % C_COUNT);

                workload(&in, (enum workload_kind)w);
                in.batch_size = PICK(&x, batches);
                in.sequence_length = PICK(&x, sequences);
                if (in.mode != EST_INFERENCE) {
                        in.gradient_accumulation = PICK(&x, accumulations);
                        in.dataset_samples = PICK(&x, samples);
                        in.epochs = PICK(&x, epochs);
                        in.precision = PICK(&x, precisions);
                        if (in.mode != EST_QLORA)
                                in.optimizer = PICK(&x, optimizers);
                }
                constraints(&c, (enum constraint_kind)k);
                if (next_random(&x) % 2)
                        c.rank_by = c.rank_by == PLAN_RANK_TIME ? PLAN_RANK_COST : PLAN_RANK_TIME;
                cases += same_answer(s, &in, &c, w, k, &t);
        }
        assert_true(cases >= 100);
        assert_true(t.plans > 0);
        assert_true(t.multi_instance > 0);
        assert_true(t.substituted > 0);
        assert_true(t.offloaded > 0);
        assert_true(t.by_token > 0);
        assert_true(t.skipped > 0);
        catalog_release(s);
}

/* The shared work is per search: a second search with a different request
 * must not see the first one's layouts. */
static void test_searches_share_nothing(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        struct estimate_input a, b;
        struct plan_train_constraints c;
        struct plan_train_result ref, got;
        struct estimate_error e;

        workload(&a, W_FULL_BF16);
        workload(&b, W_FULL_BF16);
        b.batch_size = 8;
        constraints(&c, C_DEFAULTS);
        assert_int_equal(plan_train_search(s, &a, &c, &got, &e), 0);
        plan_train_search_result_free(&got);
        assert_int_equal(plan_train_search(s, &b, &c, &got, &e), 0);
        assert_int_equal(train_search_reference(s, &b, &c, &ref, &e), 0);
        assert_int_equal(got.n_plans, ref.n_plans);
        assert_true(got.n_plans > 0);
        for (size_t i = 0; i < ref.n_plans; i++)
                same_plan(&ref.plans[i], &got.plans[i], W_FULL_BF16, C_DEFAULTS, i);
        plan_train_search_result_free(&ref);
        plan_train_search_result_free(&got);
        catalog_release(s);
}

/* estimate_prepare() + estimate_time() on a GPU give estimate_run()'s
 * figures on that GPU, for training and inference, one and several nodes. */
static void test_prepared_layout_times_like_a_run(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        size_t n_gpus;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        static const enum workload_kind kinds[] = {W_FULL_BF16, W_QLORA_7B, W_INFERENCE_7B,
                                                   W_TORCHTITAN_7B};
        struct estimate_result *run = calloc(2, sizeof(*run)), *timed = run + 1;
        struct estimate_error e;

        assert_non_null(run);
        for (size_t w = 0; w < sizeof(kinds) / sizeof(kinds[0]); w++) {
                struct estimate_input in;
                struct estimate_prepared p;

                workload(&in, kinds[w]);
                in.gpus = 8;
                in.nodes = 2;
                if (in.mode == EST_INFERENCE)
                        in.tensor_parallel = 8;
                else
                        in.strategy = EST_FSDP;
                assert_int_equal(estimate_prepare(&in, &p, timed, &e), 0);
                for (size_t g = 0; g < n_gpus; g++) {
                        in.gpu_index = (int)g;
                        in.inter_node_bytes_per_s = g % 2 ? 0 : 25e9;
                        assert_int_equal(estimate_run(&in, gpus, n_gpus, run, &e), 0);
                        estimate_time(&in, &p, &gpus[g], timed);
                        assert_int_equal(timed->per_gpu_total_bytes, run->per_gpu_total_bytes);
                        assert_int_equal(timed->per_gpu_needed_bytes, run->per_gpu_needed_bytes);
                        assert_int_equal(timed->cpu_total_bytes, run->cpu_total_bytes);
                        assert_true(timed->peak_flops_per_gpu == run->peak_flops_per_gpu);
                        assert_true(timed->total_seconds == run->total_seconds);
                        assert_true(timed->seconds_per_step == run->seconds_per_step);
                        assert_true(timed->tokens_per_second == run->tokens_per_second);
                        assert_true(timed->flops_total == run->flops_total);
                        assert_int_equal(timed->bottleneck, run->bottleneck);
                }
        }
        free(run);
        catalog_release(s);
}

/*
 * estimate_floor: for every training workload above, on every GPU, one and
 * several nodes, every strategy and saver, the floor is under the run's
 * seconds per step, its total and its effective (goodput) time (to
 * rounding: the plan search keeps a margin a billion times wider), its CPU
 * memory under the run's, and its steps and tokens are the run's; the
 * figures do not move with the nodes.
 */
static void test_floor_is_under_every_run(void **state)
{
        const struct catalog_snapshot *s = catalog_acquire(*state);
        size_t n_gpus, checked = 0, traffic = 0;
        const struct gpu_spec *gpus = catalog_gpus(s, &n_gpus);
        static const uint32_t counts[] = {1, 2, 4, 8, 16};
        struct estimate_result *run = calloc(1, sizeof(*run));
        struct estimate_error e;

        assert_non_null(run);
        for (int w = 0; w < W_COUNT; w++) {
                for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
                        for (int st = 0; st < EST_STRATEGY_COUNT; st++) {
                                for (int sv = 0; sv < 4; sv++) {
                                        struct estimate_input in;
                                        struct estimate_floor f, f_nodes;
                                        uint32_t count = counts[ci];

                                        workload(&in, (enum workload_kind)w);
                                        if (in.mode == EST_INFERENCE ||
                                            (count == 1) != (st == EST_SINGLE))
                                                continue;
                                        in.gpus = count;
                                        in.strategy = (enum est_strategy)st;
                                        in.set |= EST_SET_STRATEGY;
                                        in.flash_attention = sv >= 1;
                                        if (sv >= 2)
                                                in.checkpointing = EST_CKPT_FULL;
                                        if (sv >= 3)
                                                in.offload = EST_OFFLOAD_OPTIMIZER;
                                        if (estimate_floor_prepare(&in, &f, &e))
                                                continue;
                                        in.nodes = count;
                                        assert_int_equal(estimate_floor_prepare(&in, &f_nodes, &e),
                                                         0);
                                        assert_memory_equal(&f, &f_nodes, sizeof(f));
                                        traffic += f.traffic_bytes > 0;
                                        for (size_t g = 0; g < n_gpus; g++) {
                                                for (uint32_t nodes = 1; nodes <= count;
                                                     nodes *= count > 1 ? count : 2) {
                                                        double floor_s;

                                                        in.gpu_index = (int)g;
                                                        in.nodes = nodes;
                                                        in.inter_node_bytes_per_s =
                                                                g % 2 ? 0 : 1.25e9;
                                                        if (estimate_run(&in, gpus, n_gpus, run,
                                                                         &e) ||
                                                            !(run->seconds_per_step > 0))
                                                                continue;
                                                        floor_s = estimate_floor_step_seconds(
                                                                &in, &f, &gpus[g]);
                                                        assert_true(floor_s > 0);
                                                        /* Up to rounding: the floor adds
                                                         * the same terms in another order. */
                                                        assert_true(floor_s <=
                                                                    run->seconds_per_step *
                                                                            (1 + 1e-12));
                                                        assert_true(floor_s * f.steps <=
                                                                    run->total_seconds *
                                                                            (1 + 1e-12));
                                                        if (run->goodput.present)
                                                                assert_true(
                                                                        run->total_seconds <=
                                                                        run->goodput
                                                                                .effective_seconds);
                                                        assert_true(f.cpu_bytes <=
                                                                    run->cpu_total_bytes);
                                                        assert_true(f.steps == run->steps);
                                                        assert_true(f.tokens_per_step ==
                                                                    run->tokens_per_step);
                                                        checked++;
                                                }
                                        }
                                }
                        }
                }
        }
        /* Single GPUs, several, across nodes: the floor has traffic to bound. */
        assert_true(checked > 1000);
        assert_true(traffic > 100);
        free(run);
        catalog_release(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_same_plans_as_the_exhaustive_search),
                cmocka_unit_test(test_same_plans_on_many_bodies),
                cmocka_unit_test(test_searches_share_nothing),
                cmocka_unit_test(test_prepared_layout_times_like_a_run),
                cmocka_unit_test(test_floor_is_under_every_run),
        };

        return cmocka_run_group_tests(tests, setup, fixture_catalog_teardown);
}
