/*
 * catalog_json.c - the catalog's entities as the API shows them: one
 * encoder per entity, shared by the handlers, the per-snapshot rendering
 * (catalog_render.c) and the write replies (api/catalog.c).
 */
#include "api/catalog_json.h"

#include <math.h>
#include <string.h>

#include "api/estimate_encode.h"

json_t *catalog_json_num(double v)
{
        return v == 0 || !isfinite(v) ? json_null() : json_real(v);
}

json_t *catalog_json_u64(uint64_t v)
{
        return v == 0 || v > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)v);
}

json_t *catalog_json_int(int64_t v)
{
        return v == 0 ? json_null() : json_integer((json_int_t)v);
}

json_t *catalog_json_str(const char *s)
{
        return s ? json_string(s) : json_null();
}

const char *const catalog_json_precision_keys[GPU_PRECISION_COUNT] = {
        [GPU_FP32] = "fp32", [GPU_TF32] = "tf32", [GPU_FP16] = "fp16",
        [GPU_BF16] = "bf16", [GPU_FP8] = "fp8",   [GPU_INT8] = "int8",
};

/* Current prices of the offerings built on gpu index gi, for the detail view. */
static json_t *gpu_offerings(const struct catalog_snapshot *s, size_t gi)
{
        size_t n_off, n_prov;
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        const struct catalog_provider *prov = catalog_providers(s, &n_prov);
        json_t *arr = json_array();

        for (size_t i = 0; arr && i < n_off; i++) {
                json_t *prices;

                if (off[i].gpu_index != gi)
                        continue;
                prices = json_array();
                for (int p = 0; prices && p < CATALOG_PRICING_COUNT; p++) {
                        const struct catalog_price *pr =
                                catalog_price(s, off[i].id, (enum catalog_pricing)p);

                        if (pr)
                                json_array_append_new(prices, catalog_json_price(s, pr));
                }
                json_array_append_new(
                        arr, json_pack("{s:s, s:s, s:s, s:i, s:s, s:o}", "offering", off[i].id,
                                       "provider", prov[off[i].provider_index].id, "instance_type",
                                       off[i].instance_type, "gpus_per_instance",
                                       off[i].gpus_per_instance, "region", off[i].region, "prices",
                                       prices ? prices : json_array()));
        }
        return arr;
}

static json_t *gpu_purchase_prices(const struct catalog_snapshot *s, size_t gi)
{
        size_t n;
        const struct catalog_purchase_price *pp = catalog_purchase_prices(s, &n);
        json_t *arr = json_array();

        for (size_t i = 0; arr && i < n; i++)
                if (pp[i].gpu_index == gi)
                        json_array_append_new(arr, catalog_json_purchase_price(s, &pp[i]));
        return arr;
}

