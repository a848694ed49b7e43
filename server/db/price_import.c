/*
 * price_import.c - see price_import.h.  Two passes: the CSV is parsed into
 * one entry per offering (instance type x region, zones folded to their
 * lowest price), then each entry goes to price_import_upsert() in one
 * transaction.
 */
#include "db/price_import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/gcp_hosts.h"
#include "db/price_snapshot.h"
#include "db/skypilot_csv.h"

#define OFFERING_ID_MAX 96 /* offerings.id allows 96 characters */
#define ENTRIES_MAX     (1u << 20)
/* The bytes "gpuprice" read as a big-endian integer (the migration lock is "gpuplan\0"). */
#define PRICE_IMPORT_LOCK_KEY "7453586509114467173"

struct entry {
        char id[OFFERING_ID_MAX + 1];
        char instance_type[128];
        char accelerator[64];
        char region[64];
        unsigned line;
        unsigned gpus;
        double vcpus;
        double memory_gib;
        double usd;  /* lowest on-demand price over the region's zones; < 0 = none */
        double spot; /* lowest spot price; < 0 = none */
};

struct collect {
        const char *cloud;
        struct entry *entries;
        size_t n, cap;
        uint32_t *slots; /* open addressing by id: index + 1, 0 = empty */
        size_t n_slots;
        struct price_import_report *rep;
        struct gcp_hosts *hosts; /* GCP: VM and GPU rows kept to be joined; else NULL */
        char err[320];
};

/* offerings.id alphabet: lower-case letters, digits, '.', '_', '-'; anything else becomes '-'. */
static size_t fold_id(char *out, size_t at, size_t cap, const char *s)
{
        for (; *s && at < cap; s++) {
                char c = *s;

                if (c >= 'A' && c <= 'Z')
                        c = (char)(c - 'A' + 'a');
                else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                           c == '_' || c == '-'))
                        c = '-';
                out[at++] = c;
        }
        return at;
}

static uint32_t hash_id(const char *s)
{
        uint32_t h = 2166136261u; /* FNV-1a */

        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 16777619u;
        return h;
}

static int grow(struct collect *c)
{
        size_t cap = c->cap ? c->cap * 2 : 256;
        size_t n_slots = cap * 2;
        struct entry *e;
        uint32_t *slots;

        if (cap > ENTRIES_MAX)
                return -1;
        e = realloc(c->entries, cap * sizeof(*e));
        if (!e)
                return -1;
        c->entries = e;
        slots = calloc(n_slots, sizeof(*slots));
        if (!slots)
                return -1;
        for (size_t i = 0; i < c->n; i++) {
                size_t k = hash_id(e[i].id) & (n_slots - 1);

                while (slots[k])
                        k = (k + 1) & (n_slots - 1);
                slots[k] = (uint32_t)(i + 1);
        }
        free(c->slots);
        c->slots = slots;
        c->n_slots = n_slots;
        c->cap = cap;
        return 0;
}

/*
 * An offering's price of 0 is no quote: SkyPilot writes 0 where a cloud
 * quotes none (Vast's SpotPrice column is "0.00" on every row), and no GPU
 * is rented for nothing.  (A GCP host VM row of 0, added to its GPU row,
 * reaches here as the sum.)
 */
static double quoted(double usd)
{
        return usd > 0 ? usd : -1;
}

static double lowest(double a, double b)
{
        if (a < 0)
                return b;
        if (b < 0)
                return a;
        return a < b ? a : b;
}

static int add_offering(void *ctx, const struct skypilot_row *r);

static int collect_row(void *ctx, const struct skypilot_row *r)
{
        struct collect *c = ctx;

        c->rep->rows++;
        if (r->gpu_share > 0) {
                c->rep->partial_gpu++;
                return 0;
        }
        if (c->hosts && (!*r->accelerator || !*r->instance_type) &&
            gcp_hosts_add(c->hosts, r)) {
                snprintf(c->err, sizeof(c->err),
                         "line %u: out of memory, or a name longer than 63 bytes", r->line);
                return -1;
        }
        if (!*r->accelerator) {
                c->rep->cpu_rows++;
                return 0;
        }
        if (!*r->region) {
                c->rep->no_region++;
                return 0;
        }
        if (!*r->instance_type) {
                c->rep->accelerator_only++;
                return 0;
        }
        return add_offering(c, r);
}

