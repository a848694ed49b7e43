/*
 * test_answer_cache.c - the answer cache (server/plan/answer_cache.c):
 * hits and misses, least-recently-used eviction, the byte budget, keys
 * that differ by catalog snapshot, and single-flight between threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/answer_cache.h"

/* Look key up; on a miss store answer (if not NULL).  Returns 1 on a hit, checking answer. */
static int ask(struct answer_cache *c, const char *key, const char *answer)
{
        struct answer_claim claim;
        char *value;
        size_t len;
        int tag = 0;

        if (answer_cache_get(c, key, strlen(key), &tag, &value, &len, &claim)) {
                if (answer) {
                        assert_int_equal(len, strlen(answer));
                        assert_memory_equal(value, answer, len);
                        assert_int_equal(tag, 200);
                }
                free(value);
                return 1;
        }
        answer_cache_put(c, &claim, 200, answer, answer ? strlen(answer) : 0);
        return 0;
}

static void test_hit_and_miss(void **state)
{
        struct answer_cache *c = answer_cache_new(4, 1 << 20, 1000);
        struct answer_cache_stats st;

        (void)state;
        assert_non_null(c);
        assert_int_equal(ask(c, "compare|etag-1|{\"a\":1}", "plans-1"), 0);
        assert_int_equal(ask(c, "compare|etag-1|{\"a\":1}", "plans-1"), 1);
        assert_int_equal(ask(c, "compare|etag-1|{\"a\":2}", "plans-2"), 0);
        /* A miss whose answer is not stored (value NULL) stays a miss. */
        assert_int_equal(ask(c, "error", NULL), 0);
        assert_int_equal(ask(c, "error", NULL), 0);
        answer_cache_stats(c, &st);
        assert_int_equal(st.hits, 1);
        assert_int_equal(st.misses, 4);
        assert_int_equal(st.entries, 2);
        answer_cache_free(c);
}

/*
 * The API puts the snapshot's content validator into the key: the same
 * body under a new snapshot is a different key, so it misses, and the old
 * answer is never served for it.
 */
static void test_snapshot_change_misses(void **state)
{
        struct answer_cache *c = answer_cache_new(4, 1 << 20, 1000);
        static const char old_key[] = "compare\0\"etag-old\"\0{}",
                          new_key[] = "compare\0\"etag-new\"\0{}";
        struct answer_claim claim;
        char *value;
        size_t len;
        int tag;

        (void)state;
        assert_int_equal(answer_cache_get(c, old_key, sizeof(old_key), &tag, &value, &len, &claim),
                         0);
        answer_cache_put(c, &claim, 200, "old price", 9);
        assert_int_equal(answer_cache_get(c, new_key, sizeof(new_key), &tag, &value, &len, &claim),
                         0);
        answer_cache_put(c, &claim, 200, "new price", 9);
        assert_int_equal(answer_cache_get(c, new_key, sizeof(new_key), &tag, &value, &len, &claim),
                         1);
        assert_memory_equal(value, "new price", 9);
        free(value);
        answer_cache_free(c);
}

/* Three slots: a fourth answer evicts the least recently used, not the oldest stored. */
static void test_lru_eviction(void **state)
{
        struct answer_cache *c = answer_cache_new(3, 1 << 20, 1000);
        struct answer_cache_stats st;

        (void)state;
        ask(c, "a", "A");
        ask(c, "b", "B");
        ask(c, "c", "C");
        assert_int_equal(ask(c, "a", "A"), 1); /* a is now the most recent; b the least */
        assert_int_equal(ask(c, "d", "D"), 0); /* evicts b */
        answer_cache_stats(c, &st);
        assert_int_equal(st.evictions, 1);
        assert_int_equal(st.entries, 3);
        assert_int_equal(ask(c, "a", "A"), 1);
        assert_int_equal(ask(c, "c", "C"), 1);
        assert_int_equal(ask(c, "d", "D"), 1);
        assert_int_equal(ask(c, "b", "B"), 0); /* gone; stored again, evicting a */
        assert_int_equal(ask(c, "a", "A"), 0);
        answer_cache_free(c);
}

/*
 * A budget of 64 bytes: an answer may take a quarter, 16 bytes of key and
 * value.  "k1" + 10 bytes = 12 fits; five such answers (60 bytes) fit,
 * the sixth (72) evicts the least recently used; "big" + 14 bytes = 17 is
 * never stored.
 */
