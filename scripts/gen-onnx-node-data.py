#!/usr/bin/env python3
"""Writes the node test cases of the installed onnx package (the newer
conformance suite) as backend test data: OUT/node/<case>/model.onnx and
test_data_set_N/{input,output}_K.pb, as onnx's `backend-test-tools
generate-data` writes them. onnx wheels after 1.22 no longer ship these
files, and generate-data now writes only the model cases, so they are built
from onnx.backend.test.case.node.collect_testcases(); the expected outputs
are the ones the onnx test cases compute (numpy or onnx's reference
implementation), independent of kiln.

Usage: gen-onnx-node-data.py OUT [--version X]
Does nothing when OUT already holds the data of onnx X (a stamp file), and
fails when the installed onnx is not X (install-deps.sh pins it).
"""
import argparse
import warnings
import os
import shutil
import sys

import onnx
from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--version", default="1.23.2")
args = parser.parse_args()
# The test cases compute some expected values through overflows on purpose.
warnings.filterwarnings("ignore")

if onnx.__version__ != args.version:
    sys.exit(f"gen-onnx-node-data: onnx {onnx.__version__} is installed, the "
             f"suite pins {args.version} (scripts/install-deps.sh installs it)")
stamp = os.path.join(args.out, "onnx-version")
if os.path.exists(stamp) and open(stamp).read().strip() == args.version:
    sys.exit(0)
shutil.rmtree(args.out, ignore_errors=True)


def write(value, info, path):
    if not isinstance(value, TensorProto):
        value = numpy_helper.from_array(value, info.name)
    with open(path, "wb") as f:
        f.write(value.SerializeToString())


count = 0
for case in node.collect_testcases():
    d = os.path.join(args.out, "node", case.name)
    os.makedirs(d)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    for i, (inputs, outputs) in enumerate(case.data_sets):
        ds = os.path.join(d, f"test_data_set_{i}")
        os.makedirs(ds)
        graph = case.model.graph
        # Maps, sequences and optionals: kiln reads tensors only, and the
        # runner skips these models on their input types.
        if not all(v.type.HasField("tensor_type")
                   for v in list(graph.input) + list(graph.output)):
            continue
        for j, value in enumerate(inputs):
            write(value, graph.input[j], os.path.join(ds, f"input_{j}.pb"))
        for j, value in enumerate(outputs):
            write(value, graph.output[j], os.path.join(ds, f"output_{j}.pb"))
    count += 1
with open(stamp, "w") as f:
    f.write(args.version + "\n")
print(f"gen-onnx-node-data: {count} node cases of onnx {args.version} in {args.out}")
