#!/usr/bin/env python3
"""Launch gaps of a plan run as a CUDA graph (issue 11, item 7), without per-step events.

  kiln-run MODEL --backend=gpu --cuda-graph --warmup 50 --iterations 500 > graph.txt
  ncu --csv --metrics gpu__time_duration.sum --clock-control none --cache-control none \
      --launch-skip 2*STEPS --launch-count STEPS kiln-run MODEL --backend=gpu \
      --warmup 2 --iterations 2 > ncu.csv
  python3 benchmarks/launch_gaps.py --ncu ncu.csv graph.txt [--baseline ncu1.csv graph1.txt]

`kiln-run --profile` times each step between two events, which cost more than the gap they
would measure (the gap it prints reads below zero). Here each kernel's duration comes from
Nsight Compute (one kernel at a time, clocks and caches as the GPU left them), and the gap
is (the median GPU time of a whole run as one CUDA graph - the sum of the kernels'
durations) / the number of kernels: an upper bound, since it also holds the graph's own
launch and the two events around it. `--baseline` measures that fixed part on a plan of one
kernel (its GPU time less its kernel's duration) and takes it out: the gap between
consecutive kernels is then (overhead - fixed) / (kernels - 1). Mind the noise: without
locked clocks, Nsight Compute's durations of the same kernels differ by a few percent
between runs (docs/benchmarks.md, "CUDA graphs"), which for kernels of 50-200 us is more
than a gap of 1 us.
"""
import csv, io, re, sys

SCALE = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3,
         "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}


def kernel_ms(path):
    """The number of kernels in an Nsight Compute CSV and their summed duration (ms)."""
    text = open(path).read()
    start = text.find('"ID"')
    if start < 0:
        sys.exit(f"launch_gaps: no Nsight Compute CSV in {path}")
    kernels, total = 0, 0.0
    for r in csv.DictReader(io.StringIO(text[start:])):
        if r.get("Metric Name") == "gpu__time_duration.sum":
            kernels += 1
            total += float(r["Metric Value"].replace(",", "")) * SCALE[r["Metric Unit"]]
    if not kernels:
        sys.exit(f"launch_gaps: no kernel durations in {path}")
    return kernels, total


def run_ms(path):
    """The median GPU time of a run in kiln-run's output (ms)."""
    m = re.search(r"\| GPU \(events around enqueue\)\s*\|\s*([0-9.]+)", open(path).read())
    if not m:
        sys.exit(f"launch_gaps: no GPU time in {path}")
    return float(m.group(1))


args = sys.argv[1:]
if len(args) not in (3, 6) or args[0] != "--ncu" or (len(args) == 6 and args[3] != "--baseline"):
    sys.exit(__doc__)
kernels, total = kernel_ms(args[1])
run = run_ms(args[2])
overhead_us = (run - total) * 1000
print("| kernels | sum of kernel durations (Nsight Compute) | GPU time of a run, one CUDA graph "
      "| overhead | gap per kernel (upper bound) | fixed (one-kernel plan) | gap between kernels |")
print("|---:|---:|---:|---:|---:|---:|---:|")
row = (f"| {kernels} | {total:.4f} ms | {run:.4f} ms | {overhead_us:.1f} us "
       f"| {overhead_us / kernels:.2f} us |")
if len(args) == 6:
    one, one_total = kernel_ms(args[4])
    fixed_us = (run_ms(args[5]) - one_total) * 1000 if one == 1 else float("nan")
    row += f" {fixed_us:.1f} us | {(overhead_us - fixed_us) / (kernels - 1):.2f} us |"
else:
    row += " - | - |"
print(row)
