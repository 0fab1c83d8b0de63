#!/usr/bin/env python3
"""Makes an exported network small enough to carry, and whole again.

  corpus-skeleton.py strip MODEL.onnx SKELETON.onnx
  corpus-skeleton.py fill SKELETON.onnx MODEL.onnx [--seed N]

`strip` keeps the graph, every integer initializer (shapes, indices) and
every float initializer of at most 64 elements, and empties the others
(their dims and type stay). `fill` gives each emptied initializer random
normal values (std 0.02, as transformers initializes weights) of its type.
The GPU machine has torch and transformers and this machine does not:
skeletons of the full-size corpus come back from there, so that importing
and compiling BERT-base can be timed and debugged here.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper

parser = argparse.ArgumentParser()
parser.add_argument("mode", choices=["strip", "fill"])
parser.add_argument("src")
parser.add_argument("dst")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

FLOATS = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
          onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16}
STRIPPED = "kiln.stripped"


def graphs(graph):
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from graphs(attr.g)
            for g in attr.graphs:
                yield from graphs(g)


model = onnx.load(args.src, load_external_data=args.mode == "strip")
rng = np.random.default_rng(args.seed)
count = 0
for graph in graphs(model.graph):
    for t in graph.initializer:
        if args.mode == "strip":
            if t.data_type not in FLOATS or int(np.prod(t.dims)) <= 64:
                continue
            dims, dtype, name = list(t.dims), t.data_type, t.name
            t.Clear()
            t.name, t.data_type = name, dtype
            t.dims.extend(dims)
            t.doc_string = STRIPPED
            count += 1
        elif t.doc_string == STRIPPED:
            np_type = onnx.helper.tensor_dtype_to_np_dtype(t.data_type)
            if t.data_type == onnx.TensorProto.BFLOAT16:
                np_type = np.float32
            values = (rng.standard_normal(tuple(t.dims)) * 0.02).astype(np_type)
            filled = numpy_helper.from_array(values, t.name)
            if t.data_type == onnx.TensorProto.BFLOAT16:
                filled = onnx.helper.make_tensor(
                    t.name, t.data_type, t.dims, values.flatten().tolist())
            t.CopyFrom(filled)
            count += 1
onnx.save(model, args.dst)
print(f"{args.mode}: {count} initializers, {args.dst}", file=sys.stderr)
