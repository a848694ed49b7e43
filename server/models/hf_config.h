/*
 * hf_config.h - a Hugging Face config.json as a struct model_arch.
 *
 * Supported model_type values are listed in hf_config_supported: the
 * BERT-style encoders (with DistilBERT, ELECTRA, DeBERTa-v2/v3,
 * ModernBERT), GPT-2, GPT-NeoX, GPT-J, Falcon, BLOOM, OPT, MPT, the
 * LLaMA-shaped decoders (LLaMA, Mistral, Qwen2/3, Gemma 1-3, Phi-3, OLMo 2,
 * Granite, InternLM2, Cohere, Starcoder2), the MoE families (Mixtral,
 * Qwen2/3-MoE with shared experts, DeepSeek-V2/V3 with multi-head latent
 * attention) and T5 / mT5 / BART.  Each family's defaults are those of its
 * transformers configuration class, so a config.json that leaves a key out
 * still imports the way transformers would build the model.  An unknown
 * model_type whose config has the LLaMA keys imports as a generic gated
 * decoder (arch.generic set); state-space models are refused.
 *
 * Ownership: the importer borrows config for the duration of the call and
 * keeps nothing.  Thread-safe.
 */
#ifndef GPUPLAN_MODELS_HF_CONFIG_H
#define GPUPLAN_MODELS_HF_CONFIG_H

#include <stddef.h>

#include <jansson.h>

#include "core/model.h"
#include "json/fields.h"

/* "bert, roberta, xlm-roberta, ..." for error messages. */
extern const char hf_config_supported[];

/*
 * Fill out from config (a config.json object).  Returns 0, or -1 with err
 * filled (json/fields.h): the JSON pointer of the offending key within the
 * config as the config spells it ("/hidden_size",
 * "/text_config/num_attention_heads"; "" when the object as a whole is
 * wrong), the rule it broke ("type", "range", "required", "enum",
 * "consistency", "unsupported", "vision", "architecture"), the detail
 * naming the key, and status 400.  The architecture is checked with
 * model_arch_check() before returning.
 */
int hf_config_read(json_t *config, struct model_arch *out, struct fields_error *err);

/*
 * As hf_config_read, with the record's detail as a one-line reason in err
 * naming the key ("num_attention_heads: must be a positive integer",
 * "model_type \"foo\" is not supported; supported: ...").
 */
int hf_config_import(json_t *config, struct model_arch *out, char *err, size_t errlen);

/*
 * As hf_config_import, and also report the offending config key in key
 * (e.g. "hidden_size"; "" when the object as a whole is wrong).
 */
int hf_config_import_ex(json_t *config, struct model_arch *out, char *key, size_t keylen, char *err,
                        size_t errlen);

#endif
