#!/usr/bin/env python3
"""Benchmark: compile time and peak memory against graph size (issue 42).

Writes ONNX models of N nodes in four shapes and times kiln-compile to a
plan (the GPU path, --no-cubin unless --cubin: ptxas is not on every
machine), and optionally the CPU reference (kiln-run --backend=reference,
which lowers, JIT-compiles and runs once) on the chains:
  chain    N elementwise layers in a row: Add of a weight of its own, then
           Relu, Sigmoid, Mul by a weight, Tanh, ... ([1, 64] float32)
  outputs  N graph outputs, output i = x * w_i (a weight of its own)
  concat   one Concat of N parts, part i = x * w_i
  split    one Split of x [N, 4] into N rows, row i negated: N outputs
Then prints a table (wall time, peak resident memory, microseconds per
node) and, per shape, the exponent of a least-squares fit of
log(time) = k log(N) + c: 1 is linear.

  python3 -m pip install onnx numpy   # only this script needs them
  python3 benchmarks/graph_size.py build/bin [--nodes 1000,5000,20000,100000]
      [--shapes chain,outputs,concat,split] [--reference 1000,5000,20000]
      [--timeout 600]
"""
import argparse
import math
import os
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

UNARY = ["Relu", "Sigmoid", "Tanh", "Abs", "Neg"]


def _save(nodes, inputs, outputs, weights, path):
    graph = helper.make_graph(nodes, "g", inputs, outputs, weights)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, path)


def _weight(rng, name, shape):
    return numpy_helper.from_array(
        rng.standard_normal(shape).astype(np.float32), name)


def chain(n, path, rng):
    nodes, weights = [], []
    for i in range(n):
        a = "x" if i == 0 else "t%d" % (i - 1)
        y = "y" if i == n - 1 else "t%d" % i
        if i % 3 == 0:  # a weight of its own
            weights.append(_weight(rng, "w%d" % i, [1, 64]))
            op = "Add" if i % 2 == 0 else "Mul"
            nodes.append(helper.make_node(op, [a, "w%d" % i], [y],
                                          name="n%d" % i))
        else:
            nodes.append(helper.make_node(UNARY[i % len(UNARY)], [a], [y],
                                          name="n%d" % i))
    f = TensorProto.FLOAT
    _save(nodes, [helper.make_tensor_value_info("x", f, [1, 64])],
          [helper.make_tensor_value_info("y", f, [1, 64])], weights, path)


def outputs(n, path, rng):
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Mul", ["x", "w%d" % i], ["y%d" % i],
                              name="n%d" % i) for i in range(n)]
    weights = [_weight(rng, "w%d" % i, [1, 4]) for i in range(n)]
    _save(nodes, [helper.make_tensor_value_info("x", f, [1, 4])],
          [helper.make_tensor_value_info("y%d" % i, f, [1, 4])
           for i in range(n)], weights, path)


def concat(n, path, rng):
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Mul", ["x", "w%d" % i], ["p%d" % i],
                              name="n%d" % i) for i in range(n)]
    nodes.append(helper.make_node("Concat", ["p%d" % i for i in range(n)],
                                  ["y"], axis=0, name="concat"))
    weights = [_weight(rng, "w%d" % i, [1, 4]) for i in range(n)]
    _save(nodes, [helper.make_tensor_value_info("x", f, [1, 4])],
          [helper.make_tensor_value_info("y", f, [n, 4])], weights, path)


def split(n, path, rng):
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Split", ["x"], ["s%d" % i for i in range(n)],
                              axis=0, num_outputs=n, name="split")]
    nodes += [helper.make_node("Neg", ["s%d" % i], ["y%d" % i],
                               name="n%d" % i) for i in range(n)]
    _save(nodes, [helper.make_tensor_value_info("x", f, [n, 4])],
          [helper.make_tensor_value_info("y%d" % i, f, [1, 4])
           for i in range(n)], [], path)


SHAPES = {"chain": chain, "outputs": outputs, "concat": concat,
          "split": split}


def timed(cmd, timeout):
    """Wall seconds and peak RSS (MB) of one command run alone; None for
    the seconds when it failed or ran past `timeout`."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        import resource
        resource.setrlimit(resource.RLIMIT_CPU, (timeout, timeout))
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.monotonic() - start
    return (seconds if status == 0 else None), usage.ru_maxrss / 1024.0


def exponent(points):
    """The slope of a least-squares line through (log n, log s)."""
    pts = [(math.log(n), math.log(s)) for n, s in points if s]
    if len(pts) < 2:
        return float("nan")
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin", help="folder with kiln-compile and kiln-run")
    parser.add_argument("--nodes", default="1000,5000,20000,100000")
    parser.add_argument("--shapes", default="chain,outputs,concat,split")
    parser.add_argument("--reference", default="",
                        help="chain lengths to run on the CPU reference")
    parser.add_argument("--cubin", action="store_true")
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args()
    compile_ = os.path.join(args.bin, "kiln-compile")
    run = os.path.join(args.bin, "kiln-run")
    sizes = [int(x) for x in args.nodes.split(",") if x]
    rows, fits = [], []
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        def model(shape, n):
            path = os.path.join(tmp, "%s%d.onnx" % (shape, n))
            if not os.path.exists(path):
                SHAPES[shape](n, path, rng)
            return path
        for shape in [s for s in args.shapes.split(",") if s]:
            points = []
            for n in sizes:
                cmd = [compile_, model(shape, n), "-o",
                       os.path.join(tmp, "p.kplan")]
                if not args.cubin:
                    cmd.append("--no-cubin")
                s, mb = timed(cmd, args.timeout)
                rows.append(("kiln-compile -o x.kplan", shape, n, s, mb))
                points.append((n, s))
                print("%s %d: %s s, %.0f MB" % (shape, n, s, mb),
                      file=sys.stderr)
            if points:
                fits.append(("kiln-compile -o x.kplan", shape,
                             exponent(points)))
        points = []
        for n in [int(x) for x in args.reference.split(",") if x]:
            s, mb = timed([run, model("chain", n), "--backend=reference"],
                          args.timeout)
            rows.append(("kiln-run --backend=reference", "chain", n, s, mb))
            points.append((n, s))
        if points:
            fits.append(("kiln-run --backend=reference", "chain",
                         exponent(points)))
    print("| path | shape | nodes | wall time (s) | peak memory (MB) "
          "| us per node |")
    print("|---|---|---:|---:|---:|---:|")
    for path, shape, n, s, mb in rows:
        if s is None:
            print("| %s | %s | %d | failed or > %d s | %.0f | |"
                  % (path, shape, n, args.timeout, mb))
        else:
            print("| %s | %s | %d | %.2f | %.0f | %.0f |"
                  % (path, shape, n, s, mb, 1e6 * s / n))
    print()
    print("| path | shape | fitted exponent of time |")
    print("|---|---|---:|")
    for path, shape, k in fits:
        print("| %s | %s | %.2f |" % (path, shape, k))


if __name__ == "__main__":
    main()
