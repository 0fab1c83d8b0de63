#!/usr/bin/env python3
"""The built-in plugins that kiln-expand-builtin-plugins rewrites, on the CPU.

    python3 builtin_plugins_reference.py --kiln-run PATH --out DIR

Takes the GPU check's cases (runtime/plugins/test/check_builtin_plugins.py:
seeded random inputs, edge cases, the same float64 numpy references and
tolerances) for LReLU_TRT, Clip_TRT, Reorg_TRT, Normalize_TRT and
Region_TRT, writes each as an ONNX model of one node of the plugin's name in
a custom domain (its fields as attributes), runs it with kiln-run on the
reference executor and compares the output with the reference. Prints a
table and "N cases, K failed"; exits 1 when a case fails.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "runtime", "plugins", "test"))

import check_builtin_plugins as gpu_check  # noqa: E402
import plugin_harness as ph  # noqa: E402

EXPANDED = ("LReLU_TRT", "Clip_TRT", "Reorg_TRT", "Normalize_TRT",
            "Region_TRT")
DOMAIN = "trt.plugins"


def write_model(path, plugin, fields, inputs, expected):
    """One node of `plugin`; ints stay ints, other numbers are floats."""
    names = [f"x{i}" for i in range(len(inputs))]
    outputs = [f"y{i}" for i in range(len(expected))]
    attributes = {}
    for key, value in fields.items():
        values = value if isinstance(value, (list, tuple, np.ndarray)) else [value]
        values = np.asarray(values).tolist()
        if all(isinstance(v, int) for v in values):
            attributes[key] = values if isinstance(value, (list, tuple, np.ndarray)) else values[0]
        else:
            floats = [float(v) for v in values]
            attributes[key] = floats if isinstance(value, (list, tuple, np.ndarray)) else floats[0]
    node = helper.make_node(plugin, names, outputs, name=plugin.lower(), domain=DOMAIN, **attributes)
    graph = helper.make_graph(
        [node],
        plugin,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in zip(names, inputs)],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, e.shape) for n, e in zip(outputs, expected)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(DOMAIN, 1)]
    )
    model.ir_version = 8
    onnx.save(model, path)
    return names


def run_case(kiln_run, folder, plugin, fields, inputs, expected):
    """kiln-run's outputs of the case, or raises ph.HarnessError."""
    os.makedirs(os.path.join(folder, "out"), exist_ok=True)
    names = write_model(os.path.join(folder, "model.onnx"), plugin, fields, inputs, expected)
    command = [kiln_run, os.path.join(folder, "model.onnx"), "--backend=reference",
               "--output-dir", os.path.join(folder, "out")]
    for name, array in zip(names, inputs):
        np.save(os.path.join(folder, f"{name}.npy"), array)
        command += ["--input", f"{name}={os.path.join(folder, name + '.npy')}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise ph.HarnessError(f"kiln-run exited {done.returncode}: {done.stderr.strip()}")
    return [np.load(os.path.join(folder, "out", f"output_{k}.npy")) for k in range(len(expected))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln-run", required=True)
    parser.add_argument("--out", required=True, help="the cases' files")
    args = parser.parse_args()
    rows, failed, count = [], 0, 0
    for plugin, name, fields, inputs, expected, (rtol, atol) in gpu_check.cases():
        if plugin not in EXPANDED:
            continue
        folder = os.path.join(args.out, f"case{count}")
        count += 1
        tol = ph.tolerance_text(rtol, atol)
        shapes = ph.shapes_text(inputs) + " -> " + ph.shapes_text(expected)
        try:
            outputs = run_case(args.kiln_run, folder, plugin, fields, inputs, expected)
        except ph.HarnessError as error:
            failed += 1
            rows.append((plugin, name, shapes, "-", tol, "FAIL", str(error)))
            continue
        worst, problems = ph.compare_outputs(outputs, expected, rtol, atol)
        failed += bool(problems)
        rows.append((plugin, name, shapes, f"{worst:.3g}", tol, "FAIL" if problems else "PASS",
                     "; ".join(problems)))
    ph.print_table(("plugin", "case", "shapes", "max abs err", "tolerance", "result", "detail"), rows)
    print(f"{count} cases, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
