/*
 * estimate_decode.c - the estimate request, JSON -> struct estimate_input
 * (see estimate_decode.h).
 *
 * Decoding is strict: every object's keys are checked against the list
 * it may hold, every number against its type and range, every enum
 * against its names, and each failure names the field with an RFC 6901
 * pointer.  Whatever the request leaves out takes the engine's default
 * and is reported back as an assumption.
 */
#include "api/estimate_decode.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/aliases.h"
#include "api/model_not_found.h"
#include "api/fields.h"
#include "models/hf_config.h"
#include "models/model_id.h"
#include "catalog/catalog.h"
#include "core/peft.h"

#define dfail field_error_fail
/* Tokens of a training run over all its epochs (decode_workload). */
#define DATASET_TOKENS_MAX 1e15

static void join(char *out, size_t len, const char *base, const char *key)
{
        snprintf(out, len, "%s/%s", base, key);
}

/* 400 naming the first key of obj not in allowed. */
static int known_keys(json_t *obj, const char *base, const char *const *allowed,
                      const char *const *extra, struct fields_error *e)
{
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                bool ok = false;
                for (int i = 0; allowed[i] && !ok; i++)
                        ok = strcmp(allowed[i], key) == 0;
                for (int i = 0; extra && extra[i] && !ok; i++)
                        ok = strcmp(extra[i], key) == 0;
                if (!ok) {
                        /* Name the field and list the ones valid here. */
                        char p[128], list[700];
                        size_t off = 0;
                        list[0] = '\0';
                        for (int i = 0; allowed[i] && off < sizeof(list); i++) {
                                int n = snprintf(list + off, sizeof(list) - off, "%s%s",
                                                 i ? ", " : "", allowed[i]);
                                off += n > 0 ? (size_t)n : 0;
                        }
                        join(p, sizeof(p), base, key);
                        return dfail(e, 400, p, "unknown_field",
                                     "unknown field \"%.60s\"; valid here: %s", key, list);
                }
        }
        return 0;
}

/*
 * The decoder's readers are api/fields.h's: null reads as absent
 * (FIELD_NULLABLE), and *present says whether the request gave a value.
 */
static bool given(json_t *obj, const char *key)
{
        json_t *v = json_object_get(obj, key);
        return v && !json_is_null(v);
}

static int get_object(json_t *obj, const char *base, const char *key, json_t **out,
                      struct fields_error *e)
{
        *out = NULL;
        return fields_read_object(e, obj, base, key, FIELD_NULLABLE, out);
}

/* An integer in [min, max]; absent/null leaves *out; *present set when given. */
static int get_uint(json_t *obj, const char *base, const char *key, uint64_t min, uint64_t max,
                    uint64_t *out, bool *present, struct fields_error *e)
{
        if (present)
                *present = given(obj, key);
        return fields_read_uint(e, obj, base, key, FIELD_NULLABLE, min, max, out);
}

static int get_u32(json_t *obj, const char *base, const char *key, uint32_t min, uint32_t max,
                   uint32_t *out, bool *present, struct fields_error *e)
{
        uint64_t x = *out;
        if (get_uint(obj, base, key, min, max, &x, present, e))
                return -1;
        *out = (uint32_t)x;
        return 0;
}

static int get_number(json_t *obj, const char *base, const char *key, double min, double max,
                      double *out, bool *present, struct fields_error *e)
{
        if (present)
                *present = given(obj, key);
        return fields_read_number(e, obj, base, key, FIELD_NULLABLE, min, max, out);
}

static int get_bool(json_t *obj, const char *base, const char *key, bool *out,
                    struct fields_error *e)
{
        return fields_read_bool(e, obj, base, key, FIELD_NULLABLE, out);
}

/* The 400 for a value of key that is not one of names (rule "type" or
 * "enum"), listing them. */
static int enum_fail(struct fields_error *e, const char *base, const char *key,
                     const char *const *names, const char *rule)
{
        char p[128], list[400];
        size_t off = 0;

        join(p, sizeof(p), base, key);
        list[0] = '\0';
        for (int i = 0; names[i] && off < sizeof(list); i++) {
                int n = snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", names[i]);
                if (n < 0)
                        break;
                off += (size_t)n;
        }
        return dfail(e, 400, p, rule, "must be one of: %s", list);
}

static int get_enum(json_t *obj, const char *base, const char *key, const char *const *names,
                    int *out, bool *present, struct fields_error *e)
{
        json_t *v = json_object_get(obj, key);
        if (present)
                *present = false;
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_string(v))
                return enum_fail(e, base, key, names, "type");
        int i = estimate_enum_parse(names, json_string_value(v));
        if (i < 0)
                return enum_fail(e, base, key, names, "enum");
        *out = i;
        if (present)
                *present = true;
        return 0;
}

/* ---- model ------------------------------------------------------------------- */

static const char *const arch_keys[] = {
        "name",       "kind",           "layers",         "decoder_layers",  "hidden_size",
        "heads",      "kv_heads",       "head_dim",       "ffn_size",        "gated_mlp",
        "activation", "vocab_size",     "max_positions",  "type_vocab_size", "tied_embeddings",
        "norm",       "pre_norm",       "attention_bias", "mlp_bias",        "position_embedding",
        "experts",    "active_experts", "dropout",        "pooler",          NULL};

