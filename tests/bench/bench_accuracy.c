/*
 * bench_accuracy.c - the engine against published peak-memory measurements.
 *
 * Reads tests/data/measurements.json (and tests/data/catalog_models.json
 * to resolve catalog model ids without a database), runs every case
 * through the same evaluation as GET /api/v1/validation and prints the
 * error per case, then the median and the 90th percentile of |error| per
 * category (the case's "category") and over all cases.
 *
 * Usage: bench_accuracy [-v] [measurements.json [catalog_models.json]]
 *   -v  also print each case's peak phase and per-GPU components (GiB)
 * Exit status 0; 1 if a file cannot be read or a case cannot be run.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/estimate_decode.h"
#include "api/accuracy.h"
#include "core/estimate.h"

#ifndef GPUPLAN_SOURCE_DIR
#define GPUPLAN_SOURCE_DIR "."
#endif

static double unit_bytes(const char *u)
{
        if (!u)
                return 0;
        if (!strcmp(u, "GB"))
                return 1e9;
        if (!strcmp(u, "MB"))
                return 1e6;
        if (!strcmp(u, "GiB"))
                return 1073741824.0;
        if (!strcmp(u, "MiB"))
                return 1048576.0;
        return 0;
}

/* Replace {"id": x} by {"hf_config": catalog config of x}. */
static int resolve_model(json_t *request, json_t *models)
{
        json_t *m = json_object_get(request, "model");
        json_t *id = json_object_get(m, "id");
        size_t i;
        json_t *row;
        if (!json_is_string(id))
                return 0;
        json_array_foreach(models, i, row)
        {
                if (json_equal(json_object_get(row, "id"), id)) {
                        json_t *cfg = json_deep_copy(json_object_get(row, "config"));
                        json_object_set_new(cfg, "_name_or_path",
                                            json_copy(json_object_get(row, "name")));
                        json_object_clear(m);
                        json_object_set_new(m, "hf_config", cfg);
                        return 0;
                }
        }
        fprintf(stderr, "unknown catalog model %s\n", json_string_value(id));
        return -1;
}

/* Print the peak phase and the components of one request (-v). */
static void print_breakdown(json_t *request)
{
        struct estimate_input in;
        struct fields_error ae;
        struct estimate_error ee;
        struct estimate_result *r = malloc(sizeof(*r));
        if (!r || estimate_decode_request(request, NULL, NULL, &in, &ae) ||
            estimate_run(&in, NULL, 0, r, &ee)) {
                free(r);
                return;
        }
        printf("    peak %s:", estimate_phase_name(r->peak_phase));
        for (int c = 0; c < EST_COMPONENT_COUNT; c++)
                if (r->per_gpu[c])
                        printf(" %s %.2f", estimate_component_name((enum est_component)c),
                               (double)r->per_gpu[c] / 1073741824.0);
        printf("\n");
        free(r);
}

int main(int argc, char **argv)
{
        bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
        if (verbose) {
                argc--;
                argv++;
        }
        const char *mpath = argc > 1 ? argv[1] : GPUPLAN_SOURCE_DIR "/tests/data/measurements.json";
        const char *cpath =
                argc > 2 ? argv[2] : GPUPLAN_SOURCE_DIR "/tests/data/catalog_models.json";
        json_error_t jerr;
        json_t *doc = json_load_file(mpath, JSON_REJECT_DUPLICATES, &jerr);
        json_t *models = json_load_file(cpath, JSON_REJECT_DUPLICATES, &jerr);
        json_t *cases, *c;
        size_t i, n = 0;
        double errs[256], buf[256], median, p90;
        const char *cats[256];
        int rc = 0;

        if (!doc || !models) {
                fprintf(stderr, "cannot read %s or %s: %s\n", mpath, cpath, jerr.text);
                return 1;
        }
        cases = json_object_get(doc, "cases");
        printf("%-42s %-13s %12s %12s %8s\n", "case", "kind", "measured", "estimated", "error");
        json_array_foreach(cases, i, c)
        {
                struct accuracy_result v;
                struct fields_error e;
                json_t *req = json_deep_copy(json_object_get(c, "request"));
                const char *kind = json_string_value(json_object_get(c, "kind"));
                double measured = json_number_value(json_object_get(c, "measured")) *
                                  unit_bytes(json_string_value(json_object_get(c, "unit")));
                if (!req || resolve_model(req, models) ||
                    accuracy_case(req, kind ? kind : "", measured, NULL, &v, &e)) {
                        printf("%-42s FAILED %s %s %s\n",
                               json_string_value(json_object_get(c, "id")), e.pointer, e.rule,
                               e.detail);
                        rc = 1;
                        json_decref(req);
                        continue;
                }
                printf("%-42s %-13s %9.2f GiB %9.2f GiB %+7.1f%%\n",
                       json_string_value(json_object_get(c, "id")), kind, measured / 1073741824.0,
                       v.estimated_bytes / 1073741824.0, v.error * 100);
                if (verbose)
                        print_breakdown(req);
                json_decref(req);
                if (n < sizeof(errs) / sizeof(errs[0])) {
                        const char *cat = json_string_value(json_object_get(c, "category"));
                        cats[n] = cat ? cat : "uncategorised";
                        errs[n++] = v.error;
                }
        }
        printf("\n%-20s %6s %10s %10s\n", "category", "cases", "median", "p90");
        for (size_t k = 0; k < n; k++) {
                bool first = true;
                for (size_t j = 0; j < k; j++)
                        if (!strcmp(cats[j], cats[k]))
                                first = false;
                if (!first)
                        continue;
                double sub[256];
                size_t m = 0;
                for (size_t j = k; j < n; j++)
                        if (!strcmp(cats[j], cats[k]))
                                sub[m++] = errs[j];
                accuracy_summary(sub, m, buf, &median, &p90);
                printf("%-20s %6zu %9.1f%% %9.1f%%\n", cats[k], m, median * 100, p90 * 100);
        }
        accuracy_summary(errs, n, buf, &median, &p90);
        printf("%-20s %6zu %9.1f%% %9.1f%%\n", "all", n, median * 100, p90 * 100);
        json_decref(doc);
        json_decref(models);
        return rc;
}
