-- 0021: prices imported from SkyPilot's open catalog, price freshness, and
-- notebook/free-tier offerings as a kind of their own.
--
-- SkyPilot (github.com/skypilot-org/skypilot-catalog) keeps one vms.csv per
-- cloud under catalogs/<schema>/<cloud>/: instance type, accelerator name and
-- count, vCPUs, memory, on-demand and spot price, region (and zone).  The
-- importer (server/db/price_import.c) maps its accelerator names to catalog
-- GPUs with the table below, records one price per instance type, region and
-- pricing, and appends to the price history only what changed.

-- Where an imported price came from: the file inside the source repository
-- and the commit it was read at (NULL for prices typed in by hand).
ALTER TABLE prices ADD COLUMN source_file text;
ALTER TABLE prices ADD COLUMN source_commit text CHECK (source_commit ~ '^[0-9a-f]{7,40}$');
-- The view was defined with * before these columns existed: add them to it.
CREATE OR REPLACE VIEW current_prices AS
        SELECT DISTINCT ON (offering_id, pricing) *
        FROM prices
        ORDER BY offering_id, pricing, as_of DESC, id DESC;

-- Notebook services and free tiers are not instances a team can plan on:
-- no SLA, session limits, no guaranteed GPU.  Plans leave them out unless a
-- request asks for them.
ALTER TABLE offerings ADD COLUMN offering_kind text NOT NULL DEFAULT 'instance'
        CHECK (offering_kind IN ('instance', 'notebook', 'free_tier'));
UPDATE offerings SET offering_kind = 'free_tier' WHERE id = 'colab-free-t4';
UPDATE offerings SET offering_kind = 'notebook'
        WHERE provider_id = 'colab' AND id <> 'colab-free-t4';

-- SkyPilot accelerator name -> catalog GPU, per cloud ('*' = any cloud).
-- instance_like narrows a name by instance type (SQL LIKE) where one name
-- covers two parts; the most specific row wins (a cloud before '*', a
-- narrower pattern before '%').  A name with no row is reported by the
-- importer as unknown and its rows are skipped: nothing is guessed.
CREATE TABLE skypilot_accelerators (
        cloud                   text NOT NULL CHECK (cloud ~ '^([a-z0-9]+|\*)$'),
        name                    text NOT NULL CHECK (name <> ''),
        instance_like           text NOT NULL DEFAULT '%',
        accelerator_id          text NOT NULL REFERENCES accelerators (id),
        source                  text NOT NULL CHECK (source <> ''),
        PRIMARY KEY (cloud, name, instance_like)
);

