/*
 * fuzz_estimate.c - libFuzzer harness for POST /api/v1/estimate below the
 * transport: request object -> estimate_decode_request() (every field's type,
 * range, enum and contradiction rules) -> estimate_run() (the engine, over
 * a small hand-made catalog) -> estimate_encode_result().
 *
 * Input: either a request as JSON text (the input starts with '{'), which
 * keeps the seeds readable, or bytes that the data provider of
 * fuzz_json.h turns into a request built from the real keys of the
 * request schema (api/estimate_decode.c), with boundary numbers, every enum name,
 * wrong types and unknown keys mixed in.  jansson is not instrumented, so
 * this is how the fuzzer reaches deep into the decoder and the engine.
 *
 * Checks, besides the sanitizers: a refusal carries a pointer ("" or
 * "/..."), a rule and a 4xx/503 status; an accepted request either runs or
 * is refused by the engine with a rule; a result keeps its counts inside
 * their tables, its times and FLOPs finite and non-negative, its allocated
 * bytes within the total, and always encodes to a JSON document with the
 * contract's top-level members.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/estimate_decode.h"
#include "api/estimate_encode.h"
#include "models/hf_config.h"
#include "catalog/catalog.h"
#include "catalog/catalog_tables.h"
#include "core/estimate.h"
#include "fuzz_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ------------------------------------------------------------ the schema
 * Enum values come from the engine's own name tables where it has them. */

static const char *const gpu_ids[] = {"a100-sxm-80gb", "rtx-3090", "tpu-v5e", "mystery-npu",
                                      "h100",          "",         NULL};
static const char *const model_ids[] = {"xlm-roberta-large", "llama-2-7b", "broken-model", "gpt-5",
                                        NULL};
static const char *const kinds[] = {"encoder", "decoder", "encoder_decoder", "Encoder", NULL};
static const char *const activations[] = {"gelu", "gelu_tanh", "relu", "silu", "swiglu", NULL};
static const char *const norms[] = {"layernorm", "rmsnorm", "batchnorm", NULL};
static const char *const positions[] = {"learned", "rotary", "relative", "alibi", NULL};
static const char *const lora_targets[] = {"q",  "k",    "v",   "o",       "gate",
                                           "up", "down", "all", "lm_head", NULL};
static const char *const hf_types[] = {"bert",  "roberta",     "xlm-roberta", "xlm-roberta-xl",
                                       "gpt2",  "llama",       "mistral",     "mixtral",
                                       "qwen2", "t5",          "falcon",      "gemma2",
                                       "qwen3", "deepseek_v3", "qwen2_moe",   "modernbert",
                                       "bart",  "gpt_neox",    "opt",         "xyzzy",
                                       NULL};
static const char *const hf_acts[] = {"gelu",  "gelu_new",          "silu", "relu",
                                      "swish", "gelu_pytorch_tanh", NULL};

