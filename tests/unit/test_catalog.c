/*
 * test_catalog.c - the catalog holder: lookups, cross-references, ETag,
 * swapping, and readers that never see a half-updated catalog.
 *
 * Snapshots are built from hand-made tables through catalog_install(),
 * the same path db/catalog_sync.c takes after its database load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"

static const char *dup(struct catalog_tables *t, const char *s)
{
        const char *out = catalog_tables_strndup(t, s, strlen(s));

        assert_non_null(out);
        return out;
}

/*
 * Two GPUs, one provider, two offerings (one of 8 GPUs), three prices and
 * one setting.  generation is written into several rows at once (memory of
 * the first GPU, its price, a setting), so a reader can check that every
 * row it sees comes from one generation.
 */
static void make_tables(struct catalog_tables *t, unsigned generation)
{
        memset(t, 0, sizeof(*t));
        t->n_gpus = 2;
        t->gpus = calloc(2, sizeof(*t->gpus));
        t->gpu_infos = calloc(2, sizeof(*t->gpu_infos));
        assert_non_null(t->gpus);
        assert_non_null(t->gpu_infos);
        /* Sorted bytewise by id, as the loader's ORDER BY id COLLATE "C" returns them. */
        strcpy(t->gpus[0].id, "a100-sxm-80gb");
        strcpy(t->gpus[0].name, "NVIDIA A100 SXM 80GB");
        t->gpus[0].memory_bytes = 80ull * 1024 * 1024 * 1024 + generation;
        t->gpu_infos[0].source = dup(t, "https://www.nvidia.com/a100-datasheet");
        strcpy(t->gpus[1].id, "rtx-3090");
        strcpy(t->gpus[1].name, "NVIDIA GeForce RTX 3090");
        t->gpus[1].memory_bytes = 24ull * 1024 * 1024 * 1024;
        t->gpu_infos[1].source = dup(t, "https://www.techpowerup.com/gpu-specs/rtx-3090");

        t->n_providers = 1;
        t->providers = calloc(1, sizeof(*t->providers));
        assert_non_null(t->providers);
        t->providers[0].id = dup(t, "lambda");

        t->n_offerings = 2;
        t->offerings = calloc(2, sizeof(*t->offerings));
        assert_non_null(t->offerings);
        t->offerings[0].id = dup(t, "lambda-1x-a100");
        t->offerings[0].provider_id = dup(t, "lambda");
        t->offerings[0].accelerator_id = dup(t, "a100-sxm-80gb");
        t->offerings[0].gpus_per_instance = 1;
        t->offerings[1].id = dup(t, "lambda-8x-a100");
        t->offerings[1].provider_id = dup(t, "lambda");
        t->offerings[1].accelerator_id = dup(t, "a100-sxm-80gb");
        t->offerings[1].gpus_per_instance = 8;

        t->n_prices = 3;
        t->prices = calloc(3, sizeof(*t->prices));
        assert_non_null(t->prices);
        t->prices[0] = (struct catalog_price){.id = 1,
                                              .offering_id = dup(t, "lambda-1x-a100"),
                                              .pricing = CATALOG_ON_DEMAND,
                                              .usd_per_hour = 1.0 + generation};
        t->prices[1] = (struct catalog_price){.id = 2,
                                              .offering_id = dup(t, "lambda-1x-a100"),
                                              .pricing = CATALOG_SPOT,
                                              .usd_per_hour = 0.5};
        t->prices[2] = (struct catalog_price){.id = 3,
                                              .offering_id = dup(t, "lambda-8x-a100"),
                                              .pricing = CATALOG_ON_DEMAND,
                                              .usd_per_hour = 14.32};

        t->n_settings = 1;
        t->settings = calloc(1, sizeof(*t->settings));
        assert_non_null(t->settings);
        t->settings[0].key = dup(t, "generation");
        t->settings[0].value = generation;

        /* The loader hashes the cells; here the generation stands in for the content. */
        t->content_hash[0] = 0x1000 + generation;
        t->content_hash[1] = 0x2000 + generation;
        assert_int_equal(catalog_tables_link(t, (char[64]){0}, 64), 0);
}