/* Fold one priced GPU row into its offering (instance type x region). */
static int add_offering(void *ctx, const struct skypilot_row *r)
{
        struct collect *c = ctx;
        char id[OFFERING_ID_MAX + 2];
        size_t at, k;
        struct entry *e;

        if (strlen(r->instance_type) >= sizeof(e->instance_type) ||
            strlen(r->accelerator) >= sizeof(e->accelerator) ||
            strlen(r->region) >= sizeof(e->region)) {
                snprintf(c->err, sizeof(c->err),
                         "line %u: instance type, accelerator or region is too long", r->line);
                return -1;
        }
        at = fold_id(id, 0, sizeof(id) - 1, c->cloud);
        at = fold_id(id, at, sizeof(id) - 1, "-");
        at = fold_id(id, at, sizeof(id) - 1, r->instance_type);
        at = fold_id(id, at, sizeof(id) - 1, "-");
        at = fold_id(id, at, sizeof(id) - 1, r->region);
        id[at] = '\0';
        if (at > OFFERING_ID_MAX) {
                snprintf(c->err, sizeof(c->err),
                         "line %u: the offering id for %s in %s is longer than %d characters",
                         r->line, r->instance_type, r->region, OFFERING_ID_MAX);
                return -1;
        }
        if (c->n == c->cap && grow(c)) {
                snprintf(c->err, sizeof(c->err), "line %u: too many offerings in one file",
                         r->line);
                return -1;
        }
        k = hash_id(id) & (c->n_slots - 1);
        while (c->slots[k] && strcmp(c->entries[c->slots[k] - 1].id, id) != 0)
                k = (k + 1) & (c->n_slots - 1);
        if (c->slots[k]) {
                e = &c->entries[c->slots[k] - 1];
                if (strcmp(e->instance_type, r->instance_type) != 0 ||
                    strcmp(e->region, r->region) != 0 || strcmp(e->accelerator, r->accelerator) != 0 ||
                    e->gpus != r->accelerators) {
                        snprintf(c->err, sizeof(c->err),
                                 "line %u: %.40s in %.30s folds to offering id %.96s, as line %u"
                                 " does, with another accelerator",
                                 r->line, r->instance_type, r->region, id, e->line);
                        return -1;
                }
                e->usd = lowest(e->usd, quoted(r->usd_per_hour));
                e->spot = lowest(e->spot, quoted(r->spot_usd_per_hour));
                return 0;
        }
        e = &c->entries[c->n];
        memset(e, 0, sizeof(*e));
        memcpy(e->id, id, at + 1);
        snprintf(e->instance_type, sizeof(e->instance_type), "%s", r->instance_type);
        snprintf(e->accelerator, sizeof(e->accelerator), "%s", r->accelerator);
        snprintf(e->region, sizeof(e->region), "%s", r->region);
        e->line = r->line;
        e->gpus = r->accelerators;
        e->vcpus = r->vcpus;
        e->memory_gib = r->memory_gib;
        e->usd = quoted(r->usd_per_hour);
        e->spot = quoted(r->spot_usd_per_hour);
        c->slots[k] = (uint32_t)(++c->n);
        return 0;
}

static void note_unknown(struct price_import_report *rep, const char *name)
{
        for (unsigned i = 0; i < rep->n_unknown && i < PRICE_IMPORT_UNKNOWN_MAX; i++)
                if (strcmp(rep->unknown_names[i].name, name) == 0) {
                        rep->unknown_names[i].offerings++;
                        return;
                }
        if (rep->n_unknown < PRICE_IMPORT_UNKNOWN_MAX) {
                snprintf(rep->unknown_names[rep->n_unknown].name, sizeof(rep->unknown_names[0].name), "%s",
                         name);
                rep->unknown_names[rep->n_unknown].offerings = 1;
        }
        rep->n_unknown++;
}

static int exec_simple(PGconn *conn, const char *sql, struct db_error *e)
{
        PGresult *res = catalog_queries_exec_params(conn, sql, 0, NULL, e);

        if (!res)
                return -1;
        PQclear(res);
        return 0;
}

static void error_422(struct db_error *e, const char *detail)
{
        memset(e, 0, sizeof(*e));
        e->http_status = 422;
        /* A CSV error may be longer than a problem's detail: cut it to fit. */
        snprintf(e->detail, sizeof(e->detail), "%.*s", (int)sizeof(e->detail) - 1, detail);
}

