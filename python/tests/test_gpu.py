"""The package on a GPU: plans from gpu_cases.py, run with numpy and DLPack.

Skipped without a GPU or without KILN_GPU_CASES (the folder gpu_cases.py
wrote). Tolerances: the small fp32 model (no TF32) rtol 1e-5 / atol 1e-6
against numpy; the digits plans against the CPU reference executor, 1e-4 of
the largest probability in fp32 and 2e-2 in fp16, every prediction the same,
and the accuracy within 0.5 points of the training script's.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import kiln


@pytest.fixture(scope="module")
def cases():
    folder = os.environ.get("KILN_GPU_CASES")
    if not folder:
        pytest.skip("KILN_GPU_CASES is not set (python/tests/gpu_cases.py writes it)")
    return pathlib.Path(folder)


def small(gpu_runtime, cases):
    engine = gpu_runtime.load(cases / "small.kplan")
    return engine, np.load(cases / "x.npy"), np.load(cases / "y.npy")


def test_run_with_numpy(gpu_runtime, cases):
    engine, x, y = small(gpu_runtime, cases)
    assert engine.inputs == ["x"] and engine.outputs == ["y"]
    out = engine.create_execution_context().run({"x": x})["y"]
    np.testing.assert_allclose(out, y, rtol=1e-5, atol=1e-6)


def test_device_arrays_and_dlpack_export(gpu_runtime, cases):
    engine, x, y = small(gpu_runtime, cases)
    context = engine.create_execution_context()
    dx, dy = gpu_runtime.to_device(x), gpu_runtime.empty(y.shape, np.float32)
    assert context.run({"x": dx}, outputs={"y": dy})["y"] is dy
    np.testing.assert_allclose(dy.numpy(), y, rtol=1e-5, atol=1e-6)
    torch = pytest.importorskip("torch")
    ty = torch.from_dlpack(dy)  # no copy
    assert ty.data_ptr() == dy.ptr and ty.is_cuda
    np.testing.assert_allclose(ty.cpu().numpy(), y, rtol=1e-5, atol=1e-6)


def test_torch_tensors_bind_without_copies(gpu_runtime, cases):
    torch = pytest.importorskip("torch")
    engine, x, y = small(gpu_runtime, cases)
    context = engine.create_execution_context()
    tx = torch.from_numpy(x).cuda()
    ty = torch.full(y.shape, float("nan"), device="cuda")
    context.run({"x": tx}, outputs={"y": ty})
    np.testing.assert_allclose(ty.cpu().numpy(), y, rtol=1e-5, atol=1e-6)

    # enqueue on a torch stream, after torch's own work on it: 2x in, so
    # relu(2x W) = 2 relu(x W) out.
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        doubled = tx * 2
        context.enqueue({"x": doubled, "y": ty}, stream.cuda_stream)
    stream.synchronize()
    np.testing.assert_allclose(ty.cpu().numpy(), 2 * y, rtol=1e-5, atol=1e-6)

    # run() follows torch's current stream, as torch's ops do.
    with torch.cuda.stream(stream):
        tripled = tx * 3
        context.run({"x": tripled}, outputs={"y": ty})
        np.testing.assert_allclose(ty.cpu().numpy(), 3 * y, rtol=1e-5, atol=1e-6)

    # On a stream other than torch's current one, DLPack orders the two.
    other = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    with torch.cuda.stream(stream):
        for _ in range(4):
            big = big @ big.T / 4096  # keep the stream busy
        late = tx * 5 + big[0, 0] * 0
        context.enqueue({"x": late, "y": ty}, other.cuda_stream)
    other.synchronize()
    np.testing.assert_allclose(ty.cpu().numpy(), 5 * y, rtol=1e-4, atol=1e-5)

    with pytest.raises(kiln.InvalidArgumentError, match="tensor 'x'.*float16"):
        context.run({"x": tx.half()})
    with pytest.raises(kiln.InvalidArgumentError, match="not contiguous"):
        context.run({"x": torch.zeros(8, 4, device="cuda").t()})


def test_cuda_graphs_on_a_torch_stream(gpu_runtime, cases):
    torch = pytest.importorskip("torch")
    engine, x, y = small(gpu_runtime, cases)
    context = engine.create_execution_context()
    context.cuda_graphs = True
    tx, ty = torch.from_numpy(x).cuda(), torch.empty(y.shape, device="cuda")
    stream = torch.cuda.Stream()
    for scale in (1, 3, 1):
        with torch.cuda.stream(stream):
            tx.copy_(torch.from_numpy(x * scale).cuda())
            context.enqueue({"x": tx, "y": ty}, stream.cuda_stream)
        stream.synchronize()
        np.testing.assert_allclose(ty.cpu().numpy(), scale * y, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("precision, rtol", [("fp32", 1e-4), ("fp16", 2e-2)])
def test_digits_plans(gpu_runtime, cases, precision, rtol):
    x = np.load(cases / "digits-x.npy")
    labels = np.load(cases / "digits-labels.npy")
    reference = np.load(cases / "digits-reference.npy")
    trained = float(np.load(cases / "digits-accuracy.npy"))
    probs = {}
    for source in ("", "onnx-"):
        engine = gpu_runtime.load(cases / f"digits-{source}{precision}.kplan")
        result = engine.create_execution_context().run({engine.inputs[0]: x})
        probs[source] = result[engine.outputs[0]]
        assert np.abs(probs[source] - reference).max() <= rtol * np.abs(reference).max()
    network, onnx = probs[""].argmax(1), probs["onnx-"].argmax(1)
    assert (network == onnx).all() and (network == reference.argmax(1)).all()
    assert abs(100 * (network == labels).mean() - trained) <= 0.5
