/*
 * jsonw.c - a small JSON writer into one capped buffer; see jsonw.h.
 *
 * The text follows jansson 2.14's dump.c and strconv.c so that a document
 * written here reads byte for byte like the jansson tree it replaces:
 * dump_string() escapes '"', '\\', and code points below 0x20 (\b \f \n
 * \r \t by name, the rest as \u00XX in upper-case hex), and
 * jsonp_dtostr() prints reals with "%.*g", appends ".0" when the result
 * has neither '.' nor 'e', and drops a '+' and leading zeros from the
 * exponent.
 */
#include "api/jsonw.h"

#include "core/decimal.h"
#include "json/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JSON_REAL_PRECISION(15) of the other replies: DBL_DIG, the most decimal
 * digits a double always carries faithfully (C11 5.2.4.2.2). */
#define JSONW_REAL_DIGITS 15

void jsonw_init(struct jsonw *w, size_t initial_bytes, size_t max_bytes)
{
        memset(w, 0, sizeof(*w));
        w->max_bytes = max_bytes;
        if (initial_bytes > max_bytes)
                initial_bytes = max_bytes;
        w->buf = malloc(initial_bytes + 1); /* + the final NUL */
        if (!w->buf) {
                w->failed = true; /* cap stays 0 == len */
                return;
        }
        w->cap = initial_bytes;
}

/* The slow path of room(): grow the buffer, or fail the writer. */
static bool grow(struct jsonw *w, size_t n)
{
        size_t want, cap;
        char *p;

        if (w->failed)
                return false;
        if (n > w->max_bytes - w->len) {
                w->failed = true;
                w->cap = w->len; /* room() now always takes the slow path */
                return false;
        }
        want = w->len + n;
        cap = w->cap ? w->cap : 64;
        while (cap < want)
                cap = cap > w->max_bytes / 2 ? w->max_bytes : cap * 2;
        p = realloc(w->buf, cap + 1);
        if (!p) {
                w->failed = true;
                w->cap = w->len;
                return false;
        }
        w->buf = p;
        w->cap = cap;
        return true;
}

/* Room for n more bytes (and the final NUL).  A failed writer has cap ==
 * len, so every write after a failure lands in grow(), which refuses it. */
static inline bool room(struct jsonw *w, size_t n)
{
        return n <= w->cap - w->len ? !w->failed : grow(w, n);
}

static void put(struct jsonw *w, const char *s, size_t n)
{
        if (n == 0 || !room(w, n))
                return;
        memcpy(w->buf + w->len, s, n);
        w->len += n;
}

static void put_char(struct jsonw *w, char c)
{
        if (!room(w, 1))
                return;
        w->buf[w->len++] = c;
}

/* The separator before a value or member, if one came before it. */
static void comma(struct jsonw *w)
{
        if (w->need_comma)
                put_char(w, ',');
}

void jsonw_object_begin(struct jsonw *w)
{
        comma(w);
        put_char(w, '{');
        w->need_comma = false;
}

void jsonw_object_end(struct jsonw *w)
{
        put_char(w, '}');
        w->need_comma = true;
}

void jsonw_array_begin(struct jsonw *w)
{
        comma(w);
        put_char(w, '[');
        w->need_comma = false;
}

void jsonw_array_end(struct jsonw *w)
{
        put_char(w, ']');
        w->need_comma = true;
}

/*
 * A JSON string.  Text that is not valid UTF-8 (a name cut short inside a
 * character by a fixed-size field) ends at the last whole character: a
 * jansson tree would have refused the string and dropped the member.
 */
/*
 * True when none of the 8 bytes at p needs a look: no control character,
 * no '"', no '\\', no byte >= 0x80.  The word tests are the classic
 * "has a byte less than n" and "has a zero byte" bit tricks (Sean
 * Anderson, Bit Twiddling Hacks); a borrow can only raise a false alarm
 * above a byte that really matched, and an alarm just sends the bytes
 * through the careful path.
 */