static void test_empty_holder_has_no_snapshot(void **state)
{
        struct catalog *c = catalog_new();
        size_t n = 99;

        (void)state;
        assert_non_null(c);
        assert_null(catalog_acquire(c));
        /* Accessors accept NULL and report nothing. */
        assert_null(catalog_gpus(NULL, &n));
        assert_int_equal(n, 0);
        assert_null(catalog_gpu(NULL, "rtx-3090"));
        catalog_free(c);
}

static void test_lookups_by_id(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;
        const struct catalog_snapshot *s;
        const struct catalog_offering *o;
        const struct catalog_price *p;
        size_t n;

        (void)state;
        make_tables(&t, 0);
        assert_int_equal(catalog_install(c, &t), 0);
        s = catalog_acquire(c);
        assert_non_null(s);
        catalog_gpus(s, &n);
        assert_int_equal(n, 2);
        assert_string_equal(catalog_gpu(s, "rtx-3090")->name, "NVIDIA GeForce RTX 3090");
        assert_int_equal(catalog_gpu_index(s, "a100-sxm-80gb"), 0);
        assert_int_equal(catalog_gpu_index(s, "rtx-4090"), SIZE_MAX);
        assert_null(catalog_gpu(s, ""));
        assert_null(catalog_gpu(s, NULL));

        /* Cross-references are resolved to indices by catalog_tables_link(). */
        o = catalog_offering(s, "lambda-8x-a100");
        assert_non_null(o);
        assert_int_equal(o->gpu_index, 0);
        assert_int_equal(o->provider_index, 0);
        assert_null(catalog_offering(s, "lambda-2x-a100"));

        /* One offering with two kinds: each kind is found, a missing kind is NULL. */
        p = catalog_price(s, "lambda-1x-a100", CATALOG_SPOT);
        assert_non_null(p);
        assert_int_equal(p->id, 2);
        p = catalog_price(s, "lambda-1x-a100", CATALOG_ON_DEMAND);
        assert_non_null(p);
        assert_int_equal(p->id, 1);
        assert_null(catalog_price(s, "lambda-1x-a100", CATALOG_RESERVED));
        assert_int_equal(catalog_price(s, "lambda-8x-a100", CATALOG_ON_DEMAND)->id, 3);
        assert_int_equal(catalog_price(s, "lambda-8x-a100", CATALOG_ON_DEMAND)->offering_index, 1);

        assert_non_null(catalog_setting(s, "generation"));
        assert_null(catalog_setting(s, "electricity_usd_per_kwh"));
        assert_non_null(catalog_provider(s, "lambda"));
        assert_null(catalog_provider(s, "aws"));
        catalog_release(s);
        catalog_free(c);
}

static void test_dangling_reference_is_refused(void **state)
{
        struct catalog_tables t;
        char err[128] = "";

        (void)state;
        make_tables(&t, 0);
        t.offerings[1].accelerator_id = dup(&t, "no-such-gpu");
        assert_int_equal(catalog_tables_link(&t, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "lambda-8x-a100"));
        catalog_tables_free(&t);

        make_tables(&t, 0);
        t.prices[2].offering_id = dup(&t, "lambda-9x-a100");
        assert_int_equal(catalog_tables_link(&t, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "lambda-9x-a100"));
        catalog_tables_free(&t);
}

static void test_etag_follows_content(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;
        const struct catalog_snapshot *s1, *s2, *s3;
        char first[64];

        (void)state;
        make_tables(&t, 1);
        assert_int_equal(catalog_install(c, &t), 0);
        s1 = catalog_acquire(c);
        /* A strong validator: a quoted string of 32 hex digits (RFC 9110 section 8.8.3). */
        assert_int_equal(strlen(catalog_etag(s1)), 34);
        assert_int_equal(catalog_etag(s1)[0], '"');
        snprintf(first, sizeof(first), "%s", catalog_etag(s1));

        /* Same content: the holder keeps the snapshot readers already have. */
        make_tables(&t, 1);
        assert_int_equal(catalog_install(c, &t), 0);
        s2 = catalog_acquire(c);
        assert_ptr_equal(s1, s2);
        assert_int_equal(catalog_swaps(c), 1);

        /* New content: a new snapshot and a new ETag; the old one stays readable. */
        make_tables(&t, 2);
        assert_int_equal(catalog_install(c, &t), 0);
        s3 = catalog_acquire(c);
        assert_ptr_not_equal(s1, s3);
        assert_string_not_equal(catalog_etag(s3), first);
        assert_int_equal(catalog_swaps(c), 2);
        assert_string_equal(catalog_etag(s1), first);
        assert_int_equal(catalog_price(s1, "lambda-1x-a100", CATALOG_ON_DEMAND)->usd_per_hour, 2);
        assert_int_equal(catalog_price(s3, "lambda-1x-a100", CATALOG_ON_DEMAND)->usd_per_hour, 3);
        catalog_release(s1);
        catalog_release(s2);
        catalog_release(s3);
        catalog_free(c);
}

