/*
 * engine_fixtures.h - models, GPUs and a run helper shared by the engine's
 * unit tests (test_memory.c, test_compute.c, test_fit.c, test_estimate.c).
 * Every figure here is a published one: the architecture of LLaMA-2-7B
 * from its config.json, its parameter count from Touvron et al. 2023.
 */
#ifndef GPUPLAN_TESTS_ENGINE_FIXTURES_H
#define GPUPLAN_TESTS_ENGINE_FIXTURES_H

/* LLaMA-2-7B: 6,738,415,616 parameters (Touvron et al. 2023). */
static inline struct model_arch llama2_7b(void)
{
        struct model_arch a;
        memset(&a, 0, sizeof(a));
        strcpy(a.name, "llama-2-7b");
        strcpy(a.model_type, "llama");
        a.kind = MODEL_DECODER;
        a.layers = 32;
        a.hidden = 4096;
        a.heads = 32;
        a.kv_heads = 32;
        a.head_dim = 128;
        a.ffn = 11008;
        a.gated_mlp = true;
        a.activation = MODEL_ACT_SILU;
        a.vocab = 32000;
        a.max_positions = 4096;
        a.norm = MODEL_NORM_RMSNORM;
        a.pre_norm = true;
        a.final_norm = true;
        a.position = MODEL_POS_ROTARY;
        return a;
}

#define P7 6738415616.0

/* LLaMA-2's structure at a small size, named "small": 4 blocks, hidden
 * 1024, 16 heads of 64, 4 KV heads, gated MLP 2816, the given vocabulary. */
static inline struct model_arch small_llama(uint32_t vocab)
{
        struct model_arch a = llama2_7b();
        strcpy(a.name, "small");
        a.layers = 4;
        a.hidden = 1024;
        a.heads = 16;
        a.kv_heads = 4;
        a.head_dim = 64;
        a.ffn = 2816;
        a.vocab = vocab;
        return a;
}

/* Mixtral-8x7B: config.json of mistralai/Mixtral-8x7B-v0.1 (32 layers,
 * hidden 4096, 32 heads, 8 KV heads, expert FFN 14336, 8 experts, 2 per
 * token, vocabulary 32000, untied); 46.7B parameters of which 12.9B are
 * active per token (Jiang et al. 2024, "Mixtral of Experts"). */
static inline struct model_arch mixtral_8x7b(void)
{
        struct model_arch a = llama2_7b();
        strcpy(a.name, "mixtral-8x7b");
        strcpy(a.model_type, "mixtral");
        a.kv_heads = 8;
        a.ffn = 14336;
        a.experts = 8;
        a.active_experts = 2;
        a.max_positions = 32768;
        return a;
}

static inline struct gpu_spec gpu(const char *id, double mem, double bw, double bf16)
{
        struct gpu_spec g;
        memset(&g, 0, sizeof(g));
        snprintf(g.id, sizeof(g.id), "%s", id);
        snprintf(g.name, sizeof(g.name), "%s", id);
        g.memory_bytes = (uint64_t)mem;
        g.usable_memory_bytes = (uint64_t)mem;
        g.memory_bandwidth_bytes_per_s = bw;
        g.flops[GPU_FP32] = bf16 / 16;
        g.flops[GPU_TF32] = bf16 / 2;
        g.flops[GPU_FP16] = bf16;
        g.flops[GPU_BF16] = bf16;
        g.link = GPU_LINK_NVLINK;
        g.link_bytes_per_s = 300e9;
        g.can_train = true;
        g.cuda = true;
        return g;
}

static inline void run_into(struct estimate_result *out, const struct estimate_input *in,
                            const struct gpu_spec *g, size_t n)
{
        struct estimate_error e;
        if (estimate_run(in, g, n, out, &e))
                fail_msg("estimate_run: %s %s %s", e.pointer, e.rule, e.detail);
}

#endif
