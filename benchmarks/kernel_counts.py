#!/usr/bin/env python3
"""Kernel counts of kiln's plans, with and without fusion groups (issue 11).

  python3 benchmarks/kernel_counts.py [KILN_BIN_DIR]   (default build/bin)

Writes ResNet-50 and MobileNetV2 as ONNX graphs of torchvision's layers (the layers
torchvision's TorchScript export gives after BatchNormalization is folded: Conv with a
bias, Relu or Clip(0, 6), MaxPool, Add, GlobalAveragePool, Flatten, Gemm), with random
weights, into a temporary folder, compiles them and the example networks with
kiln-compile at --opt-level=1 (no groups), 2 (groups) and 3 (groups, convolutions and
pools channels last), and prints the plans' steps
(kiln-plan-info) as a table. Nothing runs on a GPU: this counts kernels, it does not time
them (benchmarks/cuda_graphs.sh does, on the GPU machine).
"""
import os, subprocess, sys, tempfile
import numpy as np, onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

rng = np.random.default_rng(0)
class G:
    def __init__(s): s.nodes=[]; s.inits=[]; s.n=0
    def name(s, p): s.n+=1; return f"{p}{s.n}"
    def w(s, shape):
        n=s.name("w"); s.inits.append(nh.from_array((rng.standard_normal(shape)*0.05).astype(np.float32), n)); return n
    def conv(s, x, cin, cout, k, stride=1, pad=0, group=1, act="Relu"):
        y=s.name("conv")
        s.nodes.append(h.make_node("Conv",[x,s.w([cout,cin//group,k,k]),s.w([cout])],[y],kernel_shape=[k,k],strides=[stride,stride],pads=[pad]*4,group=group,name=y))
        if act=="Relu":
            z=s.name("relu"); s.nodes.append(h.make_node("Relu",[y],[z],name=z)); return z
        if act=="Clip":
            z=s.name("clip"); s.nodes.append(h.make_node("Clip",[y,"lo","hi"],[z],name=z)); return z
        return y
    def op(s, t, ins, **kw):
        y=s.name(t.lower()); s.nodes.append(h.make_node(t,ins,[y],name=y,**kw)); return y
    def head(s, x, c):
        p=s.op("GlobalAveragePool",[x]); f=s.op("Flatten",[p],axis=1)
        return s.op("Gemm",[f,s.w([1000,c]),s.w([1000])],transB=1)
    def save(s, out, path, extra=()):
        g=h.make_graph(s.nodes,"net",[h.make_tensor_value_info("input",T.FLOAT,[1,3,224,224])],[h.make_tensor_value_info(out,T.FLOAT,None)],s.inits+list(extra))
        m=h.make_model(g,opset_imports=[h.make_opsetid("",17)]); onnx.save(m,path)
def resnet50(out):
    g=G(); x=g.conv("input",3,64,7,2,3); x=g.op("MaxPool",[x],kernel_shape=[3,3],strides=[2,2],pads=[1,1,1,1])
    cin=64
    for width,blocks,stride in [(64,3,1),(128,4,2),(256,6,2),(512,3,2)]:
        for b in range(blocks):
            s=stride if b==0 else 1
            y=g.conv(x,cin,width,1); y=g.conv(y,width,width,3,s,1); y=g.conv(y,width,width*4,1,act=None)
            sc=g.conv(x,cin,width*4,1,s,act=None) if b==0 else x
            x=g.op("Relu",[g.op("Add",[y,sc])]); cin=width*4
    g.save(g.head(x,2048),os.path.join(out, "resnet50.onnx"))
def mobilenetv2(out):
    g=G(); x=g.conv("input",3,32,3,2,1,act="Clip"); cin=32
    for t,c,n,s in [(1,16,1,1),(6,24,2,2),(6,32,3,2),(6,64,4,2),(6,96,3,1),(6,160,3,2),(6,320,1,1)]:
        for i in range(n):
            st=s if i==0 else 1; hid=cin*t; y=x
            if t!=1: y=g.conv(y,cin,hid,1,act="Clip")
            y=g.conv(y,hid,hid,3,st,1,group=hid,act="Clip"); y=g.conv(y,hid,c,1,act=None)
            x=g.op("Add",[x,y]) if st==1 and cin==c else y; cin=c
    x=g.conv(x,cin,1280,1,act="Clip")
    g.save(g.head(x,1280),os.path.join(out, "mobilenetv2.onnx"),[nh.from_array(np.array(0,np.float32),"lo"),nh.from_array(np.array(6,np.float32),"hi")])


def steps(bin_dir, model, level, folder):
    plan = os.path.join(folder, "plan.kplan")
    subprocess.run([os.path.join(bin_dir, "kiln-compile"), model, f"--opt-level={level}",
                    "-o", plan], check=True)
    info = subprocess.run([os.path.join(bin_dir, "kiln-plan-info"), plan], check=True,
                          capture_output=True, text=True).stdout
    return next(l for l in info.splitlines() if l.startswith("steps:"))[len("steps: "):]


def main():
    bin_dir = sys.argv[1] if len(sys.argv) > 1 else "build/bin"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as out:
        resnet50(out)
        mobilenetv2(out)
        models = [("ResNet-50", os.path.join(out, "resnet50.onnx")),
                  ("MobileNetV2", os.path.join(out, "mobilenetv2.onnx"))]
        models += [(n, os.path.join(root, "examples", n + ".mlir"))
                   for n in ("resnet_block", "inception_block", "mobilenet_block",
                             "transformer_layer", "lenet5")]
        print("| network, batch 1 | --opt-level=1 steps | --opt-level=2 steps "
              "| --opt-level=3 steps |")
        print("|---|---|---|---|")
        for name, model in models:
            row = [steps(bin_dir, model, level, out) for level in (1, 2, 3)]
            print(f"| {name} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
