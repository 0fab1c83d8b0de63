"""ONNX models that mix kiln's layers with its built-in plugins, for the GPU.

    python3 make_plugin_models.py OUT --compile build/bin/kiln-compile

writes, per case, OUT/<case>/model.onnx, the random inputs (<name>.npy),
numpy's outputs (ref/output_K.npy) and the plan kiln-compile makes of the
model (plan.kplan; the built-in plugins are registered by default). On the
GPU machine each plan is run against its reference with

    kiln-run-plan OUT/<case>/plan.kplan --input x=OUT/<case>/x.npy \\
        --reference-dir OUT/<case>/ref

which checks the whole chain: the importer's mapping of nodes to plugins,
the plugin step in the plan, and the plugins' kernels between kiln's own.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def leaky_relu(x, slope):
    return np.where(x >= 0, x, slope * x)


def normalize(x, scale, eps):
    """Caffe SSD's Normalize, across channels, a scale per channel."""
    norm = np.sqrt((x.astype(np.float64) ** 2).sum(axis=1, keepdims=True) + eps)
    return (x / norm * scale.reshape(1, -1, 1, 1)).astype(np.float32)


def case_chain(rng):
    """x -> Add(bias) -> LReLU_TRT -> Clip_TRT -> Mul(2) -> y."""
    x = rng.standard_normal((2, 8, 5, 5)).astype(np.float32)
    bias = rng.standard_normal((1, 8, 1, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Add", ["x", "bias"], ["a"], name="add"),
        helper.make_node("LReLU_TRT", ["a"], ["l"], name="lrelu", negSlope=0.2),
        helper.make_node("Clip_TRT", ["l"], ["c"], name="clip", clipMin=-0.3, clipMax=1.5),
        helper.make_node("Mul", ["c", "two"], ["y"], name="twice"),
    ]
    inits = [
        numpy_helper.from_array(bias, "bias"),
        numpy_helper.from_array(np.array(2.0, np.float32), "two"),
    ]
    y = np.clip(leaky_relu(x + bias, np.float32(0.2)), -0.3, 1.5) * 2
    return nodes, inits, {"x": x}, [y.astype(np.float32)]


def case_normalize(rng):
    """x -> Conv 3x3 -> Normalize_TRT (per-channel scale) -> Relu -> y."""
    x = rng.standard_normal((1, 4, 9, 9)).astype(np.float32)
    w = (rng.standard_normal((6, 4, 3, 3)) * 0.3).astype(np.float32)
    scale = rng.uniform(0.5, 20.0, 6).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node(
            "Normalize_TRT",
            ["c"],
            ["n"],
            name="norm",
            weights=scale.tolist(),
            acrossSpatial=0,
            channelShared=0,
            nbWeights=6,
            eps=1e-10,
        ),
        helper.make_node("Relu", ["n"], ["y"], name="relu"),
    ]
    inits = [numpy_helper.from_array(w, "w")]
    # The convolution in float64, padded by one.
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 6, 9, 9))
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,kc->nkhw", padded[:, :, i : i + 9, j : j + 9], w[:, :, i, j])
    y = np.maximum(normalize(conv.astype(np.float32), scale, 1e-10), 0)
    return nodes, inits, {"x": x}, [y]


CASES = {"chain": case_chain, "normalize": case_normalize}


def write_case(name, make, out, compile_tool, rng):
    nodes, inits, inputs, outputs = make(rng)
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, outputs[0].shape)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    folder = os.path.join(out, name)
    os.makedirs(os.path.join(folder, "ref"), exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for k, v in inputs.items():
        np.save(os.path.join(folder, f"{k}.npy"), v)
    for i, v in enumerate(outputs):
        np.save(os.path.join(folder, "ref", f"output_{i}.npy"), v)
    if compile_tool:
        subprocess.run(
            [compile_tool, os.path.join(folder, "model.onnx"), "-o", os.path.join(folder, "plan.kplan")],
            check=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--compile", help="kiln-compile, to write each case's plan")
    args = parser.parse_args()
    rng = np.random.default_rng(14)
    for name, make in CASES.items():
        write_case(name, make, args.out, args.compile, rng)
        print(f"{name}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
