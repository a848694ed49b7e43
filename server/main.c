/*
 * main.c - the gpuplan binary: serve (default), migrate, --healthcheck.
 *
 * Start-up order: configuration (bad configuration exits 2 with a
 * one-line reason), the HTTP server, then a bootstrap thread that applies
 * migrations and loads the catalog, retrying every two seconds while
 * PostgreSQL is unreachable, so the server comes up without its database,
 * answers /healthz and reports 503 on /readyz until it can migrate and
 * load.  SIGTERM or SIGINT: stop accepting, let requests in flight finish
 * (GPUPLAN_SHUTDOWN_GRACE_S), close the pool, exit 0.
 */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "api/fit_heads.h"
#include "api/handler.h"
#include "api/uncertainty.h"
#include "app.h"
#include "catalog/catalog.h"
#include "config.h"
#include "db/catalog_sync.h"
#include "db/migrate.h"
#include "db/price_import.h"
#include "db/pool.h"
#include "api/metrics.h"
#include "http/server.h"
#include "log.h"
#include "plan/answer_cache.h"
#include "models/fetched.h"
#include "models/hub.h"

#define BOOTSTRAP_RETRY_MS 2000

/*
 * Compare and rent-vs-buy answers kept (server/api/answer_cached.c): 64 answers,
 * at most 16 MiB of them.  A compare answer over the seeded catalog is
 * about 65 KB (BENCHMARKS.md), so 64 fit in about 4 MiB; the byte cap
 * bounds the worst case of large answers.  A request waiting for an
 * identical one in progress gives up after 10 s (a search takes
 * milliseconds) and computes its own.
 */
#define ANSWER_CACHE_SLOTS   64
#define ANSWER_CACHE_BYTES   (16u << 20)
#define ANSWER_CACHE_WAIT_MS 10000

struct bootstrap {
        struct app *app;
        pthread_t thread;
        bool ready;
};

static void sleep_ms_unless_stopping(struct app *app, unsigned ms)
{
        for (unsigned waited = 0; waited < ms && !atomic_load(&app->stopping); waited += 50) {
                struct timespec ts = {0, 50 * 1000 * 1000};
                nanosleep(&ts, NULL);
        }
}

/* After the migrations: the SkyPilot prices shipped in the binary, once per file version. */
static int import_shipped_prices(const struct config *cfg, PGconn *c, char *err, size_t errlen)
{
        unsigned added = 0;

        if (!cfg->import_shipped_prices)
                return 0;
        if (price_import_snapshot(c, &added, err, errlen))
                return -1;
        if (added)
                log_info("imported %u shipped prices (SkyPilot catalog snapshot)", added);
        return 0;
}

/* One attempt: migrate over a dedicated connection, load the catalog, start LISTEN. */
static int bootstrap_once(struct app *app, char *err, size_t errlen)
{
        PGconn *c = db_pool_connect(app->config->database_url, err, errlen);
        unsigned applied = 0;
        int rc;

        if (!c)
                return -1;
        rc = db_migrate(c, migrations_embedded, migrations_embedded_count, &applied, err, errlen);
        if (!rc)
                rc = import_shipped_prices(app->config, c, err, errlen);
        PQfinish(c);
        if (rc)
                return -1;
        log_info("database schema up to date (%u of %u migrations applied now)", applied,
                 migrations_embedded_count);
        if (catalog_sync_reload(app->catalog_sync, err, errlen))
                return -1;
        if (catalog_sync_start(app->catalog_sync, app->config->database_url)) {
                snprintf(err, errlen, "cannot start the catalog listener");
                return -1;
        }
        return 0;
}

