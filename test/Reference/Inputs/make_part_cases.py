#!/usr/bin/env python3
"""ONNX cases whose outputs are parts of one tensor, and concatenations of
copies of one input, with numpy references, as backend-test folders
(issue 42).

  make_part_cases.py OUT

On the CPU reference, outputs that are contiguous parts of one tensor (a
Split's) are written in that tensor and copied out by the executor
(kiln-join-output-parts); a run of copies of one Concat input (Tile's
copies) is one broadcast (the kiln.concat canonicalization). Parts that are
not one run of elements (columns) stay outputs of their own. Random inputs.
"""
import functools
import sys

import numpy as np
from onnx import helper

import backend_case

# Split's num_outputs is an attribute from opset 18 on.
write = functools.partial(backend_case.write, opset=18)


def split(out, name, x, parts, axis, before=None):
    """x split into `parts` outputs along `axis`; `before` (an op name):
    the split reads that op of x instead of x, and x through the op is an
    output too."""
    nodes, src, outputs = [], "x", []
    if before:
        nodes.append(helper.make_node(before, ["x"], ["t"]))
        src = "t"
        t = np.maximum(x, 0) if before == "Relu" else x
        outputs.append(("t", t))
    else:
        t = x
    names = [f"y{i}" for i in range(parts)]
    nodes.append(helper.make_node("Split", [src], names, axis=axis,
                                  num_outputs=parts))
    outputs += list(zip(names, np.split(t, parts, axis=axis)))
    write(out, name, nodes, [("x", x)], outputs)


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    f32 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float32)
    # 1,000 rows of an input: one joined result, 1,000 outputs copied out.
    split(out, "split_1000", f32(1000, 3), 1000, 0)
    # Parts along axis 1 of a batch of 1 are runs of elements too.
    split(out, "split_axis1", f32(1, 6, 4), 3, 1)
    # Parts of a computed tensor that is an output itself.
    split(out, "split_of_relu", f32(8, 5), 4, 0, before="Relu")
    # Columns are not runs of elements: outputs of their own.
    split(out, "split_columns", f32(3, 4), 2, 1)
    # Other element types: 64-bit integers and booleans (one byte each).
    split(out, "split_int64", rng.integers(-9, 9, [6, 2]).astype(np.int64), 3, 0)
    split(out, "split_bool", rng.integers(0, 2, [4, 3]).astype(bool), 4, 0)
    # Concat of 500 copies of one input, and runs of copies among others.
    x, y = f32(1, 3), f32(1, 2)
    write(out, "concat_500_copies", [helper.make_node("Concat", ["x"] * 500, ["z"], axis=0)],
          [("x", x)], [("z", np.concatenate([x] * 500, axis=0))])
    order = ["x", "x", "y", "y", "y", "x"]
    arrays = {"x": x, "y": y}
    write(out, "concat_runs", [helper.make_node("Concat", order, ["z"], axis=1)],
          [("x", x), ("y", y)],
          [("z", np.concatenate([arrays[n] for n in order], axis=1))])
    # Tile's copies along two axes.
    x = f32(2, 3, 2)
    write(out, "tile", [helper.make_node("Tile", ["x", "r"], ["z"])], [("x", x)],
          [("z", np.tile(x, (3, 1, 2)))], [("r", np.array([3, 1, 2], dtype=np.int64))])


if __name__ == "__main__":
    main()
