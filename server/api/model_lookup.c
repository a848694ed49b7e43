/*
 * model_lookup.c - Hub models in an estimate request (see model_lookup.h).
 */
#include "api/model_lookup.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/model_not_found.h"
#include "app.h"
#include "catalog/catalog.h"
#include "config.h"
#include "core/estimate.h"
#include "models/hf_config.h"
#include "models/hub.h"
#include "models/model_id.h"
#include "api/estimate_decode.h"
#include "api/estimate_encode.h"
#include "db/resolve.h"

#define REVISION_MAX 200

static unsigned config_group(json_t *q, const char *key)
{
        json_t *g = json_object_get(q, key);
        json_int_t v = json_is_integer(g) ? json_integer_value(g) : 0;
        return v >= 16 && v <= 65536 ? (unsigned)v : 0;
}

static int bits_of(json_t *q, const char *key)
{
        json_t *b = json_object_get(q, key);
        return json_is_integer(b) ? (int)json_integer_value(b) : 0;
}

int api_model_lookup_quantization(json_t *config, const char **quantization, unsigned *group_size,
                                  char *format, size_t formatlen)
{
        json_t *q = json_object_get(config, "quantization_config");
        const char *m;

        if (!q && json_is_object(json_object_get(config, "text_config")))
                q = json_object_get(json_object_get(config, "text_config"), "quantization_config");
        m = json_string_value(json_object_get(q, "quant_method"));
        *group_size = 0;
        if (!m)
                return -1;
        if (!strcasecmp(m, "gptq") || !strcasecmp(m, "awq")) {
                /* GPTQConfig / AwqConfig (transformers utils/quantization_config.py):
                 * bits (AutoAWQ writes w_bit), group_size (q_group_size). */
                int bits = bits_of(q, "bits") ? bits_of(q, "bits") : bits_of(q, "w_bit");
                *quantization = bits == 8 ? "int8" : "int4";
                *group_size = config_group(q, "group_size") ? config_group(q, "group_size")
                                                            : config_group(q, "q_group_size");
                snprintf(format, formatlen, "%s %d-bit", !strcasecmp(m, "gptq") ? "GPTQ" : "AWQ",
                         bits ? bits : 4);
                return 0;
        }
        if (!strcasecmp(m, "bitsandbytes")) {
                /* BitsAndBytesConfig: load_in_4bit (nf4 or fp4 codes, 4 bits
                 * and a scale per 64) or load_in_8bit (LLM.int8()). */
                bool four = json_is_true(json_object_get(q, "load_in_4bit")) ||
                            json_is_true(json_object_get(q, "_load_in_4bit"));
                *quantization = four ? "nf4" : "int8";
                snprintf(format, formatlen, "bitsandbytes %s", four ? "4-bit" : "8-bit");
                return 0;
        }
        if (!strcasecmp(m, "fp8")) {
                /* FineGrainedFP8Config: e4m3 weights with a scale per 128 x 128
                 * block (DeepSeek-V3, Kimi K2). */
                *quantization = "fp8";
                snprintf(format, formatlen, "fp8");
                return 0;
        }
        if (!strcasecmp(m, "compressed-tensors")) {
                /* compressed-tensors: config_groups.{group}.weights {num_bits,
                 * type "int" | "float", group_size}. */
                json_t *groups = json_object_get(q, "config_groups"), *g;
                const char *k;
                json_object_foreach(groups, k, g)
                {
                        json_t *w = json_object_get(g, "weights");
                        int bits = bits_of(w, "num_bits");
                        const char *type = json_string_value(json_object_get(w, "type"));
                        if (bits == 4) {
                                *quantization = "int4";
                                *group_size = config_group(w, "group_size");
                        } else if (bits == 8 && type && !strcmp(type, "float")) {
                                *quantization = "fp8";
                        } else if (bits == 8) {
                                *quantization = "int8";
                        } else {
                                continue;
                        }
                        snprintf(format, formatlen, "compressed-tensors %s %d-bit",
                                 type ? type : "int", bits);
                        return 0;
                }
                return -1;
        }
        if (!strcasecmp(m, "mxfp4")) {
                /* Mxfp4Config: gpt-oss stores its routed experts in MXFP4
                 * and lists every other module in modules_to_not_convert
                 * (self_attn, router, embed_tokens, lm_head): the engine's
                 * mxfp4 quantizes the experts alone (derive.c). */
                *quantization = "mxfp4";
                snprintf(format, formatlen, "MXFP4");
                return 0;
        }
        return -1;
}

