/*
 * fetched.c - fetched models in memory, one fill per id (see fetched.h).
 */
#include "models/fetched.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One fill in progress; waiters copy its result before the last one frees it. */
struct flight {
        char repo[FETCHED_REPO_MAX];
        char revision[FETCHED_REPO_MAX];
        bool done;
        int rc;
        unsigned users; /* the filler and the waiters */
        struct fetched_entry entry;
        struct fetched_problem problem;
        struct flight *next;
};

struct fetched_store {
        pthread_mutex_t lock;
        pthread_cond_t landed;
        unsigned ttl_s;
        struct fetched_entry *entries;
        size_t n, cap;
        struct flight *flights;
};

struct fetched_store *fetched_new(unsigned ttl_s)
{
        struct fetched_store *st = calloc(1, sizeof(*st));
        if (!st)
                return NULL;
        pthread_mutex_init(&st->lock, NULL);
        pthread_cond_init(&st->landed, NULL);
        st->ttl_s = ttl_s;
        return st;
}

void fetched_free(struct fetched_store *st)
{
        if (!st)
                return;
        for (size_t i = 0; i < st->n; i++)
                fetched_entry_free(&st->entries[i]);
        free(st->entries);
        pthread_cond_destroy(&st->landed);
        pthread_mutex_destroy(&st->lock);
        free(st);
}

int fetched_entry_copy(struct fetched_entry *dst, const struct fetched_entry *src)
{
        *dst = *src;
        dst->config = src->config ? strdup(src->config) : NULL;
        dst->safetensors = src->safetensors ? strdup(src->safetensors) : NULL;
        if ((src->config && !dst->config) || (src->safetensors && !dst->safetensors)) {
                fetched_entry_free(dst);
                return -1;
        }
        return 0;
}

void fetched_entry_free(struct fetched_entry *e)
{
        free(e->config);
        free(e->safetensors);
        e->config = e->safetensors = NULL;
}

bool fetched_fresh(const struct fetched_store *st, const char *revision, int64_t fetched_at_s,
                   int64_t now_s)
{
        return revision[0] != '\0' || now_s - fetched_at_s < (int64_t)st->ttl_s;
}

static bool same(const char *repo, const char *revision, const char *r2, const char *v2)
{
        return !strcasecmp(repo, r2) && !strcmp(revision, v2);
}

/* The entry of repo at revision, fresh or not; NULL if none.  Lock held. */
static struct fetched_entry *locate(struct fetched_store *st, const char *repo,
                                    const char *revision)
{
        for (size_t i = 0; i < st->n; i++)
                if (same(repo, revision, st->entries[i].repo, st->entries[i].revision))
                        return &st->entries[i];
        return NULL;
}

int fetched_find(struct fetched_store *st, const char *repo, const char *revision, int64_t now_s,
                 struct fetched_entry *out)
{
        int found = 0;
        pthread_mutex_lock(&st->lock);
        struct fetched_entry *e = locate(st, repo, revision);
        if (e && fetched_fresh(st, revision, e->fetched_at_s, now_s) &&
            fetched_entry_copy(out, e) == 0)
                found = 1;
        pthread_mutex_unlock(&st->lock);
        return found;
}

/* Keep a copy of e (replacing the entry of its id, or the oldest when full).  Lock held. */
static void keep(struct fetched_store *st, const struct fetched_entry *e)
{
        struct fetched_entry copy, *slot = locate(st, e->repo, e->revision);

        if (fetched_entry_copy(&copy, e))
                return;
        copy.stale = false;
        if (!slot && st->n == st->cap && st->cap < FETCHED_MAX) {
                size_t cap = st->cap ? st->cap * 2 : 16;
                struct fetched_entry *grown = realloc(st->entries, cap * sizeof(*grown));
                if (grown) {
                        st->entries = grown;
                        st->cap = cap;
                }
        }
        if (!slot && st->n < st->cap) {
                slot = &st->entries[st->n++];
                slot->config = slot->safetensors = NULL;
        }
        if (!slot) { /* full: replace the one read longest ago */
                if (st->n == 0) {
                        fetched_entry_free(&copy);
                        return;
                }
                slot = &st->entries[0];
                for (size_t i = 1; i < st->n; i++)
                        if (st->entries[i].fetched_at_s < slot->fetched_at_s)
                                slot = &st->entries[i];
        }
        fetched_entry_free(slot);
        *slot = copy;
}

