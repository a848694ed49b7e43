/*
 * serving_load.c - the load model of one serving replica (see serving.h):
 * prefill queue, continuous-batching decode, Little's law.  Apart from the
 * search so that it links without a catalog.
 */
#include "plan/serving.h"

#include <math.h>
#include <string.h>

#define FIXED_POINT_STEPS     400
#define FIXED_POINT_TOLERANCE 1e-7

/*
 * The TTFT beyond its fixed part is a sum of independent waits:
 * U, uniform over [0, W) (the next scheduling point); X, exponential with
 * mean mu (the part of the request's own prefill that grows with its
 * exponential prompt length; 0 for fixed lengths); and Y, the prefill
 * queue: 0 with probability 1 - rho, else exponential with mean nu (the
 * M/M/1-shaped tail: P(wait > t) = rho e^(-t / nu)).  Its quantiles are those of the
 * sum, not the sum of the parts' quantiles (a right-skewed part's median
 * lies below its mean, and the sum's median lies nearer the sum's mean).
 *
 * With G(x) the integral of the CDF of Z = X + Y from 0 to x, the CDF of
 * U + Z is (G(s) - G(s - W)) / W.  For one exponential of mean m,
 * G(x) = x - m (1 - e^(-x/m)); for the sum of two with means m1 != m2,
 * G(x) = x - (m1^2 (1 - e^(-x/m1)) - m2^2 (1 - e^(-x/m2))) / (m1 - m2)
 * (integrating the hypoexponential CDF).
 */

static double integral_exp_cdf(double x, double m)
{
        if (x <= 0)
                return 0;
        if (m <= 0)
                return x;
        return x + m * expm1(-x / m);
}

static double integral_exp2_cdf(double x, double m1, double m2)
{
        if (x <= 0)
                return 0;
        if (m1 <= 0)
                return integral_exp_cdf(x, m2);
        if (m2 <= 0)
                return integral_exp_cdf(x, m1);
        if (fabs(m1 - m2) <= 1e-6 * (m1 + m2))
                m2 = m1 * (1 + 1e-4); /* the limit, to 1e-4 */
        return x + (m1 * m1 * expm1(-x / m1) - m2 * m2 * expm1(-x / m2)) / (m1 - m2);
}

static double spread_integral(const struct serving_ttft_spread *d, double x)
{
        return (1 - d->rho) * integral_exp_cdf(x, d->mu_s) +
               d->rho * integral_exp2_cdf(x, d->mu_s, d->nu_s);
}

static double spread_cdf(const struct serving_ttft_spread *d, double s)
{
        double w = d->window_s > 1e-12 ? d->window_s : 1e-12;
        return (spread_integral(d, s) - spread_integral(d, s - w)) / w;
}

static double exp_cdf(double x, double m)
{
        if (x <= 0)
                return 0;
        return m <= 0 ? 1 : -expm1(-x / m);
}

static double exp2_cdf(double x, double m1, double m2)
{
        if (x <= 0)
                return 0;
        if (m1 <= 0)
                return exp_cdf(x, m2);
        if (m2 <= 0)
                return exp_cdf(x, m1);
        if (fabs(m1 - m2) <= 1e-6 * (m1 + m2))
                m2 = m1 * (1 + 1e-4);
        return (m2 * expm1(-x / m2) - m1 * expm1(-x / m1)) / (m1 - m2);
}

/* The density of U + Z: (F_Z(s) - F_Z(s - W)) / W. */
static double spread_pdf(const struct serving_ttft_spread *d, double s)
{
        double w = d->window_s > 1e-12 ? d->window_s : 1e-12;
        double hi = (1 - d->rho) * exp_cdf(s, d->mu_s) + d->rho * exp2_cdf(s, d->mu_s, d->nu_s);
        double lo = (1 - d->rho) * exp_cdf(s - w, d->mu_s) +
                    d->rho * exp2_cdf(s - w, d->mu_s, d->nu_s);
        return (hi - lo) / w;
}

