/*
 * errbuf.h - the one-line error buffers of start-up code.
 *
 * Functions that can fail at start (configuration, migrations) take a
 * caller's char buffer and its size and write a lowercase, one-line reason
 * there.  errbuf_set() formats into it (truncating to errlen) and returns
 * -1, so a failure reads "return errbuf_set(err, errlen, ...);".  No
 * allocation; thread-safe as long as the buffer is the caller's own.
 */
#ifndef GPUPLAN_ERRBUF_H
#define GPUPLAN_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4)))
static inline int errbuf_set(char *err, size_t errlen, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return -1;
}

#endif
