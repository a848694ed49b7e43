/*
 * test_admin.c - admin authorisation of the catalog writes (api/admin.c):
 * a bearer token compared in full, the scheme case-insensitive (RFC 9110
 * section 11.1), 401 without credentials, 403 with wrong ones or when no
 * token is configured.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "api/admin.h"

#include "api_fixture.h"

static void test_admin_check(void **state)
{
        struct fixture_env *e = *state;
        struct api_response rs = {0};
        struct fake none = {.query = {{NULL, NULL}}},
                    wrong = {.header = {{"Authorization", "Bearer correct-horse-battery-stapl"}}},
                    longer = {.header = {{"Authorization",
                                          "Bearer correct-horse-battery-staple!"}}},
                    basic = {.header = {{"Authorization", "Basic Y29ycmVjdA=="}}},
                    right = {.header = {{"authorization", "bearer correct-horse-battery-staple"}}};
        struct api_request rq;

        rq = request(e, &none, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 401);
        assert_string_equal(rs.headers[0].name, "WWW-Authenticate");
        reset(&rs);
        rq = request(e, &basic, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 401);
        reset(&rs);
        /* One character short and one too many: both wrong, 403. */
        rq = request(e, &wrong, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 403);
        reset(&rs);
        rq = request(e, &longer, NULL);
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 403);
        reset(&rs);
        /* The scheme is case-insensitive (RFC 9110 section 11.1). */
        rq = request(e, &right, NULL);
        assert_int_equal(admin_check(&rq, &rs), 0);
        assert_int_equal(rs.status, 0);

        /* No token configured: writes are off for everyone. */
        free(e->cfg.admin_token);
        e->cfg.admin_token = NULL;
        assert_int_equal(admin_check(&rq, &rs), -1);
        assert_int_equal(rs.status, 403);
        assert_non_null(strstr(rs.body, "GPUPLAN_ADMIN_TOKEN"));
        reset(&rs);
        e->cfg.admin_token = strdup("correct-horse-battery-staple");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_admin_check),
        };

        return cmocka_run_group_tests_name("admin", tests, fixture_setup, fixture_teardown);
}
