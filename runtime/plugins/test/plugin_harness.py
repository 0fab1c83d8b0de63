"""Runs one plugin of a plugin library on the GPU, for the numpy checks.

    harness = Harness(tools_dir, plugin_lib)          # dry_run=True: no GPU
    outputs = harness.run_case("Clip_TRT", {"clipMin": -1.0, "clipMax": 1.0},
                               [x])                    # a list of arrays

run_case writes the inputs as .npy files, writes a plan whose one step is
the plugin (kiln-write-plugin-plan: the library makes the plugin from the
fields and says its outputs), runs it with kiln-run-plan and reads back
output_0.npy, output_1.npy, ... With dry_run it stops after writing the plan
and returns None. A failing tool raises HarnessError with its message.

Fields are a dict name -> value: an int, bool or list of them is `ints`, a
float or a list with one is `floats`, a str is `text`; Ints, Floats and Text
say it explicitly (Floats([1, 2]) for a float field given whole numbers).

compare() and print_table() are the checks' shared way to judge an output
against a reference and to report (check_builtin_plugins.py,
check_detection_plugins.py).

numpy only; Python 3.8 or later.
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np

WRITE_PLAN = "kiln-write-plugin-plan"
RUN_PLAN = "kiln-run-plan"


class HarnessError(Exception):
    """A tool refused or failed; the message has its output."""


class Ints(list):
    """An `ints` field."""


class Floats(list):
    """A `floats` field."""


class Text(str):
    """A `text` field."""


def _is_int(value):
    return isinstance(value, (bool, int, np.integer))


def field_argument(name, value):
    """`name=kind:values` as kiln-write-plugin-plan's --field takes it."""
    if isinstance(value, Text) or isinstance(value, str):
        return f"{name}=text:{value}"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    explicit = isinstance(value, (Ints, Floats))
    if not isinstance(value, (list, tuple)):
        value = [value]
    if isinstance(value, Ints) or (not explicit and
                                   all(_is_int(v) for v in value)):
        if not all(_is_int(v) or float(v).is_integer() for v in value):
            raise HarnessError(f"field {name}: {value} are not integers")
        return f"{name}=ints:" + ",".join(str(int(v)) for v in value)
    # repr() of a Python float reads back as the same double.
    return f"{name}=floats:" + ",".join(repr(float(v)) for v in value)


def input_argument(name, array):
    """`name=f32:2x3x4` for kiln-write-plugin-plan's --input."""
    types = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
             np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
             np.dtype(np.int8): "i8", np.dtype(np.uint8): "u8",
             np.dtype(np.float64): "f64", np.dtype(np.bool_): "bool"}
    if array.dtype not in types:
        raise HarnessError(f"input {name}: no kiln type for {array.dtype}")
    return f"{name}={types[array.dtype]}:" + "x".join(
        str(d) for d in array.shape)


def _output_shapes(report):
    """The output shapes in kiln-write-plugin-plan's report ("... ->
    output_0=f32:1x2x3 output_1=f32:4, ...")."""
    shapes = []
    for word in report.split("->", 1)[-1].replace(",", " ").split():
        if word.startswith("output_") and ":" in word:
            dims = word.split(":", 1)[1]
            shapes.append(tuple(int(d) for d in dims.split("x")) if dims
                          else ())
    return shapes