static int decode_architecture(json_t *o, struct model_arch *a, struct fields_error *e)
{
        const char *base = "/model/architecture";
        int kind = -1, act, norm, pos;
        bool present;
        double dropout;

        if (known_keys(o, base, arch_keys, NULL, e))
                return -1;
        memset(a, 0, sizeof(*a));
        if (get_enum(o, base, "kind",
                     (const char *const[]){"encoder", "decoder", "encoder_decoder", NULL}, &kind,
                     &present, e))
                return -1;
        if (!present)
                return dfail(e, 400, "/model/architecture/kind", "required",
                             "kind is required (encoder, decoder, encoder_decoder)");
        a->kind = (enum model_kind)kind;
        bool enc = a->kind == MODEL_ENCODER, dec = a->kind == MODEL_DECODER;
        /* Family-style defaults: BERT for encoders, LLaMA for decoders, T5
         * for encoder-decoders. */
        a->gated_mlp = dec;
        a->activation = enc ? MODEL_ACT_GELU : (dec ? MODEL_ACT_SILU : MODEL_ACT_RELU);
        a->norm = enc ? MODEL_NORM_LAYERNORM : MODEL_NORM_RMSNORM;
        a->pre_norm = !enc;
        a->embedding_norm = enc;
        a->final_norm = !enc;
        a->attn_bias = enc;
        a->mlp_bias = enc;
        a->position = enc ? MODEL_POS_LEARNED : (dec ? MODEL_POS_ROTARY : MODEL_POS_RELATIVE);
        a->relative_buckets = a->position == MODEL_POS_RELATIVE ? 32 : 0;
        a->tied_embeddings = !dec;
        a->type_vocab = enc ? 2 : 0;
        a->pooler = false;
        a->lm_head_transform = enc;
        a->lm_head_bias = enc;
        a->max_positions = enc ? 512 : 2048;
        a->dropout = enc ? 0.1f : 0.0f;

        static const char *const required[] = {"layers",   "hidden_size", "heads",
                                               "ffn_size", "vocab_size",  NULL};
        for (int i = 0; required[i]; i++)
                if (!json_object_get(o, required[i])) {
                        char p[128];
                        join(p, sizeof(p), base, required[i]);
                        return dfail(e, 400, p, "required", "%s is required", required[i]);
                }
        if (get_u32(o, base, "layers", 1, 1024, &a->layers, NULL, e) ||
            get_u32(o, base, "decoder_layers", 1, 1024, &a->decoder_layers, NULL, e) ||
            get_u32(o, base, "hidden_size", 1, 131072, &a->hidden, NULL, e) ||
            get_u32(o, base, "heads", 1, 4096, &a->heads, NULL, e) ||
            get_u32(o, base, "kv_heads", 1, 4096, &a->kv_heads, NULL, e) ||
            get_u32(o, base, "head_dim", 1, 4096, &a->head_dim, NULL, e) ||
            get_u32(o, base, "ffn_size", 1, 1048576, &a->ffn, NULL, e) ||
            get_u32(o, base, "vocab_size", 1, 16777216, &a->vocab, NULL, e) ||
            get_u32(o, base, "max_positions", 1, 16777216, &a->max_positions, NULL, e) ||
            get_u32(o, base, "type_vocab_size", 0, 1024, &a->type_vocab, NULL, e) ||
            get_u32(o, base, "experts", 0, 1024, &a->experts, NULL, e) ||
            get_u32(o, base, "active_experts", 0, 1024, &a->active_experts, NULL, e) ||
            get_bool(o, base, "gated_mlp", &a->gated_mlp, e) ||
            get_bool(o, base, "tied_embeddings", &a->tied_embeddings, e) ||
            get_bool(o, base, "pre_norm", &a->pre_norm, e) ||
            get_bool(o, base, "attention_bias", &a->attn_bias, e) ||
            get_bool(o, base, "mlp_bias", &a->mlp_bias, e) ||
            get_bool(o, base, "pooler", &a->pooler, e))
                return -1;
        act = a->activation;
        norm = a->norm;
        pos = a->position;
        if (get_enum(o, base, "activation",
                     (const char *const[]){"gelu", "gelu_tanh", "relu", "silu", "gelu_new", NULL},
                     &act, NULL, e) ||
            get_enum(o, base, "norm", (const char *const[]){"layernorm", "rmsnorm", NULL}, &norm,
                     NULL, e) ||
            get_enum(o, base, "position_embedding",
                     (const char *const[]){"learned", "rotary", "relative", NULL}, &pos, NULL, e))
                return -1;
        a->activation = (enum model_activation)act;
        a->norm = (enum model_norm)norm;
        a->position = (enum model_position)pos;
        dropout = a->dropout;
        if (get_number(o, base, "dropout", 0, 0.99, &dropout, NULL, e))
                return -1;
        a->dropout = (float)dropout;
        if (a->kind == MODEL_ENCODER_DECODER && a->decoder_layers == 0)
                a->decoder_layers = a->layers;
        if (a->kv_heads == 0)
                a->kv_heads = a->heads;
        if (a->head_dim == 0) {
                if (a->hidden % a->heads)
                        return dfail(e, 400, "/model/architecture/heads", "divides",
                                     "heads must divide hidden_size (or give head_dim)");
                a->head_dim = a->hidden / a->heads;
        }
        if (a->experts > 1 && a->active_experts == 0)
                a->active_experts = 2;
        a->position_table = a->max_positions;
        json_t *n = json_object_get(o, "name");
        if (n && !json_is_string(n))
                return dfail(e, 400, "/model/architecture/name", "type", "name must be a string");
        snprintf(a->name, sizeof(a->name), "%s", n ? json_string_value(n) : "custom architecture");

        const char *field, *why;
        if (model_arch_check(a, &field, &why)) {
                char p[128];
                join(p, sizeof(p), base, field);
                return dfail(e, 400, p, "architecture", "%s", why);
        }
        return 0;
}

static int decode_model(json_t *m, const struct catalog_snapshot *snap, struct estimate_input *in,
                        struct fields_error *e)
{
        static const char *const keys[] = {"id", "hf_config", "architecture", "parameters", NULL};
        int given = 0;

        if (!m)
                return dfail(e, 400, "/model", "required",
                             "model is required: {\"id\"}, {\"hf_config\"}, {\"architecture\"} or "
                             "{\"parameters\"}");
        if (!json_is_object(m))
                return dfail(e, 400, "/model", "type", "model must be an object");
        if (known_keys(m, "/model", keys, NULL, e))
                return -1;
        for (int i = 0; keys[i]; i++)
                given += json_object_get(m, keys[i]) != NULL;
        if (given != 1)
                return dfail(
                        e, 400, "/model", "one_of",
                        "model must hold exactly one of id, hf_config, architecture, parameters");

