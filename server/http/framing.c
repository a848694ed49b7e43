/*
 * framing.c - request framing checks (see framing.h for the rules and
 * their sources in RFC 9110 and RFC 9112).
 */
#include "http/framing.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void framing_init(struct framing *f)
{
        memset(f, 0, sizeof(*f));
}

/* tchar (RFC 9110 section 5.6.2). */
static bool is_tchar(unsigned char c)
{
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                return true;
        return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool name_is(const char *name, size_t len, const char *want)
{
        return len == strlen(want) && strncasecmp(name, want, len) == 0;
}

static void refuse(struct framing *f, int status, const char *detail)
{
        if (f->bad_status)
                return;
        f->bad_status = status;
        snprintf(f->detail, sizeof(f->detail), "%s", detail);
}

void framing_header(struct framing *f, const char *name, size_t name_len, const char *value,
                    size_t value_len)
{
        if (!name || name_len == 0) {
                refuse(f, 400, "a header has no name");
                return;
        }
        for (size_t i = 0; i < name_len; i++)
                if (!is_tchar((unsigned char)name[i])) {
                        refuse(f, 400, "a header name holds a character HTTP does not allow");
                        return;
                }
        for (size_t i = 0; value && i < value_len; i++) {
                unsigned char c = (unsigned char)value[i];
                if ((c < 0x20 && c != '\t') || c == 0x7f) {
                        char d[sizeof(f->detail)];
                        /* the name is a token: safe to repeat */
                        snprintf(d, sizeof(d), "the %.*s header holds a control character (0x%02X)",
                                 (int)(name_len > 64 ? 64 : name_len), name, c);
                        refuse(f, 400, d);
                        return;
                }
        }
        if (name_is(name, name_len, "Content-Length")) {
                f->content_lengths++;
        } else if (name_is(name, name_len, "Host")) {
                f->hosts++;
        } else if (name_is(name, name_len, "Transfer-Encoding")) {
                f->transfer_encodings++;
                f->chunked = value && value_len == 7 && strncasecmp(value, "chunked", 7) == 0;
        }
}

int framing_verdict(const struct framing *f, const char **detail)
{
        if (f->bad_status) {
                *detail = f->detail;
                return f->bad_status;
        }
        if (f->content_lengths > 1) {
                *detail = "the request has more than one Content-Length header";
                return 400;
        }
        if (f->transfer_encodings && f->content_lengths) {
                *detail = "the request has both Transfer-Encoding and Content-Length";
                return 400;
        }
        if (f->hosts > 1) {
                *detail = "the request has more than one Host header";
                return 400;
        }
        if (f->host_required && f->hosts == 0) {
                *detail = "an HTTP/1.1 request must carry a Host header";
                return 400;
        }
        if (f->transfer_encodings > 1 || (f->transfer_encodings && !f->chunked)) {
                *detail = "the only transfer coding accepted is \"Transfer-Encoding: chunked\"; "
                          "send the body with Content-Length or chunked";
                return 501;
        }
        return 0;
}

bool framing_has_body(const struct framing *f, const char *content_length)
{
        if (f->chunked)
                return true;
        return content_length && strspn(content_length, "0") != strlen(content_length);
}
