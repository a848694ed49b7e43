/*
 * gpu.h - what the estimation engine needs to know about an accelerator.
 *
 * A plain value type shared by the catalog (which fills it from PostgreSQL)
 * and the engine (which reads it).  No pointers: a struct gpu_spec can be
 * copied with '=' and lives as long as the array that holds it.  Unknown
 * figures are 0 and mean "unknown / not supported"; the engine never divides
 * by one without checking.
 *
 * Units are base units: bytes, bytes per second, FLOP per second, watts.
 * Throughput figures are dense (no 2:4 sparsity) peak rates of the tensor /
 * matrix units at that precision; for GeForce cards fp16/bf16 are the rates
 * with fp32 accumulation, which is what training frameworks use.
 */
#ifndef GPUPLAN_CORE_GPU_H
#define GPUPLAN_CORE_GPU_H

#include <stdbool.h>
#include <stdint.h>

#define GPU_ID_MAX 64
/* Display names and vendors are limited in characters (the API's rule,
 * JSON Schema's maxLength); a character takes up to 4 bytes of UTF-8. */
#define GPU_NAME_CHARS   95
#define GPU_VENDOR_CHARS 31
#define GPU_NAME_MAX     (4 * GPU_NAME_CHARS + 1)
#define GPU_VENDOR_MAX   (4 * GPU_VENDOR_CHARS + 1)

enum gpu_precision {
        GPU_FP32 = 0, /* IEEE fp32 on the vector units (no tensor cores) */
        GPU_TF32,     /* tf32 tensor-core rate; 0 where there is none */
        GPU_FP16,
        GPU_BF16,
        GPU_FP8,
        GPU_INT8,
        GPU_PRECISION_COUNT
};

enum gpu_link {
        GPU_LINK_PCIE = 0, /* GPUs talk through PCIe (and the host) */
        GPU_LINK_NVLINK,   /* NVLink / NVSwitch */
        GPU_LINK_INFINITY_FABRIC,
        GPU_LINK_ICI,      /* TPU inter-chip interconnect */
        GPU_LINK_ETHERNET, /* Gaudi's on-chip RoCE ports */
        GPU_LINK_OTHER,
        GPU_LINK_NONE /* single-chip device with no peer link */
};

struct gpu_spec {
        char id[GPU_ID_MAX];         /* catalog id, e.g. "h100-sxm-80gb" */
        char name[GPU_NAME_MAX];     /* "NVIDIA H100 SXM 80GB" */
        char vendor[GPU_VENDOR_MAX]; /* "NVIDIA", "AMD", "Intel", "Google", ... */
        char kind[16];               /* "gpu", "tpu", "npu", "lpu", "ipu", "wse", "soc" */
        uint64_t memory_bytes; /* as marketed: 80 GB = 80e9 or 80 GiB as the vendor means it */
        uint64_t usable_memory_bytes; /* what the driver reports as total; <= memory_bytes */
        double memory_bandwidth_bytes_per_s;
        double flops[GPU_PRECISION_COUNT]; /* dense peak per precision */
        double fp16_accumulate_flops;      /* fp16 with fp16 accumulation where that
                                              runs faster (GeForce); 0 = not faster */
        double tdp_watts;
        enum gpu_link link;
        double link_bytes_per_s;      /* per GPU, one direction, to its peers */
        double host_link_bytes_per_s; /* PCIe to the host, one direction */
        bool can_train;               /* false: inference-only parts */
        bool cuda;                    /* runs the CUDA stack (PyTorch CUDA) */
        int launch_year;
        int sm_count; /* streaming multiprocessors (NVIDIA); 0 = not stated */
};

#endif
