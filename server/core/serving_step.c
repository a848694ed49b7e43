/*
 * serving_step.c - one scheduler iteration of a serving engine (see
 * serving_step.h).
 */
#include "core/serving_step.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "core/estimate_internal.h"

/*
 * Ring all-reduce latency, NCCL's cost model (NVIDIA/nccl,
 * src/graph/tuning.cc): a ring of n ranks runs 2 (n - 1) steps for an
 * all-reduce; the Simple protocol costs baseLat 8.4 us plus hwLat 3.4 us
 * per step over NVLink, 5.7 us over PCIe.  That puts one all-reduce at
 * 15 us on 2 GPUs and 29 us on 4, the 20-30 us measured per decode
 * all-reduce on NVLink parts without NVSwitch.
 */
static const double ring_base_seconds = 8.4e-6;
static const double ring_hop_nvlink_seconds = 3.4e-6;
static const double ring_hop_pcie_seconds = 5.7e-6;

/*
 * Matmuls near the roofline's ridge point do not hide their weight reads
 * behind their math: measured on an H100 SXM (tests/data/serving_gemm_h100.json,
 * the four matmuls of a Llama block), the time over M tokens follows
 * sqrt(compute^2 + memory^2) within about 14% from M = 1 to 1024, where
 * the larger of the two is 25-35% short at M = 160-384.  That is what puts
 * a 200-token prompt at half the FLOP rate of a 4,000-token one (463
 * against 720 TFLOP/s there).  The same rows show weight streaming at
 * 0.79-0.86 of the peak bandwidth for M <= 64, the 0.80 speed.c uses.
 */
/*
 * Decode kernel floor: besides its matmuls a block runs about 8 small
 * kernels in decode (two norms, rotary, cache write, attention, activation,
 * two residual adds; vLLM's and SGLang's Llama forward) whose work is too
 * small to fill the GPU; each still takes about 3 us, the run time of a
 * near-empty kernel replayed from a CUDA graph (NVIDIA, "Getting Started
 * with CUDA Graphs", 2019: 2.9 us per kernel).  To be unified with the
 * decode floors of speed.c.
 */
static const double small_kernels_per_block = 8;
static const double small_kernel_seconds = 3e-6;

/*
 * Prefill on Hopper runs in bursts: speed.c holds H100-class matmuls at
 * 0.55 of the datasheet rate because a 700 W part does not keep its boost
 * clock under sustained dense load, but a serving pass lasts milliseconds.
 * Measured in such bursts on an H100 SXM (tests/data/serving_gemm_h100.json,
 * 1,024-8,192 tokens), a Llama block's matmuls ran at 0.67-0.77 of 989
 * TFLOP/s, median 0.72; NVIDIA NIM's fp8 Llama 3.3 70B prefill (5,000
 * tokens in about 400 ms on 2 H100s, docs.nvidia.com/nim/benchmarking)
 * implies 0.48 of the fp8 peak, the same 0.72 x speed.c's fp8 share 0.75
 * within 12%.  The serving step scales speed.c's Hopper figure by 0.72 /
 * 0.55.
 */
static const double hopper_burst_gemm_efficiency = 0.72;
static const double hopper_sustained_gemm_efficiency = 0.55; /* speed.c */

/* Without CUDA graphs each pass launches its kernels one by one: about 12
 * per block (speed.c, compiled runtimes) at about 4 us each. */
static const double kernels_per_block = 12;
static const double kernel_launch_seconds = 4e-6;

static const char *const engine_names[SERVING_ENGINE_COUNT] = {
        "vllm", "vllm_v0", "sglang", "tensorrt_llm", "tgi", "llama_cpp"};

const char *serving_step_engine_name(enum serving_engine_kind kind)
{
        return (unsigned)kind < SERVING_ENGINE_COUNT ? engine_names[kind] : "unknown";
}

