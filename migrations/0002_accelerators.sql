-- gpuplan:reworded-from bf6009b56e86ef8ce7ba78c91cd740c90afbc4315f478b8a0eefb1c1fd244b6b the text as of commit a3f3b87; only comments and source citations changed
-- 0002: the accelerator catalog.
--
-- One row per schedulable chip.  Conventions (read these before editing):
--
-- Memory.  memory_bytes is the capacity of the memory devices on the chip
--   in binary units: NVIDIA's "80GB" A100/H100 is five 16 GiB HBM stacks,
--   and nvidia-smi reports 81920 MiB (A100) and 81559 MiB (H100) as total,
--   more than 80 * 10^9 bytes, so "GB" on GPU memory is read as GiB here.
--   usable_memory_bytes is what the driver reports as the device total
--   (nvidia-smi "Total", Metal recommendedMaxWorkingSetSize on Apple
--   Silicon), NULL where no published measurement was found.  Both are
--   written as N * 1073741824 (GiB) or N * 1048576 (MiB).  On-chip SRAM
--   parts (Cerebras, Graphcore, Groq) are quoted in decimal bytes as their
--   vendors state them.
--
-- Throughput.  Every FLOP/s figure is DENSE.  NVIDIA data-centre datasheets
--   print tensor rates "with sparsity" (2:4 structured); those are halved
--   here and each row says which datasheet figure was halved.  GeForce cards
--   run fp16/bf16 (and fp8) tensor math with fp32 accumulation at half their
--   advertised fp16-accumulate rate; PyTorch accumulates in fp32, so that
--   is the rate stored (RTX 4090, dense: 330.3 TFLOPS fp16-accumulate,
--   165.2 with fp32 accumulate -> 165.2e12; 660.6 is the sparse figure).
--   fp32 is the non-tensor vector rate.  NULL
--   means the part has no such mode or the vendor does not publish it.
--
-- Interconnect.  interconnect_bytes_per_s is per chip, both directions
--   added, as vendors quote NVLink (H100 SXM: 18 links, 900 GB/s).  For
--   cards whose peers talk over PCIe it is the PCIe x16 figure, both
--   directions (Gen3 32e9, Gen4 64e9, Gen5 128e9).  host_bytes_per_s is one
--   direction (Gen3 16e9, Gen4 32e9, Gen5 64e9).
--
-- Multi-chip boards.  A K80 board carries two GK210 GPUs and an MI250/MI250X
--   OAM carries two GCDs; each appears to the framework as its own device,
--   so the row describes ONE chip (memory, bandwidth, FLOP/s and TDP halved
--   from the board figure) with chips_per_board = 2.  Purchase prices stay
--   per board (see 0003).
--
-- Sources are the vendor datasheet or product page where one exists, else
-- TechPowerUp's GPU database, else vendor documentation; source_date is the
-- date the figures were checked against that source.

INSERT INTO accelerators (
        id, name, vendor, kind, form_factor, chips_per_board,
        memory_bytes, usable_memory_bytes, memory_type, memory_bandwidth_bytes_per_s,
        fp32_flops, tf32_flops, fp16_flops, bf16_flops, fp8_flops, int8_flops,
        tdp_watts, interconnect_kind, interconnect, interconnect_bytes_per_s,
        host_interface, host_bytes_per_s, launch_year, launch_price_usd,
        can_train, can_infer, cuda, frameworks, notes, source, source_date)
VALUES

-- ===================================================================
-- NVIDIA: older data-centre parts named in the seeds
-- ===================================================================

-- K80 board: 24 GB GDDR5, 480 GB/s, 8.73 TFLOPS fp32 (boost), 300 W for
-- two GK210 chips; per chip: 12 GiB, 240 GB/s, 4.365 TFLOPS, 150 W.
('k80', 'NVIDIA Tesla K80 (one GK210 of two)', 'NVIDIA', 'gpu', 'pcie', 2,
 12 * 1073741824::bigint, 11441 * 1048576::bigint, 'GDDR5', 240e9,
 4.365e12, NULL, NULL, NULL, NULL, NULL,
 150, 'pcie', 'PCIe 3.0 x16 per board, shared by both chips through an on-board switch', 32e9,
 'PCIe 3.0 x16 (shared)', 16e9, 2014, 4999,
 true, true, true, 'PyTorch <= 1.12 / CUDA <= 11.4 (sm_37 dropped from later builds)',
 'One row per GK210 chip: a K80 board is two 12 GB GPUs, never one 24 GB GPU; board TDP 300 W. No fp16 or tensor cores. nvidia-smi reports 11441 MiB per chip. Launch price is per board.',
 'https://www.techpowerup.com/gpu-specs/tesla-k80.c2616', '2026-11-22'),

-- P100 PCIe 16 GB datasheet: 9.3 TFLOPS fp32, 18.7 TFLOPS fp16, 732 GB/s.
('p100-pcie-16gb', 'NVIDIA Tesla P100 PCIe 16GB', 'NVIDIA', 'gpu', 'pcie', 1,
 16 * 1073741824::bigint, 16280 * 1048576::bigint, 'HBM2', 732e9,
 9.3e12, NULL, 18.7e12, NULL, NULL, NULL,
 250, 'pcie', 'PCIe 3.0 x16', 32e9,
 'PCIe 3.0 x16', 16e9, 2016, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Pascal: fp16 at twice the fp32 rate on the vector units, no tensor cores, no bf16. nvidia-smi reports 16280 MiB (Kaggle P100).',
 'https://www.techpowerup.com/gpu-specs/tesla-p100-pcie-16-gb.c2888', '2026-11-22'),

-- V100 datasheet: PCIe 14 TFLOPS fp32 / 112 tensor; SXM2 15.7 / 125; 900 GB/s.
('v100-pcie-16gb', 'NVIDIA Tesla V100 PCIe 16GB', 'NVIDIA', 'gpu', 'pcie', 1,
 16 * 1073741824::bigint, 16160 * 1048576::bigint, 'HBM2', 900e9,
 14e12, NULL, 112e12, NULL, NULL, NULL,
 250, 'pcie', 'PCIe 3.0 x16', 32e9,
 'PCIe 3.0 x16', 16e9, 2017, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Volta: fp16 tensor cores only; no bf16, no tf32, so bf16 mixed precision falls back to fp32 speed.',
 'https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf', '2026-11-22'),

('v100-pcie-32gb', 'NVIDIA Tesla V100 PCIe 32GB', 'NVIDIA', 'gpu', 'pcie', 1,
 32 * 1073741824::bigint, 32510 * 1048576::bigint, 'HBM2', 900e9,
 14e12, NULL, 112e12, NULL, NULL, NULL,
 250, 'pcie', 'PCIe 3.0 x16', 32e9,
 'PCIe 3.0 x16', 16e9, 2018, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Volta: fp16 tensor cores only; no bf16, no tf32.',
 'https://www.techpowerup.com/gpu-specs/tesla-v100-pcie-32-gb.c3184', '2026-11-22'),

('v100-sxm2-16gb', 'NVIDIA Tesla V100 SXM2 16GB', 'NVIDIA', 'gpu', 'sxm', 1,
 16 * 1073741824::bigint, 16160 * 1048576::bigint, 'HBM2', 900e9,
 15.7e12, NULL, 125e12, NULL, NULL, NULL,
 300, 'nvlink', 'NVLink 2 (6 links)', 300e9,
 'PCIe 3.0 x16', 16e9, 2017, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Volta: fp16 tensor cores only; no bf16, no tf32. AWS p3, GCP n1+V100, Azure NCv3.',
 'https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf', '2026-11-22'),

