/*
 * test_config.c - configuration from the environment: defaults, parsing,
 * and one-line refusals of bad values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"

static const char *const vars[] = {
        "DATABASE_URL",
        "GPUPLAN_LISTEN",
        "GPUPLAN_STATIC_DIR",
        "GPUPLAN_ADMIN_TOKEN",
        "GPUPLAN_THREADS",
        "GPUPLAN_LOG_LEVEL",
        "GPUPLAN_BASE_PATH",
        "GPUPLAN_MAX_CONNECTIONS",
        "GPUPLAN_IDLE_TIMEOUT_S",
        "GPUPLAN_BODY_LIMIT_BYTES",
        "GPUPLAN_DB_POOL_SIZE",
        "GPUPLAN_DB_ACQUIRE_TIMEOUT_MS",
        "GPUPLAN_SHUTDOWN_GRACE_S",
};

static int clear_env(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
                unsetenv(vars[i]);
        return 0;
}

static void test_defaults(void **state)
{
        struct config c;
        char err[256];

        (void)state;
        assert_int_equal(config_from_env(&c, err, sizeof(err)), 0);
        assert_string_equal(c.listen_host, "127.0.0.1");
        assert_int_equal(c.listen_port, 8080);
        assert_null(c.database_url);
        assert_string_equal(c.static_dir, "static");
        assert_null(c.admin_token);
        /* The epoll pool, one thread per online CPU, by default. */
        assert_int_equal(c.threads, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
        assert_int_equal(c.log_level, LOG_LEVEL_INFO);
        assert_string_equal(c.base_path, "");
        /* Longer than nginx's 60 s upstream keepalive_timeout. */
        assert_true(c.idle_timeout_s > 60);
        assert_int_equal(c.body_limit_bytes, 1048576);
        config_free(&c);
}

struct good {
        const char *var;
        const char *value;
        const char *host;
        unsigned port;
        const char *base;
};

static void test_listen_and_base_path(void **state)
{
        static const struct good rows[] = {
                {"GPUPLAN_LISTEN", "0.0.0.0:9000", "0.0.0.0", 9000, ""},
                {"GPUPLAN_LISTEN", ":9001", "127.0.0.1", 9001, ""},
                {"GPUPLAN_LISTEN", "[::1]:9002", "::1", 9002, ""},
                {"GPUPLAN_LISTEN", "localhost", "localhost", 8080, ""},
                {"GPUPLAN_LISTEN", "127.0.0.1:0", "127.0.0.1", 0, ""},
                {"GPUPLAN_BASE_PATH", "/gpuplan/", "127.0.0.1", 8080, "/gpuplan"},
                {"GPUPLAN_BASE_PATH", "/", "127.0.0.1", 8080, ""},
                {"GPUPLAN_BASE_PATH", "/a/b-c_d.e", "127.0.0.1", 8080, "/a/b-c_d.e"},
        };
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct config c;
                char err[256];
                clear_env(NULL);
                setenv(rows[i].var, rows[i].value, 1);
                if (config_from_env(&c, err, sizeof(err)))
                        fail_msg("%s=%s refused: %s", rows[i].var, rows[i].value, err);
                assert_string_equal(c.listen_host, rows[i].host);
                assert_int_equal(c.listen_port, rows[i].port);
                assert_string_equal(c.base_path, rows[i].base);
                config_free(&c);
        }
}

struct bad {
        const char *var;
        const char *value;
        const char *reason; /* substring of the message */
};

static void test_refusals(void **state)
{
        static const struct bad rows[] = {
                {"GPUPLAN_LISTEN", "127.0.0.1:65536", "port must be 0..65535"},
                {"GPUPLAN_LISTEN", "127.0.0.1:x", "port must be"},
                {"GPUPLAN_LISTEN", "::1:80", "IPv6"},
                {"GPUPLAN_LISTEN", "[::1", "unterminated"},
                {"GPUPLAN_THREADS", "-1", "GPUPLAN_THREADS"},
                {"GPUPLAN_THREADS", "1000", "0..256"},
                {"GPUPLAN_LOG_LEVEL", "verbose", "GPUPLAN_LOG_LEVEL"},
                {"GPUPLAN_ADMIN_TOKEN", "short", "16 to 256"},
                {"GPUPLAN_ADMIN_TOKEN", "has a space in it!!", "printable"},
                {"GPUPLAN_BASE_PATH", "gpuplan", "must start with '/'"},
                {"GPUPLAN_BASE_PATH", "/a/../b", "'..'"},
                {"GPUPLAN_BASE_PATH", "/a//b", "single '/'"},
                {"GPUPLAN_BASE_PATH", "/a b", "only letters"},
                {"GPUPLAN_BODY_LIMIT_BYTES", "10", "1024.."},
                {"GPUPLAN_DB_POOL_SIZE", "0", "GPUPLAN_DB_POOL_SIZE"},
                {"GPUPLAN_MAX_CONNECTIONS", "12abc", "GPUPLAN_MAX_CONNECTIONS"},
        };
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct config c;
                char err[256] = "";
                clear_env(NULL);
                setenv(rows[i].var, rows[i].value, 1);
                if (config_from_env(&c, err, sizeof(err)) == 0)
                        fail_msg("%s=%s accepted", rows[i].var, rows[i].value);
                if (!strstr(err, rows[i].reason))
                        fail_msg("%s=%s: \"%s\" lacks \"%s\"", rows[i].var, rows[i].value, err,
                                 rows[i].reason);
                assert_null(strchr(err, '\n'));
                /* The message names the variable at fault. */
                assert_non_null(strstr(err, rows[i].var));
        }
}

static void test_threads_not_above_connections(void **state)
{
        struct config c;
        char err[256];

        (void)state;
        setenv("GPUPLAN_THREADS", "8", 1);
        setenv("GPUPLAN_MAX_CONNECTIONS", "4", 1);
        assert_int_equal(config_from_env(&c, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "must not exceed"));
        setenv("GPUPLAN_MAX_CONNECTIONS", "8", 1);
        assert_int_equal(config_from_env(&c, err, sizeof(err)), 0);
        assert_int_equal(c.threads, 8);
        config_free(&c);
}

/* The default pool never exceeds the connection limit; per-connection stays available. */
static void test_threads_default_and_per_connection(void **state)
{
        struct config c;
        char err[256];

        (void)state;
        setenv("GPUPLAN_MAX_CONNECTIONS", "4", 1);
        assert_int_equal(config_from_env(&c, err, sizeof(err)), 0);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        assert_int_equal(c.threads, cpus < 4 ? (unsigned)cpus : 4u);
        config_free(&c);
        setenv("GPUPLAN_THREADS", "per-connection", 1);
        assert_int_equal(config_from_env(&c, err, sizeof(err)), 0);
        assert_int_equal(c.threads, 0);
        config_free(&c);
        setenv("GPUPLAN_THREADS", "0", 1);
        assert_int_equal(config_from_env(&c, err, sizeof(err)), 0);
        assert_int_equal(c.threads, 0);
        config_free(&c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_defaults, clear_env),
                cmocka_unit_test_setup(test_listen_and_base_path, clear_env),
                cmocka_unit_test_setup(test_refusals, clear_env),
                cmocka_unit_test_setup(test_threads_not_above_connections, clear_env),
                cmocka_unit_test_setup(test_threads_default_and_per_connection, clear_env),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