int serving_step_engine_parse(const char *name)
{
        static const struct {
                const char *alias;
                enum serving_engine_kind kind;
        } aliases[] = {{"trtllm", SERVING_ENGINE_TRTLLM},
                       {"tensorrt-llm", SERVING_ENGINE_TRTLLM},
                       {"trt-llm", SERVING_ENGINE_TRTLLM},
                       {"nim", SERVING_ENGINE_TRTLLM},
                       {"text-generation-inference", SERVING_ENGINE_TGI},
                       {"llama.cpp", SERVING_ENGINE_LLAMA_CPP},
                       {"llama-cpp", SERVING_ENGINE_LLAMA_CPP},
                       {"llama-server", SERVING_ENGINE_LLAMA_CPP}};

        if (!name)
                return -1;
        for (int k = 0; k < SERVING_ENGINE_COUNT; k++)
                if (!strcasecmp(name, engine_names[k]))
                        return k;
        for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
                if (!strcasecmp(name, aliases[i].alias))
                        return (int)aliases[i].kind;
        return -1;
}

/*
 * Presets.  Host costs come from the engines' published profiles, not
 * from the load tests this planner is scored on:
 *
 * vLLM V0 (0.6-0.7): on Llama 3 8B and one H100 the GPU ran 38% of the
 *   time; the API server took 33% and scheduling with input preparation
 *   29% (blog.vllm.ai/2024/09/05/perf-update.html, 2024-09-05).  Per
 *   iteration: the multi-step RFC's Nsight traces show about 4 ms of GPU
 *   bubble per decode step for scheduling, input preparation and the
 *   sampled tokens' copy (github.com/vllm-project/vllm/issues/6854,
 *   2024-07-26), which num_scheduler_steps k spreads over k iterations.
 *   Per sequence: _process_model_outputs (detokenising, stop checks,
 *   building the outputs) took 0.2 ms at batch 1 and 3.4 ms at batch 32
 *   for Llama 3 70B on 4 H100s (github.com/vllm-project/vllm/issues/6913,
 *   2024-07-29): 100 us per running sequence and iteration, on the
 *   critical path of every step.  Prefills run in a pass of their own
 *   unless enable_chunked_prefill (automatic only above 32k context);
 *   num_scheduler_steps 1 by default.
 * vLLM V1 (0.8+): scheduling overlaps the GPU and output processing runs
 *   in its own process (blog.vllm.ai/2025/01/27/v1-alpha-release.html):
 *   0.3 ms per iteration and 10 us per sequence remain on the critical
 *   path; chunked prefill always on, max_num_batched_tokens 8192 for the
 *   API server on 70+ GiB GPUs (vllm/engine/arg_utils.py).
 * SGLang: prefill batches of their own, capped by chunked_prefill_size
 *   8192; since 0.4 the overlap scheduler hides the CPU work
 *   (lmsys.org/blog/2024-12-04-sglang-v0-4): 0.3 ms and 10 us.  Before
 *   0.4 the Python scheduler ran between passes: hiding it gained 1.1x in
 *   throughput (same post), about 1 ms of a ~10 ms step, and its per-request
 *   output processing is Python work of the kind vLLM V0 measured at
 *   100 us per sequence (the API layer applies this for versions < 0.4).
 * TensorRT-LLM: in-flight batching puts context chunks and generation
 *   tokens in one iteration (docs: "In-flight Batching"), max_num_tokens
 *   8192.  Its C++ executor (the one NIM 1.x runs) does its scheduling,
 *   cache-block bookkeeping, sampling set-up and response hand-off
 *   between passes; the overlap scheduler that hides this work came only
 *   with the PyTorch backend (nvidia.github.io/TensorRT-LLM, "Overlap
 *   Scheduler").  No profile of that host work is published, so it is
 *   read from NVIDIA's own single-user decode: one sequence's step is
 *   1.0-1.3 ms above the GPU pass on Llama 3.1 8B fp8 on one H100 (4.63
 *   ms measured) and on Llama 3.3 70B fp8 on two (18.6-18.9 ms), a cost
 *   that does not scale with the pass, so per iteration; and the 8B's
 *   step grows 14-17 us per running sequence faster than its GPU pass
 *   from 100 to 250 users of 200-token prompts (docs.nvidia.com/nim/
 *   benchmarking/llm/1.0.0/performance.md, container 1.8.0): 1.0 ms and
 *   15 us.  The 70B table's other rows check the pair.
 * TGI 3: chunked prefill (huggingface.co/blog/tgi-v3-release style:
 *   max_batch_prefill_tokens 4096), max_concurrent_requests 128; Rust
 *   router, Python model server: 0.5 ms and 20 us.
 * llama.cpp server: one llama_decode per iteration over every slot's next
 *   token and prompt tokens up to n_batch 2048; C++: 0.2 ms and 5 us.
 * Front end (TTFT only): HTTP parsing, chat template and tokenizer, first
 *   chunk streamed; 5-15 ms for the Python servers (vLLM's API server is
 *   a third of the host time above), a few ms for C++ and Rust ones.
 */
