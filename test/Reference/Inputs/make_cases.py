#!/usr/bin/env python3
"""Writes small ONNX backend-test cases for the conformance runner's tests:
model.onnx and test_data_set_0/{input,output}_K.pb, encoded from protobuf
text with protoc. Inputs are random (fixed seed); expected outputs are
computed here in Python, independently of kiln.

  add_relu     y = relu(a + b), b broadcast over rows: must PASS
  tampered     the same with one expected value off by 0.01: must FAIL
  conv_pool    conv 3x3 pad 1 + max pool 2x2: must PASS
  unsupported  a Unique node: must be SKIPPED

and, in OUT_edge, cases an earlier version got wrong (expected values from
Python's exact integers and float math):
  slice_to_int64_max    Slice ends = INT64_MAX (PyTorch's x[:, 1:])
  pow_int64             int64 Pow with results past 2^24
  logsumexp_large       ReduceLogSumExp of values whose exp overflows f32
"""
import math
import os
import random
import subprocess
import sys

out = sys.argv[1]
proto = ["protoc", "-I/usr/include/onnx", "onnx.proto"]
rng = random.Random(7)


def encode(message, text, path):
    data = subprocess.run(proto[:1] + ["--encode=onnx." + message] + proto[1:],
                          input=text.encode(), capture_output=True, check=True).stdout
    with open(path, "wb") as f:
        f.write(data)


def tensor_text(name, dims, values, dtype=1):
    field = {7: "int64_data: %d", 11: "double_data: %r"}.get(dtype, "float_data: %r")
    cast = int if dtype == 7 else float
    return ('name: "%s" data_type: %d %s %s' %
            (name, dtype, " ".join("dims: %d" % d for d in dims),
             " ".join(field % cast(v) for v in values)))


def value_info(name, dims, dtype=1):
    shape = " ".join("dim { dim_value: %d }" % d for d in dims)
    return 'name: "%s" type { tensor_type { elem_type: %d shape { %s } } }' % (name, dtype, shape)


def dtype_of(t, dtype):
    """A tensor (name, dims, values[, dtype]): its own type or the case's."""
    return t[3] if len(t) > 3 else dtype


