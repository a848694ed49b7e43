/*
 * log.h - structured logging: one JSON object per line on stdout.
 *
 * Every line carries "ts" (UTC, RFC 3339 with milliseconds), "level" and
 * "msg"; the access log adds request fields through log_access().
 * Lines below the process-wide level (GPUPLAN_LOG_LEVEL, set once at start
 * with log_set_level()) are dropped before formatting.
 *
 * Memory: nothing is allocated (the access-log batch is a static buffer);
 * a line longer than LOG_LINE_MAX bytes is cut and marked with
 * "truncated":true rather than split.
 *
 * Thread-safety: every function may be called from any thread.  Lines are
 * written whole, so lines from different threads never interleave.  Access
 * lines (log_access) are batched for at most 100 ms; any other line writes
 * the batch out first, and so does exit (atexit) and log_flush().
 */
#ifndef GPUPLAN_LOG_H
#define GPUPLAN_LOG_H

#include <stdarg.h>
#include <stddef.h>

#define LOG_LINE_MAX 4096

enum log_level {
        LOG_LEVEL_DEBUG = 0,
        LOG_LEVEL_INFO,
        LOG_LEVEL_WARN,
        LOG_LEVEL_ERROR,
};

/* Parse "debug", "info", "warn"/"warning" or "error" (any case); -1 if unknown. */
int log_level_parse(const char *name);
/* Set the process-wide threshold; lines below it are dropped. */
void log_set_level(int level);
int log_get_level(void);
/* Nonzero when a line at this level would be written (skip costly formatting). */
int log_enabled(int level);

/* printf-style message at a level.  The message becomes the "msg" string. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_vmsg(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/*
 * Write one line whose fields after ts/level/msg are already-encoded JSON
 * members, e.g. "\"status\":200,\"path\":\"/x\"" (no leading comma).
 * Use log_json_string() to encode string values.
 */
void log_fields(int level, const char *msg, const char *fields_json);

/*
 * An info line with msg "request" and these fields (as log_fields), kept
 * in a 64 KiB batch that a background thread writes every 100 ms: one
 * write(2) per batch instead of per request.  Started on first use.
 */
void log_access(const char *fields_json);

/* Write out the batched access lines now. */
void log_flush(void);

/*
 * Append s as a JSON string literal (quotes included) to buf, which holds
 * *len bytes of cap.  Control characters and invalid UTF-8 bytes are
 * escaped (\u00XX).  Returns 0, or -1 if it did not fit (buf is then left
 * NUL-terminated at its previous length).
 */
int log_json_string(char *buf, size_t cap, size_t *len, const char *s);

#endif