static uint64_t safetensors_parameters(const char *text, char *dtypes, size_t len);

static bool revision_valid(const char *s)
{
        size_t n = strlen(s);
        if (n == 0 || n > REVISION_MAX || strstr(s, ".."))
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
                    c != '.' && c != '_' && c != '-' && c != '/')
                        return false;
        }
        return true;
}

static int fail(struct api_response *rs, int status, const char *pointer, const char *rule,
                const char *detail)
{
        api_problem_field(rs, status, pointer, rule, detail);
        return -1;
}

/* Replace body.model by the fetched config and set the checkpoint's
 * quantization.  The decoder imports the config (a refusal becomes a 422
 * naming the key: api_model_lookup_problem). */
static int rewrite(json_t *body, json_t *model, struct api_model_source *src,
                   struct api_response *rs)
{
        json_error_t je;
        json_t *cfg = json_loads(src->entry.config, JSON_REJECT_DUPLICATES, &je);
        const char *q = NULL;
        unsigned group = 0;

        if (!json_is_object(cfg)) {
                json_decref(cfg);
                return fail(rs, 502, "/model/id", "hub_unavailable",
                            "the stored config.json is not a JSON object");
        }
        json_object_set_new(cfg, "_name_or_path", json_string(src->entry.repo));
        json_object_del(model, "id");
        json_object_del(model, "revision");
        json_object_set_new(model, "hf_config", cfg);
        if (!json_object_get(body, "quantization") &&
            api_model_lookup_quantization(cfg, &q, &group, src->quant_format,
                                          sizeof(src->quant_format)) == 0) {
                json_object_set_new(body, "quantization", json_string(q));
                if (group && !json_object_get(body, "quantization_group_size"))
                        json_object_set_new(body, "quantization_group_size", json_integer(group));
                src->quantization_set = true;
        }
        return 0;
}

void api_model_lookup_problem(const struct api_model_source *src, struct fields_error *e)
{
        char detail[sizeof(e->detail)];
        if (!src->hub || strncmp(e->pointer, "/model/hf_config", 16))
                return;
        snprintf(detail, sizeof(detail),
                 "%.200s's config.json (revision %.12s) cannot be read: %.700s", src->entry.repo,
                 src->entry.sha, e->detail);
        snprintf(e->detail, sizeof(e->detail), "%s", detail);
        snprintf(e->pointer, sizeof(e->pointer), "/model/id");
        snprintf(e->rule, sizeof(e->rule), "hf_config");
        e->status = 422;
}

/* "; read from the Hub earlier: a, b" - the Hub models this replica has
 * read of repo's organisation, or whose name starts as repo's does (the
 * first 6 characters), up to 3; "" if none. */
static void fetched_near(const struct api_request *rq, const char *repo, char *buf, size_t len)
{
        static _Thread_local char names[256][FETCHED_REPO_MAX];
        size_t n = fetched_names(rq->app->fetched, names, 256), off = 0, shown = 0;
        const char *slash = strchr(repo, '/');
        size_t org = slash ? (size_t)(slash - repo) : 0;
        const char *name = slash ? slash + 1 : repo;

        buf[0] = '\0';
        for (size_t i = 0; i < n && shown < 3; i++) {
                const char *s2 = strchr(names[i], '/');
                bool same_org =
                        s2 && (size_t)(s2 - names[i]) == org && !strncasecmp(names[i], repo, org);
                bool same_start = s2 && strlen(name) >= 6 && !strncasecmp(s2 + 1, name, 6);
                if (!same_org && !same_start)
                        continue;
                int w = snprintf(buf + off, len - off, "%s%s",
                                 shown ? ", " : "; read from the Hub earlier: ", names[i]);
                if (w < 0 || (size_t)w >= len - off)
                        break;
                off += (size_t)w;
                shown++;
        }
}

