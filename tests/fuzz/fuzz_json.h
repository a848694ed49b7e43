/*
 * fuzz_json.h - build JSON request objects from fuzz bytes, guided by a
 * schema, for harnesses whose code under test sits behind jansson.
 *
 * Debian's libjansson is not built with coverage instrumentation, so a
 * harness that feeds raw bytes to json_loadb() gives libFuzzer nothing to
 * learn from.  Instead the harness describes the request's real keys in a
 * table of struct fz_field and lets the bytes choose which keys appear and
 * which values they get: mostly a value of the right type (boundary
 * integers, huge and tiny reals, every enum name), sometimes a value of
 * the wrong type, an unknown key, or an empty or nested container.  What
 * the decoder and engine do with it is instrumented and guides the fuzzer.
 *
 * Memory: every builder returns a new jansson reference (or NULL), owned
 * by the caller.  Not thread-safe (one provider per run).
 */
#ifndef GPUPLAN_FUZZ_JSON_H
#define GPUPLAN_FUZZ_JSON_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "fuzz_input.h"

enum fz_kind {
        FZ_INT,    /* a count: integers at and around every boundary */
        FZ_NUMBER, /* a real: fractions, 0, negatives, 1e308, denormals */
        FZ_BOOL,
        FZ_ENUM,       /* one of values[] (NULL-terminated) */
        FZ_STRING,     /* free text; values[] are likely choices (may be NULL) */
        FZ_OBJECT,     /* an object of fields[] (ends with a NULL name) */
        FZ_ENUM_ARRAY, /* an array of values[] names */
        FZ_ANY,        /* anything at all */
};

struct fz_field {
        const char *name;
        enum fz_kind kind;
        const char *const *values;
        const struct fz_field *fields;
};

#define FZ_DEPTH_MAX 4

/* Integers at the edges of every range a decoder may check. */
/* clang-format off */
static const json_int_t fz_ints[] = {
        0, 1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32, 48, 64, 100, 127, 128, 255, 256, 512, 514,
        768, 1000, 1024, 2048, 3072, 4096, 8192, 11008, 14336, 32000, 32768, 50257, 65535,
        65536, 250002, 1000000, 16777216, 2147483647LL, 2147483648LL, 4294967295LL,
        4294967296LL, 4294967297LL, 1099511627776LL, 9007199254740992LL,
        INT64_C(9223372036854775807), -1, -2, -2147483648LL, INT64_MIN,
};

static const double fz_reals[] = {
        0.0, -0.0, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0, 1.5, 2.0, 12.0, 100.5, 1e-300, 4.9e-324,
        1e9, 1e15, 1e19, 1.8446744073709552e19, 1e300, 1e308, 1.7976931348623157e308, -0.5,
        -1.0, -1e308,
};

static const char *const fz_strings[] = {
        "", " ", "0", "1", "-1", "1e308", "NaN", "Infinity", "null", "true", "none",
        "\xc3\xa9t\xc3\xa9", "a\"b", "a\\b", "'; DROP TABLE accelerators; --", "%s%n",
        "../../etc/passwd", NULL,
};
/* clang-format on */

static inline json_t *fz_int(struct fuzz_input *in)
{
        switch (fuzz_u8(in) % 4) {
        case 0:
                return json_integer((json_int_t)fuzz_u64(in));
        case 1:
                /* A small positive number: most valid counts are small. */
                return json_integer((json_int_t)(fuzz_u16(in) % 2049));
        default:
                return json_integer(fz_ints[fuzz_pick(in, sizeof(fz_ints) / sizeof(fz_ints[0]))]);
        }
}

static inline json_t *fz_real(struct fuzz_input *in)
{
        if (fuzz_bool(in)) {
                /* Any finite double from 8 bytes (jansson refuses NaN and infinities). */
                uint64_t bits = fuzz_u64(in);
                double d;
                memcpy(&d, &bits, sizeof(d));
                json_t *v = json_real(d);
                return v ? v : json_real(0.0);
        }
        return json_real(fz_reals[fuzz_pick(in, sizeof(fz_reals) / sizeof(fz_reals[0]))]);
}