static void test_byte_budget(void **state)
{
        struct answer_cache *c = answer_cache_new(16, 64, 1000);
        struct answer_cache_stats st;
        char key[8];

        (void)state;
        for (int i = 1; i <= 5; i++) {
                snprintf(key, sizeof(key), "k%d", i);
                ask(c, key, "0123456789");
        }
        answer_cache_stats(c, &st);
        assert_int_equal(st.bytes, 60);
        assert_int_equal(st.evictions, 0);
        ask(c, "k6", "0123456789");
        answer_cache_stats(c, &st);
        assert_int_equal(st.bytes, 60);
        assert_int_equal(st.evictions, 1);
        assert_int_equal(ask(c, "k1", NULL), 0);
        assert_int_equal(ask(c, "big", "01234567890123"), 0);
        assert_int_equal(ask(c, "big", "01234567890123"), 0);
        answer_cache_free(c);
}

struct asker {
        struct answer_cache *c;
        int hit;
        char value[16];
};

static void *ask_thread(void *arg)
{
        struct asker *a = arg;
        struct answer_claim claim;
        char *value;
        size_t len;
        int tag;

        a->hit = answer_cache_get(a->c, "same", 4, &tag, &value, &len, &claim);
        if (a->hit) {
                memcpy(a->value, value, len < sizeof(a->value) ? len : sizeof(a->value) - 1);
                free(value);
        } else {
                answer_cache_put(a->c, &claim, 0, NULL, 0);
        }
        return NULL;
}

static void sleep_ms(long ms)
{
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

        nanosleep(&ts, NULL);
}

/*
 * This thread claims "same"; four others ask for it meanwhile and wait;
 * the answer stored releases them all as hits: the answer was computed
 * once.  (The 100 ms sleep only makes the wait likely; the counts hold
 * whether or not the others arrived before the answer.)
 */
static void test_single_flight(void **state)
{
        struct answer_cache *c = answer_cache_new(4, 1 << 20, 10000);
        struct answer_cache_stats st;
        struct answer_claim claim;
        struct asker askers[4];
        pthread_t threads[4];
        char *value;
        size_t len;
        int tag;

        (void)state;
        assert_int_equal(answer_cache_get(c, "same", 4, &tag, &value, &len, &claim), 0);
        for (int i = 0; i < 4; i++) {
                memset(&askers[i], 0, sizeof(askers[i]));
                askers[i].c = c;
                assert_int_equal(pthread_create(&threads[i], NULL, ask_thread, &askers[i]), 0);
        }
        sleep_ms(100);
        answer_cache_put(c, &claim, 200, "computed once", 13);
        for (int i = 0; i < 4; i++) {
                pthread_join(threads[i], NULL);
                assert_int_equal(askers[i].hit, 1);
                assert_string_equal(askers[i].value, "computed once");
        }
        answer_cache_stats(c, &st);
        assert_int_equal(st.misses, 1);
        assert_int_equal(st.hits, 4);
        answer_cache_free(c);
}

/* A claim given up (an answer not stored) hands the key to one waiter, who computes it. */
static void test_given_up_claim_passes_on(void **state)
{
        struct answer_cache *c = answer_cache_new(4, 1 << 20, 10000);
        struct answer_claim claim;
        struct asker a;
        pthread_t thread;
        char *value;
        size_t len;
        int tag;

        (void)state;
        assert_int_equal(answer_cache_get(c, "same", 4, &tag, &value, &len, &claim), 0);
        memset(&a, 0, sizeof(a));
        a.c = c;
        assert_int_equal(pthread_create(&thread, NULL, ask_thread, &a), 0);
        sleep_ms(50);
        answer_cache_put(c, &claim, 0, NULL, 0);
        pthread_join(thread, NULL);
        assert_int_equal(a.hit, 0);
        answer_cache_free(c);
}

/* A waiter gives up after wait_ms when the claim is never answered, and computes. */
static void test_wait_times_out(void **state)
{
        struct answer_cache *c = answer_cache_new(4, 1 << 20, 50);
        struct answer_claim claim, second;
        char *value;
        size_t len;
        int tag;

        (void)state;
        assert_int_equal(answer_cache_get(c, "stuck", 5, &tag, &value, &len, &claim), 0);
        assert_int_equal(answer_cache_get(c, "stuck", 5, &tag, &value, &len, &second), 0);
        assert_int_equal(second.slot, SIZE_MAX); /* nothing claimed: its put is a no-op */
        answer_cache_put(c, &second, 200, "x", 1);
        answer_cache_put(c, &claim, 200, "y", 1);
        assert_int_equal(answer_cache_get(c, "stuck", 5, &tag, &value, &len, &second), 1);
        assert_memory_equal(value, "y", 1);
        free(value);
        answer_cache_free(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hit_and_miss),
                cmocka_unit_test(test_snapshot_change_misses),
                cmocka_unit_test(test_lru_eviction),
                cmocka_unit_test(test_byte_budget),
                cmocka_unit_test(test_single_flight),
                cmocka_unit_test(test_given_up_claim_passes_on),
                cmocka_unit_test(test_wait_times_out),
        };

        return cmocka_run_group_tests_name("answer_cache", tests, NULL, NULL);
}
