/*
 * aliases.c - framework option names mapped onto the request's own (see
 * aliases.h).  Two tables: keys (a key, possibly in another object, that
 * stands for one of ours, with a conversion of its value where the types
 * differ) and values (spellings of our enum values).  Every entry names
 * the framework it comes from.
 */
#include "api/aliases.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum conv {
        CONV_SAME,       /* the value as it is */
        CONV_CKPT,       /* boolean: true -> "full", false -> "none" */
        CONV_ATTN,       /* attn_implementation -> flash_attention boolean */
        CONV_OFFLOAD,    /* boolean: true -> "optimizer_and_params", false -> "none" */
        CONV_TARGETS,    /* boolean: true appends `extra` to workload.lora.targets */
        CONV_BF16_FLAG,  /* boolean: true -> precision "bf16_mixed" */
        CONV_FP16_FLAG,  /* boolean: true -> precision "fp16_mixed" */
        CONV_IGNORE,     /* no effect on memory or time: dropped */
        CONV_NORM,       /* a clipping norm: > 0 -> true, 0 or null -> false */
        CONV_FLAG_TO,    /* boolean: true -> the string `extra`, false -> nothing */
        CONV_FALSE_ONLY, /* accepted when false (the default); true is not modelled */
        CONV_ALLOC_CONF  /* PYTORCH_CUDA_ALLOC_CONF text -> expandable_segments boolean */
};

struct key_alias {
        const char *from; /* object holding the alias: "" root, "workload", "workload/lora", ... */
        const char *alias;
        const char *to;   /* object holding our key */
        const char *name; /* our key */
        enum conv conv;
        const char *extra; /* CONV_TARGETS: the module names to add, space-separated */
};

