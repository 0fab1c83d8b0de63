#!/usr/bin/env python3
"""Runs the models of scripts/dynamic-models.py on kiln's CPU reference, each
built with its dynamic range (batch 1..64, sequence 1..512), at every shape
of the grid, and prints a table: the largest difference from TensorFlow's
output and from kiln's static build of that shape, each as a fraction of
the output's rms.

    python3 scripts/check-dynamic-models.py DIR [--kiln-bin build/bin]
                                                [--models a,b] [--no-static]

With --corpus test/corpus/small (needs onnxruntime), it first writes into
DIR the committed small corpus's TorchScript exports with their batch and
sequence made symbolic (batch 1..64, sequence 1..128, the length of their
position tables), and ONNX Runtime's outputs at batch 1, 3, 64 x sequence 1,
77, 128; the exports whose graphs fix the shape (dynamo's, GPT-2's) are
listed as such.

Exits non-zero when a run fails or a difference exceeds its bound (1e-5 of
the rms against the static build; 1e-4 against TensorFlow, whose kernels
sum in other orders).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

RANGES = {
    "encoder": ["--shapes", "ids=1x1:8x128:64x512",
                "--shapes", "mask=1x1:8x128:64x512"],
}
CNN_RANGE = ["--max-batch", "64"]


def run(kiln, model, flags, case, out):
    inputs = sorted(f for f in os.listdir(case)
                    if f.endswith(".npy") and not f.startswith("output_"))
    cmd = [os.path.join(kiln, "kiln-run"), model] + flags
    for f in inputs:
        cmd += ["--input", f"{f[:-4]}={os.path.join(case, f)}"]
    cmd += ["--output-dir", out]
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + done.stderr[-2000:])
    return np.load(os.path.join(out, "output_0.npy")), seconds


def corpus_inputs(rng, feeds, batch, seq):
    inputs = {}
    for k, i in enumerate(feeds):
        if k == 0:
            value = rng.integers(0, 1000, (batch, seq))
        else:  # an attention mask, padded at the end
            value = np.ones((batch, seq), np.int64)
            for r in range(batch):
                value[r, max(1, seq - 7 * r):] = 0
        inputs[i.name] = value.astype(np.int64)
    return inputs


def symbolic_corpus(corpus, out):
    """Writes the corpus's exports with symbolic batch and sequence (batch
    only where the graph fixes the sequence: ONNX Runtime refuses another),
    their flags and ONNX Runtime's outputs into `out`; returns the names."""
    import onnx
    import onnxruntime as ort
    names = []
    rng = np.random.default_rng(0)
    for name in sorted(os.listdir(corpus)):
        if not name.endswith("-ts"):
            continue
        for params in (("batch", "seq"), ("batch",)):
            model = onnx.load(os.path.join(corpus, name, "model.onnx"))
            weights = {i.name for i in model.graph.initializer}
            feeds = [i for i in model.graph.input if i.name not in weights]
            length = feeds[0].type.tensor_type.shape.dim[1].dim_value
            for i in feeds:
                for d, param in zip(i.type.tensor_type.shape.dim, params):
                    d.ClearField("dim_value")
                    d.dim_param = param
            for o in model.graph.output:
                for d in o.type.tensor_type.shape.dim:
                    d.ClearField("dim_value")
                    d.dim_param = "d"
            del model.graph.value_info[:]
            path = os.path.join(out, name + ".onnx")
            onnx.save(model, path)
            session = ort.InferenceSession(path)
            seqs = (1, 77, 128) if len(params) == 2 else (length,)
            try:
                session.run(None, corpus_inputs(rng, feeds, 3, seqs[-2 % len(seqs)]))
                break
            except Exception:  # the graph fixes the sequence (or the batch)
                params = ()
        if not params:
            print(f"| {name} | - | the graph fixes its shape (ONNX Runtime "
                  "refuses any other too) | | |", flush=True)
            continue
        low = 1 if len(params) == 2 else length
        with open(os.path.join(out, name + ".flags"), "w") as f:
            f.write(" ".join(f"--shapes {i.name}=1x{low}:1x{length}:64x{length}"
                             for i in feeds))
        for batch in (1, 3, 64):
            for seq in seqs:
                case = os.path.join(out, name, f"{batch}x{seq}")
                os.makedirs(case, exist_ok=True)
                inputs = corpus_inputs(rng, feeds, batch, seq)
                for key, value in inputs.items():
                    np.save(os.path.join(case, key + ".npy"), value)
                y = session.run(None, inputs)[0]
                np.save(os.path.join(case, "output_0.npy"), y)
        names.append(name)
    return names


def static_flags(case):
    flags = []
    for f in sorted(os.listdir(case)):
        if f.endswith(".npy") and not f.startswith("output_"):
            shape = np.load(os.path.join(case, f), mmap_mode="r").shape
            flags += ["--input-shape", f"{f[:-4]}=" + "x".join(map(str, shape))]
    return flags


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--kiln-bin", default="build/bin")
    parser.add_argument("--models",
                        default="encoder,resnet50,mobilenetv2,efficientnetb0")
    parser.add_argument("--no-static", action="store_true")
    parser.add_argument("--corpus")
    args = parser.parse_args()
    print("| model | shape | vs the framework (max abs / rms) | vs static build "
          "| dynamic run (s) |")
    print("|---|---|---|---|---|", flush=True)
    if args.corpus:
        os.makedirs(args.dir, exist_ok=True)
        args.models = ",".join(symbolic_corpus(args.corpus, args.dir))
    bad = 0
    for name in args.models.split(","):
        model = os.path.join(args.dir, name + ".onnx")
        flags = RANGES.get(name, CNN_RANGE)
        if os.path.exists(os.path.join(args.dir, name + ".flags")):
            with open(os.path.join(args.dir, name + ".flags")) as f:
                flags = f.read().split()
        cases = os.path.join(args.dir, name)
        for shape in sorted(os.listdir(cases),
                            key=lambda s: [int(v) for v in s.split("x")]):
            case = os.path.join(cases, shape)
            expected = np.load(os.path.join(case, "output_0.npy"))
            rms = float(np.sqrt(np.mean(expected.astype(np.float64) ** 2)))
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    got, seconds = run(args.kiln_bin, model, flags, case, tmp)
                    vs_tf = float(np.max(np.abs(got - expected))) / rms
                    vs_static = "-"
                    if not args.no_static:
                        os.makedirs(os.path.join(tmp, "s"))
                        fixed, _ = run(args.kiln_bin, model,
                                       static_flags(case), case,
                                       os.path.join(tmp, "s"))
                        d = float(np.max(np.abs(got - fixed))) / rms
                        vs_static = f"{d:.1e}"
                        bad += d > 1e-5
                    bad += not vs_tf <= 1e-4
                    print(f"| {name} | {shape} | {vs_tf:.1e} | {vs_static} "
                          f"| {seconds:.1f} |", flush=True)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    bad += 1
                    print(f"| {name} | {shape} | FAILED: "
                          f"{str(e).splitlines()[-1][:200]} | | |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