class Harness:
    """kiln-write-plugin-plan and kiln-run-plan from `tools`, on the plugin
    library `plugin_lib`. Case folders go under `out` (a temporary folder,
    removed at exit, when None)."""

    def __init__(self, tools, plugin_lib, dry_run=False, out=None,
                 verbose=False):
        self.dry_run = dry_run
        self.verbose = verbose
        self.plugin_lib = os.path.abspath(plugin_lib)
        self.write_plan = os.path.join(tools, WRITE_PLAN)
        self.run_plan = os.path.join(tools, RUN_PLAN)
        needed = [self.write_plan] + ([] if dry_run else [self.run_plan])
        for tool in needed:
            if not os.access(tool, os.X_OK):
                raise HarnessError(f"{tool} is not an executable (--tools "
                                   "names the folder with "
                                   f"{WRITE_PLAN} and {RUN_PLAN})")
        if not os.path.isfile(self.plugin_lib):
            raise HarnessError(f"no plugin library at {self.plugin_lib}")
        self._temporary = None
        if out is None:
            self._temporary = tempfile.TemporaryDirectory(
                prefix="kiln-plugin-check-")
            out = self._temporary.name
        self.out = os.path.abspath(out)
        os.makedirs(self.out, exist_ok=True)
        self._cases = 0
        # The output shapes of the last plan written (what getOutputs said).
        self.last_output_shapes = []
        # The tools load libkiln_plugins.so by themselves too (beside them or
        # in ../lib); the library under test must be that one, or its
        # creators would be registered twice.
        self.env = dict(os.environ, KILN_BUILTIN_PLUGINS=self.plugin_lib)

    def _run(self, command):
        if self.verbose:
            print("$ " + " ".join(command))
        try:
            done = subprocess.run(command, env=self.env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True,
                                  timeout=300)
        except subprocess.TimeoutExpired:
            raise HarnessError(f"{os.path.basename(command[0])} ran for more "
                               "than 300 s")
        if done.returncode != 0:
            raise HarnessError(
                f"{os.path.basename(command[0])} exited with "
                f"{done.returncode}: {done.stdout.strip()}")
        return done.stdout

    def write_case_plan(self, plugin, fields, inputs):
        """Writes the inputs and the plan of a new case; returns the case
        folder, the plan and the input names."""
        self._cases += 1
        folder = os.path.join(self.out, f"case_{self._cases:03d}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        plan = os.path.join(folder, "plugin.kplan")
        command = [self.write_plan, plan, f"--plugin-lib={self.plugin_lib}",
                   "--plugin", plugin]
        names = []
        for i, array in enumerate(inputs):
            array = np.ascontiguousarray(array)
            name = f"input_{i}"
            names.append(name)
            np.save(os.path.join(folder, name + ".npy"), array)
            command += ["--input", input_argument(name, array)]
        for name, value in fields.items():
            command += ["--field", field_argument(name, value)]
        self.last_output_shapes = _output_shapes(self._run(command))
        return folder, plan, names

    def run_case(self, plugin, fields, inputs):
        """The plugin's outputs for `inputs` (arrays, in order), as arrays;
        None with dry_run (the plan is written, not run)."""
        folder, plan, names = self.write_case_plan(plugin, fields, inputs)
        if self.dry_run:
            return None
        outputs = os.path.join(folder, "outputs")
        os.makedirs(outputs)
        command = [self.run_plan, plan, f"--plugin-lib={self.plugin_lib}",
                   "--output-dir", outputs]
        for name in names:
            command += ["--input",
                        f"{name}={os.path.join(folder, name + '.npy')}"]
        self._run(command)
        results = []
        while os.path.exists(os.path.join(outputs,
                                          f"output_{len(results)}.npy")):
            results.append(np.load(os.path.join(
                outputs, f"output_{len(results)}.npy")))
        if not results:
            raise HarnessError(f"{RUN_PLAN} wrote no outputs in {outputs}")
        return results


def compare(got, want, rtol=0.0, atol=0.0):
    """(max abs error, problem or None) for `got` against the reference
    `want`: shapes must match and every element satisfy
    |got - want| <= atol + rtol * |want| (NaN only where want is NaN);
    rtol = atol = 0 asks for bit-exact equality of the values."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return float("nan"), f"shape {got.shape}, want {want.shape}"
    if got.size == 0:
        return 0.0, None
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    if np.any(nan_g != nan_w):
        index = tuple(np.argwhere(nan_g != nan_w)[0])
        return float("nan"), f"at {list(index)}: got {g[index]}, want {w[index]}"
    finite = ~nan_w
    error = np.zeros_like(w)
    error[finite] = np.abs(g[finite] - w[finite])
    error[finite & (g == w)] = 0.0  # equal infinities
    bad = error > atol + rtol * np.abs(np.where(finite, w, 0.0))
    max_error = float(error.max())
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0])
        return max_error, (f"{int(bad.sum())} of {bad.size} elements off, "
                           f"first at {list(index)}: got {g[index]!r}, want "
                           f"{w[index]!r}")
    return max_error, None


def compare_outputs(outputs, expected, rtol=0.0, atol=0.0):
    """(largest max abs error, problems) of each output against its
    reference, as compare() judges them; problems is empty when all match."""
    worst, problems = 0.0, []
    if len(outputs) != len(expected):
        problems.append(f"{len(outputs)} outputs, want {len(expected)}")
    for k, (got, want) in enumerate(zip(outputs, expected)):
        error, problem = compare(got, want, rtol, atol)
        worst = max(worst, error) if error == error else error
        if problem:
            problems.append(f"output {k}: {problem}")
    return worst, problems


def tolerance_text(rtol, atol):
    if rtol == 0 and atol == 0:
        return "exact"
    return f"rtol {rtol:g} + atol {atol:g}"


def shapes_text(arrays):
    return ",".join("x".join(str(d) for d in a.shape) or "scalar"
                    for a in arrays) or "-"


def print_table(header, rows):
    """Prints rows (tuples of the header's length) as aligned columns."""
    rows = [tuple(str(v) for v in r) for r in rows]
    widths = [max(len(r[i]) for r in [tuple(header)] + rows)
              for i in range(len(header))]
    for r in [tuple(header)] + rows:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
