/*
 * migrate.h - apply the numbered SQL files of migrations/ (embedded in the
 * binary, see migrations_embedded.h) to a database.
 *
 * db_migrate() takes a session-level advisory lock so that replicas
 * starting together apply each file once, creates schema_migrations if
 * needed, refuses to continue when an applied file's SHA-256 differs from
 * the embedded one (someone edited an applied migration), and applies each
 * missing file in its own transaction together with its schema_migrations
 * row.  A file whose first line is "-- gpuplan:no-transaction" runs outside
 * a transaction (for CREATE INDEX CONCURRENTLY).
 *
 * Memory: nothing to free.  Thread-safety: uses only the connection it is
 * given; the lock makes concurrent callers (other processes) safe.
 */
#ifndef GPUPLAN_DB_MIGRATE_H
#define GPUPLAN_DB_MIGRATE_H

#include <stddef.h>

#include <libpq-fe.h>

#include "db/migrations_embedded.h"

/* The advisory lock key: the bytes "gpuplan\0" read as a big-endian integer. */
#define MIGRATE_LOCK_KEY 0x677075706c616e00LL

/*
 * Apply files[0..n) in order.  *applied (if not NULL) receives the number of
 * files applied now.  Returns 0, or -1 with a one-line reason in err.
 */
int db_migrate(PGconn *c, const struct migration_file *files, unsigned n, unsigned *applied,
               char *err, size_t errlen);

/*
 * Compare the database with files[0..n) without changing anything.
 * Returns the number of files not applied or applied with another
 * checksum (0 = up to date), or -1 with a reason in err if the
 * query failed.  schema_migrations missing counts every file as pending.
 */
int db_migrations_pending(PGconn *c, const struct migration_file *files, unsigned n, char *err,
                          size_t errlen);

#endif