/*
 * The fetched entry of repo at rev: this replica's memory, else (where the
 * handler may block) the database and the Hub, once for all concurrent
 * callers.  0, API_STATUS_WAIT, or -1 with rs filled (pointer names the
 * request field that held the id; typed is the id as the user wrote it).
 */
static int fetch_entry(const struct api_request *rq, const struct catalog_snapshot *snap,
                       const char *typed, const char *repo, const char *rev, const char *pointer,
                       struct fetched_entry *out, struct api_response *rs)
{
        int64_t now = (int64_t)time(NULL);
        struct resolve_ctx ctx = {rq->app->db, rq->app->hub, 2000, now};
        struct fetched_problem p;
        char detail[2200];

        if (fetched_find(rq->app->fetched, repo, rev, now, out))
                return 0;
        if (!rq->may_block)
                return API_STATUS_WAIT;
        if (rq->app->config && rq->app->config->db_acquire_timeout_ms)
                ctx.db_timeout_ms = rq->app->config->db_acquire_timeout_ms;
        if (fetched_get(rq->app->fetched, repo, rev, now, resolve_fill, &ctx, out, &p) == 0)
                return 0;
        if (p.status == 404 && snap) {
                char near[700], read[400];
                api_model_not_found(snap, typed, near, sizeof(near));
                fetched_near(rq, repo, read, sizeof(read));
                snprintf(detail, sizeof(detail), "%s; %s%s", p.detail, near, read);
        } else {
                snprintf(detail, sizeof(detail), "%s", p.detail);
        }
        return fail(rs, p.status, pointer, p.rule, detail);
}

int api_model_lookup(const struct api_request *rq, const struct catalog_snapshot *snap,
                     json_t *body, struct api_model_source *src, struct api_response *rs)
{
        json_t *model = json_object_get(body, "model"), *idv, *revv;
        const struct hub_settings *hub = rq->app ? rq->app->hub : NULL;
        char repo[FETCHED_REPO_MAX], rev[REVISION_MAX + 1];
        const char *id, *revision = NULL;
        int rc;

        memset(src, 0, sizeof(*src));
        if (!json_is_object(model) || !json_is_string(idv = json_object_get(model, "id")))
                return 0;
        id = json_string_value(idv);
        revv = json_object_get(model, "revision");
        if (revv) {
                if (!json_is_string(revv) || !revision_valid(json_string_value(revv)))
                        return fail(rs, 400, "/model/revision", "type",
                                    "revision must be a Hub branch, tag or commit sha (letters, "
                                    "digits, '.', '_', '-', '/'; up to 200)");
                revision = json_string_value(revv);
        }
        /* Without a snapshot the decoder answers 503: a catalog Hub id must
         * not be taken to the Hub meanwhile. */
        if (!snap || (!revision && catalog_model(snap, model_id_without_host(id))))
                return 0;
        if (!hub || !rq->app->fetched ||
            !model_id_hub_repo(id, hub->endpoint, repo, sizeof(repo), rev, sizeof(rev))) {
                if (revision)
                        return fail(rs, 400, "/model/revision", "contradiction",
                                    "revision applies to a Hub id (org/name), not to a catalog "
                                    "model");
                return 0;
        }
        if (revision)
                snprintf(rev, sizeof(rev), "%s", revision);
        rc = fetch_entry(rq, snap, id, repo, rev, "/model/id", &src->entry, rs);
        if (rc)
                return rc;
        src->hub = true;
        return rewrite(body, model, src, rs);
}

/*
 * GET /api/v1/hub/{org}/{name}[?revision=]: what the Hub (or the stored
 * copy) says about a model, as an estimate would read it: revision, sha,
 * quantization, parameters and where they come from, the vision tower,
 * the architecture and the config.json.  The page calls it to offer a
 * model the catalog does not know.
 */
