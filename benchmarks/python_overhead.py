#!/usr/bin/env python3
"""What the Python package adds to a run, against the C API in the same call.

For each plan: kiln-bench-enqueue (C: every tensor's address set, enqueue,
wait; median of 2000) against the Python package's ExecutionContext.run
with DLPack tensors in and out (torch CUDA tensors when torch is installed,
and kiln.DeviceArray) on the context's own stream and on the legacy default
stream (stream=0, torch's default: no cross-stream event), enqueue() followed
by a wait, and run() with numpy arrays (copies included, for scale). Prints a Markdown table of medians in
microseconds; the goal (issue 13) is run() with DLPack tensors within 20 us
of the C enqueue.

    PYTHONPATH=build/python python3 benchmarks/python_overhead.py \
        --bench build/bin/kiln-bench-enqueue PLAN.kplan [PLAN.kplan ...]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import time

import numpy as np

import kiln


def median_us(fn, iterations, warmup=200):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - start) / 1e3)
    return statistics.median(times)


def c_baseline(bench, plan, iterations):
    out = subprocess.run([bench, plan, str(iterations)], check=True, capture_output=True, text=True)
    return float(re.search(r"median_us=([0-9.]+)", out.stdout).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plans", nargs="+")
    parser.add_argument("--bench", required=True, help="kiln-bench-enqueue")
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None

    runtime = kiln.Runtime()
    rows = []
    for plan in args.plans:
        engine = runtime.load(plan)
        context = engine.create_execution_context()
        c_us = c_baseline(args.bench, plan, args.iterations)
        host = {t.name: np.zeros(t.shape, t.dtype) for t in engine.tensors if t.is_input}
        kinds = {"kiln.DeviceArray": {t.name: runtime.empty(t.shape, t.dtype) for t in engine.tensors}}
        if torch is not None:
            kinds["torch CUDA tensors"] = {
                t.name: torch.zeros(t.shape, dtype=getattr(torch, t.dtype), device="cuda")
                for t in engine.tensors
            }
        for kind, tensors in kinds.items():
            inputs = {n: tensors[n] for n in engine.inputs}
            outputs = {n: tensors[n] for n in engine.outputs}
            run_us = median_us(lambda: context.run(inputs, outputs), args.iterations)
            rows.append((plan, len(engine.tensors), c_us, f"run(), {kind}", run_us))
            run_us = median_us(lambda: context.run(inputs, outputs, stream=0), args.iterations)
            rows.append((plan, len(engine.tensors), c_us, f"run(stream=0), {kind}", run_us))
        if torch is not None:
            stream = torch.cuda.current_stream()
            bindings = kinds["torch CUDA tensors"]

            def enqueue_and_wait():
                context.enqueue(bindings, stream.cuda_stream)
                stream.synchronize()

            rows.append((plan, len(engine.tensors), c_us, "enqueue() + wait, torch",
                         median_us(enqueue_and_wait, args.iterations)))
        rows.append((plan, len(engine.tensors), c_us, "run(), numpy (copies)",
                     median_us(lambda: context.run(host), args.iterations)))

    print(f"device: {runtime.device.name}")
    print("| plan | tensors | C enqueue+wait (us) | Python | Python (us) | added (us) |")
    print("|---|---|---|---|---|---|")
    for plan, count, c_us, kind, py_us in rows:
        print(f"| {plan} | {count} | {c_us:.1f} | {kind} | {py_us:.1f} | {py_us - c_us:+.1f} |")


if __name__ == "__main__":
    main()
