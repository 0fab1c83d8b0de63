#!/usr/bin/env python3
"""Writes ONNX backend-test cases for kiln's 8-bit floats, float4 and sub-byte
integers: Cast between f32/f16 and FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
FLOAT8E5M2FNUZ (saturate 1 and 0), FLOAT4E2M1, INT4, UINT4, INT2, UINT2,
and QuantizeLinear/DequantizeLinear with float8 and int4. Inputs are random
(fixed seed) with infinities, NaN, zeros of both signs, subnormals, ties and
values past each type's range; every code of each small type is converted
back. Expected outputs come from ml_dtypes (what onnx's reference uses),
independently of kiln.

Usage: make_small_type_cases.py OUT
"""
import os
import sys

import ml_dtypes as md
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)
# Values past f16's range become infinities on purpose.
np.seterr(over="ignore", invalid="ignore")

FLOAT8 = {
    "e4m3fn": (TensorProto.FLOAT8E4M3FN, md.float8_e4m3fn),
    "e4m3fnuz": (TensorProto.FLOAT8E4M3FNUZ, md.float8_e4m3fnuz),
    "e5m2": (TensorProto.FLOAT8E5M2, md.float8_e5m2),
    "e5m2fnuz": (TensorProto.FLOAT8E5M2FNUZ, md.float8_e5m2fnuz),
}
FLOAT4 = {"e2m1": (TensorProto.FLOAT4E2M1, md.float4_e2m1fn)}
INTS = {
    "int4": (TensorProto.INT4, md.int4),
    "uint4": (TensorProto.UINT4, md.uint4),
    "int2": (TensorProto.INT2, md.int2),
    "uint2": (TensorProto.UINT2, md.uint2),
}


