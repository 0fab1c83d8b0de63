#!/usr/bin/env python3
"""Feeds kiln-compile many malformed variants of one model and checks that
each ends with an error (exit status 1) or a success, never a crash, a hang
or a slow answer. Variants: every truncation length class, single bit flips,
overwritten byte runs, and random files. Deterministic (fixed seed)."""

import argparse
import os
import random
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--tool", required=True)
parser.add_argument("--seed-model", required=True)
parser.add_argument("--work", required=True)
parser.add_argument("--count", type=int, default=150)
parser.add_argument("--max-seconds", type=float, default=1.0)
parser.add_argument("--tool-arg", action="append", default=[],
                    help="an extra argument for the tool (e.g. --emit=plan)")
args = parser.parse_args()

data = open(args.seed_model, "rb").read()
rng = random.Random(1234)
variants = []
for n in sorted(set(rng.randrange(len(data)) for _ in range(args.count // 3))):
    variants.append(("truncated-%d" % n, data[:n]))
while len(variants) < 2 * args.count // 3:
    b = bytearray(data)
    i = rng.randrange(len(b))
    b[i] ^= 1 << rng.randrange(8)
    variants.append(("bitflip-%d" % i, bytes(b)))
while len(variants) < args.count - 10:
    b = bytearray(data)
    i = rng.randrange(len(b))
    for j in range(i, min(len(b), i + rng.randrange(1, 8))):
        b[j] = rng.randrange(256)
    variants.append(("overwrite-%d" % i, bytes(b)))
while len(variants) < args.count:
    variants.append(("random-%d" % len(variants),
                     bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))))

os.makedirs(args.work, exist_ok=True)
crashes, slow, outcomes = [], [], {0: 0, 1: 0}
for index, (name, content) in enumerate(variants):
    name = "%04d-%s" % (index, name)
    path = os.path.join(args.work, name + ".onnx")
    with open(path, "wb") as f:
        f.write(content)
    start = time.monotonic()
    try:
        proc = subprocess.run([args.tool, path, "-o", os.devnull] + args.tool_arg,
                              capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        crashes.append((name, "timed out"))
        continue
    elapsed = time.monotonic() - start
    if proc.returncode not in (0, 1):
        crashes.append((name, "exit status %d: %s" % (proc.returncode,
                                                      proc.stderr.decode()[-300:])))
        continue
    if proc.returncode == 1 and b"error: " not in proc.stderr:
        crashes.append((name, "failed without an error message"))
    outcomes[proc.returncode] += 1
    if elapsed > args.max_seconds:
        slow.append((name, elapsed))

print("fuzz: %d models, %d imported, %d rejected with an error, %d crashes, %d slow"
      % (len(variants), outcomes[0], outcomes[1], len(crashes), len(slow)))
for name, why in crashes + slow:
    print("  %s: %s" % (name, why))
sys.exit(1 if crashes or slow else 0)
