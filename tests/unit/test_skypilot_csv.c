/*
 * test_skypilot_csv.c - the SkyPilot vms.csv reader (server/db/skypilot_csv.c):
 * columns found by name in any order, quoted fields with commas and doubled
 * quotes, empty cells, CRLF line ends, and refusals that name their line.
 *
 * The GCP rows are the first lines of catalogs/v8/gcp/vms.csv of
 * github.com/skypilot-org/skypilot-catalog at commit
 * 006059e0f18acb1341e22a27751e9f80df6ba92f; the accelerator-only row is made
 * up in GCP's layout to exercise that case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "db/skypilot_csv.h"

#define ROWS_MAX 8

struct seen {
        size_t n;
        struct skypilot_row rows[ROWS_MAX];
        char instance[ROWS_MAX][64], accelerator[ROWS_MAX][64], region[ROWS_MAX][64];
};

static int keep(void *ctx, const struct skypilot_row *r)
{
        struct seen *s = ctx;

        if (s->n == ROWS_MAX)
                return 7;
        s->rows[s->n] = *r;
        strncpy(s->instance[s->n], r->instance_type, 63);
        strncpy(s->accelerator[s->n], r->accelerator, 63);
        strncpy(s->region[s->n], r->region, 63);
        s->n++;
        return 0;
}

static void test_gcp_layout(void **state)
{
        static const char csv[] =
                "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
                "AvailabilityZone,Price,SpotPrice\n"
                "a2-highgpu-1g,12.0,85.0,,,,asia-northeast1,asia-northeast1-a,0.94803,0.41783\n"
                "a2-highgpu-1g,12.0,85.0,,,,asia-northeast1,asia-northeast1-c,0.94803,0.41783\n"
                ",,,A100,1.0,,us-central1,us-central1-a,2.5,0.8\n";
        struct seen s = {0};
        char err[160] = "";

        (void)state;
        assert_int_equal(skypilot_csv_parse(csv, sizeof(csv) - 1, keep, &s, err, sizeof(err)), 0);
        assert_int_equal(s.n, 3);
        /* Line 2: a VM without an accelerator; line 4: an accelerator without a VM. */
        assert_int_equal(s.rows[0].line, 2);
        assert_string_equal(s.instance[0], "a2-highgpu-1g");
        assert_string_equal(s.accelerator[0], "");
        assert_int_equal(s.rows[0].accelerators, 0);
        assert_true(s.rows[0].usd_per_hour == 0.94803);
        assert_true(s.rows[0].spot_usd_per_hour == 0.41783);
        assert_true(s.rows[0].vcpus == 12 && s.rows[0].memory_gib == 85);
        assert_int_equal(s.rows[2].line, 4);
        assert_string_equal(s.instance[2], "");
        assert_string_equal(s.accelerator[2], "A100");
        assert_int_equal(s.rows[2].accelerators, 1);
        assert_true(s.rows[2].vcpus < 0 && s.rows[2].memory_gib < 0);
}

/* A quoted GpuInfo with commas and doubled quotes (Verda's layout), CRLF line ends. */
static void test_quotes_and_crlf(void **state)
{
        static const char csv[] =
                "InstanceType,UpstreamCloudId,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,"
                "GpuInfo,Region,Price,SpotPrice\r\n"
                "1H100.80S.32V,1H100.80S.32V,32.0,185.0,H100,1.0,\"{\"\"Gpus\"\": [{\"\"Name\"\": "
                "\"\"H100\"\", \"\"Count\"\": 1}]}\",FIN-02,2.29,0.8015\r\n";
        struct seen s = {0};
        char err[160] = "";

        (void)state;
        assert_int_equal(skypilot_csv_parse(csv, sizeof(csv) - 1, keep, &s, err, sizeof(err)), 0);
        assert_int_equal(s.n, 1);
        assert_string_equal(s.instance[0], "1H100.80S.32V");
        assert_string_equal(s.region[0], "FIN-02");
        assert_true(s.rows[0].usd_per_hour == 2.29 && s.rows[0].spot_usd_per_hour == 0.8015);
}

