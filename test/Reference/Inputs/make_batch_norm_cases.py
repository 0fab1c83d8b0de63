#!/usr/bin/env python3
"""Writes ONNX backend-test cases of convolutions followed by inference
BatchNormalization, which kiln-fold-batch-norm folds into the convolution:
with and without a conv bias, grouped and strided, 1-D and 2-D, followed by
Relu, and one whose convolution output is also a graph output (not folded);
and of a Gemm (x * W^T + b) followed by BatchNormalization over its features.
Weights, statistics (positive variances) and inputs are random (fixed
seed); expected outputs are computed here in float64 numpy, unfolded,
independently of kiln.

Usage: make_batch_norm_cases.py OUT
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)


def conv_nd(x, w, b, stride, group):
    """Cross-correlation, no padding, of N x C x spatial by K x C/g x R."""
    n, c = x.shape[:2]
    k, cg = w.shape[:2]
    spatial = x.shape[2:]
    kernel = w.shape[2:]
    outs = [(s - r) // stride + 1 for s, r in zip(spatial, kernel)]
    y = np.zeros((n, k, *outs))
    kg = k // group
    for o in np.ndindex(*outs):
        window = tuple(slice(i * stride, i * stride + r) for i, r in zip(o, kernel))
        for g in range(group):
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + window]
            ws = w[g * kg:(g + 1) * kg]
            y[(slice(None), slice(g * kg, (g + 1) * kg)) + o] = np.tensordot(
                patch, ws, axes=(list(range(1, patch.ndim)), list(range(1, ws.ndim))))
    if b is not None:
        y += b.reshape((1, k) + (1,) * len(spatial))
    return y


def case(name, x_shape, k, kernel, stride=1, group=1, bias=True, relu=False,
         expose_conv=False):
    c = x_shape[1]
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((k, c // group, *kernel)).astype(np.float32)
    b = rng.standard_normal(k).astype(np.float32) if bias else None
    scale = rng.uniform(0.5, 2, k).astype(np.float32)
    shift = rng.standard_normal(k).astype(np.float32)
    mean = rng.standard_normal(k).astype(np.float32)
    var = rng.uniform(0.1, 3, k).astype(np.float32)
    eps = 1e-3
    conv = conv_nd(x.astype(np.float64), w.astype(np.float64),
                   None if b is None else b.astype(np.float64), stride, group)
    bc = lambda v: v.astype(np.float64).reshape((1, k) + (1,) * len(kernel))
    y = (conv - bc(mean)) / np.sqrt(bc(var) + eps) * bc(scale) + bc(shift)
    if relu:
        y = np.maximum(y, 0)
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((w, "w"), (scale, "s"), (shift, "t"), (mean, "m"), (var, "v"))]
    conv_inputs = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(b, "b"))
        conv_inputs.append("b")
    nodes = [helper.make_node("Conv", conv_inputs, ["c"], strides=[stride] * len(kernel),
                              group=group),
             helper.make_node("BatchNormalization", ["c", "s", "t", "m", "v"],
                              ["n" if relu else "y"], epsilon=eps)]
    if relu:
        nodes.append(helper.make_node("Relu", ["n"], ["y"]))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)]
    expected = [y]
    if expose_conv:
        outputs.append(helper.make_tensor_value_info("c", TensorProto.FLOAT, conv.shape))
        expected.append(conv)
    save(name, nodes, x, outputs, expected, inits)


def save(name, nodes, x, outputs, expected, inits):
    """Writes the model of `nodes` (input x) and its test data set."""
    graph = helper.make_graph(nodes, name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    for i, (e, o) in enumerate(zip(expected, outputs)):
        with open(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(e.astype(np.float32), o.name).SerializeToString())


case("conv_bias_bn", (2, 3, 9, 9), 8, (3, 3))
case("conv_bn_relu", (1, 4, 8, 8), 16, (3, 3), bias=False, relu=True)
case("grouped_strided_conv_bn", (1, 8, 11, 11), 12, (3, 3), stride=2, group=4)
case("conv1d_bn", (2, 5, 20), 7, (4,))
case("large_conv_bn", (1, 16, 12, 12), 32, (3, 3))  # 4,608 weights: a blob
case("conv_also_output_bn", (1, 3, 6, 6), 4, (3, 3), expose_conv=True)


def gemm_case(name, n, c, k):
    x = rng.standard_normal((n, c)).astype(np.float32)
    w = rng.standard_normal((k, c)).astype(np.float32)
    b = rng.standard_normal(k).astype(np.float32)
    scale = rng.uniform(0.5, 2, k).astype(np.float32)
    shift = rng.standard_normal(k).astype(np.float32)
    mean = rng.standard_normal(k).astype(np.float32)
    var = rng.uniform(0.1, 3, k).astype(np.float32)
    eps = 1e-3
    g = x.astype(np.float64) @ w.astype(np.float64).T + b.astype(np.float64)
    y = (g - mean) / np.sqrt(var.astype(np.float64) + eps) * scale + shift
    inits = [numpy_helper.from_array(a, nm) for a, nm in
             ((w, "w"), (b, "b"), (scale, "s"), (shift, "t"), (mean, "m"), (var, "v"))]
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1),
             helper.make_node("BatchNormalization", ["g", "s", "t", "m", "v"], ["y"],
                              epsilon=eps)]
    save(name, nodes, x, [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)],
         [y], inits)


gemm_case("gemm_bn", 4, 10, 6)
