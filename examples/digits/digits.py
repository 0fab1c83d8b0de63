#!/usr/bin/env python3
"""The digits sample in Python: kiln's network API, a plan, the runtime.

Builds the CNN that train.py trained (weights from digits.weights) layer by
layer with kiln.NetworkDefinition, compiles it with kiln.Builder, writes the
plan and loads it back with kiln.Runtime, and classifies the held-out digits
(heldout.bin) on the GPU, or on kiln's CPU reference executor with
--backend=reference (or when there is no GPU). It prints the first digit as
ASCII art with its probability histogram, and the accuracy next to the
training script's. With --onnx FILE it also compiles the ONNX export with
kiln.compile (kiln.run_reference on the reference path) and checks that
every prediction is the same and the probabilities match.

    python3 examples/digits/digits.py [--backend=gpu|reference] [--fp16]
        [--plan digits.kplan] [--onnx examples/digits/digits.onnx]

It needs the kiln package (PYTHONPATH=build/python, or pip install ./python)
and numpy. The file formats are in examples/digits/README.md.
"""

from __future__ import annotations

import argparse
import pathlib
import struct
import sys
import time

import numpy as np

import kiln

HERE = pathlib.Path(__file__).resolve().parent


def read_weights(path):
    """digits.weights (KDW1): the training accuracy and the named tensors."""
    data = pathlib.Path(path).read_bytes()
    if data[:4] != b"KDW1":
        raise SystemExit(f"{path}: not a digits weights file (KDW1)")
    accuracy, count = struct.unpack_from("<fI", data, 4)
    at, tensors = 12, {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", data, at)
        name = data[at + 4 : at + 4 + length].decode()
        at += 4 + length
        (rank,) = struct.unpack_from("<I", data, at)
        dims = struct.unpack_from(f"<{rank}q", data, at + 4)
        at += 4 + 8 * rank
        size = int(np.prod(dims))
        tensors[name] = np.frombuffer(data, "<f4", size, at).reshape(dims)
        at += 4 * size
    if at != len(data):
        raise SystemExit(f"{path}: {len(data) - at} bytes after the tensors")
    return accuracy, tensors


def read_heldout(path):
    """heldout.bin (KDH1): N x 64 pixels (0..16) and N labels."""
    data = pathlib.Path(path).read_bytes()
    if data[:4] != b"KDH1":
        raise SystemExit(f"{path}: not a held-out digits file (KDH1)")
    (n,) = struct.unpack_from("<I", data, 4)
    if len(data) != 8 + 65 * n:
        raise SystemExit(f"{path}: not of its stated size")
    pixels = np.frombuffer(data, np.uint8, 64 * n, 8).reshape(n, 8, 8)
    labels = np.frombuffer(data, np.uint8, n, 8 + 64 * n)
    return pixels, labels


def build_network(tensors, n):
    """input -> conv 3x3 (8 maps, padding 1) -> ReLU -> max pool 2x2 -> fc 10 -> softmax."""
    network = kiln.NetworkDefinition()
    digits = network.add_input("digits", np.float32, (n, 1, 8, 8))
    conv = network.add_convolution(
        digits, 8, (3, 3), tensors["conv.kernel"], tensors["conv.bias"]
    ).set_padding((1, 1))
    relu = network.add_activation(conv.output, kiln.ActivationType.RELU)
    pool = network.add_pooling(relu.output, kiln.PoolingType.MAX, (2, 2))
    fc = network.add_fully_connected(pool.output, 10, tensors["fc.kernel"], tensors["fc.bias"])
    prob = network.add_softmax(fc.output)
    prob.output.name = "prob"
    network.mark_output(prob.output)
    return network


def show(pixels, label, probs):
    for row in pixels:
        print("  " + "".join(" .:-=+*#%@"[min(9, int(p) * 10 // 17)] for p in row))
    print(f"label {label}:")
    for k, p in enumerate(probs):
        print(f"  {k} {p:6.4f} " + "#" * round(float(p) * 40))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["gpu", "reference"])
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--plan", default="digits.kplan")
    parser.add_argument("--weights", default=HERE / "digits.weights")
    parser.add_argument("--heldout", default=HERE / "heldout.bin")
    parser.add_argument("--onnx")
    args = parser.parse_args(argv)

    trained_accuracy, tensors = read_weights(args.weights)
    pixels, labels = read_heldout(args.heldout)
    n = len(labels)
    x = (pixels.astype(np.float32) / 16.0).reshape(n, 1, 8, 8)

    start = time.perf_counter()
    network = build_network(tensors, n)
    builder = kiln.Builder()
    config = kiln.BuilderConfig()
    config.fp16 = args.fp16
    plan = builder.build_serialized_plan(network, config)
    seconds = time.perf_counter() - start
    pathlib.Path(args.plan).write_bytes(plan)
    print(f"built {args.plan} in {seconds:.2f} s ({len(plan)} bytes, "
          f"{'fp16' if args.fp16 else 'fp32'})")

    context = None
    if args.backend != "reference":
        try:
            runtime = kiln.Runtime()
            engine = runtime.load(args.plan)  # the plan as written
            context = engine.create_execution_context()
        except (kiln.DriverUnavailableError, kiln.NoDeviceError) as error:
            if args.backend == "gpu":
                raise SystemExit(f"--backend=gpu: {error}")
    if context is not None:
        probs = context.run({"digits": x})["prob"]
    else:
        (probs,) = builder.run_reference(network, [x])

    show(pixels[0], labels[0], probs[0])
    predicted = probs.argmax(axis=1)
    accuracy = 100.0 * float((predicted == labels).mean())
    close = abs(accuracy - trained_accuracy) <= 0.5
    where = "GPU" if context is not None else "CPU reference"
    print(f"accuracy on {n} held-out digits ({where}): {accuracy:.2f}%; the training "
          f"script's: {trained_accuracy:.2f}% "
          f"({'within 0.5 points' if close else 'MORE than 0.5 points apart'})")
    if not args.onnx:
        return 0 if close else 1

    # The ONNX export, compiled with kiln.compile (or run by kiln.run_reference),
    # on the same backend.
    if context is not None:
        onnx_engine = runtime.deserialize(kiln.compile(args.onnx, fp16=args.fp16))
        onnx_probs = onnx_engine.create_execution_context().run({onnx_engine.inputs[0]: x})
        onnx_probs = onnx_probs[onnx_engine.outputs[0]]
    else:
        (onnx_probs,) = kiln.run_reference(args.onnx, [x])
    same = int((onnx_probs.argmax(axis=1) == predicted).sum())
    rtol = 2e-2 if args.fp16 else 1e-4
    error = float(np.abs(onnx_probs - probs).max())
    match = error <= rtol * float(np.abs(probs).max())
    print(f"{args.onnx}: the same prediction for {same} of {n} digits; probabilities "
          f"{'match' if match else 'differ'} (max difference {error:.2e})")
    return 0 if close and same == n and match else 1


if __name__ == "__main__":
    sys.exit(main())
