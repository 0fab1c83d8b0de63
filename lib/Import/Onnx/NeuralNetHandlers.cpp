//===- NeuralNetHandlers.cpp - ONNX layers ----------------------*- C++ -*-===//
//
// Handlers for ONNX's network layers: Conv, ConvTranspose (auto_pad and
// output_shape resolved to explicit pads), ConvInteger, MatMulInteger,
// MaxPool, AveragePool, LpPool, the global pools, BatchNormalization
// (inference, and training mode's batch statistics), InstanceNormalization,
// RMSNormalization (as reductions and elementwise ops), LRN, Gemm,
// MatMul (vectors reshaped to matrices), Softmax and LogSoftmax (opset < 13
// flattening semantics included).
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// Kernel, strides, dilations and explicit pads of a windowed layer.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// Reads the window attributes of a node over `input` (N x C x spatial);
/// `kernel` comes from kernel_shape or, for convolutions, the filter. With
/// `resolveAutoPad`, auto_pad SAME_* and VALID become explicit pads;
/// ConvTranspose, whose auto_pad means something else, resolves it itself.
FailureOr<Window> readWindow(NodeContext &nc, RankedTensorType input,
                             ArrayRef<int64_t> kernelFromFilter,
                             bool resolveAutoPad = true) {
  int64_t rank = input.getRank();
  if (rank < 3)
    return nc.fail("expects an input of rank >= 3 (N x C x spatial), got " +
                   formatDims(input.getShape()));
  size_t k = rank - 2;
  Window w;
  w.kernel = nc.getInts("kernel_shape");
  if (w.kernel.empty())
    w.kernel.assign(kernelFromFilter.begin(), kernelFromFilter.end());
  w.strides = nc.getInts("strides");
  w.dilations = nc.getInts("dilations");
  w.pads = nc.getInts("pads");
  if (w.strides.empty())
    w.strides.assign(k, 1);
  if (w.dilations.empty())
    w.dilations.assign(k, 1);
  if (w.kernel.size() != k || w.strides.size() != k || w.dilations.size() != k)
    return nc.fail("expects kernel_shape, strides and dilations with " +
                   Twine(k) + " entries");
  for (size_t i = 0; i < k; ++i)
    if (w.kernel[i] <= 0 || w.strides[i] <= 0 || w.dilations[i] <= 0)
      return nc.fail("expects positive kernel_shape, strides and dilations");
  std::string autoPad =
      resolveAutoPad ? nc.getString("auto_pad", "NOTSET") : "NOTSET";
  if (autoPad == "NOTSET") {
    if (w.pads.empty())
      w.pads.assign(2 * k, 0);
    if (w.pads.size() != 2 * k)
      return nc.fail("expects 'pads' with " + Twine(2 * k) + " entries, got " +
                     Twine(w.pads.size()));
  } else if (autoPad == "VALID") {
    w.pads.assign(2 * k, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    w.pads.assign(2 * k, 0);
    for (size_t i = 0; i < k; ++i) {
      if (input.isDynamicDim(2 + i))
        return nc.unsupported("auto_pad " + autoPad +
                              " over a dynamic spatial dimension (" +
                              formatDims(input.getShape()) +
                              "): its padding depends on the run-time size");
      int64_t in = input.getDimSize(2 + i);
      int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      int64_t total =
          std::max<int64_t>((out - 1) * w.strides[i] +
                                (w.kernel[i] - 1) * w.dilations[i] + 1 - in,
                            0);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[k + i] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else {
    return nc.fail("unknown auto_pad '" + autoPad + "'");
  }
  return w;
}

/// Checks that the filter has the input's rank (both N x C x spatial).
LogicalResult checkFilterRank(NodeContext &nc) {
  auto input = nc.inputType(0), filter = nc.inputType(1);
  if (input.getRank() < 3 || filter.getRank() != input.getRank())
    return nc.fail("expects input and filter of one rank >= 3, got " +
                   formatDims(input.getShape()) + " and " +
                   formatDims(filter.getShape()));
  return success();
}

/// The window of a convolution whose filter is input 1 (kernel_shape, when
/// given, must match the filter's spatial shape).
FailureOr<Window> convWindow(NodeContext &nc) {
  if (failed(nc.requireInputs(2)) || failed(checkFilterRank(nc)))
    return failure();
  ArrayRef<int64_t> kernel = nc.inputType(1).getShape().drop_front(2);
  FailureOr<Window> w = readWindow(nc, nc.inputType(0), kernel);
  if (failed(w))
    return failure();
  if (ArrayRef<int64_t>(w->kernel) != kernel)
    return nc.fail("kernel_shape does not match the filter's spatial shape");
  return w;
}

/// A kiln.convolution of (input, filter[, bias]) over `w`.
FailureOr<Value> convolution(NodeContext &nc, ValueRange operands,
                             const Window &w) {
  return nc.create<ConvolutionOp>(
      operands,
      {nc.named("strides", nc.i64s(w.strides)),
       nc.named("pads", nc.i64s(w.pads)),
       nc.named("dilations", nc.i64s(w.dilations)),
       nc.named("groups", nc.b.getI64IntegerAttr(nc.getInt("group", 1)))});
}

LogicalResult conv(NodeContext &nc) {
  FailureOr<Window> w = convWindow(nc);
  if (failed(w))
    return failure();
  SmallVector<Value> operands = {nc.input(0), nc.input(1)};
  if (nc.hasInput(2))
    operands.push_back(nc.input(2));
  return nc.result(convolution(nc, operands, *w));
}

/// An 8-bit operand of ConvInteger or MatMulInteger minus its zero point
/// (input `zeroPoint`, when given, reshaped to `zeroShape` unless a
/// scalar), in `wide`.
FailureOr<Value> centered(NodeContext &nc, unsigned operand, unsigned zeroPoint,
                          ArrayRef<int64_t> zeroShape, Type wide) {
  auto type = nc.inputType(operand);
  if (!type.getElementType().isInteger(8))
    return nc.fail("expects 8-bit integer operands");
  FailureOr<Value> x = nc.castTo(nc.input(operand), wide);
  if (failed(x) || !nc.hasInput(zeroPoint))
    return x;
  auto zeroType = nc.inputType(zeroPoint);
  if (zeroType.getElementType() != type.getElementType())
    return nc.fail("a zero point differs in type from its operand");
  FailureOr<Value> zero = nc.input(zeroPoint);
  if (zeroType.getNumElements() != 1) {
    int64_t count = 1;
    for (int64_t d : zeroShape)
      count *= d;
    if (zeroType.getNumElements() != count)
      return nc.fail("a zero point has " + Twine(zeroType.getNumElements()) +
                     " entries, expected 1 or " + Twine(count));
    zero = nc.reshape(*zero, zeroShape);
  }
  if (failed(zero) || failed(zero = nc.castTo(*zero, wide)))
    return failure();
  return nc.binary(BinaryKind::Sub, *x, *zero);
}

/// ConvInteger: the convolution of (x - x_zero_point) and (w -
/// w_zero_point, per output channel) into int32, computed in f32 where no
/// partial sum can reach 2^24 (so exactly), else in f64.
LogicalResult convInteger(NodeContext &nc) {
  FailureOr<Window> w = convWindow(nc);
  if (failed(w))
    return failure();
  if (nc.hasInput(2) && nc.inputType(2).getNumElements() != 1)
    return nc.fail("expects a scalar x_zero_point");
  auto filter = nc.inputType(1);
  int64_t terms = 1;
  for (int64_t d : filter.getShape().drop_front(1))
    terms *= d;
  Type wide = terms * 255 * 255 < (int64_t(1) << 24) ? nc.b.getF32Type()
                                                     : nc.b.getF64Type();
  SmallVector<int64_t> perChannel(filter.getRank(), 1);
  perChannel[0] = filter.getDimSize(0);
  FailureOr<Value> x = centered(nc, 0, 2, {}, wide);
  FailureOr<Value> f = failed(x) ? x : centered(nc, 1, 3, perChannel, wide);
  FailureOr<Value> y = failed(f) ? f : convolution(nc, {*x, *f}, *w);
  if (failed(y))
    return failure();
  return nc.result(nc.castTo(*y, nc.b.getI32Type()));
}

/// MatMulInteger: (A - a_zero_point, per row) times (B - b_zero_point, per
/// column) in int32.
LogicalResult matmulInteger(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto a = nc.inputType(0), b = nc.inputType(1);
  if (a.getRank() < 2 || b.getRank() < 2)
    return nc.unsupported("MatMulInteger of vectors is not supported");
  Type i32 = nc.b.getI32Type();
  FailureOr<Value> lhs =
      centered(nc, 0, 2, {a.getDimSize(a.getRank() - 2), 1}, i32);
  FailureOr<Value> rhs =
      failed(lhs) ? lhs
                  : centered(nc, 1, 3, {b.getDimSize(b.getRank() - 1)}, i32);
  if (failed(rhs))
    return failure();
  return nc.result(nc.create<MatmulOp>({*lhs, *rhs}));
}

LogicalResult convTranspose(NodeContext &nc) {
  if (failed(nc.requireInputs(2)) || failed(checkFilterRank(nc)))
    return failure();
  auto input = nc.inputType(0);
  auto filter = nc.inputType(1);
  std::string autoPad = nc.getString("auto_pad", "NOTSET");
  // auto_pad for ConvTranspose means "output = input * stride".
  FailureOr<Window> w = readWindow(nc, input, filter.getShape().drop_front(2),
                                   /*resolveAutoPad=*/false);
  if (failed(w))
    return failure();
  size_t k = w->kernel.size();
  SmallVector<int64_t> outputPadding = nc.getInts("output_padding");
  if (outputPadding.empty())
    outputPadding.assign(k, 0);
  SmallVector<int64_t> outputShape = nc.getInts("output_shape");
  if (!outputShape.empty() || autoPad == "SAME_UPPER" ||
      autoPad == "SAME_LOWER") {
    if (outputShape.empty())
      for (size_t i = 0; i < k; ++i)
        outputShape.push_back(input.getDimSize(2 + i) * w->strides[i]);
    if (outputShape.size() == k + 2)
      outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
    if (outputShape.size() != k)
      return nc.fail("expects output_shape with " + Twine(k) + " entries");
    // What pads >= 0 and output padding below max(stride, dilation) reach.
    for (size_t i = 0; i < k; ++i) {
      __int128 reach = (__int128)w->strides[i] * (input.getDimSize(2 + i) - 1) +
                       (__int128)(w->kernel[i] - 1) * w->dilations[i] + 1 +
                       std::max(w->strides[i], w->dilations[i]) - 1;
      if (outputShape[i] < 1 || outputShape[i] > reach)
        return nc.fail("output_shape entry " + Twine(outputShape[i]) +
                       " of spatial dimension " + Twine(i) +
                       " is not within 1.." +
                       Twine((int64_t)std::min<__int128>(
                           reach, std::numeric_limits<int64_t>::max())) +
                       " (what the strides, dilations and kernel reach)");
    }
    for (size_t i = 0; i < k; ++i) {
      int64_t total =
          w->strides[i] * (input.getDimSize(2 + i) - 1) + outputPadding[i] +
          ((w->kernel[i] - 1) * w->dilations[i] + 1) - outputShape[i];
      if (total < 0) {
        // Not reachable with pads alone: extend with output padding.
        outputPadding[i] -= total;
        total = 0;
      }
      int64_t half = total / 2;
      bool upper = autoPad == "SAME_UPPER";
      w->pads[i] = upper ? half : total - half;
      w->pads[k + i] = upper ? total - half : half;
    }
  } else if (autoPad == "VALID") {
    w->pads.assign(2 * k, 0);
  }
  SmallVector<Value> operands = {nc.input(0), nc.input(1)};
  if (nc.hasInput(2))
    operands.push_back(nc.input(2));
  return nc.result(nc.create<DeconvolutionOp>(
      operands,
      {nc.named("strides", nc.i64s(w->strides)),
       nc.named("pads", nc.i64s(w->pads)),
       nc.named("dilations", nc.i64s(w->dilations)),
       nc.named("output_padding", nc.i64s(outputPadding)),
       nc.named("groups", nc.b.getI64IntegerAttr(nc.getInt("group", 1)))}));
}

/// An average pool pads its input into a copy (a max pool reads it in
/// place): that copy is checked against the memory budget before anything
/// is built, as a window far larger than the input (auto_pad SAME with a
/// huge kernel_shape) would make it absurd.
LogicalResult checkPaddedInput(NodeContext &nc, RankedTensorType input,
                               const Window &w) {
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  size_t k = w.kernel.size();
  for (size_t i = 0; i < k; ++i) {
    __int128 extent =
        (__int128)input.getDimSize(2 + i) + w.pads[i] + w.pads[k + i];
    if (extent > std::numeric_limits<int64_t>::max())
      return nc.fail("the padded input overflows 64 bits in spatial "
                     "dimension " +
                     Twine(i));
    shape.push_back(static_cast<int64_t>(extent));
  }
  return nc.checkBudget("the padded input", shape, input.getElementType());
}

template <PoolKind kind> LogicalResult pool(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  if (nc.hasOutput(1))
    return nc.unsupported("the Indices output of MaxPool is not supported");
  if (nc.getInt("storage_order", 0) != 0)
    return nc.unsupported("storage_order = 1 is not supported");
  FailureOr<Window> w = readWindow(nc, nc.inputType(0), {});
  if (failed(w) || (kind == PoolKind::Average &&
                    failed(checkPaddedInput(nc, nc.inputType(0), *w))))
    return failure();
  SmallVector<NamedAttribute> attrs = {
      nc.named("kind", PoolKindAttr::get(nc.b.getContext(), kind)),
      nc.named("window", nc.i64s(w->kernel)),
      nc.named("strides", nc.i64s(w->strides)),
      nc.named("pads", nc.i64s(w->pads)),
      nc.named("dilations", nc.i64s(w->dilations)),
      nc.named("ceil_mode", nc.b.getBoolAttr(nc.getInt("ceil_mode", 0) != 0))};
  if (kind == PoolKind::Average && nc.getInt("count_include_pad", 0))
    attrs.push_back(nc.named("count_include_pad", nc.b.getBoolAttr(true)));
  return nc.result(nc.create<PoolOp>({nc.input(0)}, attrs));
}

/// LpPool (2, with an integer p): (sum over the window of |x|^p)^(1/p),
/// as an average pool of |x|^p that counts padding (which adds 0), times
/// the window's size.
LogicalResult lpPool(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  if (!isa<FloatType>(type.getElementType()))
    return nc.fail("expects a floating-point input");
  if (nc.getInt("ceil_mode", 0))
    return nc.unsupported("ceil_mode = 1 is not supported");
  int64_t p = nc.getInt("p", 2);
  if (p < 1)
    return nc.fail("p = " + Twine(p) + " is not positive");
  FailureOr<Window> w = readWindow(nc, type, {});
  if (failed(w) || failed(checkPaddedInput(nc, type, *w)))
    return failure();
  MLIRContext *context = nc.b.getContext();
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  auto unary = [&](UnaryKind kind, Value v) {
    return nc.create<UnaryOp>(
        {v}, {nc.named("kind", UnaryKindAttr::get(context, kind))});
  };
  FailureOr<Value> powered = unary(UnaryKind::Abs, nc.input(0));
  if (succeeded(powered) && p == 2)
    powered = nc.binary(BinaryKind::Mul, *powered, *powered);
  else if (succeeded(powered) && p > 2)
    powered = nc.binary(BinaryKind::Pow, *powered, nc.splat(scalarType, p));
  if (failed(powered))
    return failure();
  FailureOr<Value> mean = nc.create<PoolOp>(
      {*powered},
      {nc.named("kind", PoolKindAttr::get(context, PoolKind::Average)),
       nc.named("window", nc.i64s(w->kernel)),
       nc.named("strides", nc.i64s(w->strides)),
       nc.named("pads", nc.i64s(w->pads)),
       nc.named("dilations", nc.i64s(w->dilations)),
       nc.named("count_include_pad", nc.b.getBoolAttr(true))});
  if (failed(mean))
    return failure();
  double size = 1;
  for (int64_t k : w->kernel)
    size *= double(k);
  FailureOr<Value> sum =
      nc.binary(BinaryKind::Mul, *mean, nc.splat(scalarType, size));
  if (failed(sum) || p == 1)
    return nc.result(sum);
  if (p == 2)
    return nc.result(unary(UnaryKind::Sqrt, *sum));
  return nc.result(
      nc.binary(BinaryKind::Pow, *sum, nc.splat(scalarType, 1.0 / double(p))));
}

template <PoolKind kind> LogicalResult globalPool(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  return nc.result(nc.create<GlobalPoolOp>(
      {nc.input(0)},
      {nc.named("kind", PoolKindAttr::get(nc.b.getContext(), kind))}));
}

/// BatchNormalization-14/15 with training_mode = 1: normalized with the
/// batch's mean and (biased) variance per channel; outputs 1 and 2 are the
/// running statistics, input * momentum + batch * (1 - momentum).
LogicalResult batchNormTraining(NodeContext &nc) {
  auto type = nc.inputType(0);
  if (type.getRank() < 2)
    return nc.fail("expects an input of rank >= 2");
  SmallVector<int64_t> axes, statShape(type.getRank(), 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1)
      axes.push_back(d);
  statShape[1] = type.getDimSize(1);
  auto mean = [&](Value v, bool keepDims) {
    return nc.create<ReduceOp>(
        {v}, {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(),
                                                   ReduceKind::Mean)),
              nc.named("axes", nc.i64s(axes)),
              nc.named("keep_dims", nc.b.getBoolAttr(keepDims))});
  };
  FailureOr<Value> batchMean = mean(nc.input(0), true);
  FailureOr<Value> centered =
      failed(batchMean) ? batchMean
                        : nc.binary(BinaryKind::Sub, nc.input(0), *batchMean);
  FailureOr<Value> squared =
      failed(centered) ? centered
                       : nc.binary(BinaryKind::Mul, *centered, *centered);
  FailureOr<Value> batchVar = failed(squared) ? squared : mean(*squared, false);
  if (failed(batchVar) ||
      failed(batchMean = nc.reshape(*batchMean, {type.getDimSize(1)})))
    return failure();
  FailureOr<Value> y = nc.create<BatchNormOp>(
      {nc.input(0), nc.input(1), nc.input(2), *batchMean, *batchVar},
      {nc.named("epsilon",
                nc.b.getF32FloatAttr(nc.getFloat("epsilon", 1e-5f)))});
  if (failed(y))
    return failure();
  nc.setOutput(0, *y);
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  float momentum = nc.getFloat("momentum", 0.9f);
  auto running = [&](Value input, Value batch) -> FailureOr<Value> {
    FailureOr<Value> kept =
        nc.binary(BinaryKind::Mul, input, nc.splat(scalarType, momentum));
    FailureOr<Value> added =
        failed(kept) ? kept
                     : nc.binary(BinaryKind::Mul, batch,
                                 nc.splat(scalarType, 1.0 - momentum));
    if (failed(added))
      return failure();
    return nc.binary(BinaryKind::Add, *kept, *added);
  };
  for (unsigned i = 1; i < 3; ++i)
    if (nc.hasOutput(i) &&
        failed(nc.result(
            running(nc.input(2 + i), i == 1 ? *batchMean : *batchVar), i)))
      return failure();
  return success();
}

LogicalResult batchNorm(NodeContext &nc) {
  if (failed(nc.requireInputs(5)))
    return failure();
  if (nc.getInt("training_mode", 0) && nc.opset >= 14)
    return batchNormTraining(nc);
  if (nc.getInt("training_mode", 0) ||
      (nc.opset < 7 && !nc.getInt("is_test", 0)))
    return nc.unsupported("training mode is not supported");
  if (nc.getInt("spatial", 1) != 1)
    return nc.unsupported("spatial = 0 is not supported");
  for (unsigned i = 1; i < nc.numOutputs(); ++i)
    if (nc.hasOutput(i))
      return nc.unsupported("the running statistics outputs are not supported");
  return nc.result(nc.create<BatchNormOp>(
      {nc.input(0), nc.input(1), nc.input(2), nc.input(3), nc.input(4)},
      {nc.named("epsilon",
                nc.b.getF32FloatAttr(nc.getFloat("epsilon", 1e-5f)))}));
}

LogicalResult instanceNorm(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  return nc.result(nc.create<InstanceNormOp>(
      {nc.input(0), nc.input(1), nc.input(2)},
      {nc.named("epsilon",
                nc.b.getF32FloatAttr(nc.getFloat("epsilon", 1e-5f)))}));
}

/// LayerNormalization-17: normalize over the dimensions from `axis` on. The
/// optional Mean and InvStdDev outputs are computed with kiln.reduce.
LogicalResult layerNorm(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto type = nc.inputType(0);
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", -1), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  float epsilon = nc.getFloat("epsilon", 1e-5f);
  SmallVector<Value> operands = {nc.input(0), nc.input(1)};
  if (nc.hasInput(2))
    operands.push_back(nc.input(2));
  FailureOr<Value> r = nc.create<LayerNormOp>(
      operands, {nc.named("axis", nc.b.getI64IntegerAttr(*axis)),
                 nc.named("epsilon", nc.b.getF32FloatAttr(epsilon))});
  if (failed(r))
    return failure();
  nc.setOutput(0, *r);
  if (!nc.hasOutput(1) && !nc.hasOutput(2))
    return success();
  // Mean = mean(x), InvStdDev = 1 / sqrt(mean((x - Mean)^2) + epsilon),
  // both with the normalized dimensions kept as 1.
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < type.getRank(); ++i)
    axes.push_back(i);
  auto meanOf = [&](Value v) {
    return nc.create<ReduceOp>(
        {v}, {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(),
                                                   ReduceKind::Mean)),
              nc.named("axes", nc.i64s(axes)),
              nc.named("keep_dims", nc.b.getBoolAttr(true))});
  };
  auto binary = [&](BinaryKind kind, Value a, Value b) {
    return nc.create<BinaryOp>(
        {a, b},
        {nc.named("kind", BinaryKindAttr::get(nc.b.getContext(), kind))});
  };
  auto unary = [&](UnaryKind kind, Value a) {
    return nc.create<UnaryOp>(
        {a}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(), kind))});
  };
  FailureOr<Value> mean = meanOf(nc.input(0));
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = binary(BinaryKind::Sub, nc.input(0), *mean);
  FailureOr<Value> sq = failed(centered)
                            ? FailureOr<Value>(failure())
                            : binary(BinaryKind::Mul, *centered, *centered);
  FailureOr<Value> var = failed(sq) ? FailureOr<Value>(failure()) : meanOf(*sq);
  if (failed(var))
    return failure();
  Value eps =
      nc.splat(RankedTensorType::get({}, type.getElementType()), epsilon);
  FailureOr<Value> shifted = binary(BinaryKind::Add, *var, eps);
  FailureOr<Value> root = failed(shifted) ? FailureOr<Value>(failure())
                                          : unary(UnaryKind::Sqrt, *shifted);
  FailureOr<Value> inv = failed(root) ? FailureOr<Value>(failure())
                                      : unary(UnaryKind::Recip, *root);
  if (failed(inv))
    return failure();
  nc.setOutput(1, *mean);
  nc.setOutput(2, *inv);
  return success();
}