/* The q-quantile of U + X + Y: Newton's method from the mean inside a
 * bracket that bisection keeps when a step would leave it (the CDF rises
 * monotonically); a few steps where bisection alone takes fifty. */
double serving_load_ttft_spread_quantile(const struct serving_ttft_spread *d, double q)
{
        if (!(d->window_s >= 0) || !(d->mu_s >= 0) || !(d->rho >= 0) || !(d->nu_s >= 0) ||
            !isfinite(d->window_s + d->mu_s + d->nu_s) || !(q > 0 && q < 1))
                return INFINITY;
        double lo = 0, hi = d->window_s + 60 * (d->mu_s + d->nu_s) + 1e-9;
        double x = d->window_s / 2 + d->mu_s + d->rho * d->nu_s;
        for (int i = 0; i < 80 && hi - lo > 1e-12 * hi; i++) {
                double f = spread_cdf(d, x) - q;
                if (fabs(f) < 1e-9)
                        break;
                if (f < 0)
                        lo = x;
                else
                        hi = x;
                double g = spread_pdf(d, x);
                double next = g > 0 ? x - f / g : lo - 1;
                x = next > lo && next < hi ? next : (lo + hi) / 2;
        }
        return x;
}

/*
 * The q-quantile of a length with mean m: every request at m (fixed), or
 * exponential, the maximum-entropy spread for a known mean, which is the
 * shape of chat traffic (ShareGPT turns: many short, a long tail):
 * -ln(1 - q) m, capped at the longest context admitted.
 */
static double length_quantile(const struct serving_traffic *t, double m, double q, double cap)
{
        if (t->lengths != SERVING_LENGTHS_EXPONENTIAL)
                return m;
        double x = -log(1 - q) * m;
        return cap > 0 && x > cap ? cap : x;
}

double serving_load_decode_step(const struct serving_config *c, double n, double ctx)
{
        double seqs = n < 1 ? 1 : n;
        return serving_step_seconds(&c->step, seqs, ctx, 0, 0);
}

/* A prefill pass of its own over tokens prompt tokens (prefill first). */
static double prefill_pass(const struct serving_config *c, double tokens)
{
        return serving_step_seconds(&c->step, 0, 0, tokens, tokens / 2);
}

/*
 * The iteration model of serving_step.c under Poisson arrivals at lambda.
 * n decoding sequences (Little: lambda x (G - 1) x TPOT) share each
 * iteration of time T.
 *
 * Prefill in passes of its own (vLLM V0, SGLang): the prompts that arrive
 * during a block of k decode iterations (k = num_scheduler_steps) are
 * prefilled together in one pass of time t_pf before the next block, so
 * prefill passes take rho = (lambda / batch) t_pf of the time and
 * TPOT = T / (1 - rho).
 *
 * Chunked prefill (vLLM V1, TensorRT-LLM, TGI 3, llama.cpp): each
 * iteration also carries the prompt tokens that arrived during the last,
 * c = lambda P T, up to the batched-token budget B - n; TPOT = T(n, c).
 *
 * TTFT = front end + the wait for the next scheduling point (uniform over
 * k T) + the queue for prefill capacity (M/D/1 mean rho t / (2 (1 - rho)),
 * M/M/1-shaped tail) + the request's own prefill; its quantiles are those
 * of the sum of these independent parts (serving_load_ttft_spread_quantile).
 */