/* What a prepare function saw: each snapshot it was handed, and whether
 * that snapshot was already current (it must not be). */
static struct catalog *prepared_holder;
static int prepared_calls;
static bool prepared_while_current;

static void free_marker(struct catalog_attachment *a)
{
        free(a);
}

static void prepare_marker(const struct catalog_snapshot *s)
{
        const struct catalog_snapshot *cur = catalog_acquire(prepared_holder);
        struct catalog_attachment *a = malloc(sizeof(*a));

        prepared_calls++;
        prepared_while_current = prepared_while_current || cur == s;
        catalog_release(cur);
        assert_non_null(a);
        a->free_fn = free_marker;
        catalog_attach_extra(s, CATALOG_EXTRA_UNCERTAINTY, a);
}

/* The prepare function runs on each new snapshot before it becomes
 * current, so the first reader finds its derived object already there;
 * a load with the same content runs nothing. */
static void test_prepare_before_current(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;
        const struct catalog_snapshot *s;

        (void)state;
        prepared_holder = c;
        prepared_calls = 0;
        prepared_while_current = false;
        catalog_set_prepare(c, prepare_marker);
        make_tables(&t, 1);
        assert_int_equal(catalog_install(c, &t), 0);
        s = catalog_acquire(c);
        assert_non_null(catalog_extra(s, CATALOG_EXTRA_UNCERTAINTY));
        catalog_release(s);
        assert_int_equal(prepared_calls, 1);

        make_tables(&t, 1);
        assert_int_equal(catalog_install(c, &t), 0);
        assert_int_equal(prepared_calls, 1);

        make_tables(&t, 2);
        assert_int_equal(catalog_install(c, &t), 0);
        assert_int_equal(prepared_calls, 2);
        s = catalog_acquire(c);
        assert_non_null(catalog_extra(s, CATALOG_EXTRA_UNCERTAINTY));
        catalog_release(s);
        assert_false(prepared_while_current);
        catalog_free(c);
}

static int built_calls;

static struct catalog_attachment *build_marker(const struct catalog_snapshot *s)
{
        struct catalog_attachment *a = malloc(sizeof(*a));

        (void)s;
        built_calls++;
        assert_non_null(a);
        a->free_fn = free_marker;
        return a;
}

static struct catalog_attachment *build_nothing(const struct catalog_snapshot *s)
{
        (void)s;
        built_calls++;
        return NULL;
}

/* catalog_extra_get builds a slot's object once and hands the same one
 * back after; a failed build attaches nothing, and no snapshot is NULL. */
static void test_extra_get_builds_once(void **state)
{
        struct catalog *c = catalog_new();
        struct catalog_tables t;
        const struct catalog_snapshot *s;

        (void)state;
        make_tables(&t, 1);
        assert_int_equal(catalog_install(c, &t), 0);
        s = catalog_acquire(c);
        built_calls = 0;
        assert_null(catalog_extra_get(s, CATALOG_EXTRA_FIT_HEADS, build_nothing));
        assert_null(catalog_extra(s, CATALOG_EXTRA_FIT_HEADS));
        struct catalog_attachment *first =
                catalog_extra_get(s, CATALOG_EXTRA_FIT_HEADS, build_marker);
        assert_non_null(first);
        assert_ptr_equal(catalog_extra_get(s, CATALOG_EXTRA_FIT_HEADS, build_marker), first);
        assert_ptr_equal(catalog_extra(s, CATALOG_EXTRA_FIT_HEADS), first);
        assert_int_equal(built_calls, 2); /* the failed build and the first one */
        assert_null(catalog_extra_get(NULL, CATALOG_EXTRA_FIT_HEADS, build_marker));
        assert_int_equal(built_calls, 2);
        catalog_release(s);
        catalog_free(c);
}

