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

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* n bytes of JSON text written as they are, after a comma if one is due,
 * and the writer then stands as after a value: a part of a document made
 * once with a writer of its own and kept (it may open an object and end
 * after a member, which the caller continues and closes). */
void jsonw_raw(struct jsonw *w, const char *text, size_t n);

/* An object member's name, escaped as a string is; the next call writes
 * its value.  For names known only at run time (and the shorthands' slow
 * path). */
void jsonw_key(struct jsonw *w, const char *key);

/*
 * Member shorthands: the member's name, then its value.  name must be a
 * string literal: the macro joins it into the text "name": when the
 * program is compiled, so writing the name is one copy of a length known
 * then (an estimate writes some 500 names).  It must need no escaping (no
 * '"', '\\', control character or byte above 0x7F), as no member name of
 * the API does; builds without NDEBUG check it.  A name that is not a
 * literal does not compile here: write it with jsonw_key().  The macros
 * evaluate w twice: pass a plain pointer.
 */
#define jsonw_kstring(w, name, s) (jsonw_name((w), JSONW_NAME(name)), jsonw_string((w), (s)))
#define jsonw_kint(w, name, v)    (jsonw_name((w), JSONW_NAME(name)), jsonw_int((w), (v)))
#define jsonw_ku64(w, name, v)    (jsonw_name((w), JSONW_NAME(name)), jsonw_u64((w), (v)))
#define jsonw_kreal(w, name, v)   (jsonw_name((w), JSONW_NAME(name)), jsonw_real((w), (v)))
#define jsonw_kbool(w, name, v)   (jsonw_name((w), JSONW_NAME(name)), jsonw_bool((w), (v)))
#define jsonw_knull(w, name)      (jsonw_name((w), JSONW_NAME(name)), jsonw_null(w))

/* An unsigned count as an integer, clamped to INT64_MAX (jansson's
 * json_int_t is signed, and the encoders before this writer clamped). */
void jsonw_u64(struct jsonw *w, uint64_t v);

/* The quoted name and colon of a literal, and their length. */
#define JSONW_NAME(name) "\"" name "\":", sizeof("\"" name "\":") - 1

/* True when the n bytes of a JSONW_NAME() text need no escaping inside its
 * quotes (what jsonw_name() asserts). */
bool jsonw_name_plain(const char *text, size_t n);

/* jsonw_name()'s path when the buffer must grow (or the writer failed). */
void jsonw_name_slow(struct jsonw *w, const char *text, size_t n);

/* Writes [,]"name": from a JSONW_NAME() text of n bytes; inline so that
 * the copy has a length the compiler knows. */
static inline void jsonw_name(struct jsonw *w, const char *text, size_t n)
{
        assert(jsonw_name_plain(text, n));
        if (n < w->cap - w->len) { /* n bytes and a comma (a failed writer has cap == len) */
                char *p = w->buf + w->len;
                *p = ',';
                p += w->need_comma;
                memcpy(p, text, n);
                w->len = (size_t)(p + n - w->buf);
                w->need_comma = false;
                return;
        }
        jsonw_name_slow(w, text, n);
}

/*
 * The text written (NUL-terminated; *len_out its length without the NUL),
 * now the caller's to free.  NULL when the writer failed; either way the
 * writer is left empty.
 */
char *jsonw_finish(struct jsonw *w, size_t *len_out);

/* Free the buffer without using it. */
void jsonw_discard(struct jsonw *w);

#endif
