/*
 * config.c - configuration from environment variables; see config.h.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "log.h"

/* Defaults; the reasons are in docs/deployment.md, "Configuration". */
#define DEFAULT_HOST             "127.0.0.1"
#define DEFAULT_PORT             8080u
#define DEFAULT_STATIC_DIR       "static"
#define DEFAULT_CONNECTION_LIMIT 256u
/* Above nginx's upstream keepalive_timeout (60 s), so nginx closes first. */
#define DEFAULT_IDLE_TIMEOUT_S        75u
#define DEFAULT_BODY_LIMIT_BYTES      (1024u * 1024u)
#define DEFAULT_DB_POOL_SIZE          4u
#define DEFAULT_DB_ACQUIRE_TIMEOUT_MS 2000u
#define DEFAULT_SHUTDOWN_GRACE_S      10u
#define ADMIN_TOKEN_MIN_LEN           16u

/* Parse a decimal in [min, max]; the whole string must be digits. */
static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
        char *end;
        uintmax_t v;

        if (!s || *s < '0' || *s > '9')
                return -1;
        errno = 0;
        v = strtoumax(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return -1;
        *out = (uint64_t)v;
        return 0;
}

static int env_uint(const char *name, uint64_t def, uint64_t min, uint64_t max, uint64_t *out,
                    char *err, size_t errlen)
{
        const char *s = getenv(name);

        if (!s || !*s) {
                *out = def;
                return 0;
        }
        if (parse_uint(s, min, max, out))
                return errbuf_set(err, errlen,
                                  "%s: expected an integer in %" PRIu64 "..%" PRIu64
                                  ", got \"%.64s\"",
                                  name, min, max, s);
        return 0;
}

/* "host:port", "[v6]:port", ":port" or "host" (default port). */
static int parse_listen(const char *s, struct config *cfg, char *err, size_t errlen)
{
        const char *colon;
        size_t host_len;
        uint64_t port = DEFAULT_PORT;

        if (s[0] == '[') {
                const char *close = strchr(s, ']');
                if (!close || close == s + 1)
                        return errbuf_set(err, errlen,
                                          "GPUPLAN_LISTEN: unterminated IPv6 address: \"%.64s\"",
                                          s);
                host_len = (size_t)(close - s - 1);
                if (host_len >= sizeof(cfg->listen_host))
                        return errbuf_set(err, errlen, "GPUPLAN_LISTEN: host too long");
                memcpy(cfg->listen_host, s + 1, host_len);
                cfg->listen_host[host_len] = '\0';
                colon = close[1] == ':' ? close + 1 : NULL;
                if (!colon && close[1] != '\0')
                        return errbuf_set(err, errlen,
                                          "GPUPLAN_LISTEN: expected [host]:port, got \"%.64s\"", s);
        } else {
                colon = strrchr(s, ':');
                if (colon && strchr(s, ':') != colon)
                        return errbuf_set(
                                err, errlen,
                                "GPUPLAN_LISTEN: write IPv6 addresses as [addr]:port, got "
                                "\"%.64s\"",
                                s);
                host_len = colon ? (size_t)(colon - s) : strlen(s);
                if (host_len >= sizeof(cfg->listen_host))
                        return errbuf_set(err, errlen, "GPUPLAN_LISTEN: host too long");
                if (host_len == 0) {
                        strcpy(cfg->listen_host, DEFAULT_HOST);
                } else {
                        memcpy(cfg->listen_host, s, host_len);
                        cfg->listen_host[host_len] = '\0';
                }
        }
        if (colon && parse_uint(colon + 1, 0, 65535, &port))
                return errbuf_set(err, errlen,
                                  "GPUPLAN_LISTEN: port must be 0..65535, got \"%.64s\"",
                                  colon + 1);
        for (const char *p = cfg->listen_host; *p; p++)
                if (*p <= ' ' || *p == '/' || *p == '@')
                        return errbuf_set(err, errlen, "GPUPLAN_LISTEN: bad host \"%.64s\"",
                                          cfg->listen_host);
        cfg->listen_port = (unsigned)port;
        return 0;
}

/* "", "/" -> ""; "/gpuplan/" -> "/gpuplan"; must start with '/', plain segments. */
static int parse_base_path(const char *s, char **out, char *err, size_t errlen)
{
        size_t n = s ? strlen(s) : 0;

        while (n > 0 && s[n - 1] == '/')
                n--;
        if (n == 0) {
                *out = strdup("");
                return *out ? 0 : errbuf_set(err, errlen, "out of memory");
        }
        if (s[0] != '/')
                return errbuf_set(err, errlen,
                                  "GPUPLAN_BASE_PATH: must start with '/', got \"%.64s\"", s);
        if (n > 128)
                return errbuf_set(err, errlen, "GPUPLAN_BASE_PATH: longer than 128 characters");
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '/';
                if (!ok || (c == '/' && i + 1 < n && s[i + 1] == '/'))
                        return errbuf_set(
                                err, errlen,
                                "GPUPLAN_BASE_PATH: only letters, digits, '-', '_', '.' and "
                                "single '/' allowed, got \"%.64s\"",
                                s);
                if (c == '.' && (i == 0 || s[i - 1] == '/') &&
                    (i + 1 == n || s[i + 1] == '/' ||
                     (s[i + 1] == '.' && (i + 2 == n || s[i + 2] == '/'))))
                        return errbuf_set(
                                err, errlen,
                                "GPUPLAN_BASE_PATH: '.' and '..' segments are not allowed");
        }
        *out = strndup(s, n);
        return *out ? 0 : errbuf_set(err, errlen, "out of memory");
}

