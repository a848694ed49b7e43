/*
 * bench_estimate.c - microseconds per estimate, fit table included.
 *
 * Builds a 45-GPU catalog in memory (A100/H100-like figures, varied
 * memory sizes) and times estimate_run() on a training and an inference
 * request.  Training estimates replay the caching allocator; the replay
 * is remembered per configuration (core/reserve_cache.h), so the repeated
 * request measures the remembered path, and two more lines give the cost
 * of a configuration seen for the first time: the same request with the
 * table off, and a micro-batch that changes on every call.  Times are
 * CPU time (CLOCK_PROCESS_CPUTIME_ID).  Prints figures; asserts nothing.
 *
 * Usage: bench_estimate [iterations]   (default 200000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/estimate.h"
#include "core/reserve_cache.h"

/* CPU time of this (single-threaded) process: on a machine shared with
 * other work, wall-clock time also counts the time the scheduler gave to
 * others. */
static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void llama2_7b(struct model_arch *a)
{
        memset(a, 0, sizeof(*a));
        strcpy(a->name, "llama-2-7b");
        strcpy(a->model_type, "llama");
        a->kind = MODEL_DECODER;
        a->layers = 32;
        a->hidden = 4096;
        a->heads = 32;
        a->kv_heads = 32;
        a->head_dim = 128;
        a->ffn = 11008;
        a->gated_mlp = true;
        a->activation = MODEL_ACT_SILU;
        a->vocab = 32000;
        a->max_positions = 4096;
        a->norm = MODEL_NORM_RMSNORM;
        a->pre_norm = true;
        a->final_norm = true;
        a->position = MODEL_POS_ROTARY;
}

static double bench(const char *label, const struct estimate_input *in, const struct gpu_spec *gpus,
                    size_t n, long iters, struct estimate_result *r)
{
        struct estimate_error e;
        volatile uint64_t sink = 0;
        double t0 = now_s();
        for (long i = 0; i < iters; i++) {
                if (estimate_run(in, gpus, n, r, &e)) {
                        fprintf(stderr, "%s: %s %s\n", label, e.pointer, e.detail);
                        exit(1);
                }
                sink += r->per_gpu_total_bytes;
        }
        double us = (now_s() - t0) / (double)iters * 1e6;
        printf("%-44s %8.2f us/estimate  (%zu GPUs in the fit table, %zu suggestions)\n", label, us,
               r->n_fits, r->n_suggestions);
        (void)sink;
        return us;
}

int main(int argc, char **argv)
{
        long iters = argc > 1 ? atol(argv[1]) : 200000;
        static struct gpu_spec gpus[45];
        static struct estimate_result r;
        struct estimate_input in;
        static const double mem_gb[] = {8, 12, 16, 24, 32, 40, 48, 80, 94, 141, 192};

        for (int i = 0; i < 45; i++) {
                struct gpu_spec *g = &gpus[i];
                snprintf(g->id, sizeof(g->id), "gpu-%02d", i);
                snprintf(g->name, sizeof(g->name), "GPU %d", i);
                g->memory_bytes = (uint64_t)(mem_gb[i % 11] * 1e9);
                g->usable_memory_bytes = g->memory_bytes;
                g->memory_bandwidth_bytes_per_s = 1e12 + 1e11 * i;
                g->flops[GPU_FP32] = 20e12;
                g->flops[GPU_TF32] = 150e12;
                g->flops[GPU_FP16] = g->flops[GPU_BF16] = 300e12 + 10e12 * i;
                g->flops[GPU_FP8] = 600e12;
                g->link = i % 2 ? GPU_LINK_NVLINK : GPU_LINK_PCIE;
                g->link_bytes_per_s = i % 2 ? 450e9 : 32e9;
                g->can_train = i % 9 != 8;
                g->cuda = true;
        }
        printf("iterations %ld\n", iters);

        estimate_input_defaults(&in);
        llama2_7b(&in.arch);
        in.mode = EST_FINE_TUNE;
        in.batch_size = 4;
        in.sequence_length = 2048;
        in.flash_attention = true;
        in.strategy = EST_FSDP;
        in.gpus = 8;
        in.dataset_samples = 100000;
        in.gpu_index = 7;
        bench("llama-2-7b full fine-tune, FSDP x8, fits", &in, gpus, 45, iters, &r);
        reserve_cache_enable(false);
        bench("same, replayed on every call (table off)", &in, gpus, 45, iters / 4, &r);
        reserve_cache_enable(true);
        {
                /* a new micro-batch each call: 1..1000000, never repeated */
                struct estimate_error e;
                long n = iters / 4;
                double t0 = now_s();
                for (long i = 0; i < n; i++) {
                        in.batch_size = (uint32_t)(i % 1000000 + 1);
                        if (estimate_run(&in, gpus, 45, &r, &e)) {
                                fprintf(stderr, "fresh batch: %s %s\n", e.pointer, e.detail);
                                return 1;
                        }
                }
                printf("%-44s %8.2f us/estimate\n", "same, a new micro-batch on every call",
                       (now_s() - t0) / (double)n * 1e6);
                in.batch_size = 4;
        }
        struct reserve_cache_stats st;
        reserve_cache_stats(&st);
        printf("%-44s %8llu hits, %llu replays\n", "allocator replay table so far",
               (unsigned long long)st.hits, (unsigned long long)st.misses);

        in.strategy = EST_SINGLE;
        in.gpus = 1;
        in.gpu_index = 3;
        bench("same on one 24 GB GPU (suggestions run)", &in, gpus, 45, iters / 4, &r);

        estimate_input_defaults(&in);
        llama2_7b(&in.arch);
        in.mode = EST_INFERENCE;
        in.precision = EST_BF16;
        in.batch_size = 8;
        in.prompt_tokens = 1024;
        in.generated_tokens = 256;
        in.sequence_length = 1280;
        in.set |= EST_SET_PROMPT | EST_SET_GENERATED | EST_SET_SEQUENCE;
        in.gpu_index = 7;
        bench("llama-2-7b inference + serving answer", &in, gpus, 45, iters, &r);
        return 0;
}