/* In order: objects pasted elsewhere move first, then keys inside them. */
static const struct key_alias key_aliases[] = {
        /* a LoRA config pasted beside the workload */
        {"", "lora", "workload", "lora", CONV_SAME, NULL},
        {"", "lora_config", "workload", "lora", CONV_SAME, NULL},
        {"", "peft_config", "workload", "lora", CONV_SAME, NULL},
        {"workload", "lora_config", "workload", "lora", CONV_SAME, NULL},
        {"workload", "peft_config", "workload", "lora", CONV_SAME, NULL},
        /* PEFT LoraConfig */
        {"workload/lora", "r", "workload/lora", "rank", CONV_SAME, NULL},
        {"workload/lora", "lora_alpha", "workload/lora", "alpha", CONV_SAME, NULL},
        {"workload/lora", "target_modules", "workload/lora", "targets", CONV_SAME, NULL},
        {"workload/lora", "lora_dropout", "workload/lora", "dropout", CONV_SAME, NULL},
        {"workload/lora", "task_type", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "peft_type", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "inference_mode", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "base_model_name_or_path", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "revision", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "fan_in_fan_out", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "init_lora_weights", "", NULL, CONV_IGNORE, NULL},
        {"workload/lora", "use_rslora", "", NULL, CONV_IGNORE, NULL}, /* scaling only */
        {"workload/lora", "bias", "", NULL, CONV_IGNORE, NULL},       /* biases: a few KB */
        {"workload/lora", "use_dora", "", NULL, CONV_FALSE_ONLY, NULL},
        /* torchtune lora_* model builders */
        {"workload/lora", "lora_rank", "workload/lora", "rank", CONV_SAME, NULL},
        {"workload/lora", "lora_attn_modules", "workload/lora", "targets", CONV_SAME, NULL},
        {"workload/lora", "apply_lora_to_mlp", "", NULL, CONV_TARGETS, "w1 w2 w3"},
        {"workload/lora", "apply_lora_to_output", "", NULL, CONV_TARGETS, "output"},
        /* litgpt finetune/lora.py */
        {"workload/lora", "lora_r", "workload/lora", "rank", CONV_SAME, NULL},
        {"workload/lora", "lora_query", "", NULL, CONV_TARGETS, "lora_query"},
        {"workload/lora", "lora_key", "", NULL, CONV_TARGETS, "lora_key"},
        {"workload/lora", "lora_value", "", NULL, CONV_TARGETS, "lora_value"},
        {"workload/lora", "lora_projection", "", NULL, CONV_TARGETS, "lora_projection"},
        {"workload/lora", "lora_mlp", "", NULL, CONV_TARGETS, "lora_mlp"},
        {"workload/lora", "lora_head", "", NULL, CONV_TARGETS, "lora_head"},
        /* Hugging Face TrainingArguments, in the workload or at the top */
        {"workload", "per_device_train_batch_size", "workload", "batch_size", CONV_SAME, NULL},
        {"", "per_device_train_batch_size", "workload", "batch_size", CONV_SAME, NULL},
        {"workload", "gradient_accumulation_steps", "workload", "gradient_accumulation", CONV_SAME,
         NULL},
        {"", "gradient_accumulation_steps", "workload", "gradient_accumulation", CONV_SAME, NULL},
        {"workload", "max_seq_length", "workload", "sequence_length", CONV_SAME, NULL},
        /* transformers' seq2seq example scripts (run_summarization.py,
         * run_translation.py DataTrainingArguments) */
        {"workload", "max_source_length", "workload", "sequence_length", CONV_SAME, NULL},
        {"workload", "max_target_length", "workload", "target_length", CONV_SAME, NULL},
        {"", "optim", "", "optimizer", CONV_SAME, NULL},
        {"", "gradient_checkpointing", "memory_savers", "activation_checkpointing", CONV_CKPT,
         NULL},
        {"memory_savers", "gradient_checkpointing", "memory_savers", "activation_checkpointing",
         CONV_CKPT, NULL},
        {"", "torch_compile", "memory_savers", "compile", CONV_SAME, NULL},
        {"memory_savers", "torch_compile", "memory_savers", "compile", CONV_SAME, NULL},
        {"", "bf16", "", "precision", CONV_BF16_FLAG, NULL},
        {"", "fp16", "", "precision", CONV_FP16_FLAG, NULL},
        /* gradient clipping: TrainingArguments max_grad_norm, torchtune
         * clip_grad_norm, litgpt / torchtitan max_norm, DeepSpeed
         * gradient_clipping (0 = off in each) */
        {"", "max_grad_norm", "runtime", "gradient_clipping", CONV_NORM, NULL},
        {"workload", "max_grad_norm", "runtime", "gradient_clipping", CONV_NORM, NULL},
        {"", "clip_grad_norm", "runtime", "gradient_clipping", CONV_NORM, NULL},
        {"workload", "clip_grad_norm", "runtime", "gradient_clipping", CONV_NORM, NULL},
        {"", "max_norm", "runtime", "gradient_clipping", CONV_NORM, NULL},
        {"workload", "max_norm", "runtime", "gradient_clipping", CONV_NORM, NULL},
        {"", "gradient_clipping", "runtime", "gradient_clipping", CONV_NORM, NULL},
        /* PyTorch's allocator settings, as the environment variable reads */
        {"", "PYTORCH_CUDA_ALLOC_CONF", "runtime", "expandable_segments", CONV_ALLOC_CONF, NULL},
        {"", "PYTORCH_ALLOC_CONF", "runtime", "expandable_segments", CONV_ALLOC_CONF, NULL},
        {"runtime", "PYTORCH_CUDA_ALLOC_CONF", "runtime", "expandable_segments", CONV_ALLOC_CONF,
         NULL},
        {"runtime", "PYTORCH_ALLOC_CONF", "runtime", "expandable_segments", CONV_ALLOC_CONF, NULL},
        {"runtime", "pytorch_cuda_alloc_conf", "runtime", "expandable_segments", CONV_ALLOC_CONF,
         NULL},
        {"runtime", "pytorch_alloc_conf", "runtime", "expandable_segments", CONV_ALLOC_CONF, NULL},
        /* transformers from_pretrained(attn_implementation=...) */
        {"", "attn_implementation", "memory_savers", "flash_attention", CONV_ATTN, NULL},
        {"memory_savers", "attn_implementation", "memory_savers", "flash_attention", CONV_ATTN,
         NULL},
        /* DeepSpeed config */
        {"workload", "train_micro_batch_size_per_gpu", "workload", "batch_size", CONV_SAME, NULL},
        /* torchtune recipe keys */
        {"memory_savers", "enable_activation_checkpointing", "memory_savers",
         "activation_checkpointing", CONV_CKPT, NULL},
        {"memory_savers", "enable_activation_offloading", "memory_savers", "activation_offload",
         CONV_SAME, NULL},
        {"memory_savers", "optimizer_in_bwd", "memory_savers", "optimizer_in_backward", CONV_SAME,
         NULL},
        {"workload", "max_seq_len", "workload", "sequence_length", CONV_SAME, NULL},
        {"parallelism", "fsdp_cpu_offload", "parallelism", "offload", CONV_OFFLOAD, NULL},
        /* torchtitan job config ([training], [parallelism]) */
        {"workload", "seq_len", "workload", "sequence_length", CONV_SAME, NULL},
        {"workload", "local_batch_size", "workload", "batch_size", CONV_SAME, NULL},
        {"parallelism", "tensor_parallel_degree", "parallelism", "tensor_parallel", CONV_SAME,
         NULL},
        {"parallelism", "pipeline_parallel_degree", "parallelism", "pipeline_parallel", CONV_SAME,
         NULL},
        /* litgpt / Lightning */
        {"workload", "micro_batch_size", "workload", "batch_size", CONV_SAME, NULL},
        {"parallelism", "num_nodes", "parallelism", "nodes", CONV_SAME, NULL},
        {"parallelism", "devices", "parallelism", "gpus", CONV_SAME, NULL},
        /* Megatron-LM arguments */
        {"parallelism", "tensor_model_parallel_size", "parallelism", "tensor_parallel", CONV_SAME,
         NULL},
        {"parallelism", "pipeline_model_parallel_size", "parallelism", "pipeline_parallel",
         CONV_SAME, NULL},
        /* PyTorch FSDP1 / accelerate */
        {"parallelism", "sharding_strategy", "parallelism", "fsdp_sharding", CONV_SAME, NULL},
        {"parallelism", "fsdp_sharding_strategy", "parallelism", "fsdp_sharding", CONV_SAME, NULL},
        {"parallelism", "world_size", "parallelism", "gpus", CONV_SAME, NULL},
        {"parallelism", "limit_all_gathers", "parallelism", "fsdp_limit_all_gathers", CONV_SAME,
         NULL},
        {"parallelism", "reshard_after_forward", "parallelism", "fsdp_reshard_after_forward",
         CONV_SAME, NULL},
        {"parallelism", "num_gpus", "parallelism", "gpus", CONV_SAME, NULL},
        /* Serving engines.  vLLM EngineArgs / CLI: max_model_len (the
         * context each sequence may reach), max_num_seqs (sequences served
         * at once), gpu_memory_utilization, tensor/pipeline_parallel_size,
         * kv_cache_dtype, dtype */
        {"", "max_model_len", "workload", "sequence_length", CONV_SAME, NULL},
        {"workload", "max_model_len", "workload", "sequence_length", CONV_SAME, NULL},
        {"", "max_num_seqs", "workload", "batch_size", CONV_SAME, NULL},
        {"workload", "max_num_seqs", "workload", "batch_size", CONV_SAME, NULL},
        {"", "gpu_memory_utilization", "serving", "gpu_memory_utilization", CONV_SAME, NULL},
        {"", "tensor_parallel_size", "parallelism", "tensor_parallel", CONV_SAME, NULL},
        {"parallelism", "tensor_parallel_size", "parallelism", "tensor_parallel", CONV_SAME, NULL},
        {"", "pipeline_parallel_size", "parallelism", "pipeline_parallel", CONV_SAME, NULL},
        {"parallelism", "pipeline_parallel_size", "parallelism", "pipeline_parallel", CONV_SAME,
         NULL},
        {"", "kv_cache_dtype", "", "kv_cache_precision", CONV_SAME, NULL},
        {"", "dtype", "", "precision", CONV_SAME, NULL},
        /* SGLang ServerArgs */
        {"", "tp_size", "parallelism", "tensor_parallel", CONV_SAME, NULL},
        {"", "mem_fraction_static", "serving", "gpu_memory_utilization", CONV_SAME, NULL},
        {"", "context_length", "workload", "sequence_length", CONV_SAME, NULL},
        /* Text Generation Inference launcher */
        {"", "max_total_tokens", "workload", "sequence_length", CONV_SAME, NULL},
        {"", "max_input_tokens", "workload", "prompt_tokens", CONV_SAME, NULL},
        {"", "max_input_length", "workload", "prompt_tokens", CONV_SAME, NULL},
        {"", "max_batch_size", "workload", "batch_size", CONV_SAME, NULL},
        {"", "num_shard", "parallelism", "tensor_parallel", CONV_SAME, NULL},
        {"", "quantize", "", "quantization", CONV_SAME, NULL},
        /* transformers: from_pretrained(torch_dtype=...), BitsAndBytesConfig,
         * generate(max_new_tokens=...) */
        {"", "torch_dtype", "", "precision", CONV_SAME, NULL},
        {"", "load_in_4bit", "", "quantization", CONV_FLAG_TO, "nf4"},
        {"", "load_in_8bit", "", "quantization", CONV_FLAG_TO, "int8"},
        {"", "bnb_4bit_quant_type", "", "quantization", CONV_SAME, NULL},
        {"", "bnb_4bit_use_double_quant", "", "double_quantization", CONV_SAME, NULL},
        {"", "max_new_tokens", "workload", "generated_tokens", CONV_SAME, NULL},
        {"workload", "max_new_tokens", "workload", "generated_tokens", CONV_SAME, NULL},
        /* llama.cpp (llama-server / llama-cli flags, llama-cpp-python) */
        {"", "n_ctx", "workload", "sequence_length", CONV_SAME, NULL},
        {"", "ctx_size", "workload", "sequence_length", CONV_SAME, NULL},
        {"workload", "n_ctx", "workload", "sequence_length", CONV_SAME, NULL},
        {"", "cache_type_k", "", "kv_cache_precision", CONV_SAME, NULL},
        {"", "cache_type_v", "", "kv_cache_precision", CONV_SAME, NULL},
        {"", "flash_attn", "memory_savers", "flash_attention", CONV_SAME, NULL},
};

