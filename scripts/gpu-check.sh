#!/usr/bin/env bash
# Checks and times kiln on the GPU machine in one go (see docs/build-and-test.md):
#   scripts/gpu-check.sh OUT [conformance|models|corpus|all]
# KILN_SKIP_NEWER=1 leaves out the onnx 1.23.2 suite (the slowest part);
# KILN_CORPUS_ONLY=net,... and KILN_CORPUS_SMALL_ONLY=1 shorten the corpus.
# Expects the self-contained tools (scripts/pack-for-gpu.sh) unpacked under
# .carry/: bin/ (kiln-run, kiln-conformance, kiln-runtime-tests, ...),
# plans/ (plans compiled here) and data/ (ONNX backend test cases).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: gpu-check.sh OUT [conformance|models|corpus|all]}"
what="${2:-all}"
carry="$root/.carry"
bin="$carry/bin"
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}"
cd "$carry"
for f in *.tar.xz; do [ -f "$f" ] && tar xJf "$f"; done
cd "$root"

echo "== device"; "$bin/kiln-device-info"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true

if [ "$what" = all ] || [ "$what" = models ]; then
  echo "== runtime tests that need the GPU (the fake-driver ones run in CI)"
  "$bin/kiln-runtime-tests" --gtest_filter='Gpu*:SystemDriver*' 2>&1 | tail -3
  echo "== kiln-run-plan: runtime only (no LLVM/MLIR)"
  ls -la "$bin/kiln-run-plan"; ldd "$bin/kiln-run-plan" | awk '{print $1}' | tr '\n' ' '; echo
  mkdir -p "$out/runplan"
  "$bin/kiln-run-plan" "$carry/plans/small.kplan" --seed 3 --output-dir "$out/runplan" | tail -3
  "$bin/kiln-run-plan" "$carry/plans/small.kplan" --seed 3 --reference-dir "$out/runplan" \
    --warmup 2 --iterations 10 --profile 5
  sanitizer=/usr/local/cuda/bin/compute-sanitizer
  [ -x "$sanitizer" ] || sanitizer=/usr/local/cuda-13.0/bin/compute-sanitizer
  if [ -x "$sanitizer" ]; then
    for plan in lenet5_b64 resnet_block_b1 transformer_layer_b1 small; do
      for tool in memcheck racecheck synccheck initcheck; do
        echo "== compute-sanitizer --tool $tool kiln-run-plan $plan"
        "$sanitizer" --tool "$tool" --error-exitcode 9 "$bin/kiln-run-plan" \
          "$carry/plans/$plan.kplan" --iterations 2 --warmup 1 2>&1 | tail -1
        echo "exit ${PIPESTATUS[0]}"
      done
    done
  fi
  echo "== the runtime's example application"
  "$bin/kiln-run-plan-example" "$carry/plans/small.kplan"
  echo "== test/Target/Plan/run-on-gpu.test, by hand (no lit here)"
  "$bin/kiln-run" test/Target/Plan/plan.mlir --backend=gpu --check-reference --seed 7 | grep -c "vs reference backend: match"
  "$bin/kiln-run" "$carry/plans/small.kplan" --warmup 2 --iterations 10 --profile 5

  echo "== PyTorch eager baseline (same weights)"
  python3 benchmarks/torch_baseline.py --iterations 500 --warmup 50 \
    --save-io "$out/torchio" 2>&1 | tee "$out/torch.txt"

  python3 examples/gen_examples.py --batch 64 --out "$out"
  for net in lenet5 resnet_block; do
    for b in 1 64; do
      model="examples/$net.mlir"; [ "$b" = 1 ] || model="$out/${net}_b$b.mlir"
      plan="$carry/plans/${net}_b$b.kplan"
      echo "== $net batch $b: compiled on this machine, against the CPU reference"
      "$bin/kiln-run" "$model" --backend=gpu --check-reference 2>&1 | tail -4
      echo "== $net batch $b: plan compiled on the build machine, against PyTorch, timed (kiln-run-plan)"
      input_name=$([ $net = lenet5 ] && echo data || echo input)
      "$bin/kiln-run-plan" "$plan" --input "$input_name=$out/torchio/${net}_b$b/input_0.npy" \
        --reference-dir "$out/torchio/${net}_b$b" --warmup 50 --iterations 500 \
        --profile 50 2>&1 |
        tee "$out/kiln_${net}_b$b.txt"
    done
  done

  echo "== transformer layer: compiled on this machine, against the CPU reference"
  "$bin/kiln-run" examples/transformer_layer.mlir --backend=gpu --check-reference 2>&1 | tail -3
  # The reference stays f32: the tolerances are relative to each output's
  # magnitude (--atol 0), 5e-2 for fp16 and 1e-1 for bf16.
  for net in lenet5 resnet_block inception_block mobilenet_block transformer_layer; do
    for p in "--fp16 --rtol=5e-2" "--bf16 --rtol=1e-1"; do
      for level in 2 3; do
        echo "== $net $p --opt-level=$level: against the CPU reference in f32"
        "$bin/kiln-run" "examples/$net.mlir" --backend=gpu --check-reference $p --atol=0 \
          --opt-level=$level 2>&1 | tail -1
      done
    done
  done
  for net in resnet_block transformer_layer; do
    echo "== concurrency: $net, 8 threads x 8 contexts of one engine, 10,000 enqueues a thread"
    "$bin/kiln-run-plan" "$carry/plans/${net}_b1.kplan" --threads 8 --contexts 8 --runs 10000 2>&1 | tail -4
  done

  echo "== a plan without code for this GPU"
  "$bin/kiln-run" "$carry/plans/lenet5_sm100.kplan" 2>&1 | tail -2
  echo "== a plan with code for sm_80 only (PTX compute_80 is JIT-compiled here)"
  "$bin/kiln-run" "$carry/plans/lenet5_sm80.kplan" 2>&1 | tail -2