static void test_condition_names(void **state)
{
        (void)state;
        assert_true(catalog_condition_valid("new"));
        assert_true(catalog_condition_valid("used"));
        assert_false(catalog_condition_valid("refurbished"));
        assert_false(catalog_condition_valid("New")); /* the schema's CHECK is case-sensitive */
        assert_false(catalog_condition_valid(""));
        assert_false(catalog_condition_valid(NULL));
}

static void test_pricing_names(void **state)
{
        enum catalog_pricing p;

        (void)state;
        assert_int_equal(catalog_pricing_parse("spot", &p), 0);
        assert_int_equal(p, CATALOG_SPOT);
        assert_int_equal(catalog_pricing_parse("reserved", &p), 0);
        assert_int_equal(p, CATALOG_RESERVED);
        assert_int_equal(catalog_pricing_parse("on-demand", &p), -1); /* the API spells on_demand */
        assert_int_equal(catalog_pricing_parse(NULL, &p), -1);
        assert_string_equal(catalog_pricing_name(CATALOG_ON_DEMAND), "on_demand");
}

/* ---- readers during swaps ------------------------------------------------ */

struct race {
        struct catalog *c;
        atomic_bool done;
        atomic_ulong reads;
        atomic_ulong torn;
};

static void *reader(void *arg)
{
        struct race *r = arg;

        while (!atomic_load(&r->done)) {
                const struct catalog_snapshot *s = catalog_acquire(r->c);
                size_t n;
                const struct gpu_spec *g;
                unsigned gen_mem, gen_price, gen_setting;

                if (!s)
                        continue;
                g = catalog_gpus(s, &n);
                gen_mem = (unsigned)(g[0].memory_bytes - 80ull * 1024 * 1024 * 1024);
                gen_price = (unsigned)(catalog_price(s, "lambda-1x-a100", CATALOG_ON_DEMAND)
                                               ->usd_per_hour -
                                       1.0);
                gen_setting = (unsigned)catalog_setting(s, "generation")->value;
                if (gen_mem != gen_price || gen_mem != gen_setting)
                        atomic_fetch_add(&r->torn, 1);
                atomic_fetch_add(&r->reads, 1);
                catalog_release(s);
        }
        return NULL;
}

static void test_readers_never_see_a_mix(void **state)
{
        struct race r = {.c = catalog_new()};
        pthread_t th[4];
        struct catalog_tables t;

        (void)state;
        atomic_init(&r.done, false);
        atomic_init(&r.reads, 0);
        atomic_init(&r.torn, 0);
        make_tables(&t, 0);
        assert_int_equal(catalog_install(r.c, &t), 0);
        for (int i = 0; i < 4; i++)
                assert_int_equal(pthread_create(&th[i], NULL, reader, &r), 0);
        while (atomic_load(&r.reads) == 0) /* the readers are running */
                ;
        /* 2000 swaps while four threads read; every swap frees the previous
         * snapshot once its last reader lets go (ASan checks the frees). */
        for (unsigned gen = 1; gen <= 2000; gen++) {
                make_tables(&t, gen);
                assert_int_equal(catalog_install(r.c, &t), 0);
        }
        atomic_store(&r.done, true);
        for (int i = 0; i < 4; i++)
                pthread_join(th[i], NULL);
        assert_true(atomic_load(&r.reads) > 0);
        assert_int_equal(atomic_load(&r.torn), 0);
        assert_int_equal(catalog_swaps(r.c), 2001);
        catalog_free(r.c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_empty_holder_has_no_snapshot),
                cmocka_unit_test(test_lookups_by_id),
                cmocka_unit_test(test_dangling_reference_is_refused),
                cmocka_unit_test(test_etag_follows_content),
                cmocka_unit_test(test_prepare_before_current),
                cmocka_unit_test(test_pricing_names),
                cmocka_unit_test(test_extra_get_builds_once),
                cmocka_unit_test(test_condition_names),
                cmocka_unit_test(test_readers_never_see_a_mix),
        };

        return cmocka_run_group_tests_name("catalog", tests, NULL, NULL);
}
