/*
 * decimal.c - doubles in decimal without printf (see decimal.h).
 *
 * printf's rules are C11 7.21.6.1: "%.Pe" rounds to P + 1 significant
 * digits and writes d.ddde+XX (at least two exponent digits); "%.Pf"
 * rounds to P digits after the point; "%.Pg" (P = 0 read as 1) rounds to
 * P significant digits, takes the e style when the exponent X of the
 * rounded value is below -4 or at least P and the f style with P - 1 - X
 * digits after the point otherwise, then drops trailing zeros after the
 * point and a point with nothing after it.  glibc rounds to nearest; its
 * ties follow the rounding mode, so they are printf's to print.
 */
#include "core/decimal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 decimal_u128;

/* 5^k, k = 0..27: 5^27 = 7450580596923828125 is the last below 2^63. */
static const uint64_t pow5[] = {1ull,
                                5ull,
                                25ull,
                                125ull,
                                625ull,
                                3125ull,
                                15625ull,
                                78125ull,
                                390625ull,
                                1953125ull,
                                9765625ull,
                                48828125ull,
                                244140625ull,
                                1220703125ull,
                                6103515625ull,
                                30517578125ull,
                                152587890625ull,
                                762939453125ull,
                                3814697265625ull,
                                19073486328125ull,
                                95367431640625ull,
                                476837158203125ull,
                                2384185791015625ull,
                                11920928955078125ull,
                                59604644775390625ull,
                                298023223876953125ull,
                                1490116119384765625ull,
                                7450580596923828125ull};

#define POW5_MAX 27

/*
 * m * 2^e2 * 10^k (|k| <= 27) as its floor *q and *half, the remainder
 * against one half of the divisor (-1 below, 0 equal, 1 above).  With
 * 10^k = 5^k * 2^k that is num / den for whole numbers: M * 5^k over a
 * power of two when k >= 0, M over 5^-k times a power of two when k < 0.
 * The callers' quotients are below 10^20, so with 5^27 < 2^63 and
 * M < 2^53 neither side overflows 128 bits; shifts that would reach
 * past them can only mean a quotient far from the callers' range, given
 * as 0 or as 2^100.
 */
static void scaled(uint64_t m, int e2, int k, decimal_u128 *q, int *half)
{
        int shift = e2 + k;
        decimal_u128 num = m, den, rem;

        *half = -1;
        if (k >= 0) {
                /* The common case (|value| below the digits asked for): the
                 * divisor is a power of two, a shift and a mask. */
                num *= pow5[k];
                if (shift >= 0) {
                        *q = shift > 60 ? (decimal_u128)1 << 100 : num << shift;
                        return;
                }
                if (-shift >= 120) { /* num < 2^116: below one half of 2^120 */
                        *q = 0;
                        return;
                }
                rem = num & (((decimal_u128)1 << -shift) - 1);
                *q = num >> -shift;
                den = (decimal_u128)1 << (-shift - 1); /* one half */
                *half = rem < den ? -1 : rem > den;
                return;
        }
        den = pow5[-k];
        if (shift >= 0) {
                if (shift > 60) {
                        *q = (decimal_u128)1 << 100;
                        return;
                }
                num <<= shift;
        } else {
                if (-shift > 60) { /* den > 2^60 > num */
                        *q = 0;
                        return;
                }
                den <<= -shift;
        }
        *q = num / den;
        rem = num - *q * den;
        *half = 2 * rem < den ? -1 : 2 * rem > den;
}

/* a > 0 finite as m * 2^e2, m < 2^53 a whole number; *e2a the exponent
 * of frexp (a = f * 2^e2a, 1/2 <= f < 1). */
static uint64_t split(double a, int *e2, int *e2a)
{
#if FLT_RADIX == 2 && DBL_MANT_DIG == 53 && DBL_MAX_EXP == 1024
        /* IEEE 754 binary64 (C11 Annex F): a normal number is
         * (2^52 + fraction) * 2^(biased exponent - 1075), read from its
         * bits without a call. */
        uint64_t bits;
        int biased;

        memcpy(&bits, &a, sizeof(bits));
        biased = (int)(bits >> 52) & 0x7ff;
        if (biased != 0) {
                *e2 = biased - 1075;
                *e2a = biased - 1022;
                return (bits & 0xfffffffffffffull) | (1ull << 52);
        }
#endif
        double f = frexp(a, e2a);

        *e2 = *e2a - 53;
        return (uint64_t)(f * 9007199254740992.0); /* f * 2^53, exact */
}