static void flight_release(struct fetched_store *st, struct flight *f)
{
        if (--f->users)
                return;
        for (struct flight **pp = &st->flights; *pp; pp = &(*pp)->next)
                if (*pp == f) {
                        *pp = f->next;
                        break;
                }
        fetched_entry_free(&f->entry);
        free(f);
}

static int flight_result(struct flight *f, struct fetched_entry *out, struct fetched_problem *p)
{
        if (f->rc) {
                *p = f->problem;
                return -1;
        }
        if (fetched_entry_copy(out, &f->entry)) {
                p->status = 500;
                strcpy(p->rule, "memory");
                strcpy(p->detail, "out of memory");
                return -1;
        }
        return 0;
}

int fetched_get(struct fetched_store *st, const char *repo, const char *revision, int64_t now_s,
                fetched_fill_fn fill, void *ctx, struct fetched_entry *out,
                struct fetched_problem *p)
{
        struct flight *f;
        int rc;

        pthread_mutex_lock(&st->lock);
        struct fetched_entry *e = locate(st, repo, revision);
        if (e && fetched_fresh(st, revision, e->fetched_at_s, now_s)) {
                rc = fetched_entry_copy(out, e) ? -1 : 0;
                pthread_mutex_unlock(&st->lock);
                if (rc) {
                        p->status = 500;
                        strcpy(p->rule, "memory");
                        strcpy(p->detail, "out of memory");
                }
                return rc;
        }
        for (f = st->flights; f; f = f->next)
                if (same(repo, revision, f->repo, f->revision))
                        break;
        if (f) { /* someone is filling it: wait for their answer */
                f->users++;
                while (!f->done)
                        pthread_cond_wait(&st->landed, &st->lock);
                rc = flight_result(f, out, p);
                flight_release(st, f);
                pthread_mutex_unlock(&st->lock);
                return rc;
        }
        f = calloc(1, sizeof(*f));
        if (!f) {
                pthread_mutex_unlock(&st->lock);
                p->status = 500;
                strcpy(p->rule, "memory");
                strcpy(p->detail, "out of memory");
                return -1;
        }
        snprintf(f->repo, sizeof(f->repo), "%s", repo);
        snprintf(f->revision, sizeof(f->revision), "%s", revision);
        f->users = 1;
        f->next = st->flights;
        st->flights = f;
        pthread_mutex_unlock(&st->lock);

        f->rc = fill(ctx, repo, revision, &f->entry, &f->problem);

        pthread_mutex_lock(&st->lock);
        if (f->rc == 0 && !f->entry.stale)
                keep(st, &f->entry);
        f->done = true;
        pthread_cond_broadcast(&st->landed);
        rc = flight_result(f, out, p);
        flight_release(st, f);
        pthread_mutex_unlock(&st->lock);
        return rc;
}

size_t fetched_sharing(struct fetched_store *st, const char *repo, const char *revision)
{
        size_t n = 0;
        pthread_mutex_lock(&st->lock);
        for (struct flight *f = st->flights; f; f = f->next)
                if (!f->done && same(repo, revision, f->repo, f->revision))
                        n = f->users;
        pthread_mutex_unlock(&st->lock);
        return n;
}

size_t fetched_names(struct fetched_store *st, char (*names)[FETCHED_REPO_MAX], size_t max)
{
        size_t n = 0;
        pthread_mutex_lock(&st->lock);
        for (size_t i = 0; i < st->n && n < max; i++)
                memcpy(names[n++], st->entries[i].repo, FETCHED_REPO_MAX);
        pthread_mutex_unlock(&st->lock);
        return n;
}
