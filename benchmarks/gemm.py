#!/usr/bin/env python3
"""GEMM through kiln (an ONNX MatMul, compiled and run by kiln-run) against torch.mm, in one run.

  python3 benchmarks/gemm.py KILN_RUN [--sizes 1024,4096,8192] [--out DIR]

For each size S and precision (fp16; fp32 with TF32 on both sides; fp32 without TF32 on both
sides) it writes a one-node ONNX model D = A @ B (A and B inputs of S x S), random inputs
(seeded, uniform in [-1, 1)) and the expected D computed by numpy in float64, runs
`kiln-run --backend=gpu` on them (the output checked against numpy with the stated
tolerance, relative to the output's magnitude: --atol 0) and times it (median GPU time of
50 runs after 10, events around each run), then times torch.mm on the same inputs on the
same GPU (median of 50 after 10, events around each call). Prints a table with TFLOP/s and
kiln's share of torch.mm's throughput.
"""
import argparse, os, re, subprocess, sys
import numpy as np

PRECISIONS = [  # name, numpy type, ONNX type, kiln flags, torch allow_tf32, rtol
    ("fp16", np.float16, 10, [], False, 2e-2),
    ("fp32, TF32", np.float32, 1, [], True, 1e-2),
    ("fp32", np.float32, 1, ["--no-tf32"], False, 1e-4),
]


def model(path, size, onnx_type):
    import onnx
    from onnx import helper
    a = helper.make_tensor_value_info("A", onnx_type, [size, size])
    b = helper.make_tensor_value_info("B", onnx_type, [size, size])
    d = helper.make_tensor_value_info("D", onnx_type, [size, size])
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["D"])], "gemm", [a, b], [d])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def torch_ms(a, b, tf32):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = tf32
    x, y = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    times = []
    for i in range(60):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.mm(x, y); e.record(); torch.cuda.synchronize()
        if i >= 10:
            times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kiln_run")
    p.add_argument("--sizes", default="1024,4096,8192")
    p.add_argument("--out", default="/tmp/kiln-gemm")
    p.add_argument("--kiln-flags", default="",
                   help="more kiln-run flags, space-separated (e.g. --tune)")
    args = p.parse_args()
    print("| size | precision | kiln (ms) | kiln TFLOP/s | torch.mm (ms) | torch.mm TFLOP/s "
          "| kiln / torch.mm | check vs numpy |")
    print("|---:|---|---:|---:|---:|---:|---:|---|")
    for size in map(int, args.sizes.split(",")):
        rng = np.random.default_rng(size)
        a64 = rng.uniform(-1, 1, (size, size))
        b64 = rng.uniform(-1, 1, (size, size))
        for name, dtype, onnx_type, flags, tf32, rtol in PRECISIONS:
            d = os.path.join(args.out, f"{size}-{name.replace(', ', '-')}")
            os.makedirs(d, exist_ok=True)
            a, b = a64.astype(dtype), b64.astype(dtype)
            model(os.path.join(d, "model.onnx"), size, onnx_type)
            np.save(os.path.join(d, "a.npy"), a)
            np.save(os.path.join(d, "b.npy"), b)
            expected = a.astype(np.float64) @ b.astype(np.float64)
            np.save(os.path.join(d, "output_0.npy"), expected.astype(dtype))
            run = subprocess.run(
                [args.kiln_run, os.path.join(d, "model.onnx"), "--backend=gpu",
                 "--input", f"A={d}/a.npy", "--input", f"B={d}/b.npy", "--reference-dir", d,
                 "--rtol", str(rtol), "--atol", "0", "--warmup", "10", "--iterations", "50"]
                + flags + args.kiln_flags.split(), capture_output=True, text=True)
            text = run.stdout + run.stderr
            m = re.search(r"\| GPU \(events around enqueue\)\s*\|\s*([0-9.]+)", text)
            check = re.search(r"vs .*: (match[^\n]*|MISMATCH[^\n]*)", text)
            if not m:
                print(f"| {size} | {name} | failed: {text.strip().splitlines()[-1]} ||||||")
                continue
            kiln = float(m.group(1))
            torch = torch_ms(a, b, tf32)
            flop = 2.0 * size ** 3
            print(f"| {size} | {name} | {kiln:.4f} | {flop / kiln / 1e9:.1f} | {torch:.4f} "
                  f"| {flop / torch / 1e9:.1f} | {torch / kiln:.2f} | "
                  f"{check.group(1) if check else '?'} |")
            sys.stdout.flush()
            for f in ("a.npy", "b.npy", "output_0.npy"):
                os.remove(os.path.join(d, f))


main()