static void refused(const char *csv, const char *want)
{
        struct seen s = {0};
        char err[200] = "";

        assert_int_equal(skypilot_csv_parse(csv, strlen(csv), keep, &s, err, sizeof(err)), -1);
        if (strncmp(err, want, strlen(want)) != 0)
                fail_msg("got \"%s\", want it to start with \"%s\"", err, want);
}

static void test_refusals_name_the_line(void **state)
{
        (void)state;
        refused("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
                "a,H100,1,8,64,abc,r\n",
                "line 2: Price is \"abc\"");
        refused("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
                "a,H100,1,8,64,1.0,r\n"
                "b,H100,1,8,64,1.0\n",
                "line 3: 6 fields where the header has 7");
        refused("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
                "a,H100,1.5,8,64,1.0,r\n",
                "line 2: AcceleratorCount is 1.5");
        refused("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
                "a,H100,1,8,64,-2,r\n",
                "line 2: Price is \"-2\"");
        refused("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
                ",,,8,64,1.0,r\n",
                "line 2: InstanceType and AcceleratorName are both empty");
        refused("InstanceType,AcceleratorName,vCPUs,MemoryGiB,Price,Region\n", "line 1: the header has no AcceleratorCount");
        refused("", "line 1: the file is empty");
        /* An unclosed quote runs to the end of the file: refused at the row's first line. */
        refused("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
                "a,H100,1,8,64,1.0,r,\"{'x': 1}\n"
                "b,H100,1,8,64,1.0,r,\n",
                "line 2: ");
}

/*
 * A count below 1 is a share of one GPU (catalogs/v8/aws/vms.csv lists
 * g6f.large as "L4,0.125": an eighth of an L4), passed on rather than
 * refused.  A price of 0 is read as 0 (GCP's a4-highgpu-8g host row is
 * 0.0: its B200 row carries the whole price); what an offering makes of it
 * is the importer's call.
 */
static void test_gpu_share_and_zero_price(void **state)
{
        static const char csv[] =
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n"
                "g6f.large,L4,0.125,2.0,8.0,0.202,0.061700,us-east-1\n"
                "1x-H100_SXM-32-65536,H100,1,32,64.0,1.93,0.00,\"Florida, US, NA\"\n";
        struct seen s = {0};
        char err[128];

        (void)state;
        assert_int_equal(skypilot_csv_parse(csv, sizeof(csv) - 1, keep, &s, err, sizeof(err)), 0);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.rows[0].accelerators, 0);
        assert_true(s.rows[0].gpu_share == 0.125);
        assert_true(s.rows[0].usd_per_hour == 0.202);
        assert_int_equal(s.rows[1].accelerators, 1);
        assert_true(s.rows[1].gpu_share == 0);
        assert_true(s.rows[1].usd_per_hour == 1.93);
        assert_true(s.rows[1].spot_usd_per_hour == 0);
        assert_string_equal(s.region[1], "Florida, US, NA");
}

/* A callback's nonzero answer stops the parse and is returned. */
static void test_callback_stops(void **state)
{
        static const char csv[] = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,"
                                  "Price,Region\na,,,1,1,1,r\nb,,,1,1,1,r\nc,,,1,1,1,r\n";
        struct seen s = {.n = ROWS_MAX - 1};
        char err[64];

        (void)state;
        assert_int_equal(skypilot_csv_parse(csv, sizeof(csv) - 1, keep, &s, err, sizeof(err)), 7);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_gcp_layout),
                cmocka_unit_test(test_quotes_and_crlf),
                cmocka_unit_test(test_refusals_name_the_line),
                cmocka_unit_test(test_gpu_share_and_zero_price),
                cmocka_unit_test(test_callback_stops),
        };

        return cmocka_run_group_tests_name("skypilot_csv", tests, NULL, NULL);
}
