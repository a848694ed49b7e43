/*
 * fetched.h - the models this replica has read from the Hub (or from the
 * database copy of them), kept in memory, with one fetch per id at a time.
 *
 * An entry is one repository at one asked revision ("" = the default
 * branch).  fetched_find() is the hot path: a mutex, a short scan and a
 * copy, never a wait on the network or the database.  fetched_get() is for
 * a thread that may block: when the entry is missing or stale it calls the
 * caller's fill function, and concurrent callers for the same id wait for
 * that one call and share its result (success or failure) instead of each
 * fetching (the "single flight" of Go's x/sync/singleflight).
 *
 * Freshness: an entry of the default branch is fresh for ttl_s after it
 * was read; a pinned revision never expires.
 *
 * Memory: the store owns its entries; every entry handed out is a copy
 * whose strings the caller frees with fetched_entry_free().  The store
 * holds at most FETCHED_MAX entries (the oldest read is dropped first).
 * Thread-safety: every function may be called from any thread.
 */
#ifndef GPUPLAN_MODELS_FETCHED_H
#define GPUPLAN_MODELS_FETCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FETCHED_MAX      4096
#define FETCHED_REPO_MAX 201

struct fetched_entry {
        char repo[FETCHED_REPO_MAX];     /* as the Hub spells it */
        char revision[FETCHED_REPO_MAX]; /* asked; "" = default branch */
        char sha[41];
        char etag[129];
        char quantization[32];
        bool gated;
        bool stale;           /* served past its TTL because the Hub could not be reached */
        int64_t fetched_at_s; /* Unix seconds */
        char *config;         /* config.json text */
        char *safetensors;    /* safetensors totals text, or NULL */
};

/* What a failed fill says: an HTTP status and a sentence. */
struct fetched_problem {
        int status;
        char rule[32];
        char detail[700];
};

/*
 * Fill out for repo at revision (from the database, then the Hub).
 * Returns 0 with out filled (strings malloc'd), or -1 with p filled.
 */
typedef int (*fetched_fill_fn)(void *ctx, const char *repo, const char *revision,
                               struct fetched_entry *out, struct fetched_problem *p);

struct fetched_store;

struct fetched_store *fetched_new(unsigned ttl_s);
void fetched_free(struct fetched_store *st);

/* 1 with a copy of the fresh entry in out, 0 if none (missing or stale). */
int fetched_find(struct fetched_store *st, const char *repo, const char *revision, int64_t now_s,
                 struct fetched_entry *out);

/*
 * As fetched_find, and when there is no fresh entry: fill it once for all
 * concurrent callers.  0 with out filled, or -1 with p filled.  Blocks.
 */
int fetched_get(struct fetched_store *st, const char *repo, const char *revision, int64_t now_s,
                fetched_fill_fn fill, void *ctx, struct fetched_entry *out,
                struct fetched_problem *p);

/* How many callers share the fill of repo at revision now under way: the
 * one filling and those waiting for its answer; 0 when none is.  A fill
 * function may ask, without waiting on the store. */
size_t fetched_sharing(struct fetched_store *st, const char *repo, const char *revision);

/* Whether an entry read at fetched_at_s of revision is still fresh at now_s. */
bool fetched_fresh(const struct fetched_store *st, const char *revision, int64_t fetched_at_s,
                   int64_t now_s);

/* Every entry's repo, for closest-match suggestions: up to max names copied
 * into names (each FETCHED_REPO_MAX bytes).  Returns how many. */
size_t fetched_names(struct fetched_store *st, char (*names)[FETCHED_REPO_MAX], size_t max);

/* Copy src into dst (strings duplicated).  0, or -1 when out of memory. */
int fetched_entry_copy(struct fetched_entry *dst, const struct fetched_entry *src);
void fetched_entry_free(struct fetched_entry *e);

#endif
