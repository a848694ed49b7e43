/*
 * decimal.h - doubles in decimal, exactly as C's printf prints them, with
 * whole-number arithmetic instead of printf.
 *
 * printf was a large part of an estimate's CPU time: every real of the
 * answer and most sentences of its notes went through it.  A double is
 * M * 2^E with M < 2^53 a whole number, so its value times a power of ten
 * is a quotient of whole numbers (10^k = 5^k * 2^k); for |k| <= 27 both
 * sides fit in 128 bits, so the rounded digits and the remainder that
 * decides the rounding are exact.  What falls outside those bounds, and
 * exact ties (which printf rounds by the current rounding mode), is left
 * to printf: each function says when it declines.
 *
 * Memory: nothing allocated.  Thread-safety: pure functions.
 */
#ifndef GPUPLAN_CORE_DECIMAL_H
#define GPUPLAN_CORE_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The digits (1..17) first significant decimal digits of a > 0, rounded
 * to nearest, as *m in [10^(digits - 1), 10^digits), and the decimal
 * exponent *x of the rounded value: a ~ m * 10^(*x - digits + 1), the
 * digits and exponent of printf's "%.*e" with precision digits - 1.
 * False (nothing written) for an exact tie, a not finite or not positive,
 * or 10^(digits - 1 - X) outside 10^-27..10^27 for X the exponent of a.
 */
bool decimal_digits(double a, int digits, uint64_t *m, int *x);

/*
 * a >= 0 times 10^places (0..27), rounded to nearest, as *out: the digits
 * of printf's "%.*f" with that precision, without the point.  False for
 * an exact tie, a not finite or negative, or a result of 2^64 or more.
 */
bool decimal_fixed(double a, int places, uint64_t *out);

/*
 * snprintf(buf, len, fmt, ...) for the conversions the engine's notes
 * use - %s, %u, %%, %.Nf (N <= 9), %.Ng (1 <= N <= 17) and %g - written
 * here, byte for byte as glibc's snprintf writes them; anything else
 * (flags, widths, other conversions, a NULL string, a value the functions
 * above decline) hands the whole call to vsnprintf.  Returns what
 * snprintf returns: the length of the whole text, of which at most
 * len - 1 bytes and a NUL are written.
 */
int decimal_format(char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif
