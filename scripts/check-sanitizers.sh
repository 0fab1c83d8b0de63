#!/usr/bin/env bash
# The sanitizer jobs of CI:
#   1. the runtime's and the tooling's tests under ASan+UBSan and under TSan
#      (scripts/check-runtime-sanitizers.sh);
#   2. the compiler built with ASan+UBSan (clang at -O1, -fno-sanitize-recover=all:
#      the first report fails; scripts/configure-asan.sh, the build the fuzzers
#      share) into ${KILN_ASAN_BUILD_DIR:-build-asan}, and
#      the compiler's tool tests (every lit test but the whole-suite ones:
#      kiln-opt, kiln-compile, kiln-run, ...) run with those tools, and
#      kiln-conformance over every eighth case of both ONNX suites.
# Usage: scripts/check-sanitizers.sh [runtime|compiler|all]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"

if [ "$what" = all ] || [ "$what" = runtime ]; then
  "$root/scripts/check-runtime-sanitizers.sh"
fi

if [ "$what" = all ] || [ "$what" = compiler ]; then
  build="$("$root/scripts/configure-asan.sh")"
  ninja -C "$build" kiln-opt kiln-compile kiln-run kiln-conformance \
    kiln-run-plan kiln-plan-info kiln-device-info kiln-runtime-tests \
    kiln-tooling-tests kiln-host-tensor-tests kiln-write-test-plan kiln-doc
  # The MLIR/LLVM archives are not instrumented: AddressSanitizer cannot
  # see their std::vector annotations, and LLVM's allocators poison memory
  # in the instrumented inline copies of their code that the uninstrumented
  # ones never unpoison (container overflow and user poisoning are off).
  # Everything else is checked, leaks included.
  export ASAN_OPTIONS="detect_container_overflow=0:allow_user_poisoning=0:detect_leaks=1:halt_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # The whole-suite tests (every ONNX backend case, the corpus) run in the
  # main test job; under the sanitizers, which slow the compiler several
  # times, an eighth of each suite's cases run instead (below).
  echo "== the compiler's tool tests under ASan+UBSan"
  /usr/lib/llvm-22/bin/lit -sv "$build/test" \
    --filter-out 'onnx-backend-tests|onnx-newer-backend-tests|onnx-backend-plans|fusion-groups-onnx|Reference/corpus\.test|corpus-plans|hostile-corpus|graph-size|Reference/memory-budget'
  echo "== every eighth ONNX backend case under ASan+UBSan (reference and plan)"
  data=/usr/share/libonnx-testdata/data
  mapfile -t debian < <(ls -d "$data"/node/*/ | awk 'NR % 8 == 1')
  "$build/bin/kiln-conformance" "${debian[@]}" \
    --baseline="$root/test/conformance/reference-baseline.txt" | tail -1
  "$build/bin/kiln-conformance" --backend=gpu --compile-only "${debian[@]}" \
    --baseline="$root/test/conformance/reference-baseline.txt" | tail -1
  # The newer suite's cases, where the main test job wrote them.
  newer="${KILN_BUILD_DIR:-$root/build}/onnx-node-1.23.2/node"
  if [ -d "$newer" ]; then
    mapfile -t cases < <(ls -d "$newer"/*/ | awk 'NR % 8 == 1')
    "$build/bin/kiln-conformance" "${cases[@]}" \
      --baseline="$root/test/conformance/reference-baseline-onnx-1.23.2.txt" | tail -1
  fi
fi
