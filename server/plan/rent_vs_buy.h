/*
 * rent_vs_buy.h - renting GPUs by the hour against owning them, for a
 * usage pattern given as jobs per week x hours per job (each a [low, high]
 * range): the monthly cloud cost of every priced offering of a GPU, the
 * monthly cost of owning, and the break-even usage.  The arithmetic behind
 * POST /api/v1/rent_vs_buy; server/api/rent_vs_buy.c translates JSON and
 * resolves the settings (request, then catalog, then the defaults below).
 *
 * Memory: plan_rent_vs_buy_compute() allocates result->rent; free it with
 * plan_rent_vs_buy_result_free().  Offering and price pointers borrow from the
 * snapshot, which must outlive the result; provider ids are borrowed from
 * the caller for the duration of the call.
 *
 * Thread-safety: no state is kept between calls.
 */
#ifndef GPUPLAN_PLAN_RENT_VS_BUY_H
#define GPUPLAN_PLAN_RENT_VS_BUY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "plan/price_pick.h"

/* Fallbacks for settings neither the request nor the catalog gives. */
#define PLAN_RVB_DEFAULT_LIFE_YEARS      3.0
#define PLAN_RVB_DEFAULT_UTILISATION     0.8
#define PLAN_RVB_DEFAULT_HOURS_PER_MONTH 730.0 /* 8760 h / 12 */
#define PLAN_RVB_HOURS_PER_WEEK          168.0
#define PLAN_RVB_SERIES_POINTS           20 /* utilisation 5%, 10%, ... 100% */

/* How the two sides are made comparable. */
enum plan_rvb_basis {
        PLAN_RVB_INSTANCE = 0, /* own as many GPUs as the instances rented (8-GPU box vs 8 owned) */
        PLAN_RVB_PER_GPU,      /* rent gpus x the instance's price per GPU-hour vs own gpus */
};

struct plan_rvb_input {
        size_t rent_gpu_index;        /* into catalog_gpus(): the GPU rented */
        size_t buy_gpu_index;         /* into catalog_gpus(): the GPU bought */
        uint32_t gpus;                /* GPUs a job uses, >= 1 */
        double jobs_per_week[2];      /* low, high */
        double hours_per_job[2];      /* low, high */
        double hours_per_month;       /* calendar hours in a month, > 0 */
        enum catalog_pricing pricing; /* which stored rent prices */
        const char *const *providers; /* only these providers' offerings; NULL = every one */
        size_t n_providers;
        double purchase_usd; /* per board, > 0 */
        double electricity_usd_per_kwh;
        double life_years;          /* straight-line amortisation period, > 0 */
        double utilisation;         /* average board power / TDP while a job runs */
        double pue;                 /* facility watts / IT watts; 0 = 1 */
        double server_usd_per_gpu;  /* chassis, CPUs, memory, networking per GPU slot */
        double host_watts_per_gpu;  /* the server's own draw (CPUs, NICs, fans) per GPU */
        double hosting_usd_per_kw_month; /* colocation, per kW provisioned */
        double resale_fraction;     /* share of the purchase recovered at the end of life, 0..1 */
        enum plan_rvb_basis basis;
        const struct plan_price_rules *prices; /* which quotes may be used; NULL = every current one */
};

/* The cost of owning n GPUs (plan_rent_vs_buy_own()). */
struct plan_rvb_own {
        uint32_t gpus;
        double boards;
        double capex_usd;             /* boards x purchase + gpus x server_usd_per_gpu */
        double amortised_monthly_usd; /* capex x (1 - resale) / (life x 12) */
        double hosting_monthly_usd;   /* provisioned kW x hosting_usd_per_kw_month */
        double fixed_monthly_usd;     /* amortised + hosting: paid whether or not a job runs */
        double power_watts;           /* at the wall while a job runs */
        double energy_usd_per_hour;
};

/* One offering that rents the GPU (or, failing any, one of its family). */
struct plan_rvb_rent {
        size_t offering_index; /* into catalog_offerings() */
        const struct catalog_price *price;
        bool family;                       /* rents a sibling of the GPU asked for */
        double instances;                  /* whole instances a job pays for */
        double usd_per_hour;               /* instances x instance price */
        double usd_per_gpu_hour;           /* instance price / gpus_per_instance */
        double monthly_usd[2];             /* at the low and high usage */
        double break_even_hours_per_month; /* < 0: renting never costs more */
        bool rent_cheaper[2];              /* renting costs no more than owning, low and high */
        struct plan_rvb_own own;           /* owning what this row rents (see basis) */
        double own_monthly_usd[2];         /* low and high */
};

struct plan_rvb_result {
        double hours_per_month[2];    /* usage, low and high */
        struct plan_rvb_own own;      /* owning in.gpus GPUs */
        double boards;                /* own.boards (K80: two GPUs per board) */
        double amortised_monthly_usd; /* own.fixed_monthly_usd: amortisation + hosting */
        double power_watts;           /* own.power_watts */
        double energy_usd_per_hour;   /* own.energy_usd_per_hour */
        double own_monthly_usd[2];  /* low and high */
        /* Monthly cost against utilisation (share of hours_per_month in use) for the row
         * with the lowest price per GPU-hour; series_row = SIZE_MAX when there is none. */
        size_t series_row;
        double series_utilisation[PLAN_RVB_SERIES_POINTS];
        double series_rent_usd[PLAN_RVB_SERIES_POINTS];
        double series_own_usd[PLAN_RVB_SERIES_POINTS];
        char family[GPU_ID_MAX];    /* the rented GPU's family, see plan_rent_vs_buy_gpu_family() */
        struct plan_rvb_rent *rent; /* exact matches in catalog order, else the family's */
        size_t n_rent;
};

/*
 * The family of an accelerator id: the id without its form-factor and
 * memory-size segments ("a100-sxm-40gb" -> "a100").  Writes at most len
 * bytes, NUL-terminated.
 */
void plan_rent_vs_buy_gpu_family(const char *id, char *out, size_t len);

/*
 * The stored purchase price of the GPU at catalog_gpus()[gpu_index] in the
 * given condition ("new", "used"; NULL = either, new preferred), or NULL.
 */
const struct catalog_purchase_price *plan_rent_vs_buy_purchase(const struct catalog_snapshot *s,
                                                               size_t gpu_index,
                                                               const char *condition);

/* The monthly cost of owning gpus GPUs of in's buy GPU (chips_per_board of its board). */
void plan_rent_vs_buy_own(const struct catalog_snapshot *s, const struct plan_rvb_input *in,
                          uint32_t gpus, struct plan_rvb_own *out);

/*
 * Rent against own for in.  The buy GPU must have a TDP (tdp_watts > 0).
 * Returns 0, or -1 when out of memory (out is then empty).
 */
int plan_rent_vs_buy_compute(const struct catalog_snapshot *s, const struct plan_rvb_input *in,
                             struct plan_rvb_result *out);
void plan_rent_vs_buy_result_free(struct plan_rvb_result *r);

#endif