static void *bootstrap_main(void *arg)
{
        struct bootstrap *b = arg;
        char err[512];
        char last[512] = "";

        while (!atomic_load(&b->app->stopping)) {
                if (bootstrap_once(b->app, err, sizeof(err)) == 0) {
                        b->ready = true;
                        log_info("ready: migrations applied, catalog loaded");
                        return NULL;
                }
                /* Log each distinct failure once, not every retry. */
                if (strcmp(err, last) != 0) {
                        log_warn("not ready, retrying every %d ms: %s", BOOTSTRAP_RETRY_MS, err);
                        snprintf(last, sizeof(last), "%s", err);
                }
                sleep_ms_unless_stopping(b->app, BOOTSTRAP_RETRY_MS);
        }
        return NULL;
}

/* gpuplan --healthcheck: GET <base>/healthz on the configured address; 0 when 200. */
static int healthcheck(const struct config *cfg)
{
        const char *host = cfg->listen_host;
        struct addrinfo hints;
        struct addrinfo *res = NULL;
        struct timeval tv = {2, 0};
        char port[16];
        char req[512];
        char resp[64];
        ssize_t n;
        size_t got = 0;
        int fd;
        int rc = 1;

        if (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "") == 0)
                host = "127.0.0.1";
        else if (strcmp(host, "::") == 0)
                host = "::1";
        if (cfg->listen_port == 0) {
                fprintf(stderr, "gpuplan: --healthcheck needs a fixed port in GPUPLAN_LISTEN\n");
                return 1;
        }
        memset(&hints, 0, sizeof(hints));
        hints.ai_socktype = SOCK_STREAM;
        snprintf(port, sizeof(port), "%u", cfg->listen_port);
        if (getaddrinfo(host, port, &hints, &res) != 0 || !res) {
                fprintf(stderr, "gpuplan: cannot resolve %s\n", host);
                return 1;
        }
        fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                goto out;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
                fprintf(stderr, "gpuplan: cannot connect to %s:%s: %s\n", host, port,
                        strerror(errno));
                goto out;
        }
        snprintf(req, sizeof(req),
                 "GET %s/healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                 cfg->base_path);
        if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
                goto out;
        while (got < sizeof(resp) - 1 && (n = read(fd, resp + got, sizeof(resp) - 1 - got)) > 0)
                got += (size_t)n;
        resp[got] = '\0';
        /* "HTTP/1.1 200 OK" */
        rc = strncmp(resp, "HTTP/1.", 7) == 0 && strncmp(resp + 8, " 200", 4) == 0 ? 0 : 1;
        if (rc)
                fprintf(stderr, "gpuplan: unhealthy: %.*s\n", (int)strcspn(resp, "\r\n"), resp);
out:
        if (fd >= 0)
                close(fd);
        freeaddrinfo(res);
        return rc;
}

static int migrate_command(const struct config *cfg)
{
        char err[512];
        unsigned applied = 0;
        PGconn *c = db_pool_connect(cfg->database_url, err, sizeof(err));

        if (!c) {
                log_error("%s", err);
                return 1;
        }
        if (db_migrate(c, migrations_embedded, migrations_embedded_count, &applied, err,
                       sizeof(err)) ||
            import_shipped_prices(cfg, c, err, sizeof(err))) {
                log_error("%s", err);
                PQfinish(c);
                return 1;
        }
        PQfinish(c);
        log_info("database schema up to date (%u of %u migrations applied now)", applied,
                 migrations_embedded_count);
        return 0;
}

static int read_file(const char *path, char **text, size_t *len)
{
        FILE *f = fopen(path, "rb");
        char *buf = NULL;
        size_t n = 0, cap = 0;

        if (!f)
                return -1;
        for (;;) {
                size_t got;

                if (cap - n < 65536) {
                        char *more = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap + 262144);
                        if (!more) {
                                free(buf);
                                fclose(f);
                                return -1;
                        }
                        buf = more;
                        cap += 262144;
                }
                got = fread(buf + n, 1, cap - n - 1, f);
                n += got;
                if (got == 0)
                        break;
        }
        if (ferror(f)) {
                free(buf);
                fclose(f);
                return -1;
        }
        fclose(f);
        buf[n] = '\0';
        *text = buf;
        *len = n;
        return 0;
}

