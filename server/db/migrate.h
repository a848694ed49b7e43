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
 * A file reworded after release (its comments or cited sources changed,
 * never what it does to the data) names each earlier text it replaces on a
 * line "-- gpuplan:reworded-from <sha256 of the earlier file> <why>"; a
 * database that applied the earlier text is then up to date, and any other
 * checksum is still refused.  migrations/README.md says when that is
 * allowed.
 *
 * Memory: nothing to free.  Thread-safety: uses only the connection it is
 * given; the lock makes concurrent callers (other processes) safe.
 */
#ifndef GPUPLAN_DB_MIGRATE_H
#define GPUPLAN_DB_MIGRATE_H

#include <stdbool.h>
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
 * True when checksum (64 lowercase hex digits, as schema_migrations holds
 * it) is f's, or an earlier wording f records with a reworded-from line.
 */
bool db_migrate_checksum_accepted(const struct migration_file *f, const char *checksum);

/*
 * Compare the database with files[0..n) without changing anything.
 * Returns the number of files not applied or applied with a checksum
 * db_migrate_checksum_accepted() refuses (0 = up to date), or -1 with a reason in err if the
 * query failed.  schema_migrations missing counts every file as pending.
 */
int db_migrate_pending(PGconn *c, const struct migration_file *files, unsigned n, char *err,
                       size_t errlen);

#endif
