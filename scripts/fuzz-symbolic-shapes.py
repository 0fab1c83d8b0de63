#!/usr/bin/env python3
"""Differential fuzz of run-time shapes (issue 32): random shape subgraphs
(Shape -> Gather -> Add/Sub/Mul/Div -> Unsqueeze -> Concat with constants,
-1 and 0) feeding Reshape, Expand or ConstantOfShape, on an input
x[N, S, 8] built once with N in 1..8 and S in 1..8, run by kiln's CPU
reference and by ONNX Runtime at three shapes. kiln must match exactly or
refuse with an error; a model kiln runs where ONNX Runtime refuses it, or a
different answer, is a bug (printed as MISMATCH).

    python3 scripts/fuzz-symbolic-shapes.py SEED COUNT [KILN_RUN] [WORKDIR]

Needs onnxruntime (PyPI). 2026-12-07: seeds 1-7, 40 models each, 0 bad
after the fix of a copied dimension resized by the element count.
"""
import os
import random
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
K = sys.argv[3] if len(sys.argv) > 3 else "build/bin/kiln-run"
W = sys.argv[4] if len(sys.argv) > 4 else "/tmp/kiln-fuzz-shapes"
os.makedirs(os.path.join(W, "out"), exist_ok=True)
def c(name, vals): return h.make_node("Constant", [], [name], value=h.make_tensor(name+"_v", T.INT64, [len(vals)], vals))
def c0(name, v): return h.make_node("Constant", [], [name], value=h.make_tensor(name+"_v", T.INT64, [], [v]))
bad = 0; ran = 0; refused = 0
for trial in range(int(sys.argv[2]) if len(sys.argv) > 2 else 40):
    nodes = [h.make_node("Shape", ["x"], ["s"]), c0("i0", 0), c0("i1", 1), c0("i2", 2), c("z", [0]),
             h.make_node("Gather", ["s", "i0"], ["b"], axis=0), h.make_node("Gather", ["s", "i1"], ["q"], axis=0),
             h.make_node("Gather", ["s", "i2"], ["w"], axis=0)]
    pool = {"b": "b", "q": "q", "w": "w"}
    # random scalar arithmetic
    for k in range(random.randint(0, 3)):
        a, bb = random.choice(list(pool)), random.choice(list(pool) + ["k2", "k1"])
        op = random.choice(["Mul", "Add", "Sub", "Div"])
        if bb in ("k2", "k1"):
            nodes.append(c0(bb + str(k), 2 if bb == "k2" else 1)); bb = bb + str(k)
        out = f"t{k}"; nodes.append(h.make_node(op, [a, bb], [out])); pool[out] = out
    # target: 2..4 entries from pool, constants, -1, 0
    n = random.randint(1, 4); parts = []
    for j in range(n):
        r = random.random()
        if r < 0.5:
            p = random.choice(list(pool)); u = f"u{j}"; nodes.append(h.make_node("Unsqueeze", [p, "z"], [u])); parts.append(u)
        else:
            v = random.choice([-1, 0, 1, 2, 4, 8]); nm = f"k{j}"; nodes.append(c(nm, [v])); parts.append(nm)
    nodes.append(h.make_node("Concat", parts, ["tgt"], axis=0))
    last = random.choice(["Reshape", "Expand", "ConstantOfShape"])
    if last == "Reshape": nodes.append(h.make_node("Reshape", ["x", "tgt"], ["y"]))
    elif last == "Expand": nodes.append(h.make_node("Expand", ["row", "tgt"], ["y"]))
    else: nodes.append(h.make_node("ConstantOfShape", ["tgt"], ["y"], value=h.make_tensor("v", T.FLOAT, [1], [1.5])))
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, ["N", "S", 8]), h.make_tensor_value_info("row", T.FLOAT, [1, 8])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]); m.ir_version = 8
    path = os.path.join(W, f"m{trial}.onnx"); onnx.save(m, path)
    try:
        sess = ort.InferenceSession(path)
    except Exception:
        sess = None
    for shape in [(1, 1), (3, 5), (4, 6)]:
        x = np.random.default_rng(trial).standard_normal(shape + (8,)).astype(np.float32)
        row = np.random.default_rng(trial + 1).standard_normal((1, 8)).astype(np.float32)
        np.save(os.path.join(W, "x.npy"), x); np.save(os.path.join(W, "row.npy"), row)
        try: ref = sess.run(None, {"x": x, "row": row})[0] if sess else None
        except Exception: ref = None
        r = subprocess.run([K, path, "--shapes", "x=1x1x8:4x6x8:8x8x8", "--input", "x=" + os.path.join(W, "x.npy"), "--input", "row=" + os.path.join(W, "row.npy"), "--output-dir", os.path.join(W, "out")], capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            got = np.load(os.path.join(W, "out", "output_0.npy"))
            ran += 1
            if ref is None or got.shape != ref.shape or not np.array_equal(got, ref):
                bad += 1; print("MISMATCH", trial, shape, last, None if ref is None else ref.shape, got.shape, path)
        else:
            refused += 1
            if r.returncode not in (1,) or "error" not in r.stderr:
                bad += 1; print("CRASH?", trial, shape, r.returncode, r.stderr[-300:])
print(f"ran {ran}, refused {refused}, bad {bad}")
sys.exit(1 if bad else 0)
