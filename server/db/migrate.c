/*
 * migrate.c - numbered SQL migrations under an advisory lock; see migrate.h.
 *
 * The scheme follows golang-migrate's postgres driver (a session advisory
 * lock around the whole run, one schema_migrations table) with a SHA-256
 * per file so that editing an applied migration is detected, not ignored.
 */
#include "db/migrate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "log.h"

#define NO_TRANSACTION_MARK "-- gpuplan:no-transaction"
#define REWORDED_MARK       "-- gpuplan:reworded-from "
#define SHA256_HEX_LEN      64

/* The first line of a libpq error message, for one-line reasons. */
static const char *first_line(const char *msg, int *len)
{
        *len = msg ? (int)strcspn(msg, "\n") : 0;
        return msg ? msg : "";
}

static int exec_ok(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
        PGresult *res = PQexec(c, sql);
        ExecStatusType st = PQresultStatus(res);
        int n;
        const char *m;

        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
                PQclear(res);
                return 0;
        }
        m = first_line(PQresultErrorMessage(res), &n);
        if (!*m)
                m = first_line(PQerrorMessage(c), &n);
        errbuf_set(err, errlen, "%s: %.*s", what, n, m);
        PQclear(res);
        return -1;
}

static int advisory(PGconn *c, const char *fn, char *err, size_t errlen)
{
        char key[32];
        char sql[64];
        const char *params[1] = {key};
        PGresult *res;
        int ok;

        snprintf(key, sizeof(key), "%lld", (long long)MIGRATE_LOCK_KEY);
        snprintf(sql, sizeof(sql), "SELECT %s($1::bigint)", fn);
        res = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
        ok = PQresultStatus(res) == PGRES_TUPLES_OK;
        if (!ok) {
                int n;
                const char *m = first_line(PQresultErrorMessage(res), &n);
                errbuf_set(err, errlen, "%s: %.*s", fn, n, m);
        }
        PQclear(res);
        return ok ? 0 : -1;
}

static const struct migration_file *find_file(const struct migration_file *files, unsigned n,
                                              int version)
{
        for (unsigned i = 0; i < n; i++)
                if (files[i].version == version)
                        return &files[i];
        return NULL;
}

