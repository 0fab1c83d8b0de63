#!/usr/bin/env python3
"""Trains the digits sample's CNN on scikit-learn's 8x8 digits, in numpy.

    python3 examples/digits/train.py [out_dir]   (default: examples/digits)

The network (the C++ sample builds the same one with kiln's network API):
    input 1x8x8 (pixels / 16)
    -> convolution 3x3, 8 maps, padding 1 -> ReLU -> max pool 2x2
    -> fully connected 10 -> softmax
Data: sklearn.datasets.load_digits, split 80/20 with
train_test_split(random_state=0, stratify=labels). Training: 40 epochs of
SGD with momentum 0.9, batch 32, learning rate 0.05, cross-entropy, seeded.

Writes (the format is in examples/digits/README.md):
    digits.weights  the trained weights and the held-out accuracy measured here
    heldout.bin     the held-out digits (pixels 0..16) and their labels
    digits.onnx     the same network as an ONNX model (opset 17, batch 360),
                    which kiln-digits --onnx checks against the API's
"""
import os
import struct
import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def im2col(x):
    """x: N x 1 x 8 x 8 -> N x 64 x 9 (3x3 patches, padding 1)."""
    p = np.pad(x[:, 0], ((0, 0), (1, 1), (1, 1)))
    cols = np.stack([p[:, i:i + 8, j:j + 8] for i in range(3) for j in range(3)], -1)
    return cols.reshape(x.shape[0], 64, 9)


def forward(params, x):
    w1, b1, w2, b2 = params
    cols = im2col(x)                                   # N x 64 x 9
    conv = cols @ w1.reshape(8, 9).T + b1              # N x 64 x 8
    relu = np.maximum(conv, 0)
    r = relu.reshape(-1, 4, 2, 4, 2, 8)                # N, i, di, j, dj, c
    pooled = r.max(axis=(2, 4))                        # N x 4 x 4 x 8
    flat = pooled.transpose(0, 3, 1, 2).reshape(-1, 128)  # C H W order
    logits = flat @ w2.T + b2
    return cols, conv, r, pooled, flat, logits


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def grads(params, x, y):
    w1, b1, w2, b2 = params
    cols, conv, r, pooled, flat, logits = forward(params, x)
    n = x.shape[0]
    d = softmax(logits)
    d[np.arange(n), y] -= 1
    d /= n
    gw2, gb2 = d.T @ flat, d.sum(0)
    dflat = d @ w2                                     # N x 128
    dpooled = dflat.reshape(-1, 8, 4, 4).transpose(0, 2, 3, 1)
    mask = r == pooled[:, :, None, :, None, :]
    mask = mask / mask.sum(axis=(2, 4), keepdims=True)
    drelu = (mask * dpooled[:, :, None, :, None, :]).reshape(-1, 64, 8)
    dconv = drelu * (conv > 0)
    gw1 = np.einsum("npc,npk->ck", dconv, cols).reshape(8, 1, 3, 3)
    return [gw1, dconv.sum((0, 1)), gw2, gb2]


def write_onnx(params, batch, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w1, b1, w2, b2 = (p.astype(np.float32) for p in params)
    nodes = [
        helper.make_node("Conv", ["digits", "w1", "b1"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"]),
        helper.make_node("MaxPool", ["relu"], ["pool"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"]),
        helper.make_node("Gemm", ["flat", "w2", "b2"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "digits",
        [helper.make_tensor_value_info("digits", TensorProto.FLOAT, [batch, 1, 8, 8])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [batch, 10])],
        [numpy_helper.from_array(a, n) for a, n in
         [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2")]])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    digits = load_digits()
    x = digits.images.astype(np.float64)[:, None] / 16.0
    y = digits.target
    xtr, xte, ytr, yte, ptr, pte = train_test_split(
        x, y, digits.images.astype(np.uint8), test_size=0.2, random_state=0,
        stratify=y)
    rng = np.random.default_rng(0)
    params = [rng.normal(0, 0.3, (8, 1, 3, 3)), np.zeros(8),
              rng.normal(0, 0.1, (10, 128)), np.zeros(10)]
    velocity = [np.zeros_like(p) for p in params]
    for epoch in range(40):
        order = rng.permutation(len(xtr))
        for i in range(0, len(order), 32):
            batch = order[i:i + 32]
            for p, v, g in zip(params, velocity, grads(params, xtr[batch], ytr[batch])):
                v *= 0.9
                v -= 0.05 * g
                p += v
    accuracy = float((forward(params, xte)[-1].argmax(1) == yte).mean()) * 100
    print(f"held-out accuracy: {accuracy:.2f}% ({len(yte)} digits)")

    names = ["conv.kernel", "conv.bias", "fc.kernel", "fc.bias"]
    with open(os.path.join(out, "digits.weights"), "wb") as f:
        f.write(b"KDW1" + struct.pack("<fI", accuracy, len(params)))
        for name, p in zip(names, params):
            f.write(struct.pack("<I", len(name)) + name.encode())
            f.write(struct.pack("<I", p.ndim) + struct.pack(f"<{p.ndim}q", *p.shape))
            f.write(p.astype("<f4").tobytes())
    write_onnx(params, len(yte), os.path.join(out, "digits.onnx"))
    with open(os.path.join(out, "heldout.bin"), "wb") as f:
        f.write(b"KDH1" + struct.pack("<I", len(yte)))
        f.write(pte.astype(np.uint8).tobytes())
        f.write(yte.astype(np.uint8).tobytes())


main()
