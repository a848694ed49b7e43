/*
 * skypilot_csv.h - read one vms.csv of SkyPilot's open cloud catalog
 * (github.com/skypilot-org/skypilot-catalog, catalogs/<schema>/<cloud>/vms.csv).
 *
 * The file is RFC 4180 CSV (GpuInfo is a quoted field holding commas) with
 * a header naming the columns; the clouds order them differently, so
 * columns are found by name.  Needed: InstanceType, AcceleratorName,
 * AcceleratorCount, vCPUs, MemoryGiB, Price, Region.  Optional: SpotPrice,
 * AvailabilityZone.  Others (GpuInfo, Arch, StorageGiB, ...) are ignored.
 * Parsing uses libcsv (Debian's libcsv-dev) in strict mode.
 *
 * A row is refused, and the whole file with it, when it has a different
 * number of fields than the header, a number that does not parse or is
 * negative, or an accelerator count above 1024 or above 1 and not whole
 * (a count below 1 is a share of one GPU, as AWS's g6f instances rent, and
 * is passed on in gpu_share).  The reason starts with "line N: " (N counts
 * from 1, the header).
 *
 * Memory: the strings of a row point into a buffer the parser owns; they
 * are valid only during the callback.  Thread-safety: no shared state.
 */
#ifndef GPUPLAN_DB_SKYPILOT_CSV_H
#define GPUPLAN_DB_SKYPILOT_CSV_H

#include <stddef.h>

struct skypilot_row {
        unsigned line;             /* where the row starts, counting the header as line 1 */
        const char *instance_type; /* "" on an accelerator-only row (GCP prices a GPU to attach) */
        const char *accelerator;   /* "" for a CPU-only row */
        unsigned accelerators;     /* 0 for a CPU-only row or a share of one GPU */
        double gpu_share;          /* AcceleratorCount when it is above 0 and below 1, else 0 */
        double vcpus;              /* < 0 = not given */
        double memory_gib;         /* < 0 = not given */
        double usd_per_hour;       /* on-demand; < 0 = not given */
        double spot_usd_per_hour;  /* < 0 = not given */
        const char *region;        /* "" when the row names none (some Seeweb rows) */
        const char *zone;          /* "" when the cloud has none */
};

/* Called once per data row; a nonzero return stops the parse and is returned. */
typedef int (*skypilot_row_fn)(void *ctx, const struct skypilot_row *row);

/*
 * Parse text[0..len) and call fn for each data row in order.  Returns 0,
 * -1 with a reason in err when the file is malformed ("line N: ..."), or
 * the callback's nonzero value.
 */
int skypilot_csv_parse(const char *text, size_t len, skypilot_row_fn fn, void *ctx, char *err,
                       size_t errlen);

#endif
