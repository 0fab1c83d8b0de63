"""Writes one ONNX backend-test folder: model.onnx and
test_data_set_0/{input,output}_K.pb, as kiln-conformance reads them. Shared
by the make_*_cases.py scripts that build models with onnx.helper."""
import os

import onnx
from onnx import helper, numpy_helper


def write(out, name, nodes, inputs, outputs, initializers=(), opset=17):
    """inputs/outputs: lists of (name, array); arrays give types and shapes."""
    def info(n, a):
        return helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
    graph = helper.make_graph(nodes, name, [info(n, a) for n, a in inputs],
                              [info(n, a) for n, a in outputs],
                              [numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, tensors in (("input", inputs), ("output", outputs)):
        for i, (n, a) in enumerate(tensors):
            path = os.path.join(d, "test_data_set_0", f"{kind}_{i}.pb")
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
