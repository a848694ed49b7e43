/*
 * vision.c - vision towers, tensor by tensor (see vision.h).
 */
#include "models/vision.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct rd {
        json_t *vc;
        char *key;
        size_t keylen;
        char *err;
        size_t errlen;
        int failed;
};

/* vision_config[key]: absent -> def; else an integer in 1..max. */
static uint64_t get(struct rd *r, const char *key, uint64_t def, uint64_t max)
{
        json_t *v = json_object_get(r->vc, key);
        if (!v || json_is_null(v))
                return def;
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            (uint64_t)json_integer_value(v) > max) {
                if (!r->failed) {
                        snprintf(r->key, r->keylen, "vision_config/%s", key);
                        snprintf(r->err, r->errlen,
                                 "vision_config/%s: must be an integer in 1..%llu", key,
                                 (unsigned long long)max);
                }
                r->failed = 1;
                return def;
        }
        return (uint64_t)json_integer_value(v);
}

/* The encoder blocks as they run (struct model_vision). */
static struct model_vision blocks(uint64_t layers, uint64_t hidden, uint64_t heads, uint64_t ffn,
                                  uint64_t tokens, bool gated, bool rmsnorm)
{
        struct model_vision v;
        v.layers = (uint32_t)layers;
        v.hidden = (uint32_t)hidden;
        v.heads = (uint32_t)heads;
        v.ffn = (uint32_t)ffn;
        v.tokens = (uint32_t)(tokens < 16777216 ? tokens : 16777216); /* the sequence cap */
        v.gated_mlp = gated;
        v.rmsnorm = rmsnorm;
        return v;
}

/* A pre-norm ViT block with biases and LayerNorms (CLIP, SigLIP, Llama 4):
 * q, k, v, o (h x h + h each), fc1 and fc2, two LayerNorms. */
static uint64_t vit_block(uint64_t h, uint64_t i)
{
        return 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h;
}

/* SigLIP (SiglipVisionTransformer, modeling_siglip.py): patch conv with a
 * bias, a learned position per patch, blocks, post LayerNorm, and the
 * attention-pooling head when vision_use_head. */
static uint64_t siglip(struct rd *r, bool head_default, struct model_vision *v)
{
        uint64_t h = get(r, "hidden_size", 768, 65536),
                 i = get(r, "intermediate_size", 3072, 1048576),
                 L = get(r, "num_hidden_layers", 12, 1024), p = get(r, "patch_size", 16, 1024),
                 s = get(r, "image_size", 224, 65536), c = get(r, "num_channels", 3, 64);
        json_t *uh = json_object_get(r->vc, "vision_use_head");
        bool head = uh ? json_is_true(uh) : head_default;
        uint64_t n = (s / p) * (s / p);
        uint64_t total = c * p * p * h + h + n * h + L * vit_block(h, i) + 2 * h;
        /* SiglipEncoder: every patch, no class token (SiglipVisionConfig
         * num_attention_heads 12 by default) */
        *v = blocks(L, h, get(r, "num_attention_heads", 12, 1024), i, n, false, false);
        if (head) /* probe, nn.MultiheadAttention (in_proj 3h x h, out_proj), LayerNorm, MLP */
                total += h + 3 * h * h + 3 * h + h * h + h + 2 * h + (h * i + i) + (i * h + h);
        return total;
}

/* CLIP's vision tower (CLIPVisionTransformer): patch conv without bias,
 * class embedding, positions for every patch and the class token,
 * pre- and post-LayerNorm. */
static uint64_t clip(struct rd *r, struct model_vision *v)
{
        uint64_t h = get(r, "hidden_size", 768, 65536),
                 i = get(r, "intermediate_size", 3072, 1048576),
                 L = get(r, "num_hidden_layers", 12, 1024), p = get(r, "patch_size", 32, 1024),
                 s = get(r, "image_size", 224, 65536), c = get(r, "num_channels", 3, 64);
        uint64_t n = (s / p) * (s / p) + 1;
        /* CLIPEncoder: the patches and the class token (CLIPVisionConfig
         * num_attention_heads 12 by default) */
        *v = blocks(L, h, get(r, "num_attention_heads", 12, 1024), i, n, false, false);
        return c * p * p * h + h + n * h + 2 * h + L * vit_block(h, i) + 2 * h;
}

/* Pixtral (PixtralTransformer): patch conv without bias, RMSNorm before,
 * blocks of RMSNorms, bias-free q, k, v, o and a gated MLP. */
