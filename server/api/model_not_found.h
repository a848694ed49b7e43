/*
 * model_not_found.h - the 404 detail for a model id the catalog lacks: the
 * id, a hint when its repository name reads as a quantized copy of a
 * catalog model (-bnb-4bit, -GPTQ, -AWQ, -FP8), and the closest catalog
 * models with a Hub id each.
 *
 * Memory: writes into the caller's buffer.  Thread-safety: a pure function
 * of an acquired snapshot.
 */
#ifndef GPUPLAN_API_MODEL_NOT_FOUND_H
#define GPUPLAN_API_MODEL_NOT_FOUND_H

#include <stddef.h>

#include "catalog/catalog.h"

/*
 * The 404 detail for a model id the catalog lacks: names the id and the
 * closest catalog models (catalog_model_suggest) with a Hub id each, into
 * buf (always NUL-terminated).  Returns buf.
 */
const char *api_model_not_found(const struct catalog_snapshot *s, const char *id, char *buf,
                                size_t len);

#endif
