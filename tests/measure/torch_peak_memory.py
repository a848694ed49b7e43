#!/usr/bin/env python3
"""Measure the peak GPU memory of training and inference steps.

Each case builds a model from its config in tests/data/catalog_models.json
with random weights (nothing is downloaded), runs a few steps the way the
Hugging Face Trainer and PEFT run them, and reports:

  max_allocated  torch.cuda.max_memory_allocated over the whole run
  max_reserved   torch.cuda.max_memory_reserved over the whole run
  nvml_used      device memory in use (NVML, what nvidia-smi prints) at the
                 end of the run, less what was in use before the process
                 started: the CUDA context plus the allocator's reservation
  context        NVML's reading after CUDA is initialised, before any tensor

Weights are created on the GPU in their final dtype; the allocator's cache
is then emptied and the peak counters reset, so that the figures describe
a model that was loaded, as from_pretrained loads it, and then used.

Every case runs in its own process.  Usage:
  torch_peak_memory.py [--only ID,...] [--out FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.join(HERE, "..", "data", "catalog_models.json")

LLAMA_ATTN = ["q_proj", "v_proj"]
LLAMA_ALL = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
             "down_proj"]

# One entry per measured run.  task: seqcls (sequence classification head,
# two labels), causal_lm (labels = inputs), generate.  precision: fp32,
# fp16_amp / bf16_amp (fp32 weights under autocast, GradScaler for fp16),
# bf16 (weights, gradients and optimizer states in bf16).  seq2seq: an
# encoder-decoder with targets as long as the inputs.
CASES = [
    dict(id="bert-large-fp32-b4-eager", model="bert-large-uncased",
         task="seqcls", precision="fp32", attn="eager", batch=4, seq=512),
    dict(id="bert-large-fp16amp-b4-eager", model="bert-large-uncased",
         task="seqcls", precision="fp16_amp", attn="eager", batch=4,
         seq=512),
    dict(id="bert-large-fp32-b4-sdpa", model="bert-large-uncased",
         task="seqcls", precision="fp32", attn="sdpa", batch=4, seq=512),
    dict(id="bert-large-fp16amp-b1ga4-ckpt-eager", model="bert-large-uncased",
         task="seqcls", precision="fp16_amp", attn="eager", batch=1, seq=512,
         accum=4, ckpt=True),
    dict(id="gpt2-fp32-b8-eager", model="gpt2", task="causal_lm",
         precision="fp32", attn="eager", batch=8, seq=1024),
    dict(id="llama32-1b-bf16amp-b2-s2048", model="llama-3.2-1b",
         task="causal_lm", precision="bf16_amp", attn="sdpa", batch=2,
         seq=2048),
    dict(id="llama32-1b-bf16amp-b2-s2048-ckpt", model="llama-3.2-1b",
         task="causal_lm", precision="bf16_amp", attn="sdpa", batch=2,
         seq=2048, ckpt=True),
    dict(id="qwen25-05b-bf16-b4-s1024-ckpt", model="qwen2.5-0.5b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=4, seq=1024,
         ckpt=True),
    dict(id="llama31-8b-lora-qv-b1-s2048-ckpt", model="llama-3.1-8b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=1, seq=2048,
         ckpt=True, lora=dict(r=16, alpha=32, targets=LLAMA_ATTN)),
    dict(id="llama31-8b-lora-all-b2-s2048-ckpt", model="llama-3.1-8b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=2, seq=2048,
         ckpt=True, lora=dict(r=16, alpha=32, targets=LLAMA_ALL)),
    dict(id="llama31-8b-lora-qv-b1-s1024", model="llama-3.1-8b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=1, seq=1024,
         lora=dict(r=8, alpha=16, targets=LLAMA_ATTN)),
    dict(id="gemma-2b-lora-all-b2-s512", model="gemma-2b", task="causal_lm",
         precision="bf16", attn="sdpa", batch=2, seq=512,
         lora=dict(r=8, alpha=16, targets="all-linear")),
    dict(id="gemma2-2b-lora-all-b2-s1024-eager", model="gemma-2-2b",
         task="causal_lm", precision="bf16", attn="eager", batch=2,
         seq=1024, lora=dict(r=8, alpha=16, targets="all-linear")),
    dict(id="gemma2-2b-lora-all-b2-s1024-sdpa", model="gemma-2-2b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=2,
         seq=1024, lora=dict(r=8, alpha=16, targets="all-linear")),
    dict(id="flan-t5-large-fp32-b8-s128", model="flan-t5-large",
         task="seq2seq", precision="fp32", attn="eager", batch=8, seq=128),
    dict(id="flan-t5-large-lora-qv-fp32-b8-s128", model="flan-t5-large",
         task="seq2seq", precision="fp32", attn="eager", batch=8, seq=128,
         lora=dict(r=8, alpha=32, targets=["q", "v"])),
    dict(id="bert-base-fp32-b32-s128-eager", model="bert-base-uncased",
         task="seqcls", precision="fp32", attn="eager", batch=32, seq=128),
    dict(id="mistral-7b-bf16-b1-s2048-ckpt", model="mistral-7b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=1, seq=2048,
         ckpt=True),
    dict(id="llama32-3b-bf16amp-b1-s2048-ckpt", model="llama-3.2-3b",
         task="causal_lm", precision="bf16_amp", attn="sdpa", batch=1,
         seq=2048, ckpt=True),
    dict(id="qwen3-8b-lora-qkvo-b4-s4096-ckpt", model="qwen3-8b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=4, seq=4096,
         ckpt=True, lora=dict(r=16, alpha=32,
                              targets=["q_proj", "k_proj", "v_proj",
                                       "o_proj"])),
    dict(id="llama32-1b-lora-qv-p0-b4-s1024", model="llama-3.2-1b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=4, seq=1024,
         lora=dict(r=16, alpha=32, targets=LLAMA_ATTN, dropout=0.0)),
    dict(id="llama32-1b-lora-qv-b4-s1024", model="llama-3.2-1b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=4, seq=1024,
         lora=dict(r=16, alpha=32, targets=LLAMA_ATTN)),
    dict(id="llama32-1b-lora-all-p0-b4-s1024", model="llama-3.2-1b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=4, seq=1024,
         lora=dict(r=16, alpha=32, targets=LLAMA_ALL, dropout=0.0)),
    dict(id="llama32-1b-full-bf16-b4-s1024", model="llama-3.2-1b",
         task="causal_lm", precision="bf16", attn="sdpa", batch=4, seq=1024),
    dict(id="mistral-7b-generate-b8-p1024-n64", model="mistral-7b",
         task="generate", precision="bf16", attn="sdpa", batch=8, seq=1024,
         new_tokens=64),
    dict(id="llama31-8b-generate-b1-p8192-n32", model="llama-3.1-8b",
         task="generate", precision="bf16", attn="sdpa", batch=1, seq=8192,
         new_tokens=32),
]


def nvml_used():
    import pynvml
    pynvml.nvmlInit()
    h = pynvml.nvmlDeviceGetHandleByIndex(0)
    used = pynvml.nvmlDeviceGetMemoryInfo(h).used
    pynvml.nvmlShutdown()
    return int(used)


def build(case):
    import torch
    import transformers as tf
    cfg_dict = None
    with open(CATALOG) as f:
        for m in json.load(f):
            if m["id"] == case["model"]:
                cfg_dict = dict(m["config"])
    if cfg_dict is None:
        raise SystemExit("no model " + case["model"])
    model_type = cfg_dict.pop("model_type")
    cfg_dict.pop("architectures", None)
    if case["task"] == "seqcls":
        cfg_dict["num_labels"] = 2
    if case["task"] == "seq2seq":
        cfg_dict.setdefault("decoder_start_token_id", 0)
        cfg_dict.setdefault("pad_token_id", 0)
    cfg = tf.AutoConfig.for_model(model_type, **cfg_dict)
    dtype = torch.bfloat16 if case["precision"] == "bf16" else torch.float32
    auto = {"seqcls": tf.AutoModelForSequenceClassification,
            "seq2seq": tf.AutoModelForSeq2SeqLM}.get(
                case["task"], tf.AutoModelForCausalLM)
    kw = dict(attn_implementation=case["attn"])
    with torch.device("cuda"):
        try:
            model = auto.from_config(cfg, dtype=dtype, **kw)
        except TypeError:
            model = auto.from_config(cfg, torch_dtype=dtype, **kw)
    if next(model.parameters()).dtype != dtype:
        model.to(dtype)
    return model, cfg


def child(case):
    import torch
    before = nvml_used()
    torch.zeros(1, device="cuda")
    context = nvml_used() - before
    model, cfg = build(case)
    vocab = cfg.vocab_size
    torch.manual_seed(0)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    weights = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    b, s = case["batch"], case["seq"]
    ids = torch.randint(0, vocab, (b, s), device="cuda")
    t0 = time.time()
    if case["task"] == "generate":
        model.eval()
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids),
                                 max_new_tokens=case["new_tokens"],
                                 min_new_tokens=case["new_tokens"],
                                 do_sample=False, pad_token_id=0)
        assert out.shape[1] == s + case["new_tokens"]
        phases = {}
    else:
        phases = train(case, model, ids)
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    _mark(phases, "end")
    res = dict(
        weights_allocated=weights,
        max_allocated=_PEAK["allocated"],
        max_reserved=_PEAK["reserved"],
        phases=phases,
        context=context,
        nvml_used=nvml_used() - before,
        seconds=round(time.time() - t0, 2),
        num_alloc_retries=stats.get("num_alloc_retries", 0),
        segments_peak=stats.get("segment.all.peak", 0),
        large_segments_peak=stats.get("segment.large_pool.peak", 0),
        inactive_split_peak=stats.get("inactive_split_bytes.all.peak", 0),
        trainable=sum(p.numel() for p in model.parameters()
                      if p.requires_grad),
        parameters=sum(p.numel() for p in model.parameters()),
    )
    return res


_PEAK = dict(allocated=0, reserved=0)


def _mark(phases, name):
    """Record the peaks since the last mark as phase name, then reset them."""
    import torch
    torch.cuda.synchronize()
    a = torch.cuda.max_memory_allocated()
    r = torch.cuda.max_memory_reserved()
    _PEAK["allocated"] = max(_PEAK["allocated"], a)
    _PEAK["reserved"] = max(_PEAK["reserved"], r)
    phases[name] = [a, r]
    torch.cuda.reset_peak_memory_stats()


def train(case, model, ids):
    """Steps as the Trainer runs them; returns the peaks (allocated,
    reserved) of each phase of the last step."""
    import torch
    phases = {}
    if case.get("lora"):
        import peft
        lc = case["lora"]
        targets = lc["targets"]
        model = peft.get_peft_model(model, peft.LoraConfig(
            r=lc["r"], lora_alpha=lc["alpha"],
            lora_dropout=lc.get("dropout", 0.05),
            target_modules=targets, task_type="CAUSAL_LM"))
    if case.get("ckpt"):
        model.gradient_checkpointing_enable(
            gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)
    amp = {"fp16_amp": torch.float16,
           "bf16_amp": torch.bfloat16}.get(case["precision"])
    scaler = torch.amp.GradScaler("cuda") if amp == torch.float16 else None
    accum = case.get("accum", 1)
    for _ in range(case.get("steps", 3)):
        for _ in range(accum):
            kw = {}
            if case["task"] == "seqcls":
                kw["labels"] = torch.randint(0, 2, (ids.shape[0],),
                                             device="cuda")
            elif case["task"] == "seq2seq":
                kw["labels"] = ids.roll(1, dims=1)
            else:
                kw["labels"] = ids
            _mark(phases, "before_forward")
            with torch.autocast("cuda", dtype=amp or torch.float32,
                                enabled=amp is not None):
                loss = model(input_ids=ids, **kw).loss / accum
            _mark(phases, "forward")
            if scaler:
                scaler.scale(loss).backward()
            else:
                loss.backward()
            del loss
            _mark(phases, "backward")
        if scaler:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        opt.zero_grad(set_to_none=True)
        _mark(phases, "optimizer_step")
    return phases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="-")
    ap.add_argument("--child", default="")
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()
    if a.child:
        case = json.loads(a.child)
        print("RESULT " + json.dumps(child(case)), flush=True)
        return
    import torch
    env = dict(
        torch=torch.__version__, cuda=torch.version.cuda,
        gpu=subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                            "--format=csv,noheader"], capture_output=True,
                           text=True).stdout.strip(),
        idle_used=nvml_used())
    try:
        import transformers
        import peft
        env["transformers"] = transformers.__version__
        env["peft"] = peft.__version__
    except ImportError as e:
        env["import_error"] = str(e)
    only = set(filter(None, a.only.split(",")))
    out = open(a.out, "w") if a.out != "-" else sys.stdout
    print(json.dumps({"environment": env}), file=out, flush=True)
    for case in CASES:
        if only and case["id"] not in only:
            continue
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, __file__, "--child",
                                json.dumps(case)], capture_output=True,
                               text=True, timeout=a.timeout)
            lines = [ln for ln in p.stdout.splitlines()
                     if ln.startswith("RESULT ")]
            if lines:
                rec = dict(case=case, result=json.loads(lines[-1][7:]))
            else:
                rec = dict(case=case, error=p.stderr[-3000:])
        except subprocess.TimeoutExpired:
            rec = dict(case=case, error="timeout")
        rec["wall"] = round(time.time() - t0, 1)
        print(json.dumps(rec), file=out, flush=True)
        summary = rec.get("result") or rec["error"][-600:]
        print(case["id"], summary, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