/* "catalogs/v8/lambda/vms.csv" (any prefix): the cloud is the folder above vms.csv. */
static int cloud_from_path(const char *path, char *cloud, size_t cap, const char **file)
{
        const char *end = strrchr(path, '/');
        const char *start, *cat;

        if (!end || strcmp(end, "/vms.csv") != 0 || end == path)
                return -1;
        start = end;
        while (start > path && start[-1] != '/')
                start--;
        if ((size_t)(end - start) >= cap || end == start)
                return -1;
        memcpy(cloud, start, (size_t)(end - start));
        cloud[end - start] = '\0';
        cat = strstr(path, "catalogs/");
        *file = cat ? cat : path;
        return 0;
}

/*
 * gpuplan prices import skypilot [--commit SHA] [--as-of YYYY-MM-DD] [--cloud ID] FILE...
 * Each file is imported in its own transaction; the summary goes to stdout.
 */
static int prices_import_command(const struct config *cfg, int argc, char **argv)
{
        const char *commit = NULL, *as_of = NULL, *cloud_arg = NULL;
        char today[16], err[512];
        time_t now = time(NULL);
        struct tm tm;
        PGconn *c;
        int i = 4, failed = 0;

        gmtime_r(&now, &tm);
        strftime(today, sizeof(today), "%Y-%m-%d", &tm);
        for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
                if (strcmp(argv[i], "--commit") == 0)
                        commit = argv[i + 1];
                else if (strcmp(argv[i], "--as-of") == 0)
                        as_of = argv[i + 1];
                else if (strcmp(argv[i], "--cloud") == 0)
                        cloud_arg = argv[i + 1];
                else
                        break;
        }
        if (i >= argc || strncmp(argv[i], "--", 2) == 0) {
                fprintf(stderr, "usage: gpuplan prices import skypilot [--commit SHA] [--as-of "
                                "YYYY-MM-DD] [--cloud ID] FILE...\n");
                return 2;
        }
        c = db_pool_connect(cfg->database_url, err, sizeof(err));
        if (!c) {
                log_error("%s", err);
                return 1;
        }
        for (; i < argc; i++) {
                struct price_import_source src = {.commit = commit, .as_of = as_of ? as_of : today,
                                                  .actor = "cli"};
                struct price_import_report rep;
                struct db_error e;
                char cloud[64];
                char *text;
                size_t len;

                if (cloud_from_path(argv[i], cloud, sizeof(cloud), &src.file) && !cloud_arg) {
                        fprintf(stderr, "%s: name the cloud with --cloud (the path is not "
                                        ".../<cloud>/vms.csv)\n", argv[i]);
                        failed = 1;
                        continue;
                }
                if (!src.file)
                        src.file = argv[i];
                src.cloud = cloud_arg ? cloud_arg : cloud;
                if (read_file(argv[i], &text, &len)) {
                        fprintf(stderr, "%s: cannot read: %s\n", argv[i], strerror(errno));
                        failed = 1;
                        continue;
                }
                if (price_import_skypilot(c, &src, text, len, &rep, &e)) {
                        fprintf(stderr, "%s: refused: %s\n", argv[i], e.detail);
                        failed = 1;
                } else {
                        printf("%s: cloud %s, %u rows (%u CPU-only, %u without a region, %u "
                               "renting a share of one GPU, %u accelerator-only, %u of them "
                               "attached to a VM), %u offerings: "
                               "%u added, %u changed, %u unchanged, %u unknown",
                               argv[i], src.cloud, rep.rows, rep.cpu_rows, rep.no_region,
                               rep.partial_gpu, rep.accelerator_only, rep.attached, rep.offerings,
                               rep.added, rep.changed, rep.unchanged, rep.unknown);
                        for (unsigned k = 0; k < rep.n_unknown && k < PRICE_IMPORT_UNKNOWN_MAX; k++)
                                printf("%s%s (%u)", k ? ", " : " (accelerators without a catalog "
                                                              "GPU: ",
                                       rep.unknown_names[k].name, rep.unknown_names[k].offerings);
                        printf("%s\n", rep.n_unknown ? ")" : "");
                }
                free(text);
        }
        PQfinish(c);
        return failed;
}