void serving_load_replica(const struct serving_config *c, const struct serving_traffic *t,
                          double lambda, struct serving_load *out)
{
        const struct serving_engine *e = &c->step.engine;
        double P = t->prompt_tokens, G = t->output_tokens;
        double ctx = P + G / 2;
        double k = e->scheduler_steps ? e->scheduler_steps : 1;
        double cap = t->max_context_tokens > 0 ? t->max_context_tokens : 16 * (P + G);
        double budget = e->max_batched_tokens ? e->max_batched_tokens : 8192;
        bool mixed = e->prefill == SERVING_PREFILL_MIXED;
        double n = 1, T = 0, rho = 0, tpot = 0, t_pf = 0, batch = 1, chunk = 0;
        bool ok = false;

        memset(out, 0, sizeof(*out));
        out->offered_rps = lambda;
        /* n and T (and with chunked prefill the chunk, lambda P T) are
         * iterated together to their joint fixed point; past the sequences
         * the replica runs at once the load is infeasible anyway. */
        for (int i = 0; i < FIXED_POINT_STEPS; i++) {
                double T_prev = T;
                if (mixed) {
                        if (!(T > 0))
                                T = serving_load_decode_step(c, n, ctx);
                        chunk = lambda * P * T;
                        T = serving_step_seconds(&c->step, n, ctx, chunk, P / 2);
                        rho = chunk / fmax(budget - n, 1);
                        tpot = T;
                } else {
                        T = serving_load_decode_step(c, n, ctx);
                        batch = 1 + lambda * k * T;
                        if (batch * P > budget)
                                batch = fmax(1, budget / P);
                        t_pf = prefill_pass(c, batch * P);
                        rho = lambda / batch * t_pf;
                        tpot = rho < 1 ? T / (1 - rho) : INFINITY;
                }
                if (!(rho < 1) || !isfinite(tpot))
                        break;
                double next = fmax(lambda * (G - 1) * tpot, 1e-9);
                bool settled = fabs(next - n) <= FIXED_POINT_TOLERANCE * (n + 1) &&
                               fabs(T - T_prev) <= FIXED_POINT_TOLERANCE * T;
                n = next;
                if (settled) {
                        ok = true;
                        break;
                }
                if (n > 2.0 * c->max_sequences + 16)
                        break;
        }
        out->prefill_utilisation = rho;
        out->step_s = T;
        if (!ok) {
                out->ttft_p50_s = out->ttft_p95_s = out->ttft_p99_s = out->ttft_mean_s = INFINITY;
                out->tpot_s = out->tpot_p50_s = out->tpot_p99_s = INFINITY;
                out->itl_p50_s = out->itl_p99_s = out->e2e_p50_s = out->e2e_p99_s = INFINITY;
                out->overloaded = true;
                return;
        }
        /* Waiting for the next scheduling point: uniform over k T for
         * arrivals independent of the engine (open loop). */
        double F = e->frontend_seconds;
        double block = k * T;
        double wb_mean = block / 2, window = block;
        if (t->concurrency > 1) {
                /* A closed-loop user sends its next request as the last
                 * token of its previous one arrives, and that token left
                 * the engine at the end of an iteration (of a block of k
                 * under multi-step): the request reaches the scheduler F
                 * (the front end out and back in) after that boundary and
                 * waits for the next one it has not missed, m k T after it
                 * with m = ceil(F / kT).  TTFT, counted from the send, is
                 * then m k T + its own prefill: the front end hides in the
                 * wait instead of adding to a uniform one.  (genai-perf's
                 * concurrency mode sends the next request when the last
                 * response ends: docs.nvidia.com/nim/benchmarking/llm,
                 * "Parameters and Best Practices", load control; its
                 * perf_analyzer sends on every free context, no think
                 * time: triton-inference-server/perf_analyzer,
                 * src/concurrency_worker.cc, RunInference, at 263c5f6e.) */
                double m = ceil(F / block);
                wb_mean = (m < 1 ? 1 : m) * block - F;
                window = 0;
        }
        /* Queueing for prefill capacity.  With chunked prefill the queue is
         * for the GPU's prefill work, not for budget tokens: a prompt keeps
         * the iterations busy for the marginal time of its tokens, t_w =
         * T(n, c + P) - T(n, c), and prompts arrive at lambda, so
         * rho = lambda t_w with service t_w (M/D/1). */
        double service = t_pf, qrho = rho;
        if (mixed) {
                service = fmax(serving_step_seconds(&c->step, n, ctx, chunk + P, P / 2) -
                                       serving_step_seconds(&c->step, n, ctx, chunk, P / 2),
                               0);
                qrho = fmax(lambda * service, rho);
                if (!(qrho < 1)) {
                        out->ttft_p50_s = out->ttft_p95_s = out->ttft_p99_s = INFINITY;
                        out->ttft_mean_s = INFINITY;
                        out->overloaded = true;
                        return;
                }
                service = fmax(service, T);
        }
        double wq_mean = qrho * service / (2 * (1 - qrho));
        /* The request's own prefill at its prompt length. */
        double room = fmax(budget - n - chunk, 1);
        double own[4];
        const double qs[4] = {0.5, 0.95, 0.99, -1};
        for (int i = 0; i < 4; i++) {
                double len = qs[i] < 0 ? P : length_quantile(t, P, qs[i], cap);
                if (mixed) {
                        double chunks = ceil(len / room);
                        own[i] = chunks * serving_step_seconds(&c->step, n, ctx,
                                                               chunk + fmin(len, room), len / 2);
                } else {
                        own[i] = prefill_pass(c, fmax(batch - 1, 0) * P + len);
                }
        }
        double mean = F + wb_mean + wq_mean + own[3];
        out->ttft_mean_s = mean;
        /* The own prefill as a fixed part plus an exponential one: its
         * growth per token from the median to the 95th-percentile prompt,
         * times the mean prompt (0 with fixed lengths). */
        double len50 = length_quantile(t, P, 0.5, cap), len95 = length_quantile(t, P, 0.95, cap);
        double slope = len95 > len50 ? fmax(own[1] - own[0], 0) / (len95 - len50) : 0;
        struct serving_ttft_spread d = {.window_s = window,
                                .mu_s = fmin(slope * P, own[3]),
                                .rho = qrho > 0 ? fmin(qrho, 1) : 0,
                                .nu_s = qrho > 0 ? wq_mean / qrho : 0};
        double fixed = F + own[3] - d.mu_s + (window > 0 ? 0 : wb_mean);
        out->ttft_p50_s = fixed + serving_load_ttft_spread_quantile(&d, 0.50);
        out->ttft_p95_s = fixed + serving_load_ttft_spread_quantile(&d, 0.95);
        out->ttft_p99_s = fixed + serving_load_ttft_spread_quantile(&d, 0.99);
        /* TPOT: the mean over a request's tokens; its tail from the number
         * of running sequences, Poisson-spread (n + 2.33 sqrt n). */
        out->tpot_s = out->tpot_p50_s = tpot;
        double n99 = n + 2.33 * sqrt(n);
        out->tpot_p99_s = mixed ? serving_step_seconds(&c->step, n99, ctx, chunk, P / 2)
                                : serving_load_decode_step(c, n99, ctx) / (1 - rho);
        /* ITL: k tokens per streamed chunk under multi-step; the slow
         * chunks are those that wait out a prefill (or carry a full one). */
        out->itl_burst_tokens = k;
        out->itl_p50_s = k * T;
        if (mixed)
                out->itl_p99_s = serving_step_seconds(&c->step, n, ctx,
                                                      fmin(room + chunk, length_quantile(t, P, 0.99, cap)),
                                                      P / 2);
        else
                out->itl_p99_s = rho > 0.01 ? k * T + t_pf : k * T;
        double g50 = length_quantile(t, G, 0.5, cap), g99 = length_quantile(t, G, 0.99, cap);
        out->e2e_p50_s = out->ttft_p50_s + fmax(g50 - 1, 0) * tpot;
        out->e2e_p99_s = out->ttft_p99_s + fmax(g99 - 1, 0) * out->tpot_p99_s;
        out->concurrency = n + lambda * mean;
        out->delivered_rps = lambda;
        out->feasible = out->concurrency <= c->max_sequences;
        out->overloaded = !out->feasible;
}

