#!/usr/bin/env python3
"""Networks of convolution, pooling, matrix and shape layers with a dynamic
batch, and numpy references at several batch sizes, for run-time shapes on
the CPU reference (issue 32).

    make_dynamic_layers.py OUT

OUT/cnn.onnx: x (N x 3 x 12 x 12) -> Conv 3x3 (pads 1) -> BatchNormalization
-> Relu -> MaxPool 2x2 -> Conv 3x3 (pads 1) + the pooled map (a residual)
-> Relu -> AveragePool 2x2 -> GlobalAveragePool -> Flatten -> Gemm (transB)
-> Softmax (opset 11: over the flattened row) -> y (N x 5).
OUT/mlp.onnx: x (N x 4 x 6) -> Reshape [-1, 24] -> MatMul 24x16 + bias ->
Relu, and Reshape [0, -1] of x -> MatMul 24x8, concatenated (axis 1, N x 24)
-> Reshape [0, 2, -1] -> Transpose [0, 2, 1] -> LayerNormalization (last
axis) -> ReduceMean (axis 1, kept) -> Squeeze -> y (N x 2).
For each N in 1, 3 and 64, OUT/<name>_bN/ holds x.npy and the reference
output_0.npy (numpy in float64, rounded to float32). Random weights and
inputs.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BATCHES = (1, 3, 64)


def conv(x, w, b, pad):
    n, c, h, wd = x.shape
    k = w.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - k + 1, wd + 2 * pad - k + 1
    y = np.zeros((n, w.shape[0], oh, ow))
    for i in range(k):
        for j in range(k):
            patch = xp[:, :, i:i + oh, j:j + ow]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return y + b.reshape(1, -1, 1, 1)


def pool2(x, reduce):
    n, c, h, w = x.shape
    return reduce(x.reshape(n, c, h // 2, 2, w // 2, 2), axis=(3, 5))


def save(model, out, name):
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def cnn(out, rng):
    f = lambda *s: rng.uniform(-0.5, 0.5, s).astype(np.float32)
    w1, b1, w2, b2 = f(8, 3, 3, 3), f(8), f(8, 8, 3, 3), f(8)
    scale, bias, mean = f(8) + 1, f(8), f(8)
    var = rng.uniform(0.5, 1.5, 8).astype(np.float32)
    wf, bf = f(5, 8), f(5)
    inits = dict(w1=w1, b1=b1, w2=w2, b2=b2, scale=scale, bias=bias,
                 mean=mean, var=var, wf=wf, bf=bf)
    node = helper.make_node
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1", "scale", "bias", "mean", "var"],
             ["n1"], name="bn1", epsilon=1e-5),
        node("Relu", ["n1"], ["r1"], name="relu1"),
        node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
             strides=[2, 2]),
        node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        node("Add", ["c2", "p1"], ["s2"], name="residual"),
        node("Relu", ["s2"], ["r2"], name="relu2"),
        node("AveragePool", ["r2"], ["p2"], name="pool2", kernel_shape=[2, 2],
             strides=[2, 2]),
        node("GlobalAveragePool", ["p2"], ["g"], name="gap"),
        node("Flatten", ["g"], ["flat"], name="flatten"),
        node("Gemm", ["flat", "wf", "bf"], ["logits"], name="fc", transB=1),
        node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "dynamic_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", 3, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]),
         out, "cnn")

    def reference(x):
        d = {k: v.astype(np.float64) for k, v in inits.items()}
        c1 = conv(x, d["w1"], d["b1"], 1)
        n1 = ((c1 - d["mean"].reshape(1, -1, 1, 1)) /
              np.sqrt(d["var"].reshape(1, -1, 1, 1) + 1e-5) *
              d["scale"].reshape(1, -1, 1, 1) + d["bias"].reshape(1, -1, 1, 1))
        p1 = pool2(np.maximum(n1, 0), np.max)
        r2 = np.maximum(conv(p1, d["w2"], d["b2"], 1) + p1, 0)
        g = pool2(r2, np.mean).mean(axis=(2, 3))
        logits = g @ d["wf"].T + d["bf"]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return [3, 12, 12], reference


def mlp(out, rng):
    f = lambda *s: rng.uniform(-0.5, 0.5, s).astype(np.float32)
    w1, b1, w2 = f(24, 16), f(16), f(24, 8)
    gamma, beta = f(12) + 1, f(12)
    inits = dict(w1=w1, b1=b1, w2=w2, gamma=gamma, beta=beta,
                 flat=np.array([-1, 24], np.int64),
                 keep=np.array([0, -1], np.int64),
                 split=np.array([0, 2, -1], np.int64),
                 axes=np.array([1], np.int64))
    node = helper.make_node
    nodes = [
        node("Reshape", ["x", "flat"], ["x1"], name="flat"),
        node("MatMul", ["x1", "w1"], ["m1"], name="mm1"),
        node("Add", ["m1", "b1"], ["a1"], name="bias1"),
        node("Relu", ["a1"], ["r1"], name="relu1"),
        node("Reshape", ["x", "keep"], ["x2"], name="keep"),
        node("MatMul", ["x2", "w2"], ["m2"], name="mm2"),
        node("Concat", ["r1", "m2"], ["cat"], name="cat", axis=1),
        node("Reshape", ["cat", "split"], ["halves"], name="split"),
        node("LayerNormalization", ["halves", "gamma", "beta"], ["ln"],
             name="ln", axis=-1, epsilon=1e-5),
        node("Transpose", ["ln"], ["t"], name="transpose", perm=[0, 2, 1]),
        node("ReduceMean", ["t", "axes"], ["mean"], name="mean",
             keepdims=1),
        node("Squeeze", ["mean", "axes"], ["y"], name="squeeze"),
    ]
    graph = helper.make_graph(
        nodes, "dynamic_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    # LayerNormalization is opset 17; ReduceMean takes axes as an input
    # from 18.
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]),
         out, "mlp")

    def reference(x):
        d = {k: v.astype(np.float64) for k, v in inits.items()}
        flat = x.reshape(x.shape[0], 24)
        r1 = np.maximum(flat @ d["w1"] + d["b1"], 0)
        cat = np.concatenate([r1, flat @ d["w2"]], axis=1)
        halves = cat.reshape(x.shape[0], 2, 12)
        mu = halves.mean(axis=-1, keepdims=True)
        var = ((halves - mu) ** 2).mean(axis=-1, keepdims=True)
        ln = (halves - mu) / np.sqrt(var + 1e-5) * d["gamma"] + d["beta"]
        return ln.transpose(0, 2, 1).mean(axis=1)

    return [4, 6], reference


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(3232)
    for name, make in (("cnn", cnn), ("mlp", mlp)):
        shape, reference = make(out, rng)
        for n in BATCHES:
            case = os.path.join(out, "%s_b%d" % (name, n))
            os.makedirs(case, exist_ok=True)
            x = rng.uniform(-1, 1, [n] + shape).astype(np.float32)
            np.save(os.path.join(case, "x.npy"), x)
            y = reference(x.astype(np.float64))
            np.save(os.path.join(case, "output_0.npy"), y.astype(np.float32))


if __name__ == "__main__":
    main()
