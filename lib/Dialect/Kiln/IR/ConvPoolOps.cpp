//===- ConvPoolOps.cpp - convolution and pooling ops ------------*- C++ -*-===//
//
// Verification and shape inference of kiln.convolution, kiln.deconvolution,
// kiln.pool and kiln.global_pool: layers over N x C x spatial tensors (or,
// channels last, N x spatial x C: checked in the channels-first order).
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/Layout.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

namespace {
/// The checked window attributes of a layer with `k` spatial dimensions.
struct WindowAttrs {
  ArrayRef<int64_t> strides, pads, dilations;
};
} // namespace

/// Checks that `input` is N x C x spatial and the window attributes have one
/// entry per spatial dimension (two for pads).
static FailureOr<RankedTensorType>
checkSpatialInput(ShapeInference &s, Value input, const WindowAttrs &w) {
  FailureOr<RankedTensorType> in = s.rankedTensor(input, "input");
  if (failed(in))
    return failure();
  if (in->getRank() < 3)
    return s.fail("expects input of rank >= 3 (N x C x spatial), got " +
                  formatShape(in->getShape()));
  size_t k = in->getRank() - 2;
  if (failed(s.checkSize("strides", w.strides, k)) ||
      failed(s.checkPositive("strides", w.strides)) ||
      failed(s.checkSize("pads", w.pads, 2 * k)) ||
      failed(s.checkNonNegative("pads", w.pads)) ||
      failed(s.checkSize("dilations", w.dilations, k)) ||
      failed(s.checkPositive("dilations", w.dilations)))
    return failure();
  return in;
}

/// Checks that `filter` is a tensor of the input's rank and element type.
static FailureOr<RankedTensorType>
checkFilter(ShapeInference &s, RankedTensorType in, Value filter) {
  FailureOr<RankedTensorType> type = s.tensor(filter, "filter");
  if (failed(type))
    return failure();
  if (type->getElementType() != in.getElementType())
    return s.fail("expects filter to have the input's element type");
  if (type->getRank() != in.getRank())
    return s.fail("expects filter of rank " + Twine(in.getRank()) + ", got " +
                  formatShape(type->getShape()));
  return type;
}

/// `type` with its dimensions permuted (result[i] = type[perm[i]]).
static RankedTensorType permuted(RankedTensorType type,
                                 ArrayRef<int64_t> perm) {
  return RankedTensorType::get(permute(type.getShape(), perm),
                               type.getElementType());
}

/// The result shape, given in the channels-first order, in `layout`.
static SmallVector<int64_t> inLayout(ArrayRef<int64_t> shape, Layout layout) {
  if (layout == Layout::ChannelsFirst)
    return SmallVector<int64_t>(shape);
  return permute(shape, getToChannelsLast(shape.size()));
}

/// Checks that the optional bias holds `count` values of `element`.
static LogicalResult checkBias(ShapeInference &s, Value bias, int64_t count,
                               Type element) {
  if (!bias)
    return success();
  FailureOr<RankedTensorType> type = s.tensor(bias, "bias");
  if (failed(type))
    return failure();
  return s.checkVector("bias", *type, count, element);
}

//===----------------------------------------------------------------------===//
// ConvolutionOp
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  WindowAttrs w{adaptor.getStrides(), adaptor.getPads(),
                adaptor.getDilations()};
  FailureOr<RankedTensorType> in = checkSpatialInput(s, adaptor.getInput(), w);
  if (failed(in))
    return failure();
  FailureOr<RankedTensorType> filter = checkFilter(s, *in, adaptor.getFilter());
  if (failed(filter))
    return failure();
  Layout layout = adaptor.getLayout();
  if (layout == Layout::ChannelsLast) {
    in = permuted(*in, getToChannelsFirst(in->getRank()));
    filter = permuted(*filter, getFilterToChannelsFirst(filter->getRank()));
  }
  Type element = in->getElementType();
  int64_t k = in->getRank() - 2;
  int64_t groups = static_cast<int64_t>(adaptor.getGroups());
  int64_t channels = in->getDimSize(1), outChannels = filter->getDimSize(0);
  if (failed(s.checkStatic(*in, 1, "the channel count")))
    return failure();
  if (groups <= 0)
    return s.fail("expects 'groups' to be positive, got " + Twine(groups));
  if (channels % groups != 0 || outChannels % groups != 0)
    return s.fail("expects input channels (" + Twine(channels) +
                  ") and output channels (" + Twine(outChannels) +
                  ") to be divisible by groups (" + Twine(groups) + ")");
  if (filter->getDimSize(1) * groups != channels)
    return s.fail(
        "expects filter dimension 1 to be input channels / groups = " +
        Twine(channels / groups) + ", got " + Twine(filter->getDimSize(1)));
  if (failed(checkBias(s, adaptor.getBias(), outChannels, element)))
    return failure();

  SmallVector<int64_t> shape = {in->getDimSize(0), outChannels};
  for (int64_t i = 0; i < k; ++i) {
    if (in->isDynamicDim(2 + i)) { // Checked when the shape is known.
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    __int128 window =
        (__int128)w.dilations[i] * (filter->getDimSize(2 + i) - 1) + 1;
    __int128 padded =
        (__int128)in->getDimSize(2 + i) + w.pads[i] + w.pads[k + i];
    if (window > padded)
      return s.fail("expects the dilated filter (" + Twine((int64_t)window) +
                    ") to fit the padded input (" + Twine((int64_t)padded) +
                    ") in spatial dimension " + Twine(i));
    FailureOr<int64_t> extent =
        s.checkedExtent((padded - window) / w.strides[i] + 1, "output extent");
    if (failed(extent))
      return failure();
    shape.push_back(*extent);
  }
  return s.result(inLayout(shape, layout), element);
}

