/*
 * catalog.h - the in-memory catalog snapshot and its holder.
 *
 * The catalog (accelerators, models, providers, offerings, current prices,
 * purchase prices, settings) is held as one immutable struct
 * catalog_snapshot.  Readers take a reference with catalog_acquire() and
 * drop it with catalog_release(); catalog_install() (catalog_tables.h) is
 * the only way a snapshot gets in: it wraps loaded tables and swaps them in
 * atomically, so a reader sees either the old catalog or the
 * new one, never a mix.  The hot path (estimate, catalog reads, compare)
 * reads only snapshots and never waits on the database.
 *
 * Memory: a snapshot owns every array and string reachable from it (one
 * string arena per snapshot); pointers returned by the accessors stay valid
 * until the caller's catalog_release().  Unknown figures are 0 (numbers) or
 * NULL (text) and are served as JSON null.
 *
 * Thread-safety: every function here may be called from any thread.
 * A snapshot is read-only for its whole life and freed when its last
 * reference is released.
 */
#ifndef GPUPLAN_CATALOG_CATALOG_H
#define GPUPLAN_CATALOG_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gpu.h"
#include "core/model.h"

struct catalog_model {
        char id[64];
        char name[96];
        char family[48];
        struct model_arch arch;         /* imported from the stored config.json */
        bool arch_ok;                   /* false: the importer refused the config */
        uint64_t published_parameters;
        char *parameters_source;        /* owned by the snapshot */
        char *hf_config_json;           /* the stored config.json, compact text */
        char *notes;                    /* owned by the snapshot; NULL if none */
        char *hub_ids;                  /* Hugging Face Hub repository ids, comma-separated
                                           ("" if none); owned by the snapshot */
        char *licence;                  /* the Hub's licence tag; NULL if not recorded */
        char *released;                 /* first public release, YYYY-MM-DD; NULL if not recorded */
        bool team;                      /* a team's own model (PUT /api/v1/models/{id}) */
};

/*
 * What the API shows about an accelerator beyond the engine's gpu_spec.
 * catalog_gpu_infos()[i] describes catalog_gpus()[i].
 */
struct catalog_gpu_info {
        const char *form_factor;        /* "sxm", "pcie", "card", "soc", ... */
        int chips_per_board;            /* K80: 2 (memory_bytes is per chip) */
        bool usable_memory_known;       /* false: spec.usable_memory_bytes copies memory_bytes */
        const char *memory_type;        /* "HBM3", "GDDR6X"; NULL = unknown */
        const char *interconnect_kind;  /* "pcie", "nvlink", ... as stored */
        const char *interconnect;       /* "NVLink 4 (18 links)"; NULL = unknown */
        double interconnect_bytes_per_s; /* as vendors quote it: per chip, both directions */
        const char *host_interface;     /* "PCIe 5.0 x16"; NULL = unknown */
        double launch_price_usd;        /* 0 = unknown */
        bool can_infer;
        const char *frameworks;         /* NULL = unknown */
        const char *notes;
        const char *source;             /* datasheet URL, never NULL */
        const char *source_date;        /* "YYYY-MM-DD" */
        const char *updated_at;         /* RFC 3339, UTC */
        const char *updated_by;
};

struct catalog_provider {
        const char *id;
        const char *name;
        const char *kind;               /* hyperscaler, gpu_cloud, marketplace, notebook */
        const char *url;                /* NULL = unknown */
        const char *notes;
        const char *source;
        const char *source_date;
};

struct catalog_offering {
        const char *id;
        const char *provider_id;
        const char *instance_type;
        const char *accelerator_id;
        size_t gpu_index;               /* into catalog_gpus() */
        size_t provider_index;          /* into catalog_providers() */
        int gpus_per_instance;
        int vcpus;                      /* 0 = unknown */
        uint64_t ram_bytes;             /* 0 = unknown */
        const char *region;
        const char *interconnect;       /* between the GPUs inside the instance; NULL = unknown */
        double interconnect_bytes_per_s; /* 0 = unknown */
        double network_bytes_per_s;     /* between instances; 0 = unknown */
        const char *notes;
        const char *source;
        const char *source_date;
        const char *kind;               /* "instance", "notebook", "free_tier"; NULL = instance */
};

