/*
 * test_sqlstate.c - the SQLSTATE -> HTTP table of db/sqlstate.c.  Codes and
 * their meanings are those of the PostgreSQL 15 manual, Appendix A
 * "PostgreSQL Error Codes" (https://www.postgresql.org/docs/15/errcodes-appendix.html);
 * the status each should get follows RFC 9110: a client's conflict is 409,
 * a well-formed request with a bad value 422, a transient server state 503
 * with Retry-After, anything unexpected 500.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "db/sqlstate.h"

struct row {
        const char *state;
        const char *constraint;
        int status;
        unsigned retry_after_s;
        const char *detail;
};

static const struct row rows[] = {
        /* 23505 unique_violation: the row exists already */
        {"23505", "gpus_pkey", 409, 0, "conflicts with an existing row (gpus_pkey)"},
        {"23505", "", 409, 0, "conflicts with an existing row"},
        {"23505", NULL, 409, 0, "conflicts with an existing row"},
        /* 23503 foreign_key_violation: names a row that is not there */
        {"23503", "offerings_accelerator_id_fkey", 422, 0,
         "refers to a row that does not exist (offerings_accelerator_id_fkey)"},
        /* 22P02 invalid_text_representation */
        {"22P02", NULL, 422, 0, "a value has the wrong format"},
        /* 40001 serialization_failure and 40P01 deadlock_detected: try again */
        {"40001", NULL, 503, 1, "concurrent update, try again"},
        {"40P01", NULL, 503, 1, "concurrent update, try again"},
        /* 53300 too_many_connections has its own row before class 53 */
        {"53300", NULL, 503, 2, "the database has no free connections"},
        /* 53100 disk_full falls to class 53 insufficient_resources */
        {"53100", NULL, 503, 2, "the database is out of resources"},
        /* 08006 connection_failure: class 08 */
        {"08006", NULL, 503, 2, "the database connection failed"},
        /* 57P01 admin_shutdown */
        {"57P01", NULL, 503, 2, "the database is shutting down"},
        /* 42601 syntax_error: our bug, not the client's */
        {"42601", NULL, 500, 0, "the database refused the write"},
        /* 2350X is no code; a prefix of a listed code must not match it */
        {"2350X", NULL, 500, 0, "the database refused the write"},
};

static void test_table(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct db_error e;

                memset(&e, 0x55, sizeof(e)); /* every field must be set */
                sqlstate_error(rows[i].state, rows[i].constraint, &e);
                assert_int_equal(e.http_status, rows[i].status);
                assert_int_equal(e.retry_after_seconds, rows[i].retry_after_s);
                assert_string_equal(e.sqlstate, rows[i].state);
                assert_string_equal(e.detail, rows[i].detail);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