        json_t *v;
        if ((v = json_object_get(m, "id"))) {
                if (!json_is_string(v))
                        return dfail(e, 400, "/model/id", "type", "id must be a string");
                if (!snap)
                        return dfail(
                                e, 503, "/model/id", "unavailable",
                                "the model catalog is not loaded yet; retry, or send hf_config");
                const struct catalog_model *cm = catalog_model(
                        snap, model_id_without_host(json_string_value(v)));
                if (!cm) {
                        char why[600];
                        return dfail(
                                e, 404, "/model/id", "unknown", "%s",
                                api_model_not_found(snap, json_string_value(v), why, sizeof(why)));
                }
                if (!cm->arch_ok)
                        return dfail(
                                e, 422, "/model/id", "architecture",
                                "the catalog model \"%.80s\" has a config the importer refused",
                                json_string_value(v));
                in->arch = cm->arch;
                snprintf(in->arch.name, sizeof(in->arch.name), "%s", cm->name);
                return 0;
        }
        if ((v = json_object_get(m, "hf_config"))) {
                char key[64], msg[900], p[128];
                if (!json_is_object(v))
                        return dfail(e, 400, "/model/hf_config", "type",
                                     "hf_config must be the config.json object");
                if (hf_config_import_ex(v, &in->arch, key, sizeof(key), msg, sizeof(msg))) {
                        if (key[0])
                                join(p, sizeof(p), "/model/hf_config", key);
                        else
                                snprintf(p, sizeof(p), "/model/hf_config");
                        return dfail(e, 400, p,
                                     strcmp(key, "model_type") == 0 ? "enum" : "hf_config", "%s",
                                     msg);
                }
                return 0;
        }
        if ((v = json_object_get(m, "architecture"))) {
                if (!json_is_object(v))
                        return dfail(e, 400, "/model/architecture", "type",
                                     "architecture must be an object");
                return decode_architecture(v, &in->arch, e);
        }
        v = json_object_get(m, "parameters");
        uint64_t n = 0;
        if (get_uint(m, "/model", "parameters", 1000000, 10000000000000ull, &n, NULL, e))
                return -1;
        if (!json_is_integer(v))
                return dfail(e, 400, "/model/parameters", "type", "parameters must be an integer");
        if (model_arch_from_parameters(n, &in->arch))
                return dfail(e, 400, "/model/parameters", "range", "parameters must be 1e6..1e13");
        in->parameters_hint = n;
        return 0;
}

/* ---- the rest of the request ------------------------------------------------- */

/* One list of module names (targets or modules_to_save), resolved for the
 * model's family by core/peft.c; an unknown name is a 400 that lists the
 * names valid for this model. */
static int decode_module_list(json_t *t, const struct estimate_input *in, bool saves,
                              unsigned *bits, struct fields_error *e)
{
        const char *ptr = saves ? "/workload/lora/modules_to_save" : "/workload/lora/targets";
        char valid[1024], why[1400], p[128];
        size_t i;
        json_t *x;

        if (saves)
                peft_valid_saves(&in->arch, valid, sizeof(valid));
        else
                peft_valid_targets(&in->arch, valid, sizeof(valid));
        *bits = 0;
        if (json_is_string(t) && !saves) {
                /* PEFT's target_modules="all-linear" */
                const char *v = json_string_value(t);
                if (!strcmp(v, "all") || !strcmp(v, "all-linear") || !strcmp(v, "all_linear")) {
                        *bits = peft_all_linear(&in->arch);
                        return 0;
                }
                snprintf(why, sizeof(why),
                         "a string target must be \"all-linear\" (or \"all\"); otherwise give a "
                         "list of module names: %s",
                         valid);
                return dfail(e, 400, ptr, "enum", "%s", why);
        }
        if (!json_is_array(t)) {
                snprintf(why, sizeof(why), "%s must be an array of module names: %s",
                         saves ? "modules_to_save" : "targets", valid);
                return dfail(e, 400, ptr, "type", "%s", why);
        }
        if (json_array_size(t) == 0 && !saves)
                return dfail(e, 400, ptr, "range", "targets must not be empty");
        json_array_foreach(t, i, x)
        {
                snprintf(p, sizeof(p), "%s/%zu", ptr, i);
                const char *name = json_is_string(x) ? json_string_value(x) : NULL;
                int rc = !name   ? -1
                         : saves ? peft_save_bits(&in->arch, name, bits)
                                 : peft_target_bits(&in->arch, name, bits);
                if (rc) {
                        snprintf(why, sizeof(why),
                                 "\"%.60s\" names no %s of this %s-style model; valid: %s",
                                 name ? name : "(not a string)",
                                 saves ? "module to save" : "linear layer",
                                 peft_scheme_name(&in->arch), valid);
                        return dfail(e, 400, p, "enum", "%s", why);
                }
        }
        return 0;
}

static int decode_lora(json_t *o, struct estimate_input *in, struct fields_error *e)
{
        static const char *const keys[] = {"rank",    "alpha", "targets", "modules_to_save",
                                           "dropout", NULL};
        const char *base = "/workload/lora";
        bool present;
        if (known_keys(o, base, keys, NULL, e) ||
            get_u32(o, base, "rank", 1, 65536, &in->lora_rank, NULL, e) ||
            get_u32(o, base, "alpha", 1, 1048576, &in->lora_alpha, NULL, e) ||
            get_number(o, base, "dropout", 0.0, 0.99, &in->lora_dropout, &present, e))
                return -1;
        in->set |= present ? EST_SET_LORA_DROPOUT : 0;
        json_t *t = json_object_get(o, "targets");
        if (t && !json_is_null(t) && decode_module_list(t, in, false, &in->lora_targets, e))
                return -1;
        t = json_object_get(o, "modules_to_save");
        if (t && !json_is_null(t) && decode_module_list(t, in, true, &in->lora_modules_to_save, e))
                return -1;
        return 0;
}