enum catalog_pricing {
        CATALOG_ON_DEMAND = 0,
        CATALOG_SPOT,
        CATALOG_RESERVED,
        CATALOG_PRICING_COUNT
};

/* One price row (the newest per offering and pricing kind in a snapshot). */
struct catalog_price {
        int64_t id;
        const char *offering_id;
        size_t offering_index;          /* into catalog_offerings(); SIZE_MAX outside a snapshot */
        enum catalog_pricing pricing;
        int term_months;                /* reserved only; 0 otherwise */
        double usd_per_hour;            /* whole instance */
        const char *currency;           /* "USD" */
        const char *as_of;              /* "YYYY-MM-DD" */
        const char *source;
        const char *recorded_at;        /* RFC 3339, UTC */
        const char *recorded_by;
};

struct catalog_purchase_price {
        int64_t id;
        const char *accelerator_id;
        size_t gpu_index;               /* into catalog_gpus() */
        const char *condition;          /* "new" or "used" */
        double usd;                     /* per board */
        const char *as_of;
        const char *source;
        const char *recorded_at;
        const char *recorded_by;
};

struct catalog_setting {
        const char *key;
        double value;
        const char *unit;
        const char *description;
        const char *source;
        const char *source_date;
        const char *updated_at;
        const char *updated_by;
};

struct catalog_snapshot;        /* defined in catalog.c; see accessors below */

struct catalog;                 /* the holder: the current snapshot */

/* A holder with no snapshot yet; NULL on allocation failure.  Freed by catalog_free(). */
struct catalog *catalog_new(void);
/* Drops the holder's reference to the current snapshot and frees the
 * holder; snapshots still acquired stay valid until released.  Whatever
 * installs snapshots (db/catalog_sync.h) must be stopped first. */
void catalog_free(struct catalog *c);

/*
 * A function run on every new snapshot before it becomes current, on the
 * thread that loads it (startup, the listener): it attaches what another
 * layer derives from the snapshot (catalog_attach_extra), so that no
 * request pays for building it.  main.c sets it before the first load;
 * NULL (the default) runs nothing.  A load whose content equals the
 * current snapshot's keeps that snapshot and runs nothing.
 */
typedef void (*catalog_prepare_fn)(const struct catalog_snapshot *s);
void catalog_set_prepare(struct catalog *c, catalog_prepare_fn fn);

/* Number of snapshots swapped in so far. */
uint64_t catalog_swaps(struct catalog *c);

/*
 * The current snapshot with one reference taken, or NULL if none has been
 * loaded yet.  Pair every non-NULL result with catalog_release().
 */
const struct catalog_snapshot *catalog_acquire(struct catalog *c);
void catalog_release(const struct catalog_snapshot *s);

/* Accelerators as engine inputs, in catalog order (by id, bytewise). */
const struct gpu_spec *catalog_gpus(const struct catalog_snapshot *s, size_t *count);
const struct gpu_spec *catalog_gpu(const struct catalog_snapshot *s, const char *id);
/* Index of id in catalog_gpus(), or SIZE_MAX. */
size_t catalog_gpu_index(const struct catalog_snapshot *s, const char *id);
/* Display fields, index-parallel to catalog_gpus(). */
const struct catalog_gpu_info *catalog_gpu_infos(const struct catalog_snapshot *s, size_t *count);

/* Catalog models, in catalog order (by id). */
const struct catalog_model *catalog_models(const struct catalog_snapshot *s, size_t *count);
/*
 * A model by catalog id, or (case-insensitively) by catalog id or one of
 * its Hub ids ("meta-llama/Llama-2-7b-hf").  NULL when none matches.  The
 * id is matched as given: what a user pasted (a Hub URL) is read as an id
 * by models/model_id.h first.
 */
const struct catalog_model *catalog_model(const struct catalog_snapshot *s, const char *id);

/*
 * The models whose id or Hub id is nearest to query (edit distance, case
 * folded; at most a third of the query's length away, and at least 3),
 * best first, each once.  Fills out[0..max) and returns how many.
 */
size_t catalog_model_suggest(const struct catalog_snapshot *s, const char *query,
                             const struct catalog_model **out, size_t max);