fi

if [ "$what" = all ] || [ "$what" = conformance ]; then
  echo "== kiln-conformance --backend=gpu"
  "$bin/kiln-conformance" --backend=gpu -j 16 --timeout 120 \
    "$carry/data/node" "$carry/data/simple" "$carry/data/pytorch-operator" \
    "$carry/data/pytorch-converted" \
    --baseline=test/conformance/reference-baseline.txt \
    --json="$out/gpu-conformance.json" > "$out/gpu-conformance.txt" 2>&1
  echo "exit $?"
  grep -E "REGRESSION|^FAIL" "$out/gpu-conformance.txt" | head -40
  tail -2 "$out/gpu-conformance.txt"
  echo "== the matrix-product and convolution cases through cuBLASLt (--cublaslt-min-flops=0)"
  "$bin/kiln-conformance" --backend=gpu -j 16 --timeout 120 --cublaslt-min-flops=0 \
    $(ls -d "$carry"/data/*/*[Mm]at[Mm]ul* "$carry"/data/*/*[Gg]emm* "$carry"/data/*/*[Ll]inear* "$carry"/data/*/*[Cc]onv* \
            "$carry"/data/*/*einsum* "$carry"/data/*/*attention* 2>/dev/null | sort -u) \
    > "$out/gpu-conformance-cublaslt.txt" 2>&1
  echo "exit $?"
  grep -E "^FAIL" "$out/gpu-conformance-cublaslt.txt" | head -20
  tail -1 "$out/gpu-conformance-cublaslt.txt"
  if [ -z "${KILN_SKIP_NEWER:-}" ]; then
  echo "== kiln-conformance --backend=gpu, the node cases of onnx 1.23.2"
  "$bin/kiln-conformance" --backend=gpu -j 16 --timeout 120 \
    "$carry/onnx-node-1.23.2/node" \
    --baseline=test/conformance/reference-baseline-onnx-1.23.2.txt \
    --json="$out/gpu-conformance-onnx-1.23.2.json" > "$out/gpu-conformance-onnx-1.23.2.txt" 2>&1
  echo "exit $?"
  grep -E "REGRESSION|^FAIL" "$out/gpu-conformance-onnx-1.23.2.txt" | head -40
  tail -1 "$out/gpu-conformance-onnx-1.23.2.txt"
  fi
  echo "== convolution and pooling cases channels last (--opt-level=3, test/Reference/channels-last.test)"
  "$bin/kiln-conformance" --backend=gpu --opt-level=3 -j 16 "$carry"/data/node/test_*conv* \
    "$carry"/data/node/test_*pool* "$carry"/data/pytorch-converted/test_*Conv* \
    "$carry"/data/pytorch-converted/test_*Pool* 2>&1 | tail -1
  echo "== CumSum and edge cases (test/Reference/*.test) on the GPU"
  "$bin/kiln-conformance" --backend=gpu "$carry/refcases_cumsum" "$carry/refcases_edge" 2>&1 | tail -4
  echo "== float8, float4 and sub-byte integer casts (test/Reference/small-types.test) on the GPU"
  python3 test/Reference/Inputs/make_small_type_cases.py "$out/small-types" > /dev/null
  "$bin/kiln-conformance" --backend=gpu -j 16 "$out/small-types" 2>&1 | grep -Ev "^PASS"
  echo "== aliasing and view cases (test/Target/Plan/gpu-cases.test) on the GPU"
  python3 test/Target/Plan/Inputs/make_gpu_cases.py "$out/cases" > /dev/null
  "$bin/kiln-conformance" --backend=gpu -j 16 "$out/cases" 2>&1 | grep -Ev "^PASS"
fi

if [ "$what" = all ] || [ "$what" = corpus ]; then
  echo "== the corpus of exported networks (scripts/export-corpus.py)"
  corpus=/tmp/kiln-corpus
  rm -rf "$corpus" "$corpus-small"
  python3 scripts/export-corpus.py "$corpus-small" --small > "$out/export-small.log" 2>&1
  python3 scripts/export-corpus.py "$corpus" ${KILN_CORPUS_ONLY:+--only $KILN_CORPUS_ONLY} \
    > "$out/export.log" 2>&1
  grep -h '"network"' "$out/export-small.log" "$out/export.log" | cut -c1-300
  # Skeletons of the full-size exports (scripts/corpus-skeleton.py) come
  # back, so that they can be imported and timed on the build machine.
  for m in "$corpus"/*/model.onnx; do
    python3 scripts/corpus-skeleton.py strip "$m" "${m%.onnx}.skeleton.onnx" 2> /dev/null
  done
  scripts/run-corpus.sh "$corpus-small" "$bin/kiln-run" | tee "$out/corpus-small.md"
  [ -n "${KILN_CORPUS_SMALL_ONLY:-}" ] ||
    timeout "${KILN_CORPUS_DEADLINE:-3000}" scripts/run-corpus.sh "$corpus" "$bin/kiln-run" |
    tee "$out/corpus.md"
  # Few files come back from the GPU machine: the logs, the small exports
  # (test cases) and the skeletons travel as one archive.
  (cd /tmp && tar cJf "$out/corpus.tar.xz" kiln-corpus-small \
    kiln-corpus/*/kiln-run.log kiln-corpus/*/export.json \
    kiln-corpus/*/model.skeleton.onnx 2> /dev/null)
  ls -la "$out"
fi