struct value_alias {
        const char *alias;
        const char *value;
};

static const struct value_alias precision_aliases[] = {
        /* torch dtypes */
        {"bfloat16", "bf16"},
        {"float16", "fp16"},
        {"half", "fp16"},
        {"float32", "fp32"},
        {"float", "fp32"},
        /* Lightning Trainer(precision=...), litgpt --precision */
        {"bf16_true", "bf16"},
        {"16_true", "fp16"},
        {"32_true", "fp32"},
        {"32", "fp32"},
        {"16_mixed", "fp16_mixed"},
        {"16", "fp16_mixed"},
        {"transformer_engine", "fp8_mixed"},
        /* accelerate mixed_precision / common spellings */
        {"amp_bf16", "bf16_mixed"},
        {"bf16_amp", "bf16_mixed"},
        {"mixed_bf16", "bf16_mixed"},
        {"amp_fp16", "fp16_mixed"},
        {"fp16_amp", "fp16_mixed"},
        {"mixed_fp16", "fp16_mixed"},
        {"fp8", "fp8_mixed"},
        {"float8", "fp8_mixed"},
        {NULL, NULL},
};

static const struct value_alias quant_aliases[] = {
        /* bitsandbytes / transformers BitsAndBytesConfig (fp4 stores like nf4) */
        {"4bit", "nf4"},
        {"bnb_4bit", "nf4"},
        {"load_in_4bit", "nf4"},
        {"bnb_nf4", "nf4"},
        {"fp4", "nf4"},
        {"8bit", "int8"},
        {"bnb_8bit", "int8"},
        {"load_in_8bit", "int8"},
        {"llm_int8", "int8"},
        /* weight-only int4 / int8 schemes (AutoGPTQ, AutoAWQ, torchao) */
        {"gptq", "int4"},
        {"awq", "int4"},
        {"w4a16", "int4"},
        {"int4_weight_only", "int4"},
        {"w8a16", "int8"},
        {"int8_weight_only", "int8"},
        /* vLLM / TensorRT-LLM fp8 */
        {"float8", "fp8"},
        {"fp8_e4m3", "fp8"},
        {"w8a8_fp8", "fp8"},
        {"fbgemm_fp8", "fp8"},
        {"no", "none"},
        /* vLLM --quantization, TGI --quantize (4-bit kernels of GPTQ/AWQ
         * checkpoints; EETQ is int8 weight-only) */
        {"awq_marlin", "int4"},
        {"gptq_marlin", "int4"},
        {"marlin", "int4"},
        {"exllama", "int4"},
        {"bitsandbytes_nf4", "nf4"},
        {"bitsandbytes_fp4", "nf4"},
        {"bitsandbytes_8bit", "int8"},
        {"eetq", "int8"},
        /* GGUF tensor types (llama.cpp): 4-bit kinds store about 4.5 bits
         * per weight (give quantization_group_size 32 for Q4_0's blocks),
         * Q8_0 8.5; F16 / BF16 are unquantized */
        {"q4_0", "int4"},
        {"q4_1", "int4"},
        {"q4_k", "int4"},
        {"q4_k_m", "int4"},
        {"q4_k_s", "int4"},
        {"iq4_xs", "int4"},
        {"iq4_nl", "int4"},
        {"q8_0", "int8"},
        {"f16", "none"},
        {"bf16", "none"},
        {NULL, NULL},
};

