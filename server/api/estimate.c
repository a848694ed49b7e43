/*
 * estimate.c - POST /api/v1/estimate (see estimate.h): parse the body,
 * resolve a Hub model, decode (estimate_decode.c), run the engine and
 * encode the answer (estimate_encode.c).
 */
#include "api/estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/body.h"
#include "api/estimate_decode.h"
#include "api/estimate_encode.h"
#include "api/fit_heads.h"
#include "api/model_lookup.h"
#include "api/uncertainty.h"
#include "app.h"
#include "catalog/catalog.h"

/* ---- the handler ---------------------------------------------------------------- */

void api_estimate_handle(const struct api_request *rq, struct api_response *rs)
{
        json_t *body = NULL;
        char *text;
        size_t len = 0;
        const struct catalog_snapshot *snap = NULL;
        const struct gpu_spec *gpus = NULL;
        size_t n_gpus = 0;
        struct estimate_input in;
        struct fields_error e;
        struct estimate_error ee;
        struct estimate_result *r = NULL;
        struct api_model_source source;

        memset(&source, 0, sizeof(source));
        body = api_body_object(rq, rs);
        if (!body)
                return;
        if (rq->app && rq->app->catalog)
                snap = catalog_acquire(rq->app->catalog);
        if (snap)
                gpus = catalog_gpus(snap, &n_gpus);
        int looked = api_model_lookup(rq, snap, body, &source, rs);
        if (looked == API_STATUS_WAIT) {
                rs->status = API_STATUS_WAIT;
                goto out;
        }
        if (looked)
                goto out;
        if (estimate_decode_request(body, snap, NULL, &in, &e)) {
                api_model_lookup_problem(&source, &e);
                api_problem_field(rs, e.status ? e.status : 400, e.pointer, e.rule, e.detail);
                goto out;
        }
        api_model_lookup_apply(&source, &in);
        r = malloc(sizeof(*r));
        if (!r) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        if (estimate_run(&in, gpus, n_gpus, r, &ee)) {
                api_problem_field(rs, 400, ee.pointer, ee.rule, ee.detail);
                goto out;
        }
        text = estimate_encode_render_with(&in, r, gpus, n_gpus, api_uncertainty_table(snap),
                                           api_fit_heads_table(snap), &len);
        if (!text) {
                api_problem(rs, 500, "out of memory");
                goto out;
        }
        text = api_model_lookup_annotate(text, &len, &source, &in);
        free(rs->body);
        rs->status = 200;
        rs->content_type = "application/json";
        rs->body = text;
        rs->body_len = len;
out:
        api_model_lookup_free(&source);
        free(r);
        json_decref(body);
        if (snap)
                catalog_release(snap);
}
