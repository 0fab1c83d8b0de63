#!/usr/bin/env python3
"""Launch gaps of a plan, with and without a CUDA graph (issue 11, item 7), on the GPU machine.

  python3 benchmarks/launch_gaps.py KILN_RUN MODEL.onnx [kiln-run options ...]

Runs `kiln-run MODEL --backend=gpu --kernel-trace` in five modes and prints one table:
steps or one CUDA graph, runs timed one at a time (a synchronize after each) or enqueued
back to back (the GPU never waits for the host), and the graph back to back without the
trace (what tracing itself costs). `--kernel-trace` takes every kernel's start and end from
CUPTI's activity records (GPU timestamps), so per run:
- "between kernels" is the time inside the run's span when no kernel runs, per gap;
- "GPU time - sum" is the events' GPU time of the run less the summed kernel durations, per
  kernel: the measure of issue 11 (at most 1 us per kernel with CUDA graphs). One at a
  time, it holds the host's launch latency (the GPU idles from the start event until the
  launch reaches it); back to back, it holds what the GPU spends between kernels and runs.
"""
import re, subprocess, sys

MODES = [  # name, kiln-run flags
    ("steps, one at a time", ["--kernel-trace"]),
    ("steps, back to back", ["--kernel-trace", "--back-to-back"]),
    ("graph, one at a time", ["--kernel-trace", "--cuda-graphs"]),
    ("graph, back to back", ["--kernel-trace", "--cuda-graphs", "--back-to-back"]),
    ("graph, back to back, no trace", ["--cuda-graphs", "--back-to-back"]),
]


def median(text, row):
    m = re.search(r"\| " + re.escape(row) + r"\s*\|\s*([0-9.]+)", text)
    return float(m.group(1)) if m else float("nan")


if len(sys.argv) < 3:
    sys.exit(__doc__)
tool, model, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
print("| mode | kernels | GPU time of a run | sum of kernel durations | between kernels "
      "| GPU time - sum, per kernel |")
print("|---|---:|---:|---:|---:|---:|")
for name, flags in MODES:
    run = subprocess.run([tool, model, "--backend=gpu", "--warmup", "100", "--iterations",
                          "1000"] + flags + extra, capture_output=True, text=True)
    text = run.stdout + run.stderr
    if run.returncode != 0:
        print(f"| {name} | kiln-run failed: {text.strip().splitlines()[-1]} |||||")
        continue
    gpu = median(text, "GPU (events between runs)" if "--back-to-back" in flags
                 else "GPU (events around enqueue)")
    m = re.search(r"runs of (\d+) GPU operations", text)
    if not m:
        print(f"| {name} | - | {gpu:.4f} ms | - | - | - |")
        continue
    ops = int(m.group(1))
    gaps = re.search(r"launch gaps: ([0-9.-]+) us between", text).group(1)
    per = re.search(r"; ([0-9.-]+) us per operation", text).group(1)
    total = median(text, "sum of the operations' durations")
    print(f"| {name} | {ops} | {gpu:.4f} ms | {total:.4f} ms "
          f"| {gaps} us | {per} us |")
