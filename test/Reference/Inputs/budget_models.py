"""Writes ONNX models that test the process-wide memory budget (issue 42,
item 2): models whose every tensor fits --max-memory but whose live buffers
together do not, and models whose lowering would allocate far more than the
budget.

    python3 budget_models.py OUT_DIR [MIB]

MIB (default 64) is the size of one tensor of the chain, the fork, the
broadcast and the external weight, in MiB.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8 if opset < 23 else 10
    return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(out, name, m):
    onnx.save(m, os.path.join(out, name + ".onnx"))


def main(out, mib):
    os.makedirs(out, exist_ok=True)
    n = mib * (1 << 20) // 4
    # A chain of eight layers of MIB MiB each (Tanh and Sigmoid in turn, which
    # nothing folds): the reference fuses them into one loop.
    nodes = [helper.make_node("Tanh" if i % 2 == 0 else "Sigmoid",
                              ["v%d" % i], ["v%d" % (i + 1)], name="layer%d" % (i + 1))
             for i in range(8)]
    save(out, "chain", model(nodes, [f32("v0", [n])], [f32("v8", [n])]))
    # Two layers of MIB MiB that two layers each read (so that neither fuses
    # into a reader), and three outputs: all five live at once.
    nodes = [helper.make_node("Tanh", ["v0"], ["v1"], name="layer1"),
             helper.make_node("Sigmoid", ["v1"], ["v2"], name="layer2"),
             helper.make_node("Tanh", ["v1"], ["a"], name="out_a"),
             helper.make_node("Sigmoid", ["v2"], ["b"], name="out_b"),
             helper.make_node("Tanh", ["v2"], ["c"], name="out_c")]
    save(out, "fork", model(nodes, [f32("v0", [n])], [f32(y, [n]) for y in "abc"]))
    # Four outputs of MIB MiB each, broadcast from two small inputs.
    side = int(np.sqrt(n))
    nodes = [helper.make_node(op, ["a", "b"], ["y%d" % i], name="out%d" % i)
             for i, op in enumerate(["Add", "Mul", "Sub", "Max"])]
    save(out, "broadcast", model(nodes, [f32("a", [side, 1]), f32("b", [1, side])],
                                 [f32("y%d" % i, [side, side]) for i in range(4)]))
    # A weight of MIB MiB in an external file.
    w = numpy_helper.from_array(np.full(n, 0.5, dtype=np.float32), "w")
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add_weight")],
              [f32("x", [n])], [f32("y", [n])], [w])
    onnx.save(m, os.path.join(out, "external.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="external.bin",
              size_threshold=0)
    # An average pool of window 60000 with padding 59999 on a 4x4 input: its
    # output is 14 GB and the padded input that lowering makes 58 GB.
    save(out, "pool_pad", model(
        [helper.make_node("AveragePool", ["x"], ["y"], name="wide_pool",
                          kernel_shape=[60000, 60000], pads=[59999] * 4,
                          count_include_pad=1)],
        [f32("x", [1, 1, 4, 4])], [f32("y", None)]))
    # Attention whose scores would take 64 GiB (131072 x 131072 f32) from
    # 4 MiB inputs.
    s = 131072
    save(out, "attention_scores", model(
        [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attn")],
        [f32("q", [1, 1, s, 8]), f32("k", [1, 1, s, 8]), f32("v", [1, 1, s, 8])],
        [f32("y", [1, 1, s, 8])], opset=23))
    # An LRN of window 2^31 - 1 on 4 channels.
    save(out, "lrn_window", model(
        [helper.make_node("LRN", ["x"], ["y"], name="lrn", size=2**31 - 1)],
        [f32("x", [1, 4, 5, 5])], [f32("y", [1, 4, 5, 5])]))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 64)
