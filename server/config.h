/*
 * config.h - the server's configuration, read from the environment.
 *
 * config_from_env() reads every GPUPLAN_* variable (and DATABASE_URL),
 * applies defaults and validates; bad configuration is refused with a
 * one-line reason so that main() can print it and exit 2.  The variables
 * are listed by config_usage() (gpuplan --help) and in docs/deployment.md.
 *
 * Memory: the strings of a struct config are malloc'd by config_from_env()
 * and freed by config_free().  After start the struct is read-only and may
 * be shared by every thread.
 */
#ifndef GPUPLAN_CONFIG_H
#define GPUPLAN_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#define CONFIG_HOST_MAX 256

struct config {
        char listen_host[CONFIG_HOST_MAX]; /* GPUPLAN_LISTEN host part, "127.0.0.1" */
        unsigned listen_port;              /* 0 = pick a free port (tests) */
        char *database_url;                /* DATABASE_URL; NULL = libpq's PG* environment */
        char *static_dir;                  /* GPUPLAN_STATIC_DIR, default "static" */
        char *admin_token;                 /* GPUPLAN_ADMIN_TOKEN; NULL = admin API disabled */
        unsigned threads; /* GPUPLAN_THREADS: N = epoll pool (default: CPUs), 0 = per connection */
        int log_level;    /* enum log_level, from GPUPLAN_LOG_LEVEL */
        char *base_path;  /* GPUPLAN_BASE_PATH: "" or "/prefix" (no trailing slash) */
        unsigned connection_limit;      /* GPUPLAN_MAX_CONNECTIONS */
        unsigned idle_timeout_s;        /* GPUPLAN_IDLE_TIMEOUT_S */
        size_t body_limit_bytes;        /* GPUPLAN_BODY_LIMIT_BYTES */
        unsigned db_pool_size;          /* GPUPLAN_DB_POOL_SIZE */
        unsigned db_acquire_timeout_ms; /* GPUPLAN_DB_ACQUIRE_TIMEOUT_MS */
        unsigned shutdown_grace_s;      /* GPUPLAN_SHUTDOWN_GRACE_S */
        unsigned import_shipped_prices; /* GPUPLAN_IMPORT_SHIPPED_PRICES: 1 = import prices/skypilot */
};

/*
 * Fill cfg from the environment.  Returns 0, or -1 with a one-line reason
 * in err (e.g. "GPUPLAN_LISTEN: port must be 0..65535: \"x\"").  On failure
 * cfg holds nothing that needs freeing.
 */
int config_from_env(struct config *cfg, char *err, size_t errlen);

/* Free the strings of cfg (not cfg itself).  Safe on a zeroed struct. */
void config_free(struct config *cfg);

/* Print the list of variables, their defaults and meaning. */
void config_usage(FILE *out);

#endif
