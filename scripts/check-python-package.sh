#!/usr/bin/env bash
# Installs the Python package as a user would (pip install ./python, into a
# fresh venv that sees the system's numpy, pytest and onnx) and runs its
# tests against the installed copy, not build/python. Needs the build
# (scripts/build.sh) for the stand-in driver and the test tools.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv --system-site-packages "$venv"
KILN_BUILD_DIR="$build" "$venv/bin/pip" install --quiet --disable-pip-version-check "$root/python"
rm -rf "$root/python/build" "$root/python/kiln.egg-info"
cd "$(dirname "$venv")"
"$venv/bin/python" -c 'import kiln, os; assert "site-packages" in kiln.__file__, kiln.__file__; print("kiln: installed", kiln.__file__)'
env -u PYTHONPATH \
  KILN_FAKE_CUDA="$build/lib/libkiln_fake_cuda.so" \
  KILN_WRITE_TEST_PLAN="$build/bin/kiln-write-test-plan" \
  KILN_COMPILE="$build/bin/kiln-compile" \
  KILN_TEST_PLUGIN_LIBRARY="$build/lib/libkiln_test_plugin_library.so" \
  KILN_SOURCE_DIR="$root" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