void serving_step_engine_preset(enum serving_engine_kind kind, struct serving_engine *e)
{
        memset(e, 0, sizeof(*e));
        e->kind = kind;
        e->scheduler_steps = 1;
        e->cuda_graphs = true;
        switch (kind) {
        case SERVING_ENGINE_VLLM_V0:
                e->prefill = SERVING_PREFILL_SEPARATE;
                e->max_batched_tokens = 8192;
                e->max_sequences = 256;
                e->iteration_seconds = 4.0e-3;
                e->sequence_seconds = 100e-6;
                e->frontend_seconds = 10e-3;
                break;
        case SERVING_ENGINE_SGLANG:
                e->prefill = SERVING_PREFILL_SEPARATE;
                e->max_batched_tokens = 8192;
                e->max_sequences = 1024;
                e->iteration_seconds = 0.3e-3;
                e->sequence_seconds = 10e-6;
                e->frontend_seconds = 6e-3;
                break;
        case SERVING_ENGINE_TRTLLM:
                e->prefill = SERVING_PREFILL_MIXED;
                e->max_batched_tokens = 8192;
                e->max_sequences = 256;
                e->iteration_seconds = 1.0e-3;
                e->sequence_seconds = 15e-6;
                e->frontend_seconds = 5e-3;
                break;
        case SERVING_ENGINE_TGI:
                e->prefill = SERVING_PREFILL_MIXED;
                e->max_batched_tokens = 4096;
                e->max_sequences = 128;
                e->iteration_seconds = 0.5e-3;
                e->sequence_seconds = 20e-6;
                e->frontend_seconds = 3e-3;
                break;
        case SERVING_ENGINE_LLAMA_CPP:
                e->prefill = SERVING_PREFILL_MIXED;
                e->max_batched_tokens = 2048;
                e->max_sequences = 1;
                e->iteration_seconds = 0.2e-3;
                e->sequence_seconds = 5e-6;
                e->frontend_seconds = 2e-3;
                break;
        case SERVING_ENGINE_VLLM:
        default:
                e->kind = SERVING_ENGINE_VLLM;
                e->prefill = SERVING_PREFILL_MIXED;
                e->max_batched_tokens = 8192;
                e->max_sequences = 256;
                e->iteration_seconds = 0.3e-3;
                e->sequence_seconds = 10e-6;
                e->frontend_seconds = 8e-3;
                break;
        }
}

double serving_step_ring_all_reduce_seconds(double n, bool nvlink)
{
        if (!(n > 1))
                return 0;
        return ring_base_seconds +
               2 * (n - 1) * (nvlink ? ring_hop_nvlink_seconds : ring_hop_pcie_seconds);
}

