#!/usr/bin/env python3
"""Writes the example networks in examples/ as kiln IR (run from anywhere).

  lenet5.mlir        the LeNet-5 of the TensorRT guide's sampleMNISTAPI: a
                     uniform scale layer (x * 0.0125), conv 20 5x5, max pool,
                     conv 50 5x5, max pool, fully connected 500, ReLU, fully
                     connected 10, softmax.
  resnet_block.mlir  a ResNet basic block (conv-BN-ReLU-conv-BN, identity
                     shortcut, ReLU) with a global-pool classifier, plus an
                     auxiliary head that is not a network output (dead layers).
  inception_block.mlir
                     an Inception (GoogLeNet) module, the guide's example of
                     horizontal merge and concat elision: 1x1, 1x1-3x3,
                     1x1-5x5 and maxpool-1x1 branches (conv + bias + ReLU)
                     concatenated along channels, then a 1x1 convolution.
  mobilenet_block.mlir
                     a MobileNetV2 inverted residual block: 1x1 expansion
                     conv-BN-ReLU6, depthwise 3x3 conv-BN-ReLU6, 1x1
                     projection conv-BN, identity shortcut.
  transformer_layer.mlir
                     a pre-norm transformer encoder layer (sequence 16, width
                     64, 4 heads): LayerNorm, Q/K/V projections, attention
                     with batched matmuls and softmax, output projection,
                     residual, LayerNorm, a GELU MLP, residual.

`--batch N --out DIR` writes the same networks (same weights) for batch N.
benchmarks/torch_baseline.py builds them in PyTorch from the same blobs.

Weights are random (He initialization, fixed seed) and stored as MLIR
resource blobs, so the IR names each blob once and its bytes live in the
file's resource section. Only the Python standard library is needed.
"""

import math
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


class Net:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.blobs = []  # (name, bytes)
        self.lines = []

    def weight(self, name, shape, fan_in=None, const=None):
        count = math.prod(shape)
        if const is not None:
            values = [const] * count
        else:
            std = math.sqrt(2.0 / fan_in)
            values = [self.rng.gauss(0.0, std) for _ in range(count)]
        self.blobs.append((name, struct.pack("<%df" % count, *values)))
        t = tensor(shape)
        self.lines.append(
            f"  %{name.replace('.', '_')} = kiln.constant dense_resource<{name}> : {t}")
        return "%" + name.replace(".", "_")

    def op(self, text):
        self.lines.append("  " + text)

    def write(self, path, header, signature, results):
        with open(path, "w") as f:
            f.write(header)
            f.write(signature + " {\n")
            f.write("\n".join(self.lines) + "\n")
            f.write(f"  return {results}\n}}\n\n")
            f.write("{-#\n  dialect_resources: {\n    builtin: {\n")
            entries = []
            for name, data in self.blobs:
                # A blob is its alignment as 4 little-endian bytes, then data.
                entries.append(f'      {name}: "0x04000000{data.hex().upper()}"')
            f.write(",\n".join(entries) + "\n    }\n  }\n#-}\n")