('v100-sxm2-32gb', 'NVIDIA Tesla V100 SXM2 32GB', 'NVIDIA', 'gpu', 'sxm', 1,
 32 * 1073741824::bigint, 32510 * 1048576::bigint, 'HBM2', 900e9,
 15.7e12, NULL, 125e12, NULL, NULL, NULL,
 300, 'nvlink', 'NVLink 2 (6 links)', 300e9,
 'PCIe 3.0 x16', 16e9, 2018, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Volta: fp16 tensor cores only; no bf16, no tf32. AWS p3dn.',
 'https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf', '2026-11-22'),

-- T4 datasheet: 8.1 TFLOPS fp32, 65 TFLOPS fp16 mixed, 130 TOPS int8 (dense).
('t4', 'NVIDIA T4 16GB', 'NVIDIA', 'gpu', 'pcie', 1,
 16 * 1073741824::bigint, 15360 * 1048576::bigint, 'GDDR6', 320e9,
 8.1e12, NULL, 65e12, NULL, NULL, 130e12,
 70, 'pcie', 'PCIe 3.0 x16', 32e9,
 'PCIe 3.0 x16', 16e9, 2018, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Turing: fp16 and int8 tensor cores, no bf16 (bf16 runs emulated, slowly), no tf32. Google Colab free tier GPU; AWS g4dn. nvidia-smi reports 15360 MiB.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf', '2026-11-22'),

-- ===================================================================
-- NVIDIA Ampere data-centre and workstation
-- ===================================================================

-- A100 datasheet (dense column): 19.5 fp32, 156 tf32, 312 fp16/bf16, 624 int8
-- (the sparse column doubles each).  40 GB: 1555 GB/s; 80 GB PCIe 1935,
-- SXM 2039 GB/s.  nvidia-smi: 40960 MiB / 81920 MiB.
('a100-pcie-40gb', 'NVIDIA A100 PCIe 40GB', 'NVIDIA', 'gpu', 'pcie', 1,
 40 * 1073741824::bigint, 40960 * 1048576::bigint, 'HBM2', 1555e9,
 19.5e12, 156e12, 312e12, 312e12, NULL, 624e12,
 250, 'pcie', 'PCIe 4.0 x16 (optional NVLink bridge joins pairs at 600 GB/s)', 64e9,
 'PCIe 4.0 x16', 32e9, 2020, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures (312 tf32, 624 fp16) halved. No fp8.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf', '2026-11-22'),

('a100-sxm-40gb', 'NVIDIA A100 SXM4 40GB', 'NVIDIA', 'gpu', 'sxm', 1,
 40 * 1073741824::bigint, 40960 * 1048576::bigint, 'HBM2', 1555e9,
 19.5e12, 156e12, 312e12, 312e12, NULL, 624e12,
 400, 'nvlink', 'NVLink 3 (12 links) via NVSwitch', 600e9,
 'PCIe 4.0 x16', 32e9, 2020, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures halved. AWS p4d, GCP a2-highgpu, Azure ND A100 v4.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf', '2026-11-22'),

('a100-pcie-80gb', 'NVIDIA A100 PCIe 80GB', 'NVIDIA', 'gpu', 'pcie', 1,
 80 * 1073741824::bigint, 81920 * 1048576::bigint, 'HBM2e', 1935e9,
 19.5e12, 156e12, 312e12, 312e12, NULL, 624e12,
 300, 'pcie', 'PCIe 4.0 x16 (optional NVLink bridge joins pairs at 600 GB/s)', 64e9,
 'PCIe 4.0 x16', 32e9, 2021, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures halved. Azure NC A100 v4.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf', '2026-11-22'),

('a100-sxm-80gb', 'NVIDIA A100 SXM4 80GB', 'NVIDIA', 'gpu', 'sxm', 1,
 80 * 1073741824::bigint, 81920 * 1048576::bigint, 'HBM2e', 2039e9,
 19.5e12, 156e12, 312e12, 312e12, NULL, 624e12,
 400, 'nvlink', 'NVLink 3 (12 links) via NVSwitch', 600e9,
 'PCIe 4.0 x16', 32e9, 2020, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures halved. AWS p4de, GCP a2-ultragpu.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf', '2026-11-22'),

-- A10 datasheet: 31.2 fp32, 62.5 tf32, 125 bf16/fp16, 250 int8 TOPS (dense;
-- sparse doubles), 24 GB GDDR6, 600 GB/s, 150 W.
('a10', 'NVIDIA A10 24GB', 'NVIDIA', 'gpu', 'pcie', 1,
 24 * 1073741824::bigint, NULL, 'GDDR6', 600e9,
 31.2e12, 62.5e12, 125e12, 125e12, NULL, 250e12,
 150, 'pcie', 'PCIe 4.0 x16', 64e9,
 'PCIe 4.0 x16', 32e9, 2021, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Not the same as the A10G on AWS: the A10 has the higher tensor rate (125 vs 70 TFLOPS bf16). Lambda and OCI offer the A10.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf', '2026-11-22'),

-- A10G: AWS-only GA102 variant (G5).  NVIDIA publishes no datasheet.
-- Verified from the text of Baseten's A10 vs A10G comparison: same 24 GB
-- GDDR6 at 600 GB/s as the A10, higher CUDA-core (fp32) rate, lower tensor
-- rate.  UNVERIFIED: the throughput figures (~35 TFLOPS fp32, 70 TFLOPS
-- bf16/fp16 with fp32 accumulate) are from that article's spec table, which
-- the stored copy we read does not reproduce; treat them as estimates.
-- TDP: 300 W is the nvidia-smi power limit on every G5 size in AWS's GPU
-- instance table (gist.github.com/shashankprasanna/10ebe6dc1ba1d8d93db17da4e2cc890e).
-- nvidia-smi on G5 reports 23028 MiB (Modal's GPU table, modal-client#2797).
('a10g', 'NVIDIA A10G 24GB (AWS)', 'NVIDIA', 'gpu', 'pcie', 1,
 24 * 1073741824::bigint, 23028 * 1048576::bigint, 'GDDR6', 600e9,
 35e12, 35e12, 70e12, 70e12, NULL, NULL,
 300, 'pcie', 'PCIe 4.0 x16', 64e9,
 'PCIe 4.0 x16', 32e9, 2021, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'AWS G5 only. Same memory and bandwidth as the A10 but a lower tensor rate and a higher fp32 rate. Unverified throughput: fp32 35 and bf16 70 TFLOPS are a third-party estimate (NVIDIA publishes no datasheet); int8 unpublished. TDP is the 300 W power limit nvidia-smi shows on G5.',
 'https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/', '2026-11-22'),

-- A40 datasheet: 37.4 fp32, 74.8 tf32, 149.7 fp16/bf16, 299.3 int8 (dense).
('a40', 'NVIDIA A40 48GB', 'NVIDIA', 'gpu', 'pcie', 1,
 48 * 1073741824::bigint, NULL, 'GDDR6 (ECC)', 696e9,
 37.4e12, 74.8e12, 149.7e12, 149.7e12, NULL, 299.3e12,
 300, 'pcie', 'PCIe 4.0 x16 (optional NVLink bridge joins pairs at 112.5 GB/s)', 64e9,
 'PCIe 4.0 x16', 32e9, 2020, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures halved.',
 'https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf', '2026-11-22'),

-- RTX A6000 datasheet: 38.7 fp32, 309.7 TFLOPS "tensor performance" (fp16,
-- sparse) -> 154.8 dense fp16/bf16 with fp32 accumulate (workstation parts
-- run it at full rate), 77.4 tf32, 309.7 int8 dense.
('rtx-a6000', 'NVIDIA RTX A6000 48GB', 'NVIDIA', 'gpu', 'card', 1,
 48 * 1073741824::bigint, NULL, 'GDDR6 (ECC)', 768e9,
 38.7e12, 77.4e12, 154.8e12, 154.8e12, NULL, 309.7e12,
 300, 'pcie', 'PCIe 4.0 x16 (optional NVLink bridge joins pairs at 112.5 GB/s)', 64e9,
 'PCIe 4.0 x16', 32e9, 2020, 4650,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Workstation Ampere: fp32-accumulate tensor rate is not halved as on GeForce. Datasheet 309.7 TFLOPS is the sparse fp16 figure.',
 'https://www.nvidia.com/en-us/design-visualization/rtx-a6000/', '2026-11-22'),

-- ===================================================================
-- NVIDIA Ada data-centre and workstation
-- ===================================================================

-- L4 datasheet (sparse): 120 tf32, 242 fp16/bf16, 485 fp8/int8 -> halved.
('l4', 'NVIDIA L4 24GB', 'NVIDIA', 'gpu', 'pcie', 1,
 24 * 1073741824::bigint, 23034 * 1048576::bigint, 'GDDR6', 300e9,
 30.3e12, 60e12, 121e12, 121e12, 242.5e12, 242.5e12,
 72, 'pcie', 'PCIe 4.0 x16', 64e9,
 'PCIe 4.0 x16', 32e9, 2023, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Datasheet tensor figures are with sparsity; halved here. Low power (72 W), low bandwidth (300 GB/s): an inference part. GCP g2, AWS g6, Colab L4.',
 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/l4/PB-11316-001_v01.pdf', '2026-11-22'),

-- L40 datasheet (sparse): 181 tf32, 362 fp16/bf16, 724 fp8/int8 -> halved.
('l40', 'NVIDIA L40 48GB', 'NVIDIA', 'gpu', 'pcie', 1,
 48 * 1073741824::bigint, NULL, 'GDDR6 (ECC)', 864e9,
 90.5e12, 90.5e12, 181e12, 181e12, 362e12, 362e12,
 300, 'pcie', 'PCIe 4.0 x16', 64e9,
 'PCIe 4.0 x16', 32e9, 2022, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Not the L40S: half the L40S tensor rate (181 vs 362 TFLOPS bf16 dense). Datasheet tensor figures are with sparsity; halved here.',
 'https://www.nvidia.com/en-us/data-center/l40/', '2026-11-22'),

-- L40S datasheet (sparse): 366 tf32, 733 fp16/bf16, 1466 fp8/int8 -> halved.
('l40s', 'NVIDIA L40S 48GB', 'NVIDIA', 'gpu', 'pcie', 1,
 48 * 1073741824::bigint, 46068 * 1048576::bigint, 'GDDR6 (ECC)', 864e9,
 91.6e12, 183e12, 366.5e12, 366.5e12, 733e12, 733e12,
 350, 'pcie', 'PCIe 4.0 x16', 64e9,
 'PCIe 4.0 x16', 32e9, 2023, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Not the L40: twice its tensor rate. Datasheet tensor figures are with sparsity; halved here. No NVLink. AWS g6e.',
 'https://www.nvidia.com/en-us/data-center/l40s/', '2026-11-22'),

-- RTX 6000 Ada datasheet: 91.1 fp32, "1,457 TFLOPS tensor" (fp8, sparse)
-- -> 728.5 fp8 dense, 364.2 fp16/bf16 dense, 91.1 tf32 dense.
('rtx-6000-ada', 'NVIDIA RTX 6000 Ada Generation 48GB', 'NVIDIA', 'gpu', 'card', 1,
 48 * 1073741824::bigint, NULL, 'GDDR6 (ECC)', 960e9,
 91.1e12, 91.1e12, 364.2e12, 364.2e12, 728.5e12, 728.5e12,
 300, 'pcie', 'PCIe 4.0 x16 (no NVLink)', 64e9,
 'PCIe 4.0 x16', 32e9, 2022, 6800,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Workstation Ada: fp32-accumulate tensor rate at full speed. Datasheet 1,457 TFLOPS is fp8 with sparsity.',
 'https://www.nvidia.com/en-us/design-visualization/rtx-6000/', '2026-11-22'),

-- ===================================================================
-- NVIDIA Hopper
-- ===================================================================

-- H100 datasheet, SXM column (sparse): 989 tf32, 1979 fp16/bf16, 3958
-- fp8/int8 -> 494.7 / 989.4 / 1978.9 dense; 67 fp32; 3.35 TB/s; 700 W.
('h100-sxm-80gb', 'NVIDIA H100 SXM5 80GB', 'NVIDIA', 'gpu', 'sxm', 1,
 80 * 1073741824::bigint, 81559 * 1048576::bigint, 'HBM3', 3.35e12,
 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 1978.9e12,
 700, 'nvlink', 'NVLink 4 (18 links) via NVSwitch', 900e9,
 'PCIe 5.0 x16', 64e9, 2022, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures halved. 3.35 TB/s (the PCIe card has 2.0 TB/s). nvidia-smi reports 81559 MiB. AWS p5, GCP a3, Azure ND H100 v5.',
 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet', '2026-11-22'),

-- H100 PCIe column (sparse): 756 tf32, 1513 fp16/bf16, 3026 fp8/int8; 51 fp32;
-- 2.0 TB/s HBM2e; 300-350 W.
('h100-pcie-80gb', 'NVIDIA H100 PCIe 80GB', 'NVIDIA', 'gpu', 'pcie', 1,
 80 * 1073741824::bigint, 81559 * 1048576::bigint, 'HBM2e', 2.0e12,
 51e12, 378e12, 756.5e12, 756.5e12, 1513e12, 1513e12,
 350, 'pcie', 'PCIe 5.0 x16 (optional NVLink bridge joins pairs at 600 GB/s)', 128e9,
 'PCIe 5.0 x16', 64e9, 2022, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Not the SXM part: 2.0 TB/s instead of 3.35 TB/s, 114 SMs, 350 W. Dense rates; datasheet sparse figures halved.',
 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet', '2026-11-22'),

-- H100 NVL column (sparse): 835 tf32, 1671 fp16/bf16, 3341 fp8/int8; 60
-- fp32; 94 GB HBM3 at 3.9 TB/s; 350-400 W; sold as NVLink-bridged pairs.
('h100-nvl-94gb', 'NVIDIA H100 NVL 94GB', 'NVIDIA', 'gpu', 'pcie', 1,
 94 * 1073741824::bigint, 95330 * 1048576::bigint, 'HBM3', 3.9e12,
 60e12, 417.5e12, 835.5e12, 835.5e12, 1670.5e12, 1670.5e12,
 400, 'nvlink', 'NVLink bridge (pairs), 600 GB/s', 600e9,
 'PCIe 5.0 x16', 64e9, 2023, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'PCIe dual-slot card with 94 GB per GPU, deployed as NVLink-bridged pairs. Dense rates; datasheet sparse figures halved. The driver reports 99961274368 bytes (95330 MiB). Azure NC H100 v5.',
 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet', '2026-11-22'),

-- H200 datasheet, SXM column: same tensor core as H100 SXM, 141 GB HBM3e at
-- 4.8 TB/s, 700 W.  nvidia-smi reports 143771 MiB.
('h200-sxm-141gb', 'NVIDIA H200 SXM 141GB', 'NVIDIA', 'gpu', 'sxm', 1,
 141 * 1073741824::bigint, 143771 * 1048576::bigint, 'HBM3e', 4.8e12,
 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 1978.9e12,
 700, 'nvlink', 'NVLink 4 (18 links) via NVSwitch', 900e9,
 'PCIe 5.0 x16', 64e9, 2024, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'Dense rates; datasheet sparse figures halved. H100 compute with 141 GB and 4.8 TB/s.',
 'https://www.nvidia.com/en-us/data-center/h200/', '2026-11-22'),

-- H200 NVL column (sparse): 835 tf32, 1671 fp16/bf16, 3341 fp8/int8; 60 fp32;
-- up to 600 W; 2- or 4-way NVLink bridge at 900 GB/s.
('h200-nvl-141gb', 'NVIDIA H200 NVL 141GB', 'NVIDIA', 'gpu', 'pcie', 1,
 141 * 1073741824::bigint, NULL, 'HBM3e', 4.8e12,
 60e12, 417.5e12, 835.5e12, 835.5e12, 1670.5e12, 1670.5e12,
 600, 'nvlink', 'NVLink bridge (2- or 4-way), 900 GB/s', 900e9,
 'PCIe 5.0 x16', 64e9, 2024, NULL,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'PCIe card, air-cooled, configurable up to 600 W. Dense rates; datasheet sparse figures halved.',
 'https://www.nvidia.com/en-us/data-center/h200/', '2026-11-22'),

-- ===================================================================
-- NVIDIA Blackwell
-- ===================================================================

-- HGX B200 (8 GPUs, sparse): 18 PF tf32, 36 PF fp16/bf16, 72 PF fp8/int8,
-- 600 TF fp32 -> per GPU dense: 1.125 PF, 2.25 PF, 4.5 PF; 75 TF fp32.
-- Shipping HGX B200 boards carry 180 GB (nvidia-smi 183359 MiB).
('b200', 'NVIDIA B200 (HGX, 180GB)', 'NVIDIA', 'gpu', 'sxm', 1,
 180 * 1073741824::bigint, 183359 * 1048576::bigint, 'HBM3e', 8e12,
 75e12, 1125e12, 2250e12, 2250e12, 4500e12, 4500e12,
 1000, 'nvlink', 'NVLink 5 (18 links) via NVSwitch', 1.8e12,
 NULL, NULL, 2024, NULL,
 true, true, true, 'PyTorch (CUDA 12.8+), JAX',
 'Not the GB200: an x86-hosted HGX/DGX part at 1000 W. Announced with 192 GB; HGX boards ship 180 GB. Dense rates; the HGX table is with sparsity, halved here. FP4 (not stored) doubles fp8. Driver-reported bus width implies about 7.7 TB/s rather than the quoted 8 TB/s.',
 'https://www.nvidia.com/en-us/data-center/hgx/', '2026-11-22'),

-- GB200 NVL72 rack (72 GPUs, sparse): 180 PF tf32, 360 PF fp16/bf16, 720 PF
-- fp8, 720 POPS int8, 13.4 TB HBM3e, 576 TB/s -> per GPU dense 1.25 / 2.5 / 5
-- / 5 PF, 186 GB, 8 TB/s.
('gb200', 'NVIDIA GB200 (Blackwell GPU in GB200 NVL72)', 'NVIDIA', 'gpu', 'board', 1,
 186 * 1073741824::bigint, NULL, 'HBM3e', 8e12,
 NULL, 1250e12, 2500e12, 2500e12, 5000e12, 5000e12,
 NULL, 'nvlink', 'NVLink 5 (18 links), 72-GPU NVLink domain', 1.8e12,
 'NVLink-C2C to Grace CPU (900 GB/s both directions)', 450e9, 2024, NULL,
 true, true, true, 'PyTorch (CUDA 12.8+), JAX',
 'Not the B200: each superchip pairs two Blackwell GPUs with a Grace CPU over NVLink-C2C, liquid-cooled, in a 72-GPU NVLink domain; higher clocks than HGX B200. Per-GPU figures are the NVL72 rack figures divided by 72, sparsity halved. NVIDIA quotes power per superchip (up to 2.7 kW for two GPUs and a CPU), not per GPU, so tdp is left unknown.',
 'https://www.nvidia.com/en-us/data-center/gb200-nvl72/', '2026-11-22'),

-- ===================================================================
-- NVIDIA GeForce (fp16/bf16/fp8 stored at the fp32-accumulate rate)
-- ===================================================================

-- Ampere GA102 whitepaper, RTX 3090: fp16 tensor 142 (fp16 acc) / 71 (fp32
-- acc) dense; bf16 71; tf32 35.6; int8 284; fp32 35.6.
('rtx-3090', 'NVIDIA GeForce RTX 3090 24GB', 'NVIDIA', 'gpu', 'card', 1,
 24 * 1073741824::bigint, 24576 * 1048576::bigint, 'GDDR6X', 936e9,
 35.6e12, 35.6e12, 71e12, 71e12, NULL, 284e12,
 350, 'pcie', 'PCIe 4.0 x16 (NVLink 3 bridge for pairs, 112.5 GB/s)', 64e9,
 'PCIe 4.0 x16', 32e9, 2020, 1499,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'fp16/bf16 stored at the fp32-accumulate tensor rate (71 TFLOPS), half the advertised 142 TFLOPS fp16-accumulate rate. No ECC. ~$800 used (the guide "Hardware for ML Practitioners").',
 'https://images.nvidia.com/aem-dam/en-zz/Solutions/geforce/ampere/pdf/NVIDIA-ampere-GA102-GPU-Architecture-Whitepaper-V1.pdf', '2026-11-22'),

-- Ada whitepaper appendix, RTX 4090 (dense | sparse): fp16 tensor with fp16
-- accumulate 330.3 | 660.6, with fp32 accumulate 165.2 | 330.3; bf16 165.2;
-- tf32 82.6 | 165.2; fp8 with fp32 accumulate 330.3 (660.6 with fp16
-- accumulate); int8 660.6 | 1321.2; fp32 82.6.  Cross-checked against a
-- transcription of the appendix (github.com/lamonoai/gpumap nvidia/GPU.md:
-- 165 / 83 / 661) and hmc-tech's RTX 4090 page (Tensor FP16-32 165.2,
-- FP8-32 330.3, INT8 660.6); an mma.sync microbenchmark on a 4090 measures
-- the same 2:1 ratio between fp16 and fp32 accumulation.
('rtx-4090', 'NVIDIA GeForce RTX 4090 24GB', 'NVIDIA', 'gpu', 'card', 1,
 24 * 1073741824::bigint, 24564 * 1048576::bigint, 'GDDR6X', 1008e9,
 82.6e12, 82.6e12, 165.2e12, 165.2e12, 330.3e12, 660.6e12,
 450, 'pcie', 'PCIe 4.0 x16 (no NVLink)', 64e9,
 'PCIe 4.0 x16', 32e9, 2022, 1599,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'fp16/bf16 stored at the dense fp32-accumulate tensor rate: 165.2 TFLOPS, half the 330.3 fp16-accumulate figure and a quarter of the 660.6 sparse figure; fp8 likewise 330.3. About 2.3x the RTX 3090 (71), in line with the guide "Hardware for ML Practitioners" ("about 2x faster in raw FLOPS"). Peer-to-peer over PCIe is disabled by the driver. ~$1600 new (the guide "Hardware for ML Practitioners").',
 'https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf', '2026-11-22'),

-- Ada whitepaper appendix, RTX 4080 16GB (dense): fp16 with fp16 accumulate
-- 194.9, with fp32 accumulate 97.5; bf16 97.5; tf32 48.7; fp8 with fp32
-- accumulate 194.9; int8 389.9; fp32 48.7 (transcription in
-- lamonoai/gpumap nvidia/GPU.md: 97 / 49 / 390).
('rtx-4080', 'NVIDIA GeForce RTX 4080 16GB', 'NVIDIA', 'gpu', 'card', 1,
 16 * 1073741824::bigint, NULL, 'GDDR6X', 716.8e9,
 48.7e12, 48.7e12, 97.5e12, 97.5e12, 194.9e12, 389.9e12,
 320, 'pcie', 'PCIe 4.0 x16 (no NVLink)', 64e9,
 'PCIe 4.0 x16', 32e9, 2022, 1199,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'fp16/bf16/fp8 stored at the fp32-accumulate tensor rate (half the fp16-accumulate figure).',
 'https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf', '2026-11-22'),

-- RTX 4070 Ti 12GB (dense; the Ada whitepaper lists it as the RTX 4080 12GB,
-- renamed before launch): fp16 with fp16 accumulate 160.4, with fp32
-- accumulate 80.2; bf16 80.2; tf32 40.1; fp8 with fp32 accumulate 160.4;
-- int8 320.8; fp32 40.1 (transcription: 80 / 40 / 321).
('rtx-4070-ti', 'NVIDIA GeForce RTX 4070 Ti 12GB', 'NVIDIA', 'gpu', 'card', 1,
 12 * 1073741824::bigint, NULL, 'GDDR6X', 504e9,
 40.1e12, 40.1e12, 80.2e12, 80.2e12, 160.4e12, 320.8e12,
 285, 'pcie', 'PCIe 4.0 x16 (no NVLink)', 64e9,
 'PCIe 4.0 x16', 32e9, 2023, 799,
 true, true, true, 'PyTorch (CUDA), JAX, TensorFlow',
 'fp16/bf16/fp8 stored at the fp32-accumulate tensor rate (half the fp16-accumulate figure).',
 'https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf', '2026-11-22'),

-- RTX Blackwell whitepaper appendix, RTX 5090 (dense): fp16 with fp16
-- accumulate 419, with fp32 accumulate 209.5; bf16 209.5; tf32 104.8; fp8
-- with fp32 accumulate 419; int8 838; fp32 104.8.  The PDF itself was not
-- read; the figures agree in two independent transcriptions (the "Spec"
-- column of main-horse.github.io/posts/5090-mm-perf and lamonoai/gpumap
-- nvidia/GPU.md: 210 / 419 / 838).  nvidia-smi 32607 MiB.
('rtx-5090', 'NVIDIA GeForce RTX 5090 32GB', 'NVIDIA', 'gpu', 'card', 1,
 32 * 1073741824::bigint, 32607 * 1048576::bigint, 'GDDR7', 1792e9,
 104.8e12, 104.8e12, 209.5e12, 209.5e12, 419e12, 838e12,
 575, 'pcie', 'PCIe 5.0 x16 (no NVLink)', 128e9,
 'PCIe 5.0 x16', 64e9, 2025, 1999,
 true, true, true, 'PyTorch (CUDA 12.8+), JAX',
 'fp16/bf16/fp8 stored at the whitepaper fp32-accumulate tensor rate, half the fp16-accumulate figure and a quarter of the advertised sparse figure (838 TFLOPS fp16). Measurements run above it: main-horse.github.io/posts/5090-mm-perf reports torch.matmul bf16 at 224 TFLOPS, so treat 209.5 as a conservative floor, not a measured ceiling. FP4 (not stored) doubles fp8. Consumer Blackwell (sm_120) lacks the data-centre tcgen05 path.',
 'https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf', '2026-11-22'),

-- ===================================================================
-- AMD
-- ===================================================================

-- TechPowerUp: Navi 12, 8 GB HBM2, 512 GB/s, 7.373 TFLOPS fp32, 14.75 fp16.
('radeon-pro-v520', 'AMD Radeon PRO V520 8GB', 'AMD', 'gpu', 'pcie', 1,
 8 * 1073741824::bigint, NULL, 'HBM2', 512e9,
 7.373e12, NULL, 14.75e12, NULL, NULL, NULL,
 225, 'pcie', 'PCIe 4.0 x16', 64e9,
 'PCIe 4.0 x16', 32e9, 2020, NULL,
 false, true, false, 'No official ROCm support (Navi 12, gfx1011); ONNX Runtime / DirectML on Windows',
 'A graphics/VDI part (AWS g4ad). No matrix cores; fp16 is packed math at twice fp32. Training frameworks do not officially support it, hence can_train false.',
 'https://www.techpowerup.com/gpu-specs/radeon-pro-v520.c3755', '2026-11-22'),

-- MI210 datasheet: 22.6 fp32 vector (45.3 matrix), 181 fp16/bf16, 181 int8,
-- 64 GB HBM2e 1.6 TB/s, 300 W, Infinity Fabric Link bridge up to 300 GB/s.
('mi210', 'AMD Instinct MI210 64GB', 'AMD', 'gpu', 'pcie', 1,
 64 * 1073741824::bigint, NULL, 'HBM2e', 1.6e12,
 22.6e12, NULL, 181e12, 181e12, NULL, 181e12,
 300, 'pcie', 'PCIe 4.0 x16 (optional Infinity Fabric Link bridge, up to 300 GB/s)', 64e9,
 'PCIe 4.0 x16', 32e9, 2022, NULL,
 true, true, false, 'PyTorch (ROCm), JAX (ROCm), TensorFlow (ROCm)',
 'CDNA 2. fp32 stored at the vector rate; fp32 matrix ops run at 45.3 TFLOPS. No tf32, no fp8.',
 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html', '2026-11-22'),

-- MI250 datasheet (per OAM): 45.3 fp32 vector, 362.1 fp16/bf16/int8,
-- 128 GB, 3.2 TB/s, 500 W -> per GCD half of each.
('mi250', 'AMD Instinct MI250 (one GCD of two)', 'AMD', 'gpu', 'oam', 2,
 64 * 1073741824::bigint, NULL, 'HBM2e', 1.6e12,
 22.65e12, NULL, 181.05e12, 181.05e12, NULL, 181.05e12,
 250, 'infinity_fabric', 'Infinity Fabric (per GCD: half of the OAM''s external links)', 400e9,
 'PCIe 4.0 x16', 32e9, 2021, NULL,
 true, true, false, 'PyTorch (ROCm), JAX (ROCm), TensorFlow (ROCm)',
 'One row per GCD: an MI250 OAM is two 64 GB GPUs that software sees as two devices. Board: 128 GB, 3.2 TB/s, 362.1 TFLOPS fp16, 500 W.',
 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html', '2026-11-22'),

-- MI250X (per OAM): 47.9 fp32 vector (95.7 matrix), 383 fp16/bf16/int8,
-- 128 GB, 3.2 TB/s (AMD's MI200 table as reproduced by zexron.com), 560 W
-- (the MI250 is the 500 W part; yobitel.com/knowledge-base/amd-mi250), up
-- to 800 GB/s Infinity Fabric.
('mi250x', 'AMD Instinct MI250X (one GCD of two)', 'AMD', 'gpu', 'oam', 2,
 64 * 1073741824::bigint, NULL, 'HBM2e', 1.6e12,
 23.95e12, NULL, 191.5e12, 191.5e12, NULL, 191.5e12,
 280, 'infinity_fabric', 'Infinity Fabric (per GCD: half of the OAM''s 800 GB/s)', 400e9,
 'PCIe 4.0 x16', 32e9, 2021, NULL,
 true, true, false, 'PyTorch (ROCm), JAX (ROCm), TensorFlow (ROCm)',
 'One row per GCD: an MI250X OAM is two 64 GB GPUs that software sees as two devices (Frontier, LUMI). Board: 128 GB, 3.2 TB/s, 383 TFLOPS fp16, 560 W.',
 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html', '2026-11-22'),

-- MI300X datasheet: 81.7 fp32 vector, 653.7 tf32, 1307.4 fp16/bf16, 2614.9
-- fp8/int8 (dense; sparse doubles), 192 GB HBM3, 5.3 TB/s, 750 W, 7 Infinity
-- Fabric links of 128 GB/s = 896 GB/s.
('mi300x', 'AMD Instinct MI300X 192GB', 'AMD', 'gpu', 'oam', 1,
 192 * 1073741824::bigint, NULL, 'HBM3', 5.3e12,
 81.7e12, 653.7e12, 1307.4e12, 1307.4e12, 2614.9e12, 2614.9e12,
 750, 'infinity_fabric', 'Infinity Fabric (7 links, 128 GB/s each)', 896e9,
 'PCIe 5.0 x16', 64e9, 2023, NULL,
 true, true, false, 'PyTorch (ROCm), JAX (ROCm), vLLM',
 'CDNA 3. Dense rates (the datasheet prints dense and sparse separately).',
 'https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf', '2026-11-22'),

-- MI325X datasheet: MI300X compute, 256 GB HBM3E at 6 TB/s, 1000 W.
('mi325x', 'AMD Instinct MI325X 256GB', 'AMD', 'gpu', 'oam', 1,
 256 * 1073741824::bigint, NULL, 'HBM3e', 6e12,
 81.7e12, 653.7e12, 1307.4e12, 1307.4e12, 2614.9e12, 2614.9e12,
 1000, 'infinity_fabric', 'Infinity Fabric (7 links, 128 GB/s each)', 896e9,
 'PCIe 5.0 x16', 64e9, 2024, NULL,
 true, true, false, 'PyTorch (ROCm), JAX (ROCm), vLLM',
 'CDNA 3 with more and faster memory than MI300X; same peak compute.',
 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html', '2026-11-22'),

-- ===================================================================
-- Intel Gaudi (HPU)
-- ===================================================================

-- Gaudi 2: 96 GB HBM2e, 2.45 TB/s, 432 TFLOPS bf16 and 865 fp8 (matrix
-- engines), 600 W, 24 x 100 GbE RoCE on chip (300 GB/s each way).
('gaudi2', 'Intel Gaudi 2 96GB', 'Intel', 'hpu', 'oam', 1,
 96 * 1073741824::bigint, NULL, 'HBM2e', 2.45e12,
 NULL, NULL, 432e12, 432e12, 865e12, NULL,
 600, 'ethernet', '24 x 100 GbE RoCE v2 on chip (21 for scale-up in an 8-card server)', 600e9,
 'PCIe 4.0 x16', 32e9, 2022, NULL,
 true, true, false, 'PyTorch via Intel Gaudi software (SynapseAI), Optimum Habana, DeepSpeed',
 'Matrix-engine rates; vector fp32 rate not published in the same table. Scale-up is Ethernet, not NVLink.',
 'https://www.intel.com/content/www/us/en/products/details/processors/ai-accelerators/gaudi2.html', '2026-11-22'),

-- Gaudi 3: 128 GB HBM2e, 3.7 TB/s, 1835 TFLOPS bf16 and fp8 (matrix),
-- 28.7 TFLOPS bf16 vector, 900 W OAM, 24 x 200 GbE (600 GB/s each way).
('gaudi3', 'Intel Gaudi 3 128GB', 'Intel', 'hpu', 'oam', 1,
 128 * 1073741824::bigint, NULL, 'HBM2e', 3.7e12,
 NULL, NULL, 1835e12, 1835e12, 1835e12, NULL,
 900, 'ethernet', '24 x 200 GbE RoCE v2 on chip', 1.2e12,
 'PCIe 5.0 x16', 64e9, 2024, NULL,
 true, true, false, 'PyTorch via Intel Gaudi software, Optimum Habana, vLLM (Gaudi)',
 'fp8 matrix rate equals bf16 (no 2x). Matrix-engine rates; fp32 and fp16 run through the bf16 path or the much slower vector units. Intel quoted about $15,600 per chip in an 8-card kit.',
 'https://www.intel.com/content/www/us/en/content-details/817486/intel-gaudi-3-ai-accelerator-white-paper.html', '2026-11-22'),

-- ===================================================================
-- Google TPU (Cloud TPU docs, per chip)
-- ===================================================================

-- v4: 275 TFLOPS bf16, 32 GiB HBM2, 1200 GB/s; measured max power 192 W.
('tpu-v4', 'Google Cloud TPU v4', 'Google', 'tpu', 'board', 1,
 32 * 1073741824::bigint, NULL, 'HBM2', 1200e9,
 NULL, NULL, NULL, 275e12, NULL, NULL,
 192, 'ici', 'ICI, 3D torus (4096-chip pods)', NULL,
 NULL, NULL, 2021, NULL,
 true, true, false, 'JAX, PyTorch/XLA, TensorFlow',
 'Only bf16 matrix throughput is published; fp32 runs as multi-pass bf16. TDP is the measured maximum power in the Cloud TPU docs. Rented per chip-hour on GCP, never sold.',
 'https://cloud.google.com/tpu/docs/v4', '2026-11-22'),

-- v5e: 197 TFLOPS bf16, 393 TOPS int8, 16 GB HBM2 at 819 GB/s, 400 GB/s
-- bidirectional ICI per chip, 8 chips per host.
('tpu-v5e', 'Google Cloud TPU v5e', 'Google', 'tpu', 'board', 1,
 16 * 1073741824::bigint, NULL, 'HBM2', 819e9,
 NULL, NULL, NULL, 197e12, NULL, 393e12,
 NULL, 'ici', 'ICI, 2D torus (256-chip pods), 4 ports per chip', 400e9,
 NULL, NULL, 2023, NULL,
 true, true, false, 'JAX, PyTorch/XLA, TensorFlow',
 'Cost-optimised TPU for training and serving. Only bf16 and int8 rates are published; power not published.',
 'https://cloud.google.com/tpu/docs/v5e', '2026-11-22'),

-- v5p: 459 TFLOPS bf16 (and fp8), 95 GiB HBM2e at 2765 GB/s, 1200 GB/s
-- bidirectional ICI per chip.
('tpu-v5p', 'Google Cloud TPU v5p', 'Google', 'tpu', 'board', 1,
 95 * 1073741824::bigint, NULL, 'HBM2e', 2765e9,
 NULL, NULL, NULL, 459e12, 459e12, NULL,
 NULL, 'ici', 'ICI, 3D torus (8960-chip pods)', 1200e9,
 NULL, NULL, 2023, NULL,
 true, true, false, 'JAX, PyTorch/XLA, TensorFlow',
 'Training-class TPU; two TensorCores per chip. The docs list fp8 at the bf16 rate. Power not published.',
 'https://cloud.google.com/tpu/docs/v5p', '2026-11-22'),

-- v6e (Trillium): 918 TFLOPS bf16, 1836 TOPS int8, 32 GB HBM at 1638 GB/s,
-- 800 GB/s bidirectional ICI, PCIe Gen5 to the host.
('tpu-v6e', 'Google Cloud TPU v6e (Trillium)', 'Google', 'tpu', 'board', 1,
 32 * 1073741824::bigint, NULL, 'HBM', 1638e9,
 NULL, NULL, NULL, 918e12, NULL, 1836e12,
 NULL, 'ici', 'ICI, 2D torus (256-chip pods), 4 ports per chip', 800e9,
 'PCIe 5.0', NULL, 2024, NULL,
 true, true, false, 'JAX, PyTorch/XLA, TensorFlow',
 'Only bf16 and int8 rates are published; power not published.',
 'https://cloud.google.com/tpu/docs/v6e', '2026-11-22'),

-- ===================================================================
-- Apple Silicon (unified memory; GPU through Metal / MPS)
-- ===================================================================

-- GPU fp32: M2 Ultra 76-core: Apple states "up to 27.2 teraflops" (Mac Pro
-- page).  M3 Max 40-core: 14.32 TFLOPS on hmc-tech (5120 ALUs x 2 x 1398
-- MHz).  M4 Max 40-core: UNVERIFIED, 17.2 is hmc-tech's 32-core figure
-- (13.74, 4096 ALUs at 1678 MHz) scaled by 40/32 on the assumption of the
-- same clock; no published 40-core figure was read.  M3 Ultra: UNVERIFIED,
-- twice the M3 Max.  hmc-tech lists fp16 at the fp32 rate.  Memory:
-- largest configuration.
('apple-m2-ultra', 'Apple M2 Ultra (76-core GPU, 192GB)', 'Apple', 'soc', 'soc', 1,
 192 * 1073741824::bigint, NULL, 'LPDDR5 (unified)', 800e9,
 27.2e12, NULL, 27.2e12, NULL, NULL, NULL,
 295, 'none', 'none (single SoC; Thunderbolt between machines)', NULL,
 NULL, NULL, 2023, NULL,
 true, true, false, 'PyTorch (MPS backend), MLX, llama.cpp (Metal), Core ML',
 'Unified memory shared with the CPU; Metal caps the GPU working set below total RAM by default (raise with sysctl iogpu.wired_limit_mb). fp32 is Apple''s own 27.2 TFLOPS figure for the 76-core GPU. Trains through PyTorch MPS, far slower than CUDA GPUs; the 31.6 TOPS Neural Engine is reachable only through Core ML. TDP is the Mac Studio maximum continuous power. Mac Studio with M2 Ultra started at $3,999 (60-core GPU, 64 GB).',
 'https://www.apple.com/pl/mac-pro/ (Apple, M2 Ultra: GPU with up to 76 cores, up to 27.2 TFLOPS, up to 192 GB)', '2026-11-22'),

('apple-m3-max', 'Apple M3 Max (40-core GPU, 128GB)', 'Apple', 'soc', 'soc', 1,
 128 * 1073741824::bigint, 115448725422, 'LPDDR5 (unified)', 400e9,
 14.32e12, NULL, 14.32e12, NULL, NULL, NULL,
 NULL, 'none', 'none (single SoC)', NULL,
 NULL, NULL, 2023, NULL,
 true, true, false, 'PyTorch (MPS backend), MLX, llama.cpp (Metal), Core ML',
 'Unified memory; usable is Metal''s default recommendedMaxWorkingSetSize measured on 128 GiB Macs (107.52 GiB). Trains through PyTorch MPS, far slower than CUDA GPUs; fine for inference and development.',
 'https://hmc-tech.com/gpu/apple-8-core-m4-fl-vs-apple-40-core-m3-max', '2026-11-22'),

('apple-m4-max', 'Apple M4 Max (40-core GPU, 128GB)', 'Apple', 'soc', 'soc', 1,
 128 * 1073741824::bigint, 115448725422, 'LPDDR5X (unified)', 546e9,
 17.2e12, NULL, 17.2e12, NULL, NULL, NULL,
 NULL, 'none', 'none (single SoC)', NULL,
 NULL, NULL, 2024, NULL,
 true, true, false, 'PyTorch (MPS backend), MLX, llama.cpp (Metal), Core ML',
 'Unified memory at 546 GB/s; usable is Metal''s default working-set limit measured on 128 GiB Macs (107.52 GiB). Unverified fp32: the 32-core figure (13.74 TFLOPS) scaled to 40 cores at the same clock. Training via MPS is slow compared with CUDA.',
 'https://hmc-tech.com/gpu/apple-32-core-m4-max-vs-apple-60-core-m2-ultra', '2026-11-22'),

('apple-m3-ultra', 'Apple M3 Ultra (80-core GPU, 512GB)', 'Apple', 'soc', 'soc', 1,
 512 * 1073741824::bigint, NULL, 'LPDDR5 (unified)', 819e9,
 28.6e12, NULL, 28.6e12, NULL, NULL, NULL,
 NULL, 'none', 'none (single SoC; Thunderbolt 5 between machines)', NULL,
 NULL, NULL, 2025, NULL,
 true, true, false, 'PyTorch (MPS backend), MLX, llama.cpp (Metal), Core ML',
 'Two M3 Max dies: unverified fp32, taken as twice the 40-core M3 Max (14.32 TFLOPS). Up to 512 GB unified memory at 819 GB/s makes it an inference box for very large quantized models; Metal caps the GPU working set below total RAM by default.',
 'https://www.apple.com/newsroom/2025/03/apple-unveils-new-mac-studio-the-most-powerful-mac-ever/', '2026-11-22'),

-- ===================================================================
-- Non-GPU accelerators ("alternatives to GPUs" in
-- the article "Hardware Requirements for Training of Language Models")
-- ===================================================================

-- AWS Neuron docs: Inferentia2 chip = 2 NeuronCore-v2, 190 TFLOPS
-- fp16/bf16/cfp8/tf32, 380 TOPS int8, 47.5 TFLOPS fp32, 32 GiB HBM, 820 GB/s.
('inferentia2', 'AWS Inferentia2', 'AWS', 'asic', 'board', 1,
 32 * 1073741824::bigint, NULL, 'HBM', 820e9,
 47.5e12, 190e12, 190e12, 190e12, 190e12, 380e12,
 NULL, 'other', 'NeuronLink-v2 between chips in an inf2 instance', NULL,
 NULL, NULL, 2023, NULL,
 false, true, false, 'PyTorch and JAX through the AWS Neuron SDK (torch-neuronx, optimum-neuron, vLLM Neuron)',
 'Inference part (AWS: "only for inference"); training runs on Trainium. Models are compiled ahead of time by the Neuron compiler. AWS docs quote the bandwidth both as 820 GB/s and 820 GiB/s; the smaller is stored.',
 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/inferentia2.html', '2026-11-22'),

('trainium', 'AWS Trainium (Trn1)', 'AWS', 'asic', 'board', 1,
 32 * 1073741824::bigint, NULL, 'HBM', 820e9,
 47.5e12, 190e12, 190e12, 190e12, 190e12, 380e12,
 NULL, 'other', 'NeuronLink-v2 (2D torus of 16 chips in trn1.32xlarge)', NULL,
 NULL, NULL, 2022, NULL,
 true, true, false, 'PyTorch and JAX through the AWS Neuron SDK (torch-neuronx, NeuronX Distributed, optimum-neuron)',
 'Same NeuronCore-v2 as Inferentia2, built for training: stochastic rounding, NeuronLink memory pooling. Ahead-of-time compilation; not every PyTorch op is supported.',
 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trainium.html', '2026-11-22'),

-- Trainium2: 8 NeuronCore-v3, 1299 fp8, 667 bf16/fp16/tf32, 181 fp32 TFLOPS
-- (dense; sparse listed separately), 96 GiB HBM at 2.9 TB/s.
('trainium2', 'AWS Trainium2 (Trn2)', 'AWS', 'asic', 'board', 1,
 96 * 1073741824::bigint, NULL, 'HBM', 2.9e12,
 181e12, 667e12, 667e12, 667e12, 1299e12, NULL,
 NULL, 'other', 'NeuronLink-v3 (4 links per chip)', NULL,
 NULL, NULL, 2024, NULL,
 true, true, false, 'PyTorch and JAX through the AWS Neuron SDK (NxD Training, NxD Inference, vLLM Neuron)',
 'Dense rates; the Neuron docs list the sparse figure (2,563 TFLOPS) separately.',
 'https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/_sources/about-neuron/arch/neuron-hardware/trainium2.rst', '2026-11-22'),

-- Cerebras WSE-3: 44 GB on-wafer SRAM, 21 PB/s, 900,000 cores, "125
-- petaflops of peak AI compute" (sparse, not comparable), CS-3 ~23 kW.
('cerebras-wse3', 'Cerebras WSE-3 (CS-3)', 'Cerebras', 'wse', 'wafer', 1,
 44000000000, NULL, 'on-wafer SRAM', 21e15,
 NULL, NULL, NULL, NULL, NULL, NULL,
 23000, 'other', 'SwarmX fabric to MemoryX weight store', NULL,
 NULL, NULL, 2024, NULL,
 true, true, false, 'PyTorch through the Cerebras software platform (Model Zoo); inference through Cerebras Cloud API',
 'A whole wafer as one chip. Weights stream from MemoryX (up to petabytes), so model size is not bounded by the 44 GB SRAM; the engine''s per-GPU memory fit does not apply. Cerebras quotes 125 PFLOPS of peak AI compute, which counts sparsity; no dense figure is published, so FLOP/s are unknown. TDP is the CS-3 system.',
 'https://www.cerebras.net/product-chip/', '2026-11-22'),

-- FuriosaAI RNGD: 256 TFLOPS bf16, 512 fp8, 512 TOPS int8, 48 GB HBM3 at
-- 1.5 TB/s, 180 W, PCIe Gen5 x16.
('furiosa-rngd', 'FuriosaAI RNGD', 'FuriosaAI', 'npu', 'pcie', 1,
 48 * 1073741824::bigint, NULL, 'HBM3', 1.5e12,
 NULL, NULL, NULL, 256e12, 512e12, 512e12,
 180, 'pcie', 'PCIe 5.0 x16', 128e9,
 'PCIe 5.0 x16', 64e9, 2024, NULL,
 false, true, false, 'Furiosa SDK (PyTorch 2.x front end, vLLM-compatible server)',
 'Inference-only NPU (Tensor Contraction Processor) aimed at air-cooled LLM serving. TDP 180 W per the product specification (150 W was the 2024 preview target).',
 'https://furiosa-runtime-docs.pages.dev/overview/rngd/', '2026-11-22'),

-- Graphcore Bow IPU, from the Bow-2000 datasheet (four Bow IPUs per 1U
-- machine): 1.4 PFLOPS FP16.16 (fp16 multiply, fp16 accumulate) and 3.6 GB
-- In-Processor-Memory per machine -> 350 TFLOPS and 900 MB per IPU
-- (Graphcore also quotes "up to 350 teraFLOPS of AI compute" per Bow IPU).
-- Not confirmed from any source read, so left unknown: SRAM bandwidth, the
-- fp32 and FP16.32 rates, per-IPU link bandwidth (the datasheet gives
-- "IPU-Link 512Gbps" without saying per link or per machine), and power.
('graphcore-bow-ipu', 'Graphcore Bow IPU', 'Graphcore', 'ipu', 'board', 1,
 900000000, NULL, 'in-processor SRAM', NULL,
 NULL, NULL, 350e12, NULL, NULL, NULL,
 NULL, 'other', 'IPU-Links between IPUs in a Bow-2000 and across Bow Pods', NULL,
 'Host-Link: PCIe Gen4 RoCEv2 NIC in the Bow-2000 (IPUs are not host PCIe cards)', NULL, 2022, NULL,
 true, true, false, 'PopTorch (PyTorch) and TensorFlow through the Poplar SDK',
 'fp16 rate is FP16.16 (fp16 accumulate); mixed-precision training with fp32 accumulation runs slower and its rate is not stored. Weights beyond the 900 MB SRAM live in Streaming Memory (Bow-2000: up to 256 GB per 4 IPUs). Small cloud footprint; Graphcore was acquired by SoftBank in 2024, so check SDK support before planning on it.',
 'https://docs.graphcore.ai/projects/bow-2000-datasheet/en/latest/overview.html', '2026-11-22'),

-- Groq LPU (GroqChip, TSP): 230 MB SRAM, 80 TB/s, 750 TOPS int8, 188 TFLOPS fp16.
('groq-lpu', 'Groq LPU (GroqChip)', 'Groq', 'lpu', 'pcie', 1,
 230000000, NULL, 'on-chip SRAM', 80e12,
 NULL, NULL, 188e12, NULL, NULL, 750e12,
 NULL, 'other', 'RealScale chip-to-chip links', NULL,
 'PCIe 4.0 x16', 32e9, 2020, NULL,
 false, true, false, 'GroqCloud API (models compiled and hosted by Groq)',
 'Inference only. Large models are spread over hundreds of chips because each holds only 230 MB; in practice reached through the GroqCloud API rather than bought.',
 'https://techpowerup.com/news-tags/Processor?page=3', '2026-11-22'),

-- Qualcomm Cloud AI SDK architecture page: the AI 100 Ultra card carries four
-- AI 100 SoCs behind a PCIe switch; card totals 128 GB LPDDR4x, 548 GB/s,
-- 290 TFLOPS fp16, 870 TOPS int8, 150 W -> per SoC 32 GB, 137 GB/s, 72.5
-- TFLOPS, 217.5 TOPS, 37.5 W; each SoC links to the switch by PCIe Gen4 x8.
('qualcomm-ai100-ultra', 'Qualcomm Cloud AI 100 Ultra (one SoC of four)', 'Qualcomm', 'asic', 'pcie', 4,
 32 * 1073741824::bigint, NULL, 'LPDDR4x', 137e9,
 NULL, NULL, 72.5e12, NULL, NULL, 217.5e12,
 37.5, 'pcie', 'PCIe 4.0 x8 per SoC to an on-card switch (card: Gen4 x16 to the host)', 32e9,
 'PCIe 4.0 x8', 16e9, 2023, NULL,
 false, true, false, 'Qualcomm Cloud AI SDK (ONNX, PyTorch export), vLLM plugin',
 'Inference only. One row per AI 100 SoC; the Ultra card is four of them (128 GB, 290 TFLOPS fp16, 870 TOPS int8, 150 W). AWS DL2q instances carry the single-SoC Cloud AI 100 Standard.',
 'https://quic.github.io/cloud-ai-sdk-pages/latest/Getting-Started/Architecture', '2026-11-22'),

-- AMD Ryzen AI 300 (XDNA 2) NPU: up to 50 TOPS int8; uses system memory.
('amd-ryzen-ai-npu', 'AMD Ryzen AI NPU (XDNA 2, Ryzen AI 300)', 'AMD', 'npu', 'soc', 1,
 NULL, NULL, 'system LPDDR5X (shared)', NULL,
 NULL, NULL, NULL, NULL, NULL, 50e12,
 NULL, 'none', 'none (laptop SoC block)', NULL,
 NULL, NULL, 2024, NULL,
 false, true, false, 'ONNX Runtime with the Vitis AI execution provider (Ryzen AI Software)',
 'A laptop NPU for local inference of small quantized models; shares system memory, so no memory figure of its own. Not a training device.',
 'https://www.amd.com/en/products/processors/consumer/ryzen-ai.html', '2026-11-22');
