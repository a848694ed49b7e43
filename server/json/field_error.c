/*
 * field_error.c - filling the error record of a field; see field_error.h.
 */
#include "json/field_error.h"

#include <stdarg.h>
#include <stdio.h>

int field_error_fail(struct fields_error *err, int status, const char *pointer, const char *rule,
                     const char *fmt, ...)
{
        va_list ap;

        err->status = status;
        snprintf(err->pointer, sizeof(err->pointer), "%s", pointer);
        snprintf(err->rule, sizeof(err->rule), "%s", rule);
        va_start(ap, fmt);
        vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
        va_end(ap);
        return -1;
}
