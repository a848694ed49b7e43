-- 0038: RunPod's "H100" in the shipped catalogs/v7/runpod/vms.csv is the
-- H100 PCIe 80 GB.  SkyPilot's RunPod fetcher derives a name from RunPod's
-- display name and renames "H100-PCIe" (display name "H100 PCIe") to
-- "H100" for backwards compatibility, as it renames "A100-PCIe" to
-- "A100-80GB" (GPU_NAME_OVERRIDES in
-- https://github.com/skypilot-org/skypilot/blob/8c488dc596189761130b4c22653352c2994f043f/sky/catalog/data_fetchers/fetch_runpod.py);
-- the SXM and NVL parts keep their own names there (H100-SXM, H100-NVL).
-- RunPod's other names without a catalog GPU (RTX4000-Ada, RTXA4000,
-- RTXA4500, RTXA5000) stay unmapped and are reported by the import.
INSERT INTO skypilot_accelerators (cloud, name, instance_like, accelerator_id, source) VALUES
('runpod', 'H100', '%', 'h100-pcie-80gb',
 'https://github.com/skypilot-org/skypilot/blob/8c488dc596189761130b4c22653352c2994f043f/sky/catalog/data_fetchers/fetch_runpod.py (GPU_NAME_OVERRIDES: H100-PCIe -> H100); https://www.runpod.io/pricing (H100 PCIe)');
