#!/usr/bin/env python3
"""Writes the hostile corpus of issue 42: a few hundred small ONNX models, Caffe
networks and plans that a hostile user would bring, at least one per class of
bad input the issue found and their neighbours (sizes around each limit), made
at test time, not committed.

    python3 scripts/hostile-corpus.py OUT [--plans KILN_COMPILE]

Each case is OUT/NAME.onnx (or .prototxt, .kplan), and OUT/NAME.flags holds
extra flags for the tools when the case needs them. scripts/run-hostile-corpus.py
runs every case through kiln-compile and kiln-run under a memory cap and a
time limit; the fuzzers take the small ones as seeds (scripts/fuzz.sh).
Classes:
  gen_*     generated tensors (OneHot, EyeLike, windows, Range, Trilu, block
            DequantizeLinear, Einsum diagonals, ConstantOfShape, Expand)
  ref_*     what lowering allocates on the CPU reference (LRN windows, pools
            with huge windows and padding, Attention scores, broadcasts)
  budget_*  chains and broadcasts of large tensors under --max-memory
  work_*    layers of absurd work (max pool windows of 10^4 with padding)
  size_*    graph size: chains, outputs, concats, splits of thousands of nodes
  rank_*    ranks around the limit of 8
  attr_*    attributes that size loops (strides, dilations, pads, kernel sizes)
  caffe_*   Caffe networks: a Concat of 50,000 bottoms, 20,000 Slice tops
  plan_*    plans with flipped, truncated or grown bytes
"""
import argparse
import os
import random
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, I64 = TensorProto.FLOAT, TensorProto.INT64


class Corpus:
    def __init__(self, out):
        self.out = out
        self.count = 0
        os.makedirs(out, exist_ok=True)

    def onnx(self, name, nodes, inputs, outputs, inits=(), opset=18,
             flags=None):
        graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.save(model, os.path.join(self.out, name + ".onnx"))
        self._flags(name, flags)

    def text(self, name, suffix, text, flags=None):
        with open(os.path.join(self.out, name + suffix), "w") as f:
            f.write(text)
        self._flags(name, flags)

    def _flags(self, name, flags):
        self.count += 1
        if flags:
            with open(os.path.join(self.out, name + ".flags"), "w") as f:
                f.write(" ".join(flags) + "\n")


