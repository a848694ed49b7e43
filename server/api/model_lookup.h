/*
 * model_lookup.h - a request's model id that the catalog lacks, looked up
 * on the Hub (db/resolve.h) and turned into the config.json the
 * estimate decoder reads, with what was read reported in the answer.
 *
 * api_model_lookup() runs before a request body is decoded: when
 * body.model.id names a Hub repository the catalog does not know, it
 * replaces {"id", "revision"} by {"hf_config": the fetched config.json},
 * sets the checkpoint's quantization from its quantization_config when the
 * request names none, and remembers the source.  On an event-loop thread a
 * model not yet in memory answers API_STATUS_WAIT (the transport runs the
 * handler again where it may wait).
 *
 * Memory: struct api_model_source owns copies of the fetched strings;
 * api_model_lookup_free() frees them.  Thread-safety: reentrant.
 */
#ifndef GPUPLAN_API_MODEL_LOOKUP_H
#define GPUPLAN_API_MODEL_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "api/handler.h"
#include "models/fetched.h"

struct catalog_snapshot;
struct estimate_input;
struct fields_error;

struct api_model_source {
        bool hub;                   /* the model was read from the Hub (or its stored copy) */
        bool quantization_set;      /* quantization came from quantization_config */
        char quant_format[32];      /* "GPTQ 4-bit", "AWQ 4-bit", "bitsandbytes 4-bit", "MXFP4" */
        uint64_t config_parameters; /* counted from the config.json alone */
        struct fetched_entry entry; /* when hub */
};

/*
 * 0: go on decoding body (rewritten when the model came from the Hub);
 * API_STATUS_WAIT: run again with rq->may_block; -1: rs holds the problem.
 */
int api_model_lookup(const struct api_request *rq, const struct catalog_snapshot *snap,
                     json_t *body, struct api_model_source *src, struct api_response *rs);

/*
 * The estimate answer text with model.source and the notes on where the
 * parameter count came from added.  Returns new malloc'd text (freeing
 * text) with its length in *len, or text unchanged when src is not a Hub
 * model or on allocation failure.
 */
char *api_model_lookup_annotate(char *text, size_t *len, const struct api_model_source *src,
                                const struct estimate_input *in);

/* After decoding: note the config's own count, and make the estimate count
 * the safetensors total when the Hub gave one above it. */
void api_model_lookup_apply(struct api_model_source *src, struct estimate_input *in);

/* A decoding failure inside a Hub model's config.json as a 422 naming the
 * key and the repository (pointer /model/id); other failures unchanged. */
void api_model_lookup_problem(const struct api_model_source *src, struct fields_error *e);

void api_model_lookup_free(struct api_model_source *src);

/* GET /api/v1/hub/{org}/{name}: a Hub model as an estimate would read it. */
void api_model_lookup_hub_get(const struct api_request *rq, struct api_response *rs);

/*
 * Map a config.json quantization_config to the request's "quantization"
 * name and group size (0 = the default): GPTQ, AWQ, bitsandbytes 4/8-bit,
 * fp8, compressed-tensors, MXFP4.  Returns 0 and fills format (a readable
 * name), or -1 when there is none or it is not understood.
 */
int api_model_lookup_quantization(json_t *config, const char **quantization, unsigned *group_size,
                                  char *format, size_t formatlen);

#endif
