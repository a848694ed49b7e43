/*
 * text.h - the one rule every endpoint applies to text from a request:
 * it is well-formed UTF-8 without NUL, and its length is counted in
 * characters (Unicode code points, as JSON Schema's maxLength counts
 * them), so 100 "é" are 100 characters, not 200.
 *
 * Memory: nothing allocated.  Thread-safety: pure functions.
 */
#ifndef GPUPLAN_JSON_TEXT_H
#define GPUPLAN_JSON_TEXT_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629 section 4: no
 * overlong forms, no surrogates, nothing above U+10FFFF), at most left
 * bytes long; 0 when there is none. */
size_t text_utf8_sequence(const unsigned char *s, size_t left);

/* Characters in the n bytes at s, or -1 when they hold a NUL or are not
 * well-formed UTF-8. */
long text_chars(const char *s, size_t n);

#endif
