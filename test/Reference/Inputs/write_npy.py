#!/usr/bin/env python3
"""Writes a .npy file (format version 1) without numpy: write_npy.py PATH
DESCR SHAPE where SHAPE is like 1x1x4x4; values are 0, 1, 2, ... as float32
for '<f4' (other dtypes get zero bytes, to test that they are refused)."""
import struct
import sys

path, descr, shape = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split("x")]
count = 1
for d in shape:
    count *= d
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
    descr, ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
header = header.encode() + b" " * (118 - len(header)) + b"\n"
data = struct.pack("<%df" % count, *range(count)) if descr == "<f4" else b"\0" * 8 * count
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data)
