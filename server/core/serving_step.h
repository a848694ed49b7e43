/*
 * serving_step.h - one scheduler iteration of an LLM serving engine, as
 * the engines run it, and the engines' presets.
 *
 * An iteration (vLLM's "step", SGLang's "batch", TensorRT-LLM's in-flight
 * batching iteration, llama.cpp's llama_decode of one batch) is one forward
 * pass over the running sequences' next tokens plus, where the engine mixes
 * them, a chunk of waiting prompts up to its batched-token budget.  Its
 * time is the roofline pass of speed.c over those tokens (matmuls at their
 * tile-padded row count), the tensor-parallel all-reduces at their ring
 * latency, and the engine's host work per iteration and per sequence.
 *
 * Pure: no allocation, no globals; thread-safe.
 */
#ifndef GPUPLAN_CORE_SERVING_STEP_H
#define GPUPLAN_CORE_SERVING_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/estimate.h"

enum serving_engine_kind {
        SERVING_ENGINE_VLLM = 0, /* vLLM V1 engine (0.8 and later) */
        SERVING_ENGINE_VLLM_V0,  /* vLLM 0.6-0.7 (V0 engine, multi-step scheduling) */
        SERVING_ENGINE_SGLANG,
        SERVING_ENGINE_TRTLLM,
        SERVING_ENGINE_TGI,
        SERVING_ENGINE_LLAMA_CPP,
        SERVING_ENGINE_COUNT
};

/* How an engine puts waiting prompts into its iterations. */
enum serving_prefill_mode {
        SERVING_PREFILL_SEPARATE, /* a prefill pass of its own; decodes wait (prefill first) */
        SERVING_PREFILL_MIXED /* prompt chunks ride in the decode iterations (chunked prefill) */
};

struct serving_engine {
        enum serving_engine_kind kind;
        enum serving_prefill_mode prefill;
        uint32_t scheduler_steps; /* decode iterations per scheduling (vLLM num_scheduler_steps) */
        uint32_t max_batched_tokens; /* tokens one iteration may carry */
        uint32_t max_sequences;      /* running sequences at most */
        bool cuda_graphs;            /* decode replayed from CUDA graphs */
        double iteration_seconds;    /* host: schedule, prepare inputs, launch, per iteration */
        double sequence_seconds;     /* host per running sequence and iteration: sampling,
                                        detokenising, streaming */
        double frontend_seconds;     /* HTTP server, tokenizer, first chunk streamed (TTFT) */
};

/* The preset of an engine (its defaults, with their sources in serving_step.c). */
void serving_step_engine_preset(enum serving_engine_kind kind, struct serving_engine *out);

/* "vllm", "vllm_v0", "sglang", "tensorrt_llm", "tgi", "llama_cpp". */
const char *serving_step_engine_name(enum serving_engine_kind kind);

/* The engine a name denotes (ours or a common spelling); -1 when unknown. */
int serving_step_engine_parse(const char *name);

/*
 * Latency of one ring all-reduce over n GPUs of a small message (the
 * decode activations): NCCL's own cost model, a base latency plus one
 * link hop for each of the 2 (n - 1) ring steps.  0 for n <= 1.
 * (To be unified with the training side's collective model.)
 */
double serving_step_ring_all_reduce_seconds(double n, bool nvlink);

/*
 * What a forward pass costs on a serving replica, independent of the load.
 */
struct serving_step_model {
        struct est_speed speed; /* per GPU: pass cost without fixed overheads */
        struct serving_engine engine;
        double all_reduces_per_pass; /* 2 per transformer block under tensor parallelism */
        double all_reduce_seconds;   /* one, at its ring latency */
        double launch_seconds;       /* kernel launches per pass without CUDA graphs */
        double kernel_floor_seconds; /* the small kernels' least time per pass */
};

/*
 * Build the step model from a pass model (est_speed from estimate_run),
 * the engine, the tensor-parallel degree, the model's transformer blocks,
 * whether the GPUs talk over NVLink and whether they are Hopper-class
 * (matmuls at their burst rate, see serving_step.c).
 */
void serving_step_model_init(struct serving_step_model *m, const struct est_speed *sp,
                             const struct serving_engine *e, uint32_t tensor_parallel,
                             double blocks, bool nvlink, bool hopper);

/*
 * Attention in fp8: the engine runs its attention kernels on fp8 inputs
 * at rate_ratio times the rate of the compute dtype (the GPU's fp8 over
 * its bf16/fp16 tensor rate).  Call after serving_step_model_init.
 */
void serving_step_fp8_attention(struct serving_step_model *m, double rate_ratio);

/*
 * Seconds of one iteration: decode_sequences sequences each add one token
 * at mean context decode_context, and prefill_tokens prompt tokens (0 for
 * a pure decode iteration) attend to prefill_context earlier tokens on
 * average.  Includes the host's work for the iteration.
 */
double serving_step_seconds(const struct serving_step_model *m, double decode_sequences,
                            double decode_context, double prefill_tokens, double prefill_context);

#endif
