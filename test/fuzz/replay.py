"""Runs a kiln tool on every input in a folder and fails when one crashes:
a signal, a sanitizer report or LLVM's crash banner. An error exit (the
input refused) is fine.

    python3 replay.py FOLDER TOOL [ARGS...]    (the input path is appended)
"""

import os
import subprocess
import sys

folder, command = sys.argv[1], sys.argv[2:]
inputs = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
crashed = []
for name in inputs:
    path = os.path.join(folder, name)
    try:
        run = subprocess.run(command + [path], capture_output=True, text=True,
                             errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        crashed.append(name + ": timed out")
        continue
    report = run.stderr
    if (run.returncode < 0 or "PLEASE submit a bug report" in report
            or "Sanitizer" in report or "runtime error:" in report):
        crashed.append("%s: exit %d: %s" % (name, run.returncode,
                                            report.strip().splitlines()[:3]))
print("%d inputs replayed, %d crashed" % (len(inputs), len(crashed)))
for line in crashed:
    print("CRASH " + line)
sys.exit(1 if crashed else 0)
