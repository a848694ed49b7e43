/*
 * jsonw.h - a small JSON writer that appends compact text to one buffer.
 *
 * The estimate response is built on every request.  Building it as a
 * jansson tree and dumping it cost one allocation per value (several
 * hundred per response) plus jansson's dump machinery, and that was most
 * of the request's CPU time.  This writer emits the same text jansson's
 * json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(15)) emits for the
 * same values in the same order: strings escaped as jansson escapes them
 * (", \ and control characters; "/" and non-ASCII left as they are),
 * integers in decimal, reals with 15 significant digits and a ".0" when
 * the digits alone would read as an integer.  It does not check that the
 * calls nest properly: the caller writes a fixed shape.
 *
 * Memory: the buffer is malloc'd and grows by doubling up to a hard cap
 * given to jsonw_init(); going past the cap, or running out of memory,
 * marks the writer failed (every later call is a no-op) rather than
 * truncating.  jsonw_finish() hands the buffer to the caller (who frees
 * it); jsonw_discard() frees it.  A writer is one caller's: not shared
 * between threads.
 */
#ifndef GPUPLAN_API_JSONW_H
#define GPUPLAN_API_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jsonw {
        char *buf;
        size_t len;
        size_t cap;
        size_t max_bytes; /* hard cap on len */
        bool need_comma;  /* a value was just written at this level */
        bool failed;      /* out of memory or over max_bytes */
};

/* Start an empty document with initial_bytes reserved (at most max_bytes). */
void jsonw_init(struct jsonw *w, size_t initial_bytes, size_t max_bytes);

/* Values (inside an array, or after jsonw_key). */
void jsonw_object_begin(struct jsonw *w);
void jsonw_object_end(struct jsonw *w);
void jsonw_array_begin(struct jsonw *w);
void jsonw_array_end(struct jsonw *w);
void jsonw_string(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_real(struct jsonw *w, double v); /* not finite writes null */
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);

/* An object member's name; the next call writes its value. */
void jsonw_key(struct jsonw *w, const char *key);

/* Member shorthands: jsonw_key then the value. */
void jsonw_kstring(struct jsonw *w, const char *key, const char *s);
void jsonw_kint(struct jsonw *w, const char *key, int64_t v);
void jsonw_ku64(struct jsonw *w, const char *key, uint64_t v); /* clamped to INT64_MAX */
void jsonw_kreal(struct jsonw *w, const char *key, double v);
void jsonw_kbool(struct jsonw *w, const char *key, bool v);
void jsonw_knull(struct jsonw *w, const char *key);

/*
 * The text written (NUL-terminated; *len_out its length without the NUL),
 * now the caller's to free.  NULL when the writer failed; either way the
 * writer is left empty.
 */
char *jsonw_finish(struct jsonw *w, size_t *len_out);

/* Free the buffer without using it. */
void jsonw_discard(struct jsonw *w);

#endif