void api_model_lookup_hub_get(const struct api_request *rq, struct api_response *rs)
{
        const char *revision = rq->query(rq, "revision");
        char id[2 * FETCHED_REPO_MAX], key[64], why[900], dtypes[64];
        const struct catalog_snapshot *snap = NULL;
        struct fetched_entry e;
        struct model_arch arch;
        json_t *cfg = NULL, *doc, *st;
        const char *q = NULL;
        unsigned group = 0;
        char format[64] = "";
        uint64_t hub;
        int rc;

        memset(&e, 0, sizeof(e));
        snprintf(id, sizeof(id), "%s/%s", rq->n_params > 0 ? rq->params[0] : "",
                 rq->n_params > 1 ? rq->params[1] : "");
        if (!rq->app || !rq->app->hub || !rq->app->fetched) {
                api_problem(rs, 503, "Hub look-ups are not available in this process");
                return;
        }
        if (!hub_repo_valid(id)) {
                api_problem_field(rs, 400, "/id", "pattern",
                                  "a Hub model id is org/name of letters, digits, '.', '_', '-'");
                return;
        }
        if (revision && !revision_valid(revision)) {
                api_problem_field(rs, 400, "?revision", "pattern",
                                  "revision must be a Hub branch, tag or commit sha");
                return;
        }
        if (rq->app->catalog)
                snap = catalog_acquire(rq->app->catalog);
        rc = fetch_entry(rq, snap, id, id, revision ? revision : "", "/id", &e, rs);
        if (rc == API_STATUS_WAIT)
                rs->status = API_STATUS_WAIT;
        if (rc)
                goto out;
        cfg = json_loads(e.config, JSON_REJECT_DUPLICATES, NULL);
        if (!json_is_object(cfg)) {
                api_problem_field(rs, 502, "/id", "hub_unavailable",
                                  "the stored config.json is not a JSON object");
                goto out;
        }
        if (hf_config_import_ex(cfg, &arch, key, sizeof(key), why, sizeof(why))) {
                char detail[1200];
                snprintf(detail, sizeof(detail), "%s's config.json cannot be read: %s", e.repo,
                         why);
                api_problem_field(rs, 422, "/id", "hf_config", detail);
                goto out;
        }
        hub = safetensors_parameters(e.safetensors, dtypes, sizeof(dtypes));
        api_model_lookup_quantization(cfg, &q, &group, format, sizeof(format));
        doc = json_pack("{s:s,s:s,s:s,s:s?,s:b,s:b,s:I,s:s,s:o,s:o}", "id", e.repo, "revision",
                        e.revision[0] ? e.revision : "main", "sha", e.sha, "etag",
                        e.etag[0] ? e.etag : NULL, "gated", e.gated, "stale", e.stale,
                        "fetched_at_s", (json_int_t)e.fetched_at_s, "parameters_source",
                        hub ? "safetensors" : "config", "architecture", estimate_encode_arch(&arch),
                        "hf_config", json_incref(cfg));
        if (doc) {
                json_object_set_new(doc, "config_parameters",
                                    json_integer((json_int_t)model_parameters(&arch)));
                json_object_set_new(
                        doc, "parameters",
                        json_integer((json_int_t)(hub ? hub : model_parameters(&arch))));
                if (hub)
                        json_object_set_new(doc, "safetensors_parameters",
                                            json_integer((json_int_t)hub));
                st = e.safetensors ? json_loads(e.safetensors, 0, NULL) : NULL;
                if (st)
                        json_object_set_new(doc, "safetensors", st);
                if (format[0]) {
                        json_object_set_new(doc, "quantization", json_string(q));
                        json_object_set_new(doc, "quantization_format", json_string(format));
                }
                if (arch.vision_parameters) {
                        json_object_set_new(doc, "vision_parameters",
                                            json_integer((json_int_t)arch.vision_parameters));
                        json_object_set_new(doc, "image_tokens",
                                            json_integer((json_int_t)arch.image_tokens));
                }
        }
        api_reply_json(rs, 200, doc);
out:
        json_decref(cfg);
        fetched_entry_free(&e);
        if (snap)
                catalog_release(snap);
}

static json_t *note(const char *code, const char *text)
{
        return json_pack("{s:s,s:s}", "code", code, "text", text);
}

