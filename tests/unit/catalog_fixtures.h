/*
 * catalog_fixtures.h - helpers for the unit tests that build a small
 * catalog by hand (test_train_search.c, test_rent_vs_buy.c): strings
 * copied into the tables' arena, and a relative-tolerance comparison.
 * Include after cmocka.h and catalog/catalog_tables.h.
 */
#ifndef GPUPLAN_TESTS_CATALOG_FIXTURES_H
#define GPUPLAN_TESTS_CATALOG_FIXTURES_H

#include <math.h>
#include <string.h>

/* a == b to a relative tolerance (cmocka 1.1.5's float assertion is absolute). */
#define assert_close(a, b) assert_true(fixture_close((a), (b)))

static inline bool fixture_close(double a, double b)
{
        return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* s copied into the tables' string arena (freed with the tables). */
static inline const char *dup(struct catalog_tables *t, const char *s)
{
        const char *out = catalog_tables_strndup(t, s, strlen(s));

        assert_non_null(out);
        return out;
}

#endif