/* The catalog's prepare function: the api tables kept with a snapshot. */
static void snapshot_prepare(const struct catalog_snapshot *s)
{
        api_uncertainty_prepare(s);
        api_fit_heads_prepare(s);
}

static int serve(struct config *cfg)
{
        struct app app;
        struct bootstrap boot;
        struct hub_settings hub;
        struct http_server *srv;
        sigset_t sigs;
        char err[512];
        unsigned n_routes = 0;
        int sig = 0;
        int rc = 1;

        memset(&app, 0, sizeof(app));
        memset(&boot, 0, sizeof(boot));
        app.config = cfg;
        atomic_init(&app.stopping, false);
        /* Signals go to sigwait() below only: block them before any thread starts. */
        sigemptyset(&sigs);
        sigaddset(&sigs, SIGINT);
        sigaddset(&sigs, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &sigs, NULL);
        /* jansson: seed the hash function before threads share it (doc/threadsafety). */
        json_object_seed(0);

        while (api_routes[n_routes].method)
                n_routes++;
        app.metrics = metrics_new(n_routes);
        app.catalog = catalog_new();
        /* What the api layer derives from each snapshot (the error bars'
         * table runs every validation case through the engine), built
         * before the snapshot serves a request. */
        catalog_set_prepare(app.catalog, snapshot_prepare);
        app.answers =
                answer_cache_new(ANSWER_CACHE_SLOTS, ANSWER_CACHE_BYTES, ANSWER_CACHE_WAIT_MS);
        if (!app.metrics || !app.catalog || !app.answers) {
                log_error("out of memory");
                goto out;
        }
        if (hub_settings_from_env(&hub, err, sizeof(err))) {
                log_error("%s", err);
                rc = 2;
                goto out;
        }
        app.fetched = fetched_new(hub.ttl_s);
        if (!app.fetched || hub_init()) {
                log_error("cannot start the Hub client");
                goto out;
        }
        app.hub = &hub;
        app.db = db_pool_new(cfg->database_url, cfg->db_pool_size, err, sizeof(err));
        if (!app.db) {
                log_error("%s", err);
                rc = 2;
                goto out;
        }
        app.catalog_sync = catalog_sync_new(app.catalog, app.db);
        if (!app.catalog_sync) {
                log_error("out of memory");
                goto out;
        }
        log_info("hub look-ups %s (HF_ENDPOINT %s, token %s)",
                 hub.enabled ? "on" : "off (GPUPLAN_HUB=off)", hub.endpoint,
                 hub.token[0] ? "set" : "not set");
        srv = http_server_start(&app, err, sizeof(err));
        if (!srv) {
                log_error("%s", err);
                goto out;
        }
        {
                char fields[256];
                size_t len = 0;
                memcpy(fields, "\"host\":", 7);
                len = 7;
                log_json_string(fields, sizeof(fields), &len, cfg->listen_host);
                snprintf(fields + len, sizeof(fields) - len, ",\"port\":%u,\"threads\":\"%s\"",
                         http_server_port(srv), cfg->threads ? "epoll-pool" : "per-connection");
                log_fields(LOG_LEVEL_INFO, "listening", fields);
        }
        boot.app = &app;
        if (pthread_create(&boot.thread, NULL, bootstrap_main, &boot) != 0) {
                log_error("cannot start the bootstrap thread");
                http_server_free(srv);
                goto out;
        }

        while (sigwait(&sigs, &sig) != 0)
                ;
        log_info("received %s: draining requests in flight (up to %u s)",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg->shutdown_grace_s);
        atomic_store(&app.stopping, true);
        if (!http_server_drain(srv, cfg->shutdown_grace_s))
                log_warn("requests still in flight after %u s; closing them",
                         cfg->shutdown_grace_s);
        http_server_stop(srv);
        pthread_join(boot.thread, NULL);
        catalog_sync_stop(app.catalog_sync);
        http_server_free(srv);
        rc = 0;
out:
        catalog_sync_free(app.catalog_sync);
        if (app.catalog)
                catalog_free(app.catalog);
        db_pool_free(app.db);
        metrics_free(app.metrics);
        answer_cache_free(app.answers);
        fetched_free(app.fetched);
        if (app.hub)
                hub_cleanup();
        if (rc == 0)
                log_info("stopped");
        return rc;
}

