/*
 * uncertainty.c - error bars from the validation tables (see uncertainty.h).
 */
#include "api/uncertainty.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/estimate_decode.h"
#include "api/accuracy.h"
#include "catalog/catalog.h"

/* A kind needs this many cases before it stands on its own. */
#define UNC_MIN_CASES 8
/* The coverage the interval is built for: p10 to p90. */
#define UNC_COVERAGE 0.8

enum work_class { WORK_INFERENCE = 0, WORK_FULL, WORK_PEFT };

struct unc_case {
        enum api_uncertainty_quantity q;
        enum work_class work;
        bool multi;
        bool engine;
        double ratio; /* measured / estimated */
};

struct api_uncertainty {
        struct catalog_attachment base; /* first: the snapshot frees it */
        struct unc_case *cases;
        size_t n;
        double coverage[API_UNC_QUANTITIES];
        unsigned covered_cases[API_UNC_QUANTITIES];
        /* Every kind's interval, built with the table: an estimate's lookup
         * is a copy (sorting the cases per request was 4% of an estimate's
         * CPU).  Indexed [quantity][work class][multi-GPU][engine]. */
        struct api_interval intervals[API_UNC_QUANTITIES][3][2][2];
};

static enum work_class work_of(const struct estimate_input *in)
{
        if (in->mode == EST_INFERENCE)
                return WORK_INFERENCE;
        return in->mode == EST_LORA || in->mode == EST_QLORA ? WORK_PEFT : WORK_FULL;
}

/* Tuned engines: their own fused kernels and schedules (Megatron-LM's
 * Transformer Engine, the serving engines, and inference asked without a
 * framework, which the engine costs as a serving engine). */
static bool engine_of(const struct estimate_input *in)
{
        switch (in->framework) {
        case EST_FW_MEGATRON:
        case EST_FW_VLLM:
        case EST_FW_LLAMA_CPP:
        case EST_FW_EXLLAMA:
                return true;
        case EST_FW_NONE:
                return in->mode == EST_INFERENCE &&
                       !((in->set & EST_SET_FLASH) && !in->flash_attention);
        default:
                return false;
        }
}

static const char *const work_names[] = {"inference", "training", "peft"};

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

void api_uncertainty_interval(double *ratios, size_t n, struct api_interval *out)
{
        out->present = false;
        out->cases = (unsigned)n;
        out->widened = false;
        if (n == 0)
                return;
        qsort(ratios, n, sizeof(*ratios), cmp_double);
        /* Order statistics x(i), x(j), 1-based: a new exchangeable case falls
         * between them with probability (j - i) / (n + 1). */
        double m = (double)n + 1;
        size_t i = (size_t)floor(0.1 * m), j = (size_t)ceil(0.9 * m);
        if (i < 1)
                i = 1;
        if (j > n)
                j = n;
        double lo = log(ratios[i - 1]), hi = log(ratios[j - 1]);
        double nominal = (double)(j - i) / m;
        if (nominal < UNC_COVERAGE) {
                /* Too few cases: stretch the log interval about its middle by
                 * 0.8 over the coverage it has (a single case: +-10%). */
                double mid = (lo + hi) / 2, half = (hi - lo) / 2;
                half = half > 0 ? half * UNC_COVERAGE / (nominal > 0 ? nominal : 1) : log(1.1);
                lo = mid - half;
                hi = mid + half;
                out->widened = true;
        }
        out->low_ratio = exp(lo);
        out->high_ratio = exp(hi);
        out->present = true;
}

/* The cases that match at borrowing level (0: all of the kind, 1: without
 * the framework class, 2: without the GPU count, 3: the quantity alone),
 * leaving out case skip (SIZE_MAX: none); their ratios into buf. */
static size_t gather(const struct api_uncertainty *u, enum api_uncertainty_quantity q,
                     enum work_class w, bool multi, bool engine, int level, size_t skip,
                     double *buf)
{
        size_t n = 0;
        for (size_t k = 0; k < u->n; k++) {
                const struct unc_case *c = &u->cases[k];
                if (k == skip || c->q != q)
                        continue;
                if (level < 3 && c->work != w)
                        continue;
                if (level < 2 && c->multi != multi)
                        continue;
                if (level < 1 && c->engine != engine)
                        continue;
                buf[n++] = c->ratio;
        }
        return n;
}

static void interval_for(const struct api_uncertainty *u, enum api_uncertainty_quantity q,
                         enum work_class w, bool multi, bool engine, size_t skip, double *buf,
                         struct api_interval *out)
{
        static const char *const qn[] = {"memory", "time"};
        size_t n = 0;
        int level;

        memset(out, 0, sizeof(*out));
        for (level = 0; level <= 3; level++) {
                n = gather(u, q, w, multi, engine, level, skip, buf);
                if (n >= UNC_MIN_CASES)
                        break;
        }
        if (level > 3)
                level = 3;
        api_uncertainty_interval(buf, n, out);
        snprintf(out->kind, sizeof(out->kind), "%s%s%s%s%s%s%s", qn[q], level < 3 ? ", " : "",
                 level < 3 ? work_names[w] : "", level < 2 ? ", " : "",
                 level < 2 ? (multi ? "multi_gpu" : "single_gpu") : "", level < 1 ? ", " : "",
                 level < 1 ? (engine ? "engine" : "pytorch") : "");
}

void api_uncertainty_lookup(const struct api_uncertainty *u, const struct estimate_input *in,
                            enum api_uncertainty_quantity q, struct api_interval *out)
{
        if (!u || !u->n) {
                memset(out, 0, sizeof(*out));
                return;
        }
        *out = u->intervals[q][work_of(in)][in->gpus > 1][engine_of(in)];
}

