"""kiln.compile: the same plans as kiln-compile, and its errors.

A plan is a deterministic function of the model and the options (kiln's
plans are byte-identical for the same inputs), so kiln.compile with
keywords must give exactly the bytes kiln-compile gives with the
corresponding flags: that checks that every keyword reaches the compiler.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import kiln

pytest.importorskip("kiln._compiler")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def small_model(path=None, op="Relu"):
    """x (N x 8, N dynamic) -> Gemm with W 8x4 -> op -> y."""
    w = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Gemm", ["x", "w"], ["h"], name="fc"),
            helper.make_node(op, ["h"], ["y"], name="act"),
        ],
        "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    data = model.SerializeToString()
    if path is not None:
        path.write_bytes(data)
    return data


def kiln_compile(model, tmp_path, *flags):
    out = tmp_path / "cli.kplan"
    binary = os.environ.get("KILN_COMPILE") or pytest.skip("KILN_COMPILE is not set")
    subprocess.run([binary, str(model), "-o", str(out), *flags], check=True)
    return out.read_bytes()


@pytest.mark.parametrize(
    "options, flags",
    [
        ({"batch": 2}, ["--batch=2"]),
        (
            {
                "input_shapes": {"x": (3, 8)},
                "fp16": True,
                "opt_level": 3,
                "target": ["sm_80", "sm_90"],
                "cubin": False,
            },
            ["--input-shape=x=3x8", "--fp16", "--opt-level=3", "--target=sm_80,sm_90", "--no-cubin"],
        ),
        (
            {"batch": 1, "cublaslt": False, "layer_precision": {"fc": "bf16"}, "max_memory": "1G"},
            ["--batch=1", "--no-cublaslt", "--layer-precision=fc=bf16", "--max-memory=1G"],
        ),
    ],
)
def test_compile_gives_kiln_compiles_plan(tmp_path, options, flags):
    model = tmp_path / "small.onnx"
    data = small_model(model)
    want = kiln_compile(model, tmp_path, *flags)
    assert kiln.compile(model, **options) == want
    assert kiln.compile(str(model), **options) == want
    assert kiln.compile(data, **options) == want


@pytest.mark.parametrize(
    "options, words",
    [
        ({"opt_level": 7}, "--opt-level must be 0, 1, 2 or 3, got 7"),
        ({"fp16": True, "bf16": True}, "--fp16 and --bf16 exclude each other"),
        ({"target": "sm_13"}, "--target"),
        ({"max_memory": "lots"}, "--max-memory"),
        ({"layer_precision": {"fc": "fp8"}}, "--layer-precision"),
        ({"tune_candidates": 0}, "--tune-candidates"),
    ],
)
def test_bad_options_are_clear_errors(options, words):
    with pytest.raises(kiln.InvalidArgumentError) as raised:
        kiln.compile(small_model(), batch=1, **options)
    assert words in str(raised.value)


def test_bad_keywords_are_type_errors():
    with pytest.raises(TypeError, match="unknown option 'fp17'"):
        kiln.compile(small_model(), fp17=True)
    with pytest.raises(TypeError, match="opt_level must be int"):
        kiln.compile(small_model(), opt_level="3")


def test_bad_models_are_clear_errors(tmp_path):
    with pytest.raises(kiln.InvalidArgumentError, match="importing <bytes> failed"):
        kiln.compile(b"not a model", batch=1)
    with pytest.raises(kiln.InvalidArgumentError, match="NoSuchOp"):
        kiln.compile(small_model(op="NoSuchOp"), batch=1)
    missing = tmp_path / "missing.onnx"
    with pytest.raises(kiln.InvalidArgumentError, match="missing.onnx"):
        kiln.compile(missing)


def test_compile_logs_warnings_to_the_callback():
    messages = []
    plan = kiln.compile(small_model(), batch=1, log=lambda s, m: messages.append((s, m)))
    assert plan
    assert all(isinstance(s, kiln.Severity) for s, _ in messages)


def test_run_reference_matches_numpy():
    x = np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32)
    w = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    (y,) = kiln.run_reference(small_model(), [x], batch=2)
    np.testing.assert_allclose(y, np.maximum(x.astype(np.float64) @ w, 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(kiln.InvalidArgumentError):
        kiln.run_reference(small_model(), [x[:1]], batch=2)  # a wrong input shape


def test_bad_reference_inputs_are_clear_errors():
    with pytest.raises(kiln.InvalidArgumentError, match="a sequence of numbers"):
        kiln.run_reference(small_model(), ["abc"], batch=2)


PLUGIN_CHECK = r"""
import sys
import numpy as np
import kiln

model, library, fake_driver, cli_plan = sys.argv[1:5]
# The plugin's node is unknown until its library is loaded.
try:
    kiln.compile(model)
    raise SystemExit("compiled without the plugin library")
except kiln.InvalidArgumentError as error:
    assert "no registered plugin is named 'TestClip'" in str(error), error
plan = kiln.compile(model, plugin_libs=[library])
assert plan == open(cli_plan, "rb").read(), "kiln.compile's plan differs from kiln-compile's"
runtime = kiln.Runtime(driver=fake_driver)
try:
    runtime.deserialize(plan)
    raise SystemExit("the plan loaded without its plugin in the runtime")
except kiln.UnsupportedPlanError as error:
    assert "'TestClip' version '2' namespace 'kiln.test'" in str(error), error
