/*
 * body.c - a request body as one JSON object; see body.h.
 */
#include "api/body.h"

#include <stdio.h>

json_t *api_body_object(const struct api_request *rq, struct api_response *rs)
{
        json_error_t jerr;
        json_t *doc;
        char detail[300];

        if (!rq->body || rq->body_len == 0) {
                api_problem_field(rs, 400, "", "required", "the request needs a JSON body");
                return NULL;
        }
        doc = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
        if (!doc) {
                snprintf(detail, sizeof(detail), "invalid JSON at line %d column %d: %s", jerr.line,
                         jerr.column, jerr.text);
                api_problem_field(rs, 400, "", "json", detail);
                return NULL;
        }
        if (!json_is_object(doc)) {
                json_decref(doc);
                api_problem_field(rs, 400, "", "type", "the body must be a JSON object");
                return NULL;
        }
        return doc;
}
