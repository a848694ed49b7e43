/*
 * catalog.c - the catalog holder and its refcounted immutable snapshots:
 * the tables' arena, linking, installing a snapshot, and the look-ups.
 * Loading from the database and the LISTEN thread live in
 * db/catalog_sync.c, which installs what it loads with catalog_install().
 *
 * Swapping: the holder keeps one reference to the current snapshot under a
 * mutex; catalog_acquire() takes the mutex only long enough to bump the
 * snapshot's atomic refcount, so readers never wait on a reload (which
 * builds the new snapshot outside the lock).  The last catalog_release()
 * frees a snapshot.
 */
#include "catalog/catalog.h"

#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "models/hf_config.h"
#include "catalog/catalog_tables.h"
#include "log.h"

#define CATALOG_ARENA_CHUNK_BYTES 65536u

struct catalog_snapshot {
        atomic_uint refs;
        _Atomic(struct catalog_attachment *) attachment; /* set at most once */
        _Atomic(struct catalog_attachment *) extra[CATALOG_EXTRA_SLOTS]; /* likewise */
        struct catalog_tables t;
        char etag[40]; /* "\"" + 32 hex + "\"" */
        char loaded_at[32];
};

struct catalog {
        pthread_mutex_t lock; /* guards current */
        struct catalog_snapshot *current;
        atomic_uint_fast64_t swaps;
        catalog_prepare_fn prepare; /* set before the first load, then read only */
};

/* ---- the string arena ---------------------------------------------------- */

struct catalog_arena_chunk {
        struct catalog_arena_chunk *next;
        size_t used;
        size_t size;
        char data[];
};

char *catalog_tables_strndup(struct catalog_tables *t, const char *text, size_t len)
{
        struct catalog_arena_chunk *ch = t->arena;
        char *out;

        if (len >= SIZE_MAX / 2)
                return NULL;
        if (!ch || ch->size - ch->used < len + 1) {
                size_t size =
                        len + 1 > CATALOG_ARENA_CHUNK_BYTES ? len + 1 : CATALOG_ARENA_CHUNK_BYTES;
                ch = malloc(sizeof(*ch) + size);
                if (!ch)
                        return NULL;
                ch->used = 0;
                ch->size = size;
                ch->next = t->arena;
                t->arena = ch;
        }
        out = ch->data + ch->used;
        memcpy(out, text, len);
        out[len] = '\0';
        ch->used += len + 1;
        return out;
}

void catalog_tables_free(struct catalog_tables *t)
{
        struct catalog_arena_chunk *ch = t->arena;

        while (ch) {
                struct catalog_arena_chunk *next = ch->next;
                free(ch);
                ch = next;
        }
        free(t->gpus);
        free(t->gpu_infos);
        free(t->models);
        free(t->providers);
        free(t->offerings);
        free(t->prices);
        free(t->purchase_prices);
        free(t->settings);
        memset(t, 0, sizeof(*t));
}

/* ---- lookups ------------------------------------------------------------- */

/* Binary search over an array of structs sorted bytewise by a string key. */
static size_t find_by_key(const void *base, size_t n, size_t stride, size_t key_offset,
                          int key_is_array, const char *key)
{
        size_t lo = 0, hi = n;

        if (!key)
                return SIZE_MAX;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const char *elem = (const char *)base + mid * stride + key_offset;
                const char *k = key_is_array ? elem : *(const char *const *)(const void *)elem;
                int cmp = strcmp(key, k);

                if (cmp == 0)
                        return mid;
                if (cmp < 0)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        return SIZE_MAX;
}

#define FIND_PTR(arr, n, type, field, key)                                                         \
        find_by_key((arr), (n), sizeof(type), offsetof(type, field), 0, (key))
#define FIND_ARR(arr, n, type, field, key)                                                         \
        find_by_key((arr), (n), sizeof(type), offsetof(type, field), 1, (key))

