/*
 * catalog_fixtures.h - helpers for the unit tests that build a small
 * catalog by hand (test_train_search.c, test_rent_vs_buy.c): strings
 * copied into the tables' arena, a GPU's identity, a provider, an
 * on-demand offering with its price, installing the tables and freeing the
 * catalog, and a relative-tolerance comparison; and the plan searches'
 * workload.  Include after cmocka.h.
 */
#ifndef GPUPLAN_TESTS_CATALOG_FIXTURES_H
#define GPUPLAN_TESTS_CATALOG_FIXTURES_H

#include <math.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "core/estimate.h"

/* a == b to a relative tolerance (cmocka 1.1.5's float assertion is absolute). */
#define assert_close(a, b) assert_true(fixture_close((a), (b)))

static inline bool fixture_close(double a, double b)
{
        return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* s copied into the tables' string arena (freed with the tables). */
static inline const char *dup(struct catalog_tables *t, const char *s)
{
        const char *out = catalog_tables_strndup(t, s, strlen(s));

        assert_non_null(out);
        return out;
}

/* GPU i of the tables: id (also its name), vendor "Test", kind "gpu",
 * memory_bytes all usable, one chip per board, a placeholder source.  The
 * caller sets its rates. */
static inline struct gpu_spec *fixture_gpu(struct catalog_tables *t, size_t i, const char *id,
                                           uint64_t memory_bytes)
{
        struct gpu_spec *g = &t->gpus[i];

        strcpy(g->id, id);
        strcpy(g->name, id);
        strcpy(g->vendor, "Test");
        strcpy(g->kind, "gpu");
        g->memory_bytes = memory_bytes;
        g->usable_memory_bytes = memory_bytes;
        t->gpu_infos[i].source = dup(t, "https://example.org");
        t->gpu_infos[i].chips_per_board = 1;
        return g;
}

/* Provider i of the tables. */
static inline void fixture_provider(struct catalog_tables *t, size_t i, const char *id,
                                    const char *kind)
{
        t->providers[i] = (struct catalog_provider){.id = dup(t, id), .kind = dup(t, kind)};
}

/* Offering i of the tables (instance type = id, region "test") renting
 * per_instance gpu_id GPUs at usd_per_hour on demand, as price i. */
static inline void fixture_offering(struct catalog_tables *t, size_t i, const char *id,
                                    const char *provider, const char *gpu_id, int per_instance,
                                    double usd_per_hour)
{
        t->offerings[i].id = dup(t, id);
        t->offerings[i].provider_id = dup(t, provider);
        t->offerings[i].accelerator_id = dup(t, gpu_id);
        t->offerings[i].instance_type = dup(t, id);
        t->offerings[i].region = dup(t, "test");
        t->offerings[i].gpus_per_instance = per_instance;
        t->prices[i] = (struct catalog_price){.id = (int64_t)i + 1,
                                              .offering_id = t->offerings[i].id,
                                              .pricing = CATALOG_ON_DEMAND,
                                              .usd_per_hour = usd_per_hour,
                                              .as_of = dup(t, "2026-01-01"),
                                              .source = dup(t, "https://example.org/prices")};
}

/* Links the tables (content hash hash) and installs them into c, which
 * takes them. */
static inline void fixture_install(struct catalog *c, struct catalog_tables *t, uint64_t hash)
{
        t->content_hash[0] = hash;
        assert_int_equal(catalog_tables_link(t, (char[64]){0}, 64), 0);
        assert_int_equal(catalog_install(c, t), 0);
}

/* cmocka group teardown for the catalog a setup left in *state. */
static inline int fixture_catalog_teardown(void **state)
{
        catalog_free(*state);
        return 0;
}

/* A 1.3B-parameter decoder (24 layers, hidden 2048, GPT-2 vocabulary),
 * fully fine-tuned with AdamW in bf16 mixed precision on 100 000 samples
 * of 512 tokens, batch 4. */
static inline void fixture_decoder_1b(struct estimate_input *in)
{
        estimate_input_defaults(in);
        in->arch.kind = MODEL_DECODER;
        in->arch.layers = 24;
        in->arch.hidden = 2048;
        in->arch.heads = 16;
        in->arch.kv_heads = 16;
        in->arch.head_dim = 128;
        in->arch.ffn = 8192;
        in->arch.vocab = 50257;
        in->arch.max_positions = 2048;
        in->arch.position_table = 2048;
        in->arch.tied_embeddings = true;
        in->arch.pre_norm = true;
        in->arch.final_norm = true;
        in->arch.attn_bias = true;
        in->arch.mlp_bias = true;
        in->mode = EST_FINE_TUNE;
        in->batch_size = 4;
        in->sequence_length = 512;
        in->dataset_samples = 100000;
        in->epochs = 1;
        in->optimizer = EST_OPT_ADAMW;
        in->precision = EST_BF16_MIXED;
}

#endif
