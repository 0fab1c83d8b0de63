"""The Python digits sample (examples/digits/digits.py) on the CPU reference.

Its network, built with kiln.NetworkDefinition and run by kiln's reference
executor, is compared with a numpy forward pass of the same weights in
float64 (rtol 1e-5, atol 1e-6); the sample must reach the training script's
accuracy within 0.5 points.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import kiln

pytest.importorskip("kiln._compiler")


@pytest.fixture
def digits(source_dir):
    spec = importlib.util.spec_from_file_location(
        "digits_sample", source_dir / "examples" / "digits" / "digits.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numpy_forward(t, x):
    n = x.shape[0]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((n, 8, 8, 8))
    for i in range(8):
        for j in range(8):
            conv[:, :, i, j] = np.einsum("ncrs,kcrs->nk", xp[:, :, i : i + 3, j : j + 3], t["conv.kernel"])
    conv = np.maximum(conv + t["conv.bias"].reshape(1, 8, 1, 1), 0)
    pool = conv.reshape(n, 8, 4, 2, 4, 2).max(axis=(3, 5)).reshape(n, -1)
    z = pool @ t["fc.kernel"].T.astype(np.float64) + t["fc.bias"]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_the_network_matches_numpy(digits):
    accuracy, tensors = digits.read_weights(digits.HERE / "digits.weights")
    pixels, labels = digits.read_heldout(digits.HERE / "heldout.bin")
    x = (pixels.astype(np.float32) / 16).reshape(-1, 1, 8, 8)
    network = digits.build_network(tensors, len(labels))
    (probs,) = kiln.Builder().run_reference(network, [x])
    np.testing.assert_allclose(probs, numpy_forward(tensors, x), rtol=1e-5, atol=1e-6)
    assert abs(100 * (probs.argmax(axis=1) == labels).mean() - accuracy) <= 0.5


def test_the_sample_runs_on_the_reference(digits, tmp_path, capsys):
    onnx = str(digits.HERE / "digits.onnx")
    args = ["--backend=reference", "--plan", str(tmp_path / "d.kplan"), "--onnx", onnx]
    assert digits.main(args) == 0
    out = capsys.readouterr().out
    assert "within 0.5 points" in out and "label " in out
    assert "the same prediction for 360 of 360 digits; probabilities match" in out
    assert (tmp_path / "d.kplan").stat().st_size > 0
