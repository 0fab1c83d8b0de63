#!/usr/bin/env bash
# The main job: build kiln, compile an example network (default: the LeNet-5
# of the TensorRT guide, examples/lenet5.mlir, weights made by
# examples/gen_examples.py) to a plan bundle, show the plan, and run it on the
# GPU, checked against the CPU reference backend, with a timing table. Without
# a GPU it says so and runs the CPU reference backend instead.
# Usage: scripts/run-example.sh [examples/NAME.mlir | model.onnx]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
model="${1:-$root/examples/lenet5.mlir}"
name="$(basename "${model%.*}")"
plan="$build/plans/$name.kplan"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" kiln-compile kiln-run kiln-plan-info kiln-device-info
mkdir -p "$build/plans"

echo "== kiln-compile $model -o $plan"
"$build/bin/kiln-compile" "$model" -o "$plan"
"$build/bin/kiln-plan-info" "$plan"

echo "== GPU"
if "$build/bin/kiln-device-info"; then
  echo "== kiln-run $model --backend=gpu --check-reference"
  "$build/bin/kiln-run" "$model" --backend=gpu --check-reference
  echo "== kiln-run $plan --iterations 200"
  "$build/bin/kiln-run" "$plan" --warmup 20 --iterations 200
else
  echo "(no GPU here: the plan above runs where there is one; running the CPU reference backend instead)"
  echo "== kiln-run $model"
  "$build/bin/kiln-run" "$model"
fi
