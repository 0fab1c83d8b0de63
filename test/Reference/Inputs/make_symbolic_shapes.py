"""Inputs and numpy's outputs for test/Import/Onnx/symbolic-shapes.onnxtxt
at the shapes given (BxS), one folder each: x.npy, row.npy, output_<i>.npy.
Random data (seed 0)."""
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(0)
for shape in sys.argv[2:]:
    b, s = (int(v) for v in shape.split("x"))
    d = os.path.join(out, shape)
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((b, s, 8)).astype(np.float32)
    row = rng.standard_normal((1, 8)).astype(np.float32)
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "row.npy"), row)
    outputs = [x.reshape(b, s, 2, 4), x.reshape(b * s, 8),
               np.arange(s, dtype=np.int64), np.ones((b, s), np.float32),
               np.broadcast_to(row, (b, s, 8)).copy()]
    for i, y in enumerate(outputs):
        np.save(os.path.join(d, f"output_{i}.npy"), y)
