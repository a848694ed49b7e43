/*
 * models.c - GET /api/v1/models and GET /api/v1/models/{id}: the model
 * catalog from the snapshot, with the architecture the importer derived,
 * the parameter count the engine computes from it and the published count
 * with its source.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/catalog_common.h"
#include "api/estimate.h"
#include "api/text.h"
#include "api/validation.h"

static json_t *model_json(const struct catalog_model *m, bool detail)
{
        uint64_t counted = m->arch_ok ? model_parameters(&m->arch) : 0;
        double err = counted && m->published_parameters
                             ? ((double)counted - (double)m->published_parameters) /
                                       (double)m->published_parameters
                             : 0;
        json_t *o = json_pack(
                "{s:s, s:s, s:s, s:I, s:s, s:o, s:o, s:o}", "id", m->id, "name", m->name, "family",
                m->family, "published_parameters", (json_int_t)m->published_parameters,
                "parameters_source", m->parameters_source ? m->parameters_source : "", "parameters",
                counted ? json_integer((json_int_t)counted) : json_null(), "parameters_error",
                counted ? json_real(err) : json_null(), "architecture",
                m->arch_ok ? api_model_arch_encode(&m->arch) : json_null());
        if (o) {
                json_t *hub = json_array();
                for (const char *p = m->hub_ids; hub && p && *p;) {
                        size_t len = strcspn(p, ",");
                        json_array_append_new(hub, json_stringn(p, len));
                        p = p[len] ? p + len + 1 : NULL;
                }
                json_object_set_new(o, "hub_ids", hub ? hub : json_array());
                json_object_set_new(o, "licence", api_json_str(m->licence));
                json_object_set_new(o, "released", api_json_str(m->released));
        }
        if (o && detail) {
                json_error_t jerr;
                json_t *cfg = m->hf_config_json ? json_loads(m->hf_config_json, 0, &jerr) : NULL;
                json_object_set_new(o, "hf_config", cfg ? cfg : json_null());
                json_object_set_new(o, "notes", api_json_str(m->notes));
                if (m->arch_ok) {
                        struct model_param_breakdown b;
                        if (model_param_breakdown(&m->arch, &b) == 0)
                                json_object_set_new(
                                        o, "parameter_breakdown",
                                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "embeddings",
                                                  (json_int_t)b.embeddings, "linear",
                                                  (json_int_t)b.linear, "linear_active",
                                                  (json_int_t)b.linear_active, "norms_and_biases",
                                                  (json_int_t)b.small, "lm_head",
                                                  (json_int_t)b.lm_head, "head_extra",
                                                  (json_int_t)b.head_extra));
                        json_object_set_new(
                                o, "kv_cache_elements_per_token",
                                json_integer((json_int_t)model_kv_elements_per_token(&m->arch)));
                }
        }
        return o;
}

/* A whole-number query parameter in [lo, hi]; absent leaves *out. */
static int query_u64(const struct api_request *rq, struct api_response *rs, const char *key,
                     uint64_t lo, uint64_t hi, uint64_t *out)
{
        const char *v = rq->query(rq, key);
        char ptr[40], why[160], *end;
        unsigned long long x;
        if (!v)
                return 0;
        errno = 0;
        x = strtoull(v, &end, 10);
        if (errno || *end || !*v || v[0] == '-' || x < lo || x > hi) {
                snprintf(ptr, sizeof(ptr), "?%s", key);
                snprintf(why, sizeof(why), "%s must be a whole number in %llu..%llu", key,
                         (unsigned long long)lo, (unsigned long long)hi);
                api_problem_field(rs, 400, ptr, "range", why);
                return -1;
        }
        *out = x;
        return 0;
}

static bool contains_nocase(const char *hay, const char *needle)
{
        size_t n = strlen(needle);
        for (; hay && *hay; hay++)
                if (strncasecmp(hay, needle, n) == 0)
                        return true;
        return false;
}

/* Case-insensitive substring over id, name, family and Hub ids. */
static bool model_matches_text(const struct catalog_model *m, const char *q)
{
        return contains_nocase(m->id, q) || contains_nocase(m->name, q) ||
               contains_nocase(m->family, q) || contains_nocase(m->hub_ids, q);
}

/*
 * GET /api/v1/models: the catalog, filtered by ?family= (exact, any case),
 * ?kind= (encoder, decoder, encoder_decoder), ?min_parameters= and
 * ?max_parameters= (published counts), ?q= (text in id, name, family or a
 * Hub id), and paged by ?limit= (1..1000, default 100) and ?offset=.
 * "count" is the number of matches before paging.
 */
void api_models_list(const struct api_request *rq, struct api_response *rs)
{
        const char *family = rq->query(rq, "family"), *kind_q = rq->query(rq, "kind");
        const char *q = rq->query(rq, "q");
        uint64_t min_p = 0, max_p = UINT64_MAX, limit = 100, offset = 0;
        enum model_kind kind = MODEL_KIND_COUNT;
        const struct catalog_snapshot *s;
        const struct catalog_model *m;
        size_t n, matched = 0;
        json_t *arr;

        if (query_u64(rq, rs, "min_parameters", 0, UINT64_MAX, &min_p) ||
            query_u64(rq, rs, "max_parameters", 0, UINT64_MAX, &max_p) ||
            query_u64(rq, rs, "limit", 1, 1000, &limit) ||
            query_u64(rq, rs, "offset", 0, 1000000, &offset))
                return;
        if (kind_q && model_kind_parse(kind_q, &kind)) {
                api_problem_field(rs, 400, "?kind", "enum",
                                  "kind must be encoder, decoder or encoder_decoder");
                return;
        }
        if (q && text_chars(q, strlen(q)) > 128) { /* characters (api/text.h) */
                api_problem_field(rs, 400, "?q", "maxLength", "q must be at most 128 characters");
                return;
        }
        s = api_catalog_snapshot(rq, rs);
        if (!s)
                return;
        if (api_catalog_etag(rq, rs, s)) {
                catalog_release(s);
                return;
        }
        m = catalog_models(s, &n);
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++) {
                if ((family && strcasecmp(m[i].family, family)) ||
                    (kind != MODEL_KIND_COUNT && (!m[i].arch_ok || m[i].arch.kind != kind)) ||
                    m[i].published_parameters < min_p || m[i].published_parameters > max_p ||
                    (q && *q && !model_matches_text(&m[i], q)))
                        continue;
                if (matched >= offset && matched - offset < limit)
                        json_array_append_new(arr, model_json(&m[i], false));
                matched++;
        }
        if (!arr)
                api_problem(rs, 500, "out of memory");
        else
                api_reply_json(rs, 200,
                               json_pack("{s:o, s:I, s:I, s:I}", "models", arr, "count",
                                         (json_int_t)matched, "limit", (json_int_t)limit, "offset",
                                         (json_int_t)offset));
        catalog_release(s);
}

void api_models_get(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        const struct catalog_model *m;
        json_t *o;

        if (!s)
                return;
        m = rq->n_params ? catalog_model(s, rq->params[0]) : NULL;
        if (!m) {
                char why[600];
                api_problem(rs, 404,
                            api_model_not_found(s, rq->n_params ? rq->params[0] : "", why,
                                                sizeof(why)));
                catalog_release(s);
                return;
        }
        if (api_catalog_etag(rq, rs, s)) {
                catalog_release(s);
                return;
        }
        o = model_json(m, true);
        if (!o)
                api_problem(rs, 500, "out of memory");
        else
                api_reply_json(rs, 200, o);
        catalog_release(s);
}
