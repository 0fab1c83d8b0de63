#!/usr/bin/env python3
"""Writes small ONNX backend-test cases that stress the host-side address
bookkeeping of GPU plans: which root (I/O tensor, weight, arena block) each
buffer lives in, views at a static offset, results computed in place in
output buffers, and copies / fills that become runtime copy and memset steps.

  make_gpu_cases.py OUTDIR

writes OUTDIR/<case>/model.onnx and OUTDIR/<case>/test_data_set_0/
{input,output}_K.pb (opset 13, IR version 8). Inputs are random (fixed
numpy seed, float32 in [-1, 1], integers where needed); every expected
output is computed here with numpy from the op's ONNX definition, never by
kiln or another runtime.

Groups of cases (the prefix of each folder name):

  out_*       graph outputs that alias something that is not a fresh result:
              an output that is an Identity of an input, an output that is an
              initializer, an output from a Constant node, the same value (an
              input or an intermediate) returned as two outputs, an output
              that a later node also reads to make another output.
  view_*      Reshape / Flatten / Squeeze / Unsqueeze chains (views sharing
              their root's memory) of inputs and of intermediates, feeding
              elementwise ops and outputs; a Reshape of an input straight to
              an output (a copy between two I/O roots).
  slice_*     Slice with start > 0 on each axis (static offsets into the
              root), steps 2 and negative steps, negative starts, ends past
              the bounds; slices of an initializer and of an intermediate;
              slices that are outputs themselves (contiguous row slices are
              plain copies at an offset).
  concat_* / split_*
              Concat of slices of one tensor (rotations), Concat of a graph
              input with an intermediate that two Concats read, Concat of a
              value that is also an output, along the first and the last axis
              (a Concat into an output may be built in place in the output);
              Split into several outputs, Split then Concat back.
  layout_*    Transpose then Reshape; Gather on axis 0 and 1 with initializer
              indices (negative ones too); Expand of a small tensor into an
              output.
  ew_*        elementwise chains where bufferization may reuse a buffer in
              place (Relu(Add(x, y)) * x), Greater / Where with bool
              intermediates and a bool output, Cast between f32, i32, i64 and
              bool.
  red_* / nn_*
              ReduceSum / ReduceMax with keepdims 0 and 1, ArgMax, MatMul with
              batch broadcast, Gemm with transB, alpha and beta, Softmax on a
              non-last axis, Conv with padding and stride 2 then MaxPool,
              AveragePool with count_include_pad=0.
  edge_*      zero-size tensors (a Slice to an empty range, an input with a
              zero dimension) next to a normal output; a 1-element 1-D tensor
              and rank-0 (scalar) outputs.
  large_*     a 3x64x64 elementwise chain and a 1x3x32x32 convolution, big
              enough to need several thread blocks.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8

rng = np.random.default_rng(20240611)
CASES = []


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def randint(lo, hi, shape, dtype):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def i64(values):
    return np.array(values, dtype=np.int64)


def case(name, nodes, inputs, outputs, inits=None):
    """inputs / outputs: lists of (name, numpy array); inits: {name: array}."""
    CASES.append((name, nodes, inputs, outputs, dict(inits or {})))


def vinfo(name, array):
    elem = helper.np_dtype_to_tensor_dtype(array.dtype)
    return helper.make_tensor_value_info(name, elem, list(array.shape))


def write_case(root, name, nodes, inputs, outputs, inits):
    graph = helper.make_graph(
        nodes, name,
        [vinfo(n, a) for n, a in inputs],
        [vinfo(n, a) for n, a in outputs],
        initializer=[numpy_helper.from_array(a, n) for n, a in inits.items()])
    model = helper.make_model(graph, producer_name="make_gpu_cases",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    d = os.path.join(root, name)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for prefix, tensors in (("input", inputs), ("output", outputs)):
        for k, (n, a) in enumerate(tensors):
            t = numpy_helper.from_array(np.asarray(a), n)
            with open(os.path.join(data, "%s_%d.pb" % (prefix, k)), "wb") as f:
                f.write(t.SerializeToString())


def N(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, **attrs)


def f32(a):
    return np.asarray(a).astype(np.float32)


def np_slice(x, starts, ends, axes, steps=None):
    """ONNX Slice; its clamping rules are Python's."""
    index = [slice(None)] * x.ndim
    steps = steps or [1] * len(starts)
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[a] = slice(s, e, st)
    return x[tuple(index)]


