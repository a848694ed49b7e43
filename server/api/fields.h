/*
 * fields.h - strict readers for the fields of a JSON request body (the
 * estimate decoder, the catalog writes and the plan requests).
 *
 * The fields_read_* readers fill an error record (struct fields_error:
 * JSON pointer, rule, detail, status) and leave turning it into a problem
 * document to the caller, so a decoder can stop, add context and pass the
 * record up.  The fields_string()/fields_int()/... forms call the same
 * readers and answer rs with a 400 at once, for handlers that need no
 * more than that.
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

/* Where a request went wrong: the three strings a problem document carries. */
struct fields_error {
        char pointer[160]; /* RFC 6901 pointer, "/workload/batch_size" */
        char rule[48];     /* "type", "range", "enum", "unknown_field", "required", ... */
        char detail[1024]; /* room to list the valid names */
        int status;        /* 400, or 404 for an unknown catalog model/GPU id */
};

/* Fill err (status, pointer, rule, printf-style detail); returns -1. */
__attribute__((format(printf, 5, 6))) int fields_fail(struct fields_error *err, int status,
                                                      const char *pointer, const char *rule,
                                                      const char *fmt, ...);

/* Answer rs with err's problem document (status 400 when err->status is 0). */
void fields_problem(struct api_response *rs, const struct fields_error *err);

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

/*
 * Each reader looks up key in obj; prefix is the JSON pointer of obj ("" at
 * the top).  Absent (or null, when allowed) leaves *out unchanged and
 * returns 0.  A wrong type, an out-of-range value or a missing required
 * field fills rs with a 400 naming the field and returns -1: the readers
 * above, answering at once.
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
