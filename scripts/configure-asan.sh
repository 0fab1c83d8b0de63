#!/usr/bin/env bash
# Configures (once) the compiler's one sanitizer build: clang-22 with
# AddressSanitizer and UndefinedBehaviorSanitizer at -O1 (the first report
# fails: -fno-sanitize-recover=all), every object also instrumented for
# libFuzzer (-fsanitize=fuzzer-no-link), with the tests and the fuzzers on.
# The same objects serve the compiler's tool tests under the sanitizers
# (scripts/check-sanitizers.sh compiler) and the fuzzers (scripts/fuzz.sh):
# one build instead of a gcc one and a clang one.
# Usage: scripts/configure-asan.sh   (prints the build folder)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KILN_ASAN_BUILD_DIR:-$root/build-asan}"
clangxx="${KILN_ASAN_CXX:-$(command -v clang++-22 || true)}"
clangc="${KILN_ASAN_CC:-$(command -v clang-22 || true)}"
if [ -z "$clangxx" ] || [ -z "$clangc" ]; then
  echo "kiln: clang-22 not found (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  mkdir -p "$build"
  flags="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$clangc" -DCMAKE_CXX_COMPILER="$clangxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DKILN_ENABLE_FUZZERS=ON -DKILN_ENABLE_PYTHON=OFF > "$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; exit 1; }
fi
echo "$build"