def tensor(shape, dtype="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


def window(k, stride, pad=0):
    return (f"strides = array<i64: {stride}, {stride}>, "
            f"pads = array<i64: {pad}, {pad}, {pad}, {pad}>, "
            f"dilations = array<i64: 1, 1>"), f"window = array<i64: {k}, {k}>"


def lenet5(batch=1, folder=HERE):
    B = batch
    n = Net(seed=5)
    conv1w = n.weight("conv1.filter", [20, 1, 5, 5], fan_in=25)
    conv1b = n.weight("conv1.bias", [20], const=0.0)
    conv2w = n.weight("conv2.filter", [50, 20, 5, 5], fan_in=500)
    conv2b = n.weight("conv2.bias", [50], const=0.0)
    ip1w = n.weight("ip1.filter", [500, 800], fan_in=800)
    ip1b = n.weight("ip1.bias", [500], const=0.0)
    ip2w = n.weight("ip2.filter", [10, 500], fan_in=500)
    ip2b = n.weight("ip2.bias", [10], const=0.0)
    scale = n.weight("scale.scale", [1], const=0.0125)
    conv, _ = window(5, 1)
    pool_attrs, pool_win = window(2, 2)
    n.op(f"%scaled = kiln.scale uniform %data scale({scale}) : "
         f"({tensor([B, 1, 28, 28])}, {tensor([1])}) -> {tensor([B, 1, 28, 28])}")
    n.op(f"%conv1 = kiln.convolution %scaled, {conv1w}, {conv1b} {{{conv}}} : "
         f"({tensor([B, 1, 28, 28])}, {tensor([20, 1, 5, 5])}, {tensor([20])}) -> {tensor([B, 20, 24, 24])}")
    n.op(f"%pool1 = kiln.pool max %conv1 {{{pool_win}, {pool_attrs}}} : "
         f"{tensor([B, 20, 24, 24])} -> {tensor([B, 20, 12, 12])}")
    n.op(f"%conv2 = kiln.convolution %pool1, {conv2w}, {conv2b} {{{conv}}} : "
         f"({tensor([B, 20, 12, 12])}, {tensor([50, 20, 5, 5])}, {tensor([50])}) -> {tensor([B, 50, 8, 8])}")
    n.op(f"%pool2 = kiln.pool max %conv2 {{{pool_win}, {pool_attrs}}} : "
         f"{tensor([B, 50, 8, 8])} -> {tensor([B, 50, 4, 4])}")
    n.op(f"%ip1 = kiln.fully_connected %pool2, {ip1w}, {ip1b} : "
         f"({tensor([B, 50, 4, 4])}, {tensor([500, 800])}, {tensor([500])}) -> {tensor([B, 500])}")
    n.op(f"%relu1 = kiln.activation relu %ip1 : {tensor([B, 500])} -> {tensor([B, 500])}")
    n.op(f"%ip2 = kiln.fully_connected %relu1, {ip2w}, {ip2b} : "
         f"({tensor([B, 500])}, {tensor([10, 500])}, {tensor([10])}) -> {tensor([B, 10])}")
    n.op(f"%prob = kiln.softmax %ip2 {{axis = 1 : i64}} : {tensor([B, 10])} -> {tensor([B, 10])}")
    header = ("// LeNet-5 as built by the TensorRT guide's sampleMNISTAPI (random weights).\n"
              "// Generated by examples/gen_examples.py; do not edit.\n")
    sig = (f'func.func @lenet5(%data: {tensor([B, 1, 28, 28])} {{kiln.name = "data"}}) '
           f'-> ({tensor([B, 10])} {{kiln.name = "prob"}})')
    n.write(os.path.join(folder, name("lenet5", batch)), header, sig, f"%prob : {tensor([B, 10])}")
    return n


def resnet_block(batch=1, folder=HERE):
    c, hw, classes = 16, 16, 10
    n = Net(seed=18)
    B = batch
    x = [B, c, hw, hw]
    w1 = n.weight("block.conv1.weight", [c, c, 3, 3], fan_in=c * 9)
    w2 = n.weight("block.conv2.weight", [c, c, 3, 3], fan_in=c * 9)
    bn = {}
    for i in (1, 2):
        for p, v in (("scale", 1.0), ("bias", 0.0), ("mean", 0.0), ("var", 1.0)):
            bn[(i, p)] = n.weight(f"block.bn{i}.{p}", [c], const=v)
    fcw = n.weight("fc.weight", [classes, c], fan_in=c)
    fcb = n.weight("fc.bias", [classes], const=0.0)
    auxw = n.weight("aux.weight", [classes, c * hw * hw], fan_in=c * hw * hw)
    conv, _ = window(3, 1, pad=1)
    T = tensor(x)
    vec = tensor([c])
    for i, src in ((1, "%input"), (2, "%relu1")):
        n.op(f"%conv{i} = kiln.convolution {src}, {w1 if i == 1 else w2} {{{conv}}} : "
             f"({T}, {tensor([c, c, 3, 3])}) -> {T}")
        n.op(f"%bn{i} = kiln.batch_norm %conv{i}, {bn[(i, 'scale')]}, {bn[(i, 'bias')]}, "
             f"{bn[(i, 'mean')]}, {bn[(i, 'var')]} {{epsilon = 1.0e-5 : f32}} : "
             f"({T}, {vec}, {vec}, {vec}, {vec}) -> {T}")
        if i == 1:
            n.op(f"%relu1 = kiln.activation relu %bn1 : {T} -> {T}")
    n.op(f"%sum = kiln.binary add %bn2, %input : ({T}, {T}) -> {T}")
    n.op(f"%relu2 = kiln.activation relu %sum : {T} -> {T}")
    n.op(f"%pool = kiln.global_pool average %relu2 : {T} -> {tensor([B, c, 1, 1])}")
    n.op(f"%flat = kiln.flatten %pool {{axis = 1 : i64}} : {tensor([B, c, 1, 1])} -> {tensor([B, c])}")
    n.op(f"%logits = kiln.fully_connected %flat, {fcw}, {fcb} : "
         f"({tensor([B, c])}, {tensor([classes, c])}, {tensor([classes])}) -> {tensor([B, classes])}")
    # An auxiliary training head nobody marked as an output: dead layers.
    n.op(f"%aux = kiln.fully_connected %relu1, {auxw} : "
         f"({T}, {tensor([classes, c * hw * hw])}) -> {tensor([B, classes])}")
    n.op(f"%aux_prob = kiln.softmax %aux {{axis = 1 : i64}} : {tensor([B, classes])} -> {tensor([B, classes])}")
    header = ("// A ResNet basic block with a classifier and a dead auxiliary head (random weights).\n"
              "// Generated by examples/gen_examples.py; do not edit.\n")
    sig = (f'func.func @resnet_block(%input: {T} {{kiln.name = "input"}}) '
           f'-> ({tensor([B, classes])} {{kiln.name = "logits"}})')
    n.write(os.path.join(folder, name("resnet_block", batch)), header, sig,
            f"%logits : {tensor([B, classes])}")
    return n


def conv_layer(n, name, src, x_shape, cout, k, stride=1, pad=0, groups=1,
               act="relu", bn=False):
    """A convolution with a bias (or batch norm), then ReLU, ReLU6 or nothing.
    Returns the result's SSA name and shape."""
    B, cin, h, w = x_shape
    y_shape = [B, cout, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1]
    wt = n.weight(f"{name}.weight", [cout, cin // groups, k, k], fan_in=cin // groups * k * k)
    attrs, _ = window(k, stride, pad)
    if groups != 1:
        attrs += f", groups = {groups} : i64"
    X, Y, W = tensor(x_shape), tensor(y_shape), tensor([cout, cin // groups, k, k])
    out = f"%{name.replace('.', '_')}"
    if bn:
        n.op(f"{out}_conv = kiln.convolution {src}, {wt} {{{attrs}}} : ({X}, {W}) -> {Y}")
        p = {q: n.weight(f"{name}.bn.{q}", [cout], const=v) for q, v in
             (("scale", 1.0), ("bias", 0.0), ("mean", 0.0), ("var", 1.0))}
        vec = tensor([cout])
        n.op(f"{out}_bn = kiln.batch_norm {out}_conv, {p['scale']}, {p['bias']}, {p['mean']}, "
             f"{p['var']} {{epsilon = 1.0e-5 : f32}} : ({Y}, {vec}, {vec}, {vec}, {vec}) -> {Y}")
        pre = f"{out}_bn"
    else:
        b = n.weight(f"{name}.bias", [cout], fan_in=cin * k * k)
        n.op(f"{out}_conv = kiln.convolution {src}, {wt}, {b} {{{attrs}}} : "
             f"({X}, {W}, {tensor([cout])}) -> {Y}")
        pre = f"{out}_conv"
    if act == "relu":
        n.op(f"{out} = kiln.activation relu {pre} : {Y} -> {Y}")
    elif act == "relu6":
        n.op(f"{out} = kiln.activation clip {pre} {{alpha = 0.0 : f32, beta = 6.0 : f32}} : {Y} -> {Y}")
    else:
        return pre, y_shape
    return out, y_shape


def inception_block(batch=1, folder=HERE):
    B, c, hw = batch, 32, 16
    n = Net(seed=22)
    x = [B, c, hw, hw]
    b1, s1 = conv_layer(n, "b1x1", "%input", x, 16, 1)
    r3, s = conv_layer(n, "b3x3.reduce", "%input", x, 16, 1)
    b3, s3 = conv_layer(n, "b3x3", r3, s, 24, 3, pad=1)
    r5, s = conv_layer(n, "b5x5.reduce", "%input", x, 4, 1)
    b5, s5 = conv_layer(n, "b5x5", r5, s, 8, 5, pad=2)
    conv, win = window(3, 1, pad=1)
    n.op(f"%pool = kiln.pool max %input {{{win}, {conv}}} : {tensor(x)} -> {tensor(x)}")
    bp, sp = conv_layer(n, "pool.proj", "%pool", x, 8, 1)
    cat = [B, s1[1] + s3[1] + s5[1] + sp[1], hw, hw]
    n.op(f"%concat = kiln.concat {b1}, {b3}, {b5}, {bp} {{axis = 1 : i64}} : "
         f"({tensor(s1)}, {tensor(s3)}, {tensor(s5)}, {tensor(sp)}) -> {tensor(cat)}")
    y, sy = conv_layer(n, "out", "%concat", cat, 32, 1)
    header = ("// An Inception module: four branches concatenated, then a 1x1 convolution (random weights).\n"
              "// Generated by examples/gen_examples.py; do not edit.\n")
    sig = (f'func.func @inception_block(%input: {tensor(x)} {{kiln.name = "input"}}) '
           f'-> ({tensor(sy)} {{kiln.name = "output"}})')
    n.write(os.path.join(folder, name("inception_block", batch)), header, sig, f"{y} : {tensor(sy)}")
    return n


def mobilenet_block(batch=1, folder=HERE):
    B, c, hw, t = batch, 24, 28, 6
    n = Net(seed=2)
    x = [B, c, hw, hw]
    e, s = conv_layer(n, "expand", "%input", x, c * t, 1, act="relu6", bn=True)
    d, s = conv_layer(n, "depthwise", e, s, c * t, 3, pad=1, groups=c * t, act="relu6", bn=True)
    p, s = conv_layer(n, "project", d, s, c, 1, act=None, bn=True)
    n.op(f"%output = kiln.binary add %input, {p} : ({tensor(x)}, {tensor(x)}) -> {tensor(x)}")
    header = ("// A MobileNetV2 inverted residual block (random weights).\n"
              "// Generated by examples/gen_examples.py; do not edit.\n")
    sig = (f'func.func @mobilenet_block(%input: {tensor(x)} {{kiln.name = "input"}}) '
           f'-> ({tensor(x)} {{kiln.name = "output"}})')
    n.write(os.path.join(folder, name("mobilenet_block", batch)), header, sig, f"%output : {tensor(x)}")
    return n


def transformer_layer(batch=1, folder=HERE):
    B, S, D, H, F = batch, 16, 64, 4, 128
    dh = D // H
    n = Net(seed=64)
    p = {}
    for i in (1, 2):
        p[f"ln{i}.g"] = n.weight(f"ln{i}.gamma", [D], const=1.0)
        p[f"ln{i}.b"] = n.weight(f"ln{i}.beta", [D], const=0.0)
    for w in ("q", "k", "v", "o"):
        p[w] = n.weight(f"attn.{w}.weight", [D, D], fan_in=2 * D)
        p[w + ".b"] = n.weight(f"attn.{w}.bias", [D], const=0.0)
    p["fc1"] = n.weight("mlp.fc1.weight", [F, D], fan_in=D)
    p["fc1.b"] = n.weight("mlp.fc1.bias", [F], const=0.0)
    p["fc2"] = n.weight("mlp.fc2.weight", [D, F], fan_in=2 * F)
    p["fc2.b"] = n.weight("mlp.fc2.bias", [D], const=0.0)
    p["scale"] = n.weight("attn.scale", [1], const=1.0 / math.sqrt(dh))
    X, X4, XH = tensor([B, S, D]), tensor([B, S, H, dh]), tensor([B, H, S, dh])
    Q3, SS = tensor([B * H, S, dh]), tensor([B * H, S, S])
    vec, mat = tensor([D]), tensor([D, D])
    n.op(f"%ln1 = kiln.layer_norm %x, {p['ln1.g']}, {p['ln1.b']} {{axis = 2 : i64, epsilon = 1.0e-5 : f32}} : ({X}, {vec}, {vec}) -> {X}")
    for w in ("q", "k", "v"):
        n.op(f"%{w} = kiln.fully_connected %ln1, {p[w]}, {p[w + '.b']} {{axis = 2 : i64}} : ({X}, {mat}, {vec}) -> {X}")
        n.op(f"%{w}4 = kiln.reshape %{w} : {X} -> {X4}")
        n.op(f"%{w}t = kiln.transpose %{w}4 {{permutation = array<i64: 0, 2, 1, 3>}} : {X4} -> {XH}")
        n.op(f"%{w}h = kiln.reshape %{w}t : {XH} -> {Q3}")
    n.op(f"%scores = kiln.matmul %qh, %kh {{transpose_rhs = true}} : ({Q3}, {Q3}) -> {SS}")
    n.op(f"%scaled = kiln.binary mul %scores, {p['scale']} : ({SS}, {tensor([1])}) -> {SS}")
    n.op(f"%attn = kiln.softmax %scaled {{axis = 2 : i64}} : {SS} -> {SS}")
    n.op(f"%ctx = kiln.matmul %attn, %vh : ({SS}, {Q3}) -> {Q3}")
    n.op(f"%ctx4 = kiln.reshape %ctx : {Q3} -> {XH}")
    n.op(f"%ctxt = kiln.transpose %ctx4 {{permutation = array<i64: 0, 2, 1, 3>}} : {XH} -> {X4}")
    n.op(f"%ctx3 = kiln.reshape %ctxt : {X4} -> {X}")
    n.op(f"%o = kiln.fully_connected %ctx3, {p['o']}, {p['o.b']} {{axis = 2 : i64}} : ({X}, {mat}, {vec}) -> {X}")
    n.op(f"%r1 = kiln.binary add %x, %o : ({X}, {X}) -> {X}")
    n.op(f"%ln2 = kiln.layer_norm %r1, {p['ln2.g']}, {p['ln2.b']} {{axis = 2 : i64, epsilon = 1.0e-5 : f32}} : ({X}, {vec}, {vec}) -> {X}")
    n.op(f"%h = kiln.fully_connected %ln2, {p['fc1']}, {p['fc1.b']} {{axis = 2 : i64}} : ({X}, {tensor([F, D])}, {tensor([F])}) -> {tensor([B, S, F])}")
    n.op(f"%g = kiln.activation gelu_erf %h : {tensor([B, S, F])} -> {tensor([B, S, F])}")
    n.op(f"%f = kiln.fully_connected %g, {p['fc2']}, {p['fc2.b']} {{axis = 2 : i64}} : ({tensor([B, S, F])}, {tensor([D, F])}, {vec}) -> {X}")
    n.op(f"%y = kiln.binary add %r1, %f : ({X}, {X}) -> {X}")
    header = ("// A pre-norm transformer encoder layer (random weights).\n"
              "// Generated by examples/gen_examples.py; do not edit.\n")
    sig = (f'func.func @transformer_layer(%x: {X} {{kiln.name = "x"}}) '
           f'-> ({X} {{kiln.name = "y"}})')
    n.write(os.path.join(folder, name("transformer_layer", batch)), header, sig, f"%y : {X}")
    return n


def name(net, batch):
    """lenet5.mlir for batch 1, lenet5_b64.mlir for batch 64."""
    return net + (".mlir" if batch == 1 else f"_b{batch}.mlir")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1,
                        help="batch size (files for batch N > 1 are NAME_bN.mlir)")
    parser.add_argument("--out", default=HERE, help="folder to write to")
    args = parser.parse_args()
    lenet5(args.batch, args.out)
    resnet_block(args.batch, args.out)
    inception_block(args.batch, args.out)
    mobilenet_block(args.batch, args.out)
    transformer_layer(args.batch, args.out)