/// RMSNormalization-23: x / sqrt(mean(x^2 over [axis, rank)) + epsilon) *
/// scale, in f32 for f16/bf16 inputs (stash_type 1, the default).
LogicalResult rmsNorm(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto type = nc.inputType(0);
  Type element = type.getElementType();
  if (nc.inputType(1).getElementType() != element)
    return nc.unsupported("a scale of another element type than X is not "
                          "supported");
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", -1), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t stash = nc.getInt("stash_type", 1);
  if (stash != 1 && stash != onnx::TensorProto::DOUBLE)
    return nc.unsupported("stash_type " + Twine(stash) + " is not supported");
  Type compute = element;
  if (stash == 1 && (element.isF16() || element.isBF16()))
    compute = nc.b.getF32Type();
  else if (stash == onnx::TensorProto::DOUBLE)
    compute = nc.b.getF64Type();
  auto castTo = [&](Value v, Type to) -> FailureOr<Value> {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() == to)
      return v;
    return nc.createTyped<CastOp>(RankedTensorType::get(t.getShape(), to), {v});
  };
  auto binary = [&](BinaryKind kind, Value a, Value b) {
    return nc.create<BinaryOp>(
        {a, b},
        {nc.named("kind", BinaryKindAttr::get(nc.b.getContext(), kind))});
  };
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < type.getRank(); ++i)
    axes.push_back(i);
  FailureOr<Value> x = castTo(nc.input(0), compute);
  if (failed(x))
    return failure();
  FailureOr<Value> sq = binary(BinaryKind::Mul, *x, *x);
  if (failed(sq))
    return failure();
  FailureOr<Value> mean = nc.create<ReduceOp>(
      {*sq}, {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(),
                                                   ReduceKind::Mean)),
              nc.named("axes", nc.i64s(axes)),
              nc.named("keep_dims", nc.b.getBoolAttr(true))});
  if (failed(mean))
    return failure();
  Value eps = nc.splat(RankedTensorType::get({}, compute),
                       nc.getFloat("epsilon", 1e-5f));
  FailureOr<Value> shifted = binary(BinaryKind::Add, *mean, eps);
  if (failed(shifted))
    return failure();
  FailureOr<Value> root = nc.create<UnaryOp>(
      {*shifted}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                       UnaryKind::Sqrt))});
  if (failed(root))
    return failure();
  FailureOr<Value> normed = binary(BinaryKind::Div, *x, *root);
  if (failed(normed))
    return failure();
  FailureOr<Value> y = castTo(*normed, element);
  if (failed(y))
    return failure();
  return nc.result(binary(BinaryKind::Mul, *y, nc.input(1)));
}

