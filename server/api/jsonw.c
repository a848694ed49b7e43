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

#include "json/text.h"

#include <float.h>
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

void jsonw_int(struct jsonw *w, int64_t v)
{
        char digits[24];
        size_t i = sizeof(digits);
        /* Negate in unsigned arithmetic so INT64_MIN needs no special case. */
        uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;

        do {
                digits[--i] = (char)('0' + u % 10u);
                u /= 10u;
        } while (u);
        if (v < 0)
                digits[--i] = '-';
        comma(w);
        put(w, digits + i, sizeof(digits) - i);
        w->need_comma = true;
}

/*
 * "%.15g" without printf (which was a tenth of an estimate's CPU time: a
 * fit table has a real per GPU, and FLOP counts print in exponent form),
 * for 1e-13 <= |v| < 1e42.  The 15 significant digits are
 * round(|v| * 10^(14 - e)), e = floor(log10 |v|), as a product for e <= 14
 * and a quotient |v| / 10^(e - 14) above.  Every power used is at most
 * 10^27 = 2^27 * 5^27, and 5^27 < 2^64, so it is exact in a long double's
 * 64-bit significand (x87 extended, or more) and the product or quotient
 * carries one rounding: relative error at most 2^-64, absolute error under
 * 1e15 * 2^-64 < 1e-4.  When the fraction is that close to one half the
 * rounding direction is uncertain (and exact ties follow printf's rounding
 * mode), so those values return 0 and go to printf.  As %g does (C11
 * 7.21.6.1), the text is fixed-point for -4 <= e < 15 and d.ddde+XX
 * otherwise, trailing zeros after the point dropped.  Writes text (at
 * most 22 bytes) and returns its length, or 0.
 */
#define REAL_E_MIN (-13)
#define REAL_E_MAX 41

static long double real_scale(double a, int e)
{
        static const long double pow10[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                            1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                            1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                            1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

        return e <= 14 ? (long double)a * pow10[14 - e] : (long double)a / pow10[e - 14];
}

static size_t real_fixed15(double v, char *text)
{
        double a = fabs(v);
        long double scaled, whole, frac;
        uint64_t m;
        char digits[16];
        int e, last = 14;
        size_t n = 0;

        if (LDBL_MANT_DIG < 64 || !(a >= 1e-13 && a < 1e42))
                return 0;
        e = (int)floor(log10(a));
        if (e < REAL_E_MIN)
                e = REAL_E_MIN;
        if (e > REAL_E_MAX)
                e = REAL_E_MAX;
        scaled = real_scale(a, e);
        /* log10 may be one off next to a power of ten: step to the decade
         * that gives 15 digits. */
        if (scaled < 1e14L && e > REAL_E_MIN)
                scaled = real_scale(a, --e);
        else if (scaled >= 1e15L && e < REAL_E_MAX)
                scaled = real_scale(a, ++e);
        if (scaled < 1e14L || scaled >= 1e15L)
                return 0;
        whole = floorl(scaled);
        frac = scaled - whole;
        if (fabsl(frac - 0.5L) < 1e-3L)
                return 0;
        m = (uint64_t)whole + (frac > 0.5L);
        if (m == 1000000000000000ull) { /* rounded up into the next decade */
                m = 100000000000000ull;
                if (++e > REAL_E_MAX)
                        return 0;
        }
        for (int i = 14; i >= 0; i--, m /= 10u)
                digits[i] = (char)('0' + m % 10u);
        if (v < 0)
                text[n++] = '-';
        if (e < -4 || e >= 15) {
                /* d[.ddd]e+XX: at least two exponent digits, as printf. */
                int x = e < 0 ? -e : e;
                while (last > 0 && digits[last] == '0')
                        last--;
                text[n++] = digits[0];
                if (last > 0) {
                        text[n++] = '.';
                        for (int i = 1; i <= last; i++)
                                text[n++] = digits[i];
                }
                text[n++] = 'e';
                text[n++] = e < 0 ? '-' : '+';
                if (x >= 10) {
                        text[n++] = (char)('0' + x / 10);
                        text[n++] = (char)('0' + x % 10);
                } else {
                        text[n++] = '0';
                        text[n++] = (char)('0' + x);
                }
                text[n] = '\0';
                return n;
        }
        /* %g drops trailing zeros after the point; with no digit left
         * after it, the point goes too. */
        while (last > e && last > 0 && digits[last] == '0')
                last--;
        if (e < 0) {
                text[n++] = '0';
                text[n++] = '.';
                for (int i = -1; i > e; i--)
                        text[n++] = '0';
                for (int i = 0; i <= last; i++)
                        text[n++] = digits[i];
        } else {
                for (int i = 0; i <= e; i++)
                        text[n++] = digits[i];
                if (last > e) {
                        text[n++] = '.';
                        for (int i = e + 1; i <= last; i++)
                                text[n++] = digits[i];
                }
        }
        text[n] = '\0';
        return n;
}

void jsonw_real(struct jsonw *w, double v)
{
        char text[40];
        int n;
        size_t len;
        char *e;

        if (!isfinite(v)) {
                jsonw_null(w);
                return;
        }
        if (fabs(v) < 1e15 && v == floor(v)) {
                /* Whole numbers (byte counts, token counts): %.15g prints them
                 * digit for digit, which an integer conversion does faster. */
                uint64_t m = (uint64_t)fabs(v);
                char digits[20];
                size_t nd = 0;
                len = 0;
                do {
                        digits[nd++] = (char)('0' + m % 10u);
                        m /= 10u;
                } while (m);
                if (signbit(v))
                        text[len++] = '-';
                while (nd)
                        text[len++] = digits[--nd];
                text[len] = '\0';
        } else {
                len = real_fixed15(v, text);
        }
        if (len == 0) {
                n = snprintf(text, sizeof(text) - 2, "%.*g", JSONW_REAL_DIGITS, v);
                if (n < 0 || (size_t)n >= sizeof(text) - 2) {
                        w->failed = true;
                        return;
                }
                len = (size_t)n;
        }
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
        comma(w);
        put(w, text, len);
        w->need_comma = true;
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
