#!/usr/bin/env python3
"""PyTorch eager timings of the example networks, for docs/benchmarks.md.

Builds LeNet-5 and the ResNet block of examples/gen_examples.py in PyTorch
with the very same weights (the generator's blobs), checks that the result
matches kiln's reference semantics on one input (softmax rows sum to 1, the
block's logits are finite), and times eager fp32 inference on the GPU: CUDA
events around each call (GPU time) and wall time of call + synchronize (host
time), median/min/p99 of --iterations runs after --warmup runs.

  python3 benchmarks/torch_baseline.py [--iterations 200] [--warmup 20]
  [--save-io DIR]   also write each network's input and output as
                    DIR/NAME_bN/input_0.npy and output_0.npy, for
                    kiln-run --input ... --reference-dir DIR/NAME_bN

Needs torch with CUDA and numpy (on the GPU machine; not a CI dependency).
"""

import argparse
import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import gen_examples  # noqa: E402


def blobs(net):
    return {name: np.frombuffer(data, dtype="<f4").copy() for name, data in net.blobs}


def lenet(batch, dev):
    with tempfile.TemporaryDirectory() as tmp:
        w = blobs(gen_examples.lenet5(batch, tmp))
    t = {k: torch.from_numpy(v).to(dev) for k, v in w.items()}

    def run(x):
        x = x * t["scale.scale"][0]
        x = F.conv2d(x, t["conv1.filter"].view(20, 1, 5, 5), t["conv1.bias"])
        x = F.max_pool2d(x, 2, 2)
        x = F.conv2d(x, t["conv2.filter"].view(50, 20, 5, 5), t["conv2.bias"])
        x = F.max_pool2d(x, 2, 2)
        x = F.linear(x.flatten(1), t["ip1.filter"].view(500, 800), t["ip1.bias"])
        x = F.relu(x)
        x = F.linear(x, t["ip2.filter"].view(10, 500), t["ip2.bias"])
        return F.softmax(x, dim=1)
    return run, (batch, 1, 28, 28)


def resnet_block(batch, dev):
    c, hw, classes = 16, 16, 10
    with tempfile.TemporaryDirectory() as tmp:
        w = blobs(gen_examples.resnet_block(batch, tmp))
    t = {k: torch.from_numpy(v).to(dev) for k, v in w.items()}

    def bn(x, i):
        p = lambda n: t[f"block.bn{i}.{n}"]  # noqa: E731
        return F.batch_norm(x, p("mean"), p("var"), p("scale"), p("bias"), False, 0.0, 1e-5)

    def run(x):
        y = F.relu(bn(F.conv2d(x, t["block.conv1.weight"].view(c, c, 3, 3), padding=1), 1))
        y = bn(F.conv2d(y, t["block.conv2.weight"].view(c, c, 3, 3), padding=1), 2)
        y = F.relu(y + x)
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return F.linear(y, t["fc.weight"].view(classes, c), t["fc.bias"])
    return run, (batch, c, hw, hw)


def time_it(fn, x, warmup, iterations):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    gpu, host = [], []
    import time
    with torch.inference_mode():
        for i in range(warmup + iterations):
            t0 = time.perf_counter()
            start.record()
            fn(x)
            end.record()
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            if i >= warmup:
                gpu.append(start.elapsed_time(end))
                host.append((t1 - t0) * 1e3)
    q = lambda v, p: float(np.quantile(np.array(v), p, method="higher"))  # noqa: E731
    return [(q(v, 0.5), min(v), q(v, 0.99)) for v in (gpu, host)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--save-io", default="")
    args = ap.parse_args()
    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}, eager fp32, "
          f"{args.iterations} runs after {args.warmup} warmup runs")
    print("| network | batch | torch GPU median (ms) | min | p99 | torch host median (ms) |")
    print("|---|---|---|---|---|---|")
    for name, build in (("lenet5", lenet), ("resnet_block", resnet_block)):
        for batch in (1, 64):
            fn, shape = build(batch, dev)
            x = torch.rand(shape, device=dev) * 2 - 1
            with torch.inference_mode():
                y = fn(x)
            if name == "lenet5":
                assert torch.allclose(y.sum(1), torch.ones(batch, device=dev), atol=1e-5)
            assert torch.isfinite(y).all()
            if args.save_io:
                # kiln-run --input data=.../input_0.npy --reference-dir ...
                d = os.path.join(args.save_io, f"{name}_b{batch}")
                os.makedirs(d, exist_ok=True)
                np.save(os.path.join(d, "input_0.npy"), x.cpu().numpy())
                np.save(os.path.join(d, "output_0.npy"), y.cpu().numpy())
            (g, gmin, g99), (h, _, _) = time_it(fn, x, args.warmup, args.iterations)
            print(f"| {name} | {batch} | {g:.4f} | {gmin:.4f} | {g99:.4f} | {h:.4f} |")


if __name__ == "__main__":
    main()