LogicalResult lrn(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  if (!nc.hasAttr("size"))
    return nc.fail("expects attribute 'size'");
  return nc.result(nc.create<LrnOp>(
      {nc.input(0)},
      {nc.named("size", nc.b.getI64IntegerAttr(nc.getInt("size", 1))),
       nc.named("alpha", nc.b.getF32FloatAttr(nc.getFloat("alpha", 1e-4f))),
       nc.named("beta", nc.b.getF32FloatAttr(nc.getFloat("beta", 0.75f))),
       nc.named("bias", nc.b.getF32FloatAttr(nc.getFloat("bias", 1.0f)))}));
}

LogicalResult gemm(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  SmallVector<Value> operands = {nc.input(0), nc.input(1)};
  if (nc.hasInput(2))
    operands.push_back(nc.input(2));
  return nc.result(nc.create<GemmOp>(
      operands,
      {nc.named("alpha", nc.b.getF32FloatAttr(nc.getFloat("alpha", 1.0f))),
       nc.named("beta", nc.b.getF32FloatAttr(nc.getFloat("beta", 1.0f))),
       nc.named("transpose_a", nc.b.getBoolAttr(nc.getInt("transA", 0) != 0)),
       nc.named("transpose_b",
                nc.b.getBoolAttr(nc.getInt("transB", 0) != 0))}));
}