/* The safetensors total when it counts parameters (no packed integer dtype). */
static uint64_t safetensors_parameters(const char *text, char *dtypes, size_t len)
{
        json_t *st = text ? json_loads(text, 0, NULL) : NULL;
        json_t *params = json_object_get(st, "parameters"), *v;
        const char *k;
        uint64_t total = 0;
        size_t off = 0;
        bool packed = false;

        dtypes[0] = '\0';
        json_object_foreach(params, k, v)
        {
                if (!json_is_integer(v) || json_integer_value(v) < 0)
                        continue;
                total += (uint64_t)json_integer_value(v);
                packed |= !strcmp(k, "U8") || !strcmp(k, "I8") || !strcmp(k, "I32") ||
                          !strcmp(k, "U32");
                int w = snprintf(dtypes + off, len - off, "%s%s", off ? ", " : "", k);
                if (w > 0 && (size_t)w < len - off)
                        off += (size_t)w;
        }
        json_decref(st);
        return packed ? 0 : total;
}

/* Append the compact text of note (code, text) to arr; frees nothing. */
static void add_note(json_t *arr, const char *code, const char *text)
{
        json_array_append_new(arr, note(code, text));
}

/* The items of arr as compact JSON without the brackets ("" when empty). */
static char *items_text(json_t *arr)
{
        char *t = json_dumps(arr, JSON_COMPACT);
        size_t n;
        if (!t)
                return NULL;
        n = strlen(t);
        memmove(t, t + 1, n - 2); /* drop "[" and "]" */
        t[n - 2] = '\0';
        return t;
}

/*
 * The estimate's text is estimate_encode_render()'s: it opens with
 * {"model":{ and ends with ,"assumptions":[...],"warnings":[...]}.  The
 * source goes first in the model object and the notes at the end of the
 * two arrays, spliced into the text rather than parsed and written again
 * (the answer's fit table makes a round trip cost more than the estimate).
 */