-- The defaults follow the parts each cloud documents for the instance
-- families that carry the name: AWS P3 = V100 SXM2 16 GB, P3dn = 32 GB,
-- P4d = A100 SXM4 40 GB, P4de = A100 SXM4 80 GB, P5 = H100 SXM 80 GB,
-- P5e/P5en = H200 (https://aws.amazon.com/ec2/instance-types/p5/ ,
-- https://aws.amazon.com/ec2/instance-types/p4/ ); GCP A2 = A100 SXM4 40/80 GB,
-- A3 = H100 SXM (https://cloud.google.com/compute/docs/gpus); Lambda and
-- Nebius HGX shapes are SXM (https://lambda.ai/instances,
-- https://nebius.com/prices).
INSERT INTO skypilot_accelerators (cloud, name, instance_like, accelerator_id, source) VALUES
('*', 'A10', '%', 'a10', 'https://www.nvidia.com/en-us/data-center/products/a10-gpu/'),
('*', 'A10G', '%', 'a10g', 'https://aws.amazon.com/ec2/instance-types/g5/'),
('*', 'A100-80GB-SXM', '%', 'a100-sxm-80gb', 'SkyPilot name for the SXM4 part (catalogs/v7/common/metadata.csv)'),
('*', 'A40', '%', 'a40', 'https://www.nvidia.com/en-us/data-center/a40/'),
('*', 'A6000', '%', 'rtx-a6000', 'https://lambda.ai/instances (RTX A6000)'),
('*', 'RTXA6000', '%', 'rtx-a6000', 'https://www.nvidia.com/en-us/design-visualization/rtx-a6000/'),
('*', 'B200', '%', 'b200', 'https://www.nvidia.com/en-us/data-center/dgx-b200/'),
('*', 'H100-SXM', '%', 'h100-sxm-80gb', 'SkyPilot name for the SXM5 part (catalogs/v7/common/metadata.csv)'),
('*', 'H100-NVL', '%', 'h100-nvl-94gb', 'https://www.nvidia.com/en-us/data-center/h100/'),
('*', 'H200-SXM', '%', 'h200-sxm-141gb', 'SkyPilot name for the SXM part (catalogs/v7/common/metadata.csv)'),
('*', 'K80', '%', 'k80', 'https://aws.amazon.com/ec2/previous-generation/ (P2)'),
('*', 'L4', '%', 'l4', 'https://cloud.google.com/compute/docs/gpus#l4-gpus'),
('*', 'L40', '%', 'l40', 'https://www.nvidia.com/en-us/data-center/l40/'),
('*', 'L40S', '%', 'l40s', 'https://www.nvidia.com/en-us/data-center/l40s/'),
('*', 'MI300X', '%', 'mi300x', 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html'),
('*', 'P100', '%', 'p100-pcie-16gb', 'https://cloud.google.com/compute/docs/gpus#p100-gpus'),
('*', 'RTX3090', '%', 'rtx-3090', 'https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/'),
('*', 'RTX4090', '%', 'rtx-4090', 'https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4090/'),
('*', 'RTX6000-Ada', '%', 'rtx-6000-ada', 'https://www.nvidia.com/en-us/design-visualization/rtx-6000/'),
('*', 'RTX-6000-Ada', '%', 'rtx-6000-ada', 'https://www.nvidia.com/en-us/design-visualization/rtx-6000/'),
('*', 'RTX5090', '%', 'rtx-5090', 'https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/'),
('*', 'RTX-A6000', '%', 'rtx-a6000', 'https://www.nvidia.com/en-us/design-visualization/rtx-a6000/'),
-- Names that state the form factor themselves (Hyperstack's).
('*', 'A100-80G-PCIe', '%', 'a100-pcie-80gb', 'the name: A100 80 GB PCIe'),
('*', 'A100-80G-PCIe-NVLink', '%', 'a100-pcie-80gb', 'the name: A100 80 GB PCIe cards joined by NVLink bridges'),
('*', 'H100-80G-PCIe', '%', 'h100-pcie-80gb', 'the name: H100 80 GB PCIe'),
('*', 'H100-80G-PCIe-NVLink', '%', 'h100-pcie-80gb', 'the name: H100 80 GB PCIe cards joined by NVLink bridges'),
('*', 'H100-80G-SXM5', '%', 'h100-sxm-80gb', 'the name: H100 80 GB SXM5'),
('*', 'T4', '%', 't4', 'https://cloud.google.com/compute/docs/gpus#t4-gpus'),
('aws', 'A100', '%', 'a100-sxm-40gb', 'https://aws.amazon.com/ec2/instance-types/p4/ ; https://aws.amazon.com/ec2/instance-types/p5/ ; https://aws.amazon.com/ec2/instance-types/p3/'),
('aws', 'A100-80GB', '%', 'a100-sxm-80gb', 'https://aws.amazon.com/ec2/instance-types/p4/ ; https://aws.amazon.com/ec2/instance-types/p5/ ; https://aws.amazon.com/ec2/instance-types/p3/'),
('aws', 'H100', '%', 'h100-sxm-80gb', 'https://aws.amazon.com/ec2/instance-types/p4/ ; https://aws.amazon.com/ec2/instance-types/p5/ ; https://aws.amazon.com/ec2/instance-types/p3/'),
('aws', 'H200', '%', 'h200-sxm-141gb', 'https://aws.amazon.com/ec2/instance-types/p4/ ; https://aws.amazon.com/ec2/instance-types/p5/ ; https://aws.amazon.com/ec2/instance-types/p3/'),
('aws', 'V100', '%', 'v100-sxm2-16gb', 'https://aws.amazon.com/ec2/instance-types/p4/ ; https://aws.amazon.com/ec2/instance-types/p5/ ; https://aws.amazon.com/ec2/instance-types/p3/'),
('aws', 'V100-32GB', '%', 'v100-sxm2-32gb', 'https://aws.amazon.com/ec2/instance-types/p4/ ; https://aws.amazon.com/ec2/instance-types/p5/ ; https://aws.amazon.com/ec2/instance-types/p3/'),
('gcp', 'A100', '%', 'a100-sxm-40gb', 'https://cloud.google.com/compute/docs/gpus'),
('gcp', 'A100-80GB', '%', 'a100-sxm-80gb', 'https://cloud.google.com/compute/docs/gpus'),
('gcp', 'H100', '%', 'h100-sxm-80gb', 'https://cloud.google.com/compute/docs/gpus'),
('gcp', 'H200', '%', 'h200-sxm-141gb', 'https://cloud.google.com/compute/docs/gpus'),
('gcp', 'V100', '%', 'v100-sxm2-16gb', 'https://cloud.google.com/compute/docs/gpus'),
('lambda', 'A100', '%', 'a100-sxm-40gb', 'https://lambda.ai/instances'),
('lambda', 'A100-80GB', '%', 'a100-sxm-80gb', 'https://lambda.ai/instances'),
('lambda', 'H100', '%', 'h100-sxm-80gb', 'https://lambda.ai/instances'),
('lambda', 'V100', '%', 'v100-sxm2-16gb', 'https://lambda.ai/instances'),
('nebius', 'H100', '%', 'h100-sxm-80gb', 'https://nebius.com/prices'),
('nebius', 'H200', '%', 'h200-sxm-141gb', 'https://nebius.com/prices'),
('hyperbolic', 'H100', '%', 'h100-sxm-80gb', 'GpuInfo of catalogs/v8/hyperbolic/vms.csv: NVIDIA-H100-80GB-HBM3 (HBM3 is the SXM5 part; the PCIe card has HBM2e)'),
('aws', 'Radeon Pro V520', '%', 'radeon-pro-v520', 'https://aws.amazon.com/ec2/instance-types/g4/ (G4ad)'),
-- Names that cover several parts (A100, H100, V100: SXM or PCIe, 16 to 94 GB)
-- are mapped only for the clouds whose instance pages state the part;
-- elsewhere they are reported as unknown until a row is added here.
-- Lambda's 1x H100 PCIe shape carries the name H100 too.
('lambda', 'H100', '%pcie%', 'h100-pcie-80gb', 'https://lambda.ai/instances (1x H100 PCIe)'),
-- Mithril's instance types state the form factor (h100-80gb.sxm.8x, ccs-h200.sxm.1x).
('mithril', 'H100', '%.sxm.%', 'h100-sxm-80gb', 'the instance type: h100-80gb.sxm.*'),
('mithril', 'H200', '%.sxm.%', 'h200-sxm-141gb', 'the instance type: ccs-h200.sxm.*'),
-- Verda (DataCrunch) types end the memory with S for SXM (1H100.80S.32V, 1H200.141S.44V).
('verda', 'H100', '%.80S.%', 'h100-sxm-80gb', 'the instance type: 1H100.80S.32V (80 GB SXM5), https://verda.com/products'),
('verda', 'H200', '%.141S.%', 'h200-sxm-141gb', 'the instance type: 1H200.141S.44V (141 GB SXM5), https://verda.com/products'),
-- RunPod names the PCIe A100 80 GB "A100-80GB" (its GpuInfo says "A100 PCIe").
('runpod', 'A100-80GB', '%', 'a100-pcie-80gb', 'https://www.runpod.io/pricing (A100 PCIe 80GB)'),
-- Cudo's "A100" shapes are the 80 GB PCIe card (GpuInfo 81920 MiB, "a100-pcie" types).
('cudo', 'A100', '%', 'a100-pcie-80gb', 'https://www.cudocompute.com/pricing (A100 PCIe 80GB)');

-- One row per import: what was read, from where, and what it changed.
CREATE TABLE price_imports (
        id                      bigserial PRIMARY KEY,
        importer                text NOT NULL CHECK (importer IN ('skypilot')),
        cloud                   text NOT NULL,
        source_file             text NOT NULL,
        source_commit           text CHECK (source_commit ~ '^[0-9a-f]{7,40}$'),
        sha256                  text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        as_of                   date NOT NULL,
        added                   integer NOT NULL CHECK (added >= 0),
        changed                 integer NOT NULL CHECK (changed >= 0),
        unchanged               integer NOT NULL CHECK (unchanged >= 0),
        unknown                 integer NOT NULL CHECK (unknown >= 0),
        imported_at             timestamptz NOT NULL DEFAULT now(),
        imported_by             text NOT NULL DEFAULT 'migration'
);
CREATE INDEX price_imports_file ON price_imports (source_file, sha256);

-- Record one imported price.  The accelerator is looked up in
-- skypilot_accelerators (the most specific row); without one the function
-- returns 'unknown' and writes nothing.  Otherwise it creates the offering
-- if it is new, then appends a price row unless the newest row for
-- (offering, pricing) already has this hourly price, and returns 'added'
-- (first price of that kind), 'changed' or 'unchanged'.
CREATE FUNCTION price_import_upsert(
        p_cloud text, p_name text, p_offering text, p_instance text, p_gpus integer,
        p_vcpus integer, p_ram_bytes bigint, p_region text, p_pricing text, p_usd numeric,
        p_as_of date, p_source text, p_file text, p_commit text, p_actor text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
        acc text;
        cur numeric;
        had boolean;
BEGIN
        -- The history keeps 6 decimals (numeric(14, 6)): compare at that precision.
        p_usd := round(p_usd, 6);
        SELECT accelerator_id INTO acc FROM skypilot_accelerators
                WHERE cloud IN (p_cloud, '*') AND name = p_name AND p_instance LIKE instance_like
                ORDER BY cloud = '*', instance_like = '%', length(instance_like) DESC
                LIMIT 1;
        IF NOT FOUND THEN
                RETURN 'unknown';
        END IF;
        INSERT INTO offerings (id, provider_id, instance_type, accelerator_id, gpus_per_instance,
                               vcpus, ram_bytes, region, source, source_date, updated_by)
        VALUES (p_offering, p_cloud, p_instance, acc, p_gpus, p_vcpus, p_ram_bytes,
                p_region, p_source, p_as_of, p_actor)
        ON CONFLICT (id) DO NOTHING;
        SELECT usd_per_hour INTO cur FROM prices
                WHERE offering_id = p_offering AND pricing = p_pricing
                ORDER BY as_of DESC, id DESC LIMIT 1;
        had := FOUND;
        IF had AND cur = p_usd THEN
                RETURN 'unchanged';
        END IF;
        INSERT INTO prices (offering_id, pricing, usd_per_hour, as_of, source, source_file,
                            source_commit, recorded_by)
        VALUES (p_offering, p_pricing, p_usd, p_as_of, p_source, p_file, p_commit, p_actor);
        RETURN CASE WHEN had THEN 'changed' ELSE 'added' END;
END
$$;

-- Providers SkyPilot's catalog covers that the hand-typed seed did not.
INSERT INTO providers (id, name, kind, url, notes, source, source_date) VALUES
('cudo', 'Cudo Compute', 'gpu_cloud', 'https://www.cudocompute.com/',
 'GPU virtual machines in independent data centres; per-GPU-hour pricing with vCPU and memory added.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/cudo/vms.csv)', '2026-11-27'),
('hyperbolic', 'Hyperbolic', 'marketplace', 'https://hyperbolic.xyz/',
 'GPU marketplace; one default region.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/hyperbolic/vms.csv)', '2026-11-27'),
('mithril', 'Mithril', 'gpu_cloud', 'https://mithril.ai/',
 'GPU cloud (formerly ML Foundry) selling HGX nodes on demand and by auction.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/mithril/vms.csv)', '2026-11-27'),
('primeintellect', 'Prime Intellect', 'marketplace', 'https://www.primeintellect.ai/',
 'Aggregates GPU capacity from several clouds behind one API.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/primeintellect/vms.csv)', '2026-11-27'),
('seeweb', 'Seeweb', 'gpu_cloud', 'https://www.seeweb.it/',
 'Italian cloud provider with GPU servers in EU data centres.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/seeweb/vms.csv)', '2026-11-27'),
('verda', 'Verda (formerly DataCrunch)', 'gpu_cloud', 'https://verda.com/',
 'European GPU cloud; on-demand and spot instances.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/verda/vms.csv)', '2026-11-27'),
('yotta', 'Yotta', 'gpu_cloud', 'https://yotta.com/',
 'GPU cloud in Indian data centres.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/yotta/vms.csv)', '2026-11-27'),
('jarvislabs', 'JarvisLabs', 'gpu_cloud', 'https://jarvislabs.ai/',
 'GPU instances billed per minute.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/jarvislabs/vms.csv)', '2026-11-27'),
('lium', 'Lium', 'marketplace', 'https://lium.io/',
 'Decentralised GPU marketplace.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/lium/vms.csv)', '2026-11-27'),
('spheron', 'Spheron', 'marketplace', 'https://www.spheron.network/',
 'Decentralised GPU marketplace.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/spheron/vms.csv)', '2026-11-27'),
('hyperstack', 'Hyperstack', 'gpu_cloud', 'https://www.hyperstack.cloud/',
 'GPU cloud in European and North American data centres.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/hyperstack/vms.csv)', '2026-11-27'),
('shadeform', 'Shadeform', 'marketplace', 'https://www.shadeform.ai/',
 'Marketplace reselling other clouds'' GPU instances behind one API.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/shadeform/vms.csv)', '2026-11-27'),
('oci', 'Oracle Cloud Infrastructure', 'hyperscaler', 'https://www.oracle.com/cloud/',
 'Bare-metal and VM GPU shapes.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/oci/vms.csv)', '2026-11-27'),
('fluidstack', 'Fluidstack', 'gpu_cloud', 'https://www.fluidstack.io/',
 'GPU cloud selling dedicated clusters and on-demand instances.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v9/fluidstack/vms.csv)', '2026-11-27')
ON CONFLICT (id) DO NOTHING;

-- How old a quote may be for a plan to rank it.
INSERT INTO settings (key, value, unit, description, source, source_date) VALUES
('price_max_age_days', 180, 'days',
 'Plans rank only prices quoted within this many days; older quotes stay in the history and are listed as excluded with their date, unless a request sets include_stale_prices. Cloud GPU list prices move within months: AWS cut P4 and P5 on-demand prices by up to 45% on 2025-06-05.',
 'https://aws.amazon.com/blogs/aws/announcing-up-to-45-price-reduction-for-amazon-ec2-nvidia-gpu-accelerated-instances/', '2025-06-05');
