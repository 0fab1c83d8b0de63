#!/usr/bin/env bash
# Runs every exported network of a corpus (scripts/export-corpus.py) with
# kiln-run on the GPU against PyTorch's outputs, and prints a table:
#   scripts/run-corpus.sh CORPUS [KILN_RUN] > table.md
# Each row: network, exporter, opset, IR version, ONNX nodes, seconds kiln
# took (import, compile, run), and the result: match, the mismatch, or the
# first error kiln reported.
set -uo pipefail
corpus="${1:?usage: run-corpus.sh CORPUS [KILN_RUN]}"
run="${2:-kiln-run}"
echo "| network | exporter | opset | IR | nodes | kiln s | result |"
echo "|---|---|---|---|---|---|---|"
for d in "$corpus"/*/; do
  d=${d%/}
  [ -f "$d/export.json" ] || continue
  info=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['network'], r['exporter'], r.get('opset','-'), r.get('ir_version','-'), r.get('nodes','-'), ' '.join(r.get('inputs',[])), r.get('error','').replace('|','/')[:120])" "$d/export.json")
  read -r net exporter opset ir nodes rest <<< "$info"
  if [ ! -f "$d/model.onnx" ] || [ "$opset" = - ]; then
    echo "| $net | $exporter | - | - | - | - | export failed: ${rest} |"
    continue
  fi
  inputs=()
  k=0
  for name in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['inputs']))" "$d/export.json"); do
    inputs+=(--input "$name=$d/input_$k.npy")
    k=$((k + 1))
  done
  start=$(date +%s.%N)
  log=$(timeout "${KILN_CORPUS_TIMEOUT:-300}" "$run" "$d/model.onnx" --backend=gpu "${inputs[@]}" --reference-dir "$d" 2>&1)
  status=$?
  secs=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)")
  echo "$log" > "$d/kiln-run.log"
  if [ $status -eq 0 ]; then
    result="match"
  else
    result=$(echo "$log" | grep -E "differ|error" | head -1 | cut -c1-220 | tr '|' '/')
  fi
  echo "| $net | $exporter | $opset | $ir | $nodes | $secs | $result |"
done