static int decode_workload(json_t *w, struct estimate_input *in, struct fields_error *e)
{
        static const char *const keys[] = {"mode",
                                           "batch_size",
                                           "sequence_length",
                                           "target_length",
                                           "gradient_accumulation",
                                           "num_labels",
                                           "prompt_tokens",
                                           "generated_tokens",
                                           "lora",
                                           "dataset",
                                           "images_per_sample",
                                           NULL};
        const char *base = "/workload";
        bool present;
        int mode = in->mode;
        json_t *o;

        if (!w)
                return dfail(e, 400, "/workload", "required",
                             "workload is required (at least its mode)");
        if (known_keys(w, base, keys, NULL, e))
                return -1;
        if (get_enum(w, base, "mode", estimate_mode_names, &mode, &present, e))
                return -1;
        if (!present)
                return dfail(e, 400, "/workload/mode", "required",
                             "mode is required: inference, fine_tune, pre_train, lora or qlora");
        in->mode = (enum est_mode)mode;
        /* Mode-dependent defaults, before the explicit values. */
        if (in->mode == EST_INFERENCE)
                in->batch_size = 1;
        if (in->mode == EST_QLORA) {
                in->lora_rank = 64;
                in->lora_alpha = 16;
                in->lora_targets = peft_all_linear(&in->arch);
                in->quantization = EST_QUANT_NF4;
        }
        uint32_t def_seq = in->arch.kind == MODEL_ENCODER ? 512 : 2048;
        in->sequence_length = def_seq < in->arch.max_positions ? def_seq : in->arch.max_positions;

        if (get_u32(w, base, "batch_size", 1, 1048576, &in->batch_size, &present, e))
                return -1;
        in->set |= present ? EST_SET_BATCH : 0;
        if (get_u32(w, base, "sequence_length", 1, 16777216, &in->sequence_length, &present, e))
                return -1;
        in->set |= present ? EST_SET_SEQUENCE : 0;
        if (get_u32(w, base, "target_length", 1, 16777216, &in->target_length, NULL, e))
                return -1;
        if (get_u32(w, base, "gradient_accumulation", 1, 1048576, &in->gradient_accumulation, NULL,
                    e))
                return -1;
        if (get_u32(w, base, "num_labels", 1, 1000000, &in->num_labels, &present, e))
                return -1;
        in->set |= present ? EST_SET_LABELS : 0;
        if (get_u32(w, base, "prompt_tokens", 1, 16777216, &in->prompt_tokens, &present, e))
                return -1;
        in->set |= present ? EST_SET_PROMPT : 0;
        if (get_u32(w, base, "generated_tokens", 0, 16777216, &in->generated_tokens, &present, e))
                return -1;
        in->set |= present ? EST_SET_GENERATED : 0;
        if (in->mode == EST_INFERENCE && !(in->set & EST_SET_SEQUENCE) &&
            (in->set & (EST_SET_PROMPT | EST_SET_GENERATED))) {
                uint64_t ctx = (uint64_t)in->prompt_tokens + in->generated_tokens;
                if (!(in->set & EST_SET_PROMPT))
                        ctx = (uint64_t)in
                                      ->sequence_length; /* generated within the default context */
                if (ctx > 16777216)
                        return dfail(e, 400, "/workload/generated_tokens", "range",
                                     "prompt_tokens + generated_tokens must be at most 16777216");
                in->sequence_length = (uint32_t)ctx;
                in->set |= EST_SET_SEQUENCE;
        }
        if (in->mode == EST_INFERENCE && (in->set & EST_SET_SEQUENCE) &&
            !(in->set & EST_SET_PROMPT))
                in->prompt_tokens = in->sequence_length > in->generated_tokens
                                            ? in->sequence_length - in->generated_tokens
                                            : in->sequence_length;
        if (get_u32(w, base, "images_per_sample", 0, 1024, &in->images, &present, e))
                return -1;
        if (in->images) {
                /* Each image enters the language model as arch.image_tokens
                 * tokens of the sequence (vision.c says how many per family). */
                uint64_t add = (uint64_t)in->images * in->arch.image_tokens;
                if (!in->arch.image_tokens)
                        return dfail(e, 400, "/workload/images_per_sample", "contradiction",
                                     "the model has no vision tower (no vision_config): images "
                                     "need a vision-language model");
                if (in->sequence_length + add > 16777216)
                        return dfail(e, 400, "/workload/images_per_sample", "range",
                                     "sequence_length + images x %u image tokens must be at most "
                                     "16777216",
                                     in->arch.image_tokens);
                in->sequence_length += (uint32_t)add;
                if (in->mode == EST_INFERENCE && in->prompt_tokens)
                        in->prompt_tokens += (uint32_t)add;
        }
        if (in->mode != EST_INFERENCE && (in->set & (EST_SET_PROMPT | EST_SET_GENERATED)))
                return dfail(e, 400,
                             (in->set & EST_SET_PROMPT) ? "/workload/prompt_tokens"
                                                        : "/workload/generated_tokens",
                             "contradiction",
                             "prompt and generated tokens apply to inference; training uses "
                             "sequence_length");
        if (get_object(w, base, "lora", &o, e))
                return -1;
        if (o) {
                if (in->mode != EST_LORA && in->mode != EST_QLORA)
                        return dfail(e, 400, "/workload/lora", "contradiction",
                                     "lora settings need mode lora or qlora");
                if (decode_lora(o, in, e))
                        return -1;
                in->set |= EST_SET_LORA;
        }
        if (get_object(w, base, "dataset", &o, e))
                return -1;
        if (o) {
                static const char *const dk[] = {"samples", "tokens", "epochs", NULL};
                if (known_keys(o, "/workload/dataset", dk, NULL, e) ||
                    get_uint(o, "/workload/dataset", "samples", 1, 1000000000000000ull,
                             &in->dataset_samples, NULL, e) ||
                    get_uint(o, "/workload/dataset", "tokens", 1, 1000000000000000000ull,
                             &in->dataset_tokens, NULL, e) ||
                    get_number(o, "/workload/dataset", "epochs", 0.001, 1e6, &in->epochs, NULL, e))
                        return -1;
                /* The tokens a run trains on, over every epoch: at most
                 * 1e15, some 64 times the 15.6e12 Llama 3 was pre-trained
                 * on (Dubey et al. 2024, "The Llama 3 Herd of Models",
                 * section 3).  Beyond that a plan search only ranks
                 * millennia-long runs. */
                double per_epoch = in->dataset_tokens
                                           ? (double)in->dataset_tokens
                                           : (double)in->dataset_samples * in->sequence_length;
                if (per_epoch * in->epochs > DATASET_TOKENS_MAX)
                        return dfail(e, 400, "/workload/dataset", "range",
                                     "the dataset's tokens times its epochs must be at most 1e15 "
                                     "(this one: %.3g)",
                                     per_epoch * in->epochs);
                in->set |= EST_SET_DATASET;
        }
        return 0;
}

/*
 * Checkpointing as the frameworks name it.  Our names: none, selective
 * (Megatron's: the attention core), full, selective_op (torchtitan's
 * op-level policy).  Also accepted: torchtitan's own pair, mode
 * "selective" with selective_ac_option "op" or a layer frequency "k"
 * (every k-th block fully checkpointed); with framework torchtitan a bare
 * "selective" means its default op policy; "op" and "selective_layer"
 * are read as selective_op and full every 2nd block.
 */