bool db_migrate_checksum_accepted(const struct migration_file *f, const char *checksum)
{
        size_t mark = strlen(REWORDED_MARK);

        if (strcmp(checksum, f->sha256) == 0)
                return true;
        if (strlen(checksum) != SHA256_HEX_LEN)
                return false;
        /* A directive is a whole line that begins with the mark. */
        for (const char *line = f->sql; line && *line;) {
                if (strncmp(line, REWORDED_MARK, mark) == 0 &&
                    strncmp(line + mark, checksum, SHA256_HEX_LEN) == 0 &&
                    (line[mark + SHA256_HEX_LEN] == ' ' || line[mark + SHA256_HEX_LEN] == '\n' ||
                     line[mark + SHA256_HEX_LEN] == '\0'))
                        return true;
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return false;
}

static int apply_one(PGconn *c, const struct migration_file *f, char *err, size_t errlen)
{
        bool no_tx = strncmp(f->sql, NO_TRANSACTION_MARK, strlen(NO_TRANSACTION_MARK)) == 0;
        char version[16];
        const char *params[3] = {version, f->name, f->sha256};
        char what[160];
        PGresult *res;

        snprintf(version, sizeof(version), "%d", f->version);
        snprintf(what, sizeof(what), "migration %s failed", f->name);
        /* Schema changes may take longer than the request statement_timeout. */
        if (!no_tx && exec_ok(c, "BEGIN; SET LOCAL statement_timeout = 0", what, err, errlen))
                return -1;
        if (exec_ok(c, f->sql, what, err, errlen))
                goto rollback;
        res = PQexecParams(c,
                           "INSERT INTO schema_migrations (version, name, checksum) "
                           "VALUES ($1::integer, $2, $3)",
                           3, NULL, params, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                int n;
                const char *m = first_line(PQresultErrorMessage(res), &n);
                errbuf_set(err, errlen, "%s: recording it: %.*s", what, n, m);
                PQclear(res);
                goto rollback;
        }
        PQclear(res);
        if (!no_tx && exec_ok(c, "COMMIT", what, err, errlen))
                goto rollback;
        return 0;
rollback:
        if (!no_tx) {
                res = PQexec(c, "ROLLBACK");
                PQclear(res);
        }
        return -1;
}

int db_migrate(PGconn *c, const struct migration_file *files, unsigned n, unsigned *applied,
               char *err, size_t errlen)
{
        PGresult *res = NULL;
        bool *done = NULL;
        unsigned count = 0;
        int rc = -1;
        char unlock_err[128];

        if (applied)
                *applied = 0;
        if (advisory(c, "pg_advisory_lock", err, errlen))
                return -1;
        if (exec_ok(c,
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " version integer PRIMARY KEY,"
                    " name text NOT NULL,"
                    " checksum text NOT NULL,"
                    " applied_at timestamptz NOT NULL DEFAULT now())",
                    "cannot create schema_migrations", err, errlen))
                goto out;
        res = PQexecParams(c,
                           "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
                           0, NULL, NULL, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
                int len;
                const char *m = first_line(PQresultErrorMessage(res), &len);
                errbuf_set(err, errlen, "cannot read schema_migrations: %.*s", len, m);
                goto out;
        }
        done = calloc(n ? n : 1, sizeof(*done));
        if (!done) {
                errbuf_set(err, errlen, "out of memory");
                goto out;
        }
        for (int r = 0; r < PQntuples(res); r++) {
                int version = atoi(PQgetvalue(res, r, 0));
                const struct migration_file *f = find_file(files, n, version);
                if (!f) {
                        /* A newer binary migrated this database: keep serving. */
                        log_warn("database has migration %s which this build does not know",
                                 PQgetvalue(res, r, 1));
                        continue;
                }
                if (!db_migrate_checksum_accepted(f, PQgetvalue(res, r, 2))) {
                        errbuf_set(err, errlen,
                             "migration %s was changed after it was applied (checksum %.12s... in "
                             "the database, %.12s... in this build); add a new migration instead",
                             f->name, PQgetvalue(res, r, 2), f->sha256);
                        goto out;
                }
                if (strcmp(PQgetvalue(res, r, 2), f->sha256) != 0)
                        log_info("migration %s was applied with its earlier wording (checksum "
                                 "%.12s...), which the file records; nothing to do",
                                 f->name, PQgetvalue(res, r, 2));
                done[f - files] = true;
        }
        for (unsigned i = 0; i < n; i++) {
                if (done[i])
                        continue;
                if (apply_one(c, &files[i], err, errlen))
                        goto out;
                log_info("applied migration %s", files[i].name);
                count++;
        }
        rc = 0;
out:
        PQclear(res);
        free(done);
        if (PQtransactionStatus(c) != PQTRANS_IDLE)
                PQclear(PQexec(c, "ROLLBACK"));
        if (advisory(c, "pg_advisory_unlock", unlock_err, sizeof(unlock_err)) && rc == 0) {
                log_warn("%s", unlock_err);
        }
        if (applied)
                *applied = count;
        return rc;
}

int db_migrate_pending(PGconn *c, const struct migration_file *files, unsigned n, char *err,
                       size_t errlen)
{
        PGresult *res;
        int pending = 0;

        res = PQexecParams(c, "SELECT to_regclass('schema_migrations') IS NOT NULL", 0, NULL, NULL,
                           NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
                int len;
                const char *m = first_line(PQresultErrorMessage(res), &len);
                errbuf_set(err, errlen, "cannot look for schema_migrations: %.*s", len, m);
                PQclear(res);
                return -1;
        }
        if (strcmp(PQgetvalue(res, 0, 0), "t") != 0) {
                PQclear(res);
                return (int)n;
        }
        PQclear(res);
        res = PQexecParams(c, "SELECT version, checksum FROM schema_migrations", 0, NULL, NULL,
                           NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
                int len;
                const char *m = first_line(PQresultErrorMessage(res), &len);
                errbuf_set(err, errlen, "cannot read schema_migrations: %.*s", len, m);
                PQclear(res);
                return -1;
        }
        for (unsigned i = 0; i < n; i++) {
                bool ok = false;
                for (int r = 0; r < PQntuples(res) && !ok; r++)
                        ok = atoi(PQgetvalue(res, r, 0)) == files[i].version &&
                             db_migrate_checksum_accepted(&files[i], PQgetvalue(res, r, 1));
                if (!ok)
                        pending++;
        }
        PQclear(res);
        return pending;
}