/// numpy matmul: a vector operand becomes a matrix, and the added dimension
/// is dropped from the result.
LogicalResult matmul(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto a = nc.inputType(0), b = nc.inputType(1);
  if (a.getRank() == 0 || b.getRank() == 0)
    return nc.fail("expects operands of rank >= 1");
  Value lhs = nc.input(0), rhs = nc.input(1);
  if (a.getRank() == 1) {
    FailureOr<Value> r = nc.reshape(lhs, {1, a.getDimSize(0)});
    if (failed(r))
      return failure();
    lhs = *r;
  }
  if (b.getRank() == 1) {
    FailureOr<Value> r = nc.reshape(rhs, {b.getDimSize(0), 1});
    if (failed(r))
      return failure();
    rhs = *r;
  }
  FailureOr<Value> product = nc.create<MatmulOp>({lhs, rhs});
  if (failed(product))
    return failure();
  auto shape = SmallVector<int64_t>(
      cast<RankedTensorType>(product->getType()).getShape());
  if (b.getRank() == 1)
    shape.pop_back();
  if (a.getRank() == 1)
    shape.erase(shape.end() - (b.getRank() == 1 ? 1 : 2));
  return nc.result(nc.reshape(*product, shape));
}

/// The input of Softmax, LogSoftmax and Hardmax and the axis to apply them
/// on. Before opset 13 the input is coerced to a matrix at `axis` (default 1)
/// and the op covers the whole second dimension; from 13 `axis` (default -1)
/// is one dimension.
FailureOr<std::pair<Value, int64_t>> axisOperand(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  int64_t rank = type.getRank();
  if (rank == 0)
    return nc.fail("expects an input of rank >= 1");
  bool coerce = nc.opset < 13;
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", coerce ? 1 : -1), rank, "axis");
  if (failed(axis))
    return failure();
  if (!coerce || *axis == rank - 1)
    return std::make_pair(nc.input(0), *axis);
  // A product with a dynamic factor is dynamic (run-time shapes).
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t &part = i < *axis ? outer : inner;
    part = ShapedType::isDynamic(part) || type.isDynamicDim(i)
               ? ShapedType::kDynamic
               : part * type.getDimSize(i);
  }
  FailureOr<Value> flat = nc.reshape(nc.input(0), {outer, inner});
  if (failed(flat))
    return failure();
  return std::make_pair(*flat, int64_t(1));
}

