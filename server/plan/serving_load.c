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
        out->ttft_p99_s = wait_quantile(rho, wait, 0.99) + tp + step / 2;
        out->tpot_p50_s = out->tpot_p99_s = out->tpot_s;
        out->itl_p50_s = out->itl_p99_s = out->tpot_s;
        out->itl_burst_tokens = 1;
        out->e2e_p50_s = out->ttft_p50_s + G * out->tpot_s;
        out->e2e_p99_s = out->ttft_p99_s + G * out->tpot_s;
        out->step_s = step;
        out->offered_rps = out->delivered_rps = lambda;
        out->feasible = converged && n <= c->max_sequences;
}

double serving_replica_max_rate(const struct serving_config *c, const struct serving_traffic *t)
{
        struct serving_load l;
        double lo = 0, hi = c->prefill_s > 0 ? 1.0 / c->prefill_s : 1;

        for (int i = 0; i < 30; i++) {
                serving_replica_load(c, t, hi, &l);
                if (!l.feasible)
                        break;
                lo = hi;
                hi *= 2;
        }
        for (int i = 0; i < 48; i++) {
                double mid = (lo + hi) / 2;
                serving_replica_load(c, t, mid, &l);
                if (l.feasible)
                        lo = mid;
                else
                        hi = mid;
        }
        return lo;
}

/*
 * Closed loop: n users each in one request at a time, so n = lambda x
 * (TTFT + (G - 1) TPOT) (Little's law over the whole request).  Solved for
 * lambda by bisection (the time in the system grows with lambda).  When
 * even the replica's saturation rate leaves users over, they queue for a
 * slot: the extra wait is (users - in service) / rate.
 */
void serving_replica_load_closed(const struct serving_config *c, const struct serving_traffic *t,
                                 double users, struct serving_load *out)
{
        double G = t->output_tokens > 1 ? t->output_tokens : 1;
        double lmax = serving_replica_max_rate(c, t) * (1 - 1e-6);
        double lo = 0, hi = lmax;
        struct serving_load l;

        serving_replica_load(c, t, lmax, &l);
        double in_service = lmax * (l.ttft_mean_s + (G - 1) * l.tpot_s);
        if (in_service < users) {
                double queue = (users - in_service) / lmax;
                *out = l;
                out->ttft_mean_s += queue;
                out->ttft_p50_s += queue;
                out->ttft_p95_s += queue;
                out->ttft_p99_s += queue;
                out->e2e_p50_s += queue;
                out->e2e_p99_s += queue;
                out->offered_rps = out->delivered_rps = lmax;
                out->overloaded = true;
                out->feasible = true;
                return;
        }
        for (int i = 0; i < 60; i++) {
                double mid = (lo + hi) / 2;
                serving_replica_load(c, t, mid, &l);
                double n = mid * (l.ttft_mean_s + (G - 1) * l.tpot_s);
                if (l.feasible && n < users)
                        lo = mid;
                else
                        hi = mid;
        }
        serving_replica_load(c, t, lo, out);
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