static uint64_t pixtral(struct rd *r, struct model_vision *v)
{
        uint64_t h = get(r, "hidden_size", 1024, 65536),
                 i = get(r, "intermediate_size", 4096, 1048576),
                 L = get(r, "num_hidden_layers", 24, 1024), p = get(r, "patch_size", 16, 1024),
                 c = get(r, "num_channels", 3, 64);
        /* PixtralTransformer: SiLU-gated MLP, RMSNorms; as many tokens as
         * the image has patches (PixtralVisionConfig num_attention_heads 16) */
        *v = blocks(L, h, get(r, "num_attention_heads", 16, 1024), i, 0, true, true);
        return c * p * p * h + h + L * (2 * h + 4 * h * h + 3 * h * i);
}

/* Patches along one side of a full-size Pixtral image: image_size /
 * patch_size (PixtralVisionConfig: 1024 and 16 by default). */
static uint64_t pixtral_side(struct rd *r)
{
        return get(r, "image_size", 1024, 65536) / get(r, "patch_size", 16, 1024);
}

/* The tokens one image becomes in a LLaVA prompt (LlavaProcessor,
 * image_seq_length): one per patch, (image_size / patch_size)^2, 576 for
 * LLaVA-1.5's CLIP at 336 px and patch 14.  CLIP also yields its class
 * token, which vision_feature_select_strategy "default" drops and "full"
 * keeps (modeling_llava.py); SigLIP has none. */
static uint64_t llava_tokens(struct rd *r, json_t *config, bool siglip_tower)
{
        uint64_t p = get(r, "patch_size", siglip_tower ? 16 : 32, 1024),
                 s = get(r, "image_size", 224, 65536);
        const char *strategy =
                json_string_value(json_object_get(config, "vision_feature_select_strategy"));
        bool full = strategy && !strcmp(strategy, "full");
        return (s / p) * (s / p) + (full && !siglip_tower ? 1 : 0);
}

/* Qwen2-VL and Qwen2.5-VL read an image at its own resolution
 * (Qwen2VLImageProcessor resizes to a multiple of patch x merge pixels), so
 * config.json cannot say how many tokens an image becomes.  The estimate
 * assumes an 896 x 896 image: (896 / patch)^2 patches through the tower,
 * (896 / (patch x merge))^2 tokens for the language model, 1024 at patch
 * 14 and merge 2. */
#define VISION_QWEN_ASSUMED_IMAGE_PX 896u

static uint64_t qwen_patches(uint64_t patch)
{
        uint64_t side = VISION_QWEN_ASSUMED_IMAGE_PX / patch;
        return side * side;
}

int vision_tower_count(json_t *config, const char *type, uint32_t text_hidden,
                       struct vision_tower *out, char *key, size_t keylen, char *err, size_t errlen)
{
        json_t *vc = json_object_get(config, "vision_config");
        struct rd r = {vc, key, keylen, err, errlen, 0};
        const char *vtype = json_string_value(json_object_get(vc, "model_type"));
        uint64_t T = text_hidden;

