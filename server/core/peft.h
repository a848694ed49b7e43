/*
 * peft.h - LoRA targets as users write them: PEFT / torchtune / litgpt
 * module names, per architecture.
 *
 * PEFT selects the modules an adapter wraps by name: a target T matches a
 * module whose qualified name equals T or ends with "." T
 * (peft/tuners/tuners_utils.py, check_target_module_exists), and the
 * string "all-linear" means every linear layer of the blocks but not the
 * output layer.  The names differ per family (LLaMA's q_proj, BERT's query
 * and dense, GPT-2's fused c_attn, T5's q and wi_0, Mixtral's w1..w3), so
 * this module keeps, for each naming scheme, one block's module paths and
 * the matrices (EST_LORA_* bits) each path is, and matches the user's
 * names against them the way PEFT does.
 *
 * Pure lookups over static tables: nothing is allocated, nothing is kept;
 * safe from any thread.
 */
#ifndef GPUPLAN_CORE_PEFT_H
#define GPUPLAN_CORE_PEFT_H

#include <stddef.h>

#include "core/model.h"

/* modules_to_save: modules trained in full (a trainable copy of each). */
#define EST_SAVE_LM_HEAD    0x1u
#define EST_SAVE_EMBED      0x2u
#define EST_SAVE_CLASSIFIER 0x4u

/* The naming scheme of arch's family, as a short label ("llama", "bert",
 * "gpt2", "t5", "mixtral", "gpt_neox", "falcon", "phi3", "opt", "gptj"). */
const char *peft_scheme_name(const struct model_arch *arch);

/*
 * Resolve one target name for arch: a gpuplan short name (q, k, v, o,
 * gate, up, down), "all" / "all-linear", or a module name (or a dotted
 * suffix of a module path) of the model's own family.  Returns 0 and ORs
 * the matched EST_LORA_* bits into *bits, or -1 if the name matches no
 * linear layer of this family.
 */
int peft_target_bits(const struct model_arch *arch, const char *name, unsigned *bits);

/* The EST_LORA_* bits of PEFT's "all-linear" for arch: every block matrix,
 * fused ones as the family fuses them (GPT-2 c_attn, Phi-3 qkv_proj). */
unsigned peft_all_linear(const struct model_arch *arch);

/*
 * Resolve one modules_to_save name (lm_head, embed_tokens, classifier,
 * score, or the family's own names for them: wte, word_embeddings,
 * shared, embed_in, embed_out).  Returns 0 and ORs EST_SAVE_* into *bits,
 * or -1 for an unknown name.
 */
int peft_save_bits(const struct model_arch *arch, const char *name, unsigned *bits);

/*
 * Write the names valid as targets for arch, comma-separated, into buf
 * (always NUL-terminated when len > 0).  Returns buf.
 */
const char *peft_valid_targets(const struct model_arch *arch, char *buf, size_t len);

/* Likewise for modules_to_save. */
const char *peft_valid_saves(const struct model_arch *arch, char *buf, size_t len);

#endif
