/*
 * test_gcp_hosts.c - GCP's GPU rows joined to their host VM
 * (server/db/gcp_hosts.c), as SkyPilot's gcp_catalog.py chooses the host.
 *
 * Every row below is a line of catalogs/v8/gcp/vms.csv of
 * github.com/skypilot-org/skypilot-catalog at commit
 * 8427bbff988abdd050a9f51addd314ef31cb4e85, unchanged; the file has far
 * more rows (n1-highmem-4, for one, which would host one T4 more cheaply
 * than n1-standard-8 does here), so the expected hosts are those of this
 * subset.  Each expected price is worked by hand in its test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "db/gcp_hosts.h"
#include "db/skypilot_csv.h"

static const char gcp_rows[] =
        "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
        "AvailabilityZone,Price,SpotPrice\n"
        "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.73948,0.36975\n"
        "a2-highgpu-2g,24.0,170.0,,,,us-central1,us-central1-a,1.47895,0.7395\n"
        "a2-ultragpu-1g,12.0,170.0,,,,us-east4,us-east4-c,1.23833,0.47993\n"
        "a4-highgpu-8g,224.0,3968.0,,,,us-central1,us-central1-b,0.0,0.0\n"
        "n1-standard-4,4.0,15.0,,,,us-central1,us-central1-a,0.19,0.05802\n"
        "n1-standard-64,64.0,240.0,,,,us-central1,us-central1-a,3.03998,0.9284\n"
        "n1-standard-8,8.0,30.0,,,,us-central1,us-central1-a,0.38,0.11605\n"
        "n1-standard-8,8.0,30.0,,,,us-central1,us-central1-b,0.38,0.11605\n"
        "n1-ultramem-40,40.0,961.0,,,,us-central1,us-central1-a,5.3362,1.59806\n"
        "n2d-highcpu-32,32.0,32.0,,,,us-central1,us-central1-a,0.99802,0.20717\n"
        ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-central1,us-central1-a,"
        "2.93391,1.4341\n"
        ",,,A100-80GB,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]},us-east4,us-east4-c,"
        "2.07937,1.7697\n"
        ",,,B200,8,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 184320}}]},us-central1,us-central1-b,"
        "90.216,32.6064\n"
        ",,,H100-MEGA,8,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]},asia-northeast3,"
        "asia-northeast3-a,35.39149,\n"
        ",,,T4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},us-central1,us-central1-a,"
        "0.35,0.175\n"
        ",,,T4,2,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},us-central1,us-central1-a,"
        "0.7,0.35\n"
        ",,,tpu-v6e-1,1,tpu-v6e-1,us-central1,us-central1-a,2.7,0.57285\n";

#define OUT_MAX 8

struct joined {
        size_t n;
        char instance[OUT_MAX][160], accelerator[OUT_MAX][64], zone[OUT_MAX][64];
        unsigned count[OUT_MAX], line[OUT_MAX];
        double usd[OUT_MAX], spot[OUT_MAX], vcpus[OUT_MAX];
};

static int add(void *ctx, const struct skypilot_row *r)
{
        return gcp_hosts_add(ctx, r);
}

static int keep(void *ctx, const struct skypilot_row *r)
{
        struct joined *j = ctx;

        if (j->n == OUT_MAX)
                return 7;
        snprintf(j->instance[j->n], sizeof(j->instance[0]), "%s", r->instance_type);
        snprintf(j->accelerator[j->n], sizeof(j->accelerator[0]), "%s", r->accelerator);
        snprintf(j->zone[j->n], sizeof(j->zone[0]), "%s", r->zone);
        j->count[j->n] = r->accelerators;
        j->line[j->n] = r->line;
        j->usd[j->n] = r->usd_per_hour;
        j->spot[j->n] = r->spot_usd_per_hour;
        j->vcpus[j->n] = r->vcpus;
        j->n++;
        return 0;
}

static void join_rows(struct joined *j, unsigned *attached, unsigned *no_host)
{
        struct gcp_hosts h;
        char err[256];

        gcp_hosts_init(&h);
        memset(j, 0, sizeof(*j));
        assert_int_equal(skypilot_csv_parse(gcp_rows, sizeof(gcp_rows) - 1, add, &h, err,
                                            sizeof(err)),
                         0);
        assert_int_equal(gcp_hosts_join(&h, keep, j, attached, no_host), 0);
        gcp_hosts_free(&h);
}

static void test_fixed_machine_types(void **state)
{
        struct joined j;
        unsigned attached, no_host;

        (void)state;
        join_rows(&j, &attached, &no_host);
        /* A100, A100-80GB, B200, T4 x1, T4 x2 find a host; H100-MEGA finds none in
         * asia-northeast3-a (no a3-megagpu-8g row there); the TPU is not joined. */
        assert_int_equal(attached, 5);
        assert_int_equal(no_host, 1);
        assert_int_equal(j.n, 5);

        /* One A100 attaches to a2-highgpu-1g only (not a2-highgpu-2g in the same
         * zone): 2.93391 + 0.73948 = 3.67339 $/h; spot 1.4341 + 0.36975 = 1.80385. */
        assert_string_equal(j.instance[0], "a2-highgpu-1g");
        assert_string_equal(j.accelerator[0], "A100");
        assert_int_equal(j.count[0], 1);
        assert_int_equal(j.line[0], 12);
        assert_float_equal(j.usd[0], 3.67339, 1e-9);
        assert_float_equal(j.spot[0], 1.80385, 1e-9);
        assert_float_equal(j.vcpus[0], 12.0, 0);

        /* One A100-80GB in us-east4-c: a2-ultragpu-1g, 2.07937 + 1.23833 = 3.3177;
         * spot 1.7697 + 0.47993 = 2.24963. */
        assert_string_equal(j.instance[1], "a2-ultragpu-1g");
        assert_float_equal(j.usd[1], 3.3177, 1e-9);
        assert_float_equal(j.spot[1], 2.24963, 1e-9);

        /* Eight B200 on a4-highgpu-8g, whose row is priced 0.0: 90.216 + 0 = 90.216. */
        assert_string_equal(j.instance[2], "a4-highgpu-8g");
        assert_float_equal(j.usd[2], 90.216, 1e-9);
        assert_float_equal(j.spot[2], 32.6064, 1e-9);
}

