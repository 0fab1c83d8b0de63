#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on the GPU machine into .carry/ (an
# ignored folder the device call carries): the self-contained tools from
# build-static (build them with
#   KILN_BUILD_DIR=build-static KILN_CMAKE_ARGS="-DKILN_STATIC_LLVM=ON" scripts/build.sh \
#     kiln-run kiln-conformance kiln-runtime-tests kiln-plan-info \
#     kiln-device-info kiln-run-plan kiln-run-plan-example),
# plans compiled here, and the ONNX backend test cases. xz keeps it under the
# 64 MiB a call carries.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
static="${KILN_STATIC_BUILD_DIR:-$root/build-static}"
carry="$root/.carry"
rm -rf "$carry" && mkdir -p "$carry/bin" "$carry/plans"
for t in kiln-run kiln-conformance kiln-runtime-tests kiln-plan-info \
         kiln-device-info kiln-run-plan kiln-run-plan-example; do
  cp "$static/bin/$t" "$carry/bin/"
  strip "$carry/bin/$t"
done
# A tool that still needs a shared LLVM/MLIR will not start there.
if ldd "$carry"/bin/kiln-* | grep -E 'libLLVM|libMLIR|libonnx|libprotobuf'; then
  mkdir -p "$carry/bin/lib"
fi
for lib in $(ldd "$carry"/bin/kiln-* | awk '/libonnx|libprotobuf/ {print $3}' | sort -u); do
  cp -L "$lib" "$carry/bin/lib/"
done
(cd "$carry" && tar cJf bin.tar.xz bin && rm -rf bin)

gen=$(mktemp -d)
python3 "$root/examples/gen_examples.py" --batch 64 --out "$gen"
compile="$root/build/bin/kiln-compile"
for net in lenet5 resnet_block; do
  "$compile" "$root/examples/$net.mlir" -o "$carry/plans/${net}_b1.kplan"
  "$compile" "$gen/${net}_b64.mlir" -o "$carry/plans/${net}_b64.kplan"
done
"$compile" "$root/examples/transformer_layer.mlir" -o "$carry/plans/transformer_layer_b1.kplan"
"$compile" "$root/examples/lenet5.mlir" --target=sm_100 -o "$carry/plans/lenet5_sm100.kplan"
"$compile" "$root/examples/lenet5.mlir" --target=sm_80 -o "$carry/plans/lenet5_sm80.kplan"
"$compile" "$root/test/Target/Plan/plan.mlir" --no-optimize -o "$carry/plans/small.kplan"
rm -rf "$gen"

data=/usr/share/libonnx-testdata/data
tar cJf "$carry/data.tar.xz" -C "$(dirname $data)" \
  data/node data/simple data/pytorch-operator data/pytorch-converted
# Small cases with expected values computed in Python (protoc is not there).
python3 "$root/test/Reference/Inputs/make_cases.py" "$carry/refcases"
# The newer suite: the node cases of the pinned onnx from PyPI.
python3 "$root/scripts/gen-onnx-node-data.py" "$root/build/onnx-node-1.23.2"
tar cJf "$carry/data-newer.tar.xz" -C "$root/build" onnx-node-1.23.2
du -sh "$carry"/*
