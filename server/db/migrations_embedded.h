/*
 * migrations_embedded.h - the SQL files of migrations/, compiled in.
 *
 * The build turns every migrations/NNNN_name.sql into one entry of
 * migrations_embedded[], sorted by version, with the file's SHA-256 as
 * lowercase hex.  The array is static, read-only data: nothing to free,
 * safe to read from any thread.
 */
#ifndef GPUPLAN_DB_MIGRATIONS_EMBEDDED_H
#define GPUPLAN_DB_MIGRATIONS_EMBEDDED_H

#include <stddef.h>

struct migration_file {
        int version;            /* NNNN of the file name */
        const char *name;       /* file name, e.g. "0001_catalog.sql" */
        const char *sql;        /* file contents, NUL-terminated */
        size_t sql_len;         /* bytes, without the NUL */
        const char *sha256;     /* 64 lowercase hex digits */
};

extern const struct migration_file migrations_embedded[];
extern const unsigned migrations_embedded_count;

#endif