def write_case(name, nodes, inputs, outputs, initializers="", dtype=1, root=None,
               opset=13):
    d = os.path.join(root or out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    graph = 'ir_version: 8 opset_import { domain: "" version: %d } graph { name: "%s" %s %s %s %s }' % (
        opset, name, nodes, initializers,
        " ".join("input { %s }" % value_info(t[0], t[1], dtype_of(t, dtype)) for t in inputs),
        " ".join("output { %s }" % value_info(t[0], t[1], dtype_of(t, dtype)) for t in outputs))
    encode("ModelProto", graph, os.path.join(d, "model.onnx"))
    for k, t in enumerate(inputs):
        encode("TensorProto", tensor_text(t[0], t[1], t[2], dtype_of(t, dtype)),
               os.path.join(d, "test_data_set_0", "input_%d.pb" % k))
    for k, t in enumerate(outputs):
        encode("TensorProto", tensor_text(t[0], t[1], t[2], dtype_of(t, dtype)),
               os.path.join(d, "test_data_set_0", "output_%d.pb" % k))


# add_relu and tampered
a = [rng.uniform(-1, 1) for _ in range(12)]
b = [rng.uniform(-1, 1) for _ in range(4)]
y = [max(a[i] + b[i % 4], 0.0) for i in range(12)]
nodes = ('node { input: "a" input: "b" output: "s" op_type: "Add" } '
         'node { input: "s" output: "y" op_type: "Relu" }')
write_case("add_relu", nodes, [("a", [3, 4], a), ("b", [4], b)], [("y", [3, 4], y)])
bad = list(y)
bad[5] += 0.01
write_case("tampered", nodes, [("a", [3, 4], a), ("b", [4], b)], [("y", [3, 4], bad)])

# conv_pool: x 1x1x4x4, w 2x1x3x3 (initializer), pads 1, then 2x2 max pool.
x = [rng.uniform(-1, 1) for _ in range(16)]
w = [rng.uniform(-1, 1) for _ in range(18)]
conv = []
for k in range(2):
    for i in range(4):
        for j in range(4):
            acc = 0.0
            for r in range(3):
                for s in range(3):
                    ii, jj = i + r - 1, j + s - 1
                    if 0 <= ii < 4 and 0 <= jj < 4:
                        acc += x[ii * 4 + jj] * w[k * 9 + r * 3 + s]
            conv.append(acc)
pool = []
for k in range(2):
    for i in range(2):
        for j in range(2):
            pool.append(max(conv[k * 16 + (2 * i + di) * 4 + 2 * j + dj]
                            for di in range(2) for dj in range(2)))
nodes = ('node { input: "x" input: "w" output: "c" op_type: "Conv" '
         'attribute { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 type: INTS } } '
         'node { input: "c" output: "p" op_type: "MaxPool" '
         'attribute { name: "kernel_shape" ints: 2 ints: 2 type: INTS } '
         'attribute { name: "strides" ints: 2 ints: 2 type: INTS } }')
write_case("conv_pool", nodes, [("x", [1, 1, 4, 4], x)], [("p", [1, 2, 2, 2], pool)],
           "initializer { %s }" % tensor_text("w", [2, 1, 3, 3], w))

# unsupported
write_case("unsupported", 'node { input: "a" output: "y" op_type: "Unique" }',
           [("a", [3, 4], a)], [("y", [3, 4], a)])

# Edge cases.
edge = out + "_edge"
x = [rng.uniform(-1, 1) for _ in range(12)]
write_case("slice_to_int64_max",
           'node { input: "x" input: "s" input: "e" input: "a" output: "y" op_type: "Slice" }',
           [("x", [3, 4], x)], [("y", [3, 3], [x[r * 4 + c] for r in range(3) for c in range(1, 4)])],
           'initializer { %s } initializer { %s } initializer { %s }' % (
               tensor_text("s", [1], [1], 7), tensor_text("e", [1], [2**63 - 1], 7),
               tensor_text("a", [1], [1], 7)), root=edge)
base, exps = [7, 3, -2, 5], [9, 35, 3, 20]
write_case("pow_int64", 'node { input: "a" input: "b" output: "y" op_type: "Pow" }',
           [("a", [4], base), ("b", [4], exps)],
           [("y", [4], [(b ** e + 2**63) % 2**64 - 2**63 for b, e in zip(base, exps)])],
           dtype=7, root=edge)
rows = [[100.0, 180.0, 150.0], [-1.0, 0.0, 1.0]]
lse = [max(r) + math.log(sum(math.exp(v - max(r)) for v in r)) for r in rows]
write_case("logsumexp_large",
           'node { input: "x" output: "y" op_type: "ReduceLogSumExp" '
           'attribute { name: "axes" ints: 1 type: INTS } attribute { name: "keepdims" i: 0 type: INT } }',
           [("x", [2, 3], [v for r in rows for v in r])], [("y", [2], lse)], root=edge)

# CumSum (OUT_cumsum), forward and reverse, inclusive and exclusive, on a
# 3x4 f32 input, against running sums in Python.
cum = out + "_cumsum"
x = [rng.uniform(-1, 1) for _ in range(12)]
for axis in (0, 1):
    for reverse in (0, 1):
        for exclusive in (0, 1):
            y = []
            for r in range(3):
                for c in range(4):
                    i = r if axis == 0 else c
                    n = 3 if axis == 0 else 4
                    js = [j for j in range(n)
                          if (j > i if reverse else j < i) or (j == i and not exclusive)]
                    y.append(sum(x[(j * 4 + c) if axis == 0 else (r * 4 + j)] for j in js))
            write_case("cumsum_axis%d_reverse%d_exclusive%d" % (axis, reverse, exclusive),
                       'node { input: "x" input: "a" output: "y" op_type: "CumSum" '
                       'attribute { name: "reverse" i: %d type: INT } '
                       'attribute { name: "exclusive" i: %d type: INT } }' % (reverse, exclusive),
                       [("x", [3, 4], x)], [("y", [3, 4], y)],
                       "initializer { %s }" % tensor_text("a", [], [axis], 7), root=cum)

# Composed ops (OUT_composed): Einsum against a direct sum over every
# assignment of its labels, TopK against a stable sort (values drawn from
# five levels, so there are ties, which go to the lower index).
composed = out + "_composed"


def einsum_reference(equation, operands):
    """operands: (dims, flat values); explicit '->' and letters only."""
    terms, output = equation.split("->")
    terms = terms.split(",")
    sizes = {}
    for term, (dims, _) in zip(terms, operands):
        for label, size in zip(term, dims):
            sizes[label] = size
    labels = sorted(sizes)

    def flat(term, at, dims):
        index = 0
        for label, size in zip(term, dims):
            index = index * size + at[label]
        return index

    out_dims = [sizes[label] for label in output]
    result = [0.0] * max(1, math.prod(out_dims))
    assignments = [{}]
    for label in labels:
        assignments = [dict(a, **{label: v}) for a in assignments for v in range(sizes[label])]
    for at in assignments:
        product = 1.0
        for term, (dims, values) in zip(terms, operands):
            product *= values[flat(term, at, dims)]
        result[flat(output, at, out_dims)] += product
    return out_dims, result


einsums = [
    ("chain3", "ij,jk,kl->il", [[2, 3], [3, 4], [4, 2]]),
    ("trace_batch", "bii->b", [[2, 3, 3]]),
    ("hadamard_sum", "ij,ij->i", [[3, 4], [3, 4]]),
    ("outer", "i,j->ij", [[3], [4]]),
    ("ellipsis_matmul", "...ij,...jk->...ik", [[2, 2, 3, 4], [2, 2, 4, 2]]),
    ("implicit", "ij,jk", [[2, 3], [3, 4]]),
]
for name, equation, shapes in einsums:
    operands = [(dims, [rng.uniform(-1, 1) for _ in range(math.prod(dims))]) for dims in shapes]
    explicit = equation if "->" in equation else equation + "->ik"
    letters = explicit.replace("...", "XY")
    _, y = einsum_reference(letters, [(d, v) for d, v in operands])
    out_term = letters.split("->")[1]
    sizes = {}
    for term, (dims, _) in zip(letters.split("->")[0].split(","), operands):
        sizes.update(zip(term, dims))
    names = ["x%d" % i for i in range(len(operands))]
    node = 'node { %s output: "y" op_type: "Einsum" attribute { name: "equation" s: "%s" type: STRING } }' % (
        " ".join('input: "%s"' % n for n in names), equation)
    write_case("einsum_" + name, node,
               [(n, d, v, 11) for n, (d, v) in zip(names, operands)],
               [("y", [sizes[l] for l in out_term], y, 11)], opset=12, root=composed)

levels = [-1.5, -0.25, 0.0, 0.5, 2.0]
x = [rng.choice(levels) for _ in range(3 * 6)]
for axis in (0, 1):
    for largest in (1, 0):
        n, k = (3, 2) if axis == 0 else (6, 3)
        values, indices = [], []
        outer = 6 if axis == 0 else 3
        rows = []
        for o in range(outer):
            line = [x[i * 6 + o] if axis == 0 else x[o * 6 + i] for i in range(n)]
            order = sorted(range(n), key=lambda i: (-line[i] if largest else line[i], i))[:k]
            rows.append(([line[i] for i in order], order))
        shape = [k, 6] if axis == 0 else [3, k]
        for r in range(shape[0]):
            for c in range(shape[1]):
                o, j = (c, r) if axis == 0 else (r, c)
                values.append(rows[o][0][j])
                indices.append(rows[o][1][j])
        write_case("top_k_axis%d_largest%d" % (axis, largest),
                   'node { input: "x" input: "k" output: "v" output: "i" op_type: "TopK" '
                   'attribute { name: "axis" i: %d type: INT } '
                   'attribute { name: "largest" i: %d type: INT } }' % (axis, largest),
                   [("x", [3, 6], x)], [("v", shape, values), ("i", shape, indices, 7)],
                   "initializer { %s }" % tensor_text("k", [1], [k], 7), opset=11, root=composed)
