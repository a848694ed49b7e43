/*
 * rent_vs_buy.c - renting against owning; see rent_vs_buy.h.
 *
 * The model (every figure from the catalog snapshot or the request):
 *
 *   hours/month     = jobs/week x hours/job x (hours_per_month / 168)
 *                     (weeks per month = 730 / 168 = 4.35; 730 = 8760 / 12)
 *   rent/month      = rent usd/hour x hours/month, where rent usd/hour is
 *                     instances x instance usd/hour (basis instance: a job
 *                     pays for whole instances) or gpus x the instance's
 *                     usd per GPU-hour (basis per_gpu)
 *   owning n GPUs   (n = instances x GPUs per instance for basis instance,
 *                     the same GPUs on both sides; n = gpus for per_gpu):
 *     capex         = boards x purchase usd + n x server_usd_per_gpu
 *     fixed/month   = capex x (1 - resale_fraction) / (life_years x 12)
 *                     + n x (TDP + host_watts_per_gpu) / 1000
 *                       x hosting_usd_per_kw_month   (provisioned power)
 *     energy/hour   = n x (TDP x owned_utilisation + host_watts_per_gpu)
 *                     x PUE / 1000 x usd/kWh         (while a job runs)
 *     own/month     = fixed + energy/hour x hours/month
 *   break-even      = fixed / (rent usd/hour - energy usd/hour) hours/month,
 *                     none when renting costs no more per hour than the
 *                     electricity an owned machine burns.
 *
 * Straight-line amortisation; no financing or staff time (the API states
 * this in "assumptions").  The board count follows the vendor's
 * packaging: a purchase price is per board, and a K80 board holds two
 * schedulable GK210 chips (NVIDIA Tesla K80 datasheet, 2014).
 *
 * When no offering rents the exact variant asked for (no A100 PCIe 40GB is
 * rented anywhere in the catalog), the rent side lists the offerings of
 * the same family instead (every A100), so the answer is an A100 answer
 * rather than none at all.
 */
#include "plan/rent_vs_buy.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Following the catalog's id scheme ("<model>[-<form factor>][-<size>gb]",
 * migration 0002): "a100-sxm-40gb" -> "a100", "h100-nvl-94gb" -> "h100",
 * "v100-sxm2-16gb" -> "v100", while "rtx-3090", "a10g" and "l40s" are
 * families of their own.
 */
void plan_rent_vs_buy_gpu_family(const char *id, char *out, size_t len)
{
        size_t used = 0;

        out[0] = '\0';
        while (*id) {
                size_t seg = strcspn(id, "-"), digits = 0;
                bool drop;

                while (digits < seg && isdigit((unsigned char)id[digits]))
                        digits++;
                drop = (seg == 4 && strncmp(id, "pcie", 4) == 0) ||
                       (seg >= 3 && strncmp(id, "sxm", 3) == 0) ||
                       (seg == 3 && strncmp(id, "nvl", 3) == 0) ||
                       (digits > 0 && seg == digits + 2 && strncmp(id + digits, "gb", 2) == 0);
                if (!drop && used + seg + 2 <= len) {
                        if (used)
                                out[used++] = '-';
                        memcpy(out + used, id, seg);
                        used += seg;
                        out[used] = '\0';
                }
                id += seg;
                if (*id == '-')
                        id++;
        }
}

const struct catalog_purchase_price *
plan_rent_vs_buy_purchase(const struct catalog_snapshot *s, size_t gpu_index, const char *condition)
{
        size_t n;
        const struct catalog_purchase_price *all = catalog_purchase_prices(s, &n), *pp = NULL;

        /* The first row of the GPU, replaced by any "new" row (new before used). */
        for (size_t i = 0; i < n; i++) {
                if (all[i].gpu_index != gpu_index)
                        continue;
                if (condition && strcmp(condition, all[i].condition) != 0)
                        continue;
                if (!pp || strcmp(all[i].condition, "new") == 0)
                        pp = &all[i];
        }
        return pp;
}

static bool provider_listed(const struct plan_rvb_input *in, const char *provider)
{
        if (!in->providers)
                return true;
        for (size_t i = 0; i < in->n_providers; i++)
                if (strcmp(in->providers[i], provider) == 0)
                        return true;
        return false;
}

void plan_rent_vs_buy_own(const struct catalog_snapshot *s, const struct plan_rvb_input *in,
                          uint32_t gpus, struct plan_rvb_own *out)
{
        size_t n;
        const struct gpu_spec *g = &catalog_gpus(s, &n)[in->buy_gpu_index];
        const struct catalog_gpu_info *info = &catalog_gpu_infos(s, &n)[in->buy_gpu_index];
        int chips = info->chips_per_board > 0 ? info->chips_per_board : 1;
        double pue = in->pue > 0 ? in->pue : 1;

        memset(out, 0, sizeof(*out));
        out->gpus = gpus;
        out->boards = ceil((double)gpus / chips);
        out->capex_usd = out->boards * in->purchase_usd + gpus * in->server_usd_per_gpu;
        out->amortised_monthly_usd =
                out->capex_usd * (1 - in->resale_fraction) / (in->life_years * 12);
        out->hosting_monthly_usd =
                gpus * (g->tdp_watts + in->host_watts_per_gpu) / 1000 * in->hosting_usd_per_kw_month;
        out->fixed_monthly_usd = out->amortised_monthly_usd + out->hosting_monthly_usd;
        out->power_watts = gpus * (g->tdp_watts * in->utilisation + in->host_watts_per_gpu) * pue;
        out->energy_usd_per_hour = out->power_watts / 1000 * in->electricity_usd_per_kwh;
}