char *api_model_lookup_annotate(char *text, size_t *len, const struct api_model_source *src,
                                const struct estimate_input *in)
{
        static const char head[] = "{\"model\":{", mid[] = "],\"warnings\":[";
        json_t *source, *assumptions = json_array(), *warnings = json_array();
        char buf[600], when[32], dtypes[64], *src_text = NULL, *a_text = NULL, *w_text = NULL;
        char *out = NULL, *at;
        time_t t;
        struct tm tm;
        uint64_t own = src->config_parameters, hub;
        size_t n = *len, hl = sizeof(head) - 1, ml = sizeof(mid) - 1, sl, al, wl, o = 0;

        (void)in;
        if (!src->hub || !assumptions || !warnings || n < hl + ml + 2 || memcmp(text, head, hl) ||
            memcmp(text + n - 2, "]}", 2))
                goto out;
        /* the last "],"warnings":[" closes the assumptions (note texts are
         * escaped, so no string holds it) */
        at = NULL;
        for (size_t k = n - 2; k-- > hl;)
                if (!memcmp(text + k, mid, ml)) {
                        at = text + k;
                        break;
                }
        if (!at)
                goto out;
        t = (time_t)src->entry.fetched_at_s;
        gmtime_r(&t, &tm);
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
        hub = safetensors_parameters(src->entry.safetensors, dtypes, sizeof(dtypes));
        source = json_pack("{s:{s:s,s:s,s:s,s:s,s:s?,s:b,s:b,s:s,s:I,s:s}}", "source", "kind",
                           "hub", "repo", src->entry.repo, "revision",
                           src->entry.revision[0] ? src->entry.revision : "main", "sha",
                           src->entry.sha, "etag", src->entry.etag[0] ? src->entry.etag : NULL,
                           "gated", src->entry.gated, "stale", src->entry.stale, "fetched_at", when,
                           "config_parameters", (json_int_t)own, "parameters_source",
                           hub ? "safetensors" : "config");
        if (!source)
                goto out;
        if (hub)
                json_object_set_new(json_object_get(source, "source"), "safetensors_parameters",
                                    json_integer((json_int_t)hub));
        if (src->entry.quantization[0])
                json_object_set_new(json_object_get(source, "source"), "quantization",
                                    json_string(src->entry.quantization));
        src_text = json_dumps(source, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(source);
        if (hub) {
                snprintf(buf, sizeof(buf),
                         "parameters: %" PRIu64 " from the Hub's safetensors metadata of %s at "
                         "%.12s (%s); the config.json alone gives %" PRIu64,
                         hub, src->entry.repo, src->entry.sha, dtypes, own);
                add_note(assumptions, "hub_parameters", buf);
                if (fabs((double)hub - (double)own) > 0.01 * (double)own) {
                        snprintf(buf, sizeof(buf),
                                 "the Hub's safetensors total for %s (%" PRIu64
                                 ") and the count from its config.json (%" PRIu64
                                 ") differ by %.1f%%: the checkpoint may hold tensors the "
                                 "architecture does not name (a multi-token-prediction "
                                 "layer, a vision tower) or the config may be incomplete",
                                 src->entry.repo, hub, own,
                                 100.0 * fabs((double)hub - (double)own) / (double)own);
                        add_note(warnings, "hub_parameters_differ", buf);
                }
        } else {
                snprintf(buf, sizeof(buf),
                         "parameters: %" PRIu64 " counted from %s's config.json at %.12s (%s)", own,
                         src->entry.repo, src->entry.sha,
                         src->entry.safetensors ? "the Hub's safetensors totals count packed "
                                                  "quantized storage, not parameters"
                                                : "the Hub gives no safetensors totals");
                add_note(assumptions, "config_parameters", buf);
        }
        if (src->quantization_set) {
                snprintf(buf, sizeof(buf),
                         "weights as stored: %s, from the checkpoint's quantization_config%s",
                         src->quant_format,
                         !strcmp(src->quant_format, "MXFP4")
                                 ? " (the routed experts at 4.25 bits a weight; attention, "
                                   "router, embeddings and head stay bf16, as its "
                                   "modules_to_not_convert lists them)"
                                 : "");
                add_note(assumptions, "checkpoint_quantization", buf);
        }
        if (src->entry.stale) {
                snprintf(buf, sizeof(buf),
                         "the Hub could not be reached: %s is answered from the copy read at %s",
                         src->entry.repo, when);
                add_note(warnings, "hub_stale", buf);
        }
        a_text = items_text(assumptions);
        w_text = items_text(warnings);
        if (!src_text || !a_text || !w_text)
                goto out;
        /* {"source":{...}} -> "source":{...}, */
        sl = strlen(src_text) - 2;
        al = strlen(a_text);
        wl = strlen(w_text);
        out = malloc(n + sl + 1 + al + 1 + wl + 1 + 1);
        if (!out)
                goto out;
        memcpy(out, head, hl);
        o = hl;
        memcpy(out + o, src_text + 1, sl);
        o += sl;
        out[o++] = ',';
        memcpy(out + o, text + hl, (size_t)(at - text) - hl);
        o += (size_t)(at - text) - hl;
        if (al) {
                if (out[o - 1] != '[')
                        out[o++] = ',';
                memcpy(out + o, a_text, al);
                o += al;
        }
        memcpy(out + o, at, n - 2 - (size_t)(at - text));
        o += n - 2 - (size_t)(at - text);
        if (wl) {
                if (out[o - 1] != '[')
                        out[o++] = ',';
                memcpy(out + o, w_text, wl);
                o += wl;
        }
        memcpy(out + o, "]}", 3);
        o += 2;
out:
        json_decref(assumptions);
        json_decref(warnings);
        free(src_text);
        free(a_text);
        free(w_text);
        if (!out)
                return text;
        free(text);
        *len = o;
        return out;
}

void api_model_lookup_apply(struct api_model_source *src, struct estimate_input *in)
{
        char dtypes[64];
        uint64_t own = model_parameters(&in->arch),
                 hub = src->hub ? safetensors_parameters(src->entry.safetensors, dtypes,
                                                         sizeof(dtypes))
                                : 0;
        src->config_parameters = own;
        /* The checkpoint's own count wins; what the shape does not place is
         * carried as extra parameters (weights, not activations). */
        if (hub > own)
                in->arch.extra_parameters += hub - own;
}

void api_model_lookup_free(struct api_model_source *src)
{
        fetched_entry_free(&src->entry);
}