static int decode_checkpointing(json_t *o, const char *base, struct estimate_input *in,
                                bool torchtitan, struct fields_error *e)
{
        json_t *m = json_object_get(o, "activation_checkpointing");
        json_t *opt = json_object_get(o, "selective_ac_option");
        int ck = in->checkpointing;

        if (m) {
                const char *name = json_is_string(m) ? json_string_value(m) : NULL;
                if (name && !strcmp(name, "op"))
                        ck = EST_CKPT_SELECTIVE_OP;
                else if (name && !strcmp(name, "selective_layer"))
                        ck = EST_CKPT_FULL, in->checkpoint_every = 2;
                else if (get_enum(o, base, "activation_checkpointing", estimate_checkpointing_names,
                                  &ck, NULL, e))
                        return dfail(e, 400, "/memory_savers/activation_checkpointing", "enum",
                                     "activation_checkpointing must be one of none, selective "
                                     "(Megatron: recompute the attention core), full, "
                                     "selective_op (torchtitan's op policy); torchtitan's "
                                     "\"op\" and \"selective_layer\" are accepted too");
                if (ck == EST_CKPT_SELECTIVE && torchtitan && !opt)
                        ck = EST_CKPT_SELECTIVE_OP;
                in->set |= EST_SET_CHECKPOINTING;
        }
        if (opt) {
                const char *v = json_is_string(opt) ? json_string_value(opt) : NULL;
                char *end = NULL;
                long k = v ? strtol(v, &end, 10)
                           : (json_is_integer(opt) ? (long)json_integer_value(opt) : 0);
                if (v && !strcmp(v, "op")) {
                        ck = EST_CKPT_SELECTIVE_OP;
                } else if (k >= 1 && k <= 1024 && (!v || (end && !*end))) {
                        ck = EST_CKPT_FULL;
                        in->checkpoint_every = (uint32_t)k;
                } else {
                        return dfail(e, 400, "/memory_savers/selective_ac_option", "enum",
                                     "selective_ac_option is \"op\" (op-level policy) or a "
                                     "layer frequency 1..1024 (every k-th block fully "
                                     "checkpointed), as in torchtitan");
                }
                in->set |= EST_SET_CHECKPOINTING;
        }
        in->checkpointing = (enum est_checkpointing)ck;
        return 0;
}

/* Catalog parts of compute capability 10.0 (NVIDIA's CUDA GPU list: B100,
 * B200, GB200), where PyTorch runs SDPA through cuDNN first
 * (sdp_utils.cpp, check_prefer_cudnn_attention: major 10, minor 0). */
static bool sm100_part(const char *id)
{
        static const char *const parts[] = {"b100", "b200", "gb200", NULL};
        for (int i = 0; parts[i]; i++)
                if (strcmp(id, parts[i]) == 0)
                        return true;
        return false;
}

static int decode_savers(json_t *o, struct estimate_input *in, bool torchtitan,
                         struct fields_error *e)
{
        static const char *const keys[] = {"activation_checkpointing",
                                           "selective_ac_option",
                                           "checkpoint_every",
                                           "flash_attention",
                                           "chunked_loss",
                                           "optimizer_in_backward",
                                           "activation_offload",
                                           "compile",
                                           "logits",
                                           "float8_recompute_weight",
                                           NULL};
        /* torchao's own name for float8_recompute_weight */
        static const char *const aliases[] = {"force_recompute_fp8_weight_in_bwd", NULL};
        const char *base = "/memory_savers";
        int v;
        bool present;
        if (known_keys(o, base, keys, aliases, e) ||
            decode_checkpointing(o, base, in, torchtitan, e) ||
            get_bool(o, base, "float8_recompute_weight", &in->float8_recompute_weight, e) ||
            get_bool(o, base, "force_recompute_fp8_weight_in_bwd", &in->float8_recompute_weight, e))
                return -1;
        if (get_u32(o, base, "checkpoint_every", 1, 1024, &in->checkpoint_every, &present, e))
                return -1;
        if (present && in->checkpointing != EST_CKPT_FULL)
                return dfail(e, 400, "/memory_savers/checkpoint_every", "contradiction",
                             "checkpoint_every applies to activation_checkpointing full");
        v = in->logits;
        if (get_enum(o, base, "logits", estimate_logits_names, &v, &present, e))
                return -1;
        in->logits = (enum est_logits)v;
        in->set |= present ? EST_SET_LOGITS : 0;
        if (json_object_get(o, "flash_attention"))
                in->set |= EST_SET_FLASH;
        if (json_object_get(o, "chunked_loss"))
                in->set |= EST_SET_CHUNKED_LOSS;
        if (json_object_get(o, "compile"))
                in->set |= EST_SET_COMPILE;
        return get_bool(o, base, "flash_attention", &in->flash_attention, e) ||
                               get_bool(o, base, "chunked_loss", &in->chunked_loss, e) ||
                               get_bool(o, base, "optimizer_in_backward",
                                        &in->optimizer_in_backward, e) ||
                               get_bool(o, base, "activation_offload", &in->activation_offload,
                                        e) ||
                               get_bool(o, base, "compile", &in->compile, e)
                       ? -1
                       : 0;
}