void plan_rent_vs_buy_result_free(struct plan_rvb_result *r)
{
        free(r->rent);
        r->rent = NULL;
        r->n_rent = 0;
}

int plan_rent_vs_buy_compute(const struct catalog_snapshot *s, const struct plan_rvb_input *in,
                             struct plan_rvb_result *out)
{
        size_t n, n_off;
        const struct gpu_spec *gpus = catalog_gpus(s, &n);
        const struct gpu_spec *rent_gpu = &gpus[in->rent_gpu_index];
        const struct catalog_offering *off = catalog_offerings(s, &n_off);
        struct plan_price_pick *picks = NULL;
        double best = HUGE_VAL;

        memset(out, 0, sizeof(*out));
        out->series_row = SIZE_MAX;
        out->rent = calloc(n_off + 1, sizeof(*out->rent));
        if (in->prices)
                picks = plan_price_pick_all(s, in->prices);
        if (!out->rent || (in->prices && !picks)) {
                free(out->rent);
                out->rent = NULL;
                free(picks);
                return -1;
        }
        for (int i = 0; i < 2; i++)
                out->hours_per_month[i] = in->jobs_per_week[i] * in->hours_per_job[i] *
                                          in->hours_per_month / PLAN_RVB_HOURS_PER_WEEK;
        plan_rent_vs_buy_own(s, in, in->gpus, &out->own);
        out->boards = out->own.boards;
        out->amortised_monthly_usd = out->own.fixed_monthly_usd;
        out->power_watts = out->own.power_watts;
        out->energy_usd_per_hour = out->own.energy_usd_per_hour;
        for (int i = 0; i < 2; i++)
                out->own_monthly_usd[i] = out->own.fixed_monthly_usd +
                                          out->own.energy_usd_per_hour * out->hours_per_month[i];

        plan_rent_vs_buy_gpu_family(rent_gpu->id, out->family, sizeof(out->family));
        /* Pass 0: the exact variant; pass 1, only if pass 0 found none: its family. */
        for (int pass = 0; pass < 2 && out->n_rent == 0; pass++)
                for (size_t i = 0; i < n_off; i++) {
                        const struct catalog_price *p;
                        struct plan_rvb_rent *r;
                        char member[GPU_ID_MAX];
                        uint32_t owned;

                        if (pass == 0 && strcmp(off[i].accelerator_id, rent_gpu->id) != 0)
                                continue;
                        if (pass == 1) {
                                plan_rent_vs_buy_gpu_family(off[i].accelerator_id, member,
                                                            sizeof(member));
                                if (strcmp(member, out->family) != 0)
                                        continue;
                        }
                        p = picks ? picks[i].price : catalog_price(s, off[i].id, in->pricing);
                        if (!provider_listed(in, off[i].provider_id) || !p)
                                continue;
                        r = &out->rent[out->n_rent++];
                        r->offering_index = i;
                        r->price = p;
                        r->family = pass == 1;
                        r->instances = ceil((double)in->gpus / off[i].gpus_per_instance);
                        r->usd_per_gpu_hour = p->usd_per_hour / off[i].gpus_per_instance;
                        if (in->basis == PLAN_RVB_PER_GPU) {
                                r->usd_per_hour = in->gpus * r->usd_per_gpu_hour;
                                owned = in->gpus;
                        } else {
                                r->usd_per_hour = r->instances * p->usd_per_hour;
                                owned = (uint32_t)r->instances * (uint32_t)off[i].gpus_per_instance;
                        }
                        plan_rent_vs_buy_own(s, in, owned, &r->own);
                        r->break_even_hours_per_month =
                                r->usd_per_hour > r->own.energy_usd_per_hour
                                        ? r->own.fixed_monthly_usd /
                                                  (r->usd_per_hour - r->own.energy_usd_per_hour)
                                        : -1;
                        for (int k = 0; k < 2; k++) {
                                r->monthly_usd[k] = r->usd_per_hour * out->hours_per_month[k];
                                r->own_monthly_usd[k] =
                                        r->own.fixed_monthly_usd +
                                        r->own.energy_usd_per_hour * out->hours_per_month[k];
                                r->rent_cheaper[k] = r->monthly_usd[k] <= r->own_monthly_usd[k];
                        }
                        if (r->usd_per_gpu_hour < best) {
                                best = r->usd_per_gpu_hour;
                                out->series_row = out->n_rent - 1;
                        }
                }
        /* Monthly cost of each side against utilisation, for the cheapest row per GPU-hour. */
        if (out->series_row != SIZE_MAX) {
                const struct plan_rvb_rent *r = &out->rent[out->series_row];

                for (int k = 0; k < PLAN_RVB_SERIES_POINTS; k++) {
                        double u = (k + 1.0) / PLAN_RVB_SERIES_POINTS;
                        double hours = u * in->hours_per_month;

                        out->series_utilisation[k] = u;
                        out->series_rent_usd[k] = r->usd_per_hour * hours;
                        out->series_own_usd[k] =
                                r->own.fixed_monthly_usd + r->own.energy_usd_per_hour * hours;
                }
        }
        free(picks);
        return 0;
}
