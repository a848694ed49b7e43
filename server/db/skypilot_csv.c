/*
 * skypilot_csv.c - see skypilot_csv.h.  libcsv delivers fields and ends of
 * records through callbacks; the text is fed one line at a time so that a
 * record's line number is known when its first field arrives.
 */
#include "db/skypilot_csv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#define FIELDS_MAX       32   /* columns in a header */
#define FIELD_BYTES_MAX  4096 /* one field, NUL included */
#define ACCELERATORS_MAX 1024 /* per instance, as offerings.gpus_per_instance allows */

enum column {
        COL_INSTANCE = 0,
        COL_ACCELERATOR,
        COL_COUNT,
        COL_VCPUS,
        COL_MEMORY,
        COL_PRICE,
        COL_REGION,
        COL_SPOT,
        COL_ZONE,
        COL_COUNT_ALL
};

static const char *const column_names[COL_COUNT_ALL] = {
        "InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB",
        "Price",        "Region",          "SpotPrice",        "AvailabilityZone",
};
#define COL_REQUIRED COL_SPOT /* columns before this one must be in the header */

struct parse {
        skypilot_row_fn fn;
        void *ctx;
        char *err;
        size_t errlen;
        int rc;                    /* first failure; parsing stops feeding once set */
        unsigned line;             /* the line being fed */
        unsigned record_line;      /* where the current record started; 0 = none yet */
        bool have_header;
        int col[COL_COUNT_ALL];    /* header position of each column; -1 = absent */
        unsigned n_header;
        unsigned n_fields;         /* fields of the current record so far */
        char field[FIELDS_MAX][FIELD_BYTES_MAX];
};