int catalog_tables_link(struct catalog_tables *t, char *err, size_t errlen)
{
        for (size_t i = 0; i < t->n_offerings; i++) {
                struct catalog_offering *o = &t->offerings[i];

                o->gpu_index = FIND_ARR(t->gpus, t->n_gpus, struct gpu_spec, id, o->accelerator_id);
                o->provider_index = FIND_PTR(t->providers, t->n_providers, struct catalog_provider,
                                             id, o->provider_id);
                if (o->gpu_index == SIZE_MAX || o->provider_index == SIZE_MAX) {
                        snprintf(err, errlen,
                                 "offering %s names an unknown accelerator or provider", o->id);
                        return -1;
                }
        }
        for (size_t i = 0; i < t->n_prices; i++) {
                struct catalog_price *p = &t->prices[i];

                p->offering_index = FIND_PTR(t->offerings, t->n_offerings, struct catalog_offering,
                                             id, p->offering_id);
                if (p->offering_index == SIZE_MAX) {
                        snprintf(err, errlen, "price %" PRId64 " names unknown offering %s", p->id,
                                 p->offering_id);
                        return -1;
                }
        }
        for (size_t i = 0; i < t->n_purchase_prices; i++) {
                struct catalog_purchase_price *p = &t->purchase_prices[i];

                p->gpu_index = FIND_ARR(t->gpus, t->n_gpus, struct gpu_spec, id, p->accelerator_id);
                if (p->gpu_index == SIZE_MAX) {
                        snprintf(err, errlen,
                                 "purchase price %" PRId64 " names unknown accelerator %s", p->id,
                                 p->accelerator_id);
                        return -1;
                }
        }
        return 0;
}

/* ---- snapshots ----------------------------------------------------------- */

static void snapshot_free(struct catalog_snapshot *s)
{
        struct catalog_attachment *a;

        if (!s)
                return;
        a = atomic_load_explicit(&s->attachment, memory_order_acquire);
        if (a)
                a->free_fn(a);
        for (int i = 0; i < CATALOG_EXTRA_SLOTS; i++) {
                a = atomic_load_explicit(&s->extra[i], memory_order_acquire);
                if (a)
                        a->free_fn(a);
        }
        catalog_tables_free(&s->t);
        free(s);
}

void catalog_tables_import_archs(struct catalog_tables *t)
{
        for (size_t i = 0; i < t->n_models; i++) {
                struct catalog_model *m = &t->models[i];
                json_error_t jerr;
                char err[256] = "";
                json_t *cfg = json_loads(m->hf_config_json, JSON_REJECT_DUPLICATES, &jerr);

                m->arch_ok = false;
                if (!cfg) {
                        log_warn("catalog model %s: stored config.json does not parse: %s", m->id,
                                 jerr.text);
                        continue;
                }
                if (hf_config_import(cfg, &m->arch, err, sizeof(err)) == 0)
                        m->arch_ok = true;
                else
                        log_warn("catalog model %s: config.json not imported: %s", m->id, err);
                json_decref(cfg);
        }
}

