/*
 * vision.h - the vision tower of a vision-language config.json: its
 * parameters (encoder and the projector into the language model) and the
 * image tokens one image becomes.
 *
 * Families: Gemma 3 (SigLIP), Llama 3.2 Vision (mllama), Llama 4, Qwen2-VL
 * and Qwen2.5-VL, LLaVA-style wrappers around CLIP or SigLIP, Mistral 3
 * (Pixtral).  Each count follows the family's modeling_*.py in
 * transformers, tensor by tensor.
 *
 * Pure: no allocation, no state; thread-safe.  config is borrowed.
 */
#ifndef GPUPLAN_MODELS_VISION_H
#define GPUPLAN_MODELS_VISION_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/model.h"

struct vision_tower {
        uint64_t parameters;       /* encoder + projector */
        uint64_t tokens_per_image; /* tokens one image becomes in the language model's
                                      sequence, from the config (Qwen2-VL, whose count
                                      follows the resolution: an 896 x 896 image assumed) */
        struct model_vision shape; /* the encoder blocks and the patches one image runs
                                      through them */
        uint32_t image_px_assumed; /* the assumed image side in pixels; 0 when the config
                                      fixes the tokens */
        uint32_t merge;            /* tower tokens per language-model token (spatial merge
                                      m x m); 1 when tokens are pooled or kept */
};

/*
 * Count the tower of config (whose model_type is type) for a language model
 * of text_hidden.  Returns 1 with out filled, 0 when config has no
 * vision_config, -1 with the offending key (as written, e.g.
 * "vision_config/hidden_size") in key and a reason in err.
 */
int vision_tower_count(json_t *config, const char *type, uint32_t text_hidden,
                       struct vision_tower *out, char *key, size_t keylen, char *err,
                       size_t errlen);

#endif
