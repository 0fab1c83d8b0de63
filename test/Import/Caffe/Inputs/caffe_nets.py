"""Weights, inputs and expected outputs of the Caffe test networks, without Caffe.

    python3 caffe_nets.py NET.prototxt OUT_DIR [--seed N] [--onnx]
                          [--outputs BLOB,BLOB]

Reads NET.prototxt with the pip protobuf runtime through a descriptor set of
kiln's lib/Import/Caffe/caffe.proto (protoc --descriptor_set_out, then
message_factory.GetMessageClass: no generated _pb2 code, which a newer
runtime may refuse), draws random weights (seeded) for each layer that has
blobs, and writes into OUT_DIR:
  net.caffemodel            the weights, binary NetParameter, by layer name;
  input_K.npy               f32 random inputs (one per net input, in order);
  ref/output_K.npy          the outputs as a float64 numpy implementation of
                            each layer with Caffe's semantics computes them
                            (pooling's rounded-up output size, legacy blobs,
                            BatchNorm's stored factor, ...), in Caffe's order
                            of net outputs (the unconsumed blobs, by name);
  net.onnx (with --onnx)    the same network as ONNX (opset 13), for the
                            layers ONNX expresses, with the same outputs.
The plugin layers (PriorBox, Normalize, DetectionOutput) use the float64
references of kiln's built-in plugins (runtime/plugins/test). A draw whose
detections depend on float32 noise (an IoU near the NMS threshold, scores
closer than f32 tells apart) is redrawn with the next seed.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf import text_format

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[".."] * 4))
sys.path.insert(0, os.path.join(ROOT, "runtime", "plugins", "test"))

import builtin_reference  # noqa: E402
import detection_reference  # noqa: E402


# The domain of the ONNX twin's plugin nodes: kiln's ONNX importer maps a
# node of a domain it does not know to the registered plugin of the node's
# op name (the built-in plugins are in the empty namespace).
PLUGIN_DOMAIN = "trt.plugins"


def caffe_messages():
    """The NetParameter class of kiln's caffe.proto."""
    proto_dir = os.path.join(ROOT, "lib", "Import", "Caffe")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "caffe.desc")
        subprocess.run(["protoc", "--descriptor_set_out=" + out,
                        "-I" + proto_dir,
                        os.path.join(proto_dir, "caffe.proto")], check=True)
        files = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            files.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName("caffe.NetParameter"))


# --------------------------------------------------------------------------
# Caffe's layers in float64 numpy
# --------------------------------------------------------------------------

def per_dim(values, default, n=2):
    values = list(values)
    if not values:
        return [default] * n
    return values * n if len(values) == 1 else values


def conv_window(p):
    if p.HasField("kernel_h"):
        kernel = [p.kernel_h, p.kernel_w]
    else:
        kernel = per_dim(p.kernel_size, 1)
    stride = ([p.stride_h, p.stride_w] if p.HasField("stride_h")
              else per_dim(p.stride, 1))
    pad = ([p.pad_h, p.pad_w] if p.HasField("pad_h") or p.HasField("pad_w")
           else per_dim(p.pad, 0))
    dilation = per_dim(p.dilation, 1)
    return kernel, stride, pad, dilation


