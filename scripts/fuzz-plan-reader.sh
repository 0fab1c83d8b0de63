#!/usr/bin/env bash
#===- scripts/fuzz-plan-reader.sh - fuzz the plan reader -------------------===#
#
# Builds the runtime project alone with clang and KILN_RUNTIME_FUZZERS=ON in
# its own folder (${KILN_PLAN_FUZZ_BUILD_DIR:-build-fuzz-plan-reader}: not
# scripts/fuzz.sh's build-fuzz, the compiler's fuzzers), writes the seed plans
# (kiln-plan-fuzz-seeds: the runtime tests' plans, written by the current
# writer, and runtime/test/Inputs/*.kplan), and runs kiln-plan-reader-fuzzer
# (runtime/fuzz/PlanReaderFuzzer.cpp: readPlan under AddressSanitizer and
# UndefinedBehaviorSanitizer, and a write/read round trip of whatever it
# accepts) for SECONDS seconds, 30 by default (the CI smoke run).
#
#   scripts/fuzz-plan-reader.sh [SECONDS | --smoke]
#
# --smoke is CI's run: seed 1 and a fixed number of inputs from a fresh
# corpus, the same on every machine, so a failure is a regression and not a
# lucky draw.
#
# The corpus it grows is kept in the build folder (corpus/) and used again by
# the next run; runtime/fuzz/regressions is read too. An input that fails is
# copied to runtime/fuzz/regressions: fix the bug, commit the input with the
# fix, and PlanFuzzRegressions.EveryRegressionInputPasses replays it in every
# test run. Exit status 0 when nothing failed, 1 otherwise.
#
# Environment: KILN_COMPILE (the kiln-compile that writes the hostile
# corpus's plans as seeds; default build/bin/kiln-compile, skipped if absent),
# KILN_PLAN_FUZZ_BUILD_DIR, KILN_PLAN_FUZZ_JOBS (build jobs,
# default 2), KILN_PLAN_FUZZ_CLANG (default clang-22; its clang++ is found
# beside it).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

seconds=${1:-30}
limits=()
if [ "$seconds" = --smoke ]; then
  seconds=300 # a bound only: the runs end first
  limits=(-seed=1 -runs=400000)
fi
case $seconds in
'' | *[!0-9]*)
  echo "usage: $0 [SECONDS]" >&2
  exit 2
  ;;
esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${KILN_PLAN_FUZZ_BUILD_DIR:-$root/build-fuzz-plan-reader}
jobs=${KILN_PLAN_FUZZ_JOBS:-2}
cc=${KILN_PLAN_FUZZ_CLANG:-clang-22}
cxx=${cc/clang/clang++}
for tool in "$cc" "$cxx"; do
  command -v "$tool" > /dev/null || {
    echo "fuzz-plan-reader: $tool not found; install clang-22 and libclang-rt-22-dev" >&2
    exit 1
  }
done

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
launcher=()
command -v ccache > /dev/null &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
            -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

mkdir -p "$build"
cmake "${generator[@]}" -S "$root/runtime" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
  -DKILN_RUNTIME_FUZZERS=ON -DKILN_RUNTIME_ENABLE_TESTS=OFF \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target kiln-plan-reader-fuzzer kiln-plan-fuzz-seeds

seeds=$build/seeds corpus=$build/corpus crashes=$build/crashes
rm -rf "$seeds" "$crashes"
[ ${#limits[@]} -eq 0 ] || rm -rf "$corpus"
mkdir -p "$seeds" "$corpus" "$crashes"
"$build/fuzz/kiln-plan-fuzz-seeds" "$seeds"
cp "$root"/runtime/test/Inputs/*.kplan "$seeds/"
# The hostile corpus's plans (scripts/hostile-corpus.py, issue 42), where a
# kiln-compile is built to write them.
compile=${KILN_COMPILE:-$root/build/bin/kiln-compile}
if [ -x "$compile" ] && python3 -c "import onnx, numpy" 2> /dev/null; then
  rm -rf "$build/hostile" && python3 "$root/scripts/hostile-corpus.py" "$build/hostile" --plans "$compile" > /dev/null
  cp "$build/hostile"/*.kplan "$seeds/"
fi

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
log=$build/fuzz.log
status=0
# New inputs go to the corpus folder. The seeds are passed as a sorted list:
# libFuzzer orders seeds of equal size as it finds them, and a folder lists
# in a different order on every file system, which would make a seeded run
# differ between machines.
find "$seeds" "$root/runtime/fuzz/regressions" -type f | LC_ALL=C sort |
  paste -sd, > "$build/seeds.list"
"$build/fuzz/kiln-plan-reader-fuzzer" -max_total_time="$seconds" "${limits[@]}" \
  -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$crashes/" -seed_inputs=@"$build/seeds.list" "$corpus" \
  > "$log" 2>&1 || status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
found=$(find "$crashes" -type f | wc -l)
if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
  tail -60 "$log"
  for input in "$crashes"/*; do
    [ -f "$input" ] || continue
    cp "$input" "$root/runtime/fuzz/regressions/"
    echo "fuzz-plan-reader: failing input saved as runtime/fuzz/regressions/$(basename "$input")"
  done
  echo "fuzz-plan-reader: FAILED after ${runs:-?} executions (log: $log)" >&2
  exit 1
fi
took=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -1)
echo "fuzz-plan-reader: ${runs:-?} executions in ${took:-$seconds} s, corpus of $(find "$corpus" -type f | wc -l) inputs, nothing failed"
