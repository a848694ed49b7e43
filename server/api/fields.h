/*
 * fields.h - strict readers for the fields of a JSON request body (the
 * catalog writes and the plan requests): each names the field by its JSON
 * pointer and the rule it broke in a 400 problem document.
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

#define FIELD_REQUIRED 0x1u /* absent or null is an error */
#define FIELD_NULLABLE 0x2u /* null is accepted and means "unknown" */

/*
 * Each reader looks up key in obj; prefix is the JSON pointer of obj ("" at
 * the top).  Absent (or null, when allowed) leaves *out unchanged and
 * returns 0.  A wrong type, an out-of-range value or a missing required
 * field fills rs with a 400 naming the field and returns -1.
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

/* True for a "YYYY-MM-DD" string with a valid month and day. */
bool fields_is_date(const char *s);
/* True for an id matching ^[a-z0-9][a-z0-9._-]{0,max_len-1}$. */
bool fields_is_id(const char *s, size_t max_len);

#endif
