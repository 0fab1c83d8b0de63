#!/usr/bin/env python3
"""ONNX LRN cases with float64 numpy references, as backend-test folders.

  make_lrn_cases.py OUT

Sizes from 1 to far beyond the channels (2^31 - 1 on 4 channels, the
hostile model of issue 42), odd and even, on random inputs: a window wider
than the channels sums every channel, and alpha is still divided by the
size the model gives.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def lrn(x, size, alpha, beta, bias):
    channels = x.shape[1]
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = np.zeros_like(x)
    for c in range(channels):
        first, last = max(0, c - lo), min(channels - 1, c + hi)
        sq[:, c] = (x[:, first:last + 1] ** 2).sum(axis=1)
    return x / (bias + alpha / size * sq) ** beta


def write(out, name, shape, size, alpha, beta, bias, seed):
    x = np.random.default_rng(seed).uniform(-3, 3, shape).astype(np.float32)
    y = lrn(x.astype(np.float64), size, alpha, beta, bias).astype(np.float32)
    node = helper.make_node("LRN", ["x"], ["y"], size=size, alpha=alpha, beta=beta,
                            bias=bias)
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, t in (("input", x), ("output", y)):
        path = os.path.join(d, "test_data_set_0", f"{kind}_0.pb")
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(t, "x" if kind == "input" else "y")
                    .SerializeToString())


def main():
    out = sys.argv[1]
    for size in (1, 3, 4, 7, 8, 2**31 - 1):
        write(out, f"lrn_size_{size}", [1, 4, 5, 5], size, 0.5, 0.75, 1.0, size % 97)
    write(out, "lrn_size_1000_c3", [2, 3, 4, 4], 1000, 30.0, 0.5, 2.0, 5)


if __name__ == "__main__":
    main()
