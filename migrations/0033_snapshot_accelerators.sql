-- 0033: accelerator names and a provider of the wider price snapshot
-- (prices/skypilot/: every GPU row of AWS's G and P families, Vast.ai and
-- Daytona), so that the shipped rows map to catalog GPUs where the part is
-- known.  Names whose part the file does not pin down stay unmapped and are
-- reported by the import: Vast's and Daytona's "H200" (SXM or NVL) and
-- Daytona's "H100" (SXM or PCIe), Vast's two-card "V100" (SXM2 or PCIe).
--
-- AWS G5g carries the T4G, the T4 on an Arm (Graviton2) host.  Vast names
-- the part in its instance type: H100_SXM (81 559 MiB per GPU in the
-- file's GpuInfo), H100_NVL (95 830 MiB), A100_SXM4 (40 960 MiB) and
-- A100_PCIE (81 920 MiB).
INSERT INTO skypilot_accelerators (cloud, name, instance_like, accelerator_id, source) VALUES
('aws', 'T4g', '%', 't4',
 'https://aws.amazon.com/ec2/instance-types/g5g/ (NVIDIA T4G Tensor Core GPUs, 16 GB)'),
('vast', 'H100', '%H100\_SXM-%', 'h100-sxm-80gb',
 'the instance type: 1x-H100_SXM-32-65536 (GpuInfo of catalogs/v8/vast/vms.csv: 81559 MiB per GPU)'),
('vast', 'H100', '%H100\_NVL-%', 'h100-nvl-94gb',
 'the instance type: 1x-H100_NVL-32-65536 (GpuInfo of catalogs/v8/vast/vms.csv: 95830 MiB per GPU)'),
('vast', 'A100', '%A100\_SXM4-%', 'a100-sxm-40gb',
 'the instance type: 1x-A100_SXM4-32-65536 (GpuInfo of catalogs/v8/vast/vms.csv: 40960 MiB per GPU)'),
('vast', 'A100', '%A100\_PCIE-%', 'a100-pcie-80gb',
 'the instance type: 1x-A100_PCIE-32-65536 (GpuInfo of catalogs/v8/vast/vms.csv: 81920 MiB per GPU)')
ON CONFLICT DO NOTHING;

INSERT INTO providers (id, name, kind, url, notes, source, source_date) VALUES
('daytona', 'Daytona', 'gpu_cloud', 'https://www.daytona.io/',
 'Sandboxes with GPUs, priced per GPU with vCPUs and memory in proportion; one region.',
 'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/daytona/vms.csv)', '2026-11-27')
ON CONFLICT (id) DO NOTHING;