static const struct value_alias kv_aliases[] = {
        /* vLLM kv_cache_dtype */
        {"fp8_e4m3", "fp8"},
        {"fp8_e5m2", "fp8"},
        /* llama.cpp cache_type_k / cache_type_v */
        {"f32", "fp32"},
        {"f16", "fp16"},
        {"q8_0", "int8"},
        {"q4_0", "int4"},
        {"q4_1", "int4"},
        /* torch dtypes */
        {"float16", "fp16"},
        {"half", "fp16"},
        {"bfloat16", "bf16"},
        {"float32", "fp32"},
        {NULL, NULL},
};

static const struct value_alias optimizer_aliases[] = {
        /* Hugging Face TrainingArguments.optim */
        {"adamw_torch", "adamw"},
        {"adamw_torch_fused", "adamw"},
        {"adamw_hf", "adamw"},
        {"adamw_apex_fused", "adamw"},
        {"adamw_torch_xla", "adamw"},
        {"adamw_anyprecision", "adamw"},
        {"adamw_bnb_8bit", "adamw_8bit"},
        {"paged_adamw_32bit", "paged_adamw"},
        {"lion_32bit", "lion"},
        {"paged_lion_32bit", "paged_lion"},
        /* class names: torch.optim.AdamW, bitsandbytes.optim.PagedAdamW8bit,
         * deepspeed.ops.adam.FusedAdam (fp32 states like AdamW) */
        {"adamw8bit", "adamw_8bit"},
        {"adam8bit", "adamw_8bit"},
        {"pagedadamw", "paged_adamw"},
        {"pagedadamw32bit", "paged_adamw"},
        {"pagedadamw8bit", "paged_adamw_8bit"},
        {"pagedlion", "paged_lion"},
        {"pagedlion32bit", "paged_lion"},
        {"fusedadam", "adamw"},
        {NULL, NULL},
};

static const struct value_alias mode_aliases[] = {
        {"sft", "fine_tune"},
        {"full", "fine_tune"},
        {"finetune", "fine_tune"},
        {"full_finetune", "fine_tune"},
        {"full_fine_tune", "fine_tune"},
        {"fine_tuning", "fine_tune"},
        {"finetuning", "fine_tune"},
        /* torchtune recipe names */
        {"full_finetune_single_device", "fine_tune"},
        {"full_finetune_distributed", "fine_tune"},
        {"lora_finetune_single_device", "lora"},
        {"lora_finetune_distributed", "lora"},
        {"pretrain", "pre_train"},
        {"pretraining", "pre_train"},
        {"pre_training", "pre_train"},
        {"q_lora", "qlora"},
        {"generate", "inference"},
        {"generation", "inference"},
        {"serving", "inference"},
        {"serve", "inference"},
        {NULL, NULL},
};

