/*
 * aliases.h - the option names users paste from their frameworks.
 *
 * A request may spell a setting the way its training script does: PEFT's
 * LoraConfig (r, lora_alpha, target_modules, lora_dropout), torchtune's
 * recipe keys (lora_attn_modules, apply_lora_to_mlp,
 * enable_activation_checkpointing), litgpt's (lora_r, lora_query, ...,
 * precision "bf16-true"), Hugging Face TrainingArguments
 * (per_device_train_batch_size, gradient_accumulation_steps,
 * gradient_checkpointing, optim "adamw_torch_fused", attn_implementation),
 * Lightning precision strings, Megatron and torchtitan parallel degrees,
 * optimizer class names (torch.optim.AdamW, bitsandbytes.optim.PagedAdamW8bit).
 * api_aliases_apply() rewrites those keys and values in place to the
 * request's own names before the strict decoder runs, so every later check
 * and the echoed "input" use one vocabulary.  A name it does not know is
 * left alone for the decoder to refuse with the list of valid names.
 *
 * Allocates nothing the caller must free (it edits body's own objects).
 * Thread-safe: reads only constant tables and an index of their names
 * built once (pthread_once).
 */
#ifndef GPUPLAN_API_ALIASES_H
#define GPUPLAN_API_ALIASES_H

#include <jansson.h>

#include "api/estimate_decode.h"

/* 0, or -1 with e filled (400) when an alias and the name it stands for
 * are both given, or an alias carries a value of the wrong type. */
int api_aliases_apply(json_t *body, struct fields_error *e);

#endif