static const struct fz_field arch_fields[] = {
        {"name", FZ_STRING, NULL, NULL},
        {"kind", FZ_ENUM, kinds, NULL},
        {"layers", FZ_INT, NULL, NULL},
        {"decoder_layers", FZ_INT, NULL, NULL},
        {"hidden_size", FZ_INT, NULL, NULL},
        {"heads", FZ_INT, NULL, NULL},
        {"kv_heads", FZ_INT, NULL, NULL},
        {"head_dim", FZ_INT, NULL, NULL},
        {"ffn_size", FZ_INT, NULL, NULL},
        {"gated_mlp", FZ_BOOL, NULL, NULL},
        {"activation", FZ_ENUM, activations, NULL},
        {"vocab_size", FZ_INT, NULL, NULL},
        {"max_positions", FZ_INT, NULL, NULL},
        {"type_vocab_size", FZ_INT, NULL, NULL},
        {"tied_embeddings", FZ_BOOL, NULL, NULL},
        {"norm", FZ_ENUM, norms, NULL},
        {"pre_norm", FZ_BOOL, NULL, NULL},
        {"attention_bias", FZ_BOOL, NULL, NULL},
        {"mlp_bias", FZ_BOOL, NULL, NULL},
        {"position_embedding", FZ_ENUM, positions, NULL},
        {"experts", FZ_INT, NULL, NULL},
        {"active_experts", FZ_INT, NULL, NULL},
        {"dropout", FZ_NUMBER, NULL, NULL},
        {"pooler", FZ_BOOL, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field hf_fields[] = {
        {"model_type", FZ_ENUM, hf_types, NULL},
        {"hidden_size", FZ_INT, NULL, NULL},
        {"num_hidden_layers", FZ_INT, NULL, NULL},
        {"num_attention_heads", FZ_INT, NULL, NULL},
        {"num_key_value_heads", FZ_INT, NULL, NULL},
        {"intermediate_size", FZ_INT, NULL, NULL},
        {"vocab_size", FZ_INT, NULL, NULL},
        {"max_position_embeddings", FZ_INT, NULL, NULL},
        {"tie_word_embeddings", FZ_BOOL, NULL, NULL},
        {"hidden_act", FZ_ENUM, hf_acts, NULL},
        {"num_local_experts", FZ_INT, NULL, NULL},
        {"num_experts_per_tok", FZ_INT, NULL, NULL},
        {"n_embd", FZ_INT, NULL, NULL},
        {"n_layer", FZ_INT, NULL, NULL},
        {"n_head", FZ_INT, NULL, NULL},
        {"d_model", FZ_INT, NULL, NULL},
        {"d_ff", FZ_INT, NULL, NULL},
        {"num_layers", FZ_INT, NULL, NULL},
        {"num_heads", FZ_INT, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field model_fields[] = {
        {"id", FZ_ENUM, model_ids, NULL},
        {"hf_config", FZ_OBJECT, NULL, hf_fields},
        {"architecture", FZ_OBJECT, NULL, arch_fields},
        {"parameters", FZ_INT, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field lora_fields[] = {
        {"rank", FZ_INT, NULL, NULL},
        {"alpha", FZ_INT, NULL, NULL},
        {"targets", FZ_ENUM_ARRAY, lora_targets, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field dataset_fields[] = {
        {"samples", FZ_INT, NULL, NULL},
        {"tokens", FZ_INT, NULL, NULL},
        {"epochs", FZ_NUMBER, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field workload_fields[] = {
        {"mode", FZ_ENUM, estimate_mode_names, NULL}, {"batch_size", FZ_INT, NULL, NULL},
        {"sequence_length", FZ_INT, NULL, NULL},      {"gradient_accumulation", FZ_INT, NULL, NULL},
        {"num_labels", FZ_INT, NULL, NULL},           {"prompt_tokens", FZ_INT, NULL, NULL},
        {"generated_tokens", FZ_INT, NULL, NULL},     {"lora", FZ_OBJECT, NULL, lora_fields},
        {"dataset", FZ_OBJECT, NULL, dataset_fields}, {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field saver_fields[] = {
        {"activation_checkpointing", FZ_ENUM, estimate_checkpointing_names, NULL},
        {"flash_attention", FZ_BOOL, NULL, NULL},
        {"chunked_loss", FZ_BOOL, NULL, NULL},
        {"optimizer_in_backward", FZ_BOOL, NULL, NULL},
        {"activation_offload", FZ_BOOL, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field parallel_fields[] = {
        {"strategy", FZ_ENUM, estimate_strategy_names, NULL},
        {"fsdp_sharding", FZ_ENUM, estimate_fsdp_names, NULL},
        {"gpus", FZ_INT, NULL, NULL},
        {"nodes", FZ_INT, NULL, NULL},
        {"tensor_parallel", FZ_INT, NULL, NULL},
        {"pipeline_parallel", FZ_INT, NULL, NULL},
        {"micro_batches", FZ_INT, NULL, NULL},
        {"sequence_parallel", FZ_BOOL, NULL, NULL},
        {"offload", FZ_ENUM, estimate_offload_names, NULL},
        {"model_load", FZ_ENUM, estimate_model_load_names, NULL},
        {"inter_node_bytes_per_s", FZ_NUMBER, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field serving_fields[] = {
        {"gpu_memory_utilization", FZ_NUMBER, NULL, NULL},
        {NULL, FZ_ANY, NULL, NULL},
};

static const struct fz_field request_fields[] = {
        {"precision", FZ_ENUM, estimate_precision_names, NULL},
        {"quantization", FZ_ENUM, estimate_quant_names, NULL},
        {"quantization_group_size", FZ_INT, NULL, NULL},
        {"double_quantization", FZ_BOOL, NULL, NULL},
        {"kv_cache_precision", FZ_ENUM, estimate_kv_dtype_names, NULL},
        {"optimizer", FZ_ENUM, estimate_optimizer_names, NULL},
        {"memory_savers", FZ_OBJECT, NULL, saver_fields},
        {"parallelism", FZ_OBJECT, NULL, parallel_fields},
        {"gpu", FZ_ENUM, gpu_ids, NULL},
        {"mfu", FZ_NUMBER, NULL, NULL},
        {"serving", FZ_OBJECT, NULL, serving_fields},
        {NULL, FZ_ANY, NULL, NULL},
};

/* ------------------------------------------------------------ the catalog */

static struct catalog *catalog;
static bool verbose; /* FUZZ_VERBOSE=1: say what happened to each input */
static const struct catalog_snapshot *snap;

static const char xlmr_large_config[] =
        "{\"model_type\":\"xlm-roberta\",\"hidden_size\":1024,\"num_hidden_layers\":24,"
        "\"num_attention_heads\":16,\"intermediate_size\":4096,\"vocab_size\":250002,"
        "\"max_position_embeddings\":514,\"type_vocab_size\":1,\"hidden_act\":\"gelu\"}";
static const char llama2_7b_config[] =
        "{\"model_type\":\"llama\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
        "\"num_attention_heads\":32,\"num_key_value_heads\":32,\"intermediate_size\":11008,"
        "\"vocab_size\":32000,\"max_position_embeddings\":4096,\"hidden_act\":\"silu\"}";

static void die(const char *what)
{
        fprintf(stderr, "fuzz_estimate: %s\n", what);
        abort();
}

static const char *arena(struct catalog_tables *t, const char *s)
{
        const char *out = catalog_tables_strndup(t, s, strlen(s));

        if (!out)
                die("out of memory");
        return out;
}

static void set_model(struct catalog_tables *t, size_t i, const char *id, const char *config_text,
                      bool ok)
{
        struct catalog_model *m = &t->models[i];
        char err[256];
        json_t *cfg = json_loads(config_text, 0, NULL);

        snprintf(m->id, sizeof(m->id), "%s", id);
        snprintf(m->name, sizeof(m->name), "%s", id);
        m->hf_config_json = (char *)arena(t, config_text);
        m->parameters_source = (char *)arena(t, "fuzz harness");
        m->arch_ok = ok && cfg && hf_config_import(cfg, &m->arch, err, sizeof(err)) == 0;
        json_decref(cfg);
}

/*
 * Four accelerators that cover the engine's branches: a data-centre GPU
 * with every figure, a consumer card, an inference-only part and one whose
 * memory and throughput are unknown (0).  Figures: NVIDIA A100 and RTX 3090
 * datasheets (dense tensor rates), Google Cloud TPU v5e documentation.
 */
static void catalog_init(void)
{
        struct catalog_tables t;

        memset(&t, 0, sizeof(t));
        t.n_gpus = 4;
        t.gpus = calloc(t.n_gpus, sizeof(*t.gpus));
        t.gpu_infos = calloc(t.n_gpus, sizeof(*t.gpu_infos));
        t.n_models = 3;
        t.models = calloc(t.n_models, sizeof(*t.models));
        if (!t.gpus || !t.gpu_infos || !t.models)
                die("out of memory");

        struct gpu_spec *g = &t.gpus[0];
        snprintf(g->id, sizeof(g->id), "a100-sxm-80gb");
        snprintf(g->name, sizeof(g->name), "NVIDIA A100 SXM 80GB");
        snprintf(g->kind, sizeof(g->kind), "gpu");
        g->memory_bytes = 80ull * 1000 * 1000 * 1000;
        g->usable_memory_bytes = 85899345920ull - 512ull * 1024 * 1024;
        g->memory_bandwidth_bytes_per_s = 2.039e12;
        g->flops[GPU_FP32] = 19.5e12;
        g->flops[GPU_TF32] = 156e12;
        g->flops[GPU_FP16] = 312e12;
        g->flops[GPU_BF16] = 312e12;
        g->flops[GPU_INT8] = 624e12;
        g->link = GPU_LINK_NVLINK;
        g->link_bytes_per_s = 300e9;
        g->host_link_bytes_per_s = 32e9;
        g->can_train = g->cuda = true;

        g = &t.gpus[1];
        snprintf(g->id, sizeof(g->id), "mystery-npu");
        snprintf(g->kind, sizeof(g->kind), "npu");
        g->can_train = true;
        g->link = GPU_LINK_OTHER;

        g = &t.gpus[2];
        snprintf(g->id, sizeof(g->id), "rtx-3090");
        snprintf(g->name, sizeof(g->name), "NVIDIA GeForce RTX 3090");
        snprintf(g->kind, sizeof(g->kind), "gpu");
        g->memory_bytes = g->usable_memory_bytes = 24ull * 1024 * 1024 * 1024;
        g->memory_bandwidth_bytes_per_s = 936e9;
        g->flops[GPU_FP32] = 35.6e12;
        g->flops[GPU_FP16] = 71e12;
        g->flops[GPU_BF16] = 71e12;
        g->link = GPU_LINK_PCIE;
        g->host_link_bytes_per_s = 32e9;
        g->can_train = g->cuda = true;

        g = &t.gpus[3];
        snprintf(g->id, sizeof(g->id), "tpu-v5e");
        snprintf(g->kind, sizeof(g->kind), "tpu");
        g->memory_bytes = g->usable_memory_bytes = 16ull * 1000 * 1000 * 1000;
        g->memory_bandwidth_bytes_per_s = 819e9;
        g->flops[GPU_BF16] = 197e12;
        g->flops[GPU_INT8] = 394e12;
        g->link = GPU_LINK_ICI;
        g->can_train = false;

        for (size_t i = 0; i < t.n_gpus; i++)
                t.gpu_infos[i].source = arena(&t, "fuzz harness");

        set_model(&t, 0, "broken-model", "{\"model_type\":\"unknown\"}", false);
        set_model(&t, 1, "llama-2-7b", llama2_7b_config, true);
        set_model(&t, 2, "xlm-roberta-large", xlmr_large_config, true);

        char err[256];
        catalog = catalog_new();
        if (!catalog || catalog_tables_link(&t, err, sizeof(err)) != 0 ||
            catalog_install(catalog, &t) != 0)
                die("cannot install the catalog");
        snap = catalog_acquire(catalog);
        if (!snap)
                die("no snapshot");
}

static void catalog_done(void)
{
        if (snap)
                catalog_release(snap);
        catalog_free(catalog);
}

/* ------------------------------------------------------------ the request */

static json_t *build_model(struct fuzz_input *in)
{
        json_t *m;

        switch (fuzz_u8(in) % 8) {
        case 0:
        case 1:
                m = json_object();
                json_object_set_new(m, "id", fz_value(in, &model_fields[0], 1));
                return m;
        case 2:
                m = json_object();
                json_object_set_new(m, "hf_config", fz_object(in, hf_fields, 2));
                return m;
        case 3:
        case 4:
                m = json_object();
                json_object_set_new(m, "architecture", fz_object(in, arch_fields, 2));
                return m;
        case 5:
                m = json_object();
                json_object_set_new(m, "parameters", fz_int(in));
                return m;
        case 6:
                return fz_object(in, model_fields, 1);
        default:
                return fz_any(in, 1);
        }
}

static json_t *build_request(struct fuzz_input *in)
{
        json_t *body = fz_object(in, request_fields, 0);

        if (!body)
                return NULL;
        if (fuzz_u8(in) % 16)
                json_object_set_new(body, "model", build_model(in));
        if (fuzz_u8(in) % 16) {
                json_t *w = fz_object(in, workload_fields, 1);
                if (w && fuzz_u8(in) % 8)
                        json_object_set_new(w, "mode", fz_value(in, &workload_fields[0], 1));
                json_object_set_new(body, "workload", w);
        }
        return body;
}

/* ------------------------------------------------------------ the checks */

static void fail(const char *what, const char *detail)
{
        fprintf(stderr, "fuzz_estimate: %s (%s)\n", what, detail);
        abort();
}

static void check_refusal(const struct fields_error *e)
{
        if (!memchr(e->pointer, '\0', sizeof(e->pointer)) ||
            !memchr(e->rule, '\0', sizeof(e->rule)) || !memchr(e->detail, '\0', sizeof(e->detail)))
                fail("refusal strings not terminated", "");
        if (e->pointer[0] != '\0' && e->pointer[0] != '/')
                fail("refusal pointer is not a JSON pointer", e->pointer);
        if (e->rule[0] == '\0' || e->detail[0] == '\0')
                fail("refusal without a rule or detail", e->pointer);
        if (e->status != 0 && e->status != 400 && e->status != 404 && e->status != 422 &&
            e->status != 503)
                fail("refusal with an unexpected status", e->pointer);
}

static void check_finite(double v, const char *name)
{
        if (!isfinite(v) || v < 0)
                fail("a figure is negative, NaN or infinite", name);
}

static void check_result(const struct estimate_result *r, size_t n_gpus)
{
        if (r->n_fits > n_gpus || r->n_fits > EST_FITS_MAX || r->n_assumptions > EST_NOTES_MAX ||
            r->n_warnings > EST_NOTES_MAX || r->n_suggestions > EST_SUGGESTIONS_MAX)
                fail("a count is beyond its table", "");
        for (size_t i = 0; i < r->n_fits; i++) {
                if (r->fits[i].gpu >= n_gpus)
                        fail("a fit row names a GPU outside the catalog", "");
                if (r->fits[i].reason >= EST_FIT_REASON_COUNT)
                        fail("a fit row has an unknown reason", "");
                check_finite(r->fits[i].utilization, "fits.utilization");
        }
        if (r->peak_phase >= EST_PHASE_COUNT || r->bottleneck >= EST_BOUND_COUNT)
                fail("peak phase or bottleneck outside its enum", "");
        if (r->per_gpu_allocated_bytes > r->per_gpu_total_bytes)
                fail("allocated bytes exceed the total", "");
        check_finite(r->flops_per_step, "flops_per_step");
        check_finite(r->flops_total, "flops_total");
        check_finite(r->steps, "steps");
        check_finite(r->tokens_per_step, "tokens_per_step");
        check_finite(r->seconds_per_step, "seconds_per_step");
        check_finite(r->total_seconds, "total_seconds");
        check_finite(r->tokens_per_second, "tokens_per_second");
        check_finite(r->mfu, "mfu");
        check_finite(r->compute_seconds_per_step, "compute_seconds_per_step");
        check_finite(r->comm_seconds_per_step, "comm_seconds_per_step");
        check_finite(r->memory_seconds_per_step, "memory_seconds_per_step");
        check_finite(r->prefill_seconds, "prefill_seconds");
        check_finite(r->decode_tokens_per_second, "decode_tokens_per_second");
}

static void check_document(json_t *doc)
{
        static const char *const members[] = {"model",       "per_gpu",  "cpu",
                                              "compute",     "fits",     "suggestions",
                                              "assumptions", "warnings", NULL};

        if (!doc)
                fail("an accepted request did not encode", "");
        for (int i = 0; members[i]; i++)
                if (!json_object_get(doc, members[i]))
                        fail("the response lacks a member", members[i]);
        json_t *total = json_object_get(json_object_get(doc, "per_gpu"), "total_bytes");
        if (!json_is_integer(total))
                fail("per_gpu.total_bytes is not an integer", "");
        char *text = json_dumps(doc, JSON_COMPACT);
        if (!text)
                fail("the response does not serialise", "");
        free(text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        catalog_init();
        atexit(catalog_done);
        verbose = getenv("FUZZ_VERBOSE") != NULL;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct fuzz_input in = {data, size};
        struct estimate_input ein;
        struct fields_error e;
        struct estimate_error ee;
        struct estimate_result *r;
        const struct gpu_spec *gpus;
        size_t n_gpus;
        json_t *body;

        if (size > 65536)
                return 0;
        if (size > 0 && data[0] == '{')
                body = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
        else
                body = build_request(&in);
        if (!body)
                return 0;
        gpus = catalog_gpus(snap, &n_gpus);
        if (estimate_decode_request(body, snap, NULL, &ein, &e) != 0) {
                check_refusal(&e);
                if (verbose)
                        fprintf(stderr, "refused %d %s %s: %s\n", e.status, e.pointer, e.rule,
                                e.detail);
                json_decref(body);
                return 0;
        }
        r = malloc(sizeof(*r));
        if (!r)
                die("out of memory");
        /* Garbage, not zeros: a field the engine forgets to set must show (UBSan checks bools). */
        memset(r, 0xbe, sizeof(*r));
        memset(&ee, 0, sizeof(ee));
        if (estimate_run(&ein, gpus, n_gpus, r, &ee) != 0) {
                if (ee.rule[0] == '\0' || (ee.pointer[0] != '\0' && ee.pointer[0] != '/'))
                        fail("the engine refused without a rule or pointer", ee.pointer);
                if (verbose)
                        fprintf(stderr, "engine refused %s %s: %s\n", ee.pointer, ee.rule,
                                ee.detail);
        } else {
                if (verbose)
                        fprintf(stderr, "ran: %llu bytes per GPU, %zu fit rows\n",
                                (unsigned long long)r->per_gpu_total_bytes, r->n_fits);
                check_result(r, n_gpus);
                json_t *doc = estimate_encode_result(&ein, r, gpus, n_gpus);
                check_document(doc);
                json_decref(doc);
                /* The cheap memory-only path must agree with the full run. */
                struct estimate_error me;
                memset(&me, 0, sizeof(me));
                uint64_t mem = estimate_memory_bytes(&ein, &me);
                if (mem != 0 && mem != r->per_gpu_needed_bytes)
                        fail("estimate_memory_bytes differs from estimate_run's needed bytes", "");
                /* Reserved never below allocated, the total never below what
                 * must fit. */
                if (r->per_gpu_reserved_bytes + 1 < r->per_gpu_allocated_bytes ||
                    r->per_gpu_total_bytes + 1 < r->per_gpu_needed_bytes)
                        fail("reserved below allocated or total below needed", "");
        }
        free(r);
        json_decref(body);
        return 0;
}
