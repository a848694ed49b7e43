/*
 * reply.c - filling a response: a JSON document, extra headers, and the
 * bare 500 when memory runs out while building one; see handler.h.
 * Problem documents are built in problem.c.
 */
#include <stdlib.h>
#include <string.h>

#include "api/handler.h"

static const char internal_error_body[] =
        "{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500,"
        "\"detail\":\"out of memory\"}";

/* The last-resort reply when building a document failed (no memory). */
static void reply_oom(struct api_response *rs)
{
        free(rs->body);
        rs->status = 500;
        rs->content_type = "application/problem+json";
        rs->body = strdup(internal_error_body);
        rs->body_len = rs->body ? strlen(rs->body) : 0;
}

void api_reply_doc(struct api_response *rs, int status, const char *content_type, json_t *doc)
{
        char *text;

        if (!doc) {
                reply_oom(rs);
                return;
        }
        /*
         * Reals with 15 significant digits: every figure we serve (prices
         * stored as numeric(14,6), seconds, fractions) is shown as written
         * (55.04, not 55.039999999999999), and 15 digits is the most a
         * double always carries faithfully (DBL_DIG).
         */
        text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(15));
        json_decref(doc);
        if (!text) {
                reply_oom(rs);
                return;
        }
        free(rs->body);
        rs->status = status;
        rs->content_type = content_type;
        rs->body = text;
        rs->body_len = strlen(text);
}

void api_reply_json(struct api_response *rs, int status, json_t *doc)
{
        api_reply_doc(rs, status, "application/json", doc);
}

int api_reply_header_add(struct api_response *rs, const char *name, const char *value)
{
        struct api_header *h;
        size_t nl = strlen(name);
        size_t vl = strlen(value);

        if (rs->n_headers >= API_RESPONSE_HEADERS_MAX || nl >= sizeof(h->name) ||
            vl >= sizeof(h->value))
                return -1;
        /* Header injection: no CR/LF in values. */
        if (strpbrk(value, "\r\n") || strpbrk(name, "\r\n: "))
                return -1;
        h = &rs->headers[rs->n_headers++];
        memcpy(h->name, name, nl + 1);
        memcpy(h->value, value, vl + 1);
        return 0;
}
