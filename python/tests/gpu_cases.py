#!/usr/bin/env python3
"""Writes the plans and references that test_gpu.py checks on the GPU machine.

    PYTHONPATH=build/python python3 python/tests/gpu_cases.py OUT_DIR

The plans are compiled here (the GPU machine has no compiler, and may have
another Python than the compiler module was built for), with the compiler
module, and the references computed here: numpy for the small model, kiln's
CPU reference executor for the digits network.
- small.kplan: x (4 x 8) -> Gemm (random W) -> Relu -> y, fp32 without
  TF32; x.npy and y.npy (numpy, float64 rounded to float32).
- digits-fp32.kplan, digits-fp16.kplan: the digits sample's network built
  with kiln.NetworkDefinition; digits-onnx-fp32.kplan,
  digits-onnx-fp16.kplan: its ONNX export through kiln.compile;
  digits-x.npy, digits-labels.npy, digits-reference.npy (the reference
  executor's probabilities), digits-accuracy.npy (the training script's).
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np

import kiln

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main(out: pathlib.Path):
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from test_compile import small_model

    rng = np.random.default_rng(7)
    (out / "small.onnx").write_bytes(small_model())
    (out / "small.kplan").write_bytes(kiln.compile(out / "small.onnx", batch=4, tf32=False))
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    np.save(out / "x.npy", x)
    np.save(out / "y.npy", np.maximum(x.astype(np.float64) @ w, 0).astype(np.float32))

    spec = importlib.util.spec_from_file_location("digits", ROOT / "examples/digits/digits.py")
    digits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(digits)
    accuracy, tensors = digits.read_weights(digits.HERE / "digits.weights")
    pixels, labels = digits.read_heldout(digits.HERE / "heldout.bin")
    dx = (pixels.astype(np.float32) / 16).reshape(-1, 1, 8, 8)
    network = digits.build_network(tensors, len(labels))
    builder = kiln.Builder()
    for precision in ("fp32", "fp16"):
        config = kiln.BuilderConfig()
        config.fp16 = precision == "fp16"
        (out / f"digits-{precision}.kplan").write_bytes(builder.build_serialized_plan(network, config))
        (out / f"digits-onnx-{precision}.kplan").write_bytes(
            kiln.compile(digits.HERE / "digits.onnx", fp16=config.fp16)
        )
    np.save(out / "digits-x.npy", dx)
    np.save(out / "digits-labels.npy", labels)
    np.save(out / "digits-reference.npy", builder.run_reference(network, [dx])[0])
    np.save(out / "digits-accuracy.npy", np.float64(accuracy))


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
