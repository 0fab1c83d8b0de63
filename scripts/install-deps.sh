#!/usr/bin/env bash
# Installs the Debian packages kiln builds and tests with (skips apt when they
# are all present). Needs root, as on the project's machines.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3 clang-format python3-psutil
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libzstd-dev zlib1g-dev
  libgtest-dev libgmock-dev
  libflatbuffers-dev flatbuffers-compiler
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  clang-22 libclang-rt-22-dev
  python3-dev pybind11-dev libdlpack-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "kiln: all build dependencies are installed"
else
  echo "kiln: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "kiln: need root to apt-get install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Python packages some tests write ONNX models with, and the Python
# package's tests (PyPI, pinned); the python3 first on PATH takes them.
python_packages=(onnx==1.23.2 numpy==2.4.6 pytest==8.3.4)
if ! python3 -c "import onnx, numpy, pytest" 2>/dev/null; then
  echo "kiln: installing ${python_packages[*]} with pip"
  python3 -m pip install --quiet --disable-pip-version-check "${python_packages[@]}"
fi

if [ ! -f /usr/local/cuda/include/cuda.h ] && [ -z "${CUDA_HOME:-}" ]; then
  echo "kiln: warning: no CUDA toolkit headers in /usr/local/cuda; the runtime" \
       "needs cuda.h (set CUDA_HOME)" >&2
fi
