#!/usr/bin/env python3
"""Writes the models of small-types.test: OUT/model.onnx with float8, float4
and 4-bit integer tensors (a packed INT4 initializer of odd length among
them), and OUT/e8m0.onnx, a cast to FLOAT8E8M0 that kiln refuses."""
import os
import sys

import ml_dtypes as md
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
zero = numpy_helper.from_array(np.array([-8, 7, -1], dtype=md.int4), "zero")
nodes = [
    helper.make_node("Cast", ["x"], ["a"], to=TensorProto.FLOAT8E4M3FN, saturate=0),
    helper.make_node("Cast", ["x"], ["b"], to=TensorProto.FLOAT8E5M2FNUZ),
    helper.make_node("Cast", ["b"], ["c"], to=TensorProto.FLOAT4E2M1),
    helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], axis=1),
    helper.make_node("Cast", ["q"], ["u"], to=TensorProto.UINT2),
]
graph = helper.make_graph(
    nodes, "small_types",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("a", TensorProto.FLOAT8E4M3FN, [2, 3]),
     helper.make_tensor_value_info("c", TensorProto.FLOAT4E2M1, [2, 3]),
     helper.make_tensor_value_info("q", TensorProto.INT4, [2, 3]),
     helper.make_tensor_value_info("u", TensorProto.UINT2, [2, 3])],
    [zero, numpy_helper.from_array(np.array([1, 2, 4], np.float32), "scale")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
model.ir_version = 10
onnx.save(model, os.path.join(out, "model.onnx"))

graph = helper.make_graph(
    [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0)], "e8m0",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT8E8M0, [2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
model.ir_version = 11
onnx.save(model, os.path.join(out, "e8m0.onnx"))