static const struct value_alias strategy_aliases[] = {
        {"fsdp1", "fsdp"},
        {"fsdp2", "fsdp"},
        {"fully_shard", "fsdp"},
        {"deepspeed_zero1", "zero1"},
        {"deepspeed_zero2", "zero2"},
        {"deepspeed_zero3", "zero3"},
        {"zero_1", "zero1"},
        {"zero_2", "zero2"},
        {"zero_3", "zero3"},
        {"zero_stage_1", "zero1"},
        {"zero_stage_2", "zero2"},
        {"zero_stage_3", "zero3"},
        {"data_parallel", "ddp"},
        {"distributed_data_parallel", "ddp"},
        {"none", "single"},
        {"single_gpu", "single"},
        {"single_device", "single"},
        {NULL, NULL},
};

static const struct value_alias framework_aliases[] = {
        {"hf", "hf_trainer"},          {"huggingface", "hf_trainer"},
        {"trainer", "hf_trainer"},     {"transformers_trainer", "hf_trainer"},
        {"ds", "deepspeed"},           {"megatron_lm", "megatron"},
        {"megatron_core", "megatron"}, {"nemo", "megatron"},
        {"lit_gpt", "litgpt"},         {"llamacpp", "llama_cpp"},
        {"ggml", "llama_cpp"},         {"exllamav2", "exllama"},
        {"exllama_v2", "exllama"},     {"exl2", "exllama"},
        {"tabbyapi", "exllama"},       {NULL, NULL},
};

static const struct value_alias no_aliases[] = {{NULL, NULL}};

enum norm {
        NORM_PLAIN,     /* lower case, '-' ' ' '.' -> '_' */
        NORM_CLASS_NAME /* the text after the last '.', then as NORM_PLAIN */
};

struct value_field {
        const char *object; /* "" root */
        const char *key;
        enum norm norm;
        const struct value_alias *aliases;
};

static const struct value_field value_fields[] = {
        {"", "precision", NORM_PLAIN, precision_aliases},
        {"", "quantization", NORM_PLAIN, quant_aliases},
        {"", "kv_cache_precision", NORM_PLAIN, kv_aliases},
        {"", "optimizer", NORM_CLASS_NAME, optimizer_aliases},
        {"", "framework", NORM_PLAIN, framework_aliases},
        {"workload", "mode", NORM_PLAIN, mode_aliases},
        {"parallelism", "strategy", NORM_PLAIN, strategy_aliases},
        {"parallelism", "fsdp_sharding", NORM_PLAIN, no_aliases},
        {"memory_savers", "activation_checkpointing", NORM_PLAIN, no_aliases},
};

/* A 400 naming the field. */
#define afail(e, ptr, rule, ...) field_error_fail((e), 400, (ptr), (rule), __VA_ARGS__)

/* The object at path ("" = body, "a/b" = body.a.b); created when asked
 * and absent; NULL when absent or not an object. */
static json_t *object_at(json_t *body, const char *path, int create)
{
        char part[64];
        json_t *o = body;
        while (*path && o) {
                size_t n = strcspn(path, "/");
                if (n >= sizeof(part))
                        return NULL;
                memcpy(part, path, n);
                part[n] = '\0';
                json_t *next = json_object_get(o, part);
                if (!next && create) {
                        next = json_object();
                        if (!next || json_object_set_new(o, part, next))
                                return NULL;
                }
                o = json_is_object(next) ? next : NULL;
                path += n + (path[n] == '/');
        }
        return o;
}

static void pointer_of(char *out, size_t len, const char *object, const char *key)
{
        snprintf(out, len, "%s%s/%s", *object ? "/" : "", object, key);
}

/* Append the space-separated names to workload.lora.targets (an array, or
 * created as one); "all-linear" already covers them. */
static int append_targets(json_t *body, const char *names)
{
        json_t *lora = object_at(body, "workload/lora", 1);
        if (!lora)
                return -1;
        json_t *t = json_object_get(lora, "targets");
        if (json_is_string(t))
                return 0;
        if (!t) {
                t = json_array();
                if (!t || json_object_set_new(lora, "targets", t))
                        return -1;
        }
        if (!json_is_array(t))
                return 0; /* the decoder names the wrong type */
        char one[64];
        while (*names) {
                size_t n = strcspn(names, " ");
                if (n && n < sizeof(one)) {
                        memcpy(one, names, n);
                        one[n] = '\0';
                        if (json_array_append_new(t, json_string(one)))
                                return -1;
                }
                names += n + (names[n] == ' ');
        }
        return 0;
}

/*
 * expandable_segments from a PYTORCH_CUDA_ALLOC_CONF value such as
 * "expandable_segments:True,max_split_size_mb:128" (c10's
 * CUDAAllocatorConfig::parseArgs: comma-separated key:value pairs).  Only
 * expandable_segments changes the engine's replay; the other options are
 * named in the 400 so that the user knows what was not modelled.
 */