/* "runtime": what the framework does that changes memory or time. */
static int decode_runtime(json_t *o, struct estimate_input *in, struct fields_error *e)
{
        static const char *const keys[] = {"cuda_context_bytes",
                                           "allocator_reserve_fraction",
                                           "gradients_persist",
                                           "optimizer_per_parameter",
                                           "data_samples_per_s",
                                           "gemm_accumulation",
                                           "dequantize_to_fp16",
                                           "optimizer_implementation",
                                           "gradient_clipping",
                                           "expandable_segments",
                                           "model_output_kept",
                                           "adafactor_beta1",
                                           "attention_kernel",
                                           NULL};
        static const char *const accumulations[] = {"fp32", "fp16", NULL};
        const char *base = "/runtime";
        uint64_t ctx = 0;
        bool present;
        if (known_keys(o, base, keys, NULL, e) ||
            get_uint(o, base, "cuda_context_bytes", 0, 68719476736ull, &ctx, &present, e))
                return -1;
        if (json_object_get(o, "optimizer_per_parameter"))
                in->set |= EST_SET_OPT_PER_PARAM;
        in->cuda_context_bytes = (double)ctx;
        in->set |= present ? EST_SET_CONTEXT : 0;
        if (get_number(o, base, "allocator_reserve_fraction", 0.0, 1.0,
                       &in->allocator_reserve_fraction, &present, e))
                return -1;
        in->set |= present ? EST_SET_RESERVE : 0;
        int acc = -1;
        if (get_enum(o, base, "gemm_accumulation", accumulations, &acc, &present, e))
                return -1;
        if (present) {
                in->fp16_accumulation = acc == 1;
                in->set |= EST_SET_GEMM_ACC;
        }
        /* Naming a fused kernel says attention is fused; an eager
         * memory_savers.flash_attention false says the opposite. */
        int kernel = 0;
        if (get_enum(o, base, "attention_kernel", estimate_attention_kernel_names, &kernel,
                     &present, e))
                return -1;
        in->attention_kernel = (enum est_attention_kernel)kernel;
        if (kernel != EST_ATTN_KERNEL_AUTO) {
                if ((in->set & EST_SET_FLASH) && !in->flash_attention)
                        return dfail(e, 400, "/runtime/attention_kernel", "contradiction",
                                     "attention_kernel names a fused kernel; "
                                     "memory_savers.flash_attention is false");
                in->flash_attention = true;
                in->set |= EST_SET_FLASH;
        }
        if (json_object_get(o, "dequantize_to_fp16"))
                in->set |= EST_SET_DEQUANT_FP16;
        if (json_object_get(o, "gradient_clipping"))
                in->set |= EST_SET_GRAD_CLIP;
        if (json_object_get(o, "expandable_segments"))
                in->set |= EST_SET_EXPANDABLE;
        if (json_object_get(o, "model_output_kept"))
                in->set |= EST_SET_OUTPUT_KEPT;
        /* "foreach" / "fused" / "for_loop"; fused and for-loop steps keep
         * no foreach temporaries, unless the request says otherwise */
        int impl = 0;
        if (get_enum(o, base, "optimizer_implementation", estimate_opt_impl_names + 1, &impl,
                     &present, e))
                return -1;
        if (present) {
                in->optimizer_impl = (enum est_opt_impl)(impl + 1);
                if (!json_object_get(o, "optimizer_per_parameter")) {
                        in->optimizer_per_parameter = in->optimizer_impl != EST_OPT_IMPL_FOREACH;
                        in->set |= EST_SET_OPT_PER_PARAM;
                }
        }
        return get_bool(o, base, "gradients_persist", &in->gradients_persist, e) ||
                               get_bool(o, base, "optimizer_per_parameter",
                                        &in->optimizer_per_parameter, e) ||
                               get_bool(o, base, "dequantize_to_fp16", &in->dequantize_to_fp16,
                                        e) ||
                               get_bool(o, base, "gradient_clipping", &in->gradient_clipping, e) ||
                               get_bool(o, base, "expandable_segments", &in->expandable_segments,
                                        e) ||
                               get_bool(o, base, "model_output_kept", &in->output_kept, e) ||
                               get_bool(o, base, "adafactor_beta1", &in->adafactor_first_moment,
                                        e) ||
                               get_number(o, base, "data_samples_per_s", 1e-3, 1e12,
                                          &in->data_samples_per_s, NULL, e)
                       ? -1
                       : 0;
}

/* FSDP2's reshard_after_forward: true (the default), false, or the number
 * of ranks to reshard over; torchtitan's "always" / "never" / "default". */
static int decode_reshard(json_t *o, struct estimate_input *in, struct fields_error *e)
{
        const char *ptr = "/parallelism/fsdp_reshard_after_forward";
        json_t *v = json_object_get(o, "fsdp_reshard_after_forward");
        if (!v || json_is_null(v))
                return 0;
        if (json_is_boolean(v)) {
                in->fsdp_forward_shards = json_is_true(v) ? 0 : 1;
                return 0;
        }
        if (json_is_integer(v)) {
                json_int_t k = json_integer_value(v);
                if (k < 2 || k > EST_GPUS_MAX)
                        return dfail(e, 400, ptr, "range",
                                     "an integer reshard_after_forward is a rank count, 2..%d "
                                     "(true or false otherwise)",
                                     EST_GPUS_MAX);
                in->fsdp_forward_shards = (uint32_t)k;
                return 0;
        }
        const char *s = json_string_value(v);
        if (s && (!strcmp(s, "always") || !strcmp(s, "default"))) {
                in->fsdp_forward_shards = 0;
                return 0;
        }
        if (s && !strcmp(s, "never")) {
                in->fsdp_forward_shards = 1;
                return 0;
        }
        return dfail(e, 400, ptr, "type",
                     "fsdp_reshard_after_forward is true, false, a rank count, or torchtitan's "
                     "\"always\", \"never\", \"default\"");
}