/* One price of one entry; counts the outcome. Returns 0, 1 (unknown accelerator) or -1. */
static int upsert(PGconn *conn, const struct price_import_source *src, const char *source,
                  const struct entry *en, const char *pricing, double usd,
                  struct price_import_report *rep, struct db_error *e)
{
        char gpus[16], vcpus[24], ram[32], price[40];
        const char *v[15];
        const char *outcome;
        PGresult *res;
        int rc = 0;

        snprintf(gpus, sizeof(gpus), "%u", en->gpus);
        snprintf(vcpus, sizeof(vcpus), "%.0f", en->vcpus);
        /* GiB -> bytes: 2^30 bytes per GiB. */
        snprintf(ram, sizeof(ram), "%.0f", en->memory_gib * 1073741824.0);
        snprintf(price, sizeof(price), "%.17g", usd);
        v[0] = src->cloud;
        v[1] = en->accelerator;
        v[2] = en->id;
        v[3] = en->instance_type;
        v[4] = gpus;
        v[5] = en->vcpus >= 1 ? vcpus : NULL;
        v[6] = en->memory_gib > 0 ? ram : NULL;
        v[7] = en->region;
        v[8] = pricing;
        v[9] = price;
        v[10] = src->as_of;
        v[11] = source;
        v[12] = src->file;
        v[13] = src->commit;
        v[14] = src->actor;
        res = catalog_queries_exec_params(
                conn,
                "SELECT price_import_upsert($1, $2, $3, $4, $5::integer, $6::integer,"
                " $7::bigint, $8, $9, $10::numeric, $11::date, $12, $13, $14, $15)",
                15, v, e);
        if (!res)
                return -1;
        outcome = PQgetvalue(res, 0, 0);
        if (strcmp(outcome, "unknown") == 0)
                rc = 1;
        else if (strcmp(outcome, "added") == 0)
                rep->added++;
        else if (strcmp(outcome, "changed") == 0)
                rep->changed++;
        else
                rep->unchanged++;
        PQclear(res);
        return rc;
}

/* Is the provider known, and was this exact file already imported? Also fills rep->sha256. */
static int check_source(PGconn *conn, const struct price_import_source *src, const char *csv,
                        size_t len, struct price_import_report *rep, bool *imported,
                        struct db_error *e)
{
        const char *v[3] = {src->cloud, src->file, NULL};
        char *text = malloc(len + 1);
        PGresult *res;
        char detail[200];

        if (!text) {
                error_422(e, "out of memory");
                e->http_status = 500;
                return -1;
        }
        memcpy(text, csv, len);
        text[len] = '\0';
        v[2] = text;
        res = catalog_queries_exec_params(
                conn,
                "SELECT EXISTS (SELECT 1 FROM providers WHERE id = $1),"
                " encode(sha256(convert_to($3, 'UTF8')), 'hex'),"
                " EXISTS (SELECT 1 FROM price_imports WHERE source_file = $2"
                "   AND sha256 = encode(sha256(convert_to($3, 'UTF8')), 'hex'))",
                3, v, e);
        free(text);
        if (!res)
                return -1;
        snprintf(rep->sha256, sizeof(rep->sha256), "%s", PQgetvalue(res, 0, 1));
        *imported = strcmp(PQgetvalue(res, 0, 2), "t") == 0;
        if (strcmp(PQgetvalue(res, 0, 0), "t") != 0) {
                PQclear(res);
                snprintf(detail, sizeof(detail),
                         "cloud %s is not a provider of the catalog: add it first (PUT "
                         "/api/v1/providers/%s)",
                         src->cloud, src->cloud);
                error_422(e, detail);
                return -1;
        }
        PQclear(res);
        return 0;
}

static int record_import(PGconn *conn, const struct price_import_source *src,
                         const struct price_import_report *rep, struct db_error *e)
{
        char n[4][16];
        const char *v[10];
        PGresult *res;

        snprintf(n[0], sizeof(n[0]), "%u", rep->added);
        snprintf(n[1], sizeof(n[1]), "%u", rep->changed);
        snprintf(n[2], sizeof(n[2]), "%u", rep->unchanged);
        snprintf(n[3], sizeof(n[3]), "%u", rep->unknown);
        v[0] = src->cloud;
        v[1] = src->file;
        v[2] = src->commit;
        v[3] = rep->sha256;
        v[4] = src->as_of;
        v[5] = n[0];
        v[6] = n[1];
        v[7] = n[2];
        v[8] = n[3];
        v[9] = src->actor;
        res = catalog_queries_exec_params(
                conn,
                "INSERT INTO price_imports (importer, cloud, source_file, source_commit,"
                " sha256, as_of, added, changed, unchanged, unknown, imported_by)"
                " VALUES ('skypilot', $1, $2, $3, $4, $5::date, $6::integer,"
                " $7::integer, $8::integer, $9::integer, $10)",
                10, v, e);
        if (!res)
                return -1;
        PQclear(res);
        return 0;
}

