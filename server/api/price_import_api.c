/*
 * price_import_api.c - POST /api/v1/prices/import/skypilot: the admin
 * endpoint that takes one SkyPilot vms.csv as the request body (text/csv)
 * and imports it (server/db/price_import.h).  Query: cloud (required, a
 * provider id), file (the path in the catalog repository; default
 * catalogs/<cloud>/vms.csv), commit (hex, optional), as_of (YYYY-MM-DD,
 * default today).  Answers 200 with the summary; 422 for a malformed row
 * ("line N: ...") or an unknown cloud.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/catalog_api.h"
#include "api/admin.h"
#include "api/catalog.h"
#include "api/db.h"
#include "api/fields.h"
#include "app.h"
#include "db/catalog_queries.h"
#include "db/price_import.h"

static bool all_of(const char *s, const char *alphabet, size_t min, size_t max)
{
        size_t n = strlen(s);

        return n >= min && n <= max && strspn(s, alphabet) == n;
}

static int query_ok(struct api_response *rs, const char *name, const char *v, const char *alphabet,
                    size_t min, size_t max, const char *rule)
{
        char pointer[32], detail[200];

        if (!v || all_of(v, alphabet, min, max))
                return 0;
        snprintf(pointer, sizeof(pointer), "?%s", name);
        snprintf(detail, sizeof(detail), "%s must be %s", name, rule);
        api_problem_field(rs, 400, pointer, "pattern", detail);
        return -1;
}

void price_import_api_skypilot(const struct api_request *rq, struct api_response *rs)
{
        static const char lower_digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        static const char path_chars[] = "abcdefghijklmnopqrstuvwxyz"
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-";
        const char *cloud = rq->query(rq, "cloud");
        const char *file = rq->query(rq, "file");
        const char *commit = rq->query(rq, "commit");
        const char *as_of = rq->query(rq, "as_of");
        char default_file[128], today[16], actor[80];
        struct price_import_source src;
        struct price_import_report rep;
        struct db_actor who;
        struct db_error e;
        time_t now = time(NULL);
        struct tm tm;
        PGconn *conn;
        json_t *unknown, *doc;
        bool reloaded;
        int rc;

        if (admin_check(rq, rs))
                return;
        if (!cloud) {
                api_problem_field(rs, 400, "?cloud", "required",
                                  "cloud is required: the provider id the file prices (aws, "
                                  "lambda, ...)");
                return;
        }
        if (query_ok(rs, "cloud", cloud, lower_digits, 1, 63, "a provider id: a-z and 0-9") ||
            query_ok(rs, "file", file, path_chars, 1, 200,
                     "the file's path in the catalog repository, e.g. catalogs/v8/aws/vms.csv") ||
            query_ok(rs, "commit", commit, "0123456789abcdef", 7, 40,
                     "a commit id: 7 to 40 lower-case hex digits"))
                return;
        if (as_of && !fields_is_date(as_of)) {
                api_problem_field(rs, 400, "?as_of", "format", "as_of must be a date, YYYY-MM-DD");
                return;
        }
        if (!rq->body || rq->body_len == 0) {
                api_problem(rs, 400, "send the vms.csv file as the request body (text/csv)");
                return;
        }
        gmtime_r(&now, &tm);
        strftime(today, sizeof(today), "%Y-%m-%d", &tm);
        snprintf(default_file, sizeof(default_file), "catalogs/%s/vms.csv", cloud);
        conn = api_db_acquire(rq, rs);
        if (!conn)
                return;
        admin_actor(rq, actor, sizeof(actor), &who);
        memset(&src, 0, sizeof(src));
        src.cloud = cloud;
        src.file = file ? file : default_file;
        src.commit = commit;
        src.as_of = as_of ? as_of : today;
        src.actor = who.actor;
        rc = price_import_skypilot(conn, &src, rq->body, rq->body_len, &rep, &e);
        api_db_release(rq, conn);
        if (rc) {
                api_db_problem(rs, &e);
                return;
        }
        reloaded = api_catalog_refresh(rq);
        unknown = json_array();
        for (unsigned i = 0; unknown && i < rep.n_unknown && i < PRICE_IMPORT_UNKNOWN_MAX; i++)
                json_array_append_new(unknown, json_pack("{s:s,s:I}", "name",
                                                         rep.unknown_names[i].name, "offerings",
                                                         (json_int_t)rep.unknown_names[i].offerings));
        doc = json_pack("{s:s,s:s,s:o,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:b}",
                        "cloud",
                        src.cloud, "file", src.file, "commit",
                        commit ? json_string(commit) : json_null(), "as_of", src.as_of, "sha256",
                        rep.sha256, "rows", (json_int_t)rep.rows, "cpu_rows",
                        (json_int_t)rep.cpu_rows, "rows_without_region", (json_int_t)rep.no_region,
                        "partial_gpu_rows", (json_int_t)rep.partial_gpu,
                        "accelerator_only_rows", (json_int_t)rep.accelerator_only,
                        "accelerator_rows_attached", (json_int_t)rep.attached,
                        "offerings", (json_int_t)rep.offerings, "added",
                        (json_int_t)rep.added, "changed", (json_int_t)rep.changed, "unchanged",
                        (json_int_t)rep.unchanged, "unknown", (json_int_t)rep.unknown,
                        "unknown_accelerators", unknown ? unknown : json_array(),
                        "snapshot_reloaded", reloaded);
        api_reply_json(rs, 200, doc);
}
