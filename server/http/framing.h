/*
 * framing.h - decide from a request's headers whether its message framing
 * is one this server reads the same way as every proxy in front of it.
 *
 * libmicrohttpd 0.9.75 frames a body by the first Content-Length it finds
 * and reads any Transfer-Encoding other than "chunked" as "until the
 * connection closes"; a proxy may frame the same bytes differently (by
 * the last Content-Length, or by the chunked coding it sees last), and
 * what one of them takes for the rest of a body the other runs as a
 * second request.  So a request is refused from its headers, before a
 * byte of its body is read, when (RFC 9112 section 6):
 *
 *   - a header name is not a token, or a value holds a control character
 *     (anything below 0x20 but HTAB, and DEL; section 5.5 of RFC 9110
 *     makes them invalid, and a bare CR is one) - 400;
 *   - Content-Length appears more than once, equal or not (section 6.3,
 *     rule 5: a recipient may reject duplicates) - 400;
 *   - Transfer-Encoding and Content-Length both appear (section 6.1: "ought
 *     to be handled as an error") - 400;
 *   - Host appears more than once, or not at all in an HTTP/1.1 request
 *     (RFC 9112 section 3.2: a server "MUST respond with a 400 (Bad
 *     Request)" to both; the second only when the caller sets
 *     host_required, as libmicrohttpd 0.9.75 leaves it to the
 *     application unless its strict mode is on, whose own reply writes
 *     its header block twice) - 400;
 *   - Transfer-Encoding is anything but one "chunked" (case-insensitive),
 *     e.g. "gzip, chunked", two headers, or an unknown coding: a server
 *     "SHOULD respond with 501 (Not Implemented)" (section 6.1) - 501.
 *
 * What libmicrohttpd decides before any header reaches us (a NUL inside a
 * header value ends the value there; a malformed chunk-size line) is not
 * seen here: http/server.c says how each is bounded.
 *
 * Memory: nothing allocated; the state lives in the caller's struct.
 * Thread-safety: pure functions of their arguments.
 */
#ifndef GPUPLAN_HTTP_FRAMING_H
#define GPUPLAN_HTTP_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

struct framing {
        unsigned content_lengths;
        unsigned transfer_encodings;
        unsigned hosts;
        bool host_required; /* set by the caller for an HTTP/1.1 request */
        bool chunked;       /* the one Transfer-Encoding is exactly "chunked" */
        int bad_status;     /* the first refusal seen: 400, or 0 */
        char detail[160];
};

/* Start with no header seen (and no Host required: set host_required
 * after this for an HTTP/1.1 request). */
void framing_init(struct framing *f);

/* Feed one header as it arrived: its name and value with their lengths
 * (a value may hold bytes a C string cannot). */
void framing_header(struct framing *f, const char *name, size_t name_len, const char *value,
                    size_t value_len);

/* After the last header: 0 when the framing is acceptable, else the status
 * to answer (400 or 501) with *detail set to a sentence saying why. */
int framing_verdict(const struct framing *f, const char **detail);

/* Whether the request announced a body (a Content-Length above zero or a
 * chunked coding): a valid verdict is needed first. */
bool framing_has_body(const struct framing *f, const char *content_length);

#endif
