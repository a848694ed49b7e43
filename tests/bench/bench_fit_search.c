/*
 * bench_fit_search.c - milliseconds per "make it fit" search
 * (plan/fit_search.c) for 7B decoder jobs (the shape the engine derives
 * from 6.74e9 parameters) that do not fit a 24 GB card,
 * with how many combinations the memory model sized and how many minimal
 * sets the full engine confirmed.  Prints figures; asserts nothing.
 *
 * Usage: bench_fit_search [iterations]   (default 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/estimate.h"
#include "plan/fit_search.h"

static double seconds(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
        int iterations = argc > 1 ? atoi(argv[1]) : 20;
        struct gpu_spec g;
        static struct plan_fit_result r;
        const struct {
                const char *name;
                enum est_mode mode;
                enum est_precision precision;
                uint32_t batch;
                bool adapters;
        } jobs[] = {
                {"full fine-tune, fp32, batch 16", EST_FINE_TUNE, EST_FP32, 16, false},
                {"full fine-tune, fp32, batch 16, adapters allowed", EST_FINE_TUNE, EST_FP32, 16,
                 true},
                {"LoRA, fp32, batch 16", EST_LORA, EST_FP32, 16, false},
                {"inference, bf16, batch 32", EST_INFERENCE, EST_BF16, 32, false},
        };

        if (iterations < 1)
                iterations = 1;
        /* An RTX 4090: 24 GB, 1008 GB/s, 165 TFLOP/s bf16 dense with fp32
         * accumulation (NVIDIA Ada GPU architecture whitepaper, table 2). */
        memset(&g, 0, sizeof(g));
        strcpy(g.id, "rtx-4090");
        strcpy(g.name, "RTX 4090");
        g.memory_bytes = g.usable_memory_bytes = 24ull * 1000 * 1000 * 1000;
        g.memory_bandwidth_bytes_per_s = 1008e9;
        g.flops[GPU_FP32] = 82.6e12;
        g.flops[GPU_TF32] = 82.6e12;
        g.flops[GPU_FP16] = 165.2e12;
        g.flops[GPU_BF16] = 165.2e12;
        g.link = GPU_LINK_PCIE;
        g.link_bytes_per_s = 32e9;
        g.can_train = true;
        g.cuda = true;
        for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
                struct estimate_input in;
                struct plan_fit_options o;
                struct estimate_error e;
                double t0;

                estimate_input_defaults(&in);
                if (model_arch_from_parameters(6738415616ull, &in.arch)) {
                        fprintf(stderr, "no shape for 6.74e9 parameters\n");
                        return 1;
                }
                in.mode = jobs[j].mode;
                in.precision = jobs[j].precision;
                in.batch_size = jobs[j].batch;
                in.sequence_length = 1024;
                in.prompt_tokens = 1024;
                in.generated_tokens = 256;
                in.gpu_index = 0;
                plan_fit_search_options_defaults(&o);
                o.allow_adapters = jobs[j].adapters;
                t0 = seconds();
                for (int i = 0; i < iterations; i++)
                        if (plan_fit_search(&in, &g, 1, &o, &r, &e)) {
                                fprintf(stderr, "%s: %s\n", jobs[j].name, e.detail);
                                return 1;
                        }
                printf("%-50s %8.2f ms per search, %5llu combinations sized, %3llu confirmed, %zu "
                       "options\n",
                       jobs[j].name, (seconds() - t0) * 1e3 / iterations,
                       (unsigned long long)r.combinations, (unsigned long long)r.candidates,
                       r.n_options);
        }
        return 0;
}
