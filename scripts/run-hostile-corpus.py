#!/usr/bin/env python3
"""Runs the hostile corpus (scripts/hostile-corpus.py) through kiln's tools
under an address-space cap and a time limit, and prints one line per run and
a summary. Every run must end in success or a clear error (exit status 1 and
a message naming the tool or the file on stderr): a crash (a signal, any
other status, or a failure without a message) or a run past the time limit
fails the corpus (exit status 1).

    python3 scripts/run-hostile-corpus.py CORPUS BIN_DIR [--jobs 2]
        [--seconds 30] [--memory-gib 16] [--driver LIB]

For each model (.onnx, .prototxt): kiln-compile --emit=kiln, kiln-compile to
a plan (--no-cubin) and kiln-run --backend=reference, with the default
budgets (--max-memory 16G, --max-work 2^36) or CORPUS/NAME.flags. For each
plan (.kplan): kiln-plan-info and kiln-run-plan on the stand-in driver
(--driver, default BIN_DIR/../lib/libkiln_fake_cuda.so).
"""
import argparse
import concurrent.futures
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time


def run(cmd, seconds, memory, env):
    def limit():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, preexec_fn=limit, env=env)
    try:
        _, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "TIMEOUT", time.monotonic() - start, ""
    took = time.monotonic() - start
    text = err.decode(errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    first = next((line for line in lines if "rror" in line),
                 lines[0] if lines else "")
    if proc.returncode == 0:
        return "ok", took, ""
    if proc.returncode == 1 and first.startswith(("kiln-", "error:")):
        return "error", took, first
    return "CRASH(%d)" % proc.returncode, took, text[-300:].replace("\n", " | ")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("bin")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--memory-gib", type=float, default=16)
    parser.add_argument("--driver")
    parser.add_argument("--known", action="append", default=[],
                        metavar="CASE:WORDS",
                        help="a run known to take too long, not run: CASE's "
                        "run whose description contains WORDS "
                        "(--backend=reference, -o x.kplan, ...); counted as "
                        "known")
    args = parser.parse_args()
    known = set(args.known)
    tool = lambda name: os.path.join(args.bin, name)  # noqa: E731
    driver = args.driver or os.path.join(args.bin, "..", "lib",
                                         "libkiln_fake_cuda.so")
    memory = int(args.memory_gib * 2 ** 30)
    env = dict(os.environ, KILN_FAKE_CUDA_DEVICES="1")
    tmp = tempfile.mkdtemp()
    runs = []
    for name in sorted(os.listdir(args.corpus)):
        path = os.path.join(args.corpus, name)
        base, ext = os.path.splitext(name)
        flags_file = os.path.join(args.corpus, base + ".flags")
        flags = open(flags_file).read().split() if os.path.exists(flags_file) else []
        if ext in (".onnx", ".prototxt"):
            plan = os.path.join(tmp, base + ".kplan")
            runs.append((name, "kiln-compile --emit=kiln",
                         [tool("kiln-compile"), path, "--emit=kiln", "-o", os.devnull] + flags))
            runs.append((name, "kiln-compile -o x.kplan",
                         [tool("kiln-compile"), path, "--no-cubin", "-o", plan] + flags))
            runs.append((name, "kiln-run --backend=reference",
                         [tool("kiln-run"), path, "--backend=reference"] + flags))
        elif ext == ".kplan":
            runs.append((name, "kiln-plan-info", [tool("kiln-plan-info"), path]))
            runs.append((name, "kiln-run-plan (stand-in driver)",
                         [tool("kiln-run-plan"), path, "--driver=" + driver]))
    counts = {}
    failed = []

    def is_known(name, what):
        return any(case == name and words in what
                   for case, _, words in (k.partition(":") for k in known))

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [(name, what, None if is_known(name, what) else
                    pool.submit(run, cmd, args.seconds, memory, env))
                   for name, what, cmd in runs]
        for name, what, future in futures:
            if future is None:
                result, took, message = "KNOWN", 0.0, "not run (--known)"
            else:
                result, took, message = future.result()
            kind = result.split("(")[0]
            counts[kind] = counts.get(kind, 0) + 1
            print("%-9s %6.2f s  %-40s %-30s %s" % (result, took, name, what,
                                                     message[:160]))
            if kind in ("CRASH", "TIMEOUT"):
                failed.append((name, what))
    print("%d runs of %d cases: %d ok, %d clear errors, %d crashed, %d timed "
          "out, %d known and not run" % (
              len(runs), len({r[0] for r in runs}), counts.get("ok", 0),
              counts.get("error", 0), counts.get("CRASH", 0),
              counts.get("TIMEOUT", 0), counts.get("KNOWN", 0)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
