#!/usr/bin/env python3
"""Benchmark: importing a ResNet-50-sized ONNX model (about 100 MB of float32
weights, random) with kiln-compile. Prints a table of wall time and peak
memory, next to the file size, and the extra memory over a tiny model.

  python3 -m pip install onnx numpy      # only this script needs them
  python3 benchmarks/import_large_model.py build/bin/kiln-compile

The targets (issue 3): under 2 s and under 2x the model's size in extra memory.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(50)
nodes, inits = [], []
count = [0]


def name(prefix):
    count[0] += 1
    return "%s_%d" % (prefix, count[0])


def weight(shape):
    n = name("w")
    inits.append(numpy_helper.from_array(
        (rng.standard_normal(shape) * 0.01).astype(np.float32), n))
    return n


def conv_bn(x, cin, cout, k, stride, relu=True):
    w = weight([cout, cin, k, k])
    c = name("conv")
    nodes.append(helper.make_node("Conv", [x, w], [c], pads=[k // 2] * 4,
                                  strides=[stride, stride]))
    b = name("bn")
    params = [weight([cout]) for _ in range(4)]
    nodes.append(helper.make_node("BatchNormalization", [c] + params, [b]))
    if not relu:
        return b
    r = name("relu")
    nodes.append(helper.make_node("Relu", [b], [r]))
    return r


def bottleneck(x, cin, mid, cout, stride):
    y = conv_bn(x, cin, mid, 1, 1)
    y = conv_bn(y, mid, mid, 3, stride)
    y = conv_bn(y, mid, cout, 1, 1, relu=False)
    shortcut = x if (cin == cout and stride == 1) else conv_bn(x, cin, cout, 1, stride, relu=False)
    s, r = name("add"), name("relu")
    nodes.append(helper.make_node("Add", [y, shortcut], [s]))
    nodes.append(helper.make_node("Relu", [s], [r]))
    return r


def resnet50():
    x = conv_bn("images", 3, 64, 7, 2)
    p = name("pool")
    nodes.append(helper.make_node("MaxPool", [x], [p], kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = p, 64
    for blocks, mid, cout, stride in [(3, 64, 256, 1), (4, 128, 512, 2),
                                       (6, 256, 1024, 2), (3, 512, 2048, 2)]:
        for i in range(blocks):
            x = bottleneck(x, cin, mid, cout, stride if i == 0 else 1)
            cin = cout
    g, f = name("gap"), name("flat")
    nodes.append(helper.make_node("GlobalAveragePool", [x], [g]))
    nodes.append(helper.make_node("Flatten", [g], [f]))
    nodes.append(helper.make_node("Gemm", [f, weight([1000, 2048]), weight([1000])],
                                  ["logits"], transB=1))
    graph = helper.make_graph(
        nodes, "resnet50_sized",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def measure(tool, path):
    """Wall seconds and peak RSS (KiB) of one kiln-compile run."""
    code = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
            "dt = time.perf_counter() - t\n"
            "print(r.returncode, dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    # --check-support imports the whole model (weights included) and prints
    # only the list of unsupported nodes: the import is measured, not printing.
    out = subprocess.run([sys.executable, "-c", code, tool, path, "--check-support"],
                         capture_output=True, text=True, check=True)
    rc, seconds, kib = out.stdout.split()
    if rc != "0":
        sys.exit("kiln-compile failed on " + path)
    return float(seconds), int(kib)


def main():
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "resnet50_sized.onnx")
        onnx.save(resnet50(), big)
        tiny = os.path.join(tmp, "tiny.onnx")
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "tiny",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        onnx.save(m, tiny)
        size = os.path.getsize(big)
        base_s, base_kib = measure(tool, tiny)
        runs = [measure(tool, big) for _ in range(3)]
        seconds = sorted(r[0] for r in runs)[1]
        kib = max(r[1] for r in runs)
        extra = (kib - base_kib) * 1024
        print("| model | file MB | nodes | import s (median of 3) | peak RSS MB | extra MB | extra / file |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        print("| tiny (1 Relu) | %.3f | 1 | %.3f | %.0f | - | - |"
              % (os.path.getsize(tiny) / 1e6, base_s, base_kib / 1024))
        print("| ResNet-50-sized | %.1f | %d | %.3f | %.0f | %.0f | %.2fx |"
              % (size / 1e6, len(nodes), seconds, kib / 1024, extra / 2**20, extra / size))


if __name__ == "__main__":
    main()