//===----------------------------------------------------------------------===//
// DeconvolutionOp
//===----------------------------------------------------------------------===//

LogicalResult
DeconvolutionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  WindowAttrs w{adaptor.getStrides(), adaptor.getPads(),
                adaptor.getDilations()};
  FailureOr<RankedTensorType> in = checkSpatialInput(s, adaptor.getInput(), w);
  if (failed(in))
    return failure();
  FailureOr<RankedTensorType> filter = checkFilter(s, *in, adaptor.getFilter());
  if (failed(filter))
    return failure();
  Type element = in->getElementType();
  int64_t k = in->getRank() - 2;
  ArrayRef<int64_t> outputPadding = adaptor.getOutputPadding();
  if (failed(s.checkSize("output_padding", outputPadding, k)) ||
      failed(s.checkNonNegative("output_padding", outputPadding)))
    return failure();
  int64_t groups = static_cast<int64_t>(adaptor.getGroups());
  int64_t channels = in->getDimSize(1);
  if (failed(s.checkStatic(*in, 1, "the channel count")))
    return failure();
  if (groups <= 0)
    return s.fail("expects 'groups' to be positive, got " + Twine(groups));
  if (channels % groups != 0)
    return s.fail("expects input channels (" + Twine(channels) +
                  ") to be divisible by groups (" + Twine(groups) + ")");
  if (filter->getDimSize(0) != channels)
    return s.fail("expects filter dimension 0 to equal input channels (" +
                  Twine(channels) + "), got " + Twine(filter->getDimSize(0)));
  int64_t outChannels = filter->getDimSize(1) * groups;
  if (failed(checkBias(s, adaptor.getBias(), outChannels, element)))
    return failure();

  SmallVector<int64_t> shape = {in->getDimSize(0), outChannels};
  for (int64_t i = 0; i < k; ++i) {
    if (outputPadding[i] >= std::max(w.strides[i], w.dilations[i]))
      return s.fail("expects 'output_padding' entries to be smaller than the "
                    "stride or the dilation, got " +
                    Twine(outputPadding[i]) + " at index " + Twine(i));
    if (in->isDynamicDim(2 + i)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    __int128 extent =
        (__int128)w.strides[i] * (in->getDimSize(2 + i) - 1) +
        outputPadding[i] +
        (__int128)w.dilations[i] * (filter->getDimSize(2 + i) - 1) + 1 -
        w.pads[i] - w.pads[k + i];
    if (extent < 1)
      return s.fail("expects pads to leave a positive output extent in "
                    "spatial dimension " +
                    Twine(i));
    FailureOr<int64_t> checked = s.checkedExtent(extent, "output extent");
    if (failed(checked))
      return failure();
    shape.push_back(*checked);
  }
  return s.result(shape, element);
}

//===----------------------------------------------------------------------===//
// PoolOp
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  WindowAttrs w{adaptor.getStrides(), adaptor.getPads(),
                adaptor.getDilations()};
  FailureOr<RankedTensorType> in = checkSpatialInput(s, adaptor.getInput(), w);
  if (failed(in))
    return failure();
  Layout layout = adaptor.getLayout();
  if (layout == Layout::ChannelsLast)
    in = permuted(*in, getToChannelsFirst(in->getRank()));
  int64_t k = in->getRank() - 2;
  ArrayRef<int64_t> window = adaptor.getWindow();
  if (failed(s.checkSize("window", window, k)) ||
      failed(s.checkPositive("window", window)))
    return failure();

  SmallVector<int64_t> shape = {in->getDimSize(0), in->getDimSize(1)};
  for (int64_t i = 0; i < k; ++i) {
    __int128 extent = (__int128)w.dilations[i] * (window[i] - 1) + 1;
    if (w.pads[i] >= extent || w.pads[k + i] >= extent)
      return s.fail("expects pads to be smaller than the window extent (" +
                    Twine((int64_t)extent) + ") in spatial dimension " +
                    Twine(i));
    if (in->isDynamicDim(2 + i)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    __int128 input = in->getDimSize(2 + i);
    __int128 span = input + w.pads[i] + w.pads[k + i] - extent;
    if (span < 0)
      return s.fail("expects the window (" + Twine((int64_t)extent) +
                    ") to fit the padded input in spatial dimension " +
                    Twine(i));
    __int128 stride = w.strides[i];
    __int128 out = span / stride + 1;
    if (adaptor.getCeilMode()) {
      out = (span + stride - 1) / stride + 1;
      // The last window must start inside the input or its begin padding.
      if ((out - 1) * stride >= input + w.pads[i])
        --out;
    }
    FailureOr<int64_t> checked = s.checkedExtent(out, "output extent");
    if (failed(checked))
      return failure();
    shape.push_back(*checked);
  }
  return s.result(inLayout(shape, layout), in->getElementType());
}

LogicalResult PoolOp::verify() {
  if (getCountIncludePad() && getKind() != PoolKind::Average)
    return emitOpError("'count_include_pad' applies to average pooling only");
  if (getKind() == PoolKind::Average &&
      !isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("average pooling expects floating-point elements");
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalPoolOp
//===----------------------------------------------------------------------===//

LogicalResult GlobalPoolOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  if (in->getRank() < 3)
    return s.fail("expects input of rank >= 3 (N x C x spatial), got " +
                  formatShape(in->getShape()));
  // The batch and the channels stay; every spatial extent becomes 1.
  SmallVector<int64_t> shape(in->getRank(), 1);
  shape[0] = in->getDimSize(0);
  int64_t channel =
      adaptor.getLayout() == Layout::ChannelsLast ? in->getRank() - 1 : 1;
  shape[channel] = in->getDimSize(channel);
  return s.result(shape, in->getElementType());
}
