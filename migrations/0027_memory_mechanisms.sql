-- The torchtune README's memory rows were measured with torch.compile on
-- (the table's note: "torch compile enabled"), which compiles
-- CEWithChunkedOutputLoss.compute_cross_entropy: the requests say so, as
-- tests/data/measurements.json does.
UPDATE measurements
   SET request = jsonb_set(request, '{memory_savers,compile}', 'true')
 WHERE id IN ('torchtune-llama3.1-8b-full-4090',
              'torchtune-llama3.1-8b-lora-4090',
              'torchtune-llama3.1-8b-qlora-4090',
              'torchtune-llama3.1-70b-full-8xa100',
              'torchtune-llama3.1-70b-lora-8xa100',
              'torchtune-llama3.1-405b-qlora-8xa100');

-- Streaming multiprocessors per GPU, for the wave quantization of small
-- matmuls (core/speed.c, speed_wave_shares).  From NVIDIA's architecture
-- whitepapers: "NVIDIA Tesla V100 GPU Architecture" (2017, table 1: 80
-- SMs), "NVIDIA A100 Tensor Core GPU Architecture" (2020, table 3: 108),
-- "NVIDIA H100 Tensor Core GPU Architecture" (2022, table 3: H100 SXM5
-- 132, H100 PCIe 114; H200 is the same GH100 configuration as H100 SXM5,
-- H200 product brief 2024), "NVIDIA Ampere GA102 GPU Architecture" (2021:
-- RTX 3090 82, RTX A6000 84, A40 84, A10 72), "NVIDIA Ada GPU
-- Architecture" (2023: RTX 4090 128, RTX 4080 76, RTX 6000 Ada 142, L40
-- and L40S 142; L4 58 per the L4 datasheet, 2023), "NVIDIA Turing GPU
-- Architecture" (2018: Tesla T4 40), "NVIDIA Tesla P100" whitepaper (2016:
-- 56 on the P100 accelerator), "NVIDIA Blackwell Architecture Technical
-- Brief" and NVIDIA's B200 specifications (2024: 148 SMs per B200).
ALTER TABLE accelerators ADD COLUMN sm_count integer CHECK (sm_count > 0);
UPDATE accelerators SET sm_count = 80
 WHERE id IN ('v100-sxm2-16gb', 'v100-sxm2-32gb', 'v100-pcie-16gb', 'v100-pcie-32gb');
UPDATE accelerators SET sm_count = 108
 WHERE id IN ('a100-sxm-80gb', 'a100-sxm-40gb', 'a100-pcie-80gb', 'a100-pcie-40gb');
UPDATE accelerators SET sm_count = 132 WHERE id IN ('h100-sxm-80gb', 'h200-sxm-141gb');
UPDATE accelerators SET sm_count = 114 WHERE id = 'h100-pcie-80gb';
UPDATE accelerators SET sm_count = 82 WHERE id = 'rtx-3090';
UPDATE accelerators SET sm_count = 84 WHERE id IN ('rtx-a6000', 'a40');
UPDATE accelerators SET sm_count = 72 WHERE id = 'a10';
UPDATE accelerators SET sm_count = 128 WHERE id = 'rtx-4090';
UPDATE accelerators SET sm_count = 76 WHERE id = 'rtx-4080';
UPDATE accelerators SET sm_count = 142 WHERE id IN ('rtx-6000-ada', 'l40', 'l40s');
UPDATE accelerators SET sm_count = 58 WHERE id = 'l4';
UPDATE accelerators SET sm_count = 40 WHERE id = 't4';
UPDATE accelerators SET sm_count = 56 WHERE id = 'p100-pcie-16gb';
UPDATE accelerators SET sm_count = 148 WHERE id = 'b200';
