"""The graph-size benchmark's four shapes, small, as backend-test folders
with references from onnx's ReferenceEvaluator (independent of kiln).

  make_graph_size_cases.py BENCHMARKS_DIR OUT N

Chains, many outputs, a concat of many computed parts and a split into
many rows (benchmarks/graph_size.py) on random inputs: each goes through
the passes that give constants, concatenations and tensors of many
readers their buffers (kiln-constants-to-globals, kiln-concat-destinations,
kiln-shared-reads) on the reference backend.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator


def main():
    sys.path.insert(0, sys.argv[1])
    import graph_size  # noqa: E402

    out, n = sys.argv[2], int(sys.argv[3])
    rng = np.random.default_rng(42)
    for shape, make in graph_size.SHAPES.items():
        d = os.path.join(out, "%s_%d" % (shape, n))
        data = os.path.join(d, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        make(n, path, rng)
        model = onnx.load(path)
        feeds = {}
        for i, value in enumerate(model.graph.input):
            dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
            x = rng.uniform(-2, 2, dims).astype(np.float32)
            feeds[value.name] = x
            with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(x, value.name)
                        .SerializeToString())
        results = ReferenceEvaluator(model).run(None, feeds)
        for i, (value, y) in enumerate(zip(model.graph.output, results)):
            with open(os.path.join(data, "output_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(y, value.name)
                        .SerializeToString())


if __name__ == "__main__":
    main()