static int decode_parallelism(json_t *o, struct estimate_input *in, struct fields_error *e)
{
        static const char *const keys[] = {"strategy",
                                           "fsdp_sharding",
                                           "gpus",
                                           "nodes",
                                           "tensor_parallel",
                                           "pipeline_parallel",
                                           "micro_batches",
                                           "sequence_parallel",
                                           "offload",
                                           "model_load",
                                           "inter_node_bytes_per_s",
                                           "fsdp_version",
                                           "fsdp_no_sync",
                                           "fsdp_use_orig_params",
                                           "fsdp_float8_all_gather",
                                           "fsdp_limit_all_gathers",
                                           "fsdp_reshard_after_forward",
                                           NULL};
        /* torchtitan's and torchao's name for fsdp_float8_all_gather */
        static const char *const aliases[] = {"enable_fsdp_float8_all_gather", NULL};
        const char *base = "/parallelism";
        int v;
        bool present, fsdp_given;
        if (known_keys(o, base, keys, aliases, e) ||
            get_bool(o, base, "fsdp_float8_all_gather", &in->float8_all_gather, e) ||
            get_bool(o, base, "enable_fsdp_float8_all_gather", &in->float8_all_gather, e))
                return -1;
        v = in->strategy;
        if (get_enum(o, base, "strategy", estimate_strategy_names, &v, &present, e))
                return -1;
        in->strategy = (enum est_strategy)v;
        in->set |= present ? EST_SET_STRATEGY : 0;
        v = in->fsdp_sharding;
        if (get_enum(o, base, "fsdp_sharding", estimate_fsdp_names, &v, &fsdp_given, e))
                return -1;
        in->fsdp_sharding = (enum est_fsdp_sharding)v;
        bool version_given;
        if (get_u32(o, base, "fsdp_version", 1, 2, &in->fsdp_version, &version_given, e))
                return -1;
        in->set |= version_given ? EST_SET_FSDP_VERSION : 0;
        /* An FSDP option with no strategy says the strategy is FSDP; with
         * another strategy it contradicts it. */
        if ((fsdp_given || version_given) && !(in->set & EST_SET_STRATEGY)) {
                in->strategy = EST_FSDP;
                in->set |= EST_SET_STRATEGY;
        }
        if (fsdp_given && in->strategy != EST_FSDP)
                return dfail(e, 400, "/parallelism/fsdp_sharding", "contradiction",
                             "fsdp_sharding applies to strategy fsdp");
        if (version_given && in->strategy != EST_FSDP)
                return dfail(e, 400, "/parallelism/fsdp_version", "contradiction",
                             "fsdp_version (1: FullyShardedDataParallel, 2: fully_shard) "
                             "applies to strategy fsdp");
        if (json_object_get(o, "sequence_parallel"))
                in->set |= EST_SET_SEQ_PARALLEL;
        if (json_object_get(o, "fsdp_use_orig_params")) {
                in->set |= EST_SET_FSDP_ORIG;
                if (get_bool(o, base, "fsdp_use_orig_params", &in->fsdp_use_orig_params, e))
                        return -1;
        }
        if (get_bool(o, base, "fsdp_limit_all_gathers", &in->fsdp_limit_all_gathers, e) ||
            decode_reshard(o, in, e))
                return -1;
        if (json_object_get(o, "fsdp_no_sync")) {
                in->set |= EST_SET_FSDP_NO_SYNC;
                if (get_bool(o, base, "fsdp_no_sync", &in->fsdp_no_sync, e))
                        return -1;
        }
        v = in->offload;
        if (get_enum(o, base, "offload", estimate_offload_names, &v, NULL, e))
                return -1;
        in->offload = (enum est_offload)v;
        v = in->model_load;
        if (get_enum(o, base, "model_load", estimate_model_load_names, &v, NULL, e))
                return -1;
        in->model_load = (enum est_model_load)v;
        if (get_u32(o, base, "gpus", 1, EST_GPUS_MAX, &in->gpus, &present, e) ||
            get_u32(o, base, "nodes", 1, EST_GPUS_MAX, &in->nodes, NULL, e) ||
            get_u32(o, base, "tensor_parallel", 1, 1024, &in->tensor_parallel, NULL, e) ||
            get_u32(o, base, "pipeline_parallel", 1, 1024, &in->pipeline_parallel, NULL, e) ||
            get_u32(o, base, "micro_batches", 1, 1048576, &in->micro_batches, NULL, e) ||
            get_bool(o, base, "sequence_parallel", &in->sequence_parallel, e) ||
            get_number(o, base, "inter_node_bytes_per_s", 1e6, 1e13, &in->inter_node_bytes_per_s,
                       NULL, e))
                return -1;
        /* Unstated GPU count: what the layout needs. */
        if (!present)
                in->gpus = in->tensor_parallel * in->pipeline_parallel * in->nodes;
        if (in->pipeline_parallel > 1 && in->micro_batches == 0)
                in->micro_batches =
                        in->batch_size < in->pipeline_parallel ? 1 : in->pipeline_parallel;
        if (in->pipeline_parallel > 1 && in->micro_batches > 1 &&
            in->batch_size % in->micro_batches && !json_object_get(o, "micro_batches"))
                in->micro_batches = 1;
        return 0;
}

/* framework_version: the release a run used, "YYYY-MM" or "YYYY-MM-DD";
 * presets whose behaviour changed follow it. */
static int decode_framework_version(json_t *body, struct estimate_input *in, struct fields_error *e)
{
        json_t *v = json_object_get(body, "framework_version");
        unsigned y = 0, m = 0, d = 1;
        int used = 0;
        if (!v || json_is_null(v))
                return 0;
        const char *s = json_string_value(v);
        size_t len = s ? strlen(s) : 0;
        if (!s || (len != 7 && len != 10) ||
            (len == 7 && (sscanf(s, "%4u-%2u%n", &y, &m, &used) != 2 || used != 7)) ||
            (len == 10 && (sscanf(s, "%4u-%2u-%2u%n", &y, &m, &d, &used) != 3 || used != 10)) ||
            y < 2015 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31)
                return dfail(e, 400, "/framework_version", "format",
                             "framework_version must be a release date, \"YYYY-MM\" or "
                             "\"YYYY-MM-DD\"");
        in->framework_release = y * 100 + m;
        return 0;
}

/* The GPU as run: a power cap, a memory variant, the node's DRAM. */
static int decode_gpu_settings(json_t *o, struct estimate_input *in, struct fields_error *e)
{
        static const char *const keys[] = {"power_limit_watts", "memory_bandwidth_bytes_per_s",
                                           "host_memory_bytes_per_s", NULL};
        const char *base = "/gpu_settings";
        return known_keys(o, base, keys, NULL, e) ||
                               get_number(o, base, "power_limit_watts", 10, 5000,
                                          &in->power_limit_watts, NULL, e) ||
                               get_number(o, base, "memory_bandwidth_bytes_per_s", 1e9, 1e14,
                                          &in->memory_bandwidth_bytes_per_s, NULL, e) ||
                               get_number(o, base, "host_memory_bytes_per_s", 1e9, 1e13,
                                          &in->host_memory_bytes_per_s, NULL, e)
                       ? -1
                       : 0;
}