json_t *catalog_json_gpu(const struct catalog_snapshot *s, size_t index, bool detail)
{
        size_t n;
        const struct gpu_spec *g = catalog_gpus(s, &n);
        const struct catalog_gpu_info *info = catalog_gpu_infos(s, &n);
        json_t *flops = json_object(), *o;

        if (index >= n || !flops) {
                json_decref(flops);
                return NULL;
        }
        g += index;
        info += index;
        for (int p = 0; p < GPU_PRECISION_COUNT; p++)
                json_object_set_new(flops, catalog_json_precision_keys[p],
                                    catalog_json_num(g->flops[p]));
        json_object_set_new(flops, "fp16_accumulate", catalog_json_num(g->fp16_accumulate_flops));
        o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "id", g->id,
                      "name", g->name, "vendor", g->vendor, "kind", g->kind, "form_factor",
                      info->form_factor, "chips_per_board", info->chips_per_board, "memory_bytes",
                      catalog_json_u64(g->memory_bytes), "usable_memory_bytes",
                      info->usable_memory_known ? catalog_json_u64(g->usable_memory_bytes)
                                                : json_null(),
                      "memory_type", catalog_json_str(info->memory_type),
                      "memory_bandwidth_bytes_per_s", catalog_json_num(g->memory_bandwidth_bytes_per_s),
                      "throughput_flops", flops, "tdp_watts", catalog_json_num(g->tdp_watts));
        if (!o)
                return NULL;
        json_object_set_new(o, "interconnect_kind", json_string(info->interconnect_kind));
        json_object_set_new(o, "interconnect", catalog_json_str(info->interconnect));
        json_object_set_new(o, "interconnect_bytes_per_s",
                            catalog_json_num(info->interconnect_bytes_per_s));
        json_object_set_new(o, "host_interface", catalog_json_str(info->host_interface));
        json_object_set_new(o, "host_bytes_per_s", catalog_json_num(g->host_link_bytes_per_s));
        json_object_set_new(o, "launch_year", catalog_json_int(g->launch_year));
        json_object_set_new(o, "launch_price_usd", catalog_json_num(info->launch_price_usd));
        json_object_set_new(o, "can_train", json_boolean(g->can_train));
        json_object_set_new(o, "can_infer", json_boolean(info->can_infer));
        json_object_set_new(o, "cuda", json_boolean(g->cuda));
        json_object_set_new(o, "frameworks", catalog_json_str(info->frameworks));
        json_object_set_new(o, "notes", catalog_json_str(info->notes));
        json_object_set_new(o, "source", json_string(info->source));
        json_object_set_new(o, "source_date", json_string(info->source_date));
        json_object_set_new(o, "updated_at", json_string(info->updated_at));
        json_object_set_new(o, "updated_by", json_string(info->updated_by));
        if (detail) {
                json_object_set_new(o, "offerings", gpu_offerings(s, index));
                json_object_set_new(o, "purchase_prices", gpu_purchase_prices(s, index));
        }
        return o;
}

json_t *catalog_json_price(const struct catalog_snapshot *s, const struct catalog_price *p)
{
        const struct catalog_offering *o = catalog_offering(s, p->offering_id);
        int per_instance = o ? o->gpus_per_instance : 0;
        json_t *doc;

        /* A price of 0 is real (free notebook tiers), so it is not sent as null here. */
        doc = json_pack("{s:o, s:s, s:o, s:o, s:s, s:f, s:o, s:o, s:s, s:s}", "provider",
                        catalog_json_str(o ? o->provider_id : NULL), "offering", p->offering_id, "gpu",
                        catalog_json_str(o ? o->accelerator_id : NULL), "gpus_per_instance",
                        catalog_json_int(per_instance), "pricing", catalog_pricing_name(p->pricing),
                        "usd_per_hour", p->usd_per_hour, "usd_per_gpu_hour",
                        per_instance ? json_real(p->usd_per_hour / per_instance) : json_null(),
                        "region", catalog_json_str(o ? o->region : NULL), "as_of", p->as_of, "source",
                        p->source);
        if (!doc)
                return NULL;
        json_object_set_new(doc, "id", json_integer((json_int_t)p->id));
        json_object_set_new(doc, "instance_type", catalog_json_str(o ? o->instance_type : NULL));
        json_object_set_new(doc, "term_months", catalog_json_int(p->term_months));
        json_object_set_new(doc, "currency", json_string(p->currency ? p->currency : "USD"));
        json_object_set_new(doc, "recorded_at", catalog_json_str(p->recorded_at));
        json_object_set_new(doc, "recorded_by", catalog_json_str(p->recorded_by));
        return doc;
}

json_t *catalog_json_purchase_price(const struct catalog_snapshot *s,
                                    const struct catalog_purchase_price *p)
{
        const struct gpu_spec *g = catalog_gpu(s, p->accelerator_id);
        const struct catalog_gpu_info *infos;
        size_t n, gi = catalog_gpu_index(s, p->accelerator_id);

        infos = catalog_gpu_infos(s, &n);
        return json_pack("{s:I, s:s, s:o, s:o, s:s, s:f, s:s, s:s, s:o, s:o}", "id",
                         (json_int_t)p->id, "gpu", p->accelerator_id, "gpu_name",
                         catalog_json_str(g ? g->name : NULL), "chips_per_board",
                         gi < n ? catalog_json_int(infos[gi].chips_per_board) : json_null(),
                         "condition", p->condition, "usd", p->usd, "as_of", p->as_of, "source",
                         p->source, "recorded_at", catalog_json_str(p->recorded_at), "recorded_by",
                         catalog_json_str(p->recorded_by));
}