        memset(out, 0, sizeof(*out));
        out->merge = 1;
        if (!vc)
                return 0;
        if (!json_is_object(vc)) {
                snprintf(key, keylen, "vision_config");
                snprintf(err, errlen, "vision_config: must be an object");
                return -1;
        }
        if (!vtype)
                vtype = "";
        if (!strcmp(type, "gemma3")) {
                /* Gemma3MultiModalProjector: mm_input_projection_weight (vision
                 * hidden x text hidden) and mm_soft_emb_norm (RMSNorm). */
                uint64_t h = get(&r, "hidden_size", 1152, 65536);
                json_t *mt = json_object_get(config, "mm_tokens_per_image");
                out->parameters = siglip(&r, false, &out->shape) + h * T + h;
                out->tokens_per_image = json_is_integer(mt) && json_integer_value(mt) > 0
                                                ? (uint64_t)json_integer_value(mt)
                                                : 256;
        } else if (!strcmp(type, "qwen2_5_vl")) {
                /* Qwen2_5_VisionTransformerPretrainedModel: Conv3d patches
                 * (temporal x patch x patch, no bias); blocks of two RMSNorms,
                 * fused qkv and proj with biases, a gated MLP with biases; the
                 * merger: RMSNorm, then (h m^2 -> h m^2 -> out) with biases. */
                uint64_t d = get(&r, "depth", 32, 1024), h = get(&r, "hidden_size", 1280, 65536),
                         i = get(&r, "intermediate_size", 3420, 1048576),
                         c = get(&r, "in_chans", get(&r, "in_channels", 3, 64), 64),
                         p = get(&r, "patch_size", 14, 1024),
                         t = get(&r, "temporal_patch_size", 2, 64),
                         o = get(&r, "out_hidden_size", T, 65536),
                         m = get(&r, "spatial_merge_size", 2, 64);
                uint64_t hm = h * m * m;
                out->parameters =
                        c * t * p * p * h +
                        d * (2 * h + 3 * h * h + 3 * h + h * h + h + 2 * (h * i + i) + i * h + h) +
                        h + hm * hm + hm + hm * o + o;
                /* Qwen2_5_VisionTransformerPretrainedModel runs every patch
                 * through the blocks; the merger then folds m x m of them
                 * into one language-model token (num_heads 16 by default). */
                out->shape = blocks(d, h, get(&r, "num_heads", 16, 1024), i, qwen_patches(p), true,
                                    true);
                out->merge = (uint32_t)(m * m);
                out->tokens_per_image = qwen_patches(p) / (m * m);
                out->image_px_assumed = VISION_QWEN_ASSUMED_IMAGE_PX;
        } else if (!strcmp(type, "qwen2_vl")) {
                /* Qwen2VisionTransformerPretrainedModel: as Qwen2.5-VL with
                 * LayerNorms and a plain MLP of mlp_ratio x embed_dim. */
                uint64_t d = get(&r, "depth", 32, 1024), e = get(&r, "embed_dim", 1280, 65536),
                         k = get(&r, "mlp_ratio", 4, 64), c = get(&r, "in_channels", 3, 64),
                         p = get(&r, "patch_size", 14, 1024),
                         t = get(&r, "temporal_patch_size", 2, 64),
                         o = get(&r, "hidden_size", T, 65536),
                         m = get(&r, "spatial_merge_size", 2, 64);
                uint64_t em = e * m * m, i = k * e;
                out->parameters =
                        c * t * p * p * e +
                        d * (4 * e + 3 * e * e + 3 * e + e * e + e + (e * i + i) + (i * e + e)) +
                        2 * e + em * em + em + em * o + o;
                out->shape = blocks(d, e, get(&r, "num_heads", 16, 1024), i, qwen_patches(p), false,
                                    false);
                out->merge = (uint32_t)(m * m);
                out->tokens_per_image = qwen_patches(p) / (m * m);
                out->image_px_assumed = VISION_QWEN_ASSUMED_IMAGE_PX;
        } else if (!strcmp(type, "mllama")) {
                /* MllamaVisionModel: patch conv (no bias), class embedding,
                 * gated position embedding and a tile-position table of
                 * (aspect ratios + 1) x tiles x positions x h, pre- and
                 * post-tile embeddings, two LayerNorms, the local blocks and
                 * the gated global blocks (two gates each); the projector
                 * reads vision_output_dim (h x 5 intermediate layers). */
                uint64_t h = get(&r, "hidden_size", 1280, 65536),
                         i = get(&r, "intermediate_size", 5120, 1048576),
                         L = get(&r, "num_hidden_layers", 32, 1024),
                         G = get(&r, "num_global_layers", 8, 1024),
                         p = get(&r, "patch_size", 14, 1024), s = get(&r, "image_size", 560, 65536),
                         c = get(&r, "num_channels", 3, 64),
                         tiles = get(&r, "max_num_tiles", 4, 64),
                         V = get(&r, "vision_output_dim", 7680, 1048576);
                json_t *ar = json_object_get(vc, "supported_aspect_ratios");
                uint64_t ratios = json_is_array(ar) ? json_array_size(ar) + 1 : 9;
                uint64_t n = (s / p) * (s / p) + 1;
                uint64_t block = 4 * h * h + (h * i + i) + (i * h + h) + 4 * h;
                out->parameters = c * p * p * h + h + n * h + 1 + ratios * tiles * n * h +
                                  2 * (ratios * tiles * h + 1) + 4 * h + L * block +
                                  G * (block + 2) + V * T + T;
                out->tokens_per_image = tiles * n;
                /* MllamaVisionModel pads each tile's patches to a multiple
                 * of 8 (num_padding_patches) and attends over all tiles of
                 * an image at once, in the local and the global blocks
                 * (attention_heads 16 by default). */
                out->shape = blocks(L + G, h, get(&r, "attention_heads", 16, 1024), i,
                                    tiles * ((n + 7) / 8 * 8), false, false);
        } else if (!strcmp(type, "llama4")) {
                /* Llama4VisionModel: unfold + linear patch embedding (no
                 * bias), class embedding, positions, LayerNorms before and
                 * after, ViT blocks, the pixel-shuffle MLP (intermediate ->
                 * projector_input_dim -> projector_output_dim, no biases) and
                 * the projector into the text model (no bias by default). */
                uint64_t h = get(&r, "hidden_size", 1408, 65536),
                         i = get(&r, "intermediate_size", 5632, 1048576),
                         L = get(&r, "num_hidden_layers", 34, 1024),
                         p = get(&r, "patch_size", 14, 1024), s = get(&r, "image_size", 448, 65536),
                         c = get(&r, "num_channels", 3, 64),
                         pin = get(&r, "projector_input_dim", 4096, 1048576),
                         pout = get(&r, "projector_output_dim", 4096, 1048576),
                         V = get(&r, "vision_output_dim", 4096, 1048576);
                bool bias = json_is_true(json_object_get(vc, "multi_modal_projector_bias"));
                uint64_t n = (s / p) * (s / p) + 1;
                out->parameters = c * p * p * h + h + n * h + 4 * h + L * vit_block(h, i) +
                                  i * pin + pout * pout + V * T + (bias ? T : 0);
                out->tokens_per_image = (n - 1) / 4; /* pixel shuffle 0.5 in each direction */
                /* Llama4VisionEncoder: the patches and the class token
                 * (num_attention_heads 16 by default) */
                out->shape =
                        blocks(L, h, get(&r, "num_attention_heads", 16, 1024), i, n, false, false);
        } else if (!strcmp(vtype, "pixtral") && !strcmp(type, "mistral3")) {
                /* Mistral3MultiModalProjector: RMSNorm, patch merger
                 * (h m^2 -> h), then h -> text -> text (biases when
                 * multimodal_projector_bias). */
                uint64_t h = get(&r, "hidden_size", 1024, 65536);
                uint64_t side = pixtral_side(&r);
                json_t *mb = json_object_get(config, "multimodal_projector_bias");
                json_t *ms = json_object_get(config, "spatial_merge_size");
                uint64_t m = json_is_integer(ms) && json_integer_value(ms) > 0
                                     ? (uint64_t)json_integer_value(ms)
                                     : 2;
                uint64_t b = json_is_true(mb) ? 1 : 0;
                out->parameters = pixtral(&r, &out->shape) + h + h * m * m * h + h * T + b * T +
                                  T * T + b * T;
                out->merge = (uint32_t)(m * m);
                /* A full-size image is side x side patches through the
                 * tower; the merger folds m x m of them into one token, and
                 * PixtralProcessor ends each of the side / m rows with
                 * [IMG_BREAK] ([IMG_END] after the last): (side / m) rows of
                 * (side / m + 1) tokens. */
                out->shape.tokens = (uint32_t)(side * side);
                out->tokens_per_image = (side / m) * (side / m + 1);
        } else if (!strcmp(vtype, "pixtral")) {
                /* LLaVA around a Pixtral tower (Pixtral-12B as transformers
                 * ships it): LlavaMultiModalProjector, vision hidden -> text
                 * -> text with biases (multimodal_projector_bias, true by
                 * default); no merger, so each patch is a token, and each of
                 * the side rows ends with [IMG_BREAK] or [IMG_END]. */
                uint64_t h = get(&r, "hidden_size", 1024, 65536);
                uint64_t side = pixtral_side(&r);
                json_t *mb = json_object_get(config, "multimodal_projector_bias");
                uint64_t b = mb && !json_is_true(mb) ? 0 : 1;
                out->parameters = pixtral(&r, &out->shape) + h * T + b * T + T * T + b * T;
                out->shape.tokens = (uint32_t)(side * side);
                out->tokens_per_image = side * (side + 1);
        } else {
                /* LLaVA (LlavaMultiModalProjector): vision hidden -> text ->
                 * text, with biases; the tower is CLIP or SigLIP. */
                uint64_t h = get(&r, "hidden_size", 1024, 65536);
                bool sig = !strcmp(vtype, "siglip_vision_model");
                uint64_t tower = sig ? siglip(&r, true, &out->shape) : clip(&r, &out->shape);
                out->parameters = tower + h * T + T + T * T + T;
                out->tokens_per_image = llava_tokens(&r, config, sig);
        }
        return r.failed ? -1 : 1;
}
