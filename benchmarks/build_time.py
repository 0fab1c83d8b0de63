#!/usr/bin/env python3
"""Benchmark: how long kiln-compile takes to build real networks' plans.

  python3 benchmarks/build_time.py [KILN_BIN_DIR] [--runs 5] [--no-cubin]

Writes, with random weights, into a temporary folder:
  - ResNet-50 (benchmarks/kernel_counts.py's writer: torchvision's layers after
    BatchNormalization is folded), input 1x3x224x224;
  - BERT-base (12 layers, hidden 768, 12 heads, FFN 3072, sequence 128,
    vocabulary 30522), written with the ops torch's TorchScript exporter
    writes: Gather embeddings, LayerNormalization, MatMul + Add, Reshape and
    Transpose into heads, a scaled MatMul, the additive padding mask
    (Unsqueeze, Cast, Sub, Mul), Softmax, and GELU as Div, Erf, Add, Mul;
then builds each plan with kiln-compile's defaults (cubins included unless
--no-cubin) RUNS times and prints the median wall time and the peak resident
memory (of the children, so of the largest run) as a table. This times the
compiler on this machine's CPUs; nothing runs on a GPU.
"""
import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def resnet50(folder):
    spec = importlib.util.spec_from_file_location(
        "kernel_counts", os.path.join(HERE, "kernel_counts.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.resnet50(folder)
    return os.path.join(folder, "resnet50.onnx")


def bert_base(folder, layers=12, hidden=768, heads=12, ffn=3072, seq=128,
              vocab=30522):
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    count = [0]

    def name(prefix):
        count[0] += 1
        return "%s%d" % (prefix, count[0])

    def weight(shape, scale=0.02, dtype=np.float32):
        n = name("w")
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(dtype), n))
        return n

    def const(value, dtype):
        n = name("c")
        inits.append(numpy_helper.from_array(np.array(value, dtype), n))
        return n

    def op(kind, inputs, **attrs):
        y = name(kind.lower())
        nodes.append(helper.make_node(kind, inputs, [y], name=y, **attrs))
        return y

    def linear(x, n_in, n_out):
        return op("Add", [op("MatMul", [x, weight([n_in, n_out])]),
                          weight([n_out])])

    def layer_norm(x):
        return op("LayerNormalization",
                  [x, weight([hidden], 1.0), weight([hidden])], axis=-1,
                  epsilon=1e-12)

    head = hidden // heads
    split_shape = const([1, seq, heads, head], np.int64)
    merge_shape = const([1, seq, hidden], np.int64)
    positions = const(np.arange(seq).reshape(1, seq), np.int64)
    x = op("Add", [op("Gather", [weight([vocab, hidden]), "input_ids"]),
                   op("Gather", [weight([512, hidden]), positions])])
    x = layer_norm(op("Add", [x, op("Gather", [weight([2, hidden]),
                                               const(np.zeros((1, seq)),
                                                     np.int64)])]))
    mask = op("Unsqueeze", ["attention_mask", const([1, 2], np.int64)])
    mask = op("Mul", [op("Sub", [const(1.0, np.float32),
                                 op("Cast", [mask], to=TensorProto.FLOAT)]),
                      const(-10000.0, np.float32)])
    for _ in range(layers):
        q, k, v = (op("Transpose", [op("Reshape", [linear(x, hidden, hidden),
                                                   split_shape])],
                      perm=perm)
                   for perm in ([0, 2, 1, 3], [0, 2, 3, 1], [0, 2, 1, 3]))
        scores = op("Div", [op("MatMul", [q, k]),
                            const(np.sqrt(head), np.float32)])
        probs = op("Softmax", [op("Add", [scores, mask])], axis=-1)
        context = op("Reshape", [op("Transpose", [op("MatMul", [probs, v])],
                                    perm=[0, 2, 1, 3]), merge_shape])
        x = layer_norm(op("Add", [linear(context, hidden, hidden), x]))
        up = linear(x, hidden, ffn)
        gelu = op("Mul", [op("Mul", [up, op("Add", [
            op("Erf", [op("Div", [up, const(np.sqrt(2.0), np.float32)])]),
            const(1.0, np.float32)])]), const(0.5, np.float32)])
        x = layer_norm(op("Add", [linear(gelu, ffn, hidden), x]))
    graph = helper.make_graph(
        nodes, "bert_base",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                       [1, seq]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                       [1, seq])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT,
                                       [1, seq, hidden])], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(folder, "bert_base.onnx")
    onnx.save(model, path)
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin", nargs="?", default="build/bin")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-cubin", action="store_true")
    args = parser.parse_args()
    compile_tool = os.path.join(args.bin, "kiln-compile")
    with tempfile.TemporaryDirectory() as folder:
        models = [("ResNet-50, batch 1", resnet50(folder)),
                  ("BERT-base, batch 1, sequence 128", bert_base(folder))]
        print("| network | kiln-compile, median of %d (s) | min (s) | "
              "peak memory (MB) |" % args.runs)
        print("|---|---:|---:|---:|")
        for label, model in models:
            command = [compile_tool, model, "-o",
                       os.path.join(folder, "plan.kplan")]
            if args.no_cubin:
                command.append("--no-cubin")
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                subprocess.run(command, check=True)
                times.append(time.perf_counter() - start)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            print("| %s | %.2f | %.2f | %d |" % (label, statistics.median(times),
                                               min(times), peak // 1024))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
