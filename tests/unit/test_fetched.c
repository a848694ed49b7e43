/*
 * test_fetched.c - the in-memory store of fetched models (models/fetched.c):
 * concurrent first requests for one id share one fill, success or failure;
 * a branch expires after the TTL, a pinned revision never does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "models/fetched.h"

#define THREADS 32

struct world {
        atomic_int fills;
        int fail;
        struct fetched_store *st; /* set: wait for THREADS callers */
};

/* With w->st set the fill answers once all THREADS callers share it (or
 * after 30 s, so a broken store fails the counts below instead of hanging):
 * a thread the scheduler starts late cannot arrive after a failed fill and
 * start a second one. */
static int fill(void *ctx, const char *repo, const char *revision, struct fetched_entry *out,
                struct fetched_problem *p)
{
        struct world *w = ctx;
        struct timespec ts = {0, 1000 * 1000};
        atomic_fetch_add(&w->fills, 1);
        for (int ms = 0; w->st && ms < 30000 && fetched_sharing(w->st, repo, revision) < THREADS;
             ms++)
                nanosleep(&ts, NULL);
        if (w->fail) {
                p->status = 504;
                snprintf(p->rule, sizeof(p->rule), "hub_timeout");
                snprintf(p->detail, sizeof(p->detail), "waited for %s", repo);
                return -1;
        }
        memset(out, 0, sizeof(*out));
        snprintf(out->repo, sizeof(out->repo), "%s", repo);
        snprintf(out->revision, sizeof(out->revision), "%s", revision);
        snprintf(out->sha, sizeof(out->sha), "%040d", 7);
        out->fetched_at_s = 1000;
        out->config = strdup("{\"model_type\":\"llama\"}");
        return 0;
}

struct call {
        struct fetched_store *st;
        struct world *w;
        int rc;
        struct fetched_entry e;
        struct fetched_problem p;
};

static void *ask(void *arg)
{
        struct call *c = arg;
        c->rc = fetched_get(c->st, "Org/Model", "", 1000, fill, c->w, &c->e, &c->p);
        return NULL;
}

static void run(struct fetched_store *st, struct world *w, struct call *calls)
{
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++) {
                calls[i] = (struct call){.st = st, .w = w};
                assert_int_equal(pthread_create(&t[i], NULL, ask, &calls[i]), 0);
        }
        for (int i = 0; i < THREADS; i++)
                pthread_join(t[i], NULL);
}

static void test_one_fill_for_many(void **state)
{
        (void)state;
        struct fetched_store *st = fetched_new(3600);
        struct world w = {.st = st};
        static struct call calls[THREADS];
        run(st, &w, calls);
        assert_int_equal(atomic_load(&w.fills), 1);
        for (int i = 0; i < THREADS; i++) {
                assert_int_equal(calls[i].rc, 0);
                assert_string_equal(calls[i].e.repo, "Org/Model");
                assert_string_equal(calls[i].e.config, "{\"model_type\":\"llama\"}");
                fetched_entry_free(&calls[i].e);
        }
        /* later, and in another case: from memory */
        struct fetched_entry e;
        assert_int_equal(fetched_find(st, "org/model", "", 1000 + 3599, &e), 1);
        fetched_entry_free(&e);
        fetched_free(st);
}

static void test_failure_shared(void **state)
{
        (void)state;
        struct fetched_store *st = fetched_new(3600);
        struct world w = {.fail = 1, .st = st};
        static struct call calls[THREADS];
        run(st, &w, calls);
        assert_int_equal(atomic_load(&w.fills), 1);
        for (int i = 0; i < THREADS; i++) {
                assert_int_equal(calls[i].rc, -1);
                assert_int_equal(calls[i].p.status, 504);
                assert_string_equal(calls[i].p.detail, "waited for Org/Model");
        }
        /* a failure is not kept: the next request asks again */
        struct fetched_entry e;
        assert_int_equal(fetched_find(st, "Org/Model", "", 1000, &e), 0);
        fetched_free(st);
}

static void test_ttl(void **state)
{
        (void)state;
        struct fetched_store *st = fetched_new(60);
        struct world w = {0};
        struct fetched_entry e;
        struct fetched_problem p;
        assert_int_equal(fetched_get(st, "Org/Model", "", 1000, fill, &w, &e, &p), 0);
        fetched_entry_free(&e);
        /* the branch's copy (read at 1000) is fresh for 60 s */
        assert_int_equal(fetched_find(st, "Org/Model", "", 1059, &e), 1);
        fetched_entry_free(&e);
        assert_int_equal(fetched_find(st, "Org/Model", "", 1060, &e), 0);
        /* a pinned revision never expires */
        assert_int_equal(fetched_get(st, "Org/Model", "v1.0", 1000, fill, &w, &e, &p), 0);
        fetched_entry_free(&e);
        assert_int_equal(fetched_find(st, "Org/Model", "v1.0", 1000 + 86400 * 365, &e), 1);
        fetched_entry_free(&e);
        assert_int_equal(atomic_load(&w.fills), 2);
        fetched_free(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_one_fill_for_many),
                cmocka_unit_test(test_failure_shared),
                cmocka_unit_test(test_ttl),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
