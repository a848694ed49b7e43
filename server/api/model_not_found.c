/*
 * model_not_found.c - the 404 detail for a model id the catalog lacks; see
 * model_not_found.h.
 */
#include "api/model_not_found.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/model_id.h"

/* Repository-name endings of quantized copies of a model (Hugging Face
 * conventions: unsloth's -bnb-4bit, TheBloke's -GPTQ / -AWQ, -FP8) and the
 * quantization that stores the same weights here. */
static const struct {
        const char *suffix, *quantization, *what;
} quantized_suffixes[] = {
        {"-bnb-4bit", "nf4", "a bitsandbytes 4-bit"},
        {"-4bit", "nf4", "a 4-bit"},
        {"-bnb-8bit", "int8", "a bitsandbytes 8-bit"},
        {"-8bit", "int8", "an 8-bit"},
        {"-gptq", "int4", "a GPTQ"},
        {"-awq", "int4", "an AWQ"},
        {"-fp8-dynamic", "fp8", "an fp8"},
        {"-fp8", "fp8", "an fp8"},
};

/* The catalog model whose id, or one of whose Hub repository names (the
 * part after the owner), is name, case folded; NULL if none. */
static const struct catalog_model *model_by_repo_name(const struct catalog_snapshot *s,
                                                      const char *name)
{
        size_t count, want = strlen(name);
        const struct catalog_model *models = catalog_models(s, &count);
        for (size_t i = 0; i < count; i++) {
                if (!strcasecmp(models[i].id, name))
                        return &models[i];
                for (const char *p = models[i].hub_ids; p && *p;) {
                        size_t len = strcspn(p, ",");
                        const char *slash = memchr(p, '/', len);
                        const char *repo = slash ? slash + 1 : p;
                        size_t rlen = len - (size_t)(repo - p);
                        if (rlen == want && !strncasecmp(repo, name, rlen))
                                return &models[i];
                        p += len + (p[len] == ',');
                }
        }
        return NULL;
}

/* "X looks like a quantized copy of Y" when id's repository name ends in a
 * known suffix and what precedes it (less -Instruct, -Chat, -it, -hf)
 * names a catalog model; 0 or the bytes written. */
static int quantized_copy_hint(const struct catalog_snapshot *s, const char *id, char *buf,
                               size_t len)
{
        static const char *const variants[] = {"-instruct", "-chat", "-it", "-hf", "-base", NULL};
        const char *slash = strrchr(id, '/');
        const char *repo = slash ? slash + 1 : id;
        char base[128];
        size_t n = strlen(repo);
        for (size_t i = 0; i < sizeof(quantized_suffixes) / sizeof(quantized_suffixes[0]); i++) {
                size_t k = strlen(quantized_suffixes[i].suffix);
                if (n <= k || n - k >= sizeof(base) ||
                    strcasecmp(repo + n - k, quantized_suffixes[i].suffix))
                        continue;
                memcpy(base, repo, n - k);
                base[n - k] = '\0';
                const struct catalog_model *m = model_by_repo_name(s, base);
                for (int v = 0; !m && variants[v]; v++) {
                        size_t b = strlen(base), vl = strlen(variants[v]);
                        if (b > vl && !strcasecmp(base + b - vl, variants[v])) {
                                base[b - vl] = '\0';
                                m = model_by_repo_name(s, base);
                                v = -1; /* an instruct copy may also say -hf */
                        }
                }
                if (!m)
                        return 0;
                return snprintf(buf, len,
                                "; \"%.80s\" reads as %s copy of %s: ask for {\"id\": \"%s\"} "
                                "with \"quantization\": \"%s\"",
                                id, quantized_suffixes[i].what, m->id, m->id,
                                quantized_suffixes[i].quantization);
        }
        return 0;
}

const char *api_model_not_found(const struct catalog_snapshot *s, const char *id, char *buf,
                                size_t len)
{
        const struct catalog_model *near[3];
        size_t n = catalog_model_suggest(s, model_id_without_host(id), near, 3), off;
        int w = snprintf(buf, len, "no catalog model \"%.80s\"", id);
        off = w > 0 && (size_t)w < len ? (size_t)w : len - 1;
        w = quantized_copy_hint(s, id, buf + off, len - off);
        if (w > 0)
                off += (size_t)w < len - off ? (size_t)w : len - off - 1;
        for (size_t i = 0; i < n && off < len; i++) {
                const char *ids = near[i]->hub_ids ? near[i]->hub_ids : "";
                size_t hub = strcspn(ids, ",");
                w = snprintf(buf + off, len - off, "%s%s%s%.*s%s",
                             i ? ", " : "; closest: ", near[i]->id, hub ? " (" : "", (int)hub, ids,
                             hub ? ")" : "");
                if (w < 0)
                        break;
                off += (size_t)w < len - off ? (size_t)w : len - off - 1;
        }
        if (off < len)
                snprintf(buf + off, len - off, " (GET /api/v1/models lists them)");
        return buf;
}
