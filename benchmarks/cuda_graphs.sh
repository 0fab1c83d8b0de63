#!/usr/bin/env bash
# Launch cost with and without CUDA graphs, on the GPU machine, next to
# PyTorch in the same run (docs/benchmarks.md has the table):
#   benchmarks/cuda_graphs.sh OUT [NET] [BATCH]
# Exports torchvision's NET (default resnet50, random weights) with the
# TorchScript exporter at opset 17, then runs it with the self-contained
# kiln-run (from scripts/pack-for-gpu.sh, unpacked under .carry/bin) on the
# GPU: checked against PyTorch fp32's outputs, profiled per step and timed,
# once with one launch per step and once as one CUDA graph, both at the
# default --opt-level=2 and at 3 (convolutions and pools channels last,
# modes nhwc-steps and nhwc-graph). "launch gaps" is
# the median GPU time of a run less the sum of the steps' median times, per
# step. Then PyTorch fp32 eager and torch.compile(mode="reduce-overhead") on
# the same input, median of the same number of runs.
set -uo pipefail
out=${1:?usage: cuda_graphs.sh OUT [NET] [BATCH]}
net=${2:-resnet50}
batch=${3:-1}
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.carry/bin"
export LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}"
mkdir -p "$out"
model="$out/$net-ts"
python3 - "$out" "$net" "$batch" <<'PY'
import os, sys, numpy as np, torch, torchvision
out, name, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(0)
net = getattr(torchvision.models, name)(weights=None).eval()
x = torch.rand(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1))
d = os.path.join(out, f"{name}-ts")
os.makedirs(d, exist_ok=True)
with torch.no_grad():
    y = net(x)
torch.onnx.export(net, (x,), os.path.join(d, "model.onnx"), dynamo=False,
                  opset_version=17, input_names=["input_0"])
np.save(os.path.join(d, "input_0.npy"), x.numpy())
np.save(os.path.join(d, "output_0.npy"), y.numpy())
PY
for mode in steps graph nhwc-steps nhwc-graph; do
  flag=""; [ "${mode#nhwc-}" = graph ] && flag="--cuda-graphs"
  level=""; [ "${mode%-*}" = nhwc ] && level="--opt-level=3"
  echo "== kiln $net batch $batch, $mode"
  "$bin/kiln-run" "$model/model.onnx" --backend=gpu --input "input_0=$model/input_0.npy" \
    --reference-dir "$model" --atol 0 --warmup 50 --iterations 500 --profile 20 $flag $level \
    > "$out/kiln-$mode.txt" 2>&1
  echo "exit $?"
  grep -E "vs |^\| (GPU|host)|launch gaps|enqueue:|steps, arena" "$out/kiln-$mode.txt"
done
echo "== PyTorch fp32 (TF32 off), same input, median of 500 runs after 50"
python3 - "$net" "$batch" <<'PY'
import sys, torch, torchvision
name, batch = sys.argv[1], int(sys.argv[2])
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(0)
net = getattr(torchvision.models, name)(weights=None).eval().cuda()
x = torch.rand(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1)).cuda()
def median_ms(f, warmup=50, runs=500):
    times = []
    for i in range(warmup + runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); torch.cuda.synchronize()
        if i >= warmup:
            times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]
with torch.no_grad():
    print(f"| torch eager fp32 | {median_ms(lambda: net(x)):.3f} ms |")
    compiled = torch.compile(net, mode="reduce-overhead")
    print(f"| torch.compile reduce-overhead fp32 | {median_ms(lambda: compiled(x)):.3f} ms |")
PY