static inline bool plain8(const unsigned char *p)
{
        const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
        uint64_t x, quote, bslash, control;

        memcpy(&x, p, sizeof(x));
        if (x & high)
                return false; /* UTF-8 */
        control = (x - ones * 0x20u) & ~x & high;
        quote = x ^ (ones * '"');
        quote = (quote - ones) & ~quote & high;
        bslash = x ^ (ones * '\\');
        bslash = (bslash - ones) & ~bslash & high;
        return (control | quote | bslash) == 0;
}

static void put_string(struct jsonw *w, const char *s)
{
        static const char hex[] = "0123456789ABCDEF";
        const unsigned char *p = (const unsigned char *)s;
        size_t left = strlen(s), run = 0;

        put_char(w, '"');
        while (run < left) {
                unsigned char c;
                size_t n;

                /* Eight plain bytes at a time: most of a response is keys and names. */
                while (left - run >= 8 && plain8(p + run))
                        run += 8;
                if (run >= left)
                        break;
                c = p[run];

                /* Plain ASCII is copied as it is; escapes and UTF-8 are looked at. */
                if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                        run++;
                        continue;
                }
                n = c < 0x80 ? 1 : text_utf8_sequence(p + run, left - run);
                if (n > 1) {
                        run += n;
                        continue;
                }
                put(w, (const char *)p, run);
                if (n == 0) { /* not UTF-8: stop here */
                        left = run = 0;
                        break;
                }
                switch (c) {
                case '"':
                        put(w, "\\\"", 2);
                        break;
                case '\\':
                        put(w, "\\\\", 2);
                        break;
                case '\b':
                        put(w, "\\b", 2);
                        break;
                case '\f':
                        put(w, "\\f", 2);
                        break;
                case '\n':
                        put(w, "\\n", 2);
                        break;
                case '\r':
                        put(w, "\\r", 2);
                        break;
                case '\t':
                        put(w, "\\t", 2);
                        break;
                default: {
                        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xFu]};
                        put(w, esc, sizeof(esc));
                }
                }
                p += run + 1;
                left -= run + 1;
                run = 0;
        }
        put(w, (const char *)p, run);
        put_char(w, '"');
}

void jsonw_string(struct jsonw *w, const char *s)
{
        if (!s) {
                jsonw_null(w);
                return;
        }
        comma(w);
        put_string(w, s);
        w->need_comma = true;
}

/* "00" to "99": two digits per division when writing a number. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* The number of decimal digits of u (1 for 0). */
static size_t digit_count(uint64_t u)
{
        size_t n = 1;

        for (uint64_t limit = 10; u >= limit; limit *= 10) {
                if (++n == 20) /* 10^19 <= u: multiplying again would wrap */
                        break;
        }
        return n;
}

/* The 8 decimal digits of v < 10^8, zeros in front, ending at end: four
 * pairs from two independent halves. */
static void digits8_write(char *end, uint32_t v)
{
        uint32_t hi = v / 10000u, lo = v % 10000u;

        memcpy(end - 2, digit_pairs + (lo % 100u) * 2, 2);
        memcpy(end - 4, digit_pairs + (lo / 100u) * 2, 2);
        memcpy(end - 6, digit_pairs + (hi % 100u) * 2, 2);
        memcpy(end - 8, digit_pairs + (hi / 100u) * 2, 2);
}

/* The decimal digits of u written backwards so that they end at end
 * (digit_count(u) bytes before it): eight at a time while more remain,
 * then the rest two at a time in 32-bit arithmetic. */
static void digits_write(char *end, uint64_t u)
{
        uint32_t v;

        while (u >= 100000000u) {
                digits8_write(end, (uint32_t)(u % 100000000u));
                u /= 100000000u;
                end -= 8;
        }
        v = (uint32_t)u;
        while (v >= 100u) {
                memcpy(end - 2, digit_pairs + (v % 100u) * 2, 2);
                v /= 100u;
                end -= 2;
        }
        if (v >= 10u)
                memcpy(end - 2, digit_pairs + v * 2, 2);
        else
                end[-1] = (char)('0' + v);
}

/*
 * Where a value of at most n bytes goes, after the comma if one is due,
 * when the buffer has room for it as it is; NULL otherwise (or when the
 * writer has failed), and the caller writes the value through
 * value_copy(), which grows the buffer or fails the writer.  value_end()
 * makes what was written in place part of the text.
 */
