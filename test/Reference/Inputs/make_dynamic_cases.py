#!/usr/bin/env python3
"""A network with a dynamic batch and numpy references at several batch
sizes, for run-time shapes on the CPU reference (issue 32).

    make_dynamic_cases.py OUT

OUT/model.onnx: x (N x 8) and b (N x 8) -> Relu(x) + w (a weight of 8,
broadcast) -> Sigmoid -> * b -> y (N x 8), N a symbolic dimension. For each
N in 1, 3, 17 and 64, OUT/bN/ holds x.npy, b.npy and the reference
output_0.npy (numpy, float64 rounded to float32). Random inputs.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(32)
    w = rng.uniform(-1, 1, [8]).astype(np.float32)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Add", ["r", "w"], ["s"], name="add_w"),
        helper.make_node("Sigmoid", ["s"], ["g"], name="sigmoid"),
        helper.make_node("Mul", ["g", "b"], ["y"], name="gate"),
    ]
    dyn = lambda name: helper.make_tensor_value_info(
        name, TensorProto.FLOAT, ["N", 8])
    graph = helper.make_graph(nodes, "dynamic_batch", [dyn("x"), dyn("b")],
                              [dyn("y")], [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for n in (1, 3, 17, 64):
        case = os.path.join(out, "b%d" % n)
        os.makedirs(case, exist_ok=True)
        x = rng.uniform(-2, 2, [n, 8]).astype(np.float32)
        b = rng.uniform(-1, 1, [n, 8]).astype(np.float32)
        s = np.maximum(x.astype(np.float64), 0) + w
        y = (1 / (1 + np.exp(-s))) * b
        np.save(os.path.join(case, "x.npy"), x)
        np.save(os.path.join(case, "b.npy"), b)
        np.save(os.path.join(case, "output_0.npy"), y.astype(np.float32))


if __name__ == "__main__":
    main()
