/*
 * text.c - UTF-8 text rules shared by every endpoint (see text.h).
 */
#include "json/text.h"

#include <stdint.h>

size_t text_utf8_sequence(const unsigned char *s, size_t left)
{
        unsigned char c = s[0];
        size_t n;
        uint32_t cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xC2 && c <= 0xDF) {
                n = 2;
                cp = c & 0x1Fu;
        } else if (c >= 0xE0 && c <= 0xEF) {
                n = 3;
                cp = c & 0x0Fu;
        } else if (c >= 0xF0 && c <= 0xF4) {
                n = 4;
                cp = c & 0x07u;
        } else {
                return 0;
        }
        if (n > left)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xC0u) != 0x80u)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3Fu);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
                return 0;
        return n;
}

long text_chars(const char *s, size_t n)
{
        const unsigned char *p = (const unsigned char *)s;
        long chars = 0;

        for (size_t i = 0; i < n;) {
                size_t k = p[i] ? text_utf8_sequence(p + i, n - i) : 0;
                if (k == 0)
                        return -1;
                i += k;
                chars++;
        }
        return chars;
}
