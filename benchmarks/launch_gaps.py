#!/usr/bin/env python3
"""Launch gaps of a plan run as a CUDA graph (issue 11, item 7), without per-step events.

  kiln-run MODEL --backend=gpu --cuda-graph --warmup 50 --iterations 500 > graph.txt
  ncu --csv --metrics gpu__time_duration.sum --clock-control none --cache-control none \
      --launch-skip 2*STEPS --launch-count STEPS kiln-run MODEL --backend=gpu \
      --warmup 2 --iterations 2 > ncu.csv
  python3 benchmarks/launch_gaps.py --ncu ncu.csv graph.txt

`kiln-run --profile` times each step between two events, which cost more than the gap they
would measure (the gap it prints reads below zero). Here each kernel's duration comes from
Nsight Compute (one kernel at a time, clocks and caches as the GPU left them), and the gap
per kernel is (the median GPU time of a whole run as one CUDA graph - the sum of the
kernels' durations) / the number of kernels. The result is an upper bound on the launch
gap: a kernel that follows another in a graph also runs with warm caches, which Nsight
Compute's separate replays may not give it.
"""
import csv, io, re, sys

args = sys.argv[1:]
if len(args) != 3 or args[0] != "--ncu":
    sys.exit(__doc__)
ncu_path, graph_path = args[1], args[2]
text = open(ncu_path).read()
start = text.find('"ID"')
if start < 0:
    sys.exit(f"launch_gaps: no Nsight Compute CSV in {ncu_path}")
rows = list(csv.DictReader(io.StringIO(text[start:])))
scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3,
         "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}
kernels = 0
total_ms = 0.0
for r in rows:
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    kernels += 1
    total_ms += float(r["Metric Value"].replace(",", "")) * scale[r["Metric Unit"]]
graph = open(graph_path).read()
m = re.search(r"\| GPU \(events around enqueue\)\s*\|\s*([0-9.]+)", graph)
if not m or not kernels:
    sys.exit("launch_gaps: no GPU time in the kiln-run output, or no kernels")
run_ms = float(m.group(1))
gap_us = (run_ms - total_ms) / kernels * 1000
print("| kernels | sum of kernel durations (Nsight Compute) | GPU time of a run, one CUDA graph | gap per kernel |")
print("|---:|---:|---:|---:|")
print(f"| {kernels} | {total_ms:.4f} ms | {run_ms:.4f} ms | {gap_us:.2f} us |")