int price_import_skypilot(PGconn *conn, const struct price_import_source *src, const char *csv,
                          size_t len, struct price_import_report *rep, struct db_error *e)
{
        struct collect c;
        struct gcp_hosts hosts;
        char source[512];
        bool imported = false;
        unsigned no_host = 0;
        int rc;

        memset(rep, 0, sizeof(*rep));
        memset(&c, 0, sizeof(c));
        memset(e, 0, sizeof(*e));
        gcp_hosts_init(&hosts);
        c.cloud = src->cloud;
        c.rep = rep;
        /* GCP prices its GPUs apart from the VMs they attach to: join them (gcp_hosts.h). */
        if (strcmp(src->cloud, "gcp") == 0)
                c.hosts = &hosts;
        rc = skypilot_csv_parse(csv, len, collect_row, &c, c.err, sizeof(c.err));
        if (!rc && c.hosts)
                rc = gcp_hosts_join(&hosts, add_offering, &c, &rep->attached, &no_host);
        if (rc) {
                error_422(e, c.err);
                goto out;
        }
        rep->offerings = (unsigned)c.n;
        /* The price's source: the file at its commit, as a link a reader can open. */
        snprintf(source, sizeof(source), "https://github.com/skypilot-org/skypilot-catalog/blob/%s/%s",
                 src->commit ? src->commit : "master", src->file);
        rc = exec_simple(conn, "BEGIN", e);
        if (rc)
                goto out;
        /* One import at a time (replicas starting together import the snapshot once). */
        rc = exec_simple(conn, "SELECT pg_advisory_xact_lock(" PRICE_IMPORT_LOCK_KEY ")", e);
        if (!rc)
                rc = check_source(conn, src, csv, len, rep, &imported, e);
        if (!rc && imported && src->skip_if_imported) {
                rep->skipped = true;
                rep->rows = rep->cpu_rows = rep->no_region = rep->accelerator_only = rep->partial_gpu = 0;
                rep->attached = rep->offerings = 0;
        }
        for (size_t i = 0; !rc && !rep->skipped && i < c.n; i++) {
                const struct entry *en = &c.entries[i];
                int r = 0;

                if (en->usd >= 0)
                        r = upsert(conn, src, source, en, "on_demand", en->usd, rep, e);
                if (r == 0 && en->spot >= 0)
                        r = upsert(conn, src, source, en, "spot", en->spot, rep, e);
                if (r == 1) {
                        rep->unknown++;
                        note_unknown(rep, en->accelerator);
                        r = 0;
                }
                rc = r;
        }
        if (!rc && !rep->skipped)
                rc = record_import(conn, src, rep, e);
        if (rc) {
                if (PQstatus(conn) != CONNECTION_BAD)
                        PQclear(PQexecParams(conn, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0));
        } else {
                rc = exec_simple(conn, "COMMIT", e);
        }
out:
        free(c.entries);
        free(c.slots);
        gcp_hosts_free(&hosts);
        return rc;
}

int price_import_snapshot(PGconn *conn, unsigned *added, char *err, size_t errlen)
{
        *added = 0;
        for (unsigned i = 0; i < price_snapshot_count; i++) {
                const struct price_snapshot_file *f = &price_snapshot[i];
                struct price_import_source src = {
                        .cloud = f->cloud,
                        .file = f->file,
                        .commit = f->commit,
                        .as_of = f->as_of,
                        .actor = "migration",
                        .skip_if_imported = true,
                };
                struct price_import_report rep;
                struct db_error e;

                if (price_import_skypilot(conn, &src, f->csv, f->csv_len, &rep, &e)) {
                        snprintf(err, errlen, "cannot import the shipped prices %s: %s", f->file,
                                 e.detail);
                        return -1;
                }
                *added += rep.added + rep.changed;
        }
        return 0;
}