bool decimal_digits(double a, int digits, uint64_t *m_out, int *x_out)
{
        static const uint64_t pow10[] = {1ull,
                                         10ull,
                                         100ull,
                                         1000ull,
                                         10000ull,
                                         100000ull,
                                         1000000ull,
                                         10000000ull,
                                         100000000ull,
                                         1000000000ull,
                                         10000000000ull,
                                         100000000000ull,
                                         1000000000000ull,
                                         10000000000000ull,
                                         100000000000000ull,
                                         1000000000000000ull,
                                         10000000000000000ull,
                                         100000000000000000ull};
        int e2, e2a, half = 0, x;
        decimal_u128 q = 0;
        double y;
        uint64_t m;

        if (!(a > 0) || !isfinite(a) || digits < 1 || digits > 17)
                return false;
        m = split(a, &e2, &e2a);
        /* log10 a lies in [(e2a - 1) log10 2, e2a log10 2): X is the floor
         * of the first or one more; the loop steps to the decade that
         * gives the digits asked for. */
        y = (double)(e2a - 1) * 0.30102999566398120;
        x = (int)y;
        if ((double)x > y)
                x--;
        for (int step = 0; step < 3; step++) {
                int k = digits - 1 - x;
                if (k < -POW5_MAX || k > POW5_MAX)
                        return false;
                scaled(m, e2, k, &q, &half);
                if (q < pow10[digits - 1])
                        x--;
                else if (q >= pow10[digits])
                        x++;
                else
                        break;
        }
        if (q < pow10[digits - 1] || q >= pow10[digits] || half == 0)
                return false;
        q += half > 0;
        if (q == pow10[digits]) { /* rounded up into the next decade */
                q = pow10[digits - 1];
                x++;
        }
        *m_out = (uint64_t)q;
        *x_out = x;
        return true;
}

bool decimal_fixed(double a, int places, uint64_t *out)
{
        static const double pow10_double[] = {
                1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27};
        int e2, e2a, half;
        decimal_u128 q;
        uint64_t m;

        if (!(a >= 0) || !isfinite(a) || places < 0 || places > POW5_MAX)
                return false;
        if (a == 0) {
                *out = 0;
                return true;
        }
        /* 10^19 < 2^64: the result fits when a * 10^places < 10^19 (and
         * the check after rounding catches what the estimate lets by). */
        if (a * pow10_double[places] >= 1e19)
                return false;
        m = split(a, &e2, &e2a);
        scaled(m, e2, places, &q, &half);
        if (half == 0)
                return false;
        q += half > 0;
        if (q > UINT64_MAX)
                return false;
        *out = (uint64_t)q;
        return true;
}
#else
bool decimal_digits(double a, int digits, uint64_t *m, int *x)
{
        (void)a;
        (void)digits;
        (void)m;
        (void)x;
        return false; /* no 128-bit integers: printf prints */
}

bool decimal_fixed(double a, int places, uint64_t *out)
{
        (void)a;
        (void)places;
        (void)out;
        return false;
}
#endif

/* ---- decimal_format ---------------------------------------------------- */

/* The text so far: at most len - 1 bytes kept in buf, all counted. */
struct out {
        char *buf;
        size_t len, n;
};

static void emit(struct out *o, const char *s, size_t n)
{
        if (o->n + 1 < o->len) {
                size_t room = o->len - 1 - o->n;
                memcpy(o->buf + o->n, s, n < room ? n : room);
        }
        o->n += n;
}

/* The decimal digits of u, at least width of them (zeros in front). */
static void emit_uint(struct out *o, uint64_t u, int width)
{
        char d[24];
        size_t i = sizeof(d);

        do {
                d[--i] = (char)('0' + u % 10u);
                u /= 10u;
                width--;
        } while (u || width > 0);
        emit(o, d + i, sizeof(d) - i);
}

