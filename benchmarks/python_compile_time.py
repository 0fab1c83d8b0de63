#!/usr/bin/env python3
"""Benchmark: kiln.compile (in process) against kiln-compile (a process).

Issue 31's goal: kiln.compile on every model of the Python package's tests
returns in at most 2x kiln-compile's time, in the default build (shared
libLLVM.so) and in the static one (-DKILN_STATIC_LLVM=ON). The models are
the tests' own: the small Gemm+activation model (python/tests/test_compile.py,
with each option set the tests use), the digits CNN (examples/digits) at
fp32 and fp16, and the Caffe LeNet (test/Import/Caffe/Inputs). Each is
compiled to a plan both ways, the plans are checked to be byte-identical,
and the table shows the median of --runs timings of each (kiln-compile's
time includes starting the process, as a user sees it).

  python3 benchmarks/python_compile_time.py [BUILD_DIR] [--runs 5]

BUILD_DIR (default build) holds bin/kiln-compile and python/kiln.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def small_model_bytes(op="Relu"):
    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from test_compile import small_model  # the tests' own model

    return small_model(op=op)


def cases(tmp):
    """(name, model path, kiln.compile keywords, kiln-compile flags)."""
    small = tmp / "small.onnx"
    small.write_bytes(small_model_bytes())
    out = [
        ("small, batch 2", small, {"batch": 2}, ["--batch=2"]),
        ("small, fp16 opt 3 sm_80+sm_90", small,
         {"input_shapes": {"x": (3, 8)}, "fp16": True, "opt_level": 3,
          "target": ["sm_80", "sm_90"], "cubin": False},
         ["--input-shape=x=3x8", "--fp16", "--opt-level=3", "--target=sm_80,sm_90",
          "--no-cubin"]),
        ("small, bf16 layer, no cuBLASLt", small,
         {"batch": 1, "cublaslt": False, "layer_precision": {"fc": "bf16"},
          "max_memory": "1G"},
         ["--batch=1", "--no-cublaslt", "--layer-precision=fc=bf16", "--max-memory=1G"]),
    ]
    digits = ROOT / "examples" / "digits" / "digits.onnx"
    out.append(("digits CNN", digits, {}, []))
    out.append(("digits CNN, fp16", digits, {"fp16": True}, ["--fp16"]))
    caffe = ROOT / "test" / "Import" / "Caffe" / "Inputs"
    lenet = tmp / "lenet"
    subprocess.run([sys.executable, str(caffe / "caffe_nets.py"),
                    str(caffe / "lenet.prototxt"), str(lenet)],
                   check=True, capture_output=True)
    weights = str(lenet / "net.caffemodel")
    out.append(("Caffe LeNet", caffe / "lenet.prototxt", {"caffemodel": weights},
                ["--caffemodel", weights]))
    return out


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default=str(ROOT / "build"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    build = pathlib.Path(args.build).resolve()
    sys.path.insert(0, str(build / "python"))
    import kiln

    tool = build / "bin" / "kiln-compile"
    worst = 0.0
    print(f"build: {build}")
    print("| model | kiln-compile (ms) | kiln.compile (ms) | ratio | same plan |")
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for name, model, keywords, flags in cases(tmp):
            plan_file = tmp / "cli.kplan"

            def cli():
                subprocess.run([str(tool), str(model), "-o", str(plan_file), *flags],
                               check=True)
                return plan_file.read_bytes()

            cli_s, cli_plan = median_time(cli, args.runs)
            py_s, py_plan = median_time(lambda: kiln.compile(model, **keywords), args.runs)
            ratio = py_s / cli_s
            worst = max(worst, ratio)
            print(f"| {name} | {cli_s * 1e3:.1f} | {py_s * 1e3:.1f} | {ratio:.2f} | "
                  f"{'yes' if cli_plan == py_plan else 'NO'} |")
    print(f"worst ratio: {worst:.2f} (goal: at most 2)")


if __name__ == "__main__":
    main()
