/*
 * price_snapshot.h - the SkyPilot catalog files shipped in prices/skypilot/
 * (GPU rows only), compiled in by scripts/embed_prices.cmake, so that a
 * fresh install has current, sourced prices without reaching the network.
 * price_import_snapshot() (price_import.h) imports them after migrating.
 *
 * Static read-only data: nothing to free, safe from any thread.
 */
#ifndef GPUPLAN_DB_PRICE_SNAPSHOT_H
#define GPUPLAN_DB_PRICE_SNAPSHOT_H

#include <stddef.h>

struct price_snapshot_file {
        const char *cloud;  /* provider id */
        const char *file;   /* path in skypilot-org/skypilot-catalog */
        const char *commit; /* the commit the file was read at */
        const char *as_of;  /* "YYYY-MM-DD" the prices are dated */
        const char *csv;    /* the file's bytes, NUL-terminated */
        size_t csv_len;
};

extern const struct price_snapshot_file price_snapshot[];
extern const unsigned price_snapshot_count;

#endif
