#!/usr/bin/env python3
"""Turns exports of scripts/export-corpus.py into ONNX backend test cases,
the layout kiln-conformance reads:

  corpus-to-cases.py CORPUS OUT
  OUT/<net>-<exporter>/model.onnx
  OUT/<net>-<exporter>/test_data_set_0/input_K.pb, output_K.pb
  OUT/<net>-<exporter>/export.json

Exports that failed (no model.onnx) are left out; external weights are
written into the model. The small corpus
(export-corpus.py --small) is committed this way as test/corpus/small.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

corpus, out = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(corpus)):
    src = os.path.join(corpus, name)
    if not os.path.isfile(os.path.join(src, "model.onnx")):
        continue
    info = json.load(open(os.path.join(src, "export.json")))
    dst = os.path.join(out, name)
    data = os.path.join(dst, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    # The dynamo exporter writes weights to model.onnx.data: one file each.
    onnx.save(onnx.load(os.path.join(src, "model.onnx")),
              os.path.join(dst, "model.onnx"))
    for k, input_name in enumerate(info["inputs"]):
        array = np.load(os.path.join(src, f"input_{k}.npy"))
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, input_name).SerializeToString())
    k = 0
    while os.path.exists(os.path.join(src, f"output_{k}.npy")):
        array = np.load(os.path.join(src, f"output_{k}.npy"))
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array).SerializeToString())
        k += 1
    with open(os.path.join(dst, "export.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(info['inputs'])} input(s), {k} output(s)")
