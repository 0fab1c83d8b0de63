#!/usr/bin/env python3
"""Benchmark: compile time and peak memory against network length.

Writes chains of N Relu layers ([1, 64] float32; ONNX opset 17) and, for
each N, times
  - kiln-compile to a plan (the GPU path; --no-cubin unless --cubin, since
    ptxas is not on every machine), and
  - the CPU reference's lowering (kiln-opt --kiln-reference-pipeline on the
    optimized kiln IR, what kiln-run --backend=reference JIT-compiles),
  - kiln-run --backend=reference end to end (that lowering, LLVM's -O2 JIT
    and one run),
and prints wall time, peak memory and time per layer. Linear cost is a
constant time per layer.

  python3 -m pip install onnx        # only this script needs it
  python3 benchmarks/compile_time.py build/bin [--layers 1000,4000,16000]
      [--reference-layers 1000,2000,4000,8000] [--run-layers 1000,2000,4000]
      [--cubin]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import TensorProto, helper


def chain(n, path):
    nodes = [helper.make_node("Relu", ["x" if i == 0 else "t%d" % (i - 1)],
                              ["y" if i == n - 1 else "t%d" % i],
                              name="relu%d" % i) for i in range(n)]
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def timed(cmd):
    """Wall seconds and peak RSS (MB) of one command run alone."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.monotonic() - start
    if status != 0:
        sys.exit("failed (%d): %s" % (status, " ".join(cmd)))
    return seconds, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin", help="folder with kiln-compile and kiln-opt")
    parser.add_argument("--layers", default="1000,4000,16000")
    parser.add_argument("--reference-layers", default="1000,2000,4000,8000")
    parser.add_argument("--run-layers", default="1000,2000,4000")
    parser.add_argument("--cubin", action="store_true")
    args = parser.parse_args()
    compile_ = os.path.join(args.bin, "kiln-compile")
    opt = os.path.join(args.bin, "kiln-opt")
    run = os.path.join(args.bin, "kiln-run")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        def model(n):
            path = os.path.join(tmp, "chain%d.onnx" % n)
            if not os.path.exists(path):
                chain(n, path)
            return path
        for n in [int(x) for x in args.layers.split(",") if x]:
            cmd = [compile_, model(n), "-o", os.path.join(tmp, "p.kplan")]
            if not args.cubin:
                cmd.append("--no-cubin")
            s, mb = timed(cmd)
            rows.append(("kiln-compile -o x.kplan", n, s, mb))
        for n in [int(x) for x in args.reference_layers.split(",") if x]:
            kiln = os.path.join(tmp, "chain%d.mlir" % n)
            subprocess.run([compile_, model(n), "--emit=kiln", "-o", kiln],
                           check=True)
            s, mb = timed([opt, kiln, "--kiln-reference-pipeline",
                           "-o", os.devnull])
            rows.append(("reference lowering", n, s, mb))
        for n in [int(x) for x in args.run_layers.split(",") if x]:
            s, mb = timed([run, model(n), "--backend=reference"])
            rows.append(("kiln-run --backend=reference", n, s, mb))
    print("| path | layers | wall time (s) | peak memory (MB) | ms per layer |")
    print("|---|---:|---:|---:|---:|")
    for path, n, s, mb in rows:
        print("| %s | %d | %.2f | %.0f | %.3f |" % (path, n, s, mb,
                                                    1000.0 * s / n))


if __name__ == "__main__":
    main()
