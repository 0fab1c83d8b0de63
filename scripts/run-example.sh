#!/usr/bin/env bash
# The main job: build kiln, run the default optimization pipeline
# (--kiln-optimize) on an example network and print the optimized IR.
# Usage: scripts/run-example.sh [examples/NAME.mlir]   (default: LeNet-5)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
model="${1:-$root/examples/lenet5.mlir}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" kiln-opt kiln-device-info

echo "== kiln-opt --kiln-optimize $model"
# Weights stay in the file's resource section; print them elided.
"$build/bin/kiln-opt" "$model" --kiln-optimize \
  --mlir-elide-resource-strings-if-larger=16

echo "== GPU"
"$build/bin/kiln-device-info" ||
  echo "(no GPU here: code generation and plans arrive with the GPU issue)"
