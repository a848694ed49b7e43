/*
 * fields.c - strict readers for the fields of a JSON object, each failure
 * an error record; see fields.h.
 */
#include "json/fields.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/text.h"

/* A 400 for prefix/key. */
static void field_error(struct fields_error *err, const char *prefix, const char *key,
                        const char *rule, const char *detail)
{
        char pointer[sizeof(err->pointer)];

        snprintf(pointer, sizeof(pointer), "%s/%s", prefix, key);
        field_error_fail(err, 400, pointer, rule, "%s", detail);
}

/*
 * The value for key, or NULL when absent or an allowed null; sets *fail
 * (and err) when a required field is missing.
 */
static json_t *field_get(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                         unsigned flags, int *fail)
{
        json_t *v = json_object_get(obj, key);
        char detail[160];

        *fail = 0;
        if (v && !json_is_null(v))
                return v;
        if (v && json_is_null(v) && !(flags & FIELD_NULLABLE)) {
                snprintf(detail, sizeof(detail), "%s may not be null", key);
                field_error(err, prefix, key, "type", detail);
                *fail = 1;
        } else if (flags & FIELD_REQUIRED) {
                snprintf(detail, sizeof(detail), "%s is required", key);
                field_error(err, prefix, key, "required", detail);
                *fail = 1;
        }
        return NULL;
}

int fields_read_string(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, size_t max_len, const char **out)
{
        int fail;
        json_t *v = field_get(err, obj, prefix, key, flags, &fail);
        char detail[160];

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_string(v)) {
                snprintf(detail, sizeof(detail), "%s must be a string", key);
                field_error(err, prefix, key, "type", detail);
                return -1;
        }
        /* characters, not bytes (json/text.h); jansson strings are UTF-8 */
        long chars = text_chars(json_string_value(v), json_string_length(v));
        if (chars < 0) {
                snprintf(detail, sizeof(detail), "%s may not hold a NUL", key);
                field_error(err, prefix, key, "encoding", detail);
                return -1;
        }
        if ((size_t)chars > max_len) {
                snprintf(detail, sizeof(detail), "%s must be at most %zu characters", key, max_len);
                field_error(err, prefix, key, "maxLength", detail);
                return -1;
        }
        if ((flags & FIELD_REQUIRED) && json_string_length(v) == 0) {
                snprintf(detail, sizeof(detail), "%s may not be empty", key);
                field_error(err, prefix, key, "minLength", detail);
                return -1;
        }
        *out = json_string_value(v);
        return 0;
}

int fields_read_number(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, double min, double max, double *out)
{
        int fail;
        json_t *v = field_get(err, obj, prefix, key, flags, &fail);
        char detail[200];
        double d;

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_number(v)) {
                snprintf(detail, sizeof(detail), "%s must be a number", key);
                field_error(err, prefix, key, "type", detail);
                return -1;
        }
        d = json_number_value(v);
        if (!isfinite(d) || d < min || d > max) {
                snprintf(detail, sizeof(detail), "%s must be between %g and %g", key, min, max);
                field_error(err, prefix, key, "range", detail);
                return -1;
        }
        *out = d;
        return 0;
}

/* The value at key when it has JSON type type: 1 with *out set, 0 when
 * absent (or an allowed null), -1 with err filled ("key must be <must>"). */
static int field_typed(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, json_type type, const char *must, json_t **out)
{
        int fail;
        json_t *v = field_get(err, obj, prefix, key, flags, &fail);
        char detail[160];

        if (!v)
                return fail ? -1 : 0;
        if (json_typeof(v) != type) {
                snprintf(detail, sizeof(detail), "%s must be %s", key, must);
                field_error(err, prefix, key, "type", detail);
                return -1;
        }
        *out = v;
        return 1;
}

/*
 * The integer at key in [min, max], as field_typed() answers; the range
 * problem reads "key must be between min and max", or "key must be
 * min..max" when dots.
 */