def random_floats(n, dtype):
    """Values across the small types' ranges: normals, subnormals, exact
    ties between two codes, values past the largest, and the specials."""
    scales = rng.choice([2.0**-12, 2.0**-8, 2.0**-3, 1, 16, 300, 6e4, 1e6], n)
    x = (rng.standard_normal(n) * scales).astype(dtype)
    # Ties: a code's value plus half a step of a 3- or 2-bit mantissa.
    e = rng.integers(-8, 8, n // 8)
    m = rng.integers(0, 8, n // 8)
    x[: n // 8] = ((1 + (m + 0.5) / 8) * 2.0**e).astype(dtype)
    x[n // 8: n // 8 + 10] = np.array(
        [0, -0.0, np.inf, -np.inf, np.nan, 448, 464, 57344, 61440, -1e9], dtype)
    return rng.permutation(x)


def write(name, node, inputs, outputs, opset=23):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, t, a.shape) for n, t, a in inputs],
        [helper.make_tensor_value_info(n, t, a.shape) for n, t, a in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, tensors in (("input", inputs), ("output", outputs)):
        for k, (n, _, a) in enumerate(tensors):
            t = numpy_helper.from_array(a, n)
            with open(os.path.join(d, "test_data_set_0", "%s_%d.pb" % (kind, k)), "wb") as f:
                f.write(t.SerializeToString())


def cast(name, x, xtype, to, expected):
    write(name, helper.make_node("Cast", ["x"], ["y"], to=to[0], **to[1]),
          [("x", xtype, x)], [("y", to[0], expected)])


def all_codes(dtype, bits):
    """Every code of a small type, twice, in random order (2 x 2^bits)."""
    codes = np.tile(np.arange(2**bits, dtype=np.uint8), 2)
    return rng.permutation(codes).reshape(2, -1).view(dtype)


n = 4096
for fname, (ftype, dtype) in FLOAT8.items():
    largest = np.float32(md.finfo(dtype).max)
    for src, src_type, src_dtype in (("f32", TensorProto.FLOAT, np.float32),
                                     ("f16", TensorProto.FLOAT16, np.float16)):
        x = random_floats(n, src_dtype).reshape(64, 64)
        sat = np.clip(x.astype(np.float32), -largest, largest).astype(dtype)
        cast("cast_%s_to_%s" % (src, fname), x, src_type, (ftype, {}), sat)
        cast("cast_%s_to_%s_no_saturate" % (src, fname), x, src_type,
             (ftype, {"saturate": 0}), x.astype(np.float32).astype(dtype))
    codes = all_codes(dtype, 8)
    cast("cast_%s_to_f32" % fname, codes, ftype, (TensorProto.FLOAT, {}),
         codes.astype(np.float32))
    cast("cast_%s_to_f16" % fname, codes, ftype, (TensorProto.FLOAT16, {}),
         codes.astype(np.float32).astype(np.float16))

# float4 always saturates (ml_dtypes turns NaN into a zero).
x = random_floats(n, np.float32).reshape(64, 64)
cast("cast_f32_to_e2m1", x, TensorProto.FLOAT, (TensorProto.FLOAT4E2M1, {}),
     x.astype(md.float4_e2m1fn))
codes = all_codes(md.float4_e2m1fn, 4)
cast("cast_e2m1_to_f32", codes, TensorProto.FLOAT4E2M1, (TensorProto.FLOAT, {}),
     codes.astype(np.float32))

# Sub-byte integers: truncated toward zero, 0 out of range (ml_dtypes).
for iname, (itype, dtype) in INTS.items():
    x = (rng.uniform(-20, 20, n).astype(np.float32)).reshape(64, 64)
    x.flat[:3] = [np.nan, np.inf, -np.inf]
    info = md.iinfo(dtype)
    t = np.trunc(x)
    expected = np.where((t >= info.min) & (t <= info.max), t, 0).astype(dtype)
    cast("cast_f32_to_%s" % iname, x, TensorProto.FLOAT, (itype, {}), expected)
    bits = 4 if "4" in iname else 2
    codes = all_codes(dtype, bits)
    cast("cast_%s_to_f32" % iname, codes, itype, (TensorProto.FLOAT, {}),
         codes.astype(np.float32))
    wide = TensorProto.INT8 if info.min < 0 else TensorProto.UINT8
    cast("cast_%s_to_%s8" % (iname, iname[:-1]), codes, itype, (wide, {}),
         codes.astype(np.int8 if info.min < 0 else np.uint8))

# QuantizeLinear to float8 (x / scale, saturated) and int4 (rounded half to
# even, clamped), per axis; DequantizeLinear back.
x = random_floats(n, np.float32).reshape(64, 64)
x[~np.isfinite(x)] = 1.0
scale = rng.uniform(0.5, 4, 64).astype(np.float32)
for qname, qtype, dtype in (("e4m3fn", TensorProto.FLOAT8E4M3FN, md.float8_e4m3fn),
                            ("e5m2", TensorProto.FLOAT8E5M2, md.float8_e5m2)):
    largest = np.float32(md.finfo(dtype).max)
    zero = np.zeros(64, dtype)
    y = np.clip(x / scale[:, None], -largest, largest).astype(dtype)
    write("quantize_%s" % qname,
          helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=0),
          [("x", TensorProto.FLOAT, x), ("s", TensorProto.FLOAT, scale),
           ("z", qtype, zero)], [("y", qtype, y)])
    write("dequantize_%s" % qname,
          helper.make_node("DequantizeLinear", ["y", "s"], ["x"], axis=0),
          [("y", qtype, y), ("s", TensorProto.FLOAT, scale)],
          [("x", TensorProto.FLOAT, y.astype(np.float32) * scale[:, None])])
zero = rng.integers(-3, 3, 64).astype(md.int4)
q = np.clip(np.rint(x / scale[:, None]) + zero.astype(np.float32)[:, None], -8, 7)
write("quantize_int4",
      helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=0),
      [("x", TensorProto.FLOAT, x), ("s", TensorProto.FLOAT, scale),
       ("z", TensorProto.INT4, zero)], [("y", TensorProto.INT4, q.astype(md.int4))])
q = q.astype(md.int4)
write("dequantize_int4",
      helper.make_node("DequantizeLinear", ["y", "s", "z"], ["x"], axis=0),
      [("y", TensorProto.INT4, q), ("s", TensorProto.FLOAT, scale),
       ("z", TensorProto.INT4, zero)],
      [("x", TensorProto.FLOAT,
        (q.astype(np.float32) - zero.astype(np.float32)[:, None]) * scale[:, None])])
