/*
 * fields.c - the field readers of json/fields.h answering a handler's
 * response: an error record becomes its problem document; see fields.h.
 */
#include "api/fields.h"

void fields_problem(struct api_response *rs, const struct fields_error *err)
{
        api_problem_field(rs, err->status ? err->status : 400, err->pointer, err->rule,
                          err->detail);
}

/* ---- the same readers answering a handler's response at once ----------------- */

/* rc from a reader; on failure the record becomes rs's problem document. */
static int answer(struct api_response *rs, int rc, const struct fields_error *err)
{
        if (rc)
                fields_problem(rs, err);
        return rc;
}

int fields_string(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                  unsigned flags, size_t max_len, const char **out)
{
        struct fields_error err;
        return answer(rs, fields_read_string(&err, obj, prefix, key, flags, max_len, out), &err);
}

int fields_number(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                  unsigned flags, double min, double max, double *out)
{
        struct fields_error err;
        return answer(rs, fields_read_number(&err, obj, prefix, key, flags, min, max, out), &err);
}

int fields_int(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
               unsigned flags, int64_t min, int64_t max, int64_t *out)
{
        struct fields_error err;
        return answer(rs, fields_read_int(&err, obj, prefix, key, flags, min, max, out), &err);
}

int fields_bool(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                unsigned flags, bool *out)
{
        struct fields_error err;
        return answer(rs, fields_read_bool(&err, obj, prefix, key, flags, out), &err);
}

int fields_date(struct api_response *rs, json_t *obj, const char *prefix, const char *key,
                unsigned flags, const char **out)
{
        struct fields_error err;
        return answer(rs, fields_read_date(&err, obj, prefix, key, flags, out), &err);
}

int fields_known(struct api_response *rs, json_t *obj, const char *prefix,
                 const char *const *allowed)
{
        struct fields_error err;
        return answer(rs, fields_read_known(&err, obj, prefix, allowed), &err);
}
