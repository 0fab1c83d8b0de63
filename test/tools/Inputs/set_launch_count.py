"""Sets the element count of a plan's launches, as a hostile editor would.

    python3 set_launch_count.py IN.kplan OUT.kplan OLD NEW

Every i64 launch argument of value OLD (a FlatBuffers KernelArg struct of the
manifest: kind 2, a zero address, then the value; runtime/schema/plan.fbs)
becomes NEW, and the body and header checksums are recomputed
(docs/plan-format.md, "Checksums"), so that the reader's later checks are the
ones that must refuse the file. Exits 1 when no argument holds OLD.
"""

import struct
import sys
import zlib


def main():
    src, dst, old, new = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = bytearray(open(src, "rb").read())
    manifest_size = struct.unpack_from("<Q", data, 32)[0]
    manifest = bytes(data[64:64 + manifest_size])
    pattern = bytes([2]) + bytes(23) + struct.pack("<q", old)
    found = 0
    at = manifest.find(pattern)
    while at != -1:
        if at % 8 == 0:  # the manifest is 8-byte aligned at offset 64
            struct.pack_into("<q", data, 64 + at + 24, new)
            found += 1
        at = manifest.find(pattern, at + 1)
    if not found:
        sys.exit("no i64 launch argument of value %d in %s" % (old, src))
    struct.pack_into("<I", data, 40, zlib.crc32(bytes(data[64:])))
    struct.pack_into("<I", data, 44, zlib.crc32(bytes(data[:44])))
    open(dst, "wb").write(data)
    print("%d argument(s) set to %d" % (found, new))


if __name__ == "__main__":
    main()