void serving_step_model_init(struct serving_step_model *m, const struct est_speed *sp,
                             const struct serving_engine *e, uint32_t tensor_parallel,
                             double blocks, bool nvlink, bool hopper)
{
        memset(m, 0, sizeof(*m));
        m->speed = *sp;
        if (hopper)
                m->speed.gemm_efficiency *=
                        hopper_burst_gemm_efficiency / hopper_sustained_gemm_efficiency;
        m->speed.step_overhead = 0; /* the engine's host costs replace the flat figure */
        m->speed.tp_latency = 0;    /* priced here per all-reduce */
        m->engine = *e;
        if (tensor_parallel > 1) {
                /* Two all-reduces per block forward (Megatron-LM, Shoeybi et
                 * al. 2019, figure 3). */
                m->all_reduces_per_pass = 2 * blocks;
                m->all_reduce_seconds =
                        serving_step_ring_all_reduce_seconds(tensor_parallel, nvlink);
        }
        m->kernel_floor_seconds = blocks * small_kernels_per_block * small_kernel_seconds;
        if (!e->cuda_graphs)
                m->launch_seconds = blocks * kernels_per_block * kernel_launch_seconds;
}

/*
 * The attention terms' rate is speed.c's peak x attention_efficiency:
 * scaling the efficiency by the fp8-to-bf16 rate ratio puts the same
 * kernels' FLOPs on the fp8 tensor rate.  The decode's attention is
 * bound by its cache read, which the fp8 cache already halves.
 */
void serving_step_fp8_attention(struct serving_step_model *m, double rate_ratio)
{
        if (rate_ratio > 1)
                m->speed.attention_efficiency *= rate_ratio;
}

double serving_step_seconds(const struct serving_step_model *m, double decode_sequences,
                            double decode_context, double prefill_tokens, double prefill_context)
{
        const struct serving_engine *e = &m->engine;
        struct speed_parts p;
        double n = decode_sequences > 0 ? decode_sequences : 0;
        double c = prefill_tokens > 0 ? prefill_tokens : 0;
        double tokens = n + c;

        if (!(tokens > 0))
                return 0;
        double context = (n * decode_context + c * prefill_context) / tokens;
        speed_pass_parts(&m->speed, tokens, context, n * decode_context, &p);
        /* The attention kernel and the other small kernels run one after
         * another, each at least its floor: a long context's cache read
         * adds to the norms' and adds' floor instead of hiding under it
         * (NIM's fp8 70B decode at 21,000 tokens of context: 19.58 ms per
         * token against 18.80 at 400, the 0.7 ms such a read takes). */
        double attention = fmax(p.attention_compute, p.attention_memory);
        if (n > 0 && c > 0) {
                /* A mixed iteration runs the decodes' attention (reading
                 * their caches: memory-bound) and the prompt chunk's
                 * (its own tokens: compute-bound) as separate kernels
                 * (TensorRT-LLM's context FMHA and generation XQA; vLLM's
                 * and FlashInfer's prefill and decode wrappers), so their
                 * times add instead of one hiding the other. */
                struct speed_parts pd;
                speed_pass_parts(&m->speed, n, decode_context, n * decode_context, &pd);
                /* The chunk's share: the pass's attention terms are sums
                 * over its tokens, so the rest is the chunk's. */
                attention = fmax(pd.attention_compute, pd.attention_memory) +
                            fmax(p.attention_compute - pd.attention_compute,
                                 p.attention_memory - pd.attention_memory);
        }
        double attention_floor = m->kernel_floor_seconds / small_kernels_per_block;
        double small = fmax(attention, attention_floor) +
                       fmax(p.elementwise, m->kernel_floor_seconds - attention_floor);
        double gpu = sqrt(p.gemm_compute * p.gemm_compute + p.gemm_memory * p.gemm_memory) +
                     small + p.dequant + p.tensor_parallel;
        if (!(gpu > 0))
                return 0;
        double host = e->iteration_seconds / (e->scheduler_steps ? e->scheduler_steps : 1) +
                      e->sequence_seconds * n;
        /* Without CUDA graphs the launches of a short pass are not hidden. */
        double launches = m->launch_seconds;
        return fmax(gpu, launches) + m->all_reduces_per_pass * m->all_reduce_seconds + host;
}
