/*
 * bench_answer.c - microseconds per step of an estimate request in the
 * process: parse the body (jansson), decode and validate it, run the
 * engine, write the answer (api/jsonw.h).
 *
 * The request is tests/bench's estimate (XLM-RoBERTa large, fp32 AdamW
 * pre-training on one GPU) with the model's architecture written out, as
 * no catalog is loaded, and its batch size and sequence length varied
 * call by call as tests/bench/vary.lua varies them (512 bodies).  The
 * GPU list has 56 entries, as the seeded catalog has, with names of the
 * catalog's lengths, so the answer's fit table is as long as the
 * server's.  Times are CPU time (CLOCK_PROCESS_CPUTIME_ID), which
 * other work on the machine does not inflate.  Prints figures; asserts
 * nothing.
 *
 * Usage: bench_answer [iterations]   (default 20000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api/estimate_decode.h"
#include "api/estimate_encode.h"
#include "core/estimate.h"

#define BENCH_GPUS   56
#define BENCH_BODIES 512

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* vary.lua's body i (1-based): batch 1..64, sequence 16..512. */
static void body_text(int i, char *buf, size_t len)
{
        int batch = 1 + (i * 7) % 64;
        int seq = 16 * (1 + (i * 13 + (i / 64) * 5) % 32);

        snprintf(buf, len,
                 "{\"model\": {\"architecture\": {\"name\": \"XLM-RoBERTa Large\", "
                 "\"kind\": \"encoder\", \"layers\": 24, "
                 "\"hidden_size\": 1024, \"heads\": 16, \"ffn_size\": 4096, \"vocab_size\": "
                 "250002, \"max_positions\": 514, \"type_vocab_size\": 1, \"activation\": "
                 "\"gelu\", \"norm\": \"layernorm\", \"pre_norm\": false, \"position_embedding\": "
                 "\"learned\", \"tied_embeddings\": true, \"pooler\": true}}, "
                 "\"workload\": {\"mode\": \"pre_train\", \"batch_size\": %d, "
                 "\"sequence_length\": %d, \"gradient_accumulation\": 1, \"dataset\": "
                 "{\"samples\": 1000000, \"epochs\": 1}}, \"precision\": \"fp32\", "
                 "\"optimizer\": \"adamw\"}",
                 batch, seq);
}

int main(int argc, char **argv)
{
        long iters = argc > 1 ? atol(argv[1]) : 20000;
        static struct gpu_spec gpus[BENCH_GPUS];
        static struct estimate_result r;
        static char bodies[BENCH_BODIES][1024];
        static const double mem_gb[] = {8, 12, 16, 24, 32, 40, 48, 80, 94, 141, 192};
        static json_t *trees[BENCH_BODIES];
        static struct estimate_input inputs[BENCH_BODIES];
        static struct estimate_result results[BENCH_BODIES];
        size_t bytes = 0, sink = 0;

        for (int i = 0; i < BENCH_GPUS; i++) {
                struct gpu_spec *g = &gpus[i];
                snprintf(g->id, sizeof(g->id), "gpu-model-%02d-%dgb", i, (int)mem_gb[i % 11]);
                snprintf(g->name, sizeof(g->name), "Vendor Accelerator %02d %dGB (SXM)", i,
                         (int)mem_gb[i % 11]);
                g->memory_bytes = i % 13 == 12 ? 0 : (uint64_t)(mem_gb[i % 11] * 1073741824.0);
                g->usable_memory_bytes = g->memory_bytes;
                g->memory_bandwidth_bytes_per_s = 1e12 + 1e11 * i;
                g->flops[GPU_FP32] = 19.5e12 + 1e12 * i;
                g->flops[GPU_TF32] = 156e12;
                g->flops[GPU_FP16] = g->flops[GPU_BF16] = 312e12 + 10e12 * i;
                g->flops[GPU_FP8] = 600e12;
                g->link = i % 2 ? GPU_LINK_NVLINK : GPU_LINK_PCIE;
                g->link_bytes_per_s = i % 2 ? 300e9 : 32e9;
                g->can_train = true;
                g->cuda = true;
        }
        for (int i = 0; i < BENCH_BODIES; i++)
                body_text(i + 1, bodies[i], sizeof(bodies[i]));

        /* Each step in a loop of its own over inputs the step before made:
         * the CPU clock is a system call, too slow to read inside a step. */
        for (int i = 0; i < BENCH_BODIES; i++) {
                json_error_t je;
                struct fields_error fe;
                struct estimate_error ee;
                trees[i] = json_loadb(bodies[i], strlen(bodies[i]), JSON_REJECT_DUPLICATES, &je);
                if (!trees[i] || estimate_decode_request(trees[i], NULL, NULL, &inputs[i], &fe)) {
                        fprintf(stderr, "body %d refused: %s\n", i, trees[i] ? fe.detail : je.text);
                        return 1;
                }
                inputs[i].gpu_index = 7; /* an 80 GB part, as the bench's a100-sxm-80gb */
                if (estimate_run(&inputs[i], gpus, BENCH_GPUS, &results[i], &ee)) {
                        fprintf(stderr, "body %d: %s %s\n", i, ee.pointer, ee.detail);
                        return 1;
                }
        }
        double t0 = now_s();
        for (long k = 0; k < iters; k++) {
                const char *text = bodies[k % BENCH_BODIES];
                json_t *body = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, NULL);
                sink += body != NULL;
                json_decref(body);
        }
        double t1 = now_s();
        for (long k = 0; k < iters; k++) {
                struct estimate_input in;
                struct fields_error fe;
                sink += (size_t)estimate_decode_request(trees[k % BENCH_BODIES], NULL, NULL, &in,
                                                        &fe);
        }
        double t2 = now_s();
        for (long k = 0; k < iters; k++) {
                struct estimate_error ee;
                sink += (size_t)estimate_run(&inputs[k % BENCH_BODIES], gpus, BENCH_GPUS, &r, &ee);
        }
        double t3 = now_s();
        for (long k = 0; k < iters; k++) {
                size_t len = 0;
                char *answer =
                        estimate_encode_render(&inputs[k % BENCH_BODIES],
                                               &results[k % BENCH_BODIES], gpus, BENCH_GPUS, &len);
                bytes += len;
                free(answer);
        }
        double t4 = now_s();
        double t_parse = t1 - t0, t_decode = t2 - t1, t_run = t3 - t2, t_render = t4 - t3;
        printf("iterations %ld, answer %zu bytes on average, %d GPUs in the fit table\n", iters,
               bytes / (size_t)(iters > 0 ? iters : 1), BENCH_GPUS);
        printf("%-28s %8.2f us\n", "parse (json_loadb)", t_parse / (double)iters * 1e6);
        printf("%-28s %8.2f us\n", "decode and validate", t_decode / (double)iters * 1e6);
        printf("%-28s %8.2f us\n", "estimate_run", t_run / (double)iters * 1e6);
        printf("%-28s %8.2f us\n", "render (jsonw)", t_render / (double)iters * 1e6);
        printf("%-28s %8.2f us\n", "total",
               (t_parse + t_decode + t_run + t_render) / (double)iters * 1e6);
        for (int i = 0; i < BENCH_BODIES; i++)
                json_decref(trees[i]);
        return sink == (size_t)-1; /* keeps the loops' results alive */
}
