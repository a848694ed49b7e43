/*
 * gcp_hosts.c - see gcp_hosts.h.  The tables below restate
 * _ACC_INSTANCE_TYPE_DICTS, _DEFAULT_HOST_VM_FAMILY, _NUM_ACC_TO_NUM_CPU
 * and _DEFAULT_GPU_MEMORY_CPU_RATIO of sky/catalog/gcp_catalog.py
 * (skypilot-org/skypilot, commit b9dd08e76883122c8b3d158992c1c9472e4485d4).
 */
#include "db/gcp_hosts.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_BYTES 64

struct gcp_hosts_vm {
        char instance_type[NAME_MAX_BYTES];
        char region[NAME_MAX_BYTES];
        char zone[NAME_MAX_BYTES];
        double vcpus, memory_gib, usd, spot;
};

struct gcp_hosts_gpu {
        char accelerator[NAME_MAX_BYTES];
        char region[NAME_MAX_BYTES];
        char zone[NAME_MAX_BYTES];
        unsigned line, count;
        double usd, spot;
};

/* GPUs that attach only to their own machine types: name, count, the types. */
static const struct {
        const char *accelerator;
        unsigned count;
        const char *types[5];
} fixed_hosts[] = {
        {"A100", 1, {"a2-highgpu-1g"}},
        {"A100", 2, {"a2-highgpu-2g"}},
        {"A100", 4, {"a2-highgpu-4g"}},
        {"A100", 8, {"a2-highgpu-8g"}},
        {"A100", 16, {"a2-megagpu-16g"}},
        {"A100-80GB", 1, {"a2-ultragpu-1g"}},
        {"A100-80GB", 2, {"a2-ultragpu-2g"}},
        {"A100-80GB", 4, {"a2-ultragpu-4g"}},
        {"A100-80GB", 8, {"a2-ultragpu-8g"}},
        {"L4", 1, {"g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16",
                   "g2-standard-32"}},
        {"L4", 2, {"g2-standard-24"}},
        {"L4", 4, {"g2-standard-48"}},
        {"L4", 8, {"g2-standard-96"}},
        {"H100", 1, {"a3-highgpu-1g"}},
        {"H100", 2, {"a3-highgpu-2g"}},
        {"H100", 4, {"a3-highgpu-4g"}},
        {"H100", 8, {"a3-highgpu-8g"}},
        {"H100-MEGA", 8, {"a3-megagpu-8g"}},
        {"H200", 8, {"a3-ultragpu-8g"}},
        {"B200", 8, {"a4-highgpu-8g"}},
};

/* N1 hosts: vCPUs per GPU count, "based on the AWS setting" (p2, p3, g4dn). */
static const struct {
        const char *accelerator; /* NULL: every other GPU (SkyPilot's 'DEFAULT') */
        unsigned count, vcpus;
} n1_vcpus[] = {
        {"K80", 1, 4},   {"K80", 2, 8},    {"K80", 4, 16},   {"K80", 8, 32}, {"K80", 16, 64},
        {"V100", 1, 8},  {"V100", 2, 16},  {"V100", 4, 32},  {"V100", 8, 64}, {"T4", 1, 4},
        {"T4", 2, 8},    {"T4", 4, 48},    {"P100", 1, 8},   {"P100", 2, 16}, {"P100", 4, 32},
        {"P100", 8, 64}, {NULL, 1, 8},     {NULL, 2, 16},    {NULL, 4, 32},   {NULL, 8, 64},
        {NULL, 16, 128},
};

static const char *const n1_families[] = {"n1-standard", "n1-highmem", "n1-highcpu"};

/* _DEFAULT_GPU_MEMORY_CPU_RATIO: at least 4 GiB of host memory per vCPU asked for. */
#define N1_GIB_PER_VCPU 4.0

static bool is_fixed_host(const char *type)
{
        for (size_t i = 0; i < sizeof(fixed_hosts) / sizeof(fixed_hosts[0]); i++)
                for (size_t k = 0; k < 5 && fixed_hosts[i].types[k]; k++)
                        if (strcmp(fixed_hosts[i].types[k], type) == 0)
                                return true;
        return false;
}

/* pandas' str.startswith(tuple): the family name is a prefix, nothing more. */
static bool is_n1_host(const char *type)
{
        for (size_t i = 0; i < sizeof(n1_families) / sizeof(n1_families[0]); i++)
                if (strncmp(type, n1_families[i], strlen(n1_families[i])) == 0)
                        return true;
        return false;
}

static bool is_fixed_gpu(const char *accelerator)
{
        for (size_t i = 0; i < sizeof(fixed_hosts) / sizeof(fixed_hosts[0]); i++)
                if (strcmp(fixed_hosts[i].accelerator, accelerator) == 0)
                        return true;
        return false;
}

/* The vCPUs an N1 host needs for count GPUs; 0 when SkyPilot has no entry. */
static unsigned n1_needed_vcpus(const char *accelerator, unsigned count)
{
        bool named = false;

        for (size_t i = 0; i < sizeof(n1_vcpus) / sizeof(n1_vcpus[0]); i++)
                if (n1_vcpus[i].accelerator && strcmp(n1_vcpus[i].accelerator, accelerator) == 0)
                        named = true;
        for (size_t i = 0; i < sizeof(n1_vcpus) / sizeof(n1_vcpus[0]); i++) {
                const char *a = n1_vcpus[i].accelerator;

                if (n1_vcpus[i].count == count &&
                    (named ? a && strcmp(a, accelerator) == 0 : a == NULL))
                        return n1_vcpus[i].vcpus;
        }
        return 0;
}