static json_t *alloc_conf(const char *p, const char *alias, json_t *v, struct fields_error *e)
{
        const char *s = json_string_value(v);
        int expandable = -1;
        if (!s) {
                afail(e, p, "type", "%s must be a string such as \"expandable_segments:True\"",
                      alias);
                return NULL;
        }
        while (*s) {
                char key[48], val[16];
                size_t n = strcspn(s, ",");
                const char *colon = memchr(s, ':', n);
                size_t kn = colon ? (size_t)(colon - s) : n;
                size_t vn = colon ? n - kn - 1 : 0;
                while (kn && s[kn - 1] == ' ')
                        kn--;
                const char *k0 = s;
                while (kn && *k0 == ' ')
                        k0++, kn--;
                if (!colon || kn == 0 || kn >= sizeof(key) || vn == 0 || vn >= sizeof(val)) {
                        afail(e, p, "format", "%s holds key:value pairs separated by commas",
                              alias);
                        return NULL;
                }
                memcpy(key, k0, kn);
                key[kn] = '\0';
                memcpy(val, colon + 1, vn);
                val[vn] = '\0';
                if (strcmp(key, "expandable_segments")) {
                        afail(e, p, "unsupported",
                              "%s: %s is not modelled; the engine replays the allocator with "
                              "its defaults and expandable_segments:True or False",
                              alias, key);
                        return NULL;
                }
                if (!strcmp(val, "True") || !strcmp(val, "true") || !strcmp(val, "1"))
                        expandable = 1;
                else if (!strcmp(val, "False") || !strcmp(val, "false") || !strcmp(val, "0"))
                        expandable = 0;
                else {
                        afail(e, p, "enum", "%s: expandable_segments must be True or False", alias);
                        return NULL;
                }
                s += n + (s[n] == ',');
        }
        if (expandable < 0) {
                afail(e, p, "format", "%s names no expandable_segments setting", alias);
                return NULL;
        }
        return json_boolean(expandable);
}

/* The value our key takes for an alias's value; NULL (with e) when the
 * value does not fit the conversion. */
static json_t *convert(const struct key_alias *k, json_t *v, struct fields_error *e)
{
        char p[160];
        pointer_of(p, sizeof(p), k->from, k->alias);
        switch (k->conv) {
        case CONV_SAME:
                return json_incref(v);
        case CONV_CKPT:
                if (json_is_boolean(v))
                        return json_string(json_is_true(v) ? "full" : "none");
                if (json_is_string(v))
                        return json_incref(v);
                afail(e, p, "type", "%s must be true or false", k->alias);
                return NULL;
        case CONV_OFFLOAD:
                if (json_is_boolean(v))
                        return json_string(json_is_true(v) ? "optimizer_and_params" : "none");
                afail(e, p, "type", "%s must be true or false", k->alias);
                return NULL;
        case CONV_ATTN: {
                /* eager materialises the score matrix; sdpa, flash_attention_2/3
                 * and flex_attention do not (transformers attention interface) */
                const char *s = json_string_value(v);
                if (s && !strcmp(s, "eager"))
                        return json_false();
                if (s && (!strcmp(s, "sdpa") || !strncmp(s, "flash_attention", 15) ||
                          !strcmp(s, "flex_attention") || !strncmp(s, "kernels-community/", 18)))
                        return json_true();
                afail(e, p, "enum",
                      "%s must be one of eager, sdpa, flash_attention_2, flash_attention_3, "
                      "flex_attention",
                      k->alias);
                return NULL;
        }
        case CONV_BF16_FLAG:
        case CONV_FP16_FLAG:
                if (!json_is_boolean(v)) {
                        afail(e, p, "type", "%s must be true or false", k->alias);
                        return NULL;
                }
                if (!json_is_true(v))
                        return NULL; /* false: nothing to say */
                return json_string(k->conv == CONV_BF16_FLAG ? "bf16_mixed" : "fp16_mixed");
        case CONV_FLAG_TO:
                if (!json_is_boolean(v)) {
                        afail(e, p, "type", "%s must be true or false", k->alias);
                        return NULL;
                }
                return json_is_true(v) ? json_string(k->extra) : NULL;
        case CONV_NORM:
                if (json_is_null(v))
                        return json_false();
                if (json_is_boolean(v))
                        return json_incref(v);
                if (json_is_number(v) && json_number_value(v) >= 0)
                        return json_boolean(json_number_value(v) > 0);
                afail(e, p, "type", "%s must be a norm >= 0 (0 or null: no clipping)", k->alias);
                return NULL;
        case CONV_ALLOC_CONF:
                return alloc_conf(p, k->alias, v, e);
        case CONV_TARGETS:
        case CONV_IGNORE:
        case CONV_FALSE_ONLY:
                break;
        }
        return NULL;
}

/* transformers' attn_implementation also names the kernel: sdpa,
 * flash_attention_2 and flash_attention_3 go to runtime.attention_kernel
 * unless the request names one there itself. */
