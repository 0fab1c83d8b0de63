"""The runtime's Python API on the stand-in driver (no GPU needed).

The stand-in's fake_add_f32 kernel adds in float32 as numpy does, so results
are compared exactly (tolerance 0) with numpy on random data.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import kiln

N = 1000


def engine_of(runtime, add_plan, n=N):
    plan, w = add_plan(n)
    return runtime.deserialize(plan), w


def random_inputs(n=N, seed=1):
    rng = np.random.default_rng(seed)
    return {
        "a": rng.uniform(-100, 100, n).astype(np.float32),
        "b": rng.uniform(-100, 100, n).astype(np.float32),
    }


def test_no_driver_is_a_clear_error(tmp_path):
    missing = tmp_path / "libcuda.so.1"
    with pytest.raises(kiln.DriverUnavailableError, match="cannot load the CUDA driver"):
        kiln.Runtime(driver=missing)


def test_no_device_is_a_clear_error(fake_driver, monkeypatch):
    monkeypatch.setenv("KILN_FAKE_CUDA_DEVICES", "0")
    with pytest.raises(kiln.NoDeviceError):
        kiln.Runtime(driver=fake_driver)


def test_device_info(fake_runtime):
    info = fake_runtime.device
    assert info.ordinal == 0
    assert info.compute_capability == (9, 0)
    assert info.name and info.multiprocessors > 0


def test_engine_describes_its_tensors(fake_runtime, add_plan):
    engine, _ = engine_of(fake_runtime, add_plan)
    assert engine.inputs == ["a", "b"]
    assert engine.outputs == ["out"]
    by_name = {t.name: t for t in engine.tensors}
    assert by_name["a"].shape == (N,) and by_name["a"].dtype == "float32"
    assert by_name["out"].nbytes == 4 * N and not by_name["out"].is_input
    assert engine.device_memory_size > 0


def test_run_with_numpy_matches_numpy(fake_runtime, add_plan):
    engine, w = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    for seed in range(3):  # buffers are reused between runs
        inputs = random_inputs(seed=seed)
        out = context.run(inputs)["out"]
        np.testing.assert_array_equal(out, (inputs["a"] + w) + inputs["b"])


def test_run_writes_given_numpy_outputs(fake_runtime, add_plan):
    engine, w = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    inputs = random_inputs()
    out = np.zeros(N, np.float32)
    result = context.run(inputs, outputs={"out": out})
    assert result["out"] is out
    np.testing.assert_array_equal(out, (inputs["a"] + w) + inputs["b"])


def test_run_with_device_arrays_binds_them(fake_runtime, add_plan):
    engine, w = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    inputs = random_inputs()
    a = fake_runtime.to_device(inputs["a"])
    out = fake_runtime.empty((N,), np.float32)
    result = context.run({"a": a, "b": inputs["b"]}, outputs={"out": out}, stream=0)
    assert result["out"] is out
    np.testing.assert_array_equal(out.numpy(), (inputs["a"] + w) + inputs["b"])


def test_enqueue_dlpack_tensors(fake_runtime, add_plan):
    engine, w = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    inputs = random_inputs()
    bound = {name: fake_runtime.to_device(x) for name, x in inputs.items()}
    bound["out"] = fake_runtime.empty((N,), "float32")
    context.enqueue(bound, stream=0)
    fake_runtime.synchronize(0)
    np.testing.assert_array_equal(bound["out"].numpy(), (inputs["a"] + w) + inputs["b"])


def test_cuda_graphs_give_the_same_results(fake_runtime, add_plan):
    engine, w = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    context.cuda_graphs = True
    assert context.cuda_graphs
    for seed in range(2):
        inputs = random_inputs(seed=seed)
        np.testing.assert_array_equal(
            context.run(inputs)["out"], (inputs["a"] + w) + inputs["b"]
        )


@pytest.mark.parametrize(
    "change, error, words",
    [
        (lambda i: i.update(a=i["a"].astype(np.float64)), kiln.InvalidArgumentError, "float64"),
        (lambda i: i.update(a=i["a"][:-1]), kiln.InvalidArgumentError, "has shape (999,)"),
        (lambda i: i.pop("b"), kiln.InvalidArgumentError, "no value for input 'b'"),
        (lambda i: i.update(c=i["a"]), kiln.NotFoundError, "no tensor named 'c'"),
        (lambda i: i.update(out=i["a"]), kiln.InvalidArgumentError, "is an output"),
        (lambda i: i.update(a="text"), kiln.InvalidArgumentError, "tensor 'a'"),
    ],
)
def test_bad_bindings_are_clear_errors(fake_runtime, add_plan, change, error, words):
    engine, _ = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    inputs = random_inputs()
    change(inputs)
    with pytest.raises(error) as raised:
        context.run(inputs)
    assert words in str(raised.value)


def test_bad_dlpack_bindings_are_clear_errors(fake_runtime, add_plan):
    engine, _ = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    with pytest.raises(kiln.InvalidArgumentError, match=r"tensor 'a'.*shape \(1001,\)"):
        context.enqueue({"a": fake_runtime.empty((N + 1,), "float32")})
    with pytest.raises(kiln.InvalidArgumentError, match=r"tensor 'b'.*int32"):
        context.enqueue({"b": fake_runtime.empty((N,), "int32")})
    with pytest.raises(kiln.InvalidArgumentError, match="must be a CUDA DLPack tensor"):
        context.enqueue({"a": np.zeros(N, np.float32)})

    class HostTensor:  # a DLPack producer on the CPU
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("not reached")

    with pytest.raises(kiln.InvalidArgumentError, match="must be a CUDA DLPack tensor"):
        context.enqueue({"a": HostTensor()})

    class OtherDevice:  # a CUDA tensor of another device
        def __dlpack_device__(self):
            return (2, 3)

        def __dlpack__(self, stream=None):
            raise AssertionError("not reached")

    with pytest.raises(kiln.InvalidArgumentError, match="on CUDA device 3, the runtime on device 0"):
        context.enqueue({"a": OtherDevice()})


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_damaged_plans_are_refused(fake_runtime, add_plan, damage):
    plan, _ = add_plan(N)
    if damage == "truncate":
        plan = plan[: len(plan) // 2]
    elif damage == "flip":
        data = bytearray(plan)
        data[len(data) // 2] ^= 0x40
        plan = bytes(data)
    else:
        plan = b""
    with pytest.raises((kiln.InvalidPlanError, kiln.InvalidArgumentError)):
        fake_runtime.deserialize(plan)


def test_load_reads_a_plan_file(fake_runtime, add_plan, tmp_path):
    plan, w = add_plan(N)
    (tmp_path / "x.kplan").write_bytes(plan)
    engine = fake_runtime.load(tmp_path / "x.kplan")
    inputs = random_inputs()
    out = engine.create_execution_context().run(inputs)["out"]
    np.testing.assert_array_equal(out, (inputs["a"] + w) + inputs["b"])


def test_objects_keep_what_they_came_from_alive(fake_driver, monkeypatch, add_plan):
    fake = fake_driver
    runtime = kiln.Runtime(driver=fake)
    engine, w = engine_of(runtime, add_plan)
    context = engine.create_execution_context()
    array = runtime.empty((N,), "float32")
    del runtime, engine
    gc.collect()
    inputs = random_inputs()
    context.run(inputs, outputs={"out": array})
    np.testing.assert_array_equal(array.numpy(), (inputs["a"] + w) + inputs["b"])
    del context, array
    gc.collect()


def test_log_callback_receives_severities(fake_driver, monkeypatch, add_plan):
    fake = fake_driver
    messages = []
    runtime = kiln.Runtime(driver=fake, log=lambda s, m: messages.append((s, m)))
    runtime.deserialize(add_plan(N)[0])
    assert messages, "the runtime logs what it loads"
    assert all(isinstance(s, kiln.Severity) for s, _ in messages)


def test_a_raising_log_callback_does_not_unwind_into_the_runtime(fake_driver, monkeypatch, add_plan):
    fake = fake_driver

    def log(severity, message):
        raise RuntimeError("a bad logger")

    reported = []
    monkeypatch.setattr("sys.unraisablehook", lambda u: reported.append(u.exc_value))
    runtime = kiln.Runtime(driver=fake, log=log)
    engine = runtime.deserialize(add_plan(N)[0])
    assert engine.outputs == ["out"]
    # Reported as unraisable (Python's hook), never unwound through C++.
    assert reported and all(str(e) == "a bad logger" for e in reported)


def test_tensors_left_bound_stay_alive(fake_runtime, add_plan):
    """A tensor bound by an earlier enqueue is kept alive while bound."""
    engine, w = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()
    inputs = random_inputs()
    out = fake_runtime.empty((N,), "float32")
    context.enqueue(
        {"a": fake_runtime.to_device(inputs["a"]), "b": fake_runtime.to_device(inputs["b"]), "out": out},
        0,
    )
    a2 = random_inputs(seed=9)["a"]
    context.enqueue({"a": fake_runtime.to_device(a2)}, 0)  # b's array lives on
    fake_runtime.synchronize(0)
    np.testing.assert_array_equal(out.numpy(), (a2 + w) + inputs["b"])


def test_bindings_changed_by_dlpack_code_do_not_crash(fake_runtime, add_plan):
    engine, _ = engine_of(fake_runtime, add_plan)
    context = engine.create_execution_context()

    class Meddler:  # drops the dict's reference to itself
        def __dlpack_device__(self):
            bindings.clear()
            return (2, 0)

        def __dlpack__(self, stream=None):
            return fake_runtime.empty((N,), "float32").__dlpack__(stream)

    bindings = {"a": Meddler()}
    with pytest.raises(kiln.InvalidArgumentError, match="have no address"):
        context.enqueue(bindings, 0)  # b and out were never bound


def test_odd_arguments_are_clear_errors(fake_runtime, add_plan, tmp_path):
    plan, _ = add_plan(N)
    with pytest.raises(kiln.InvalidArgumentError, match="contiguous buffer"):
        fake_runtime.deserialize(memoryview(plan)[::-1])
    with pytest.raises(kiln.InvalidArgumentError, match="2\\^40 bytes"):
        fake_runtime.empty((2**61,), "float64")
    with pytest.raises(kiln.InvalidArgumentError, match="byte order"):
        fake_runtime.to_device(np.arange(4, dtype=">f4"))
    with pytest.raises(kiln.InvalidArgumentError, match="got None"):
        fake_runtime.empty((4,), None)
    with pytest.raises(kiln.InvalidArgumentError, match="not a dtype"):
        fake_runtime.empty((4,), object())
    with pytest.raises(kiln.InvalidArgumentError, match="stream 0"):
        fake_runtime.empty((4,), "float32").__dlpack__(0)
    with pytest.raises(kiln.DriverUnavailableError, match="'/no/libcuda.so'"):
        kiln.Runtime(driver=b"/no/libcuda.so")


def test_memmap_outputs_are_written(fake_runtime, add_plan, tmp_path):
    engine, w = engine_of(fake_runtime, add_plan)
    inputs = random_inputs()
    out = np.memmap(tmp_path / "out.bin", np.float32, "w+", shape=(N,))
    engine.create_execution_context().run(inputs, outputs={"out": out})
    np.testing.assert_array_equal(out, (inputs["a"] + w) + inputs["b"])
    readonly = np.zeros(N, np.float32)
    readonly.flags.writeable = False
    with pytest.raises(kiln.InvalidArgumentError, match="writable"):
        engine.create_execution_context().run(inputs, outputs={"out": readonly})


def test_plans_with_plugins_need_their_library(fake_runtime, tmp_path):
    """A plugin step (kiln.test::TestClip@2 of the test plugin library, which
    computes on the stand-in's host memory) loads once its library is."""
    import os
    import subprocess

    library = os.environ.get("KILN_TEST_PLUGIN_LIBRARY") or pytest.skip("no test plugin library")
    writer = os.environ.get("KILN_WRITE_TEST_PLAN") or pytest.skip("no plan writer")
    plan = tmp_path / "clip.kplan"
    subprocess.run([writer, "--clip", str(plan), str(N), "-10", "25"], check=True)
    # (The only test that loads it: the registry is the process's.)
    with pytest.raises(kiln.UnsupportedPlanError, match="'TestClip' version '2' namespace 'kiln.test'"):
        fake_runtime.load(plan)
    with pytest.raises(kiln.InvalidArgumentError, match="cannot load it"):
        kiln.load_plugin_library(tmp_path / "missing.so")
    kiln.load_plugin_library(library)
    x = random_inputs()["a"]
    out = fake_runtime.load(plan).create_execution_context().run({"x": x})["out"]
    np.testing.assert_array_equal(out, np.clip(x, -10, 25))


def test_run_takes_any_shape_of_the_profile(fake_runtime, dynamic_add_plan):
    plan, w = dynamic_add_plan
    engine = fake_runtime.deserialize(plan)
    assert engine.num_optimization_profiles == 1
    by_name = {t.name: t for t in engine.tensors}
    assert by_name["a"].shape == (-1, 4)
    assert by_name["out"].nbytes == 64 * 4 * 4  # at the largest shape
    context = engine.create_execution_context()
    rng = np.random.default_rng(3)
    for rows in (1, 7, 8, 33, 64, 7):
        a = rng.standard_normal((rows, 4)).astype(np.float32)
        b = rng.standard_normal((rows, 4)).astype(np.float32)
        out = context.run({"a": a, "b": b})["out"]
        assert out.shape == (rows, 4)
        np.testing.assert_array_equal(out, (a + w[:rows]) + b)
        assert context.get_tensor_shape("out") == (rows, 4)


def test_run_refuses_shapes_outside_the_profile(fake_runtime, dynamic_add_plan):
    plan, _ = dynamic_add_plan
    context = fake_runtime.deserialize(plan).create_execution_context()
    a = np.zeros((65, 4), np.float32)
    with pytest.raises(kiln.InvalidArgumentError, match=r"input 'a' dimension 0 is 65, "
                       r"outside its profile's range \[1, 64\]"):
        context.run({"a": a, "b": a})
    with pytest.raises(kiln.InvalidArgumentError, match=r"the plan computes them as one size"):
        context.run({"a": np.zeros((3, 4), np.float32),
                     "b": np.zeros((5, 4), np.float32)})
    with pytest.raises(kiln.InvalidArgumentError, match=r"has rank 1"):
        context.set_input_shape("a", [12])
    with pytest.raises(kiln.InvalidArgumentError, match=r"profile 1 does not exist"):
        context.optimization_profile = 1
    # Still usable; b keeps the 5 rows set last.
    context.set_input_shape("a", [2, 4])
    with pytest.raises(kiln.InvalidArgumentError, match=r"input 'b' dimension 0 is 5"):
        context.get_tensor_shape("out")
    context.set_input_shape("b", [2, 4])
    assert context.get_tensor_shape("out") == (2, 4)
    ones = np.ones((2, 4), np.float32)
    assert context.run({"a": ones, "b": ones})["out"].shape == (2, 4)


def test_enqueue_refuses_a_bound_output_too_small_for_new_shapes(
    fake_runtime, dynamic_add_plan
):
    plan, w = dynamic_add_plan
    context = fake_runtime.deserialize(plan).create_execution_context()
    rng = np.random.default_rng(4)
    a4, b4 = (rng.standard_normal((4, 4)).astype(np.float32) for _ in range(2))
    out4 = fake_runtime.empty((4, 4), "float32")
    context.enqueue(
        {"a": fake_runtime.to_device(a4), "b": fake_runtime.to_device(b4), "out": out4},
        stream=0,
    )
    fake_runtime.synchronize(0)
    np.testing.assert_array_equal(out4.numpy(), (a4 + w[:4]) + b4)
    # 8 rows into the 4-row output still bound: refused, nothing written.
    a8 = fake_runtime.to_device(np.ones((8, 4), np.float32))
    with pytest.raises(kiln.InvalidArgumentError,
                       match=r"output 'out' of shape 8x4 needs 128 bytes, but "
                       r"its buffer holds 64"):
        context.enqueue({"a": a8, "b": a8}, stream=0)
    np.testing.assert_array_equal(out4.numpy(), (a4 + w[:4]) + b4)