def conv2d(x, w, b, stride, pad, dilation, group):
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, k, oh, ow))
    kg = k // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * kg:(g + 1) * kg]
        for i in range(kh):
            for j in range(kw):
                di, dj = i * dilation[0], j * dilation[1]
                patch = xs[:, :, di:di + stride[0] * (oh - 1) + 1:stride[0],
                           dj:dj + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, g * kg:(g + 1) * kg] += np.einsum(
                    "nchw,kc->nkhw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def deconv2d(x, w, b, stride, pad, dilation, group):
    """Scatters each input pixel times the filter (Caffe's col2im)."""
    n, c, h, wd = x.shape
    _, kg, kh, kw = w.shape
    full_h = stride[0] * (h - 1) + dilation[0] * (kh - 1) + 1
    full_w = stride[1] * (wd - 1) + dilation[1] * (kw - 1) + 1
    out = np.zeros((n, kg * group, full_h, full_w))
    cg = c // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        ws = w[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                di, dj = i * dilation[0], j * dilation[1]
                out[:, g * kg:(g + 1) * kg,
                    di:di + stride[0] * (h - 1) + 1:stride[0],
                    dj:dj + stride[1] * (wd - 1) + 1:stride[1]] += np.einsum(
                        "nchw,ck->nkhw", xs, ws[:, :, i, j])
    out = out[:, :, pad[0]:full_h - pad[0], pad[1]:full_w - pad[1]]
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def pooled_size(size, kernel, stride, pad, any_pad, ceil=True):
    span = size + 2 * pad - kernel
    out = (-(-span // stride) if ceil else span // stride) + 1
    if any_pad and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def pool2d(x, average, kernel, stride, pad, ceil=True):
    """Caffe's PoolingLayer::Forward_cpu loops."""
    n, c, h, w = x.shape
    any_pad = pad[0] or pad[1]
    oh = pooled_size(h, kernel[0], stride[0], pad[0], any_pad, ceil)
    ow = pooled_size(w, kernel[1], stride[1], pad[1], any_pad, ceil)
    out = np.zeros((n, c, oh, ow))
    for ph in range(oh):
        for pw in range(ow):
            hs, ws = ph * stride[0] - pad[0], pw * stride[1] - pad[1]
            he = min(hs + kernel[0], h + pad[0])
            we = min(ws + kernel[1], w + pad[1])
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            window = x[:, :, hs:he, ws:we]
            out[:, :, ph, pw] = (window.sum(axis=(2, 3)) / size if average
                                 else window.max(axis=(2, 3)))
    return out


def lrn_across(x, size, alpha, beta, k):
    c = x.shape[1]
    pre = (size - 1) // 2
    sq = x ** 2
    scale = np.full_like(x, k)
    for i in range(c):
        lo, hi = max(0, i - pre), min(c, i - pre + size)
        scale[:, i] += alpha / size * sq[:, lo:hi].sum(axis=1)
    return x * scale ** -beta


def lrn_within(x, size, alpha, beta):
    pad = (size - 1) // 2
    mean = pool2d(x ** 2, True, [size, size], [1, 1], [pad, pad])
    return x * (1 + alpha * mean) ** -beta


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def caffe_axis(axis, rank):
    return axis + rank if axis < 0 else axis


# --------------------------------------------------------------------------
# The network walk: weights, numpy forward, ONNX twin
# --------------------------------------------------------------------------

class Net:
    def __init__(self, net, rng, make_onnx):
        self.net = net
        self.rng = rng
        self.blobs = {}  # name -> float64 array
        self.consumed = {}
        self.inputs = []
        self.weights = []  # (layer name, type, [(array, legacy)])
        self.onnx = make_onnx
        self.nodes, self.inits, self.graph_inputs = [], [], []
        self.counter = 0
        self.detections = []  # ambiguities of plugin references

    # ONNX helpers -----------------------------------------------------------
    def const(self, array, dtype=np.float32):
        import onnx.numpy_helper as nh
        self.counter += 1
        name = f"c{self.counter}"
        self.inits.append(nh.from_array(np.asarray(array, dtype), name))
        return name

    def node(self, op, inputs, outputs=None, **attrs):
        import onnx.helper as oh
        self.counter += 1
        outputs = outputs or [f"t{self.counter}"]
        self.nodes.append(oh.make_node(op, inputs, outputs, **attrs))
        return outputs[0]

    # weights ---------------------------------------------------------------
    def draw(self, shape, scale=1.0):
        return self.rng.standard_normal(shape) * scale

    def store(self, layer, arrays, legacy=()):
        """Weights as f32 (what the caffemodel holds), back as float64."""
        arrays = [np.asarray(a, np.float32) for a in arrays]
        self.weights.append((layer.name, layer.type,
                             [(a, i in legacy) for i, a in enumerate(arrays)]))
        return [a.astype(np.float64) for a in arrays]

    # the walk --------------------------------------------------------------
    def run(self):
        names = {}  # caffe blob -> onnx value
        for layer in self.net.layer:
            bottoms = [self.blobs[b] for b in layer.bottom]
            ins = [names.get(b) for b in layer.bottom]
            for b in layer.bottom:
                self.consumed[b] = True
            if layer.type == "Input":
                for i, top in enumerate(layer.top):
                    shape = layer.input_param.shape[
                        0 if len(layer.input_param.shape) == 1 else i].dim
                    x = self.rng.uniform(-1, 1, list(shape)).astype(np.float32)
                    if top == "im_info":  # image height, width, scale
                        first = self.inputs[0][1]
                        x = np.tile(np.array([first.shape[2], first.shape[3],
                                              1.0], np.float32),
                                    (shape[0], 1)).reshape(list(shape))
                    self.inputs.append((top, x))
                    self.blobs[top] = x.astype(np.float64)
                    self.consumed[top] = False
                    names[top] = top
                    if self.onnx:
                        import onnx.helper as oh
                        from onnx import TensorProto
                        self.graph_inputs.append(oh.make_tensor_value_info(
                            top, TensorProto.FLOAT, list(shape)))
                continue
            tops, onnx_tops = getattr(self, "l_" + layer.type)(
                layer, bottoms, ins)
            for i, top in enumerate(layer.top):
                self.blobs[top] = tops[i]
                self.consumed[top] = False
                if self.onnx and onnx_tops is not None:
                    names[top] = self.node("Identity", [onnx_tops[i]])
        self.output_names = sorted(b for b, c in self.consumed.items()
                                   if not c)
        self.onnx_names = names

    # layers ------------------------------------------------------------
    def l_Convolution(self, layer, bottoms, ins, transposed=False):
        p = layer.convolution_param
        x = bottoms[0]
        kernel, stride, pad, dilation = conv_window(p)
        c, k, g = x.shape[1], p.num_output, p.group
        shape = ([c, k // g] if transposed else [k, c // g]) + kernel
        fan_in = (c // g) * kernel[0] * kernel[1]
        arrays = [self.draw(shape, 1 / math.sqrt(fan_in))]
        if p.bias_term:
            arrays.append(self.draw([k], 0.1))
        arrays = self.store(layer, arrays)
        b = arrays[1] if p.bias_term else None
        f = deconv2d if transposed else conv2d
        y = f(x, arrays[0], b, stride, pad, dilation, g)
        if not self.onnx:
            return [y], None
        inputs = [ins[0], self.const(arrays[0])] + (
            [self.const(b)] if b is not None else [])
        return [y], [self.node("ConvTranspose" if transposed else "Conv",
                               inputs, kernel_shape=kernel, strides=stride,
                               pads=pad + pad, dilations=dilation, group=g)]

    def l_Deconvolution(self, layer, bottoms, ins):
        return self.l_Convolution(layer, bottoms, ins, transposed=True)

    def l_Pooling(self, layer, bottoms, ins):
        p = layer.pooling_param
        x = bottoms[0]
        average = p.pool == 1
        if p.global_pooling:
            y = (x.mean if average else x.max)(axis=(2, 3), keepdims=True)
            op = "GlobalAveragePool" if average else "GlobalMaxPool"
            return [y], [self.node(op, ins)] if self.onnx else None
        kernel = ([p.kernel_h, p.kernel_w] if p.HasField("kernel_h")
                  else [p.kernel_size] * 2)
        stride = ([p.stride_h, p.stride_w] if p.HasField("stride_h")
                  else [p.stride] * 2)
        pad = ([p.pad_h, p.pad_w] if p.HasField("pad_h") else [p.pad] * 2)
        ceil = p.round_mode == 0
        y = pool2d(x, average, kernel, stride, pad, ceil)
        if not self.onnx:
            return [y], None
        attrs = dict(kernel_shape=kernel, strides=stride, pads=pad + pad,
                     ceil_mode=int(ceil))
        if average:
            attrs["count_include_pad"] = 1
        return [y], [self.node("AveragePool" if average else "MaxPool", ins,
                               **attrs)]

    def l_InnerProduct(self, layer, bottoms, ins):
        p = layer.inner_product_param
        x = bottoms[0]
        axis = caffe_axis(p.axis, x.ndim)
        inner = int(np.prod(x.shape[axis:]))
        n = p.num_output
        shape = [inner, n] if p.transpose else [n, inner]
        arrays = [self.draw(shape, 1 / math.sqrt(inner))]
        if p.bias_term:
            arrays.append(self.draw([n], 0.1))
        # LeNet's last layer is stored as a legacy 4-D blob (1, 1, N, K).
        legacy = (0,) if layer.name == "ip2" else ()
        arrays = self.store(layer, arrays, legacy)
        wt = arrays[0].T if p.transpose else arrays[0]
        flat = x.reshape(int(np.prod(x.shape[:axis])), inner)
        y = flat @ wt.T
        if p.bias_term:
            y = y + arrays[1]
        y = y.reshape(list(x.shape[:axis]) + [n])
        if not self.onnx:
            return [y], None
        f = self.node("Flatten", ins, axis=axis)
        inputs = [f, self.const(wt)] + (
            [self.const(arrays[1])] if p.bias_term else [])
        return [y], [self.node("Gemm", inputs, transB=1)]

    def l_ReLU(self, layer, bottoms, ins):
        s = layer.relu_param.negative_slope
        x = bottoms[0]
        y = np.where(x > 0, x, np.float64(np.float32(s)) * x)
        if not self.onnx:
            return [y], None
        return [y], [self.node("LeakyRelu", ins, alpha=s) if s else
                     self.node("Relu", ins)]

    def l_PReLU(self, layer, bottoms, ins):
        x = bottoms[0]
        shared = layer.prelu_param.channel_shared
        slopes = self.store(layer, [self.rng.uniform(0.05, 0.5,
                                                     [] if shared
                                                     else [x.shape[1]])])[0]
        s = np.reshape(slopes, [-1] + [1] * (x.ndim - 2))
        y = np.maximum(x, 0) + s * np.minimum(x, 0)
        return [y], [self.node("PRelu", [ins[0], self.const(s)])] \
            if self.onnx else None

    def l_ELU(self, layer, bottoms, ins):
        a = layer.elu_param.alpha
        x = bottoms[0]
        y = np.where(x > 0, x, np.float64(np.float32(a)) * np.expm1(x))
        return [y], [self.node("Elu", ins, alpha=a)] if self.onnx else None

    def l_Sigmoid(self, layer, bottoms, ins):
        y = 1 / (1 + np.exp(-bottoms[0]))
        return [y], [self.node("Sigmoid", ins)] if self.onnx else None

    def l_TanH(self, layer, bottoms, ins):
        y = np.tanh(bottoms[0])
        return [y], [self.node("Tanh", ins)] if self.onnx else None

    def l_Power(self, layer, bottoms, ins):
        p = layer.power_param
        f = [np.float64(np.float32(v)) for v in (p.scale, p.shift, p.power)]
        y = (f[1] + f[0] * bottoms[0]) ** f[2]
        if not self.onnx:
            return [y], None
        t = self.node("Mul", [ins[0], self.const(p.scale)])
        t = self.node("Add", [t, self.const(p.shift)])
        return [y], [self.node("Pow", [t, self.const(p.power)])]

    def l_Dropout(self, layer, bottoms, ins):
        return [bottoms[0]], [ins[0]] if self.onnx else None

    def l_Softmax(self, layer, bottoms, ins):
        x = bottoms[0]
        axis = caffe_axis(layer.softmax_param.axis, x.ndim)
        y = softmax(x, axis)
        return [y], [self.node("Softmax", ins, axis=axis)] \
            if self.onnx else None

    def l_BatchNorm(self, layer, bottoms, ins):
        x = bottoms[0]
        c = x.shape[1]
        eps = layer.batch_norm_param.eps
        factor = 2.5
        mean = self.draw([c], 0.5)
        var = self.rng.uniform(0.5, 1.5, [c])
        stored = self.store(layer, [mean * factor, var * factor, [factor]])
        m, v = stored[0] / stored[2][0], stored[1] / stored[2][0]
        shape = [1, c] + [1] * (x.ndim - 2)
        y = (x - m.reshape(shape)) / np.sqrt(
            v.reshape(shape) + np.float64(np.float32(eps)))
        if not self.onnx:
            return [y], None
        return [y], [self.node("BatchNormalization", [
            ins[0], self.const(np.ones(c)), self.const(np.zeros(c)),
            self.const(m), self.const(v)], epsilon=eps)]

    def l_Scale(self, layer, bottoms, ins):
        p = layer.scale_param
        x = bottoms[0]
        axis = caffe_axis(p.axis, x.ndim)
        count = x.ndim - axis if p.num_axes == -1 else p.num_axes
        dims = list(x.shape[axis:axis + count])
        arrays = [self.rng.uniform(0.5, 1.5, dims)]
        if p.bias_term:
            arrays.append(self.draw(dims, 0.5))
        arrays = self.store(layer, arrays)
        shape = dims + [1] * (x.ndim - axis - count)
        y = x * arrays[0].reshape(shape)
        if p.bias_term:
            y = y + arrays[1].reshape(shape)
        if not self.onnx:
            return [y], None
        t = self.node("Mul", [ins[0], self.const(arrays[0].reshape(shape))])
        if p.bias_term:
            t = self.node("Add", [t, self.const(arrays[1].reshape(shape))])
        return [y], [t]

    def l_LRN(self, layer, bottoms, ins):
        p = layer.lrn_param
        x = bottoms[0]
        a, b, k = (np.float64(np.float32(v)) for v in (p.alpha, p.beta, p.k))
        if p.norm_region == 0:
            y = lrn_across(x, p.local_size, a, b, k)
            return [y], [self.node("LRN", ins, size=p.local_size,
                                   alpha=p.alpha, beta=p.beta, bias=p.k)] \
                if self.onnx else None
        y = lrn_within(x, p.local_size, a, b)
        if not self.onnx:
            return [y], None
        pad = (p.local_size - 1) // 2
        sq = self.node("Mul", [ins[0], ins[0]])
        avg = self.node("AveragePool", [sq], kernel_shape=[p.local_size] * 2,
                        pads=[pad] * 4, count_include_pad=1)
        t = self.node("Mul", [avg, self.const(p.alpha)])
        t = self.node("Add", [t, self.const(1.0)])
        t = self.node("Pow", [t, self.const(-p.beta)])
        return [y], [self.node("Mul", [ins[0], t])]

    def l_Eltwise(self, layer, bottoms, ins):
        p = layer.eltwise_param
        if p.operation == 0:
            y = np.prod(bottoms, axis=0)
            op = "Mul"
        elif p.operation == 2:
            y = np.max(bottoms, axis=0)
            op = "Max"
        else:
            coeff = list(p.coeff) or [1.0] * len(bottoms)
            y = sum(np.float64(np.float32(c)) * b
                    for c, b in zip(coeff, bottoms))
            op = "Add"
        if not self.onnx:
            return [y], None
        terms = list(ins)
        if p.operation == 1 and p.coeff:
            terms = [self.node("Mul", [t, self.const(c)])
                     for t, c in zip(terms, p.coeff)]
        acc = terms[0]
        for t in terms[1:]:
            acc = self.node(op, [acc, t])
        return [y], [acc]

    def l_Concat(self, layer, bottoms, ins):
        p = layer.concat_param
        axis = (p.concat_dim if p.HasField("concat_dim")
                else caffe_axis(p.axis, bottoms[0].ndim))
        y = np.concatenate(bottoms, axis=axis)
        if not self.onnx:
            return [y], None
        return [y], [self.node("Concat", ins, axis=axis)]

    def l_Slice(self, layer, bottoms, ins):
        p = layer.slice_param
        x = bottoms[0]
        axis = caffe_axis(p.axis, x.ndim)
        points = list(p.slice_point)
        parts = np.split(x, points, axis=axis)
        if not self.onnx:
            return parts, None
        bounds = [0] + points + [x.shape[axis]]
        outs = [self.node("Slice", [ins[0], self.const([lo], np.int64),
                                    self.const([hi], np.int64),
                                    self.const([axis], np.int64)])
                for lo, hi in zip(bounds, bounds[1:])]
        return parts, outs

    def l_Split(self, layer, bottoms, ins):
        n = len(layer.top)
        return [bottoms[0]] * n, [ins[0]] * n if self.onnx else None

    def reshape_to(self, x, ins, shape):
        y = x.reshape(shape)
        if not self.onnx:
            return [y], None
        return [y], [self.node("Reshape", [ins[0],
                                           self.const(shape, np.int64)])]

    def l_Flatten(self, layer, bottoms, ins):
        p = layer.flatten_param
        x = bottoms[0]
        a, e = caffe_axis(p.axis, x.ndim), caffe_axis(p.end_axis, x.ndim)
        shape = (list(x.shape[:a]) + [int(np.prod(x.shape[a:e + 1]))] +
                 list(x.shape[e + 1:]))
        return self.reshape_to(x, ins, shape)

    def l_Reshape(self, layer, bottoms, ins):
        x = bottoms[0]
        dims = [x.shape[i] if d == 0 else d
                for i, d in enumerate(layer.reshape_param.shape.dim)]
        if -1 in dims:
            known = -int(np.prod(dims))
            dims[dims.index(-1)] = x.size // known
        return self.reshape_to(x, ins, dims)

    def l_Permute(self, layer, bottoms, ins):
        x = bottoms[0]
        order = list(layer.permute_param.order)
        order += [i for i in range(x.ndim) if i not in order]
        y = np.transpose(x, order)
        return [y], [self.node("Transpose", ins, perm=order)] \
            if self.onnx else None

    # plugin layers (ONNX: nodes named after the built-in plugins) -----
    def l_Normalize(self, layer, bottoms, ins):
        p = layer.norm_param
        x = bottoms[0]
        scale = self.store(layer, [self.rng.uniform(
            5, 20, [] if p.channel_shared else [x.shape[1]])])[0]
        y = builtin_reference.normalize(x, np.atleast_1d(scale),
                                        p.across_spatial, p.channel_shared,
                                        p.eps)
        if not self.onnx:
            return [y], None
        weights = np.atleast_1d(scale).astype(np.float32).tolist()
        return [y], [self.node("Normalize_TRT", ins, domain=PLUGIN_DOMAIN, weights=weights,
                               nbWeights=len(weights),
                               acrossSpatial=int(p.across_spatial),
                               channelShared=int(p.channel_shared),
                               eps=p.eps)]

    def l_PriorBox(self, layer, bottoms, ins):
        p = layer.prior_box_param
        variance = list(p.variance) or [0.1]
        if len(variance) == 1:
            variance *= 4
        step = p.step if p.HasField("step") else 0.0
        y = builtin_reference.prior_box(
            bottoms[0].shape, bottoms[1].shape, list(p.min_size),
            list(p.max_size), list(p.aspect_ratio), p.flip, p.clip, variance,
            step_h=p.step_h or step, step_w=p.step_w or step,
            offset=p.offset)
        if not self.onnx:
            return [y.reshape(y.shape[:3])], None
        ratios = list(p.aspect_ratio)
        boxes = self.node(
            "PriorBox_TRT", ins, domain=PLUGIN_DOMAIN, minSize=list(p.min_size),
            maxSize=list(p.max_size), flip=int(p.flip), clip=int(p.clip),
            variance=variance, stepH=float(p.step_h or step),
            stepW=float(p.step_w or step), offset=p.offset,
            **({"aspectRatios": ratios} if ratios else {}))
        shape = self.const(np.array(y.shape[:3], np.int64), np.int64)
        return [y.reshape(y.shape[:3])], [self.node("Reshape", [boxes, shape])]

    def l_DetectionOutput(self, layer, bottoms, ins):
        p = layer.detection_output_param
        loc, conf, priors = bottoms
        n = loc.shape[0]
        params = {
            "shareLocation": int(p.share_location),
            "varianceEncodedInTarget": int(p.variance_encoded_in_target),
            "backgroundLabelId": p.background_label_id,
            "numClasses": p.num_classes,
            "topK": p.nms_param.top_k,
            "keepTopK": p.keep_top_k,
            "confidenceThreshold": p.confidence_threshold,
            "nmsThreshold": p.nms_param.nms_threshold,
            "inputOrder": [0, 1, 2],
            "confSigmoid": 0,
            "isNormalized": 1,
            "codeType": p.code_type - 1,
        }
        inputs = [loc.reshape(n, -1, 1, 1), conf.reshape(n, -1, 1, 1),
                  priors.reshape(priors.shape[0], 2, -1, 1)]
        det, _, ambiguous = detection_reference.nms_reference(inputs, params)
        self.detections += ambiguous
        # Scores that f32 cannot order the same way as float64 make the
        # comparison depend on noise: a class's top candidates, and the
        # detections kept over all classes, must be apart.
        scores = conf.reshape(n, -1, p.num_classes)
        for c in range(p.num_classes):
            if c == p.background_label_id:
                continue
            top = np.sort(scores[:, :, c], axis=1)[:, ::-1][
                :, :p.nms_param.top_k + 1]
            if np.min(-np.diff(top, axis=1)) < 2e-5:
                self.detections.append(f"class {c}: close scores")
        kept = det[:, 0, :, 2]
        if np.min(-np.diff(kept[kept > 0])) < 2e-5 if (kept > 0).sum() > 1 \
                else False:
            self.detections.append("kept detections: close scores")
        if not self.onnx:
            return [det.astype(np.float64)], None
        shaped = [self.node("Reshape", [name, self.const(
            np.array(array.shape, np.int64), np.int64)])
            for name, array in zip(ins, inputs)]
        self.counter += 1
        outputs = [f"t{self.counter}", f"t{self.counter}_count"]
        self.node("NMS_TRT", shaped, outputs, domain=PLUGIN_DOMAIN, **params)
        return [det.astype(np.float64)], outputs[:1]


    def l_RPROI(self, layer, bottoms, ins):
        """TensorRT's fused Faster R-CNN layer (RPROI_TRT): the proposals
        of detection_reference, then Caffe's max ROI pooling of them."""
        r, pool = layer.region_proposal_param, layer.roi_pooling_param
        fields = {
            "poolingH": pool.pooled_h, "poolingW": pool.pooled_w,
            "featureStride": r.feature_stride, "preNmsTop": r.prenms_top,
            "nmsMaxOut": r.nms_max_out, "iouThreshold": r.iou_threshold,
            "minBoxSize": r.min_box_size, "spatialScale": pool.spatial_scale,
            "anchorsRatioCount": r.anchor_ratio_count,
            "anchorsScaleCount": r.anchor_scale_count,
            "anchorsRatios": list(r.anchor_ratio),
            "anchorsScales": list(r.anchor_scale)}
        scores, deltas, feature, im_info = bottoms
        n = scores.shape[0]
        info = im_info.reshape(n, 3)
        rois, ambiguous = detection_reference.proposals_reference(
            scores, deltas, info, fields)
        self.detections += ambiguous
        # The scores and deltas are computed here in float64 and there in
        # f32: proposals whose order or pooling windows depend on that noise
        # make the comparison a draw.
        a = scores.shape[1] // 2
        fg = np.sort(scores[:, a:].reshape(n, -1), axis=1)[:, ::-1]
        fg = fg[:, :r.prenms_top + 1]
        if np.min(-np.diff(fg, axis=1)) < 1e-5:
            self.detections.append("RPROI: close proposal scores")
        scaled = rois * pool.spatial_scale
        if np.any(np.abs(scaled - np.floor(scaled) - 0.5) < 1e-3):
            self.detections.append("RPROI: a roi coordinate rounds at .5")
        pooled = detection_reference.roi_pool_reference(
            feature.astype(np.float32), rois.astype(np.float32), fields)
        if not self.onnx:
            return [rois, pooled.astype(np.float64)], None
        self.counter += 1
        outputs = [f"t{self.counter}", f"t{self.counter}_pooled"]
        shape = self.const(np.array([n, 3], np.int64), np.int64)
        info_name = self.node("Reshape", [ins[3], shape])
        self.node("RPROI_TRT", ins[:3] + [info_name], outputs,
                  domain=PLUGIN_DOMAIN,
                  **{k: (float(v) if isinstance(v, float) else v)
                     for k, v in fields.items()})
        return [rois, pooled.astype(np.float64)], outputs


def write_caffemodel(net_class, name, weights, path):
    model = net_class()
    model.name = name
    for layer_name, layer_type, arrays in weights:
        layer = model.layer.add()
        layer.name = layer_name
        layer.type = layer_type
        for array, legacy in arrays:
            blob = layer.blobs.add()
            if legacy:
                dims = [1] * (4 - array.ndim) + list(array.shape)
                blob.num, blob.channels, blob.height, blob.width = dims
            else:
                blob.shape.dim.extend(array.shape)
            blob.data.extend(array.reshape(-1).tolist())
    # A layer the prototxt does not have: Caffe ignores it, and so does kiln.
    model.layer.add(name="loss", type="SoftmaxWithLoss")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def write_onnx(net, path):
    import onnx
    import onnx.helper as oh
    from onnx import TensorProto
    outputs = []
    for name in net.output_names:
        value = net.onnx_names[name]
        net.nodes.append(oh.make_node("Identity", [value], [name + "_out"]))
        outputs.append(oh.make_tensor_value_info(
            name + "_out", TensorProto.FLOAT, list(net.blobs[name].shape)))
    graph = oh.make_graph(net.nodes, net.net.name or "net",
                          net.graph_inputs, outputs, net.inits)
    opsets = [oh.make_opsetid("", 13)]
    if any(n.domain == PLUGIN_DOMAIN for n in net.nodes):
        opsets.append(oh.make_opsetid(PLUGIN_DOMAIN, 1))
    model = oh.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prototxt")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--onnx", action="store_true")
    parser.add_argument("--outputs", default="",
                        help="comma-separated blobs to write as the outputs "
                        "(kiln's --output), instead of Caffe's")
    args = parser.parse_args()
    net_class = caffe_messages()
    definition = net_class()
    with open(args.prototxt) as f:
        text_format.Parse(f.read(), definition)
    for seed in range(args.seed, args.seed + 50):
        net = Net(definition, np.random.default_rng(seed), args.onnx)
        net.run()
        if args.outputs:
            net.output_names = args.outputs.split(",")
        if not net.detections:
            break
        print(f"seed {seed}: redrawn ({net.detections[0]})")
    else:
        sys.exit("no seed gives detections clear of float32 noise")
    os.makedirs(os.path.join(args.out, "ref"), exist_ok=True)
    write_caffemodel(net_class, definition.name, net.weights,
                     os.path.join(args.out, "net.caffemodel"))
    for k, (name, x) in enumerate(net.inputs):
        np.save(os.path.join(args.out, f"input_{k}.npy"), x)
    for k, name in enumerate(net.output_names):
        np.save(os.path.join(args.out, "ref", f"output_{k}.npy"),
                net.blobs[name].astype(np.float32))
    if args.onnx:
        write_onnx(net, os.path.join(args.out, "net.onnx"))
    print(f"seed {seed}: inputs {[n for n, _ in net.inputs]}, outputs "
          f"{net.output_names} "
          f"{[list(net.blobs[n].shape) for n in net.output_names]}")


if __name__ == "__main__":
    main()
