/*
 * fields.h - strict readers for the fields of a JSON object, shared by
 * every layer that reads JSON: the config.json importer (models/), the
 * estimate decoder, the catalog writes and the plan requests (api/).
 *
 * A reader that fails fills an error record (struct fields_error: the
 * JSON pointer of the field as the user wrote it, the rule it broke, a
 * sentence naming it, and a status) and returns -1; turning the record
 * into a problem document is the caller's (api/fields.h), so a decoder can
 * stop, add context and pass the record up.
 *
 * Memory: string pointers returned borrow from the JSON object they came
 * from; nothing is allocated.  Thread-safety: reentrant.
 */
#ifndef GPUPLAN_JSON_FIELDS_H
#define GPUPLAN_JSON_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "json/field_error.h"

#define FIELD_REQUIRED 0x1u /* absent or null is an error */
#define FIELD_NULLABLE 0x2u /* null is accepted and means "unknown" */

/*
 * Each reader looks up key in obj; prefix is the JSON pointer of obj ("" at
 * the top).  Absent (or null, when allowed) leaves *out unchanged and
 * returns 0.  A wrong type, an out-of-range value or a missing required
 * field fills err, naming the field, and returns -1.
 */
int fields_read_string(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, size_t max_len, const char **out);
int fields_read_number(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, double min, double max, double *out);
int fields_read_int(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                    unsigned flags, int64_t min, int64_t max, int64_t *out);
/* A non-negative integer in [min, max] ("must be min..max"). */
int fields_read_uint(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, uint64_t min, uint64_t max, uint64_t *out);
int fields_read_bool(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, bool *out);
/* A JSON object; *out borrows from obj. */
int fields_read_object(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, json_t **out);
/* A "YYYY-MM-DD" calendar date. */
int fields_read_date(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, const char **out);
/* Fills err naming the first key of obj not in allowed (NULL-terminated); 0 if none. */
int fields_read_known(struct fields_error *err, json_t *obj, const char *prefix,
                      const char *const *allowed);

/* True for a "YYYY-MM-DD" string with a valid month and day. */
bool fields_is_date(const char *s);
/* True for an id matching ^[a-z0-9][a-z0-9._-]{0,max_len-1}$. */
bool fields_is_id(const char *s, size_t max_len);

#endif
