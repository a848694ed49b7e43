/*
 * problem.c - RFC 9457 problem documents; see handler.h.
 *
 * Every problem document the service sends is built here, so their shape
 * (RFC 9457 section 3: type, title, status, detail; plus "errors" with a
 * JSON pointer and the rule broken, after the RFC's own multi-error
 * example in section 3) is the same for every endpoint and for errors
 * raised by the transport (404, 405, 413, ...).
 */
#include <jansson.h>

#include "api/handler.h"

/* "title" for type "about:blank" is the status phrase (RFC 9457 section 4.2.1). */
static const char *status_title(int status)
{
        switch (status) {
        case 400:
                return "Bad Request";
        case 401:
                return "Unauthorized";
        case 403:
                return "Forbidden";
        case 404:
                return "Not Found";
        case 405:
                return "Method Not Allowed";
        case 406:
                return "Not Acceptable";
        case 408:
                return "Request Timeout";
        case 409:
                return "Conflict";
        case 410:
                return "Gone";
        case 411:
                return "Length Required";
        case 412:
                return "Precondition Failed";
        case 413:
                return "Content Too Large";
        case 414:
                return "URI Too Long";
        case 415:
                return "Unsupported Media Type";
        case 422:
                return "Unprocessable Content";
        case 428:
                return "Precondition Required";
        case 429:
                return "Too Many Requests";
        case 431:
                return "Request Header Fields Too Large";
        case 500:
                return "Internal Server Error";
        case 501:
                return "Not Implemented";
        case 502:
                return "Bad Gateway";
        case 503:
                return "Service Unavailable";
        case 504:
                return "Gateway Timeout";
        default:
                return status >= 500 ? "Server Error" : "Client Error";
        }
}

static json_t *problem_new(int status, const char *detail)
{
        if (status < 400 || status > 599)
                status = 500;
        return json_pack("{s:s, s:s, s:i, s:s}", "type", "about:blank", "title",
                         status_title(status), "status", status, "detail",
                         detail && *detail ? detail : status_title(status));
}

void api_problem(struct api_response *rs, int status, const char *detail)
{
        if (status < 400 || status > 599)
                status = 500;
        api_reply_doc(rs, status, "application/problem+json", problem_new(status, detail));
}

void api_problem_field(struct api_response *rs, int status, const char *pointer, const char *rule,
                       const char *detail)
{
        json_t *doc;
        json_t *item;

        if (status < 400 || status > 599)
                status = 500;
        pointer = pointer ? pointer : "";
        rule = rule ? rule : "invalid";
        doc = problem_new(status, detail);
        item = json_pack("{s:s, s:s, s:s}", "pointer", pointer, "rule", rule, "detail",
                         detail && *detail ? detail : status_title(status));
        if (!doc || !item) {
                json_decref(doc);
                json_decref(item);
                api_reply_doc(rs, status, "application/problem+json", NULL);
                return;
        }
        if (json_object_set_new(doc, "pointer", json_string(pointer)) ||
            json_object_set_new(doc, "rule", json_string(rule)) ||
            json_object_set_new(doc, "errors", json_pack("[o]", item))) {
                json_decref(doc);
                api_reply_doc(rs, status, "application/problem+json", NULL);
                return;
        }
        api_reply_doc(rs, status, "application/problem+json", doc);
}