static int name_attention_kernel(json_t *body, json_t *v, const char *p,
                                 struct fields_error *e)
{
        static const char *const named[] = {"sdpa", "flash_attention_2", "flash_attention_3", NULL};
        const char *s = json_string_value(v);
        int i = 0;
        while (s && named[i] && strcmp(s, named[i]))
                i++;
        if (!s || !named[i])
                return 0;
        json_t *rt = object_at(body, "runtime", 1);
        if (!rt)
                return afail(e, p, "type", "runtime must be an object");
        if (json_object_get(rt, "attention_kernel"))
                return 0;
        return json_object_set_new(rt, "attention_kernel", json_string(s));
}

static int apply_key(json_t *body, const struct key_alias *k, struct fields_error *e)
{
        json_t *from = object_at(body, k->from, 0);
        json_t *v = from ? json_object_get(from, k->alias) : NULL;
        char p[160];
        if (!v)
                return 0;
        pointer_of(p, sizeof(p), k->from, k->alias);
        if (k->conv == CONV_IGNORE)
                return json_object_del(from, k->alias);
        if (k->conv == CONV_FALSE_ONLY) {
                if (json_is_true(v))
                        return afail(e, p, "unsupported",
                                     "%s = true is not modelled (DoRA adds a magnitude vector "
                                     "and a weight-norm pass per layer); plain LoRA is",
                                     k->alias);
                return json_object_del(from, k->alias);
        }
        if (k->conv == CONV_TARGETS) {
                if (!json_is_boolean(v))
                        return afail(e, p, "type", "%s must be true or false", k->alias);
                int rc = json_is_true(v) ? append_targets(body, k->extra) : 0;
                /* the lora object may have been created: look the alias up again */
                from = object_at(body, k->from, 0);
                return rc || !from ? -1 : json_object_del(from, k->alias);
        }
        json_t *to = object_at(body, k->to, 1);
        if (!to)
                return afail(e, p, "type", "%s belongs in the object %s", k->alias, k->to);
        json_t *nv = convert(k, v, e);
        if (!nv && e->status)
                return -1;
        if (k->conv == CONV_ATTN && name_attention_kernel(body, v, p, e)) {
                json_decref(nv);
                return -1;
        }
        json_t *have = json_object_get(to, k->name);
        if (have) {
                /* a flag that is false, or says what the request says, adds nothing */
                int same = !nv || json_equal(have, nv);
                json_decref(nv);
                if (same) /* llama.cpp's cache_type_k and cache_type_v alike, say */
                        return json_object_del(from, k->alias);
                char q[160];
                pointer_of(q, sizeof(q), k->to, k->name);
                return afail(e, p, "contradiction", "%s and %s name the same setting; give one", p,
                             q);
        }
        if (!nv)
                return json_object_del(from, k->alias);
        /* from may be body itself and to a child of it: set first, then drop
         * the alias (json_object_del releases v) */
        if (json_object_set_new(to, k->name, nv))
                return -1;
        return json_object_del(from, k->alias);
}

/* Lower case, '-', ' ' and '.' to '_'; NORM_CLASS_NAME keeps only what
 * follows the last '.'.  Returns 0, or -1 when s does not fit out. */
static int normalize(const char *s, enum norm norm, char *out, size_t len)
{
        if (norm == NORM_CLASS_NAME) {
                const char *dot = strrchr(s, '.');
                if (dot && dot[1])
                        s = dot + 1;
        }
        size_t n = strlen(s);
        if (n >= len)
                return -1;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                out[i] = (c == '-' || c == ' ' || c == '.') ? '_' : (char)tolower(c);
        }
        out[n] = '\0';
        return 0;
}

/* The canonical spelling of one string value, or NULL to leave it. */
static json_t *canonical(json_t *v, const struct value_field *f)
{
        char norm[96];
        const char *s = json_string_value(v);
        if (!s || normalize(s, f->norm, norm, sizeof(norm)))
                return NULL;
        for (const struct value_alias *a = f->aliases; a->alias; a++)
                if (!strcmp(norm, a->alias))
                        return json_string(a->value);
        return strcmp(norm, s) ? json_string(norm) : NULL;
}

/* A mode word that says fine-tuning without saying full or LoRA. */
static int generic_fine_tune(json_t *v)
{
        static const char *const words[] = {"sft", "finetune", "fine_tuning", "finetuning", NULL};
        char norm[32];
        if (normalize(json_string_value(v), NORM_PLAIN, norm, sizeof(norm)))
                return 0;
        for (int i = 0; words[i]; i++)
                if (!strcmp(norm, words[i]))
                        return 1;
        return 0;
}

