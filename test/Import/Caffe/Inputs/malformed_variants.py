#!/usr/bin/env python3
"""Malformed Caffe models through kiln-compile: no crash, a clear error each.

    malformed_variants.py --compile build/bin/kiln-compile \\
        --prototxt net.prototxt --caffemodel net.caffemodel \\
        [--count 1200] [--seed 1] \\
        [--jobs 2] [--work DIR] [--keep-failures DIR]

Generates --count variants of a valid network (a prototxt and its
caffemodel), seeded, and runs `kiln-compile PROTOTXT --caffemodel MODEL
--emit=kiln` on each. The variants are:
- bytes: the caffemodel or the prototxt truncated at a random offset, bytes
  flipped, random bytes inserted;
- caffemodel messages (decoded with protobuf's Python runtime from a
  descriptor set protoc makes of caffe.proto, caffe_nets.caffe_messages,
  independent of kiln's C++ parser): a blob removed or added, a blob's data cut short or its shape
  changed (zero, negative, huge dims, another rank), a layer renamed so its
  weights are missing, its data given as double_data, fields of the wrong
  wire type;
- prototxt text: a number replaced by a huge, negative, zero or fractional
  one or by a word, a line deleted or repeated, a layer's type or bottom
  replaced by an unknown one, garbage characters inserted, an input
  dimension made huge.

Every run must end with exit status 0 (the variant is still a valid
network, such as a flipped byte in a weight) or 1 with an `error:` line on
stderr that names the prototxt or the caffemodel (the file, and the layer
where there is one). Anything else is a failure: a signal, another exit
status, a sanitizer report, an LLVM fatal error or assertion, a timeout
(--timeout seconds, 60 by default), or exit status 1 without a clear
message. Prints the counts per kind and per outcome; exits 1 on any
failure, and copies failing variants to --keep-failures.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caffe_nets import caffe_messages  # noqa: E402

CRASH_MARKERS = ("Sanitizer", "runtime error:", "LLVM ERROR", "Assertion",
                 "Stack dump", "terminate called", "Segmentation fault",
                 "PLEASE submit a bug report")


# --------------------------------------------------------------------------
# Byte-level variants (either file)
# --------------------------------------------------------------------------

def truncate(rng, data):
    return data[:rng.randrange(0, max(1, len(data)))]


def flip(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def insert(rng, data):
    at = rng.randrange(len(data) + 1)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return data[:at] + junk + data[at:]


# --------------------------------------------------------------------------
# caffemodel message variants
# --------------------------------------------------------------------------

HUGE = [0, -1, -7, 1 << 31, 1 << 40, (1 << 62), 3]


def layers_with_blobs(net):
    return [layer for layer in net.layer if len(layer.blobs)]


def model_remove_blob(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    del layer.blobs[rng.randrange(len(layer.blobs))]


def model_add_blob(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    blob = layer.blobs.add()
    blob.shape.dim.extend([rng.randint(1, 4)])
    blob.data.extend([0.5] * blob.shape.dim[0])


def model_cut_data(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    blob = rng.choice(layer.blobs)
    keep = rng.randrange(0, max(1, len(blob.data)))
    del blob.data[keep:]


def model_shape(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    blob = rng.choice(layer.blobs)
    dims = list(blob.shape.dim)
    what = rng.randrange(4)
    if what == 0 and dims:  # one dimension replaced
        dims[rng.randrange(len(dims))] = rng.choice(HUGE)
    elif what == 1:  # another rank
        dims = dims + [1] if rng.random() < 0.5 or not dims else dims[:-1]
    elif what == 2:  # the legacy 4-d fields instead of the shape
        blob.ClearField("shape")
        blob.num, blob.channels = rng.choice([0, -1, -7, 2**31 - 1]), 1
        blob.height, blob.width = 1, rng.randint(1, 3)
        return
    else:  # every dimension huge
        dims = [rng.choice(HUGE) for _ in dims] or [1 << 40]
    del blob.shape.dim[:]
    blob.shape.dim.extend(dims)


def model_rename(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    layer.name = layer.name + "_renamed"


def model_double(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    blob = rng.choice(layer.blobs)
    values = list(blob.data)
    del blob.data[:]
    if rng.random() < 0.7:
        blob.double_data.extend(values)
    else:  # both, of different counts
        blob.double_data.extend(values[:-1] or [1.0])
        blob.data.extend(values)


def model_duplicate_layer(rng, net):
    layer = rng.choice(layers_with_blobs(net))
    net.layer.add().CopyFrom(layer)


MODEL_MUTATIONS = {
    "model-remove-blob": model_remove_blob,
    "model-add-blob": model_add_blob,
    "model-cut-data": model_cut_data,
    "model-shape": model_shape,
    "model-rename-layer": model_rename,
    "model-double-data": model_double,
    "model-duplicate-layer": model_duplicate_layer,
}


def wrong_wire_type(rng, data):
    """Appends a field of NetParameter (layer = 100, input_dim = 4, name =
    1) with a wire type it does not have, or a length past the end."""
    field = rng.choice([100, 4, 1, 2, 8])
    wire = rng.choice([0, 1, 2, 5])
    key = (field << 3) | wire
    out = bytearray()
    while True:
        byte = key & 0x7F
        key >>= 7
        out.append(byte | (0x80 if key else 0))
        if not key:
            break
    if wire == 0:
        out += b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
    elif wire == 1:
        out += b"\x00" * rng.choice([8, 3])
    elif wire == 2:
        out += b"\xff\xff\xff\x7f" + b"\x00" * rng.randint(0, 4)
    else:
        out += b"\x00" * rng.choice([4, 2])
    return data + bytes(out)


# --------------------------------------------------------------------------
# prototxt text variants
# --------------------------------------------------------------------------

NUMBER = re.compile(r"(?<=:)\s*-?\d+(\.\d+)?")
REPLACEMENTS = ["99999999999", "-3", "0", "2.5", "1e40", "abc", '"4"',
                "4294967297", "-2147483649", "1099511627776"]


def text_number(rng, text):
    spots = list(NUMBER.finditer(text))
    if not spots:
        return text + " garbage"
    m = rng.choice(spots)
    return text[:m.start()] + " " + rng.choice(REPLACEMENTS) + text[m.end():]


def text_delete_line(rng, text):
    lines = text.split("\n")
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def text_repeat_line(rng, text):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return "\n".join(lines)


def text_type(rng, text):
    spots = list(re.finditer(r'type:\s*"[A-Za-z]+"', text))
    if not spots:
        return text
    m = rng.choice(spots)
    new = rng.choice(["NoSuchLayer", "Convolution", "Pooling", "Concat",
                      "InnerProduct", "Softmax", "Eltwise", "Slice",
                      "Deconvolution", "Reshape", "Permute", "BatchNorm",
                      "Scale", "PReLU", "LRN", "Flatten", ""])
    return text[:m.start()] + f'type: "{new}"' + text[m.end():]


def text_bottom(rng, text):
    spots = list(re.finditer(r'bottom:\s*"[^"]*"', text))
    if not spots:
        return text
    m = rng.choice(spots)
    new = rng.choice(["nowhere", "", "prob"])
    return text[:m.start()] + f'bottom: "{new}"' + text[m.end():]


def text_garbage(rng, text):
    at = rng.randrange(len(text) + 1)
    junk = "".join(rng.choice('{}:"#\\\n abc123.-\x00\xff') for _ in
                   range(rng.randint(1, 6)))
    return text[:at] + junk + text[at:]


def text_huge_input(rng, text):
    spots = list(re.finditer(r"dim:\s*\d+", text))
    if not spots:
        return text
    m = rng.choice(spots)
    return (text[:m.start()] + "dim: " +
            rng.choice(["1099511627776", "0", "-1", "2147483648",
                        "9223372036854775807"]) + text[m.end():])


TEXT_MUTATIONS = {
    "text-number": text_number,
    "text-delete-line": text_delete_line,
    "text-repeat-line": text_repeat_line,
    "text-layer-type": text_type,
    "text-bottom": text_bottom,
    "text-garbage": text_garbage,
    "text-huge-input": text_huge_input,
}

BYTE_MUTATIONS = {
    "model-truncate": ("model", truncate),
    "model-flip": ("model", flip),
    "model-insert": ("model", insert),
    "model-wrong-wire-type": ("model", wrong_wire_type),
    "text-truncate": ("text", truncate),
    "text-flip": ("text", flip),
}


def make_variant(kind, rng, text, model, net_class):
    """(prototxt bytes, caffemodel bytes) of one variant."""
    if kind in BYTE_MUTATIONS:
        which, mutate = BYTE_MUTATIONS[kind]
        if which == "model":
            return text, mutate(rng, model)
        return mutate(rng, text), model
    if kind in TEXT_MUTATIONS:
        return TEXT_MUTATIONS[kind](rng, text.decode()).encode(), model
    net = net_class.FromString(model)
    MODEL_MUTATIONS[kind](rng, net)
    return text, net.SerializeToString()


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def run_one(tool, folder, timeout):
    prototxt = os.path.join(folder, "net.prototxt")
    model = os.path.join(folder, "net.caffemodel")
    command = [tool, prototxt, "--caffemodel", model, "--emit=kiln",
               "-o", os.path.join(folder, "out.mlir")]
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "failure: timeout", ""
    err = done.stderr.decode(errors="replace")
    if done.returncode < 0:
        return f"failure: signal {-done.returncode}", err
    if any(marker in err for marker in CRASH_MARKERS):
        return "failure: crash report", err
    if done.returncode == 0:
        return "accepted", err
    if done.returncode != 1:
        return f"failure: exit status {done.returncode}", err
    lines = [l for l in err.splitlines() if "error:" in l]
    if not lines:
        return "failure: exit 1 without an error line", err
    if not any("net.prototxt" in l or "net.caffemodel" in l for l in lines):
        return "failure: the error names neither file", err
    return "clear error", err


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", required=True, help="kiln-compile")
    parser.add_argument("--prototxt", required=True)
    parser.add_argument("--caffemodel", required=True)
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--work", help="folder for the variants (default: "
                        "a temporary one)")
    parser.add_argument("--keep-failures", help="copy failing variants here")
    parser.add_argument("--show", type=int, default=3,
                        help="sample error messages to print per kind")
    args = parser.parse_args()

    net_class = caffe_messages()
    with open(args.prototxt, "rb") as f:
        text = f.read()
    with open(args.caffemodel, "rb") as f:
        model = f.read()
    kinds = (sorted(BYTE_MUTATIONS) + sorted(TEXT_MUTATIONS) +
             sorted(MODEL_MUTATIONS))
    temporary = None
    work = args.work
    if work is None:
        temporary = tempfile.TemporaryDirectory(prefix="kiln-caffe-variants-")
        work = temporary.name
    os.makedirs(work, exist_ok=True)

    variants = []
    for i in range(args.count):
        kind = kinds[i % len(kinds)]
        rng = random.Random(args.seed * 1000003 + i)
        proto_bytes, model_bytes = make_variant(kind, rng, text, model,
                                                net_class)
        folder = os.path.join(work, f"v{i:05d}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "net.prototxt"), "wb") as f:
            f.write(proto_bytes)
        with open(os.path.join(folder, "net.caffemodel"), "wb") as f:
            f.write(model_bytes)
        variants.append((i, kind, folder))

    outcomes = collections.Counter()
    per_kind = collections.defaultdict(collections.Counter)
    samples = collections.defaultdict(list)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        runs = {pool.submit(run_one, args.compile, folder, args.timeout):
                (i, kind, folder) for i, kind, folder in variants}
        for future in concurrent.futures.as_completed(runs):
            i, kind, folder = runs[future]
            outcome, err = future.result()
            key = outcome.split(":")[0]
            outcomes[key] += 1
            per_kind[kind][key] += 1
            if outcome.startswith("failure"):
                failures.append((i, kind, outcome, err, folder))
            elif outcome == "clear error" and len(samples[kind]) < args.show:
                line = next(l for l in err.splitlines() if "error:" in l)
                samples[kind].append(line.replace(folder + "/", ""))

    width = max(len(k) for k in kinds)
    print(f"{'variant kind':{width}}  variants  clear error  accepted  "
          "failure")
    for kind in kinds:
        c = per_kind[kind]
        print(f"{kind:{width}}  {sum(c.values()):8d}  {c['clear error']:11d}"
              f"  {c['accepted']:8d}  {c['failure']:7d}")
    print(f"{'all':{width}}  {sum(outcomes.values()):8d}  "
          f"{outcomes['clear error']:11d}  {outcomes['accepted']:8d}  "
          f"{outcomes['failure']:7d}")
    for kind in kinds:
        for line in samples[kind]:
            print(f"  {kind}: {line[:200]}")
    for i, kind, outcome, err, folder in sorted(failures)[:20]:
        print(f"FAIL variant {i} ({kind}): {outcome}\n    "
              + "\n    ".join(err.splitlines()[-6:]))
        if args.keep_failures:
            shutil.copytree(folder, os.path.join(args.keep_failures,
                                                 os.path.basename(folder)),
                            dirs_exist_ok=True)
    if failures:
        print(f"{len(failures)} of {len(variants)} variants failed")
        return 1
    print(f"all {len(variants)} variants: no crash, every refusal a clear "
          "error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
