"""Writes small ONNX models that a hostile user would bring, one per class of
bad input kiln must refuse with a clear error (issue 9): sizes that overflow
or are huge, folding that would explode a small model, malformed graphs that
would otherwise be read with a wrong meaning, and external data that is not a
plain file.

    python3 hostile_models.py OUT_DIR
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(out, name, m):
    onnx.save(m, os.path.join(out, name + ".onnx"))


def main(out):
    os.makedirs(out, exist_ok=True)
    # An input whose byte count overflows int64.
    save(out, "huge_input", model([helper.make_node("Relu", ["x"], ["y"])],
                                  [f32("x", [2**62, 4])], [f32("y", [2**62, 4])]))
    # ConstantOfShape to 2^40 elements from a 111-byte model.
    shape = numpy_helper.from_array(np.array([2**40], dtype=np.int64), "shape")
    save(out, "constant_of_shape", model(
        [helper.make_node("ConstantOfShape", ["shape"], ["y"])],
        [], [f32("y", [2**40])], [shape]))
    # ConstantOfShape to 1 GiB: folded, it would be a 1 GiB plan.
    shape = numpy_helper.from_array(np.array([1024, 1024, 256], dtype=np.int64), "shape")
    save(out, "constant_of_shape_1g", model(
        [helper.make_node("ConstantOfShape", ["shape"], ["y"])],
        [], [f32("y", [1024, 1024, 256])], [shape]))
    # Expand a constant to 2^40 elements.
    one = numpy_helper.from_array(np.array([1.0], dtype=np.float32), "one")
    to = numpy_helper.from_array(np.array([2**20, 2**20], dtype=np.int64), "to")
    save(out, "expand", model([helper.make_node("Expand", ["one", "to"], ["y"])],
                              [], [f32("y", [2**20, 2**20])], [one, to]))
    # Resize to 2^31 x 2^31.
    scales = numpy_helper.from_array(np.array([1, 1, 2**30, 2**30], dtype=np.float32), "scales")
    save(out, "resize", model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest")],
        [f32("x", [1, 1, 2, 2])], [f32("y", None)], [scales]))
    # An attribute of the wrong type: Softmax's axis as a float.
    node = helper.make_node("Softmax", ["x"], ["y"])
    node.attribute.append(helper.make_attribute("axis", 1.0))
    save(out, "attribute_type", model([node], [f32("x", [2, 3])], [f32("y", [2, 3])]))
    # Two nodes define the same value.
    save(out, "duplicate_name", model(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Sigmoid", ["x"], ["y"])],
        [f32("x", [4])], [f32("y", [4])]))
    # Constant Gather indices out of range.
    idx = numpy_helper.from_array(np.array([0, 7], dtype=np.int64), "idx")
    save(out, "gather_range", model(
        [helper.make_node("Gather", ["x", "idx"], ["y"], axis=0)],
        [f32("x", [4, 2])], [f32("y", [2, 2])], [idx]))
    # An initializer with both raw_data and float_data.
    both = numpy_helper.from_array(np.array([1.0, 2.0], dtype=np.float32), "w")
    both.float_data.extend([3.0, 4.0])
    save(out, "raw_and_typed", model([helper.make_node("Add", ["x", "w"], ["y"])],
                                     [f32("x", [2])], [f32("y", [2])], [both]))
    # External data whose offset + length overflows int64.
    ext = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2])
    ext.data_location = TensorProto.EXTERNAL
    for key, value in [("location", "w.bin"), ("offset", str(2**63 - 4)), ("length", "8")]:
        entry = ext.external_data.add()
        entry.key, entry.value = key, value
    save(out, "external_overflow", model([helper.make_node("Add", ["x", "w"], ["y"])],
                                         [f32("x", [2])], [f32("y", [2])], [ext]))
    with open(os.path.join(out, "w.bin"), "wb") as f:
        f.write(np.zeros(2, dtype=np.float32).tobytes())
    # External data in a file that is not a regular file (the test makes a FIFO
    # at fifo.bin) for a tensor of 0 elements.
    fifo = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[0])
    fifo.data_location = TensorProto.EXTERNAL
    entry = fifo.external_data.add()
    entry.key, entry.value = "location", "fifo.bin"
    save(out, "external_fifo", model([helper.make_node("Identity", ["w"], ["y"])],
                                     [], [f32("y", [0])], [fifo]))
    # External data through a hard link to a file outside the model's folder
    # (the test makes link.bin).
    link = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2])
    link.data_location = TensorProto.EXTERNAL
    entry = link.external_data.add()
    entry.key, entry.value = "location", "link.bin"
    save(out, "external_hardlink", model([helper.make_node("Add", ["x", "w"], ["y"])],
                                         [f32("x", [2])], [f32("y", [2])], [link]))
    # Many graph outputs: import memory must grow linearly.
    n = int(os.environ.get("KILN_MANY_OUTPUTS", "40000"))
    save(out, "many_outputs", model(
        [helper.make_node("Relu", ["x"], ["y%d" % i]) for i in range(n)],
        [f32("x", [1])], [f32("y%d" % i, [1]) for i in range(n)]))
    # A long chain of layers: compile time must grow linearly.
    n = int(os.environ.get("KILN_LONG_CHAIN", "20000"))
    nodes = [helper.make_node("Relu", ["v%d" % i], ["v%d" % (i + 1)]) for i in range(n)]
    save(out, "long_chain", model(nodes, [f32("v0", [8])], [f32("v%d" % n, [8])]))
    # Ranks above kiln's limit of 8 (TensorRT's): a rank-9 input, and a
    # Reshape of one element to rank 1000 (a 1000-deep loop nest); rank 8 runs.
    save(out, "rank_9_input", model([helper.make_node("Relu", ["x"], ["y"])],
                                    [f32("x", [1] * 9)], [f32("y", [1] * 9)]))
    to = numpy_helper.from_array(np.ones(1000, dtype=np.int64), "to")
    save(out, "rank_1000_reshape", model(
        [helper.make_node("Reshape", ["x", "to"], ["y"], name="deep")],
        [f32("x", [1])], [f32("y", None)], [to]))
    save(out, "rank_8", model([helper.make_node("Relu", ["x"], ["y"])],
                              [f32("x", [2, 1, 2, 1, 2, 1, 2, 3])],
                              [f32("y", [2, 1, 2, 1, 2, 1, 2, 3])]))
    # A max pool of window 30000 with padding 29999 on a 4x4 input: a 30003 x
    # 30003 output (3.6 GB, within the budget) of 9e8 reads each, about 8e17.
    save(out, "pool_work", model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="wide_pool",
                          kernel_shape=[30000, 30000], pads=[29999] * 4)],
        [f32("x", [1, 1, 4, 4])], [f32("y", None)]))
    # The same pool with auto_pad SAME: a 4x4 output of 9e8 reads each, which
    # kiln-compile warns about (1.4e10 operations on 32 elements).
    save(out, "pool_same_work", model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="same_pool",
                          kernel_shape=[30000, 30000], auto_pad="SAME_UPPER")],
        [f32("x", [1, 1, 4, 4])], [f32("y", None)]))
    # Attributes that size a loop, checked against the input (issue 42, item
    # 3): an average pool whose padded copy would have 2^80 elements, a
    # DepthToSpace blocksize whose square wraps to 0 (it divided by it), a
    # SpaceToDepth blocksize larger than the image, a ConvTranspose
    # output_shape no pads can reach.
    save(out, "avg_pool_same_2_40", model(
        [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2**40, 2**40],
                          auto_pad="SAME_LOWER")],
        [f32("x", [1, 1, 4, 4])], [f32("y", None)]))
    for op, name in (("DepthToSpace", "depth_to_space_2_32"),
                     ("SpaceToDepth", "space_to_depth_2_32")):
        save(out, name, model([helper.make_node(op, ["x"], ["y"], blocksize=2**32)],
                              [f32("x", [1, 16, 4, 4])], [f32("y", None)]))
    w = numpy_helper.from_array(np.ones([1, 1, 3, 3], dtype=np.float32), "w")
    save(out, "conv_transpose_output_shape", model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], output_shape=[2**40, 4])],
        [f32("x", [1, 1, 4, 4])], [f32("y", None)], [w]))
    # Generated tensors (issue 42): each used to be built on the host, value by
    # value, before the budget was checked. Now the budget is checked first,
    # and one that fits is computed at run time (kiln.iota), never stored.
    i64 = TensorProto.INT64
    def scalar(name, v):
        return numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    onoff = numpy_helper.from_array(np.array([0, 1], dtype=np.float32), "onoff")
    for name, n, depth in (("onehot_2_32", 4, 2**32), ("onehot_2_32_one", 1, 2**32),
                           ("onehot_2_28", 2, 2**28)):
        save(out, name, model(
            [helper.make_node("OneHot", ["i", "depth", "onoff"], ["y"])],
            [helper.make_tensor_value_info("i", i64, [n])], [f32("y", None)],
            [scalar("depth", [depth]), onoff]))
    save(out, "eyelike_65536", model([helper.make_node("EyeLike", ["x"], ["y"])],
                                     [f32("x", [65536, 65536])], [f32("y", None)]))
    save(out, "eyelike_65536_f64", model(
        [helper.make_node("EyeLike", ["x"], ["y"], dtype=TensorProto.DOUBLE)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [65536, 65536])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)]))
    save(out, "hann_2_30", model([helper.make_node("HannWindow", ["n"], ["y"])],
                                 [], [f32("y", None)], [scalar("n", 2**30)]))
    for name, n in (("dequantize_block_2_34", 2**34), ("dequantize_block_2_28", 2**28)):
        scale = numpy_helper.from_array(np.full([n >> 20], 0.5, dtype=np.float32), "s")
        save(out, name, model(
            [helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=0,
                              block_size=2**20)],
            [helper.make_tensor_value_info("x", TensorProto.INT8, [n])],
            [f32("y", None)], [scale], opset=21))
    save(out, "einsum_diagonal", model(
        [helper.make_node("Einsum", ["x"], ["y"], equation="ii->i")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [65536, 65536])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)]))
    save(out, "trilu_65536", model(
        [helper.make_node("Trilu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [65536, 65536])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)]))
    for name, limit, dtype in (("range_2_40", 2**40, np.float32),
                               ("range_2_28", 2**28, np.int64)):
        ends = [numpy_helper.from_array(np.array(v, dtype=dtype), n)
                for n, v in (("start", 0), ("limit", limit), ("delta", 1))]
        save(out, name, model(
            [helper.make_node("Range", ["start", "limit", "delta"], ["y"])], [],
            [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(
                np.dtype(dtype)), None)], ends))
    # Text format nested deeper than the binary parser's recursion limit: an If
    # whose branches hold an If ... 5,000 levels down.
    depth = int(os.environ.get("KILN_TEXT_DEPTH", "5000"))
    text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\ng (bool c) => (float y) {\n"
    body = "y = Constant <value = float {1.0}> ()"
    for _ in range(depth):
        body = ("y = If (c) <then_branch = g () => (float y) { %s }, "
                "else_branch = g () => (float y) { %s }>" % (body, "y = Constant <value = float {0.0}> ()"))
    text += "  " + body + "\n}\n"
    with open(os.path.join(out, "deep_text.onnxtxt"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv[1])
