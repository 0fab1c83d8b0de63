"""Broken caffemodel files for the importer's error tests.

    python3 bad_models.py OUT_DIR

Writes tiny.caffemodel (the weights of tiny.prototxt) and variants of it,
each broken in one way: truncated, not protobuf, a blob of the wrong size,
of the wrong shape, a missing bias, a layer renamed, blobs on a ReLU, a
blob with both data and double_data.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caffe_nets import caffe_messages  # noqa: E402


def blob(layer, shape, count=None):
    b = layer.blobs.add()
    b.shape.dim.extend(shape)
    n = int(np.prod(shape)) if count is None else count
    b.data.extend(np.linspace(-1, 1, n).tolist())
    return b


def model(net_class, conv_name="conv", conv_shape=(4, 2, 3, 3),
          conv_count=None, bias=True, relu_blob=False):
    m = net_class()
    conv = m.layer.add(name=conv_name, type="Convolution")
    blob(conv, conv_shape, conv_count)
    if bias:
        blob(conv, [4])
    if relu_blob:
        blob(m.layer.add(name="relu", type="ReLU"), [1])
    ip = m.layer.add(name="ip", type="InnerProduct")
    blob(ip, [3, 64])
    blob(ip, [3])
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    net_class = caffe_messages()
    good = model(net_class).SerializeToString()
    variants = {
        "tiny": good,
        "truncated": good[:len(good) // 2],
        "garbage": b"\xff\xfe not a protobuf \x00\x01" * 8,
        "wrong-size": model(net_class, conv_count=71).SerializeToString(),
        "wrong-shape": model(net_class,
                             conv_shape=(4, 2, 3, 2)).SerializeToString(),
        "no-bias": model(net_class, bias=False).SerializeToString(),
        "renamed": model(net_class, conv_name="conv1").SerializeToString(),
        "relu-blob": model(net_class, relu_blob=True).SerializeToString(),
    }
    both = model(net_class)
    both.layer[0].blobs[1].double_data.extend([0.5] * 4)
    variants["both-data"] = both.SerializeToString()
    for name, data in variants.items():
        with open(os.path.join(out, name + ".caffemodel"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
