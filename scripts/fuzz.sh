#!/usr/bin/env bash
# Builds the compiler's libFuzzer targets with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer) in the sanitizer build (scripts/configure-asan.sh,
# ${KILN_ASAN_BUILD_DIR:-build-asan}; ${KILN_FUZZ_BUILD_DIR} overrides) and runs
# each for SECONDS (default 30; hours for a long run), seeded with the test
# corpora and the committed regressions:
#   kiln-fuzz-onnx  ONNX models (binary and text) through the importer and the
#                   graph phase; the hostile corpus's small models are seeds too
#   kiln-fuzz-mlir  kiln IR text through the parser, verifiers and graph phase
# Usage: scripts/fuzz.sh [SECONDS | --smoke] [TARGET...]
# --smoke is CI's run: a fixed seed and a fixed number of inputs per target
# (about 30 s each here), so that it finds the same thing on every machine
# and a red CI is a regression, not a lucky draw. Exploring is for long runs.
# A crash stops the run with exit status 1 and leaves its input in
# $KILN_FUZZ_BUILD_DIR/artifacts; copy it to fuzz/regressions/<target>/ so
# that test/fuzz/regressions.test replays it. The plan reader's fuzzer is
# scripts/fuzz-plan-reader.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KILN_FUZZ_BUILD_DIR:-${KILN_ASAN_BUILD_DIR:-$root/build-asan}}"
seconds="${1:-30}"
shift || true
smoke=0
if [ "$seconds" = --smoke ]; then
  smoke=1
  seconds=300 # a bound only: the runs below end first
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(kiln-fuzz-onnx kiln-fuzz-mlir)
build="$(KILN_ASAN_BUILD_DIR="$build" "$root/scripts/configure-asan.sh")"
ninja -C "$build" "${targets[@]}"

# Seed corpora: the importer's and the dialect's test inputs, small models
# of the ONNX test data, and every regression input.
seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds/kiln-fuzz-onnx" "$seeds/kiln-fuzz-mlir"
cp "$root"/test/Import/Onnx/*.onnxtxt "$root"/test/Import/Onnx/Inputs/*.onnxtxt \
  "$seeds/kiln-fuzz-onnx/"
for f in "$root"/test/Import/Onnx/Inputs/*.txtpb; do
  out="$seeds/kiln-fuzz-onnx/$(basename "$f" .txtpb).onnx"
  # Some of them are TensorProtos, not models: skip what does not encode.
  protoc --encode=onnx.ModelProto -I/usr/include/onnx onnx.proto < "$f" \
    > "$out" 2>/dev/null || rm -f "$out"
done
data=/usr/share/libonnx-testdata/data/node
if [ -d "$data" ]; then
  # sed reads all its input (head would exit early, and the SIGPIPE that
  # kills sort then fails the pipeline under pipefail).
  find "$data" -name model.onnx -size -2k | sort | sed -n 1,200p | while read -r m; do
    cp "$m" "$seeds/kiln-fuzz-onnx/$(basename "$(dirname "$m")").onnx"
  done
fi
# The hostile corpus (scripts/hostile-corpus.py, issue 42): its small
# models, made here (it needs the onnx package, which install-deps.sh
# installs).
if python3 -c "import onnx, numpy" 2> /dev/null; then
  rm -rf "$build/hostile" && python3 "$root/scripts/hostile-corpus.py" "$build/hostile" > /dev/null
  find "$build/hostile" -name '*.onnx' -size -16k -exec cp {} "$seeds/kiln-fuzz-onnx/" \;
fi
python3 - "$root" "$seeds/kiln-fuzz-mlir" <<'PY'
import pathlib, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
n = 0
for f in sorted((root / "test").rglob("*.mlir")):
    for chunk in f.read_text().split("// -----"):
        if 0 < len(chunk) < 65536:
            (out / f"{n:04d}.mlir").write_text(chunk)
            n += 1
PY
for t in "${targets[@]}"; do
  [ -d "$root/fuzz/regressions/$t" ] && cp "$root/fuzz/regressions/$t"/* "$seeds/$t/" 2>/dev/null || true
done

# Instrumented code calls into the uninstrumented MLIR/LLVM archives, whose
# std::vector annotations AddressSanitizer does not see, and whose allocators
# poison memory that only instrumented code would unpoison. The MLIRContext
# keeps every type and attribute it ever uniqued, so each input "leaks" by
# design; libFuzzer's per-input leak check would rerun every input under
# LeakSanitizer (10x slower) for nothing. Leaks are the sanitizer jobs'
# (scripts/check-sanitizers.sh), which check whole tool runs.
export ASAN_OPTIONS="detect_container_overflow=0:allow_user_poisoning=0:detect_leaks=0:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p "$build/artifacts" "$build/corpus"
status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  limits=(-max_total_time="$seconds")
  if [ $smoke = 1 ]; then
    rm -rf "$corpus" && mkdir -p "$corpus"
    case $t in
      kiln-fuzz-onnx) runs=300000 ;;
      *) runs=100000 ;;
    esac
    limits+=(-seed=1 -runs=$runs)
    echo "== $t: $runs inputs, seed 1"
  else
    echo "== $t for $seconds s"
  fi
  # The seeds as a sorted list, not a folder: libFuzzer orders seeds of
  # equal size as it finds them, and a folder lists in a different order on
  # every file system, so a seeded run would differ between machines.
  find "$seeds/$t" -type f | LC_ALL=C sort | paste -sd, > "$build/$t.seeds"
  if ! "$build/bin/$t" "${limits[@]}" -timeout=20 -rss_limit_mb=4096 \
      -max_len="${KILN_FUZZ_MAX_LEN:-16384}" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
      -seed_inputs=@"$build/$t.seeds" "$corpus" > "$build/$t.log" 2>&1; then
    status=1
    echo "kiln: $t found a crash (input in $build/artifacts):" >&2
    grep -E "ERROR|SUMMARY|Test unit written|^ +#[0-9]+ " "$build/$t.log" | head -40 >&2
    # The input itself, escaped: CI's artifacts do not outlive its machine.
    a=$(sed -n 's/.*Test unit written to //p' "$build/$t.log" | tail -1)
    [ -f "$a" ] && python3 -c 'import sys; print(repr(open(sys.argv[1], "rb").read()[:4096]))' "$a" >&2
  fi
  done_runs=$(grep -E "stat::number_of_executed_units" "$build/$t.log" | awk '{print $2}' | tail -1)
  secs=$(grep -E "Done [0-9]+ runs in" "$build/$t.log" | sed -E 's/.* in ([0-9]+) second.*/\1/' | tail -1)
  echo "kiln: $t: ${done_runs:-?} executions in ${secs:-$seconds} s, $(ls "$corpus" | wc -l) inputs in the corpus"
done
exit $status
