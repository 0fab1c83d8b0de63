"""Fixtures of the kiln package's tests.

ctest runs them with the package built under build/python (PYTHONPATH) and
these variables: KILN_FAKE_CUDA (the stand-in driver, runtime/test/
FakeCudaDriver.c: device memory is host memory and its fake_add_f32 kernel
really adds), KILN_WRITE_TEST_PLAN (writes a plan of that kernel),
KILN_COMPILE (kiln-compile) and KILN_SOURCE_DIR. Tests that need one of them,
or a GPU, are skipped without it.
"""

from __future__ import annotations

import faulthandler
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import kiln


# No test may hang: one that runs past this many seconds prints every
# thread's stack and ends the process with a failure (a hang in native code
# holds the GIL, so a Python-level timeout could never fire). ctest's own
# limit on the whole run is the second line of defence.
TEST_TIMEOUT_S = float(os.environ.get("KILN_TEST_TIMEOUT", "120"))


@pytest.fixture(autouse=True)
def _time_limit(request):
    faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set (ctest sets it)")
    return value


@pytest.fixture
def fake_driver(monkeypatch) -> str:
    """The stand-in driver's path, set to report one device."""
    monkeypatch.setenv("KILN_FAKE_CUDA_DEVICES", "1")
    return _env("KILN_FAKE_CUDA")


@pytest.fixture
def fake_runtime(fake_driver):
    """A runtime on the stand-in driver with one device."""
    return kiln.Runtime(driver=fake_driver)


@pytest.fixture
def add_plan(tmp_path):
    """A function n -> (plan bytes, w): out = (a + w) + b over n floats."""

    def make(n: int, seed: int = 0):
        w = np.random.default_rng(seed).uniform(-100, 100, n).astype(np.float32)
        weights = tmp_path / f"w{n}.f32"
        w.tofile(weights)
        plan = tmp_path / f"add{n}.kplan"
        subprocess.run(
            [_env("KILN_WRITE_TEST_PLAN"), str(plan), str(n), str(weights)], check=True
        )
        return plan.read_bytes(), w

    return make


@pytest.fixture
def source_dir() -> pathlib.Path:
    return pathlib.Path(_env("KILN_SOURCE_DIR"))


@pytest.fixture(scope="session")
def gpu_runtime():
    """A runtime on the real driver; skips without a GPU."""
    try:
        return kiln.Runtime()
    except (kiln.DriverUnavailableError, kiln.NoDeviceError) as error:
        pytest.skip(f"no GPU: {error}")


@pytest.fixture
def dynamic_add_plan(tmp_path):
    """(plan bytes, w): out = (a + w) + b over ?x4 floats, 1 to 64 rows (run-time
    shapes, plan format 1.4)."""
    w = np.random.default_rng(5).uniform(-100, 100, (64, 4)).astype(np.float32)
    weights = tmp_path / "w-dynamic.f32"
    w.tofile(weights)
    plan = tmp_path / "dynamic-add.kplan"
    subprocess.run(
        [_env("KILN_WRITE_TEST_PLAN"), "--dynamic", str(plan), "64", str(weights)],
        check=True,
    )
    return plan.read_bytes(), w