static inline json_t *fz_text(struct fuzz_input *in, const char *const *likely)
{
        char buf[64];

        if (likely && fuzz_u8(in) % 8 != 0) {
                size_t n = 0;
                while (likely[n])
                        n++;
                if (n)
                        return json_string(likely[fuzz_pick(in, n)]);
        }
        if (fuzz_bool(in))
                return json_string(
                        fz_strings[fuzz_pick(in, sizeof(fz_strings) / sizeof(fz_strings[0]) - 1)]);
        fuzz_string(in, buf, sizeof(buf));
        json_t *v = json_string(buf); /* NULL for invalid UTF-8 */
        return v ? v : json_string("x");
}

static inline json_t *fz_any(struct fuzz_input *in, unsigned depth);

static inline json_t *fz_enum_array(struct fuzz_input *in, const char *const *values)
{
        json_t *a = json_array();
        unsigned n = fuzz_u8(in) % 6;

        for (unsigned i = 0; a && i < n; i++)
                json_array_append_new(a, fuzz_u8(in) % 8 ? fz_text(in, values) : fz_int(in));
        return a;
}

static inline json_t *fz_object(struct fuzz_input *in, const struct fz_field *fields,
                                unsigned depth);

/* A value for field f: usually of its kind, sometimes of any kind. */
static inline json_t *fz_value(struct fuzz_input *in, const struct fz_field *f, unsigned depth)
{
        if (fuzz_u8(in) % 16 == 0)
                return fz_any(in, depth);
        switch (f->kind) {
        case FZ_INT:
                return fz_int(in);
        case FZ_NUMBER:
                return fuzz_bool(in) ? fz_real(in) : fz_int(in);
        case FZ_BOOL:
                return json_boolean(fuzz_bool(in));
        case FZ_ENUM:
        case FZ_STRING:
                return fz_text(in, f->values);
        case FZ_OBJECT:
                return fz_object(in, f->fields, depth + 1);
        case FZ_ENUM_ARRAY:
                return fz_enum_array(in, f->values);
        case FZ_ANY:
        default:
                return fz_any(in, depth);
        }
}

static inline json_t *fz_any(struct fuzz_input *in, unsigned depth)
{
        char key[32];

        switch (fuzz_u8(in) % 8) {
        case 0:
                return fz_int(in);
        case 1:
                return fz_real(in);
        case 2:
                return fz_text(in, NULL);
        case 3:
                return json_boolean(fuzz_bool(in));
        case 4:
                return json_null();
        case 5:
                if (depth < FZ_DEPTH_MAX) {
                        json_t *a = json_array();
                        unsigned n = fuzz_u8(in) % 4;
                        for (unsigned i = 0; a && i < n; i++)
                                json_array_append_new(a, fz_any(in, depth + 1));
                        return a;
                }
                return json_array();
        default:
                if (depth < FZ_DEPTH_MAX) {
                        json_t *o = json_object();
                        unsigned n = fuzz_u8(in) % 4;
                        for (unsigned i = 0; o && i < n; i++) {
                                fuzz_string(in, key, sizeof(key));
                                json_object_set_new(o, key, fz_any(in, depth + 1));
                        }
                        return o;
                }
                return json_object();
        }
}

/*
 * An object with a fuzz-chosen subset of fields (NULL-name terminated),
 * in a fuzz-chosen order, now and then with an unknown key.
 */
static inline json_t *fz_object(struct fuzz_input *in, const struct fz_field *fields,
                                unsigned depth)
{
        json_t *o = json_object();
        size_t nf = 0;
        char key[32];

        if (!o || depth > FZ_DEPTH_MAX || !fields)
                return o;
        while (fields[nf].name)
                nf++;
        unsigned n = fuzz_u8(in) % (unsigned)(nf + 2);
        for (unsigned i = 0; i < n && in->n > 0; i++) {
                size_t k = fuzz_pick(in, nf + 1);
                if (k == nf) {
                        fuzz_string(in, key, sizeof(key));
                        json_object_set_new(o, key, fz_any(in, depth + 1));
                        continue;
                }
                json_object_set_new(o, fields[k].name, fz_value(in, &fields[k], depth));
        }
        return o;
}

#endif
