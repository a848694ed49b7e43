-- 0030: accelerator names of the shipped GCP and Azure price files that
-- had no catalog GPU (the importer reports such names and skips them).
--
-- GCP names the GPUs of its A3 Mega machine type (a3-megagpu-8g)
-- "H100-MEGA": eight NVIDIA H100 SXM 80 GB, like A3 High, with more
-- network bandwidth.
--
-- Azure's names cover more than one part, told apart by the VM series:
-- NCv3 carries V100 PCIe 16 GB, NDv2 V100 SXM2 32 GB, ND A100 v4 A100 SXM4
-- 40 GB, NC A100 v4 A100 PCIe 80 GB, NDm A100 v4 A100 SXM4 80 GB, NC H100 v5
-- the H100 NVL 94 GB.  Standard_ND96isr_H100_v5 (eight H100 SXM) stays
-- unmapped: the catalog counts 12 GPUs in it, and a wrong count would give a
-- wrong price per GPU.
INSERT INTO skypilot_accelerators (cloud, name, instance_like, accelerator_id, source) VALUES
('gcp', 'H100-MEGA', '%', 'h100-sxm-80gb',
 'https://cloud.google.com/compute/docs/accelerator-optimized-machines#a3-vms (A3 Mega: H100 SXM 80 GB)'),
('azure', 'V100', '%', 'v100-pcie-16gb',
 'https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncv3-series (NVIDIA Tesla V100 PCIe)'),
('azure', 'V100-32GB', '%', 'v100-sxm2-32gb',
 'https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndv2-series (8 V100 SXM2 32 GB, NVLink)'),
('azure', 'A100', '%', 'a100-sxm-40gb',
 'https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nda100v4-series (8 A100 40 GB SXM4)'),
('azure', 'A100-80GB', '%', 'a100-pcie-80gb',
 'https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nca100v4-series (A100 PCIe 80 GB)'),
('azure', 'A100-80GB', 'Standard_ND96amsr%', 'a100-sxm-80gb',
 'https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndma100v4-series (8 A100 80 GB SXM4)'),
('azure', 'H100', 'Standard_NC%', 'h100-nvl-94gb',
 'https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncadsh100v5-series (H100 NVL 94 GB)');
