/*
 * models.c - GET /api/v1/models and GET /api/v1/models/{id}: the model
 * catalog from the snapshot, with the architecture the importer derived,
 * the parameter count the engine computes from it and the published count
 * with its source.
 */
#include <string.h>

#include "api/catalog_common.h"
#include "api/estimate.h"
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

void api_models_list(const struct api_request *rq, struct api_response *rs)
{
        const struct catalog_snapshot *s = api_catalog_snapshot(rq, rs);
        size_t n;
        const struct catalog_model *m;
        json_t *arr;

        if (!s)
                return;
        if (api_catalog_etag(rq, rs, s)) {
                catalog_release(s);
                return;
        }
        m = catalog_models(s, &n);
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++)
                json_array_append_new(arr, model_json(&m[i], false));
        if (!arr)
                api_problem(rs, 500, "out of memory");
        else
                api_reply_json(rs, 200,
                               json_pack("{s:o, s:i}", "models", arr, "count", (json_int_t)n));
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