static int copy_name(char *dst, const char *src)
{
        size_t n = strlen(src);

        if (n >= NAME_MAX_BYTES)
                return -1;
        memcpy(dst, src, n + 1);
        return 0;
}

void gcp_hosts_init(struct gcp_hosts *h)
{
        memset(h, 0, sizeof(*h));
}

void gcp_hosts_free(struct gcp_hosts *h)
{
        free(h->vms);
        free(h->gpus);
        gcp_hosts_init(h);
}

static int reserve(void **items, size_t *cap, size_t n, size_t size)
{
        size_t next;
        void *p;

        if (n < *cap)
                return 0;
        next = *cap ? *cap * 2 : 64;
        if (next > ((size_t)1 << 22))
                return -1;
        p = realloc(*items, next * size);
        if (!p)
                return -1;
        *items = p;
        *cap = next;
        return 0;
}

int gcp_hosts_add(struct gcp_hosts *h, const struct skypilot_row *r)
{
        if (!*r->region || !*r->zone)
                return 0;
        if (!*r->accelerator && *r->instance_type &&
            (is_fixed_host(r->instance_type) || is_n1_host(r->instance_type))) {
                struct gcp_hosts_vm *v;

                if (reserve((void **)&h->vms, &h->cap_vms, h->n_vms, sizeof(*h->vms)))
                        return -1;
                v = &h->vms[h->n_vms];
                if (copy_name(v->instance_type, r->instance_type) ||
                    copy_name(v->region, r->region) || copy_name(v->zone, r->zone))
                        return -1;
                v->vcpus = r->vcpus;
                v->memory_gib = r->memory_gib;
                v->usd = r->usd_per_hour;
                v->spot = r->spot_usd_per_hour;
                h->n_vms++;
                return 0;
        }
        if (*r->accelerator && !*r->instance_type && strncmp(r->accelerator, "tpu-", 4) != 0) {
                struct gcp_hosts_gpu *g;

                if (reserve((void **)&h->gpus, &h->cap_gpus, h->n_gpus, sizeof(*h->gpus)))
                        return -1;
                g = &h->gpus[h->n_gpus];
                if (copy_name(g->accelerator, r->accelerator) ||
                    copy_name(g->region, r->region) || copy_name(g->zone, r->zone))
                        return -1;
                g->line = r->line;
                g->count = r->accelerators;
                g->usd = r->usd_per_hour;
                g->spot = r->spot_usd_per_hour;
                h->n_gpus++;
        }
        return 0;
}

/* What a GPU row asks of its host, worked out once per GPU row. */
struct host_need {
        bool fixed;      /* one of fixed_hosts' GPUs: the machine type must match */
        unsigned vcpus;  /* else: the N1 vCPUs needed (0: SkyPilot has no entry) */
};

static bool vm_fits(const struct gcp_hosts_vm *v, const struct gcp_hosts_gpu *g,
                    const struct host_need *need)
{
        if (v->usd < 0 || strcasecmp(v->zone, g->zone) != 0 ||
            strcasecmp(v->region, g->region) != 0)
                return false;
        if (need->fixed) {
                for (size_t i = 0; i < sizeof(fixed_hosts) / sizeof(fixed_hosts[0]); i++) {
                        if (fixed_hosts[i].count != g->count ||
                            strcmp(fixed_hosts[i].accelerator, g->accelerator) != 0)
                                continue;
                        for (size_t k = 0; k < 5 && fixed_hosts[i].types[k]; k++)
                                if (strcmp(fixed_hosts[i].types[k], v->instance_type) == 0)
                                        return true;
                }
                return false;
        }
        return need->vcpus && is_n1_host(v->instance_type) && v->vcpus >= (double)need->vcpus &&
               v->memory_gib >= (double)need->vcpus * N1_GIB_PER_VCPU;
}

int gcp_hosts_join(const struct gcp_hosts *h, skypilot_row_fn fn, void *ctx, unsigned *joined,
                   unsigned *no_host)
{
        *joined = *no_host = 0;
        for (size_t i = 0; i < h->n_gpus; i++) {
                const struct gcp_hosts_gpu *g = &h->gpus[i];
                const struct gcp_hosts_vm *best = NULL;
                struct host_need need;
                char label[2 * NAME_MAX_BYTES + 32];
                struct skypilot_row row;
                int rc;

                if (g->usd < 0) { /* SkyPilot drops rows without a Price */
                        (*no_host)++;
                        continue;
                }
                need.fixed = is_fixed_gpu(g->accelerator);
                need.vcpus = need.fixed ? 0 : n1_needed_vcpus(g->accelerator, g->count);
                for (size_t k = 0; k < h->n_vms; k++)
                        if (vm_fits(&h->vms[k], g, &need) && (!best || h->vms[k].usd < best->usd))
                                best = &h->vms[k];
                if (!best) {
                        (*no_host)++;
                        continue;
                }
                if (need.fixed)
                        snprintf(label, sizeof(label), "%s", best->instance_type);
                else
                        snprintf(label, sizeof(label), "%s with %ux %s", best->instance_type,
                                 g->count, g->accelerator);
                memset(&row, 0, sizeof(row));
                row.line = g->line;
                row.instance_type = label;
                row.accelerator = g->accelerator;
                row.accelerators = g->count;
                row.vcpus = best->vcpus;
                row.memory_gib = best->memory_gib;
                /* total cost = host VM + GPU (list_accelerators: Price + Price_host). */
                row.usd_per_hour = g->usd + best->usd;
                row.spot_usd_per_hour =
                        g->spot >= 0 && best->spot >= 0 ? g->spot + best->spot : -1.0;
                row.region = g->region;
                row.zone = g->zone;
                rc = fn(ctx, &row);
                if (rc)
                        return rc;
                (*joined)++;
        }
        return 0;
}
