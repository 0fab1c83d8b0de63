#!/usr/bin/env bash
# Runs every exported network of a corpus (scripts/export-corpus.py) with
# kiln-run on the GPU against PyTorch's outputs, and prints a table:
#   scripts/run-corpus.sh CORPUS [KILN_RUN] > table.md
# Each row: network, exporter, opset, IR version, ONNX nodes, the plan's
# kernels (steps), seconds kiln took (import, compile, run), the largest
# absolute error against PyTorch, and the result: match, the mismatch, or
# the first error kiln reported. The comparison has atol 0: every element
# must be within rtol (1e-3 for f32) of max(|expected|, rms(expected)), so
# that outputs far below 1 (deep CNNs with random weights) are checked
# relative to their size, not passed by an absolute 1e-5. "output max" is
# the largest magnitude of PyTorch's output. KILN_CORPUS_BACKEND=reference
# runs on the CPU reference instead of the GPU. KILN_CORPUS_FLAGS are more
# kiln-run flags, by default --no-tf32: the check is against PyTorch fp32,
# so products run in full f32 (with TF32, kiln's default, transformers
# differ by up to 3e-3 of their output's magnitude: docs/performance.md).
set -uo pipefail
corpus="${1:?usage: run-corpus.sh CORPUS [KILN_RUN]}"
run="${2:-kiln-run}"
echo "| network | exporter | opset | IR | nodes | kernels | kiln s | output max | max abs error | result |"
echo "|---|---|---|---|---|---:|---:|---:|---:|---|"
for d in "$corpus"/*/; do
  d=${d%/}
  [ -f "$d/export.json" ] || continue
  info=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['network'], r['exporter'], r.get('opset','-'), r.get('ir_version','-'), r.get('nodes','-'), ' '.join(r.get('inputs',[])), r.get('error','').replace('|','/')[:120])" "$d/export.json")
  read -r net exporter opset ir nodes rest <<< "$info"
  if [ ! -f "$d/model.onnx" ] || [ "$opset" = - ]; then
    echo "| $net | $exporter | - | - | - | - | - | - | - | export failed: ${rest} |"
    continue
  fi
  inputs=()
  k=0
  for name in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['inputs']))" "$d/export.json"); do
    inputs+=(--input "$name=$d/input_$k.npy")
    k=$((k + 1))
  done
  start=$(date +%s.%N)
  log=$(timeout "${KILN_CORPUS_TIMEOUT:-300}" "$run" "$d/model.onnx" --backend="${KILN_CORPUS_BACKEND:-gpu}" "${inputs[@]}" --reference-dir "$d" --atol 0 ${KILN_CORPUS_FLAGS---no-tf32} 2>&1)
  status=$?
  secs=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)")
  echo "$log" > "$d/kiln-run.log"
  steps=$(echo "$log" | sed -n 's/.* \([0-9]*\) steps.*/\1/p' | head -1)
  error=$(echo "$log" | sed -n 's/.*max abs error \([^ ,)]*\).*/\1/p' | sort -g | tail -1)
  size=$(echo "$log" | sed -n 's/.*: min \([^,]*\), max \([^,]*\),.*/\1 \2/p' |
    python3 -c "import sys; v=[abs(float(x)) for l in sys.stdin for x in l.split()]; print(f'{max(v):.3g}' if v else '-')")
  if [ $status -eq 0 ]; then
    result="match"
  else
    result=$(echo "$log" | grep -E "differ|error" | head -1 | cut -c1-220 | tr '|' '/')
  fi
  echo "| $net | $exporter | $opset | $ir | $nodes | ${steps:--} | $secs | $size | ${error:--} | $result |"
done