static int dup_env(const char *name, char **out, char *err, size_t errlen)
{
        const char *s = getenv(name);

        *out = NULL;
        if (!s || !*s)
                return 0;
        *out = strdup(s);
        return *out ? 0 : errbuf_set(err, errlen, "out of memory");
}

int config_from_env(struct config *cfg, char *err, size_t errlen)
{
        const char *s;
        uint64_t v;
        int level;
        bool threads_defaulted = false;

        memset(cfg, 0, sizeof(*cfg));
        s = getenv("GPUPLAN_LISTEN");
        if (parse_listen(s && *s ? s : DEFAULT_HOST ":8080", cfg, err, errlen))
                goto fail;

        s = getenv("GPUPLAN_LOG_LEVEL");
        if (s && *s) {
                level = log_level_parse(s);
                if (level < 0) {
                        errbuf_set(err, errlen,
                                   "GPUPLAN_LOG_LEVEL: expected debug, info, warn or error, got "
                                   "\"%.32s\"",
                                   s);
                        goto fail;
                }
        } else {
                level = LOG_LEVEL_INFO;
        }
        cfg->log_level = level;

        /*
         * Default: an epoll pool of one thread per online CPU (libmicrohttpd's
         * advice for non-blocking handlers: a thread per core, no waiting in the
         * handler); handlers
         * that block run on the offload pools (server/http/offload.h).
         */
        s = getenv("GPUPLAN_THREADS");
        if (s && *s && (strcmp(s, "per-connection") == 0)) {
                cfg->threads = 0;
        } else {
                long cpus = sysconf(_SC_NPROCESSORS_ONLN);
                unsigned dflt = cpus < 1 ? 1u : cpus > 64 ? 64u : (unsigned)cpus;
                if (env_uint("GPUPLAN_THREADS", dflt, 0, 256, &v, err, errlen))
                        goto fail;
                cfg->threads = (unsigned)v;
                threads_defaulted = !(s && *s);
        }
        if (env_uint("GPUPLAN_MAX_CONNECTIONS", DEFAULT_CONNECTION_LIMIT, 4, 10000, &v, err,
                     errlen))
                goto fail;
        cfg->connection_limit = (unsigned)v;
        if (threads_defaulted && cfg->threads > cfg->connection_limit)
                cfg->threads = cfg->connection_limit; /* a pool worker per connection at most */
        if (cfg->threads > cfg->connection_limit) {
                errbuf_set(err, errlen,
                           "GPUPLAN_THREADS (%u) must not exceed GPUPLAN_MAX_CONNECTIONS (%u)",
                           cfg->threads, cfg->connection_limit);
                goto fail;
        }
        if (env_uint("GPUPLAN_IDLE_TIMEOUT_S", DEFAULT_IDLE_TIMEOUT_S, 1, 3600, &v, err, errlen))
                goto fail;
        cfg->idle_timeout_s = (unsigned)v;
        if (env_uint("GPUPLAN_BODY_LIMIT_BYTES", DEFAULT_BODY_LIMIT_BYTES, 1024, 64u * 1024 * 1024,
                     &v, err, errlen))
                goto fail;
        cfg->body_limit_bytes = (size_t)v;
        if (env_uint("GPUPLAN_DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE, 1, 256, &v, err, errlen))
                goto fail;
        cfg->db_pool_size = (unsigned)v;
        if (env_uint("GPUPLAN_DB_ACQUIRE_TIMEOUT_MS", DEFAULT_DB_ACQUIRE_TIMEOUT_MS, 0, 60000, &v,
                     err, errlen))
                goto fail;
        cfg->db_acquire_timeout_ms = (unsigned)v;
        if (env_uint("GPUPLAN_IMPORT_SHIPPED_PRICES", 1, 0, 1, &v, err, errlen))
                return -1;
        cfg->import_shipped_prices = (unsigned)v;
        if (env_uint("GPUPLAN_SHUTDOWN_GRACE_S", DEFAULT_SHUTDOWN_GRACE_S, 0, 600, &v, err, errlen))
                goto fail;
        cfg->shutdown_grace_s = (unsigned)v;

        if (dup_env("DATABASE_URL", &cfg->database_url, err, errlen))
                goto fail;
        if (dup_env("GPUPLAN_STATIC_DIR", &cfg->static_dir, err, errlen))
                goto fail;
        if (!cfg->static_dir && !(cfg->static_dir = strdup(DEFAULT_STATIC_DIR))) {
                errbuf_set(err, errlen, "out of memory");
                goto fail;
        }
        if (dup_env("GPUPLAN_ADMIN_TOKEN", &cfg->admin_token, err, errlen))
                goto fail;
        if (cfg->admin_token) {
                size_t n = strlen(cfg->admin_token);
                if (n < ADMIN_TOKEN_MIN_LEN || n > 256) {
                        errbuf_set(err, errlen,
                                   "GPUPLAN_ADMIN_TOKEN: must be %u to 256 characters long",
                                   ADMIN_TOKEN_MIN_LEN);
                        goto fail;
                }
                for (size_t i = 0; i < n; i++) {
                        unsigned char c = (unsigned char)cfg->admin_token[i];
                        if (c <= ' ' || c >= 0x7f) {
                                errbuf_set(
                                        err, errlen,
                                        "GPUPLAN_ADMIN_TOKEN: only printable ASCII without spaces");
                                goto fail;
                        }
                }
        }
        if (parse_base_path(getenv("GPUPLAN_BASE_PATH"), &cfg->base_path, err, errlen))
                goto fail;
        return 0;
fail:
        config_free(cfg);
        return -1;
}

void config_free(struct config *cfg)
{
        free(cfg->database_url);
        free(cfg->static_dir);
        free(cfg->admin_token);
        free(cfg->base_path);
        cfg->database_url = cfg->static_dir = cfg->admin_token = cfg->base_path = NULL;
}

void config_usage(FILE *out)
{
        fputs("usage: gpuplan [serve]        run the HTTP service (default)\n"
              "       gpuplan migrate        apply pending database migrations and exit\n"
              "       gpuplan prices import skypilot [--commit SHA] [--as-of YYYY-MM-DD]\n"
              "               [--cloud ID] FILE...  import SkyPilot vms.csv price files\n"
              "       gpuplan --healthcheck  GET /healthz on the configured address; exit 0 if "
              "200\n"
              "       gpuplan --version | --help\n"
              "\n"
              "Configuration (environment variables):\n"
              "  DATABASE_URL                 libpq URI or key=value string; unset: the PG* "
              "variables\n"
              "  GPUPLAN_LISTEN               host:port or [v6]:port to listen on (127.0.0.1:8080; "
              "port 0 = any)\n"
              "  GPUPLAN_STATIC_DIR           directory of the web page (static)\n"
              "  GPUPLAN_ADMIN_TOKEN          bearer token for admin writes, 16-256 chars (unset: "
              "admin API off)\n"
              "  GPUPLAN_THREADS              N = epoll pool of N threads (default: one per CPU); "
              "0 or per-connection = a thread per connection\n"
              "  GPUPLAN_LOG_LEVEL            debug, info, warn or error (info)\n"
              "  GPUPLAN_BASE_PATH            serve under this prefix too, e.g. /gpuplan (none)\n"
              "  GPUPLAN_MAX_CONNECTIONS      concurrent connections (256)\n"
              "  GPUPLAN_IDLE_TIMEOUT_S       close idle connections after this many seconds (75)\n"
              "  GPUPLAN_BODY_LIMIT_BYTES     largest request body; 413 beyond (1048576)\n"
              "  GPUPLAN_DB_POOL_SIZE         PostgreSQL connections in the pool (4)\n"
              "  GPUPLAN_DB_ACQUIRE_TIMEOUT_MS  wait for a free connection before 503 (2000)\n"
              "  GPUPLAN_IMPORT_SHIPPED_PRICES  1: import the shipped SkyPilot prices after\n"
              "                               migrating (once per file version); 0: do not (1)\n"
              "  GPUPLAN_TODAY                YYYY-MM-DD: the day quote ages are reckoned from "
              "(the real date)\n"
              "  GPUPLAN_SHUTDOWN_GRACE_S     on SIGTERM, wait this long for requests in flight "
              "(10)\n"
              "  HF_ENDPOINT                  the Hugging Face Hub or a mirror of it "
              "(https://huggingface.co)\n"
              "  HF_TOKEN                     Hub token, sent for gated repositories (unset: "
              "none)\n"
              "  GPUPLAN_HUB                  off: never ask the Hub (air-gapped installs) (on)\n"
              "  GPUPLAN_HUB_TIMEOUT_S        total time for one Hub look-up (20)\n"
              "  GPUPLAN_HUB_CONNECT_TIMEOUT_S  time to connect to the Hub (5)\n"
              "  GPUPLAN_HUB_MAX_KIB          largest Hub answer read, KiB (2048)\n"
              "  GPUPLAN_HUB_TTL_S            read a branch again after this many seconds; a "
              "pinned sha never (604800)\n",
              out);
}
