#!/usr/bin/env python3
"""Networks through kiln against PyTorch (eager and torch.compile), in one run, on the GPU.

  python3 benchmarks/networks.py KILN_RUN [--nets resnet50:1,resnet50:64,...]
      [--precisions fp32,fp16] [--modes eager,max-autotune-no-cudagraphs,reduce-overhead]
      [--out DIR]

For each network and batch it builds the PyTorch model with random weights (seeded; nothing
downloaded), exports it to ONNX (torch.onnx.export, TorchScript exporter, opset 17), runs
PyTorch fp32 (TF32 off) once on a random input for the reference output, then for each
precision:
  - kiln: `kiln-run --backend=gpu --cuda-graphs` on the same input (fp32: TF32 on, kiln's
    default; fp16: --fp16), its output checked against the fp32 reference relative to the
    output's magnitude (--atol 0; rtol 1e-2 for fp32 with TF32, 5e-2 for fp16), and its
    median GPU time of 100 runs after 20 (events around each run of the CUDA graph);
  - PyTorch on the same input and weights, for each mode (eager; torch.compile with
    max-autotune-no-cudagraphs; with reduce-overhead, which uses CUDA graphs): TF32 on for
    fp32 (matched with kiln), the model and floating input in half for fp16; median GPU
    time of 100 calls after 20 (events around each call).
Prints one table: latency, and kiln's throughput relative to each baseline (baseline time /
kiln time: above 1, kiln is faster).

Networks: resnet50, mobilenetv2 (input 3x224x224), bert (BERT-base, seq 128), gpt2 (GPT-2
small, seq 128). The CNNs' batch-norm statistics come from one batch of 16 random images
(in training mode), so that activations keep their scale. Needs torch, torchvision, transformers, onnx (the GPU machine).
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch

RTOL = {"fp32": 1e-2, "fp16": 5e-2}


class LastHidden(torch.nn.Module):
    """A transformers model with one tensor input and its last hidden state as output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).last_hidden_state


def build(name, batch):
    """The model (eval, on the GPU, fp32) and a random input for it."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(batch)
    if name in ("resnet50", "mobilenetv2"):
        import torchvision.models as m
        net = {"resnet50": m.resnet50, "mobilenetv2": m.mobilenet_v2}[name](weights=None)
        x = torch.rand((batch, 3, 224, 224), generator=g) * 2 - 1
        # Batch-norm statistics of random images (a freshly initialized
        # MobileNetV2's outputs are ~1e-10 otherwise, below fp16's range).
        for bn in net.modules():
            if isinstance(bn, torch.nn.BatchNorm2d):
                bn.reset_running_stats()
                bn.momentum = None
        with torch.no_grad():
            net.train()(torch.rand((16, 3, 224, 224), generator=g) * 2 - 1)
    else:
        import transformers as t
        cfg = {"bert": lambda: t.BertModel(t.BertConfig()),
               "gpt2": lambda: t.GPT2Model(t.GPT2Config())}[name]()
        net = LastHidden(cfg)
        x = torch.randint(0, 1000, (batch, 128), generator=g)
    return net.eval().cuda(), x.cuda()


def export(net, x, path):
    torch.onnx.export(net, (x,), path, opset_version=17, dynamo=False,
                      input_names=["input"], output_names=["output"])


def gpu_ms(fn, x, warmup=20, iterations=100):
    with torch.no_grad():
        for _ in range(warmup):
            fn(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(iterations):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn(x)
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]


def torch_ms(net, x, precision, mode):
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    model = net.half() if precision == "fp16" else net.float()
    inp = x.half() if precision == "fp16" and x.is_floating_point() else x
    if mode != "eager":
        torch._dynamo.reset()
        model = torch.compile(model, mode=mode)
    try:
        return gpu_ms(model, inp), ""
    except Exception as e:  # a baseline that fails is reported, not fatal
        return None, f"{mode} failed: {type(e).__name__}"
    finally:
        net.float()


def kiln(kiln_run, d, precision, extra):
    flags = (["--fp16"] if precision == "fp16" else []) + extra
    cmd = [kiln_run, os.path.join(d, "model.onnx"), "--backend=gpu", "--cuda-graphs",
           "--input", f"input={d}/input_0.npy", "--reference-dir", d,
           "--rtol", str(RTOL[precision]), "--atol", "0", "--warmup", "20",
           "--iterations", "100"] + flags
    start = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True)
    text = run.stdout + run.stderr
    m = re.search(r"\| GPU \(events around enqueue\)\s*\|\s*([0-9.]+)", text)
    check = re.search(r"vs [^:]*: (match[^\n]*|\d+ of \d+ elements differ[^\n]*)", text)
    steps = re.search(r"(\d+) steps", text)
    if not m:
        tail = text.strip().splitlines()[-3:] if text.strip() else ["no output"]
        return None, "failed: " + " / ".join(tail), ""
    # The first element that differs and the tolerance say little in a table.
    verdict = re.sub(r"; first at .*max abs error", ", max abs error",
                     check.group(1)) if check else "?"
    return (float(m.group(1)), verdict,
            f"{steps.group(1) if steps else '?'} steps, {time.time() - start:.0f} s")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kiln_run")
    p.add_argument("--nets", default="resnet50:1,resnet50:64,mobilenetv2:1,mobilenetv2:64,"
                   "bert:1,bert:32,gpt2:1")
    p.add_argument("--precisions", default="fp32,fp16")
    p.add_argument("--modes", default="eager,max-autotune-no-cudagraphs,reduce-overhead")
    p.add_argument("--out", default="/tmp/kiln-networks")
    p.add_argument("--kiln-flags", default="--opt-level=3",
                   help="more kiln-run flags, space-separated (default: channels-last "
                   "layouts, --opt-level=3)")
    args = p.parse_args()
    modes = args.modes.split(",")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, kiln-run flags: "
          f"{args.kiln_flags}")
    print("| network | batch | precision | kiln (ms) | " + " | ".join(
        f"torch {m} (ms)" for m in modes) + " | " + " | ".join(
        f"kiln vs {m}" for m in modes) + " | kiln check vs torch fp32 | kiln run |")
    print("|---|---:|---|---:|" + "---:|" * (2 * len(modes)) + "---|---|")
    sys.stdout.flush()
    for spec in args.nets.split(","):
        name, batch = spec.split(":")
        batch = int(batch)
        d = os.path.join(args.out, f"{name}-b{batch}")
        os.makedirs(d, exist_ok=True)
        net, x = build(name, batch)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        with torch.no_grad():
            ref = net(x).float().cpu().numpy()
        np.save(os.path.join(d, "input_0.npy"), x.cpu().numpy())
        np.save(os.path.join(d, "output_0.npy"), ref)
        if not os.path.exists(os.path.join(d, "model.onnx")):
            export(net, x, os.path.join(d, "model.onnx"))
        for precision in args.precisions.split(","):
            k, check, info = kiln(args.kiln_run, d, precision, args.kiln_flags.split())
            base = [torch_ms(net, x, precision, m) for m in modes]
            cells = [f"{t:.3f}" if t else why for t, why in base]
            ratios = [f"{t / k:.2f}" if (t and k) else "-" for t, _ in base]
            print(f"| {name} | {batch} | {precision} | "
                  f"{k:.3f} | " if k else f"| {name} | {batch} | {precision} | - | ",
                  end="")
            print(" | ".join(cells) + " | " + " | ".join(ratios) + f" | {check} | {info} |")
            sys.stdout.flush()
        del net
        torch.cuda.empty_cache()


main()
