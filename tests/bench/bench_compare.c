/*
 * bench_compare.c - time one compare search over the whole plan space.
 *
 * Loads the real catalog from DATABASE_URL (a migrated database), decodes
 * the XLM-R XL fine-tuning request of the article "Hardware Requirements for Training of Language
 * Models" (batch 16, sequence 128, 3 labels, 10 000 tweets, AdamW) - or the compare body in the
 * file named by the second argument (tests/bench/run.sh's, say) - with the estimate decoder, and
 * runs plan_train_search() with max_gpus 64 on this one thread, repeatedly.  Prints the plans
 * evaluated, engine calls, runs skipped, plans and exclusions, and the minimum and median
 * milliseconds per search.
 *
 *   DATABASE_URL=postgresql://... build/bench_compare [runs [body.json]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api/estimate_decode.h"
#include "catalog/catalog.h"
#include "db/catalog_sync.h"
#include "db/pool.h"
#include "plan/train_search.h"

static const char request_json[] =
        "{\"model\": {\"hf_config\": {\"model_type\": \"xlm-roberta-xl\", \"hidden_size\": 2560,"
        " \"num_hidden_layers\": 36, \"num_attention_heads\": 32, \"intermediate_size\": 10240,"
        " \"vocab_size\": 250880, \"max_position_embeddings\": 514, \"type_vocab_size\": 1,"
        " \"hidden_act\": \"gelu\", \"layer_norm_eps\": 1e-05}},"
        " \"workload\": {\"mode\": \"fine_tune\", \"batch_size\": 16, \"sequence_length\": 128,"
        " \"num_labels\": 3, \"dataset\": {\"samples\": 10000, \"epochs\": 1}},"
        " \"optimizer\": \"adamw\"}";

static double now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
        const char *url = getenv("DATABASE_URL");
        int runs = argc > 1 ? atoi(argv[1]) : 50;
        char err[256] = "out of memory";
        struct db_pool *pool;
        struct catalog *cat;
        struct catalog_sync *sync;
        const struct catalog_snapshot *s;
        struct estimate_input in;
        struct fields_error aerr;
        struct estimate_error eerr;
        struct plan_train_constraints c;
        struct plan_train_result r;
        json_t *body;
        double *ms;
        size_t n_gpus, n_off;

        if (!url || !*url || runs < 1 || runs > 100000) {
                fprintf(stderr,
                        "usage: DATABASE_URL=postgresql://... %s [runs 1..100000 [body.json]]\n",
                        argv[0]);
                return 2;
        }
        pool = db_pool_new(url, 1, err, sizeof(err));
        cat = catalog_new();
        sync = catalog_sync_new(cat, pool);
        if (!sync || catalog_sync_reload(sync, err, sizeof(err))) {
                fprintf(stderr, "cannot load the catalog: %s\n", err);
                return 1;
        }
        s = catalog_acquire(cat);
        body = argc > 2 ? json_load_file(argv[2], 0, NULL) : json_loads(request_json, 0, NULL);
        memset(&aerr, 0, sizeof(aerr));
        if (!body || estimate_decode_request(body, s, NULL, &in, &aerr)) {
                fprintf(stderr, "request refused: %s %s\n", aerr.pointer, aerr.detail);
                return 1;
        }
        plan_train_search_constraints_defaults(&c);
        ms = calloc((size_t)runs, sizeof(*ms));
        if (!ms)
                return 1;
        for (int i = 0; i < runs; i++) {
                double t0 = now_ms();

                if (plan_train_search(s, &in, &c, &r, &eerr)) {
                        fprintf(stderr, "search failed: %s\n", eerr.detail);
                        return 1;
                }
                ms[i] = now_ms() - t0;
                if (i + 1 < runs)
                        plan_train_search_result_free(&r);
        }
        qsort(ms, (size_t)runs, sizeof(*ms), cmp_double);
        catalog_gpus(s, &n_gpus);
        catalog_offerings(s, &n_off);
        printf("catalog: %zu accelerators, %zu offerings\n", n_gpus, n_off);
        if (argc > 2)
                printf("workload: %s\n", argv[2]);
        else
                printf("workload: XLM-R XL full fine-tune, batch 16 x 128 tokens, 10000 samples,"
                       " AdamW\n");
        printf("plans evaluated: %llu (GPU x count 1..%u x strategy x saver)\n",
               (unsigned long long)r.evaluated, c.max_gpus);
        printf("engine calls: %llu; runs skipped by their time floor: %llu; plans: %zu;"
               " excluded: %zu\n",
               (unsigned long long)r.engine_calls, (unsigned long long)r.skipped, r.n_plans,
               r.n_excluded);
        printf("compare search: min %.2f ms, median %.2f ms over %d runs (one thread)\n", ms[0],
               ms[runs / 2], runs);
        plan_train_search_result_free(&r);
        free(ms);
        json_decref(body);
        catalog_release(s);
        catalog_sync_free(sync);
        catalog_free(cat);
        db_pool_free(pool);
        return 0;
}
