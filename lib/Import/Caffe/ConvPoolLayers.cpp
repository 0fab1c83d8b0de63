//===- ConvPoolLayers.cpp - Caffe's convolution, pooling, inner product ---===//
//
// Convolution and Deconvolution (kernel_size, stride, pad and dilation given
// once, per spatial dimension, or as the 2-D _h/_w fields; group; bias_term),
// Pooling (MAX and AVE, global_pooling, Caffe's output size, which rounds up
// by default) and InnerProduct (axis, transpose). The weights are the
// layer's blobs, checked against the shapes the parameters imply.
//
//===----------------------------------------------------------------------===//

#include "LayerContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;

namespace {

/// One value per spatial dimension from a repeated field given 0 times
/// (`dflt`), once (for every dimension) or once per dimension.
FailureOr<SmallVector<int64_t>>
perDimension(LayerContext &lc,
             const google::protobuf::RepeatedField<uint32_t> &values,
             int64_t spatial, int64_t dflt, llvm::StringRef what) {
  if (values.empty())
    return SmallVector<int64_t>(spatial, dflt);
  if (values.size() == 1)
    return SmallVector<int64_t>(spatial, values.Get(0));
  if (values.size() != spatial)
    return lc.fail(what + " has " + Twine(values.size()) +
                   " values; give 1 or one per spatial dimension (" +
                   Twine(spatial) + ")");
  return SmallVector<int64_t>(values.begin(), values.end());
}

/// The window of a Convolution or Deconvolution over an input of
/// `spatial` spatial dimensions, as Caffe's BaseConvolutionLayer reads it.
struct ConvWindow {
  SmallVector<int64_t> kernel, stride, pad, dilation;
};

FailureOr<ConvWindow> readConvWindow(LayerContext &lc,
                                     const caffe::ConvolutionParameter &p,
                                     int64_t spatial) {
  ConvWindow w;
  bool hw = p.has_kernel_h() || p.has_kernel_w();
  if (hw) {
    if (spatial != 2)
      return lc.fail("kernel_h and kernel_w are for 2-D convolutions; the "
                     "bottom has " +
                     Twine(spatial) + " spatial dimensions");
    if (!p.kernel_size().empty())
      return lc.fail("give kernel_size or kernel_h and kernel_w, not both");
    if (!p.has_kernel_h() || !p.has_kernel_w())
      return lc.fail("kernel_h and kernel_w must be given together");
    w.kernel = {p.kernel_h(), p.kernel_w()};
  } else {
    if (p.kernel_size().empty())
      return lc.fail("has no kernel size (kernel_size, or kernel_h and "
                     "kernel_w)");
    FailureOr<SmallVector<int64_t>> k =
        perDimension(lc, p.kernel_size(), spatial, 1, "kernel_size");
    if (failed(k))
      return failure();
    w.kernel = *k;
  }
  if (p.has_stride_h() || p.has_stride_w()) {
    if (spatial != 2 || !p.stride().empty() || !p.has_stride_h() ||
        !p.has_stride_w())
      return lc.fail("stride_h and stride_w go together, instead of stride, "
                     "on 2-D convolutions");
    w.stride = {p.stride_h(), p.stride_w()};
  } else {
    FailureOr<SmallVector<int64_t>> s =
        perDimension(lc, p.stride(), spatial, 1, "stride");
    if (failed(s))
      return failure();
    w.stride = *s;
  }
  if (p.has_pad_h() || p.has_pad_w()) {
    if (spatial != 2 || !p.pad().empty())
      return lc.fail("pad_h and pad_w go instead of pad, on 2-D "
                     "convolutions");
    w.pad = {p.pad_h(), p.pad_w()};
  } else {
    FailureOr<SmallVector<int64_t>> pad =
        perDimension(lc, p.pad(), spatial, 0, "pad");
    if (failed(pad))
      return failure();
    w.pad = *pad;
  }
  FailureOr<SmallVector<int64_t>> d =
      perDimension(lc, p.dilation(), spatial, 1, "dilation");
  if (failed(d))
    return failure();
  w.dilation = *d;
  for (int64_t i = 0; i < spatial; ++i)
    if (failed(lc.checkAtLeast(w.kernel[i], 1, "the kernel size")) ||
        failed(lc.checkAtLeast(w.stride[i], 1, "the stride")) ||
        failed(lc.checkAtLeast(w.dilation[i], 1, "the dilation")))
      return failure();
  return w;
}

/// Convolution (`transposed` false) and Deconvolution.
template <bool transposed> LogicalResult convolution(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::ConvolutionParameter &p = lc.layer.convolution_param();
  auto input = lc.bottomType(0);
  if (p.axis() != 1 && p.axis() != 1 - input.getRank())
    return lc.fail("axis " + Twine(p.axis()) +
                   " is not supported (channels must be axis 1)");
  if (input.getRank() < 3)
    return lc.fail("expects a bottom of rank >= 3 (N x C x spatial), got " +
                   formatDims(input.getShape()));
  int64_t spatial = input.getRank() - 2;
  FailureOr<ConvWindow> w = readConvWindow(lc, p, spatial);
  if (failed(w))
    return failure();
  int64_t channels = input.getDimSize(1);
  int64_t outputs = p.num_output(), group = p.group();
  if (failed(lc.checkAtLeast(outputs, 1, "num_output")) ||
      failed(lc.checkAtLeast(group, 1, "group")))
    return failure();
  if (channels % group != 0)
    return lc.fail("group " + Twine(group) + " does not divide the " +
                   Twine(channels) + " input channels");
  if (outputs % group != 0)
    return lc.fail("group " + Twine(group) + " does not divide num_output " +
                   Twine(outputs));
  if (failed(lc.requireBlobs(p.bias_term() ? 2 : 1,
                             p.bias_term() ? "weights and bias" : "weights")))
    return failure();
  SmallVector<int64_t> filterShape =
      transposed ? SmallVector<int64_t>{channels, outputs / group}
                 : SmallVector<int64_t>{outputs, channels / group};
  filterShape.append(w->kernel);
  FailureOr<Value> filter = lc.blobConstant(0, filterShape, "weights");
  if (failed(filter))
    return failure();
  SmallVector<Value> operands = {lc.bottom(0), *filter};
  if (p.bias_term()) {
    FailureOr<Value> bias = lc.blobConstant(1, {outputs}, "bias");
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  SmallVector<int64_t> pads(w->pad);
  pads.append(w->pad);
  SmallVector<NamedAttribute> attrs = {
      lc.named("strides", lc.i64s(w->stride)), lc.named("pads", lc.i64s(pads)),
      lc.named("dilations", lc.i64s(w->dilation)),
      lc.named("groups", lc.b.getI64IntegerAttr(group))};
  if (!transposed)
    return lc.result(lc.create<ConvolutionOp>(operands, attrs));
  attrs.push_back(
      lc.named("output_padding", lc.i64s(SmallVector<int64_t>(spatial, 0))));
  return lc.result(lc.create<DeconvolutionOp>(operands, attrs));
}

/// Caffe's pooled extent: (in + 2 pad - kernel) / stride rounded up (CEIL,
/// the default) or down, plus 1; with padding, a last window that would
/// start in the end padding is dropped.
int64_t caffePooledExtent(int64_t in, int64_t kernel, int64_t stride,
                          int64_t pad, bool ceil, bool anyPad) {
  int64_t span = in + 2 * pad - kernel;
  int64_t out = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
  if (anyPad && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

LogicalResult pooling(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::PoolingParameter &p = lc.layer.pooling_param();
  auto input = lc.bottomType(0);
  if (input.getRank() != 4)
    return lc.fail("expects a 4-D bottom (N x C x H x W), got " +
                   formatDims(input.getShape()));
  if (p.pool() == caffe::PoolingParameter::STOCHASTIC)
    return lc.fail("pool STOCHASTIC is not supported (MAX and AVE are)");
  PoolKind kind = p.pool() == caffe::PoolingParameter::MAX ? PoolKind::Max
                                                           : PoolKind::Average;
  bool hasKernel = p.has_kernel_size() || p.has_kernel_h() || p.has_kernel_w();
  if (p.global_pooling()) {
    if (hasKernel)
      return lc.fail("global_pooling takes no kernel size");
    if (p.pad() || p.pad_h() || p.pad_w() || p.stride() != 1 ||
        (p.has_stride_h() && p.stride_h() != 1) ||
        (p.has_stride_w() && p.stride_w() != 1))
      return lc.fail("global_pooling takes pad 0 and stride 1");
    return lc.result(lc.create<GlobalPoolOp>(
        {lc.bottom(0)},
        {lc.named("kind", PoolKindAttr::get(lc.b.getContext(), kind))}));
  }
  if (p.has_kernel_size() && (p.has_kernel_h() || p.has_kernel_w()))
    return lc.fail("give kernel_size or kernel_h and kernel_w, not both");
  if (!p.has_kernel_size() && !(p.has_kernel_h() && p.has_kernel_w()))
    return lc.fail("has no kernel size (kernel_size, or kernel_h and "
                   "kernel_w)");
  if ((p.has_pad() && (p.has_pad_h() || p.has_pad_w())) ||
      (p.has_stride() && (p.has_stride_h() || p.has_stride_w())))
    return lc.fail("give pad or pad_h and pad_w (stride or stride_h and "
                   "stride_w), not both");
  int64_t kernel[2] = {p.has_kernel_size() ? p.kernel_size() : p.kernel_h(),
                       p.has_kernel_size() ? p.kernel_size() : p.kernel_w()};
  int64_t pad[2] = {p.has_pad_h() ? p.pad_h() : p.pad(),
                    p.has_pad_w() ? p.pad_w() : p.pad()};
  int64_t stride[2] = {p.has_stride_h() ? p.stride_h() : p.stride(),
                       p.has_stride_w() ? p.stride_w() : p.stride()};
  bool ceil = p.round_mode() == caffe::PoolingParameter::CEIL;
  bool anyPad = pad[0] || pad[1];
  SmallVector<int64_t> expected = {input.getDimSize(0), input.getDimSize(1)};
  for (int i = 0; i < 2; ++i) {
    if (failed(lc.checkAtLeast(kernel[i], 1, "the kernel size")) ||
        failed(lc.checkAtLeast(stride[i], 1, "the stride")))
      return failure();
    if (pad[i] >= kernel[i])
      return lc.fail("pad " + Twine(pad[i]) +
                     " must be smaller than the kernel size " +
                     Twine(kernel[i]));
    int64_t in = input.getDimSize(2 + i);
    if (in + 2 * pad[i] < kernel[i])
      return lc.fail("kernel size " + Twine(kernel[i]) +
                     " is larger than the padded input (" +
                     Twine(in + 2 * pad[i]) + ") in spatial dimension " +
                     Twine(i));
    int64_t out =
        caffePooledExtent(in, kernel[i], stride[i], pad[i], ceil, anyPad);
    if ((out - 1) * stride[i] >= in + pad[i])
      return lc.fail("Caffe's output size " + Twine(out) +
                     " in spatial dimension " + Twine(i) +
                     " has a last window that starts past the input (stride " +
                     Twine(stride[i]) + " > kernel " + Twine(kernel[i]) +
                     " without padding); kiln does not make empty windows");
    expected.push_back(out);
  }
  SmallVector<NamedAttribute> attrs = {
      lc.named("kind", PoolKindAttr::get(lc.b.getContext(), kind)),
      lc.named("window", lc.i64s(kernel)),
      lc.named("strides", lc.i64s(stride)),
      lc.named("pads", lc.i64s({pad[0], pad[1], pad[0], pad[1]})),
      lc.named("dilations", lc.i64s({1, 1})),
      lc.named("ceil_mode", lc.b.getBoolAttr(ceil))};
  // Caffe's average divides by the window clipped to the padded input: the
  // padding counts, what ceil mode adds past it does not.
  if (kind == PoolKind::Average)
    attrs.push_back(lc.named("count_include_pad", lc.b.getBoolAttr(true)));
  FailureOr<Value> pooled = lc.create<PoolOp>({lc.bottom(0)}, attrs);
  if (failed(pooled))
    return failure();
  auto type = cast<RankedTensorType>(pooled->getType());
  if (type.getShape() != ArrayRef<int64_t>(expected))
    return lc.fail("kiln's pooled shape " + formatDims(type.getShape()) +
                   " differs from Caffe's " + formatDims(expected));
  return lc.result(pooled);
}

LogicalResult innerProduct(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::InnerProductParameter &p = lc.layer.inner_product_param();
  auto input = lc.bottomType(0);
  FailureOr<int64_t> axis = lc.axis(p.axis(), input.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t outputs = p.num_output();
  if (failed(lc.checkAtLeast(outputs, 1, "num_output")))
    return failure();
  int64_t inner = checkedProduct(input.getShape().drop_front(*axis));
  if (failed(lc.requireBlobs(p.bias_term() ? 2 : 1,
                             p.bias_term() ? "weights and bias" : "weights")))
    return failure();
  SmallVector<int64_t> shape = p.transpose()
                                   ? SmallVector<int64_t>{inner, outputs}
                                   : SmallVector<int64_t>{outputs, inner};
  FailureOr<std::vector<float>> weights = lc.blobValues(0, shape, "weights");
  if (failed(weights))
    return failure();
  if (p.transpose()) {
    // Stored K x N; kiln.fully_connected takes N x K.
    std::vector<float> t(weights->size());
    for (int64_t k = 0; k < inner; ++k)
      for (int64_t n = 0; n < outputs; ++n)
        t[n * inner + k] = (*weights)[k * outputs + n];
    weights->swap(t);
  }
  SmallVector<Value> operands = {lc.bottom(0),
                                 lc.constant({outputs, inner}, *weights)};
  if (p.bias_term()) {
    FailureOr<Value> bias = lc.blobConstant(1, {outputs}, "bias");
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  return lc.result(lc.create<FullyConnectedOp>(
      operands, {lc.named("axis", lc.b.getI64IntegerAttr(*axis))}));
}

} // namespace

void mlir::kiln::caffe_import::appendConvPoolHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Convolution", convolution<false>},
      {"Deconvolution", convolution<true>},
      {"Pooling", pooling},
      {"InnerProduct", innerProduct},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