double api_uncertainty_coverage(const struct api_uncertainty *u, enum api_uncertainty_quantity q,
                                unsigned *cases)
{
        *cases = u ? u->covered_cases[q] : 0;
        return u ? u->coverage[q] : 0;
}

/* Rates grow as time shrinks: a rate's error turns into the time ratio
 * measured / estimated = estimated rate / measured rate = 1 + error. */
static bool duration_metric(const char *metric)
{
        return !strcmp(metric, "seconds_per_step") || !strcmp(metric, "ttft_ms") ||
               !strcmp(metric, "tpot_ms");
}

/* One validation case into u; skipped when the engine refuses it. */
static void add_case(struct api_uncertainty *u, json_t *row, enum api_uncertainty_quantity q,
                     const struct catalog_snapshot *s)
{
        json_t *req = json_object_get(row, "request");
        struct estimate_input in;
        struct fields_error e;
        double ratio = 0;

        if (!json_is_object(req) || estimate_decode_request(req, s, NULL, &in, &e))
                return;
        if (q == API_UNC_MEMORY) {
                struct accuracy_result v;
                const char *kind = json_string_value(json_object_get(row, "kind"));
                double measured = json_number_value(json_object_get(row, "measured_bytes"));
                if (!kind || accuracy_case(req, kind, measured, s, &v, &e) ||
                    !(v.estimated_bytes > 0))
                        return;
                ratio = measured / v.estimated_bytes;
        } else {
                const char *metric = json_string_value(json_object_get(row, "metric"));
                double measured = json_number_value(json_object_get(row, "measured"));
                double est = 0, err = 0;
                if (!metric || accuracy_time_case(req, metric, measured, s, &est, &err, &e) ||
                    !(1 + err > 0))
                        return;
                ratio = duration_metric(metric) ? 1 / (1 + err) : 1 + err;
        }
        if (!(ratio > 0) || !isfinite(ratio))
                return;
        u->cases[u->n++] = (struct unc_case){.q = q,
                                             .work = work_of(&in),
                                             .multi = in.gpus > 1,
                                             .engine = engine_of(&in),
                                             .ratio = ratio};
}

static void table_free(struct catalog_attachment *a)
{
        struct api_uncertainty *u = (struct api_uncertainty *)a;
        free(u->cases);
        free(u);
}

/* Leave-one-out coverage of each quantity. */
static void table_coverage(struct api_uncertainty *u, double *buf)
{
        unsigned hits[API_UNC_QUANTITIES] = {0};
        for (size_t k = 0; k < u->n; k++) {
                const struct unc_case *c = &u->cases[k];
                struct api_interval iv;
                interval_for(u, c->q, c->work, c->multi, c->engine, k, buf, &iv);
                if (!iv.present)
                        continue;
                u->covered_cases[c->q]++;
                if (c->ratio >= iv.low_ratio && c->ratio <= iv.high_ratio)
                        hits[c->q]++;
        }
        for (int q = 0; q < API_UNC_QUANTITIES; q++)
                u->coverage[q] = u->covered_cases[q] ? (double)hits[q] / u->covered_cases[q] : 0;
}

static struct api_uncertainty *table_build(const struct catalog_snapshot *s)
{
        const char *texts[API_UNC_QUANTITIES];
        json_t *rows[API_UNC_QUANTITIES] = {NULL, NULL};
        struct api_uncertainty *u = calloc(1, sizeof(*u));
        double *buf = NULL;
        size_t total = 0;

        if (!u)
                return NULL;
        u->base.free_fn = table_free;
        catalog_validation_json(s, &texts[API_UNC_MEMORY], &texts[API_UNC_TIME]);
        for (int q = 0; q < API_UNC_QUANTITIES; q++) {
                rows[q] = json_loads(texts[q], 0, NULL);
                total += json_is_array(rows[q]) ? json_array_size(rows[q]) : 0;
        }
        u->cases = calloc(total + 1, sizeof(*u->cases));
        buf = calloc(total + 1, sizeof(*buf));
        if (!u->cases || !buf) {
                table_free(&u->base);
                u = NULL;
                goto out;
        }
        for (int q = 0; q < API_UNC_QUANTITIES; q++) {
                size_t i;
                json_t *row;
                if (!json_is_array(rows[q]))
                        continue;
                json_array_foreach(rows[q], i, row) add_case(u, row, (enum api_uncertainty_quantity)q, s);
        }
        for (int q = 0; q < API_UNC_QUANTITIES; q++)
                for (int w = WORK_INFERENCE; w <= WORK_PEFT; w++)
                        for (int multi = 0; multi < 2; multi++)
                                for (int engine = 0; engine < 2; engine++)
                                        interval_for(u, (enum api_uncertainty_quantity)q,
                                                     (enum work_class)w, multi, engine, SIZE_MAX,
                                                     buf, &u->intervals[q][w][multi][engine]);
        table_coverage(u, buf);
out:
        free(buf);
        for (int q = 0; q < API_UNC_QUANTITIES; q++)
                json_decref(rows[q]);
        return u;
}

/* table_build() as the catalog's slot builder. */
static struct catalog_attachment *table_attachment(const struct catalog_snapshot *s)
{
        struct api_uncertainty *u = table_build(s);
        return u ? &u->base : NULL;
}

const struct api_uncertainty *api_uncertainty_table(const struct catalog_snapshot *s)
{
        return (const struct api_uncertainty *)catalog_extra_get(s, CATALOG_EXTRA_UNCERTAINTY,
                                                                 table_attachment);
}

void api_uncertainty_prepare(const struct catalog_snapshot *s)
{
        (void)api_uncertainty_table(s);
}