/* Providers and offerings, each by id; lookups return NULL when absent. */
const struct catalog_provider *catalog_providers(const struct catalog_snapshot *s, size_t *count);
const struct catalog_provider *catalog_provider(const struct catalog_snapshot *s, const char *id);
const struct catalog_offering *catalog_offerings(const struct catalog_snapshot *s, size_t *count);
const struct catalog_offering *catalog_offering(const struct catalog_snapshot *s, const char *id);

/* Current prices (newest row per offering and pricing kind), by offering id then pricing. */
const struct catalog_price *catalog_prices(const struct catalog_snapshot *s, size_t *count);
/* The current price of one offering and kind, or NULL. */
const struct catalog_price *catalog_price(const struct catalog_snapshot *s, const char *offering_id,
                                          enum catalog_pricing pricing);

/* Current purchase prices (newest per accelerator and condition), by accelerator id. */
const struct catalog_purchase_price *catalog_purchase_prices(const struct catalog_snapshot *s,
                                                             size_t *count);

/* Ownership settings, by key; catalog_setting() returns NULL when absent. */
const struct catalog_setting *catalog_settings(const struct catalog_snapshot *s, size_t *count);
const struct catalog_setting *catalog_setting(const struct catalog_snapshot *s, const char *key);

/*
 * An object derived from one snapshot by another layer and kept with it:
 * the API attaches the snapshot's rendered JSON documents, so each is
 * built once per snapshot instead of once per request.  Embed this struct
 * first in the derived object.  The snapshot frees it with free_fn when
 * its last reference is released.
 */
struct catalog_attachment {
        void (*free_fn)(struct catalog_attachment *a);
};

/* The snapshot's attachment, or NULL when none has been attached yet. */
struct catalog_attachment *catalog_attachment(const struct catalog_snapshot *s);

/*
 * Attach a (fully built) to s unless another thread attached one first.
 * Returns the snapshot's attachment from now on: a, or the earlier one, in
 * which case a has been freed with its free_fn.  Lock-free; the object
 * must not be changed once attached, since any thread may read it.
 */
struct catalog_attachment *catalog_attach(const struct catalog_snapshot *s,
                                          struct catalog_attachment *a);

/* Further derived objects, one per slot, with the same contract as the
 * attachment above (catalog_extra() reads, catalog_attach_extra() sets
 * once). */
enum catalog_extra_slot {
        CATALOG_EXTRA_UNCERTAINTY = 0, /* api/uncertainty.c: error bars from the validation */
        CATALOG_EXTRA_FIT_HEADS,       /* api/fit_heads.c: each GPU's fit-row head as JSON */
        CATALOG_EXTRA_SLOTS
};
struct catalog_attachment *catalog_extra(const struct catalog_snapshot *s,
                                         enum catalog_extra_slot slot);
struct catalog_attachment *catalog_attach_extra(const struct catalog_snapshot *s,
                                                enum catalog_extra_slot slot,
                                                struct catalog_attachment *a);

/* The slot's object, built with build(s) and attached on first use (two
 * threads racing keep one); NULL without a snapshot or when build fails. */
typedef struct catalog_attachment *(*catalog_extra_build_fn)(const struct catalog_snapshot *s);
struct catalog_attachment *catalog_extra_get(const struct catalog_snapshot *s,
                                             enum catalog_extra_slot slot,
                                             catalog_extra_build_fn build);

/* The validation tables loaded with this snapshot, as JSON arrays: the
 * measured memory cases ({id, category, measured_bytes, kind, request})
 * and the throughput cases ({id, category, metric, measured, request});
 * "[]" when there are none.  Valid until the snapshot is released. */
void catalog_validation_json(const struct catalog_snapshot *s, const char **memory,
                             const char **time_cases);

/* A strong validator for the snapshot's content, for ETag headers ("\"...\""). */
const char *catalog_etag(const struct catalog_snapshot *s);
/* When the snapshot was loaded, RFC 3339 UTC. */
const char *catalog_loaded_at(const struct catalog_snapshot *s);

/* "on_demand", "spot", "reserved"; and the reverse (0, or -1 if unknown). */
const char *catalog_pricing_name(enum catalog_pricing p);
int catalog_pricing_parse(const char *name, enum catalog_pricing *out);

/* Whether name is a purchase condition the schema allows: "new" or "used". */
bool catalog_condition_valid(const char *name);

#endif