/* Interruptions and checkpoints of a long training run. */
static int decode_goodput(json_t *o, struct estimate_input *in, struct fields_error *e)
{
        static const char *const keys[] = {"failures_per_gpu_hour", "checkpoint_write_bytes_per_s",
                                           "restart_seconds",       "checkpoint_interval_s",
                                           "checkpoint_async",      NULL};
        const char *base = "/goodput";
        if (known_keys(o, base, keys, NULL, e) ||
            get_number(o, base, "failures_per_gpu_hour", 1e-9, 1, &in->failures_per_gpu_hour, NULL,
                       e) ||
            get_number(o, base, "checkpoint_write_bytes_per_s", 1e6, 1e15,
                       &in->checkpoint_write_bytes_per_s, NULL, e) ||
            get_number(o, base, "restart_seconds", 1, 1e6, &in->restart_seconds, NULL, e) ||
            get_number(o, base, "checkpoint_interval_s", 1, 1e8, &in->checkpoint_interval_s, NULL,
                       e) ||
            get_bool(o, base, "checkpoint_async", &in->checkpoint_async, e))
                return -1;
        if (in->mode == EST_INFERENCE)
                return dfail(e, 400, "/goodput", "contradiction",
                             "goodput settings apply to training");
        return 0;
}

int estimate_decode_request(json_t *body, const struct catalog_snapshot *snap,
                            const char *const *extra_keys, struct estimate_input *in,
                            struct fields_error *e)
{
        static const char *const keys[] = {"model",
                                           "workload",
                                           "precision",
                                           "quantization",
                                           "quantization_group_size",
                                           "double_quantization",
                                           "kv_cache_precision",
                                           "optimizer",
                                           "memory_savers",
                                           "parallelism",
                                           "gpu",
                                           "mfu",
                                           "serving",
                                           "runtime",
                                           "framework",
                                           "gpu_settings",
                                           "goodput",
                                           "framework_version",
                                           NULL};
        json_t *o;
        int v;
        bool present;

        memset(e, 0, sizeof(*e));
        estimate_input_defaults(in);
        if (!json_is_object(body))
                return dfail(e, 400, "", "type", "the request body must be a JSON object");
        if (api_aliases_apply(body, e))
                return -1;
        if (known_keys(body, "", keys, extra_keys, e))
                return -1;
        if (decode_model(json_object_get(body, "model"), snap, in, e))
                return -1;
        if (get_object(body, "", "workload", &o, e) || decode_workload(o, in, e))
                return -1;

        v = in->precision;
        if (get_enum(body, "", "precision", estimate_precision_names, &v, &present, e))
                return -1;
        in->precision = (enum est_precision)v;
        in->set |= present ? EST_SET_PRECISION : 0;
        v = in->quantization;
        if (get_enum(body, "", "quantization", estimate_quant_names, &v, NULL, e))
                return -1;
        in->quantization = (enum est_quant)v;
        if (get_u32(body, "", "quantization_group_size", 16, 65536, &in->quant_group_size, &present,
                    e) ||
            get_bool(body, "", "double_quantization", &in->double_quant, e))
                return -1;
        if (present && in->quantization != EST_QUANT_INT4)
                return dfail(e, 400, "/quantization_group_size", "contradiction",
                             "a group size applies to int4 quantization");
        v = in->kv_dtype;
        if (get_enum(body, "", "kv_cache_precision", estimate_kv_dtype_names, &v, &present, e))
                return -1;
        in->kv_dtype = (enum est_kv_dtype)v;
        in->set |= present ? EST_SET_KV_DTYPE : 0;
        v = in->optimizer;
        if (get_enum(body, "", "optimizer", estimate_optimizer_names, &v, &present, e))
                return -1;
        in->optimizer = (enum est_optimizer)v;
        in->set |= present ? EST_SET_OPTIMIZER : 0;
        v = in->framework;
        if (get_enum(body, "", "framework", estimate_framework_names, &v, NULL, e))
                return -1;
        in->framework = (enum est_framework)v;
        if (decode_framework_version(body, in, e))
                return -1;
        if (get_object(body, "", "memory_savers", &o, e) ||
            (o && decode_savers(o, in, in->framework == EST_FW_TORCHTITAN, e)))
                return -1;
        if (get_object(body, "", "parallelism", &o, e) || (o && decode_parallelism(o, in, e)))
                return -1;
        if (get_object(body, "", "runtime", &o, e) || (o && decode_runtime(o, in, e)))
                return -1;
        if (get_number(body, "", "mfu", 0.001, 1.0, &in->mfu, &present, e))
                return -1;
        in->set |= present ? EST_SET_MFU : 0;
        if (get_object(body, "", "gpu_settings", &o, e) || (o && decode_gpu_settings(o, in, e)))
                return -1;
        if (get_object(body, "", "goodput", &o, e) || (o && decode_goodput(o, in, e)))
                return -1;
        if (get_object(body, "", "serving", &o, e))
                return -1;
        if (o) {
                static const char *const sk[] = {"gpu_memory_utilization", NULL};
                if (known_keys(o, "/serving", sk, NULL, e) ||
                    get_number(o, "/serving", "gpu_memory_utilization", 0.05, 1.0,
                               &in->gpu_memory_utilization, NULL, e))
                        return -1;
                if (in->mode != EST_INFERENCE)
                        return dfail(e, 400, "/serving", "contradiction",
                                     "serving settings apply to inference");
        }
        json_t *g = json_object_get(body, "gpu");
        if (g && !json_is_null(g)) {
                if (!json_is_string(g))
                        return dfail(e, 400, "/gpu", "type", "gpu must be a catalog GPU id");
                if (!snap)
                        return dfail(e, 503, "/gpu", "unavailable",
                                     "the GPU catalog is not loaded yet; retry");
                size_t idx = catalog_gpu_index(snap, json_string_value(g));
                if (idx == SIZE_MAX)
                        return dfail(e, 400, "/gpu", "exists",
                                     "no catalog GPU \"%.80s\" (GET /api/v1/gpus)",
                                     json_string_value(g));
                if (idx >= EST_FITS_MAX)
                        return dfail(e, 400, "/gpu", "range",
                                     "the catalog is larger than the engine's table");
                in->gpu_index = (int)idx;
                in->attention_cudnn = sm100_part(json_string_value(g));
        }

        /* The framework's defaults for whatever the request left unset. */
        estimate_apply_framework(in);

        /* Whole-request rules the engine checks, mapped to this request's pointers. */
        struct estimate_error ee;
        struct estimate_input probe = *in;
        probe.gpu_index = -1;
        if (estimate_memory_bytes(&probe, &ee) == 0)
                return dfail(e, 400, ee.pointer, ee.rule, "%s", ee.detail);
        return 0;
}