static int field_integer(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                         unsigned flags, int64_t min, int64_t max, bool dots, int64_t *out)
{
        json_t *v = NULL;
        char detail[200];
        int rc = field_typed(err, obj, prefix, key, flags, JSON_INTEGER, "an integer", &v);
        json_int_t i;

        if (rc <= 0)
                return rc;
        i = json_integer_value(v);
        if (i >= min && i <= max) {
                *out = (int64_t)i;
                return 1;
        }
        if (dots)
                snprintf(detail, sizeof(detail), "%s must be %lld..%lld", key, (long long)min,
                         (long long)max);
        else
                snprintf(detail, sizeof(detail), "%s must be between %lld and %lld", key,
                         (long long)min, (long long)max);
        field_error(err, prefix, key, "range", detail);
        return -1;
}

int fields_read_int(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                    unsigned flags, int64_t min, int64_t max, int64_t *out)
{
        return field_integer(err, obj, prefix, key, flags, min, max, false, out) < 0 ? -1 : 0;
}

int fields_read_uint(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, uint64_t min, uint64_t max, uint64_t *out)
{
        /* jansson integers are int64: bounds above INT64_MAX read as INT64_MAX */
        int64_t lo = min > INT64_MAX ? INT64_MAX : (int64_t)min;
        int64_t hi = max > INT64_MAX ? INT64_MAX : (int64_t)max;
        int64_t i = 0;
        int rc = field_integer(err, obj, prefix, key, flags, lo, hi, true, &i);

        if (rc > 0)
                *out = (uint64_t)i;
        return rc < 0 ? -1 : 0;
}

int fields_read_bool(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, bool *out)
{
        int fail;
        json_t *v = field_get(err, obj, prefix, key, flags, &fail);
        char detail[160];

        if (!v)
                return fail ? -1 : 0;
        if (!json_is_boolean(v)) {
                snprintf(detail, sizeof(detail), "%s must be true or false", key);
                field_error(err, prefix, key, "type", detail);
                return -1;
        }
        *out = json_is_true(v);
        return 0;
}

bool fields_is_date(const char *s)
{
        static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int y, m, d;

        if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
                return false;
        for (int i = 0; i < 10; i++)
                if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
                        return false;
        y = atoi(s);
        m = atoi(s + 5);
        d = atoi(s + 8);
        if (y < 1900 || m < 1 || m > 12 || d < 1 || d > days[m - 1])
                return false;
        /* 29 February only in leap years (Gregorian rule). */
        if (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
                return false;
        return true;
}

int fields_read_date(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                     unsigned flags, const char **out)
{
        const char *v = NULL;
        char detail[160];

        if (fields_read_string(err, obj, prefix, key, flags, 10, &v))
                return -1;
        if (!v)
                return 0;
        if (!fields_is_date(v)) {
                snprintf(detail, sizeof(detail), "%s must be a date, YYYY-MM-DD", key);
                field_error(err, prefix, key, "format", detail);
                return -1;
        }
        *out = v;
        return 0;
}

int fields_read_known(struct fields_error *err, json_t *obj, const char *prefix,
                      const char *const *allowed)
{
        const char *key;
        json_t *v;
        char detail[200];

        json_object_foreach(obj, key, v)
        {
                size_t i;

                for (i = 0; allowed[i]; i++)
                        if (strcmp(key, allowed[i]) == 0)
                                break;
                if (!allowed[i]) {
                        snprintf(detail, sizeof(detail), "unknown field \"%.100s\"", key);
                        field_error(err, prefix, key, "unknown", detail);
                        return -1;
                }
        }
        return 0;
}

bool fields_is_id(const char *s, size_t max_len)
{
        size_t n = s ? strlen(s) : 0;

        if (n < 1 || n > max_len)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                          (i > 0 && (c == '.' || c == '_' || c == '-'));

                if (!ok)
                        return false;
        }
        return true;
}

int fields_read_object(struct fields_error *err, json_t *obj, const char *prefix, const char *key,
                       unsigned flags, json_t **out)
{
        return field_typed(err, obj, prefix, key, flags, JSON_OBJECT, "an object", out) < 0 ? -1
                                                                                            : 0;
}
