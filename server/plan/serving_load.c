/*
 * serving_load.c - the load model of one serving replica (see serving.h):
 * prefill queue, continuous-batching decode, Little's law.  Apart from the
 * search so that it links without a catalog.
 */
#include "plan/serving.h"

#include <math.h>
#include <string.h>

#define FIXED_POINT_STEPS 200

/* Time t such that P(wait > t) = 1 - q for the prefill queue. */
static double wait_quantile(double rho, double mean, double q)
{
        if (rho <= 0 || mean <= 0 || rho <= 1 - q)
                return 0;
        return mean / rho * log(rho / (1 - q));
}

double serving_decode_step(const struct serving_config *c, double n, double ctx)
{
        double seqs = n < 1 ? 1 : n;
        return est_speed_pass_seconds(&c->speed, seqs, ctx, seqs * ctx);
}

void serving_replica_load(const struct serving_config *c, const struct serving_traffic *t,
                          double lambda, struct serving_load *out)
{
        double tp = c->prefill_s, G = t->output_tokens;
        double ctx = t->prompt_tokens + G / 2;
        double rho = lambda * tp;

        memset(out, 0, sizeof(*out));
        out->prefill_utilisation = rho;
        if (!(rho < 1) || !(tp > 0)) {
                out->ttft_p50_s = out->ttft_p95_s = out->ttft_mean_s = out->tpot_s = INFINITY;
                return;
        }
        double wait = rho * tp / (2 * (1 - rho)); /* Pollaczek-Khinchine, M/D/1 */
        double n = lambda * (tp + G * serving_decode_step(c, 1, ctx));
        double step = 0;
        bool converged = false;
        for (int i = 0; i < FIXED_POINT_STEPS; i++) {
                step = serving_decode_step(c, n, ctx);
                double next = lambda * (wait + tp + step / 2 + G * step / (1 - rho));
                if (fabs(next - n) <= 1e-9 * (n + 1)) {
                        n = next;
                        converged = true;
                        break;
                }
                n = next;
                if (n > 4.0 * SERVING_MAX_NUM_SEQS * 16)
                        break; /* the decode steps grow faster than they drain */
        }
        step = serving_decode_step(c, n, ctx);
        out->concurrency = n;
        out->tpot_s = step / (1 - rho);
        out->ttft_mean_s = wait + tp + step / 2;
        out->ttft_p50_s = wait_quantile(rho, wait, 0.50) + tp + step / 2;
        out->ttft_p95_s = wait_quantile(rho, wait, 0.95) + tp + step / 2;
        out->feasible = converged && n <= c->max_sequences;
}

bool serving_meets(const struct serving_load *l, const struct serving_slo *slo)
{
        if (!l->feasible)
                return false;
        if (slo->ttft_p50_s > 0 && l->ttft_p50_s > slo->ttft_p50_s)
                return false;
        if (slo->ttft_p95_s > 0 && l->ttft_p95_s > slo->ttft_p95_s)
                return false;
        if (slo->tpot_s > 0 && l->tpot_s > slo->tpot_s)
                return false;
        return true;
}