static void test_n1_hosts(void **state)
{
        struct joined j;
        unsigned attached, no_host;

        (void)state;
        join_rows(&j, &attached, &no_host);
        /* One T4 needs 4 vCPUs and 4 x 4 = 16 GiB.  n1-standard-4 (15 GiB) is too
         * small, n1-ultramem-40 and n2d-highcpu-32 are not N1 standard/highmem/
         * highcpu; of n1-standard-8 (0.38) and n1-standard-64 (3.03998) the
         * cheaper: 0.35 + 0.38 = 0.73 $/h, spot 0.175 + 0.11605 = 0.29105. */
        assert_string_equal(j.instance[3], "n1-standard-8 with 1x T4");
        assert_string_equal(j.zone[3], "us-central1-a");
        assert_float_equal(j.usd[3], 0.73, 1e-9);
        assert_float_equal(j.spot[3], 0.29105, 1e-9);
        assert_float_equal(j.vcpus[3], 8.0, 0);

        /* Two T4 need 8 vCPUs and 32 GiB: n1-standard-8 (30 GiB) no longer fits,
         * n1-standard-64 does: 0.7 + 3.03998 = 3.73998, spot 0.35 + 0.9284 = 1.2784. */
        assert_string_equal(j.instance[4], "n1-standard-64 with 2x T4");
        assert_float_equal(j.usd[4], 3.73998, 1e-9);
        assert_float_equal(j.spot[4], 1.2784, 1e-9);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixed_machine_types),
                cmocka_unit_test(test_n1_hosts),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
