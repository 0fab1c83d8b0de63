#!/usr/bin/env bash
# Builds the compiler tools self-contained (-DKILN_STATIC_LLVM=ON) into
# ${KILN_STATIC_BUILD_DIR:-build-static} and checks that they need no LLVM or
# MLIR shared library, so they can run on the GPU machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KILN_STATIC_BUILD_DIR:-$root/build-static}"

KILN_BUILD_DIR="$build" \
KILN_CMAKE_ARGS="-DKILN_STATIC_LLVM=ON -DKILN_ENABLE_TESTS=OFF" \
  "$root/scripts/build.sh" kiln-opt

tool="$build/bin/kiln-opt"
if ldd "$tool" | grep -E 'libLLVM|libMLIR'; then
  echo "kiln: $tool still needs a shared LLVM/MLIR library" >&2
  exit 1
fi
# It must also work: run the default pipeline on an example.
"$tool" "$root/examples/resnet_block.mlir" --kiln-optimize \
  --mlir-elide-resource-strings-if-larger=16 | grep -q 'kiln.fully_connected'
echo "kiln: $tool is self-contained ($(du -h "$tool" | cut -f1)): $(ldd "$tool" | awk '{print $1}' | tr '\n' ' ')"
