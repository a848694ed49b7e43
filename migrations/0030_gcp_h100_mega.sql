-- GCP's catalog names the GPUs of its A3 Mega machine type (a3-megagpu-8g)
-- "H100-MEGA": eight NVIDIA H100 SXM 80 GB, like A3 High, with more
-- network bandwidth (https://cloud.google.com/compute/docs/gpus#h100-gpus ,
-- https://cloud.google.com/compute/docs/accelerator-optimized-machines#a3-vms).
-- Without this row the importer reports the name as unknown and skips it.
INSERT INTO skypilot_accelerators (cloud, name, instance_like, accelerator_id, source) VALUES
('gcp', 'H100-MEGA', '%', 'h100-sxm-80gb',
 'https://cloud.google.com/compute/docs/accelerator-optimized-machines#a3-vms (A3 Mega: H100 SXM 80 GB)');
