"""time_floors.py - measure the time constants the time model states.

Run on one NVIDIA GPU with PyTorch; nothing is downloaded.  Writes one JSON
document to the path given (default time_floors.json) with:

  kernel_floor    seconds per tiny kernel (a 4,096-element add) launched
                  back to back from eager PyTorch and replayed from a CUDA
                  graph: the fixed cost of a kernel whose bytes take far
                  less time than that
  gemm_clock      the SM clock and board power NVML reports while a dense
                  bf16 8192^3 matmul loop runs, beside the power limit
  optimizer_step  seconds per AdamW step over 2^28 fp32 parameters on the
                  GPU (fused and foreach) and over 2^26 on the CPU (the
                  CPU-offloaded step: bytes moved / host DRAM bandwidth)

Usage: python3 time_floors.py [out.json] [--cpu-only]  (--cpu-only checks
the logic with small sizes on a machine without a GPU).
"""
import json
import sys
import time

import torch


def timed(fn, reps, sync):
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t0) / reps


def kernel_floor(dev, n_kernels):
    x = torch.zeros(4096, device=dev)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)

    def chain():
        for _ in range(n_kernels):
            x.add_(1.0)

    out = {"kernels": n_kernels,
           "eager_s_per_kernel": timed(chain, 20, sync) / n_kernels}
    if dev == "cuda":
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            chain()
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            chain()
        out["graph_s_per_kernel"] = timed(g.replay, 20, sync) / n_kernels
    return out


def gemm_clock(dev, n):
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    reps = 200 if dev == "cuda" else 2
    secs = timed(lambda: a @ b, reps, sync)
    out = {"n": n, "seconds": secs, "tflops": 2 * n ** 3 / secs / 1e12}
    if dev == "cuda":
        try:
            import pynvml
            pynvml.nvmlInit()
            h = pynvml.nvmlDeviceGetHandleByIndex(0)
            samples = []
            t_end = time.time() + 20
            while time.time() < t_end:
                for _ in range(50):
                    a @ b
                torch.cuda.synchronize()
                samples.append((pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                                pynvml.nvmlDeviceGetPowerUsage(h) / 1e3))
            secs = timed(lambda: a @ b, reps, sync)
            out.update({
                "hot_seconds": secs, "hot_tflops": 2 * n ** 3 / secs / 1e12,
                "sm_clock_mhz": [c for c, _ in samples[-10:]],
                "power_w": [p for _, p in samples[-10:]],
                "max_sm_clock_mhz": pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM),
                "power_limit_w": pynvml.nvmlDeviceGetPowerManagementLimit(h) / 1e3,
                "name": pynvml.nvmlDeviceGetName(h),
            })
        except Exception as e:  # NVML is optional: the matmul rate stands alone
            out["nvml_error"] = repr(e)
    return out


def optimizer_step(dev, n, fused):
    p = torch.nn.Parameter(torch.zeros(n, device=dev))
    p.grad = torch.full_like(p, 1e-3)
    kw = {"fused": True} if fused else {"foreach": True}
    opt = torch.optim.AdamW([p], lr=1e-4, **kw)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    secs = timed(opt.step, 10, sync)
    return {"device": dev, "parameters": n, "fused": fused, "seconds": secs,
            "bytes_per_s_at_28_bytes_per_param": 28 * n / secs}


def main():
    cpu_only = "--cpu-only" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = args[0] if args else "time_floors.json"
    dev = "cpu" if cpu_only else "cuda"
    doc = {"torch": torch.__version__, "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if dev == "cuda":
        doc["gpu"] = torch.cuda.get_device_name(0)
    doc["kernel_floor"] = kernel_floor(dev, 200 if cpu_only else 2000)
    doc["gemm_clock"] = gemm_clock(dev, 256 if cpu_only else 8192)
    doc["optimizer_step"] = [
        optimizer_step(dev, 2 ** 16 if cpu_only else 2 ** 28, fused=not cpu_only),
        optimizer_step(dev, 2 ** 16 if cpu_only else 2 ** 28, fused=False),
        optimizer_step("cpu", 2 ** 16 if cpu_only else 2 ** 26, fused=False),
    ]
    doc["cpu_threads"] = torch.get_num_threads()
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
