/*
 * field_error.h - the record of a request field that broke a rule: its
 * JSON pointer as the user wrote it, the rule, a sentence naming both, and
 * the HTTP status to answer with.  The JSON readers (json/fields.h) and the
 * plan searches, which check parsed structs and never see JSON, fill it;
 * api/ turns it into an RFC 9457 problem document.  Nothing here touches
 * jansson, so every layer above core/ may use it.
 *
 * Memory: fixed-size strings inside the record; nothing is allocated.
 * Thread-safety: reentrant.
 */
#ifndef GPUPLAN_JSON_FIELD_ERROR_H
#define GPUPLAN_JSON_FIELD_ERROR_H

struct fields_error {
        char pointer[160]; /* RFC 6901 pointer, "/workload/batch_size" */
        char rule[48];     /* "type", "range", "enum", "unknown_field", "required", ... */
        char detail[1024]; /* room to list the valid names */
        int status;        /* 400, or 404 for an unknown catalog model/GPU id */
};

/* Fill err (status, pointer, rule, printf-style detail); returns -1. */
__attribute__((format(printf, 5, 6))) int field_error_fail(struct fields_error *err, int status,
                                                           const char *pointer, const char *rule,
                                                           const char *fmt, ...);

#endif
