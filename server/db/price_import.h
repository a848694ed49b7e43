/*
 * price_import.h - import a SkyPilot vms.csv into the price history.
 *
 * Each GPU row (AcceleratorName given) becomes one offering per instance
 * type and region, id "<cloud>-<instance type>-<region>" folded to the id
 * alphabet, with up to two prices: on_demand (Price) and spot (SpotPrice).
 * Clouds that list zones (AWS, RunPod) give one row per zone: the region
 * keeps the lowest price of its zones.  The accelerator name is mapped to a
 * catalog GPU through the skypilot_accelerators table; a name without a
 * mapping is reported (with its row count) and its rows are skipped.
 * Prices go through price_import_upsert() (migrations/0021): a price equal
 * to the newest one of its offering and kind is "unchanged" and writes
 * nothing, so importing the same file twice is a no-op and a newer file
 * appends only what changed.  CPU-only rows, rows without a region and
 * rows renting a share of one GPU are counted and skipped.  Accelerator-only rows (GCP lists a GPU's price on a
 * row of its own) are counted; for cloud "gcp" each GPU row is joined to its
 * host VM's row in the same zone and priced at the sum, as SkyPilot does
 * (gcp_hosts.h), and counted as attached; the others are skipped.
 *
 * The whole file is one transaction: a malformed row ("line N: ...")
 * refuses the file and changes nothing.  Each import that reaches the end
 * is recorded in price_imports.
 *
 * Memory: the report is a plain struct filled in place.  Thread-safety:
 * uses only the connection given (which must not be in a transaction).
 */
#ifndef GPUPLAN_DB_PRICE_IMPORT_H
#define GPUPLAN_DB_PRICE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

#include "db/catalog_queries.h"

#define PRICE_IMPORT_UNKNOWN_MAX 32

struct price_import_source {
        const char *cloud;  /* provider id: "aws", "lambda", ... (must exist in providers) */
        const char *file;   /* path inside the catalog repository, e.g. catalogs/v8/aws/vms.csv */
        const char *commit; /* the repository commit the file was read at; NULL = unknown */
        const char *as_of;  /* "YYYY-MM-DD": the date the prices are quoted for */
        const char *actor;  /* recorded_by / imported_by */
        bool skip_if_imported; /* a file with this path and SHA-256 already recorded: do nothing */
};

struct price_import_unknown {
        char name[64];
        unsigned offerings; /* instance type x region pairs skipped for this name */
};

struct price_import_report {
        unsigned rows;          /* data rows read */
        unsigned cpu_rows;      /* rows without an accelerator, skipped */
        unsigned no_region;     /* GPU rows without a region, skipped: no offering to price */
        unsigned partial_gpu;   /* rows renting a share of one GPU (AcceleratorCount below 1,
                                 * AWS g6f/gr6f), skipped: a plan counts whole GPUs */
        unsigned accelerator_only; /* rows pricing a GPU without an instance type (GCP's GPUs
                                    * to attach to a VM priced on its own row) */
        unsigned attached;      /* of those, rows joined to a host VM and priced with it */
        unsigned offerings;     /* instance type x region pairs with a GPU */
        unsigned added;         /* prices of a kind the offering had none of */
        unsigned changed;       /* prices appended because they differ from the newest */
        unsigned unchanged;     /* prices equal to the newest: nothing written */
        unsigned unknown;       /* offerings skipped: their accelerator has no mapping */
        struct price_import_unknown unknown_names[PRICE_IMPORT_UNKNOWN_MAX];
        unsigned n_unknown;     /* names; may exceed PRICE_IMPORT_UNKNOWN_MAX (the rest are counted only) */
        bool skipped;           /* skip_if_imported and the file was already imported */
        char sha256[65];
};

/*
 * Import csv[0..len) as src describes.  Returns 0 with rep filled, or -1
 * with e filled: 422 for a malformed file ("line N: ..." in e->detail) or an
 * unknown cloud, 503/500 for database failures.
 */
int price_import_skypilot(PGconn *conn, const struct price_import_source *src, const char *csv,
                          size_t len, struct price_import_report *rep, struct db_error *e);

/*
 * Import every file of the shipped snapshot (price_snapshot.h) that has not
 * been imported yet (same path and SHA-256), as actor "migration".  Run
 * after db_migrate().  *added receives the prices added or changed.
 * Returns 0, or -1 with a one-line reason in err.
 */
int price_import_snapshot(PGconn *conn, unsigned *added, char *err, size_t errlen);

#endif