double serving_load_replica_max_rate(const struct serving_config *c,
                                     const struct serving_traffic *t)
{
        struct serving_load l;
        double lo = 0, hi = c->prefill_s > 0 ? 1.0 / c->prefill_s : 1;

        for (int i = 0; i < 30; i++) {
                serving_load_replica(c, t, hi, &l);
                if (!l.feasible)
                        break;
                lo = hi;
                hi *= 2;
        }
        for (int i = 0; i < 30; i++) {
                double mid = (lo + hi) / 2;
                serving_load_replica(c, t, mid, &l);
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
/*
 * One closed-loop user: its next request arrives as the last one ends, so
 * the replica is idle each time (no wait for a scheduling point, no
 * prefill queue): TTFT = front end + one pass over the prompt, TPOT = the
 * decode iteration of one sequence, and the loop runs at
 * 1 / (TTFT + (G - 1) TPOT).
 *
 * Several users with fixed lengths can stay in lockstep (started
 * together, first tokens in the same iteration, ends in the same
 * iteration, so the next prompts arrive as one wave).  Published
 * measurements disagree on it: NVIDIA's NIM table for Llama 3.3 70B on two
 * H100s does not show it (at concurrency 5 the mean TTFT is 57-79 ms above
 * the single user's for prompts of 200, 500 and 1,000 tokens alike, where
 * a wave would add the other four prompts' prefill, 60-330 ms;
 * docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance.md), its Llama
 * 3.1 8B table partly, and the NIM runs of tests/data/serving_nim_course.json
 * mostly do (docs/serving.md, "Bursts" and "Known misses").  Traffic that
 * neither starts together nor keeps fixed lengths disperses, so n > 1
 * users go to the arrival-rate model below, and the burst is reported
 * beside it (closed_loop_burst).
 */
static bool closed_loop_single_user(const struct serving_config *c, const struct serving_traffic *t,
                              double users, struct serving_load *out)
{
        const struct serving_engine *e = &c->step.engine;
        double P = t->prompt_tokens, G = t->output_tokens > 1 ? t->output_tokens : 1;
        double budget = e->max_batched_tokens ? e->max_batched_tokens : 8192;
        double k = e->scheduler_steps ? e->scheduler_steps : 1;

        if (users > 1 || t->lengths == SERVING_LENGTHS_EXPONENTIAL || users * P > budget ||
            users > c->max_sequences)
                return false;
        double pass = serving_step_seconds(&c->step, 0, 0, users * P, P / 2);
        double T = serving_load_decode_step(c, users, P + G / 2);
        double ttft = e->frontend_seconds + pass;
        double cycle = ttft + (G - 1) * T;
        if (!(pass > 0) || !(T > 0) || !(cycle > 0))
                return false;
        memset(out, 0, sizeof(*out));
        out->feasible = true;
        out->offered_rps = out->delivered_rps = users / cycle;
        out->concurrency = users;
        out->ttft_p50_s = out->ttft_p95_s = out->ttft_p99_s = out->ttft_mean_s = ttft;
        out->tpot_s = out->tpot_p50_s = out->tpot_p99_s = T;
        out->itl_burst_tokens = k;
        out->itl_p50_s = out->itl_p99_s = k * T;
        out->e2e_p50_s = out->e2e_p99_s = cycle;
        out->step_s = T;
        out->prefill_utilisation = pass / cycle;
        return true;
}

/*
 * A burst: every user of a closed loop sends at once to an idle replica.
 * Benchmarks open that way (perf_analyzer's concurrency mode sends on
 * every free context, all of them free at the start, and genai-perf sends
 * no warm-up by default: triton-inference-server/perf_analyzer,
 * src/concurrency_worker.cc at 263c5f6e; genai-perf's config_defaults.py,
 * WARMUP_REQUEST_COUNT = 0), and so do batch jobs and clients reconnecting
 * after a restart.  With fixed lengths the requests that start together
 * also end together and may come back as a wave again; how long such waves
 * last is not modelled (docs/serving.md, "Known misses"), so this is the
 * figure for the burst itself, beside the steady state's.
 *
 * The engine takes the waiting prompts first come first served
 * (TensorRT-LLM's in-flight batching scheduler, NVIDIA/TensorRT-LLM
 * docs/source/features/paged-attention-ifb-scheduler.md; vLLM's and
 * SGLang's waiting queues).  Chunked prefill: each iteration carries the
 * decodes of the prompts already done plus prompt tokens up to the
 * batched-token budget, the last prompt split; a prompt's first token
 * comes with the iteration that takes its last chunk.  Prefill first:
 * passes of whole prompts up to the budget (at least one), decodes
 * waiting.  Users past the running-sequence limit wait for a slot and are
 * not counted here.
 */
static void closed_loop_burst(const struct serving_config *c, const struct serving_traffic *t,
                              double users, struct serving_load *out)
{
        const struct serving_engine *e = &c->step.engine;
        double P = t->prompt_tokens;
        double budget = e->max_batched_tokens ? e->max_batched_tokens : 8192;
        double n = floor(fmin(users, (double)c->max_sequences));
        double now = 0, sum = 0, started = 0;

        if (!(n >= 2) || !(P >= 1))
                return;
        if (e->prefill == SERVING_PREFILL_MIXED) {
                double left = P; /* of the prompt at the head of the queue */
                while (started < n) {
                        double room = fmax(budget - started, 1), chunk = 0, first = 0;
                        if (left > room) {
                                /* The head prompt fills whole iterations alone
                                 * until what is left of it fits one: the same
                                 * iteration, k times. */
                                double k = ceil(left / room) - 1;
                                double T = serving_step_seconds(&c->step, started, P, room, P / 2);
                                if (!(T > 0))
                                        return;
                                now += k * T;
                                left -= k * room;
                        }
                        while (started + first < n && chunk < room) {
                                double take = fmin(left, room - chunk);
                                chunk += take;
                                left -= take;
                                if (left > 0)
                                        break;
                                first++;
                                left = P;
                        }
                        double T = serving_step_seconds(&c->step, started, P, chunk, P / 2);
                        if (!(T > 0))
                                return;
                        now += T;
                        sum += first * now;
                        started += first;
                }
        } else {
                double per_pass = fmax(floor(budget / P), 1);
                while (started < n) {
                        double k = fmin(per_pass, n - started);
                        double T = serving_step_seconds(&c->step, 0, 0, k * P, P / 2);
                        if (!(T > 0))
                                return;
                        now += T;
                        sum += k * now;
                        started += k;
                }
        }
        out->ttft_burst_mean_s = e->frontend_seconds + sum / n;
        out->ttft_burst_max_s = e->frontend_seconds + now;
}

static void serving_load_replica_closed_steady(const struct serving_config *c,
                                               const struct serving_traffic *t, double users,
                                               struct serving_load *out)
{
        double G = t->output_tokens > 1 ? t->output_tokens : 1;
        double lmax = serving_load_replica_max_rate(c, t) * (1 - 1e-6);
        double lo = 0, hi = lmax;
        struct serving_load l;

        serving_load_replica(c, t, lmax, &l);
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
                out->concurrency = users;
                out->overloaded = true;
                out->feasible = true;
                return;
        }
        for (int i = 0; i < 60; i++) {
                double mid = (lo + hi) / 2;
                serving_load_replica(c, t, mid, &l);
                double n = mid * (l.ttft_mean_s + (G - 1) * l.tpot_s);
                if (l.feasible && n < users)
                        lo = mid;
                else
                        hi = mid;
        }
        serving_load_replica(c, t, lo, out);
}

void serving_load_replica_closed(const struct serving_config *c, const struct serving_traffic *t,
                                 double users, struct serving_load *out)
{
        if (closed_loop_single_user(c, t, users, out))
                return;
        serving_load_replica_closed_steady(c, t, users, out);
        closed_loop_burst(c, t, users, out);
}

bool serving_load_meets(const struct serving_load *l, const struct serving_slo *slo)
{
        if (!l->feasible)
                return false;
        if (slo->ttft_p50_s > 0 && l->ttft_p50_s > slo->ttft_p50_s)
                return false;
        if (slo->ttft_p95_s > 0 && l->ttft_p95_s > slo->ttft_p95_s)
                return false;
        if (slo->tpot_s > 0 && l->tpot_s > slo->tpot_s)
                return false;
        if (slo->ttft_p99_s > 0 && l->ttft_p99_s > slo->ttft_p99_s)
                return false;
        if (slo->itl_p99_s > 0 && l->itl_p99_s > slo->itl_p99_s)
                return false;
        return true;
}