static void fail(struct parse *p, unsigned line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static void fail(struct parse *p, unsigned line, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (p->rc)
                return;
        p->rc = -1;
        n = snprintf(p->err, p->errlen, "line %u: ", line);
        if (n < 0 || (size_t)n >= p->errlen)
                return;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
}

static void on_field(void *s, size_t len, void *data)
{
        struct parse *p = data;

        if (p->rc)
                return;
        if (p->n_fields == 0)
                p->record_line = p->line;
        if (p->n_fields >= FIELDS_MAX) {
                fail(p, p->record_line, "more than %d fields", FIELDS_MAX);
                return;
        }
        if (len >= FIELD_BYTES_MAX) {
                fail(p, p->record_line, "field %u is longer than %d bytes", p->n_fields + 1,
                     FIELD_BYTES_MAX - 1);
                return;
        }
        if (len)
                memcpy(p->field[p->n_fields], s, len);
        p->field[p->n_fields][len] = '\0';
        if (memchr(p->field[p->n_fields], '\0', len)) {
                fail(p, p->record_line, "field %u holds a NUL byte", p->n_fields + 1);
                return;
        }
        p->n_fields++;
}

static void read_header(struct parse *p)
{
        for (int c = 0; c < COL_COUNT_ALL; c++) {
                p->col[c] = -1;
                for (unsigned i = 0; i < p->n_fields; i++)
                        if (strcmp(p->field[i], column_names[c]) == 0)
                                p->col[c] = (int)i;
                if (c < COL_REQUIRED && p->col[c] < 0) {
                        fail(p, p->record_line,
                             "the header has no %s column (a SkyPilot vms.csv names InstanceType, "
                             "AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price and "
                             "Region)",
                             column_names[c]);
                        return;
                }
        }
        p->n_header = p->n_fields;
        p->have_header = true;
}

static const char *cell(const struct parse *p, enum column c)
{
        return p->col[c] < 0 ? "" : p->field[p->col[c]];
}

/* A non-negative finite number, or "" (returns -1 in *out).  Returns false when malformed. */
static bool number_cell(struct parse *p, enum column c, double *out)
{
        const char *s = cell(p, c);
        char *end;
        double v;

        *out = -1;
        if (!*s)
                return true;
        errno = 0;
        v = strtod(s, &end);
        if (end == s || *end || errno || !isfinite(v) || v < 0) {
                fail(p, p->record_line, "%s is \"%.40s\", not a non-negative number",
                     column_names[c], s);
                return false;
        }
        *out = v;
        return true;
}

static void on_record(int term, void *data)
{
        struct parse *p = data;
        struct skypilot_row r;
        double count;

        (void)term;
        if (p->rc)
                return;
        if (!p->have_header) {
                read_header(p);
                p->n_fields = 0;
                return;
        }
        if (p->n_fields != p->n_header) {
                fail(p, p->record_line, "%u fields where the header has %u", p->n_fields,
                     p->n_header);
                return;
        }
        memset(&r, 0, sizeof(r));
        r.line = p->record_line;
        r.instance_type = cell(p, COL_INSTANCE);
        r.accelerator = cell(p, COL_ACCELERATOR);
        r.region = cell(p, COL_REGION);
        r.zone = cell(p, COL_ZONE);
        if (!*r.instance_type && !*r.accelerator) {
                fail(p, r.line, "InstanceType and AcceleratorName are both empty");
                return;
        }
        if (!number_cell(p, COL_COUNT, &count) || !number_cell(p, COL_VCPUS, &r.vcpus) ||
            !number_cell(p, COL_MEMORY, &r.memory_gib) ||
            !number_cell(p, COL_PRICE, &r.usd_per_hour) ||
            !number_cell(p, COL_SPOT, &r.spot_usd_per_hour))
                return;
        if (count > ACCELERATORS_MAX || (count > 1 && count != floor(count))) {
                fail(p, r.line, "AcceleratorCount is %g, not a share of one GPU or a whole number"
                     " up to %d", count, ACCELERATORS_MAX);
                return;
        }
        /* A count below 1 rents a share of one GPU (AWS g6f: 0.125 of an L4). */
        r.gpu_share = count > 0 && count < 1 ? count : 0;
        r.accelerators = count < 1 ? 0 : (unsigned)count;
        if (*r.accelerator && r.accelerators == 0 && r.gpu_share == 0) {
                fail(p, r.line, "AcceleratorName is %s but AcceleratorCount is empty or 0",
                     r.accelerator);
                return;
        }
        p->n_fields = 0;
        p->rc = p->fn(p->ctx, &r);
}

int skypilot_csv_parse(const char *text, size_t len, skypilot_row_fn fn, void *ctx, char *err,
                       size_t errlen)
{
        struct csv_parser csv;
        struct parse *p;
        size_t at = 0;
        int rc;

        p = calloc(1, sizeof(*p));
        if (!p) {
                snprintf(err, errlen, "out of memory");
                return -1;
        }
        p->fn = fn;
        p->ctx = ctx;
        p->err = err;
        p->errlen = errlen;
        if (csv_init(&csv, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
                free(p);
                snprintf(err, errlen, "out of memory");
                return -1;
        }
        while (at < len && !p->rc) {
                const char *nl = memchr(text + at, '\n', len - at);
                size_t n = nl ? (size_t)(nl - (text + at)) + 1 : len - at;

                p->line++;
                if (csv_parse(&csv, text + at, n, on_field, on_record, p) != n && !p->rc)
                        fail(p, p->n_fields ? p->record_line : p->line, "%s",
                             csv_strerror(csv_error(&csv)));
                at += n;
        }
        if (!p->rc && csv_fini(&csv, on_field, on_record, p) != 0)
                fail(p, p->n_fields ? p->record_line : p->line, "%s (an unclosed quote?)",
                     csv_strerror(csv_error(&csv)));
        if (!p->rc && !p->have_header)
                fail(p, 1, "the file is empty: a SkyPilot vms.csv starts with a header");
        csv_free(&csv);
        rc = p->rc;
        free(p);
        return rc;
}
