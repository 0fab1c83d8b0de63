#!/usr/bin/env bash
#===- scripts/check-runtime-sanitizers.sh - the runtime under sanitizers ---===#
#
# Builds the runtime project alone (runtime/: no LLVM or MLIR) twice, each in
# its own folder under ${KILN_SANITIZER_BUILD_DIR:-build-sanitizers}:
#   asan-ubsan  -fsanitize=address,undefined -fno-sanitize-recover=all, with
#               LeakSanitizer on (and libstdc++'s assertions)
#   tsan        -fsanitize=thread
# and runs every test of the runtime and its tooling (ctest) under each. The
# flags are the whole project's, so the stand-in driver the tests dlopen
# (runtime/test/FakeCudaDriver.c) and the tools they start (kiln-plan-info,
# kiln-run-plan) are instrumented too, and ThreadSanitizer sees the stand-in
# driver's locks. The first sanitizer report ends its process with an error,
# which fails its test and this script.
#
#   scripts/check-runtime-sanitizers.sh            # both
#   scripts/check-runtime-sanitizers.sh tsan       # one of them
#
# Environment: KILN_SANITIZER_BUILD_DIR (default <repo>/build-sanitizers),
# KILN_SANITIZER_JOBS (build and test jobs, default 2), CC and CXX (default
# gcc and g++, whose sanitizer runtimes scripts/install-deps.sh installs).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${KILN_SANITIZER_BUILD_DIR:-$root/build-sanitizers}
jobs=${KILN_SANITIZER_JOBS:-2}
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(asan-ubsan tsan)

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
launcher=()
command -v ccache > /dev/null &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
            -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

# Reports end the process with a failing status; leaks are reports too.
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

for config in "${configs[@]}"; do
  case $config in
  asan-ubsan)
    flags="-fsanitize=address,undefined -fno-sanitize-recover=all -D_GLIBCXX_ASSERTIONS"
    ;;
  tsan)
    flags="-fsanitize=thread"
    ;;
  *)
    echo "check-runtime-sanitizers: unknown configuration '$config' (asan-ubsan, tsan)" >&2
    exit 2
    ;;
  esac
  # Debug (-O0 -g): a third of -O2's compile time, and the reports' stacks
  # are exact.
  flags="$flags -fno-omit-frame-pointer"
  build=$base/$config
  mkdir -p "$base"
  start=$(date +%s)
  echo "== $config: configuring and building $build"
  cmake "${generator[@]}" -S "$root/runtime" -B "$build" \
    -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER="${CC:-gcc}" -DCMAKE_CXX_COMPILER="${CXX:-g++}" \
    "${launcher[@]}" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
    > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
  cmake --build "$build" -j "$jobs"
  echo "== $config: testing"
  ctest --test-dir "$build" -j "$jobs" --output-on-failure --stop-on-failure
  echo "== $config: clean in $(($(date +%s) - start)) s"
done
