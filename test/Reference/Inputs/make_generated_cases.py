#!/usr/bin/env python3
"""ONNX cases of generated tensors above kiln's constant threshold (64 KiB,
kMaxGeneratedConstantBytes), with float64 numpy references, as backend-test
folders (issue 42).

  make_generated_cases.py OUT

Each case's generated tensor (eye matrix, window, one-hot positions, range,
band mask, block indices, diagonal mask, hardmax positions) is larger than
the threshold, so kiln builds it from kiln.iota and computes it at run time;
the references are written here from the ONNX definitions, on random inputs
where the op has them.
"""
import sys

import numpy as np
from onnx import TensorProto, helper

from backend_case import write


def window(n, a, periodic):
    d = n if periodic else n - 1
    x = 2 * np.pi * np.arange(n, dtype=np.float64) / d
    return a[0] - a[1] * np.cos(x) + a[2] * np.cos(2 * x)


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(42)
    # EyeLike: 300 x 250 f32 (293 KiB), diagonals above and below.
    x = rng.uniform(-1, 1, [300, 250]).astype(np.float32)
    for k in (0, 7, -40):
        y = np.eye(300, 250, k=k, dtype=np.float32)
        write(out, f"eyelike_k{k}", [helper.make_node("EyeLike", ["x"], ["y"], k=k)],
              [("x", x)], [("y", y)])
    y = np.eye(300, 250, k=3, dtype=np.int32)
    write(out, "eyelike_int32", [helper.make_node("EyeLike", ["x"], ["y"], k=3,
                                                  dtype=TensorProto.INT32)],
          [("x", x)], [("y", y)])
    # Windows of 40000 (156 KiB of f32), periodic and symmetric.
    coefficients = {"HannWindow": (0.5, 0.5, 0), "HammingWindow": (25 / 46, 21 / 46, 0),
                    "BlackmanWindow": (0.42, 0.5, 0.08)}
    for op, a in coefficients.items():
        for periodic in (1, 0):
            y = window(40000, a, periodic).astype(np.float32)
            write(out, f"{op.lower()}_p{periodic}",
                  [helper.make_node(op, ["n"], ["y"], periodic=periodic)], [],
                  [("y", y)], [("n", np.array(40000, dtype=np.int64))])
    y = window(20000, coefficients["HannWindow"], 1)
    write(out, "hannwindow_f64", [helper.make_node("HannWindow", ["n"], ["y"],
                                                   output_datatype=TensorProto.DOUBLE)],
          [], [("y", y)], [("n", np.array(20000, dtype=np.int64))])
    # OneHot of depth 12000 (the positions take 94 KiB), random indices, some
    # negative (wrapped), some out of range (all off).
    depth = 12000
    idx = rng.integers(-depth - 5, depth + 5, [3, 4]).astype(np.int64)
    values = np.array([-0.5, 2.0], dtype=np.float32)
    for axis in (-1, 0, 1):
        wrapped = np.where(idx < 0, idx + depth, idx)
        hot = np.moveaxis(wrapped[..., None] == np.arange(depth), -1, axis % 3)
        y = np.where(hot, values[1], values[0]).astype(np.float32)
        write(out, f"onehot_axis{axis}",
              [helper.make_node("OneHot", ["i", "depth", "v"], ["y"], axis=axis)],
              [("i", idx)], [("y", y)],
              [("depth", np.array([depth], dtype=np.int64)), ("v", values)])
    # Ranges of 30000 elements (117 to 234 KiB).
    for name, start, limit, delta, dtype in (
            ("range_f32", -3.5, 7496.5, 0.25, np.float32),
            ("range_i64", 7, -89993, -3, np.int64),
            ("range_i32", -100, 119900, 4, np.int32)):
        y = (start + np.arange(len(np.arange(start, limit, delta))) * np.float64(delta))
        write(out, name, [helper.make_node("Range", ["s", "l", "d"], ["y"])], [],
              [("y", y.astype(dtype))],
              [(n, np.array(v, dtype=dtype)) for n, v in
               (("s", start), ("l", limit), ("d", delta))])
    # Trilu of 2 x 300 x 250 (a 73 KiB mask), random values.
    x = rng.uniform(-1, 1, [2, 300, 250]).astype(np.float32)
    for upper, k in ((1, 2), (0, -3), (1, -300)):
        y = (np.triu(x, k) if upper else np.tril(x, k)).astype(np.float32)
        write(out, f"trilu_u{upper}_k{k}",
              [helper.make_node("Trilu", ["x", "k"], ["y"], upper=upper)],
              [("x", x)], [("y", y)], [("k", np.array(k, dtype=np.int64))], opset=14)
    # Blocked DequantizeLinear: 3 x 20000 int8 in blocks of 16 along axis 1
    # (the block indices take 156 KiB), random scales and zero points.
    x = rng.integers(-128, 128, [3, 20000]).astype(np.int8)
    scale = rng.uniform(0.01, 2, [3, 1250]).astype(np.float32)
    zero = rng.integers(-20, 20, [3, 1250]).astype(np.int8)
    y = ((x.astype(np.float64) - np.repeat(zero, 16, axis=1))
         * np.repeat(scale, 16, axis=1)).astype(np.float32)
    write(out, "dequantize_block",
          [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1,
                            block_size=16)],
          [("x", x)], [("y", y)], [("s", scale), ("z", zero)], opset=21)
    # Einsum diagonals of 200 x 200 (a 156 KiB mask), random values.
    x = rng.uniform(-1, 1, [200, 200]).astype(np.float32)
    write(out, "einsum_diagonal", [helper.make_node("Einsum", ["x"], ["y"],
                                                    equation="ii->i")],
          [("x", x)], [("y", np.einsum("ii->i", x.astype(np.float64)).astype(np.float32))],
          opset=12)
    x3 = rng.uniform(-1, 1, [2, 150, 150]).astype(np.float32)
    write(out, "einsum_batch_trace", [helper.make_node("Einsum", ["x"], ["y"],
                                                       equation="bii->b")],
          [("x", x3)],
          [("y", np.einsum("bii->b", x3.astype(np.float64)).astype(np.float32))],
          opset=12)
    # Hardmax over an axis of 10000 (positions of 78 KiB).
    x = rng.uniform(-1, 1, [3, 10000]).astype(np.float32)
    y = np.zeros_like(x)
    y[np.arange(3), x.argmax(axis=1)] = 1
    write(out, "hardmax_wide", [helper.make_node("Hardmax", ["x"], ["y"], axis=1)],
          [("x", x)], [("y", y)], opset=13)


if __name__ == "__main__":
    main()