static char *value_begin(struct jsonw *w, size_t n)
{
        char *p;

        if (n >= w->cap - w->len) /* n bytes and the comma */
                return NULL;
        p = w->buf + w->len;
        *p = ',';
        return p + w->need_comma;
}

static void value_end(struct jsonw *w, const char *end)
{
        w->len = (size_t)(end - w->buf);
        w->need_comma = true;
}

static void value_copy(struct jsonw *w, const char *text, size_t n)
{
        comma(w);
        put(w, text, n);
        w->need_comma = true;
}

void jsonw_int(struct jsonw *w, int64_t v)
{
        /* Negate in unsigned arithmetic so INT64_MIN needs no special case. */
        uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
        size_t n = digit_count(u) + (v < 0);
        char text[20]; /* '-' and 19 digits */
        char *p = value_begin(w, n);

        if (!p)
                p = text;
        *p = '-'; /* overwritten by the first digit when v >= 0 */
        digits_write(p + n, u);
        if (p == text)
                value_copy(w, text, n);
        else
                value_end(w, p + n);
}

/*
 * A real as jansson 2.14 prints it with JSON_REAL_PRECISION(15): "%.15g"
 * (C11 7.21.6.1: 15 significant digits correctly rounded, fixed-point when
 * the decimal exponent X of the rounded value is -4 <= X < 15, d.ddde+XX
 * otherwise, trailing zeros after the point dropped), then ".0" when that
 * reads as an integer, and the exponent without '+' or leading zeros
 * (strconv.c jsonp_dtostr).  printf was a tenth of an estimate's CPU time
 * (a fit table has a real per GPU), so the digits come from
 * core/decimal.h, exactly; the values it declines (exact ties, and
 * magnitudes outside about 1e-13..1e42) still go to printf.
 */
#define REAL_TEXT_MAX 24 /* '-', "0.000", 15 digits; or '-', d.14 digits, "e-13" */

/* The text of a finite v at p (REAL_TEXT_MAX bytes); its end, or NULL when
 * printf must print it. */
static char *real_text(double v, char *p)
{
        double a = fabs(v);
        char digits[15];
        uint64_t m;
        int x, last = 14;

        if (signbit(v))
                *p++ = '-';
        if (a < 1e15 && a == (double)(uint64_t)a) {
                /* Whole numbers (byte counts, token counts): %.15g prints
                 * all their digits, and jansson adds ".0". */
                m = (uint64_t)a;
                p += digit_count(m);
                digits_write(p, m);
                memcpy(p, ".0", 2);
                return p + 2;
        }
        if (!decimal_digits(a, 15, &m, &x))
                return NULL;
        if (x < 0 && x >= -4) {
                /* "0.", -x - 1 zeros, the digits without trailing zeros
                 * (the first digit is not a zero). */
                memcpy(p, "0.000", (size_t)(1 - x));
                p += 1 - x;
                digits_write(p + 15, m);
                p += 15;
                while (p[-1] == '0')
                        p--;
                return p;
        }
        if (x >= 0 && x < 15) {
                /* The digits one place on, the integer part moved back over
                 * the gap, the point after it; trailing zeros dropped, and
                 * with nothing after the point jansson's ".0". */
                char *end = p + 16;
                digits_write(end, m);
                memmove(p, p + 1, (size_t)x + 1);
                p[x + 1] = '.';
                while (end[-1] == '0')
                        end--;
                if (end[-1] == '.')
                        *end++ = '0';
                return end;
        }
        /* d[.ddd]eX: no '+' and no leading zero in the exponent. */
        digits_write(digits + sizeof(digits), m);
        while (last > 0 && digits[last] == '0')
                last--;
        *p++ = digits[0];
        if (last > 0) {
                *p++ = '.';
                memcpy(p, digits + 1, (size_t)last);
                p += last;
        }
        *p++ = 'e';
        if (x < 0) {
                *p++ = '-';
                x = -x;
        }
        if (x >= 10) {
                memcpy(p, digit_pairs + x * 2, 2);
                return p + 2;
        }
        *p++ = (char)('0' + x);
        return p;
}

