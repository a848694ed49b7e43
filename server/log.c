/*
 * log.c - JSON-lines logger; see log.h.
 */
#include "log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static atomic_int log_threshold = LOG_LEVEL_INFO;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

int log_level_parse(const char *name)
{
        if (!name)
                return -1;
        for (int i = 0; i < 4; i++)
                if (strcasecmp(name, level_names[i]) == 0)
                        return i;
        if (strcasecmp(name, "warning") == 0)
                return LOG_LEVEL_WARN;
        return -1;
}

void log_set_level(int level)
{
        if (level < LOG_LEVEL_DEBUG)
                level = LOG_LEVEL_DEBUG;
        if (level > LOG_LEVEL_ERROR)
                level = LOG_LEVEL_ERROR;
        atomic_store(&log_threshold, level);
}

int log_get_level(void)
{
        return atomic_load(&log_threshold);
}

int log_enabled(int level)
{
        return level >= atomic_load(&log_threshold);
}

/* Length of the valid UTF-8 sequence at s (RFC 3629 table 3), or 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s)
{
        unsigned char c = s[0];
        size_t n;
        unsigned cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf) {
                n = 2;
                cp = c & 0x1fu;
        } else if (c >= 0xe0 && c <= 0xef) {
                n = 3;
                cp = c & 0x0fu;
        } else if (c >= 0xf0 && c <= 0xf4) {
                n = 4;
                cp = c & 0x07u;
        } else {
                return 0;
        }
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3fu);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

int log_json_string(char *buf, size_t cap, size_t *len, const char *s)
{
        static const char hex[] = "0123456789abcdef";
        size_t at = *len;
        const unsigned char *p = (const unsigned char *)(s ? s : "");

        if (cap == 0 || at >= cap)
                return -1;
#define PUT(ch)                                                                                    \
        do {                                                                                       \
                if (at + 1 >= cap)                                                                 \
                        goto full;                                                                 \
                buf[at++] = (char)(ch);                                                            \
        } while (0)
        PUT('"');
        while (*p) {
                size_t n = utf8_seq_len(p);
                if (n == 0 || *p < 0x20) {
                        /* Control character or a byte that is not UTF-8: \u00XX. */
                        if (*p == '\n') {
                                PUT('\\');
                                PUT('n');
                        } else {
                                PUT('\\');
                                PUT('u');
                                PUT('0');
                                PUT('0');
                                PUT(hex[*p >> 4]);
                                PUT(hex[*p & 0xf]);
                        }
                        p++;
                        continue;
                }
                if (*p == '"' || *p == '\\') {
                        PUT('\\');
                        PUT(*p);
                        p++;
                        continue;
                }
                for (size_t i = 0; i < n; i++)
                        PUT(p[i]);
                p += n;
        }
        PUT('"');
#undef PUT
        buf[at] = '\0';
        *len = at;
        return 0;
full:
        buf[*len] = '\0';
        return -1;
}

static void write_all(const char *p, size_t n)
{
        while (n > 0) {
                ssize_t w = write(STDOUT_FILENO, p, n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return;
                }
                p += w;
                n -= (size_t)w;
        }
}

static size_t put_prefix(char *buf, size_t cap, int level)
{
        struct timespec ts;
        struct tm tm;
        int n;

        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        n = snprintf(buf, cap, "{\"ts\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"level\":\"%s\",",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     ts.tv_nsec / 1000000L, level_names[level]);
        return n < 0 ? 0 : (size_t)n;
}

static void emit(int level, const char *msg, const char *fields_json)
{
        char line[LOG_LINE_MAX];
        size_t len;
        const char *tail = "}\n";
        /* Room kept for a truncation marker and the closing brace. */
        const size_t cap = sizeof(line) - 32;

        if (level < LOG_LEVEL_DEBUG || level > LOG_LEVEL_ERROR)
                level = LOG_LEVEL_ERROR;
        len = put_prefix(line, cap, level);
        memcpy(line + len, "\"msg\":", 6);
        len += 6;
        if (log_json_string(line, cap, &len, msg) != 0) {
                /* Cut the message so the line stays one valid JSON object. */
                len = put_prefix(line, cap, level);
                memcpy(line + len, "\"msg\":\"\"", 8);
                len += 8;
                tail = ",\"truncated\":true}\n";
        } else if (fields_json && *fields_json) {
                size_t n = strlen(fields_json);
                if (len + 1 + n < cap) {
                        line[len++] = ',';
                        memcpy(line + len, fields_json, n);
                        len += n;
                } else {
                        tail = ",\"truncated\":true}\n";
                }
        }
        memcpy(line + len, tail, strlen(tail));
        len += strlen(tail);
        write_all(line, len);
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
        char msg[LOG_LINE_MAX / 2];

        if (!log_enabled(level))
                return;
        vsnprintf(msg, sizeof(msg), fmt, ap);
        emit(level, msg, NULL);
}

void log_fields(int level, const char *msg, const char *fields_json)
{
        if (!log_enabled(level))
                return;
        emit(level, msg, fields_json);
}

#define LOG_FN(name, level)                                                                        \
        void name(const char *fmt, ...)                                                            \
        {                                                                                          \
                va_list ap;                                                                        \
                va_start(ap, fmt);                                                                 \
                log_vmsg(level, fmt, ap);                                                          \
                va_end(ap);                                                                        \
        }

LOG_FN(log_debug, LOG_LEVEL_DEBUG)
LOG_FN(log_info, LOG_LEVEL_INFO)
LOG_FN(log_warn, LOG_LEVEL_WARN)
LOG_FN(log_error, LOG_LEVEL_ERROR)
