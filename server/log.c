/*
 * log.c - JSON-lines logger; see log.h.
 */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "json/text.h"

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

int log_json_string(char *buf, size_t cap, size_t *len, const char *s)
{
        static const char hex[] = "0123456789abcdef";
        size_t at = *len;
        const unsigned char *p = (const unsigned char *)(s ? s : "");
        const unsigned char *end = p + strlen((const char *)p);

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
                size_t n = text_utf8_sequence(p, (size_t)(end - p));
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

/*
 * Access-log lines are batched: one write(2) per request was a third of
 * the server's system calls (measured with strace -c under wrk).  Lines
 * wait in this buffer at most LOG_FLUSH_MS, as with nginx's
 * "access_log ... buffer= flush=", and every other line first writes out
 * what is pending, so the order of lines is kept.
 */
#define LOG_BUFFER_BYTES (64u * 1024u)
#define LOG_FLUSH_MS     100

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static char pending[LOG_BUFFER_BYTES];
static size_t pending_len;
static bool no_flusher; /* the thread could not start: nothing is batched */
static pthread_once_t flusher_once = PTHREAD_ONCE_INIT;

/* Write out the pending lines; pending_lock held. */
static void flush_locked(void)
{
        write_all(pending, pending_len);
        pending_len = 0;
}

void log_flush(void)
{
        pthread_mutex_lock(&pending_lock);
        flush_locked();
        pthread_mutex_unlock(&pending_lock);
}

static void *flusher(void *arg)
{
        (void)arg;
        for (;;) {
                struct timespec ts = {0, LOG_FLUSH_MS * 1000L * 1000L};
                nanosleep(&ts, NULL);
                log_flush();
        }
        return NULL;
}

static void flusher_start(void)
{
        pthread_t t;
        pthread_attr_t attr;

        atexit(log_flush);
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, flusher, NULL) != 0) {
                pthread_mutex_lock(&pending_lock);
                no_flusher = true;
                pthread_mutex_unlock(&pending_lock);
        }
        pthread_attr_destroy(&attr);
}

/* One finished line: batched when buffered, else written after the batch. */
static void write_line(const char *line, size_t len, bool buffered)
{
        if (buffered)
                pthread_once(&flusher_once, flusher_start);
        pthread_mutex_lock(&pending_lock);
        if (no_flusher)
                buffered = false;
        if (!buffered || pending_len + len > sizeof(pending))
                flush_locked();
        if (buffered) {
                memcpy(pending + pending_len, line, len);
                pending_len += len;
        } else {
                write_all(line, len);
        }
        pthread_mutex_unlock(&pending_lock);
}

/*
 * The line prefix up to the seconds ("{\"ts\":\"2026-11-25T04:50:28") is
 * the same for every line of a second: each thread keeps the last one it
 * formatted, and only the milliseconds and level are written per line.
 */
static size_t put_prefix(char *buf, size_t cap, int level)
{
        static _Thread_local time_t cached_sec = -1;
        static _Thread_local char cached[40];
        static _Thread_local size_t cached_len;
        struct timespec ts;
        size_t n;
        long ms;

        clock_gettime(CLOCK_REALTIME, &ts);
        if (ts.tv_sec != cached_sec) {
                struct tm tm;
                gmtime_r(&ts.tv_sec, &tm);
                int k = snprintf(cached, sizeof(cached), "{\"ts\":\"%04d-%02d-%02dT%02d:%02d:%02d",
                                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                                 tm.tm_min, tm.tm_sec);
                if (k < 0 || (size_t)k >= sizeof(cached))
                        return 0;
                cached_len = (size_t)k;
                cached_sec = ts.tv_sec;
        }
        const char *lv = level_names[level];
        size_t lvl = strlen(lv);
        n = cached_len + 5 + 12 + lvl + 2;
        if (n >= cap)
                return 0;
        memcpy(buf, cached, cached_len);
        n = cached_len;
        ms = ts.tv_nsec / 1000000L;
        buf[n++] = '.';
        buf[n++] = (char)('0' + ms / 100);
        buf[n++] = (char)('0' + ms / 10 % 10);
        buf[n++] = (char)('0' + ms % 10);
        memcpy(buf + n, "Z\",\"level\":\"", 12);
        n += 12;
        memcpy(buf + n, lv, lvl);
        n += lvl;
        buf[n++] = '"';
        buf[n++] = ',';
        buf[n] = '\0';
        return n;
}

static void emit(int level, const char *msg, const char *fields_json, bool buffered)
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
        write_line(line, len, buffered);
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
        char msg[LOG_LINE_MAX / 2];

        if (!log_enabled(level))
                return;
        vsnprintf(msg, sizeof(msg), fmt, ap);
        emit(level, msg, NULL, false);
}

void log_fields(int level, const char *msg, const char *fields_json)
{
        if (!log_enabled(level))
                return;
        emit(level, msg, fields_json, false);
}

void log_access(const char *fields_json)
{
        if (!log_enabled(LOG_LEVEL_INFO))
                return;
        emit(LOG_LEVEL_INFO, "request", fields_json, true);
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