template <typename OpTy> LogicalResult softmax(NodeContext &nc) {
  FailureOr<std::pair<Value, int64_t>> operand = axisOperand(nc);
  if (failed(operand))
    return failure();
  FailureOr<Value> r = nc.create<OpTy>(
      {operand->first},
      {nc.named("axis", nc.b.getI64IntegerAttr(operand->second))});
  if (failed(r))
    return failure();
  return nc.result(nc.reshape(*r, nc.inputType(0).getShape()));
}

/// Hardmax: 1 where an element is the (first) maximum along the axis, else 0.
LogicalResult hardmax(NodeContext &nc) {
  FailureOr<std::pair<Value, int64_t>> operand = axisOperand(nc);
  if (failed(operand))
    return failure();
  auto type = nc.inputType(0);
  Value x = operand->first;
  int64_t opAxis = operand->second;
  auto xType = cast<RankedTensorType>(x.getType());
  FailureOr<Value> best = nc.create<ArgReduceOp>(
      {x}, {nc.named("kind", ArgReduceKindAttr::get(nc.b.getContext(),
                                                    ArgReduceKind::Max)),
            nc.named("axis", nc.b.getI64IntegerAttr(opAxis)),
            nc.named("keep_dims", nc.b.getBoolAttr(true))});
  if (failed(best))
    return failure();
  // Positions along the axis, shaped to broadcast against x.
  int64_t n = xType.getDimSize(opAxis);
  SmallVector<int64_t> iotaShape(xType.getRank() - opAxis, 1);
  iotaShape[0] = n;
  FailureOr<Value> iota = nc.ramp(
      "the positions", RankedTensorType::get(iotaShape, nc.b.getI64Type()), 0);
  if (failed(iota))
    return failure();
  FailureOr<Value> hit = nc.create<BinaryOp>(
      {*iota, *best},
      {nc.named("kind",
                BinaryKindAttr::get(nc.b.getContext(), BinaryKind::Equal))});
  if (failed(hit))
    return failure();
  auto hitType = cast<RankedTensorType>(hit->getType());
  FailureOr<Value> r = nc.createTyped<CastOp>(
      RankedTensorType::get(hitType.getShape(), type.getElementType()), {*hit});
  if (failed(r))
    return failure();
  FailureOr<Value> out = nc.reshape(*r, type.getShape());
  if (failed(out))
    return failure();
  nc.setOutput(0, *out);
  return success();
}

} // namespace

void mlir::kiln::onnx_import::appendNeuralNetHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Conv", 1, conv},
      {"ConvTranspose", 1, convTranspose},
      {"MaxPool", 1, pool<PoolKind::Max>},
      {"ConvInteger", 10, convInteger},
      {"MatMulInteger", 10, matmulInteger},
      {"AveragePool", 1, pool<PoolKind::Average>},
      {"LpPool", 2, lpPool},
      {"GlobalMaxPool", 1, globalPool<PoolKind::Max>},
      {"GlobalAveragePool", 1, globalPool<PoolKind::Average>},
      {"BatchNormalization", 6, batchNorm},
      {"InstanceNormalization", 6, instanceNorm},
      {"LRN", 1, lrn},
      {"LayerNormalization", 17, layerNorm},
      {"RMSNormalization", 23, rmsNorm},
      {"Gemm", 6, gemm},
      {"MatMul", 1, matmul},
      {"Softmax", 1, softmax<SoftmaxOp>},
      {"LogSoftmax", 1, softmax<LogSoftmaxOp>},
      {"Hardmax", 1, hardmax},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