/* printf's "%.15g" with jansson's changes, for the values real_text() leaves. */
static void real_printf(struct jsonw *w, double v)
{
        char text[40];
        int n;
        size_t len;
        char *e;

        n = snprintf(text, sizeof(text) - 2, "%.*g", JSONW_REAL_DIGITS, v);
        if (n < 0 || (size_t)n >= sizeof(text) - 2) {
                w->failed = true;
                return;
        }
        len = (size_t)n;
        /* jansson's jsonp_dtostr(): a real keeps a '.' or an 'e', so that it
         * reads back as a real ... */
        if (!memchr(text, '.', len) && !memchr(text, 'e', len)) {
                text[len++] = '.';
                text[len++] = '0';
                text[len] = '\0';
        }
        /* ... and its exponent has no '+' and no leading zeros ("1e21",
         * "1e-7"). */
        e = memchr(text, 'e', len);
        if (e) {
                char *start = e + 1, *end = e + 2;
                if (*start == '-')
                        start++;
                while (*end == '0')
                        end++;
                if (end != start) {
                        memmove(start, end, len - (size_t)(end - text) + 1);
                        len -= (size_t)(end - start);
                }
        }
        value_copy(w, text, len);
}

void jsonw_real(struct jsonw *w, double v)
{
        char text[REAL_TEXT_MAX], *p, *end;

        if (!isfinite(v)) {
                jsonw_null(w);
                return;
        }
        p = value_begin(w, REAL_TEXT_MAX);
        if (!p)
                p = text;
        end = real_text(v, p);
        if (!end)
                real_printf(w, v);
        else if (p == text)
                value_copy(w, text, (size_t)(end - text));
        else
                value_end(w, end);
}

void jsonw_bool(struct jsonw *w, bool v)
{
        comma(w);
        if (v)
                put(w, "true", 4);
        else
                put(w, "false", 5);
        w->need_comma = true;
}

void jsonw_null(struct jsonw *w)
{
        comma(w);
        put(w, "null", 4);
        w->need_comma = true;
}

void jsonw_key(struct jsonw *w, const char *key)
{
        size_t n = 0;

        /* Member names are short program literals: one pass finds the end
         * and checks that nothing needs escaping, then one copy writes
         * [,]"name": (an estimate writes some 500 of them).  Anything else
         * takes the general path. */
        for (; key[n]; n++) {
                unsigned char c = (unsigned char)key[n];
                if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                        break;
        }
        if (!key[n] && room(w, n + 4)) {
                char *p = w->buf + w->len;
                if (w->need_comma)
                        *p++ = ',';
                *p++ = '"';
                memcpy(p, key, n);
                p += n;
                *p++ = '"';
                *p++ = ':';
                w->len = (size_t)(p - w->buf);
                w->need_comma = false;
                return;
        }
        comma(w);
        put_string(w, key);
        put_char(w, ':');
        w->need_comma = false;
}

void jsonw_raw(struct jsonw *w, const char *text, size_t n)
{
        value_copy(w, text, n);
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
        jsonw_int(w, v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

bool jsonw_name_plain(const char *text, size_t n)
{
        if (n < 3 || text[0] != '"' || text[n - 2] != '"' || text[n - 1] != ':')
                return false;
        for (size_t i = 1; i + 2 < n; i++) {
                unsigned char c = (unsigned char)text[i];
                if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                        return false;
        }
        return true;
}

void jsonw_name_slow(struct jsonw *w, const char *text, size_t n)
{
        comma(w);
        put(w, text, n);
        w->need_comma = false;
}

char *jsonw_finish(struct jsonw *w, size_t *len_out)
{
        char *text = NULL;

        if (!w->failed && w->buf) {
                w->buf[w->len] = '\0';
                text = w->buf;
                *len_out = w->len;
        } else {
                free(w->buf);
                *len_out = 0;
        }
        memset(w, 0, sizeof(*w));
        w->failed = true;
        return text;
}

void jsonw_discard(struct jsonw *w)
{
        free(w->buf);
        memset(w, 0, sizeof(*w));
        w->failed = true;
}
