/*
 * test_fields.c - the strict field readers of api/fields.c: what each
 * accepts, and the error record (pointer, rule, detail) it fills for what
 * it refuses.  Pointers follow RFC 6901 ("/parent/key"); the details are
 * the sentences the API documents for each rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "api/fields.h"

enum reader { UINT, INT, NUMBER, BOOL, OBJECT, DATE };

struct row {
        const char *body; /* the object holding "k" */
        enum reader reader;
        unsigned flags;
        int rc;
        const char *rule; /* NULL when the read succeeds */
        const char *detail;
        const char *why;
};

static const struct row rows[] = {
        {"{\"k\": 7}", UINT, 0, 0, NULL, NULL, "inside 1..10"},
        {"{\"k\": 11}", UINT, 0, -1, "range", "k must be 1..10", "above max"},
        {"{\"k\": -1}", UINT, 0, -1, "range", "k must be 1..10", "negative for an unsigned field"},
        {"{\"k\": 1.5}", UINT, 0, -1, "type", "k must be an integer", "a real is not an integer"},
        {"{\"k\": null}", UINT, FIELD_NULLABLE, 0, NULL, NULL, "null reads as absent"},
        {"{\"k\": null}", UINT, 0, -1, "type", "k may not be null", "null not allowed"},
        {"{}", UINT, FIELD_REQUIRED, -1, "required", "k is required", "absent but required"},
        {"{\"k\": 11}", INT, 0, -1, "range", "k must be between 1 and 10", "the catalog wording"},
        {"{\"k\": 0.5}", NUMBER, 0, -1, "range", "k must be between 1 and 10", "below min"},
        {"{\"k\": \"2\"}", NUMBER, 0, -1, "type", "k must be a number", "a string is no number"},
        {"{\"k\": 1}", BOOL, 0, -1, "type", "k must be true or false", "1 is no boolean"},
        {"{\"k\": []}", OBJECT, 0, -1, "type", "k must be an object", "an array is no object"},
        {"{\"k\": {}}", OBJECT, 0, 0, NULL, NULL, "an object"},
        {"{\"k\": \"2023-02-29\"}", DATE, 0, -1, "format", "k must be a date, YYYY-MM-DD",
         "2023 is not a leap year"},
        {"{\"k\": \"2024-02-29\"}", DATE, 0, 0, NULL, NULL, "2024 is a leap year"},
};

static int read_row(const struct row *r, json_t *obj, struct fields_error *err)
{
        uint64_t u = 0;
        int64_t i = 0;
        double d = 0;
        bool b = false;
        json_t *o = NULL;
        const char *s = NULL;

        switch (r->reader) {
        case UINT:
                return fields_read_uint(err, obj, "/p", "k", r->flags, 1, 10, &u);
        case INT:
                return fields_read_int(err, obj, "/p", "k", r->flags, 1, 10, &i);
        case NUMBER:
                return fields_read_number(err, obj, "/p", "k", r->flags, 1, 10, &d);
        case BOOL:
                return fields_read_bool(err, obj, "/p", "k", r->flags, &b);
        case OBJECT:
                return fields_read_object(err, obj, "/p", "k", r->flags, &o);
        case DATE:
                return fields_read_date(err, obj, "/p", "k", r->flags, &s);
        }
        return 0;
}

static void test_rows(void **state)
{
        (void)state;
        for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++) {
                const struct row *r = &rows[n];
                json_t *obj = json_loads(r->body, 0, NULL);
                struct fields_error err;

                memset(&err, 0, sizeof(err));
                assert_non_null(obj);
                print_message("%s\n", r->why);
                assert_int_equal(read_row(r, obj, &err), r->rc);
                if (r->rule) {
                        assert_string_equal(err.pointer, "/p/k");
                        assert_string_equal(err.rule, r->rule);
                        assert_string_equal(err.detail, r->detail);
                        assert_int_equal(err.status, 400);
                }
                json_decref(obj);
        }
}

/* A value the reader accepts lands in *out; an absent one leaves it alone. */
static void test_out(void **state)
{
        struct fields_error err;
        json_t *obj = json_loads("{\"a\": 9, \"b\": null}", 0, NULL);
        uint64_t a = 0, b = 5, c = 6;

        (void)state;
        assert_int_equal(fields_read_uint(&err, obj, "", "a", 0, 0, 10, &a), 0);
        assert_int_equal(fields_read_uint(&err, obj, "", "b", FIELD_NULLABLE, 0, 10, &b), 0);
        assert_int_equal(fields_read_uint(&err, obj, "", "c", 0, 0, 10, &c), 0);
        assert_int_equal(a, 9);
        assert_int_equal(b, 5);
        assert_int_equal(c, 6);
        json_decref(obj);
}

/* Unknown keys name the key itself under the object's pointer. */
static void test_known(void **state)
{
        static const char *const allowed[] = {"a", NULL};
        struct fields_error err;
        json_t *obj = json_loads("{\"a\": 1, \"zz\": 2}", 0, NULL);

        (void)state;
        assert_int_equal(fields_read_known(&err, obj, "/x", allowed), -1);
        assert_string_equal(err.pointer, "/x/zz");
        assert_string_equal(err.rule, "unknown");
        json_decref(obj);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rows),
                cmocka_unit_test(test_out),
                cmocka_unit_test(test_known),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
