/*
 * gcp_hosts.h - price GCP's GPUs together with the VM they attach to.
 *
 * GCP's rows in SkyPilot's vms.csv list a GPU's price on a row of its own
 * (no instance type; Price and SpotPrice for AcceleratorCount GPUs) and
 * the VMs on GPU-less rows.  A rentable offering is a GPU row joined to a
 * host VM in the same zone, priced at the sum of the two rows.  The host
 * is chosen as SkyPilot's list_accelerators() does
 * (sky/catalog/gcp_catalog.py in skypilot-org/skypilot, commit
 * b9dd08e76883122c8b3d158992c1c9472e4485d4, _get_host_instance_type):
 *   - A100, A100-80GB, L4, H100, H100-MEGA, H200 and B200 attach only to
 *     their own machine types (a2-highgpu-1g for one A100, ...);
 *   - any other GPU attaches to an N1 VM (n1-standard, n1-highmem,
 *     n1-highcpu) with at least the vCPUs of _NUM_ACC_TO_NUM_CPU for its
 *     count and 4 GiB of memory per such vCPU;
 *   - among the candidates in the zone with an on-demand price, the
 *     cheapest on demand, the first in file order on a tie.
 * TPU rows ("tpu-...") are not joined (SkyPilot keeps their price apart).
 *
 * Memory: a gcp_hosts copies what it keeps of each row and owns it until
 * gcp_hosts_free().  Thread-safety: none; one gcp_hosts per import.
 */
#ifndef GPUPLAN_DB_GCP_HOSTS_H
#define GPUPLAN_DB_GCP_HOSTS_H

#include <stddef.h>

#include "db/skypilot_csv.h"

struct gcp_hosts_vm;
struct gcp_hosts_gpu;

struct gcp_hosts {
        struct gcp_hosts_vm *vms; /* rows of machine types that can host a GPU */
        size_t n_vms, cap_vms;
        struct gcp_hosts_gpu *gpus; /* accelerator-only GPU rows */
        size_t n_gpus, cap_gpus;
};

void gcp_hosts_init(struct gcp_hosts *h);
void gcp_hosts_free(struct gcp_hosts *h);

/*
 * Keep r if it is a host VM row or an accelerator-only GPU row (other rows
 * are ignored).  Returns 0, or -1 when out of memory or a field is too long.
 */
int gcp_hosts_add(struct gcp_hosts *h, const struct skypilot_row *r);

/*
 * For each GPU row kept, in order, the row it makes with its host: instance
 * type "<host>" for a fixed machine type, "<host> with <N>x <GPU>" for an
 * N1 host (the same N1 type hosts several GPUs); the GPU row's line,
 * accelerator, count, region and zone; the host's vCPUs and memory; Price
 * and SpotPrice summed (no spot price when either row has none).  fn's
 * nonzero return stops the walk and is returned.  *joined counts the rows
 * passed to fn, *no_host the GPU rows without a host in their zone.
 */
int gcp_hosts_join(const struct gcp_hosts *h, skypilot_row_fn fn, void *ctx, unsigned *joined,
                   unsigned *no_host);

#endif