def vi(name, shape, t=F32):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def generated(c):
    onoff = const("onoff", [0, 1], np.float32)
    for k in (10, 20, 28, 31, 32, 40, 62):
        for n in (1, 4):
            c.onnx("gen_onehot_2_%d_n%d" % (k, n),
                   [helper.make_node("OneHot", ["i", "depth", "onoff"], ["y"])],
                   [vi("i", [n], I64)], [vi("y", None)],
                   [const("depth", [2 ** k]), onoff])
    c.onnx("gen_onehot_negative_depth",
           [helper.make_node("OneHot", ["i", "depth", "onoff"], ["y"])],
           [vi("i", [2], I64)], [vi("y", None)], [const("depth", [-5]), onoff])
    for n in (256, 4096, 46341, 65536, 2 ** 20):
        for t in (F32, TensorProto.DOUBLE):
            c.onnx("gen_eyelike_%d_%d" % (n, t),
                   [helper.make_node("EyeLike", ["x"], ["y"], dtype=t)],
                   [vi("x", [n, n])], [vi("y", None)])
    for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        for k in (10, 20, 30, 40, 62):
            c.onnx("gen_%s_2_%d" % (op.lower(), k),
                   [helper.make_node(op, ["size"], ["y"])], [], [vi("y", None)],
                   [const("size", 2 ** k)], opset=17)
        c.onnx("gen_%s_negative" % op.lower(),
               [helper.make_node(op, ["size"], ["y"])], [], [vi("y", None)],
               [const("size", -3)], opset=17)
    for start, limit, delta in ((0, 2 ** 10, 1), (0, 2 ** 24, 1), (0, 2 ** 30, 1),
                                (0, 2 ** 40, 1), (0, 2 ** 62, 1), (0, 10, 0),
                                (10, 0, 1), (0, -2 ** 40, -1), (0, 2 ** 63 - 1, 1)):
        c.onnx("gen_range_%d_%d_%d" % (start, limit, delta),
               [helper.make_node("Range", ["s", "l", "d"], ["y"])], [],
               [vi("y", None, I64)],
               [const("s", start), const("l", limit), const("d", delta)])
    for k in (8, 16, 20, 24, 31, 40):
        c.onnx("gen_constant_of_shape_2_%d" % k,
               [helper.make_node("ConstantOfShape", ["shape"], ["y"])], [],
               [vi("y", None)], [const("shape", [2 ** k])])
        c.onnx("gen_expand_2_%d" % k,
               [helper.make_node("Expand", ["one", "to"], ["y"])], [],
               [vi("y", None)],
               [const("one", [1.0], np.float32), const("to", [2 ** (k // 2), 2 ** (k - k // 2)])])
    for n in (64, 4096, 65536):
        c.onnx("gen_trilu_%d" % n, [helper.make_node("Trilu", ["x"], ["y"])],
               [vi("x", [n, n])], [vi("y", None)])
        c.onnx("gen_einsum_diag_%d" % n,
               [helper.make_node("Einsum", ["x"], ["y"], equation="ii->i")],
               [vi("x", [n, n])], [vi("y", None)])
    for k in (10, 20, 28, 34, 40):
        rows = 2 ** (k - 6)
        c.onnx("gen_dequantize_block_2_%d" % k,
               [helper.make_node("DequantizeLinear", ["q", "s"], ["y"], axis=1,
                                 block_size=64)],
               [vi("q", [rows, 64], TensorProto.INT8)], [vi("y", None)],
               [numpy_helper.from_array(np.ones([rows, 1], np.float32), "s")]
               if rows <= 2 ** 16 else [], opset=21)


def reference(c):
    for size in (1, 2, 5, 1000, 2 ** 20, 2 ** 31 - 1):
        c.onnx("ref_lrn_%d" % size,
               [helper.make_node("LRN", ["x"], ["y"], size=size)],
               [vi("x", [1, 4, 5, 5])], [vi("y", [1, 4, 5, 5])])
    for window, pad in ((3, 1), (100, 99), (1000, 999), (60000, 59999)):
        for op in ("AveragePool", "MaxPool"):
            c.onnx("ref_%s_%d" % (op.lower(), window),
                   [helper.make_node(op, ["x"], ["y"], name="pool",
                                     kernel_shape=[window, window], pads=[pad] * 4)],
                   [vi("x", [1, 1, 4, 4])], [vi("y", None)])
    for seq in (64, 4096, 65536, 2 ** 20):
        c.onnx("ref_attention_%d" % seq,
               [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attn")],
               [vi("q", [1, 1, seq, 8]), vi("k", [1, 1, seq, 8]), vi("v", [1, 1, seq, 8])],
               [vi("y", None)], opset=23)
    for n in (2 ** 10, 2 ** 20, 2 ** 28):
        c.onnx("ref_broadcast_%d" % n,
               [helper.make_node("Add", ["a", "b"], ["y"])],
               [vi("a", [n, 1]), vi("b", [1, 4])], [vi("y", None)])


def budgets(c):
    for mb, budget in ((64, "512M"), (256, "512M"), (256, "1G"), (64, "16M")):
        n = mb * 2 ** 18
        nodes = [helper.make_node("Relu" if i % 2 else "Neg",
                                  ["v%d" % i], ["v%d" % (i + 1)]) for i in range(8)]
        c.onnx("budget_chain_%dM_%s" % (mb, budget), nodes, [vi("v0", [n])],
               [vi("v8", [n])], flags=["--max-memory=" + budget])
    c.onnx("budget_broadcast_4x",
           [helper.make_node("Expand", ["x", "to"], ["y%d" % i]) for i in range(4)],
           [vi("x", [1, 1])], [vi("y%d" % i, None) for i in range(4)],
           [const("to", [2 ** 14, 2 ** 14])], flags=["--max-memory=1G"])


def work(c):
    for window, pad, side in ((30000, 29999, 4), (10000, 9999, 8), (3000, 2999, 64),
                              (300, 299, 4)):
        c.onnx("work_maxpool_%d_%d" % (window, side),
               [helper.make_node("MaxPool", ["x"], ["y"], name="wide_pool",
                                 kernel_shape=[window, window], pads=[pad] * 4)],
               [vi("x", [1, 1, side, side])], [vi("y", None)])
    c.onnx("work_conv_dilation",
           [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[10000, 10000],
                             pads=[20000] * 4)],
           [vi("x", [1, 1, 4, 4])], [vi("y", None)],
           [numpy_helper.from_array(np.ones([1, 1, 3, 3], np.float32), "w")])


def sizes(c):
    for n in (1000, 5000):
        c.onnx("size_chain_%d" % n,
               [helper.make_node("Relu" if i % 2 else "Sigmoid",
                                 ["v%d" % i], ["v%d" % (i + 1)]) for i in range(n)],
               [vi("v0", [1, 64])], [vi("v%d" % n, [1, 64])])
        c.onnx("size_outputs_%d" % n,
               [helper.make_node("Neg", ["x"], ["y%d" % i]) for i in range(n)],
               [vi("x", [1, 4])], [vi("y%d" % i, [1, 4]) for i in range(n)])
        c.onnx("size_concat_%d" % n,
               [helper.make_node("Concat", ["x"] * n, ["y"], axis=0)],
               [vi("x", [1, 4])], [vi("y", [n, 4])])
        c.onnx("size_split_%d" % n,
               [helper.make_node("Split", ["x"], ["y%d" % i for i in range(n)],
                                 axis=0, num_outputs=n)],
               [vi("x", [n, 4])], [vi("y%d" % i, [1, 4]) for i in range(n)])


def ranks(c):
    for r in (7, 8, 9, 16, 100, 1000):
        c.onnx("rank_input_%d" % r, [helper.make_node("Relu", ["x"], ["y"])],
               [vi("x", [1] * r)], [vi("y", [1] * r)])
        c.onnx("rank_reshape_%d" % r,
               [helper.make_node("Reshape", ["x", "to"], ["y"], name="deep")],
               [vi("x", [1])], [vi("y", None)], [const("to", [1] * r)])


def attributes(c):
    w = numpy_helper.from_array(np.ones([1, 1, 3, 3], np.float32), "w")
    for name, attrs in (("stride_0", dict(strides=[0, 0])),
                        ("stride_huge", dict(strides=[2 ** 40, 1])),
                        ("dilation_0", dict(dilations=[0, 1])),
                        ("dilation_huge", dict(dilations=[2 ** 31, 1])),
                        ("pads_negative", dict(pads=[-5, 0, 0, 0])),
                        ("pads_huge", dict(pads=[2 ** 40, 0, 0, 0])),
                        ("group_0", dict(group=0))):
        c.onnx("attr_conv_" + name, [helper.make_node("Conv", ["x", "w"], ["y"], **attrs)],
               [vi("x", [1, 1, 8, 8])], [vi("y", None)], [w])
    for name, attrs in (("kernel_0", dict(kernel_shape=[0, 2])),
                        ("kernel_negative", dict(kernel_shape=[-2, 2])),
                        ("stride_0", dict(kernel_shape=[2, 2], strides=[0, 1])),
                        ("dilation_huge", dict(kernel_shape=[2, 2], dilations=[2 ** 40, 1]))):
        c.onnx("attr_maxpool_" + name, [helper.make_node("MaxPool", ["x"], ["y"], **attrs)],
               [vi("x", [1, 1, 8, 8])], [vi("y", None)])
    for b in (0, -1, 3, 2 ** 31):
        c.onnx("attr_depthtospace_%d" % b,
               [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=b)],
               [vi("x", [1, 4, 2, 2])], [vi("y", None)])
    for reps in ([1, 2 ** 20], [2 ** 31, 2 ** 31], [-1, 1], [0, 1]):
        c.onnx("attr_tile_%s" % "_".join(str(r) for r in reps),
               [helper.make_node("Tile", ["x", "r"], ["y"])],
               [vi("x", [2, 2])], [vi("y", None)], [const("r", reps)])
    for k in (0, 3, 2 ** 40, -1):
        c.onnx("attr_topk_%d" % k, [helper.make_node("TopK", ["x", "k"], ["v", "i"])],
               [vi("x", [2, 8])], [vi("v", None), vi("i", None, I64)], [const("k", [k])])
    for pads in ([0, 2 ** 40], [0, -3], [2 ** 31, 2 ** 31]):
        c.onnx("attr_pad_%s" % "_".join(str(p) for p in pads),
               [helper.make_node("Pad", ["x", "p"], ["y"])],
               [vi("x", [4])], [vi("y", None)], [const("p", pads)])


def caffe(c):
    n = 50000
    bottoms = "".join('  bottom: "data"\n' for _ in range(n))
    c.text("caffe_concat_50000", ".prototxt",
           'name: "c"\ninput: "data"\ninput_shape { dim: 1 dim: 1 }\n'
           'layer {\n  name: "cat"\n  type: "Concat"\n' + bottoms +
           '  top: "out"\n  concat_param { axis: 0 }\n}\n')
    n = 20000
    tops = "".join('  top: "t%d"\n' % i for i in range(n))
    c.text("caffe_slice_20000", ".prototxt",
           'name: "s"\ninput: "data"\ninput_shape { dim: %d dim: 2 }\n' % n +
           'layer {\n  name: "slice"\n  type: "Slice"\n  bottom: "data"\n' + tops +
           '  slice_param { axis: 0 }\n}\n')
    c.text("caffe_inner_product_huge", ".prototxt",
           'name: "ip"\ninput: "data"\ninput_shape { dim: 1 dim: 4 }\n'
           'layer {\n  name: "fc"\n  type: "InnerProduct"\n  bottom: "data"\n'
           '  top: "out"\n  inner_product_param { num_output: 4000000000 }\n}\n')


def plans(c, kiln_compile):
    src = os.path.join(c.out, "plan_source.onnx")
    c.onnx("plan_source",
           [helper.make_node("Add", ["x", "w"], ["t"]), helper.make_node("Relu", ["t"], ["y"])],
           [vi("x", [4, 8])], [vi("y", [4, 8])],
           [numpy_helper.from_array(np.arange(32, dtype=np.float32).reshape(4, 8), "w")])
    good = os.path.join(c.out, "plan_good.kplan")
    subprocess.run([kiln_compile, src, "--no-cubin", "-o", good], check=True)
    c.count += 1
    data = open(good, "rb").read()
    rng = random.Random(42)
    for i in range(60):
        b = bytearray(data)
        kind = i % 4
        if kind == 0:    # flip bytes
            for _ in range(1 + i % 5):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif kind == 1:  # truncate
            b = b[:rng.randrange(len(b))]
        elif kind == 2:  # grow
            b += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
        else:            # overwrite a run with 0xff
            at = rng.randrange(len(b))
            b[at:at + 8] = b"\xff" * len(b[at:at + 8])
        with open(os.path.join(c.out, "plan_%02d.kplan" % i), "wb") as f:
            f.write(bytes(b))
        c.count += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--plans", metavar="KILN_COMPILE",
                        help="kiln-compile, to write the plans to tamper with")
    args = parser.parse_args()
    c = Corpus(args.out)
    for make in (generated, reference, budgets, work, sizes, ranks, attributes, caffe):
        make(c)
    if args.plans:
        plans(c, args.plans)
    print("%d cases in %s" % (c.count, args.out))


if __name__ == "__main__":
    main()
