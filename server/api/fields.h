/*
 * fields.h - the field readers of json/fields.h for handlers: the
 * fields_string()/fields_int()/... forms call the same readers and answer
 * rs with a 400 at once, for handlers that need no more than that, and
 * fields_problem() turns an error record into the response's problem
 * document.
 *
 * Memory: string pointers returned borrow from the JSON object they came
 * from.  Thread-safety: reentrant.
 */
#ifndef GPUPLAN_API_FIELDS_H
#define GPUPLAN_API_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "api/handler.h"
#include "json/fields.h"

/* Answer rs with err's problem document (status 400 when err->status is 0). */
void fields_problem(struct api_response *rs, const struct fields_error *err);

/*
 * Each reader looks up key in obj; prefix is the JSON pointer of obj ("" at
 * the top).  Absent (or null, when allowed) leaves *out unchanged and
 * returns 0.  A wrong type, an out-of-range value or a missing required
 * field fills rs with a 400 naming the field and returns -1: the
 * fields_read_* readers, answering at once.
 */
int fields_string(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                  unsigned flags, size_t max_len, const char **out);
int fields_number(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                  unsigned flags, double min, double max, double *out);
int fields_int(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
               unsigned flags, int64_t min, int64_t max, int64_t *out);
int fields_bool(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                unsigned flags, bool *out);
/* A "YYYY-MM-DD" calendar date. */
int fields_date(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                unsigned flags, const char **out);

/* 400 naming the first key of obj not in allowed (NULL-terminated); 0 if none. */
int fields_known(struct api_response *rs, json_t *obj, const char *prefix,
                 const char *const *allowed);

#endif
