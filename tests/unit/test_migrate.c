/*
 * test_migrate.c - which recorded checksums db/migrate.c accepts for a
 * migration file: its own, and an earlier wording the file names on a
 * "-- gpuplan:reworded-from <sha256> <why>" line; nothing else.  The
 * runner compares hex strings and computes no digest, so the checksums
 * below only need to be 64 hex digits; the earlier one is sha256sum(1) of
 * "SELECT 1;\n" to look like what the build records.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "db/migrate.h"

/* printf 'SELECT 1;\n' | sha256sum */
#define OLD_SUM "b4e0497804e46e0a0b0b8c31975b062152d551bac49c3c2e80932567b4085dcd"
/* any other 64 hex digits: a real edit the file does not record */
#define OTHER_SUM "0000000000000000000000000000000000000000000000000000000000000000"
#define OWN_SUM   "1111111111111111111111111111111111111111111111111111111111111111"

static struct migration_file file_with(const char *sql)
{
        struct migration_file f = {7, "0007_x.sql", sql, strlen(sql), OWN_SUM};
        return f;
}

static void test_own_checksum_is_accepted(void **state)
{
        (void)state;
        struct migration_file f = file_with("SELECT 1;\n");
        assert_true(db_migrate_checksum_accepted(&f, OWN_SUM));
        assert_false(db_migrate_checksum_accepted(&f, OTHER_SUM));
        assert_false(db_migrate_checksum_accepted(&f, ""));
}

static void test_recorded_rewording_is_accepted(void **state)
{
        (void)state;
        struct migration_file f = file_with("-- gpuplan:reworded-from " OLD_SUM
                                            " comments only\n-- 0007: x\nSELECT 1;\n");
        assert_true(db_migrate_checksum_accepted(&f, OLD_SUM));
        assert_true(db_migrate_checksum_accepted(&f, OWN_SUM));
        /* a change the file does not record is still an edit */
        assert_false(db_migrate_checksum_accepted(&f, OTHER_SUM));
}

static void test_directive_anywhere_in_the_header(void **state)
{
        (void)state;
        struct migration_file f =
                file_with("-- 0007: x\n-- gpuplan:reworded-from " OLD_SUM "\nSELECT 1;\n");
        assert_true(db_migrate_checksum_accepted(&f, OLD_SUM));
}

static void test_only_whole_directives_count(void **state)
{
        (void)state;
        /* the mark inside a line, a prefix of the checksum, a longer
         * string that starts with it: none is a recorded wording */
        struct migration_file inside =
                file_with("SELECT '-- gpuplan:reworded-from " OLD_SUM "';\n");
        struct migration_file glued = file_with("-- gpuplan:reworded-from " OLD_SUM "ff\n");
        assert_false(db_migrate_checksum_accepted(&inside, OLD_SUM));
        assert_false(db_migrate_checksum_accepted(&glued, OLD_SUM));
        assert_false(db_migrate_checksum_accepted(&glued, "b4e04978"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_own_checksum_is_accepted),
                cmocka_unit_test(test_recorded_rewording_is_accepted),
                cmocka_unit_test(test_directive_anywhere_in_the_header),
                cmocka_unit_test(test_only_whole_directives_count),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