json_t *catalog_json_offering(const struct catalog_snapshot *s, const struct catalog_offering *o)
{
        size_t n;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        json_t *prices = json_array(), *doc;

        for (int p = 0; prices && p < CATALOG_PRICING_COUNT; p++) {
                const struct catalog_price *pr = catalog_price(s, o->id, (enum catalog_pricing)p);

                if (pr)
                        json_array_append_new(prices, catalog_json_price(s, pr));
        }
        doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:s,"
                        " s:s, s:o}",
                        "id", o->id, "provider", o->provider_id, "instance_type", o->instance_type,
                        "gpu", o->accelerator_id, "gpu_name",
                        o->gpu_index < n ? gpus[o->gpu_index].name : o->accelerator_id,
                        "gpus_per_instance", o->gpus_per_instance, "vcpus", catalog_json_int(o->vcpus),
                        "ram_bytes", catalog_json_u64(o->ram_bytes), "region", o->region,
                        "interconnect", catalog_json_str(o->interconnect), "interconnect_bytes_per_s",
                        catalog_json_num(o->interconnect_bytes_per_s), "network_bytes_per_s",
                        catalog_json_num(o->network_bytes_per_s), "notes", catalog_json_str(o->notes),
                        "source", o->source, "source_date", o->source_date, "prices",
                        prices ? prices : json_array());
        return doc;
}

json_t *catalog_json_provider(const struct catalog_snapshot *s, const struct catalog_provider *p,
                              bool with_offerings)
{
        json_t *doc = json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:s}", "id", p->id, "name", p->name,
                                "kind", p->kind, "url", catalog_json_str(p->url), "notes",
                                catalog_json_str(p->notes), "source", p->source, "source_date",
                                p->source_date);
        size_t n;
        const struct catalog_offering *off = catalog_offerings(s, &n);
        json_t *arr;

        if (!doc || !with_offerings)
                return doc;
        arr = json_array();
        for (size_t i = 0; arr && i < n; i++)
                if (strcmp(off[i].provider_id, p->id) == 0)
                        json_array_append_new(arr, catalog_json_offering(s, &off[i]));
        json_object_set_new(doc, "offerings", arr ? arr : json_array());
        return doc;
}

json_t *catalog_json_setting(const struct catalog_setting *st)
{
        /* A setting's value of 0 is meaningful (e.g. no host overhead): never null. */
        return json_pack("{s:s, s:f, s:s, s:s, s:s, s:s, s:s, s:s}", "key", st->key, "value",
                         st->value, "unit", st->unit, "description", st->description, "source",
                         st->source, "source_date", st->source_date, "updated_at", st->updated_at,
                         "updated_by", st->updated_by);
}

json_t *catalog_json_model(const struct catalog_model *m, bool detail)
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
                m->arch_ok ? estimate_encode_arch(&m->arch) : json_null());
        if (o) {
                json_t *hub = json_array();
                for (const char *p = m->hub_ids; hub && p && *p;) {
                        size_t len = strcspn(p, ",");
                        json_array_append_new(hub, json_stringn(p, len));
                        p = p[len] ? p + len + 1 : NULL;
                }
                json_object_set_new(o, "hub_ids", hub ? hub : json_array());
                json_object_set_new(o, "licence", catalog_json_str(m->licence));
                json_object_set_new(o, "released", catalog_json_str(m->released));
                json_object_set_new(o, "origin", json_string(m->team ? "team" : "catalog"));
        }
        if (o && detail) {
                json_error_t jerr;
                json_t *cfg = m->hf_config_json ? json_loads(m->hf_config_json, 0, &jerr) : NULL;
                json_object_set_new(o, "hf_config", cfg ? cfg : json_null());
                json_object_set_new(o, "notes", catalog_json_str(m->notes));
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