/* "%.*f"; false when decimal_fixed() declines. */
static bool emit_fixed(struct out *o, double v, int places)
{
        static const uint64_t pow10[] = {1ull,         10ull,        100ull,     1000ull,
                                         10000ull,     100000ull,    1000000ull, 10000000ull,
                                         100000000ull, 1000000000ull};
        uint64_t u;

        if (places > 9 || !decimal_fixed(fabs(v), places, &u))
                return false;
        if (signbit(v))
                emit(o, "-", 1);
        emit_uint(o, u / pow10[places], 1);
        if (places > 0) {
                emit(o, ".", 1);
                emit_uint(o, u % pow10[places], places);
        }
        return true;
}

/* "%.*g" with precision p (1..17); false when decimal_digits() declines. */
static bool emit_general(struct out *o, double v, int p)
{
        char d[17];
        uint64_t m;
        int x, last;

        if (signbit(v))
                emit(o, "-", 1);
        if (v == 0) {
                emit(o, "0", 1);
                return true;
        }
        if (!decimal_digits(fabs(v), p, &m, &x))
                return false;
        for (int i = p - 1; i >= 0; i--, m /= 10u)
                d[i] = (char)('0' + m % 10u);
        last = p - 1;
        while (last > 0 && d[last] == '0')
                last--;
        if (x < -4 || x >= p) {
                emit(o, d, 1);
                if (last > 0) {
                        emit(o, ".", 1);
                        emit(o, d + 1, (size_t)last);
                }
                emit(o, x < 0 ? "e-" : "e+", 2);
                emit_uint(o, (uint64_t)(x < 0 ? -x : x), 2);
        } else if (x < 0) {
                emit(o, "0.", 2);
                for (int i = -1; i > x; i--)
                        emit(o, "0", 1);
                emit(o, d, (size_t)last + 1);
        } else {
                emit(o, d, (size_t)x + 1);
                if (last > x) {
                        emit(o, ".", 1);
                        emit(o, d + x + 1, (size_t)(last - x));
                }
        }
        return true;
}

/* The conversion at *f (just after its '%'), its argument taken from ap;
 * false to hand the call to vsnprintf. */
static bool emit_conversion(struct out *o, const char **f, va_list *ap)
{
        const char *s = *f;
        int precision = -1;

        if (*s == '%') {
                emit(o, "%", 1);
                *f = s + 1;
                return true;
        }
        if (*s == '.') {
                precision = 0;
                for (s++; *s >= '0' && *s <= '9' && precision < 100; s++)
                        precision = precision * 10 + (*s - '0');
        }
        *f = s + 1;
        switch (*s) {
        case 's': {
                const char *str = va_arg(*ap, const char *);
                if (precision >= 0 || !str)
                        return false;
                emit(o, str, strlen(str));
                return true;
        }
        case 'u':
                if (precision >= 0)
                        return false;
                emit_uint(o, va_arg(*ap, unsigned), 1);
                return true;
        case 'f':
                return precision >= 0 && emit_fixed(o, va_arg(*ap, double), precision);
        case 'g':
                if (precision == 0)
                        precision = 1;
                return precision <= 17 &&
                       emit_general(o, va_arg(*ap, double), precision < 0 ? 6 : precision);
        default:
                return false;
        }
}

int decimal_format(char *buf, size_t len, const char *fmt, ...)
{
        struct out o = {buf, len, 0};
        va_list ap, again;
        const char *f = fmt;
        bool ok = true;

        va_start(ap, fmt);
        va_copy(again, ap);
        while (ok && *f) {
                const char *pct = strchr(f, '%');
                if (!pct) {
                        emit(&o, f, strlen(f));
                        break;
                }
                emit(&o, f, (size_t)(pct - f));
                f = pct + 1;
                ok = emit_conversion(&o, &f, &ap);
        }
        va_end(ap);
        if (!ok) {
                int n = vsnprintf(buf, len, fmt, again);
                va_end(again);
                return n;
        }
        va_end(again);
        if (len > 0)
                buf[o.n < len ? o.n : len - 1] = '\0';
        return o.n > INT_MAX ? -1 : (int)o.n;
}