kiln.load_plugin_library(library)
x = np.random.default_rng(5).standard_normal((2, 3, 4)).astype(np.float32)
y = runtime.deserialize(plan).create_execution_context().run({"x": x})["y"]
np.testing.assert_array_equal(y, np.clip(x, -0.5, 0.25))
print("ok")
"""


def test_compile_maps_nodes_to_plugins(tmp_path, fake_driver):
    """An ONNX node of the test plugin library's TestClip@2 compiles with
    plugin_libs= to kiln-compile --plugin-lib's plan, which runs (on the
    stand-in driver, where the plugin computes on the host) to numpy's clip.
    In a child process: plugin registries are the process's."""
    import subprocess
    import sys

    library = os.environ.get("KILN_TEST_PLUGIN_LIBRARY") or pytest.skip("no test plugin library")
    source = os.environ.get("KILN_SOURCE_DIR") or pytest.skip("KILN_SOURCE_DIR is not set")
    model = os.path.join(source, "test/Import/Onnx/Inputs/plugin-clip.onnxtxt")
    cli_plan = tmp_path / "cli.kplan"
    kiln_compile(model, tmp_path, f"--plugin-lib={library}")
    done = subprocess.run(
        [sys.executable, "-c", PLUGIN_CHECK, model, library, fake_driver, str(cli_plan)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "ok"


def test_builtin_plugins_ship_with_the_package(tmp_path):
    """With libkiln_plugins.so beside the modules (where nvcc built it),
    an ONNX node named LReLU_TRT compiles with no plugin_libs, to the same
    bytes as kiln-compile's plan; the plugin's field is checked by its
    creator (a slope given twice is refused, naming the field). The CPU
    reference runs it as kiln layers (kiln-expand-builtin-plugins) and
    matches numpy."""
    package = os.path.dirname(kiln.__file__)
    if not os.path.exists(os.path.join(package, "libkiln_plugins.so")):
        pytest.skip("the package has no built-in plugins (built without nvcc)")

    def model(slopes):
        graph = helper.make_graph(
            [helper.make_node("LReLU_TRT", ["x"], ["y"], name="leaky", negSlope=slopes)],
            "leaky",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    path = tmp_path / "leaky.onnx"
    path.write_bytes(model(0.25).SerializeToString())
    assert kiln.compile(str(path)) == kiln_compile(path, tmp_path)
    x = np.random.default_rng(14).standard_normal((2, 5)).astype(np.float32)
    (y,) = kiln.run_reference(str(path), [x])
    np.testing.assert_allclose(y, np.where(x >= 0, x, np.float32(0.25) * x), rtol=1e-6, atol=0)
    with pytest.raises(kiln.InvalidArgumentError, match="negSlope"):
        kiln.compile(model([0.25, 0.5]).SerializeToString())


def test_compile_caffe_network(tmp_path):
    """A Caffe LeNet (prototxt, and a caffemodel that the test networks'
    script writes with random weights) compiles with caffemodel= to
    kiln-compile --caffemodel's bytes, outputs= picks blobs, and the CPU
    reference matches the script's float64 numpy outputs."""
    import shutil
    import sys

    source = os.environ.get("KILN_SOURCE_DIR") or pytest.skip("KILN_SOURCE_DIR is not set")
    if not shutil.which("protoc"):
        pytest.skip("protoc is not installed")
    inputs = os.path.join(source, "test/Import/Caffe/Inputs")
    prototxt = os.path.join(inputs, "lenet.prototxt")
    out = tmp_path / "lenet"
    subprocess.run(
        [sys.executable, os.path.join(inputs, "caffe_nets.py"), prototxt, str(out)],
        check=True,
        capture_output=True,
    )
    weights = str(out / "net.caffemodel")
    plan = kiln.compile(prototxt, caffemodel=weights)
    assert plan == kiln_compile(prototxt, tmp_path, "--caffemodel", weights)
    picked = kiln.compile(prototxt, caffemodel=weights, outputs=["ip1", "prob"])
    assert picked == kiln_compile(
        prototxt, tmp_path, "--caffemodel", weights, "--output", "ip1", "--output", "prob"
    )
    x = np.load(out / "input_0.npy")
    (prob,) = kiln.run_reference(prototxt, [x], caffemodel=weights)
    np.testing.assert_allclose(prob, np.load(out / "ref" / "output_0.npy"), rtol=1e-3, atol=1e-5)
    with pytest.raises(kiln.InvalidArgumentError, match="no blob|not a blob|nowhere"):
        kiln.compile(prototxt, caffemodel=weights, outputs="nowhere")


def test_compiler_module_holds_one_copy_of_mlir():
    """kiln._compiler links MLIR's static archives; the shared libMLIR.so
    must not be loaded beside them. Two copies of MLIR in one process keep
    two sets of TypeIDs, and kiln.compile then folded constants forever
    (issue 31: the default build's hang)."""
    import kiln._compiler  # noqa: F401

    with open("/proc/self/maps") as maps:
        loaded = {line.split()[-1] for line in maps if "libMLIR" in line}
    assert not loaded, f"libMLIR.so is loaded beside kiln._compiler: {sorted(loaded)}"


@pytest.mark.parametrize("options", [{"batch": 2}, {"batch": 1, "fp16": True, "opt_level": 3}])
def test_compile_returns(tmp_path, options):
    """kiln.compile in a child process returns within a bound far above its
    normal time (well under a second): a regression of issue 31's endless
    folding fails here with a message instead of hanging the suite."""
    model = tmp_path / "small.onnx"
    small_model(model)
    script = f"import kiln; kiln.compile({str(model)!r}, **{options!r})"
    try:
        subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"kiln.compile(small.onnx, **{options}) did not return in 60 s")