def conv2d(x, w, b, pads, strides):
    """NCHW convolution, group 1, dilation 1; pads = (top, left, bottom, right)."""
    x = np.pad(x.astype(np.float64),
               ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh = (h - kh) // strides[0] + 1
    ow = (wd - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * strides[0]:i * strides[0] + kh,
                    j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.einsum("nchw,mchw->nm", win, w.astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return f32(y)


def pool2d(x, k, pads, strides, mode, count_include_pad=0):
    """Max or average pool; pads = (top, left, bottom, right), no ceil mode."""
    n, c, h, w = x.shape
    oh = (h + pads[0] + pads[2] - k[0]) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - k[1]) // strides[1] + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * strides[0] - pads[0], j * strides[1] - pads[1]
            r1, c1 = r0 + k[0], c0 + k[1]
            win = x[:, :, max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)].astype(np.float64)
            if mode == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                count = k[0] * k[1] if count_include_pad else win.shape[2] * win.shape[3]
                y[:, :, i, j] = win.sum(axis=(2, 3)) / count
    return f32(y)


def softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return f32(e / e.sum(axis=axis, keepdims=True))


# ---------------------------------------------------------------- out_*

x = rand(3, 4)
case("out_identity_of_input",
     [N("Identity", ["x"], ["y"])],
     [("x", x)], [("y", x)])

x = rand(2, 5)
case("out_identity_and_compute",
     [N("Identity", ["x"], ["y"]), N("Neg", ["x"], ["n"]), N("Add", ["n", "y"], ["z"])],
     [("x", x)], [("y", x), ("n", -x), ("z", f32(-x + x))])

x = rand(2, 3)
w = rand(2, 3)
case("out_initializer_direct",
     [N("Mul", ["x", "w"], ["y"])],
     [("x", x)], [("w", w), ("y", x * w)], inits={"w": w})

x = rand(4)
c = np.array([[1.5, -2.0], [0.25, 3.0]], dtype=np.float32)
case("out_constant_node",
     [N("Constant", [], ["c"], value=numpy_helper.from_array(c, "c")),
      N("Mul", ["x", "two"], ["y"])],
     [("x", x)], [("y", f32(x * 2)), ("c", c)],
     inits={"two": np.array([2.0], dtype=np.float32)})

x = rand(3, 4)
y = rand(3, 4)
t = f32(x + y)
case("out_same_value_twice",
     [N("Add", ["x", "y"], ["t"]), N("Identity", ["t"], ["o1"]),
      N("Identity", ["t"], ["o2"]), N("Relu", ["t"], ["o3"])],
     [("x", x), ("y", y)], [("o1", t), ("o2", t), ("o3", np.maximum(t, 0))])

x = rand(2, 6)
case("out_same_input_twice",
     [N("Identity", ["x"], ["o1"]), N("Identity", ["x"], ["o2"]),
      N("Reshape", ["x", "shape"], ["o3"])],
     [("x", x)], [("o1", x), ("o2", x), ("o3", x.reshape(3, 4))],
     inits={"shape": i64([3, 4])})

x = rand(4, 5)
y = rand(4, 5)
a = np.maximum(x, 0)
b = f32(a * y)
case("out_also_consumed",
     [N("Relu", ["x"], ["a"]), N("Mul", ["a", "y"], ["b"]),
      N("Sigmoid", ["b"], ["c"]), N("Add", ["c", "a"], ["d"])],
     [("x", x), ("y", y)],
     [("a", a), ("b", b), ("d", f32(1 / (1 + np.exp(-b.astype(np.float64))) + a))])

# ---------------------------------------------------------------- view_*

x = rand(2, 3, 4)
case("view_reshape_input_to_output",
     [N("Reshape", ["x", "s1"], ["y"]), N("Reshape", ["x", "s2"], ["z"]),
      N("Flatten", ["x"], ["f"], axis=2)],
     [("x", x)], [("y", x.reshape(4, 6)), ("z", x.reshape(-1)), ("f", x.reshape(6, 4))],
     inits={"s1": i64([4, -1]), "s2": i64([-1])})

x = rand(2, 3, 4)
y = rand(24)
f = x.reshape(2, 12)
s = f32(f + y.reshape(2, 12))
case("view_chain_elementwise",
     [N("Flatten", ["x"], ["f"], axis=1),
      N("Unsqueeze", ["f", "ax0"], ["u"]),
      N("Squeeze", ["u", "ax0"], ["q"]),
      N("Reshape", ["y", "s212"], ["yr"]),
      N("Add", ["q", "yr"], ["s"]),
      N("Reshape", ["s", "s38"], ["o1"]),
      N("Unsqueeze", ["s", "ax13"], ["o2"])],
     [("x", x), ("y", y)],
     [("o1", s.reshape(3, 8)), ("o2", s.reshape(2, 1, 12, 1))],
     inits={"ax0": i64([0]), "ax13": i64([1, 3]), "s212": i64([2, 12]),
            "s38": i64([3, 8])})

x = rand(3, 4)
t = f32(np.exp(x.astype(np.float64)))
case("view_of_intermediate_outputs",
     [N("Exp", ["x"], ["t"]), N("Reshape", ["t", "s12"], ["o1"]),
      N("Unsqueeze", ["t", "ax1"], ["o2"]), N("Mul", ["t", "two"], ["o3"])],
     [("x", x)],
     [("o1", t.reshape(12)), ("o2", t.reshape(3, 1, 4)), ("o3", f32(t * 2))],
     inits={"s12": i64([12]), "ax1": i64([1]), "two": np.array(2, dtype=np.float32)})

x = rand(1, 4, 1, 3)
y = rand(4, 3)
sq = x.reshape(4, 3)
case("view_squeeze_mixed_with_input",
     [N("Squeeze", ["x", "ax02"], ["sq"]), N("Sub", ["sq", "y"], ["d"]),
      N("Unsqueeze", ["d", "ax0"], ["o1"]), N("Squeeze", ["x"], ["o2"])],
     [("x", x), ("y", y)],
     [("o1", f32(sq - y).reshape(1, 4, 3)), ("o2", sq)],
     inits={"ax02": i64([0, 2]), "ax0": i64([0])})

# ---------------------------------------------------------------- slice_*

x = rand(6, 5)
a = np_slice(x, [2, 1], [5, 4], [0, 1])
b = np_slice(x, [0, 2], [3, 5], [0, 1])
case("slice_offsets_both_axes",
     [N("Slice", ["x", "sa", "ea", "axes"], ["a"]),
      N("Slice", ["x", "sb", "eb", "axes"], ["b"]),
      N("Mul", ["a", "b"], ["m"]), N("Add", ["m", "a"], ["y"])],
     [("x", x)], [("y", f32(a * b + a))],
     inits={"sa": i64([2, 1]), "ea": i64([5, 4]), "sb": i64([0, 2]),
            "eb": i64([3, 5]), "axes": i64([0, 1])})

x = rand(8, 6)
s = np_slice(x, [1, 0], [8, 6], [0, 1], [2, 2])
case("slice_step2",
     [N("Slice", ["x", "st", "en", "axes", "steps"], ["s"]),
      N("Relu", ["s"], ["y"])],
     [("x", x)], [("y", np.maximum(s, 0))],
     inits={"st": i64([1, 0]), "en": i64([8, 6]), "axes": i64([0, 1]),
            "steps": i64([2, 2])})

x = rand(5, 7)
INT64_MIN = -(2 ** 63)
r = np_slice(x, [-1, 6], [INT64_MIN, 0], [0, 1], [-1, -2])
case("slice_negative_steps",
     [N("Slice", ["x", "st", "en", "axes", "steps"], ["r"]),
      N("Neg", ["r"], ["n"]), N("Mul", ["n", "r"], ["y"])],
     [("x", x)], [("y", f32(-r * r)), ("r", r)],
     inits={"st": i64([-1, 6]), "en": i64([INT64_MIN, 0]), "axes": i64([0, 1]),
            "steps": i64([-1, -2])})

x = rand(2, 6, 5)
y = rand(2, 3, 2)
s = np_slice(x, [2, 1], [5, 100], [1, -1], [1, 2])
case("slice_3d_middle_axis",
     [N("Slice", ["x", "st", "en", "axes", "steps"], ["s"]),
      N("Mul", ["s", "y"], ["z"])],
     [("x", x), ("y", y)], [("z", f32(s * y))],
     inits={"st": i64([2, 1]), "en": i64([5, 100]), "axes": i64([1, -1]),
            "steps": i64([1, 2])})

x = rand(3, 4)
w = rand(6, 8)
ws = np_slice(w, [1, 2], [4, 6], [0, 1])
wo = np_slice(w, [4, 0], [6, 8], [0, 1], [1, 3])
case("slice_of_initializer",
     [N("Slice", ["w", "s1", "e1", "axes"], ["ws"]), N("Add", ["x", "ws"], ["y"]),
      N("Slice", ["w", "s2", "e2", "axes", "steps2"], ["wo"])],
     [("x", x)], [("y", f32(x + ws)), ("wo", wo)],
     inits={"w": w, "s1": i64([1, 2]), "e1": i64([4, 6]), "axes": i64([0, 1]),
            "s2": i64([4, 0]), "e2": i64([6, 8]), "steps2": i64([1, 3])})

x = rand(4, 6)
case("slice_results_are_outputs",
     [N("Slice", ["x", "s1", "e1", "ax0"], ["rows"]),
      N("Slice", ["x", "s2", "e2", "ax1"], ["cols"]),
      N("Slice", ["x", "s3", "e3", "ax0"], ["last"])],
     [("x", x)],
     [("rows", x[1:3]), ("cols", x[:, 2:5]), ("last", x[-1:])],
     inits={"s1": i64([1]), "e1": i64([3]), "ax0": i64([0]), "s2": i64([2]),
            "e2": i64([5]), "ax1": i64([1]), "s3": i64([-1]), "e3": i64([4])})

x = rand(4, 8)
y = rand(4, 8)
t = f32(x * y)
case("slice_of_intermediate",
     [N("Mul", ["x", "y"], ["t"]),
      N("Slice", ["t", "s1", "e1", "ax1"], ["right"]),
      N("Slice", ["t", "s2", "e2", "ax0"], ["mid"]),
      N("Add", ["mid", "one"], ["o2"])],
     [("x", x), ("y", y)],
     [("right", t[:, 4:8]), ("o2", f32(t[1:3] + 1))],
     inits={"s1": i64([4]), "e1": i64([8]), "ax1": i64([1]), "s2": i64([1]),
            "e2": i64([3]), "ax0": i64([0]), "one": np.array([1.0], dtype=np.float32)})

# ---------------------------------------------------------------- concat_* / split_*

x = rand(4, 6)
case("concat_slices_same_tensor",
     [N("Slice", ["x", "c3", "c6", "ax1"], ["r"]),
      N("Slice", ["x", "c0", "c3", "ax1"], ["l"]),
      N("Concat", ["r", "l"], ["rot_cols"], axis=1),
      N("Slice", ["x", "c2", "c4", "ax0"], ["b"]),
      N("Slice", ["x", "c0", "c2", "ax0"], ["t"]),
      N("Concat", ["b", "t", "b"], ["rot_rows"], axis=0)],
     [("x", x)],
     [("rot_cols", np.concatenate([x[:, 3:6], x[:, 0:3]], axis=1)),
      ("rot_rows", np.concatenate([x[2:4], x[0:2], x[2:4]], axis=0))],
     inits={"c0": i64([0]), "c2": i64([2]), "c3": i64([3]), "c4": i64([4]),
            "c6": i64([6]), "ax0": i64([0]), "ax1": i64([1])})

x = rand(2, 3)
y = rand(2, 3)
ry = np.maximum(y, 0)
case("concat_input_and_intermediate",
     [N("Relu", ["y"], ["ry"]), N("Concat", ["x", "ry"], ["c0"], axis=0),
      N("Concat", ["ry", "x"], ["c1"], axis=-1)],
     [("x", x), ("y", y)],
     [("c0", np.concatenate([x, ry], 0)), ("c1", np.concatenate([ry, x], -1))])

x = rand(3, 2)
y = rand(3, 2)
ry = np.maximum(y, 0)
case("concat_of_an_output_value",
     [N("Relu", ["y"], ["ry"]), N("Concat", ["x", "ry"], ["cat"], axis=1),
      N("Add", ["cat", "cat"], ["dbl"])],
     [("x", x), ("y", y)],
     [("ry", ry), ("cat", np.concatenate([x, ry], 1)),
      ("dbl", f32(2 * np.concatenate([x, ry], 1)))])

a, b, c = rand(1, 3, 4), rand(2, 3, 4), rand(1, 3, 4)
case("concat_first_axis_to_output",
     [N("Concat", ["a", "b", "c"], ["y"], axis=0)],
     [("a", a), ("b", b), ("c", c)], [("y", np.concatenate([a, b, c], 0))])

a, b, c = rand(2, 3, 1), rand(2, 3, 2), rand(2, 3, 4)
cat = np.concatenate([a, np.tanh(b.astype(np.float64)).astype(np.float32), c], -1)
case("concat_last_axis_then_mul",
     [N("Tanh", ["b"], ["tb"]), N("Concat", ["a", "tb", "c"], ["cat"], axis=-1),
      N("Mul", ["cat", "cat"], ["y"])],
     [("a", a), ("b", b), ("c", c)], [("y", f32(cat * cat))])

x = rand(6, 4)
p1, p2 = x[:, :2], x[:, 2:]
case("split_into_outputs",
     [N("Split", ["x", "sizes"], ["s0", "s1", "s2"], axis=0),
      N("Split", ["x"], ["h0", "h1"], axis=1),
      N("Add", ["h0", "h1"], ["hsum"])],
     [("x", x)],
     [("s0", x[0:1]), ("s1", x[1:3]), ("s2", x[3:6]), ("h1", p2),
      ("hsum", f32(p1 + p2))],
     inits={"sizes": i64([1, 2, 3])})

x = rand(3, 8)
case("split_then_concat_swapped",
     [N("Split", ["x"], ["a", "b"], axis=1),
      N("Concat", ["b", "a"], ["sw"], axis=1),
      N("Sub", ["a", "b"], ["d"])],
     [("x", x)],
     [("sw", np.concatenate([x[:, 4:], x[:, :4]], 1)), ("d", f32(x[:, :4] - x[:, 4:]))])

# ---------------------------------------------------------------- layout_*

x = rand(2, 3, 4)
tr = x.transpose(2, 0, 1)
case("layout_transpose_reshape",
     [N("Transpose", ["x"], ["t"], perm=[2, 0, 1]),
      N("Reshape", ["t", "s46"], ["o1"]),
      N("Transpose", ["t"], ["o2"], perm=[1, 2, 0]),
      N("Transpose", ["o1"], ["o3"])],
     [("x", x)],
     [("o1", tr.reshape(4, 6)), ("o2", x), ("o3", tr.reshape(4, 6).T)],
     inits={"s46": i64([4, 6])})

x = rand(5, 4)
idx = i64([3, 0, 3, -1])
case("layout_gather_axis0",
     [N("Gather", ["x", "idx"], ["g"], axis=0), N("Mul", ["g", "g"], ["y"])],
     [("x", x)], [("g", x[idx]), ("y", f32(x[idx] * x[idx]))],
     inits={"idx": idx})

x = rand(3, 5)
idx = i64([[4, 0], [2, -2]])
g = np.take(x, idx, axis=1)
case("layout_gather_axis1",
     [N("Gather", ["x", "idx"], ["g"], axis=1), N("Add", ["g", "one"], ["y"])],
     [("x", x)], [("y", f32(g + 1))],
     inits={"idx": idx, "one": np.array(1.0, dtype=np.float32)})

x = rand(3, 1)
s = rand(1)
case("layout_expand_to_output",
     [N("Expand", ["x", "shape"], ["y"]), N("Expand", ["s", "shape4"], ["z"])],
     [("x", x), ("s", s)],
     [("y", np.broadcast_to(x, (2, 3, 4)).copy()), ("z", np.broadcast_to(s, (4,)).copy())],
     inits={"shape": i64([2, 3, 4]), "shape4": i64([4])})

# ---------------------------------------------------------------- ew_*

x = rand(4, 6)
y = rand(4, 6)
t = np.maximum(f32(x + y), 0)
m = f32(t * x)
case("ew_inplace_chain",
     [N("Add", ["x", "y"], ["s"]), N("Relu", ["s"], ["t"]), N("Mul", ["t", "x"], ["m"]),
      N("Sub", ["m", "y"], ["o2"]), N("Mul", ["o2", "o2"], ["o3"])],
     [("x", x), ("y", y)],
     [("m", m), ("o2", f32(m - y)), ("o3", f32(f32(m - y) ** 2))])

x = rand(3, 5)
y = rand(3, 5)
c = x > y
case("ew_where_greater_bool",
     [N("Greater", ["x", "y"], ["c"]), N("Where", ["c", "x", "zero"], ["w"]),
      N("Not", ["c"], ["nc"]), N("Where", ["nc", "x", "y"], ["mn"])],
     [("x", x), ("y", y)],
     [("w", np.where(c, x, np.float32(0))), ("c", c), ("mn", np.minimum(x, y))],
     inits={"zero": np.array(0.0, dtype=np.float32)})

xi = randint(-50, 50, (2, 5), np.int32)
x = rand(2, 5)
ten = np.array(10.0, dtype=np.float32)
x10 = f32(x * ten)
case("ew_cast_chain",
     [N("Cast", ["xi"], ["l"], to=TensorProto.INT64),
      N("Mul", ["l", "k"], ["lk"]),
      N("Cast", ["xi"], ["fl"], to=TensorProto.FLOAT),
      N("Cast", ["xi"], ["b"], to=TensorProto.BOOL),
      N("Cast", ["b"], ["bf"], to=TensorProto.FLOAT),
      N("Mul", ["x", "ten"], ["x10"]),
      N("Cast", ["x10"], ["tr"], to=TensorProto.INT32),
      N("Cast", ["l"], ["back"], to=TensorProto.INT32)],
     [("xi", xi), ("x", x)],
     [("lk", xi.astype(np.int64) * 3000000000), ("fl", xi.astype(np.float32)),
      ("b", xi != 0), ("bf", (xi != 0).astype(np.float32)),
      ("tr", np.trunc(x10).astype(np.int32)),
      ("back", xi)],
     inits={"k": i64([3000000000]), "ten": ten})

# ---------------------------------------------------------------- red_* / nn_*

x = rand(3, 4, 5)
case("red_reduce_keepdims",
     [N("ReduceSum", ["x", "ax1"], ["s1"], keepdims=1),
      N("ReduceMax", ["x"], ["m0"], axes=[0, 2], keepdims=0),
      N("ReduceSum", ["x", "ax02"], ["s0"], keepdims=0),
      N("ReduceMax", ["x"], ["m1"], axes=[-1], keepdims=1)],
     [("x", x)],
     [("s1", f32(x.astype(np.float64).sum(1, keepdims=True))), ("m0", x.max(axis=(0, 2))),
      ("s0", f32(x.astype(np.float64).sum(axis=(0, 2)))), ("m1", x.max(-1, keepdims=True))],
     inits={"ax1": i64([1]), "ax02": i64([0, 2])})

x = rand(3, 4, 5)
case("red_argmax",
     [N("ArgMax", ["x"], ["a2"], axis=2, keepdims=0),
      N("ArgMax", ["x"], ["a1"], axis=1, keepdims=1),
      N("ArgMax", ["x"], ["an"], axis=-3, keepdims=0)],
     [("x", x)],
     [("a2", x.argmax(2).astype(np.int64)),
      ("a1", np.expand_dims(x.argmax(1), 1).astype(np.int64)),
      ("an", x.argmax(0).astype(np.int64))])

a = rand(2, 3, 4, 5)
b = rand(5, 6)
a2 = rand(2, 1, 3, 4)
b2 = rand(3, 4, 2)
case("nn_matmul_batch_broadcast",
     [N("MatMul", ["a", "b"], ["y"]), N("MatMul", ["a2", "b2"], ["y2"])],
     [("a", a), ("b", b), ("a2", a2), ("b2", b2)],
     [("y", f32(a.astype(np.float64) @ b)), ("y2", f32(a2.astype(np.float64) @ b2))])

A = rand(3, 5)
B = rand(4, 5)
C = rand(4)
case("nn_gemm_transB",
     [N("Gemm", ["A", "B", "C"], ["y"], transB=1, alpha=0.5, beta=2.0),
      N("Relu", ["y"], ["r"])],
     [("A", A)],
     [("y", f32(0.5 * (A.astype(np.float64) @ B.T) + 2.0 * C)),
      ("r", np.maximum(f32(0.5 * (A.astype(np.float64) @ B.T) + 2.0 * C), 0))],
     inits={"B": B, "C": C})

x = rand(2, 4, 3) * 3
case("nn_softmax_non_last_axis",
     [N("Softmax", ["x"], ["s1"], axis=1), N("Softmax", ["x"], ["s0"], axis=0),
      N("Softmax", ["x"], ["sl"], axis=-1)],
     [("x", f32(x))],
     [("s1", softmax(x, 1)), ("s0", softmax(x, 0)), ("sl", softmax(x, 2))])

x = rand(1, 2, 7, 7)
w = rand(3, 2, 3, 3)
bias = rand(3)
cv = conv2d(x, w, bias, (1, 1, 1, 1), (2, 2))
case("nn_conv_stride2_maxpool",
     [N("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
        strides=[2, 2]),
      N("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2])],
     [("x", x)], [("c", cv), ("p", pool2d(cv, (2, 2), (0, 0, 0, 0), (2, 2), "max"))],
     inits={"w": w, "b": bias})

x = rand(1, 2, 5, 5)
case("nn_avgpool_exclude_pad",
     [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
        strides=[2, 2], count_include_pad=0),
      N("AveragePool", ["x"], ["z"], kernel_shape=[2, 2], pads=[0, 0, 1, 1],
        strides=[1, 1], count_include_pad=0)],
     [("x", x)],
     [("y", pool2d(x, (3, 3), (1, 1, 1, 1), (2, 2), "avg")),
      ("z", pool2d(x, (2, 2), (0, 0, 1, 1), (1, 1), "avg"))])

# ---------------------------------------------------------------- edge_*

x = rand(3, 4)
case("edge_slice_to_empty",
     [N("Slice", ["x", "s2", "s2", "ax1"], ["e_cols"]),
      N("Slice", ["x", "s3", "s1", "ax0"], ["e_rows"]),
      N("Mul", ["x", "two"], ["y"])],
     [("x", x)],
     [("e_cols", x[:, 2:2]), ("y", f32(x * 2)), ("e_rows", x[3:1])],
     inits={"s1": i64([1]), "s2": i64([2]), "s3": i64([3]), "ax0": i64([0]),
            "ax1": i64([1]), "two": np.array(2.0, dtype=np.float32)})

e = np.zeros((0, 5), dtype=np.float32)
x = rand(2, 3)
case("edge_zero_dim_input",
     [N("Slice", ["e", "st", "en", "ax1"], ["es"]), N("Relu", ["es"], ["er"]),
      N("Neg", ["x"], ["y"])],
     [("e", e), ("x", x)],
     [("er", np.zeros((0, 2), dtype=np.float32)), ("y", -x)],
     inits={"st": i64([1]), "en": i64([3]), "ax1": i64([1])})

x = rand(1)
z = rand(3, 4)
case("edge_one_element_and_scalar",
     [N("Add", ["x", "one"], ["y"]),
      N("ReduceSum", ["z"], ["s"], keepdims=0),
      N("ReduceSum", ["x"], ["sx"], keepdims=0),
      N("Mul", ["s", "x"], ["sm"])],
     [("x", x), ("z", z)],
     [("y", f32(x + 1)), ("s", f32(z.astype(np.float64).sum())),
      ("sx", f32(x.sum())), ("sm", f32(f32(z.astype(np.float64).sum()) * x))],
     inits={"one": np.array([1.0], dtype=np.float32)})

# ---------------------------------------------------------------- large_*

x = rand(3, 64, 64)
y = rand(3, 64, 64)
img = rand(1, 3, 32, 32)
w = rand(4, 3, 3, 3)
r = np.maximum(f32(f32(x * y) + x), 0)
case("large_elementwise_and_conv",
     [N("Mul", ["x", "y"], ["m"]), N("Add", ["m", "x"], ["s"]), N("Relu", ["s"], ["r"]),
      N("Slice", ["r", "st", "en", "ax2", "step3"], ["rs"]),
      N("Conv", ["img", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
     [("x", x), ("y", y), ("img", img)],
     [("r", r), ("rs", r[:, :, 1:64:3]), ("c", conv2d(img, w, None, (1, 1, 1, 1), (1, 1)))],
     inits={"w": w, "st": i64([1]), "en": i64([64]), "ax2": i64([2]), "step3": i64([3])})


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_gpu_cases.py OUTDIR")
    root = sys.argv[1]
    names = set()
    for name, nodes, inputs, outputs, inits in CASES:
        assert name not in names, name
        names.add(name)
        write_case(root, name, nodes, inputs, outputs, inits)


if __name__ == "__main__":
    main()