static void utc_now(char *buf, size_t len)
{
        time_t now = time(NULL);
        struct tm tm;

        gmtime_r(&now, &tm);
        strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static struct catalog_snapshot *snapshot_new(struct catalog_tables *t)
{
        struct catalog_snapshot *s = calloc(1, sizeof(*s));

        if (!s)
                return NULL;
        atomic_init(&s->refs, 1);
        atomic_init(&s->attachment, NULL);
        for (int i = 0; i < CATALOG_EXTRA_SLOTS; i++)
                atomic_init(&s->extra[i], NULL);
        s->t = *t;
        memset(t, 0, sizeof(*t));
        snprintf(s->etag, sizeof(s->etag), "\"%016" PRIx64 "%016" PRIx64 "\"", s->t.content_hash[0],
                 s->t.content_hash[1]);
        utc_now(s->loaded_at, sizeof(s->loaded_at));
        return s;
}

/* ---- the holder ---------------------------------------------------------- */

struct catalog *catalog_new(void)
{
        struct catalog *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        if (pthread_mutex_init(&c->lock, NULL)) {
                free(c);
                return NULL;
        }
        atomic_init(&c->swaps, 0);
        return c;
}

void catalog_free(struct catalog *c)
{
        if (!c)
                return;
        catalog_release(c->current);
        pthread_mutex_destroy(&c->lock);
        free(c);
}

const struct catalog_snapshot *catalog_acquire(struct catalog *c)
{
        struct catalog_snapshot *s;

        if (!c)
                return NULL;
        pthread_mutex_lock(&c->lock);
        s = c->current;
        if (s)
                atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
        pthread_mutex_unlock(&c->lock);
        return s;
}

void catalog_release(const struct catalog_snapshot *cs)
{
        /* The snapshot is immutable to readers; only its refcount changes. */
        struct catalog_snapshot *s = (struct catalog_snapshot *)(uintptr_t)cs;

        if (!s)
                return;
        if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
                snapshot_free(s);
}

struct catalog_attachment *catalog_attachment(const struct catalog_snapshot *cs)
{
        struct catalog_snapshot *s = (struct catalog_snapshot *)(uintptr_t)cs;

        /* Acquire pairs with the release in catalog_attach(): a reader sees a fully built object.
         */
        return s ? atomic_load_explicit(&s->attachment, memory_order_acquire) : NULL;
}

struct catalog_attachment *catalog_attach(const struct catalog_snapshot *cs,
                                          struct catalog_attachment *a)
{
        struct catalog_snapshot *s = (struct catalog_snapshot *)(uintptr_t)cs;
        struct catalog_attachment *expected = NULL;

        if (atomic_compare_exchange_strong_explicit(&s->attachment, &expected, a,
                                                    memory_order_acq_rel, memory_order_acquire))
                return a;
        a->free_fn(a); /* another thread attached first: use theirs */
        return expected;
}

struct catalog_attachment *catalog_extra(const struct catalog_snapshot *cs,
                                         enum catalog_extra_slot slot)
{
        struct catalog_snapshot *s = (struct catalog_snapshot *)(uintptr_t)cs;

        if (!s || (int)slot < 0 || (int)slot >= CATALOG_EXTRA_SLOTS)
                return NULL;
        return atomic_load_explicit(&s->extra[slot], memory_order_acquire);
}

struct catalog_attachment *catalog_attach_extra(const struct catalog_snapshot *cs,
                                                enum catalog_extra_slot slot,
                                                struct catalog_attachment *a)
{
        struct catalog_snapshot *s = (struct catalog_snapshot *)(uintptr_t)cs;
        struct catalog_attachment *expected = NULL;

        if (atomic_compare_exchange_strong_explicit(&s->extra[slot], &expected, a,
                                                    memory_order_acq_rel, memory_order_acquire))
                return a;
        a->free_fn(a); /* another thread attached first: use theirs */
        return expected;
}

struct catalog_attachment *catalog_extra_get(const struct catalog_snapshot *s,
                                             enum catalog_extra_slot slot,
                                             catalog_extra_build_fn build)
{
        struct catalog_attachment *a;

        if (!s)
                return NULL;
        a = catalog_extra(s, slot);
        if (a)
                return a;
        a = build(s);
        return a ? catalog_attach_extra(s, slot, a) : NULL;
}

void catalog_validation_json(const struct catalog_snapshot *s, const char **memory,
                             const char **time_cases)
{
        *memory = s && s->t.validation_memory_json ? s->t.validation_memory_json : "[]";
        *time_cases = s && s->t.validation_time_json ? s->t.validation_time_json : "[]";
}

uint64_t catalog_swaps(struct catalog *c)
{
        return c ? (uint64_t)atomic_load(&c->swaps) : 0;
}

void catalog_set_prepare(struct catalog *c, catalog_prepare_fn fn)
{
        if (c)
                c->prepare = fn;
}

int catalog_install(struct catalog *c, struct catalog_tables *t)
{
        struct catalog_snapshot *s = snapshot_new(t), *old;
        bool same;

        if (!s) {
                catalog_tables_free(t);
                return -1;
        }
        pthread_mutex_lock(&c->lock);
        same = c->current && strcmp(c->current->etag, s->etag) == 0;
        pthread_mutex_unlock(&c->lock);
        if (same) {
                /* Same content: keep the snapshot readers already hold. */
                catalog_release(s);
                return 0;
        }
        /* Derived objects are attached before any reader can see s; the
         * lock is not held, so readers keep the current one meanwhile. */
        if (c->prepare)
                c->prepare(s);
        pthread_mutex_lock(&c->lock);
        old = c->current;
        c->current = s;
        atomic_fetch_add(&c->swaps, 1);
        pthread_mutex_unlock(&c->lock);
        catalog_release(old);
        return 0;
}

/* ---- accessors ----------------------------------------------------------- */

const struct gpu_spec *catalog_gpus(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_gpus : 0;
        return s ? s->t.gpus : NULL;
}

size_t catalog_gpu_index(const struct catalog_snapshot *s, const char *id)
{
        return s ? FIND_ARR(s->t.gpus, s->t.n_gpus, struct gpu_spec, id, id) : SIZE_MAX;
}

const struct gpu_spec *catalog_gpu(const struct catalog_snapshot *s, const char *id)
{
        size_t i = catalog_gpu_index(s, id);

        return i == SIZE_MAX ? NULL : &s->t.gpus[i];
}

const struct catalog_gpu_info *catalog_gpu_infos(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_gpus : 0;
        return s ? s->t.gpu_infos : NULL;
}

const struct catalog_model *catalog_models(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_models : 0;
        return s ? s->t.models : NULL;
}

/* Does the comma-separated list hold name (case-insensitively)? */
static bool list_has(const char *list, const char *name)
{
        size_t n = strlen(name);
        for (const char *p = list; p && *p;) {
                const char *end = strchr(p, ',');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                if (len == n && strncasecmp(p, name, n) == 0)
                        return true;
                p = end ? end + 1 : NULL;
        }
        return false;
}

const struct catalog_model *catalog_model(const struct catalog_snapshot *s, const char *id)
{
        size_t i;

        if (!s || !id)
                return NULL;
        i = FIND_ARR(s->t.models, s->t.n_models, struct catalog_model, id, id);
        if (i != SIZE_MAX)
                return &s->t.models[i];
        for (i = 0; i < s->t.n_models; i++) {
                const struct catalog_model *m = &s->t.models[i];
                if (strcasecmp(m->id, id) == 0 || list_has(m->hub_ids, id))
                        return m;
        }
        return NULL;
}

/* Levenshtein distance, case folded, of strings up to 127 bytes (longer
 * ones are compared by their first 127). */
static size_t edit_distance(const char *a, const char *b)
{
        size_t n = strnlen(a, 127), m = strnlen(b, 127), row[128];
        for (size_t j = 0; j <= m; j++)
                row[j] = j;
        for (size_t i = 1; i <= n; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= m; j++) {
                        size_t up = row[j];
                        size_t cost = tolower((unsigned char)a[i - 1]) !=
                                      tolower((unsigned char)b[j - 1]);
                        size_t best = diag + cost;
                        if (up + 1 < best)
                                best = up + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[m];
}

/* The smallest distance from query to the model's id or any Hub id. */
static size_t model_distance(const struct catalog_model *m, const char *query)
{
        size_t best = edit_distance(query, m->id);
        char one[128];
        for (const char *p = m->hub_ids; p && *p;) {
                const char *end = strchr(p, ',');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                if (len < sizeof(one)) {
                        memcpy(one, p, len);
                        one[len] = '\0';
                        size_t d = edit_distance(query, one);
                        if (d < best)
                                best = d;
                        /* the repository name alone ("Llama-2-7b-hf") */
                        const char *slash = strchr(one, '/');
                        if (slash && !strchr(query, '/')) {
                                d = edit_distance(query, slash + 1);
                                if (d < best)
                                        best = d;
                        }
                }
                p = end ? end + 1 : NULL;
        }
        return best;
}

size_t catalog_model_suggest(const struct catalog_snapshot *s, const char *query,
                             const struct catalog_model **out, size_t max)
{
        size_t dist[8], n = 0;
        if (!s || !query || max == 0)
                return 0;
        if (max > 8)
                max = 8;
        size_t limit = strnlen(query, 127) / 3;
        if (limit < 3)
                limit = 3;
        for (size_t i = 0; i < s->t.n_models; i++) {
                const struct catalog_model *m = &s->t.models[i];
                size_t d = model_distance(m, query), k;
                if (d > limit)
                        continue;
                /* insertion into the best-first list */
                for (k = n; k > 0 && dist[k - 1] > d; k--)
                        if (k < max) {
                                dist[k] = dist[k - 1];
                                out[k] = out[k - 1];
                        }
                if (k < max) {
                        dist[k] = d;
                        out[k] = m;
                        if (n < max)
                                n++;
                }
        }
        return n;
}

const struct catalog_provider *catalog_providers(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_providers : 0;
        return s ? s->t.providers : NULL;
}

const struct catalog_provider *catalog_provider(const struct catalog_snapshot *s, const char *id)
{
        size_t i;

        if (!s)
                return NULL;
        i = FIND_PTR(s->t.providers, s->t.n_providers, struct catalog_provider, id, id);
        return i == SIZE_MAX ? NULL : &s->t.providers[i];
}

const struct catalog_offering *catalog_offerings(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_offerings : 0;
        return s ? s->t.offerings : NULL;
}

const struct catalog_offering *catalog_offering(const struct catalog_snapshot *s, const char *id)
{
        size_t i;

        if (!s)
                return NULL;
        i = FIND_PTR(s->t.offerings, s->t.n_offerings, struct catalog_offering, id, id);
        return i == SIZE_MAX ? NULL : &s->t.offerings[i];
}

const struct catalog_price *catalog_prices(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_prices : 0;
        return s ? s->t.prices : NULL;
}

const struct catalog_price *catalog_price(const struct catalog_snapshot *s, const char *offering_id,
                                          enum catalog_pricing pricing)
{
        size_t i;

        if (!s || !offering_id)
                return NULL;
        /* Prices are sorted by offering id, then pricing: find any row of the offering. */
        i = FIND_PTR(s->t.prices, s->t.n_prices, struct catalog_price, offering_id, offering_id);
        if (i == SIZE_MAX)
                return NULL;
        while (i > 0 && strcmp(s->t.prices[i - 1].offering_id, offering_id) == 0)
                i--;
        for (; i < s->t.n_prices && strcmp(s->t.prices[i].offering_id, offering_id) == 0; i++)
                if (s->t.prices[i].pricing == pricing)
                        return &s->t.prices[i];
        return NULL;
}

const struct catalog_purchase_price *catalog_purchase_prices(const struct catalog_snapshot *s,
                                                             size_t *count)
{
        *count = s ? s->t.n_purchase_prices : 0;
        return s ? s->t.purchase_prices : NULL;
}

const struct catalog_setting *catalog_settings(const struct catalog_snapshot *s, size_t *count)
{
        *count = s ? s->t.n_settings : 0;
        return s ? s->t.settings : NULL;
}

const struct catalog_setting *catalog_setting(const struct catalog_snapshot *s, const char *key)
{
        size_t i;

        if (!s)
                return NULL;
        i = FIND_PTR(s->t.settings, s->t.n_settings, struct catalog_setting, key, key);
        return i == SIZE_MAX ? NULL : &s->t.settings[i];
}

const char *catalog_etag(const struct catalog_snapshot *s)
{
        return s ? s->etag : "\"empty\"";
}

const char *catalog_loaded_at(const struct catalog_snapshot *s)
{
        return s ? s->loaded_at : NULL;
}

static const char *const pricing_names[CATALOG_PRICING_COUNT] = {
        [CATALOG_ON_DEMAND] = "on_demand",
        [CATALOG_SPOT] = "spot",
        [CATALOG_RESERVED] = "reserved",
};

const char *catalog_pricing_name(enum catalog_pricing p)
{
        return (unsigned)p < CATALOG_PRICING_COUNT ? pricing_names[p] : "unknown";
}

bool catalog_condition_valid(const char *name)
{
        return name && (strcmp(name, "new") == 0 || strcmp(name, "used") == 0);
}

int catalog_pricing_parse(const char *name, enum catalog_pricing *out)
{
        for (unsigned i = 0; name && i < CATALOG_PRICING_COUNT; i++) {
                if (strcmp(name, pricing_names[i]) == 0) {
                        *out = (enum catalog_pricing)i;
                        return 0;
                }
        }
        return -1;
}