static int apply_value(json_t *body, const struct value_field *f)
{
        json_t *o = object_at(body, f->object, 0);
        json_t *v = o ? json_object_get(o, f->key) : NULL;
        json_t *c;
        size_t i;
        json_t *x;

        if (!v)
                return 0;
        /* strategy "fsdp1" / "fsdp2" also say which FSDP */
        if (!strcmp(f->key, "strategy") && json_is_string(v) &&
            !json_object_get(o, "fsdp_version")) {
                char norm[32];
                if (!normalize(json_string_value(v), NORM_PLAIN, norm, sizeof(norm))) {
                        int version = !strcmp(norm, "fsdp1") ? 1
                                      : (!strcmp(norm, "fsdp2") || !strcmp(norm, "fully_shard"))
                                              ? 2
                                              : 0;
                        if (version &&
                            json_object_set_new(o, "fsdp_version", json_integer(version)))
                                return -1;
                }
        }
        /* Hugging Face optim names that also say how the step runs */
        if (!strcmp(f->key, "optimizer") && json_is_string(v)) {
                static const struct value_alias impls[] = {
                        {"adamw_torch_fused", "fused"},
                        {"adamw_apex_fused", "fused"},
                        {"fusedadam", "fused"},
                        {"fused_adam", "fused"},
                        {"adamw_hf", "for_loop"},
                        {"adamw_torch", "foreach"},
                        {NULL, NULL},
                };
                char norm[64];
                if (!normalize(json_string_value(v), NORM_CLASS_NAME, norm, sizeof(norm)))
                        for (const struct value_alias *a = impls; a->alias; a++) {
                                if (strcmp(norm, a->alias))
                                        continue;
                                json_t *rt = object_at(body, "runtime", 1);
                                if (!rt && !json_object_get(body, "runtime"))
                                        return -1;
                                if (rt && /* not an object: the decoder says so */
                                    !json_object_get(rt, "optimizer_implementation") &&
                                    json_object_set_new(rt, "optimizer_implementation",
                                                        json_string(a->value)))
                                        return -1;
                                break;
                        }
        }
        /* memory_savers.activation_checkpointing: true / false */
        if (!strcmp(f->key, "activation_checkpointing") && json_is_boolean(v))
                return json_object_set_new(o, f->key,
                                           json_string(json_is_true(v) ? "full" : "none"));
        if (json_is_string(v) && !strcmp(f->key, "mode") && generic_fine_tune(v) &&
            json_is_object(json_object_get(o, "lora"))) {
                /* "sft" or "finetune" with a LoRA config is LoRA (TRL's
                 * SFTTrainer with peft_config), QLoRA over a 4-bit base */
                const char *q = json_string_value(json_object_get(body, "quantization"));
                int four_bit = q && (!strcmp(q, "nf4") || !strcmp(q, "int4"));
                return json_object_set_new(o, f->key, json_string(four_bit ? "qlora" : "lora"));
        }
        if (json_is_string(v)) {
                c = canonical(v, f);
                return c ? json_object_set_new(o, f->key, c) : 0;
        }
        if (json_is_array(v)) /* compare's lists of options */
                json_array_foreach(v, i, x)
                {
                        c = canonical(x, f);
                        if (c && json_array_set_new(v, i, c))
                                return -1;
                }
        return 0;
}

/*
 * Most requests use the API's own names, and looking up each of the key
 * aliases in its object cost more than the rest of decoding.  An alias
 * applies only when its object already holds it (apply_key), and nothing
 * changes the body before the first alias applies; so when no object an
 * alias lives in holds a key that is any alias's name, the key pass is
 * skipped, with the same result.  The index of names and objects is built
 * once from the constant table.
 */
#define KEY_ALIASES (sizeof(key_aliases) / sizeof(key_aliases[0]))
static const char *alias_names[KEY_ALIASES]; /* sorted, distinct */
static size_t n_alias_names;
static const char *alias_objects[KEY_ALIASES]; /* distinct "from" paths */
static size_t n_alias_objects;
static pthread_once_t alias_index_once = PTHREAD_ONCE_INIT;

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void alias_index_build(void)
{
        for (size_t i = 0; i < KEY_ALIASES; i++) {
                const struct key_alias *k = &key_aliases[i];
                alias_names[n_alias_names++] = k->alias;
                size_t j = 0;
                while (j < n_alias_objects && strcmp(alias_objects[j], k->from) != 0)
                        j++;
                if (j == n_alias_objects)
                        alias_objects[n_alias_objects++] = k->from;
        }
        qsort(alias_names, n_alias_names, sizeof(alias_names[0]), compare_names);
        size_t n = 0;
        for (size_t i = 0; i < n_alias_names; i++)
                if (n == 0 || strcmp(alias_names[n - 1], alias_names[i]) != 0)
                        alias_names[n++] = alias_names[i];
        n_alias_names = n;
}

static bool key_alias_present(json_t *body)
{
        pthread_once(&alias_index_once, alias_index_build);
        for (size_t i = 0; i < n_alias_objects; i++) {
                json_t *o = object_at(body, alias_objects[i], 0);
                const char *key;
                json_t *v;
                json_object_foreach(o, key, v)
                {
                        (void)v;
                        if (bsearch(&key, alias_names, n_alias_names, sizeof(alias_names[0]),
                                    compare_names))
                                return true;
                }
        }
        return false;
}

int api_aliases_apply(json_t *body, struct fields_error *e)
{
        if (!json_is_object(body))
                return 0;
        bool keys = key_alias_present(body);
        for (size_t i = 0; keys && i < KEY_ALIASES; i++)
                if (apply_key(body, &key_aliases[i], e))
                        goto fail;
        for (size_t i = 0; i < sizeof(value_fields) / sizeof(value_fields[0]); i++)
                if (apply_value(body, &value_fields[i]))
                        goto fail;
        return 0;
fail:
        if (!e->status)
                field_error_fail(e, 500, "", "internal", "out of memory rewriting framework names");
        return -1;
}