/*
 * glibc's malloc arenas (MALLOC_ARENA_MAX, when set, decides instead).  A
 * thread takes an arena at its first allocation: a new one while there
 * are fewer than M_ARENA_MAX, else one that exists, and keeps it.
 *
 * With the epoll pool, two event-loop threads that share an arena take
 * turns at its lock on every allocation of every request.  With the cap
 * at one arena per CPU (19 threads on 2 CPUs) 3 of 10 starts put both
 * event loops on one arena, and the estimate then served 42% fewer
 * requests (55 000 against 95 000 in 2 s at 64 connections, with 190 000
 * futex calls against under 1 000).  So the cap is above the threads the
 * server starts - the event loops, the database and computation pools,
 * and 32 for the Hub pool (8), main and the catalog's threads - and every
 * thread that allocates has an arena of its own.  Peak RSS after the
 * estimate, compare and gpus loads of tests/bench went from 96-100 to
 * 105-106 MiB.
 *
 * With one thread per connection glibc would grow up to 8 arenas per
 * CPU, each keeping the freed buffers of the compare and estimate
 * replies; measured with tests/bench/run.sh on 2 CPUs and 64 connections:
 * peak RSS 57.4 MiB by default, 46.5 MiB with 2 arenas, and the same
 * requests per second.  That mode keeps one arena per CPU.
 */
static void malloc_tune(const struct config *cfg)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        if (cpus < 1)
                cpus = 1;
        if (getenv("MALLOC_ARENA_MAX"))
                return;
        if (cfg->threads == 0)
                mallopt(M_ARENA_MAX, cpus < 2 ? 2 : (int)cpus);
        else
                mallopt(M_ARENA_MAX, (int)(cfg->threads + cfg->db_pool_size) + (int)cpus + 32);
}

int main(int argc, char **argv)
{
        struct config cfg;
        char err[512];
        const char *cmd = argc > 1 ? argv[1] : "serve";
        int rc;

        bool prices = argc > 3 && strcmp(cmd, "prices") == 0 && strcmp(argv[2], "import") == 0 &&
                      strcmp(argv[3], "skypilot") == 0;

        if (!prices && (argc > 2 || (strcmp(cmd, "serve") != 0 && strcmp(cmd, "migrate") != 0 &&
                         strcmp(cmd, "--healthcheck") != 0 && strcmp(cmd, "--help") != 0 &&
                         strcmp(cmd, "-h") != 0 && strcmp(cmd, "--version") != 0))) {
                config_usage(stderr);
                return 2;
        }
        if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
                config_usage(stdout);
                return 0;
        }
        if (strcmp(cmd, "--version") == 0) {
                printf("gpuplan %s\n", GPUPLAN_VERSION);
                return 0;
        }
        /* libpq and our own threads write to sockets too (MHD covers only its own). */
        signal(SIGPIPE, SIG_IGN);
        if (config_from_env(&cfg, err, sizeof(err))) {
                fprintf(stderr, "gpuplan: %s\n", err);
                return 2;
        }
        malloc_tune(&cfg);
        log_set_level(cfg.log_level);
        if (strcmp(cmd, "--healthcheck") == 0)
                rc = healthcheck(&cfg);
        else if (strcmp(cmd, "migrate") == 0)
                rc = migrate_command(&cfg);
        else if (prices)
                rc = prices_import_command(&cfg, argc, argv);
        else
                rc = serve(&cfg);
        config_free(&cfg);
        return rc;
}
