//===- ComposedHandlers.cpp - ONNX ops built from kiln ops ----*- C++ -*-===//
//
// ONNX ops that kiln imports as constants or as short compositions of its
// own ops, as the ONNX function bodies define them: EyeLike and the
// Hann/Hamming/Blackman windows (constants up to kMaxGeneratedConstantBytes,
// larger ones built from kiln.iota and computed at run time), Celu, Swish,
// Mish, SwiGLU, LpNormalization, MeanVarianceNormalization, GroupNormalization,
// OneHot, QuantizeLinear and DequantizeLinear (per tensor, per axis or blocked;
// 2- to 16-bit integers, float8 and float4), DynamicQuantizeLinear.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// EyeLike: ones where column - row == k, of dtype (else the input's type);
/// a large one is (column == row + k), cast, computed at run time.
LogicalResult eyeLike(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  if (type.getRank() != 2)
    return nc.fail("expects a 2-D input");
  Type element = type.getElementType();
  if (int64_t dtype = nc.getInt("dtype", 0)) {
    element =
        convertElementType(nc.b.getContext(), static_cast<int32_t>(dtype));
    if (!element)
      return nc.unsupported("dtype " +
                            dataTypeName(static_cast<int32_t>(dtype)) +
                            " is not supported");
  }
  int64_t k = nc.getInt("k", 0);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  // The comparison's i1 mask takes no more bytes than the output.
  if (failed(nc.checkOutputBudget(0, {rows, cols}, element)))
    return failure();
  auto outType = RankedTensorType::get({rows, cols}, element);
  if (NodeContext::isSmallGenerated(outType)) {
    nc.setOutput(0, nc.generatedConstant(outType, [&](int64_t i) {
      return i % cols - i / cols == k ? 1.0 : 0.0;
    }));
    return success();
  }
  // k beyond the matrix matches no column; clamp it so that row + k fits.
  k = std::clamp<int64_t>(k, -rows, cols);
  Type i64 = nc.b.getI64Type();
  Value shifted = nc.iota(RankedTensorType::get({rows, 1}, i64), 0, k, 1);
  Value columns = nc.iota(RankedTensorType::get({1, cols}, i64), 1, 0, 1);
  FailureOr<Value> on = nc.binary(BinaryKind::Equal, columns, shifted);
  if (failed(on))
    return failure();
  return nc.result(nc.castTo(*on, element));
}

/// The generalized cosine windows of size N: sum_i (-1)^i a_i cos(2 pi i n /
/// D), D = N (periodic, the default) or N - 1 (symmetric). A large window is
/// computed at run time, from angles that kiln.iota computes in f64 and
/// rounds to f32 (f64 for an f64 window).
template <int kind> LogicalResult window(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  FailureOr<SmallVector<int64_t>> size = nc.intInput(0);
  if (failed(size))
    return failure();
  if (size->size() != 1 || (*size)[0] < 0)
    return nc.fail("expects a non-negative scalar size");
  int64_t n = (*size)[0];
  Type element = convertElementType(
      nc.b.getContext(), static_cast<int32_t>(nc.getInt("output_datatype", 1)));
  if (!element)
    return nc.unsupported("output_datatype is not supported");
  // Hann, Hamming, Blackman.
  static const double coefficients[3][3] = {
      {0.5, 0.5, 0}, {25.0 / 46, 21.0 / 46, 0}, {0.42, 0.5, 0.08}};
  const double *a = coefficients[kind];
  double d = nc.getInt("periodic", 1) ? double(n) : double(n - 1);
  if (failed(nc.checkOutputBudget(0, {n}, element)))
    return failure();
  auto outType = RankedTensorType::get({n}, element);
  if (NodeContext::isSmallGenerated(outType)) {
    nc.setOutput(0, nc.generatedConstant(outType, [&](int64_t i) {
      double x = 2 * M_PI * double(i) / d;
      return a[0] - a[1] * std::cos(x) + a[2] * std::cos(2 * x);
    }));
    return success();
  }
  Type compute = element.isF64() ? element : nc.b.getF32Type();
  auto computeType = RankedTensorType::get({n}, compute);
  if (failed(nc.checkBudget("the window's angles", {n}, compute)))
    return failure();
  auto cosine = [&](double step) {
    return nc.create<UnaryOp>(
        {nc.iota(computeType, 0, 0, step)},
        {nc.named("kind",
                  UnaryKindAttr::get(nc.b.getContext(), UnaryKind::Cos))});
  };
  auto scalar = RankedTensorType::get({}, compute);
  FailureOr<Value> c1 = cosine(2 * M_PI / d);
  FailureOr<Value> w =
      failed(c1) ? c1 : nc.binary(BinaryKind::Mul, *c1, nc.splat(scalar, a[1]));
  if (failed(w) ||
      failed(w = nc.binary(BinaryKind::Sub, nc.splat(scalar, a[0]), *w)))
    return failure();
  if (a[2] != 0) {
    FailureOr<Value> c2 = cosine(4 * M_PI / d);
    if (failed(c2) ||
        failed(c2 = nc.binary(BinaryKind::Mul, *c2, nc.splat(scalar, a[2]))) ||
        failed(w = nc.binary(BinaryKind::Add, *w, *c2)))
      return failure();
  }
  return nc.result(nc.castTo(*w, element));
}

/// Celu: alpha * elu(x / alpha) = max(0, x) + min(0, alpha (exp(x/alpha) - 1)).
LogicalResult celu(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto scalarType = RankedTensorType::get({}, nc.inputType(0).getElementType());
  Value alpha = nc.splat(scalarType, nc.getFloat("alpha", 1.0f));
  FailureOr<Value> scaled = nc.binary(BinaryKind::Div, nc.input(0), alpha);
  if (failed(scaled))
    return failure();
  FailureOr<Value> elu = nc.create<ActivationOp>(
      {*scaled}, {nc.named("kind", ActivationKindAttr::get(
                                       nc.b.getContext(), ActivationKind::Elu)),
                  nc.named("alpha", nc.b.getF32FloatAttr(1.0f))});
  if (failed(elu))
    return failure();
  return nc.result(nc.binary(BinaryKind::Mul, *elu, alpha));
}

/// x * sigmoid(alpha * x): Swish, and SwiGLU's gate.
FailureOr<Value> swishOf(NodeContext &nc, Value x) {
  auto scalarType = RankedTensorType::get(
      {}, cast<RankedTensorType>(x.getType()).getElementType());
  float alpha = nc.getFloat("alpha", 1.0f);
  FailureOr<Value> scaled =
      alpha == 1.0f
          ? FailureOr<Value>(x)
          : nc.binary(BinaryKind::Mul, x, nc.splat(scalarType, alpha));
  if (failed(scaled))
    return failure();
  FailureOr<Value> gate = nc.create<ActivationOp>(
      {*scaled},
      {nc.named("kind", ActivationKindAttr::get(nc.b.getContext(),
                                                ActivationKind::Sigmoid))});
  if (failed(gate))
    return failure();
  return nc.binary(BinaryKind::Mul, x, *gate);
}

LogicalResult swish(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  return nc.result(swishOf(nc, nc.input(0)));
}

/// Mish (18, 22): x * tanh(softplus(x)).
LogicalResult mish(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto activation = [&](Value v, ActivationKind kind) {
    return nc.create<ActivationOp>(
        {v},
        {nc.named("kind", ActivationKindAttr::get(nc.b.getContext(), kind))});
  };
  FailureOr<Value> soft = activation(nc.input(0), ActivationKind::Softplus);
  FailureOr<Value> gate =
      failed(soft) ? soft : activation(*soft, ActivationKind::Tanh);
  if (failed(gate))
    return failure();
  return nc.result(nc.binary(BinaryKind::Mul, nc.input(0), *gate));
}

/// SwiGLU-28: Swish(A) * B, of two inputs of one shape.
LogicalResult swiGlu(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  if (nc.inputType(0) != nc.inputType(1))
    return nc.fail("expects A and B of the same type and shape (SwiGLU does "
                   "not broadcast)");
  FailureOr<Value> gate = swishOf(nc, nc.input(0));
  if (failed(gate))
    return failure();
  return nc.result(nc.binary(BinaryKind::Mul, *gate, nc.input(1)));
}

/// LpNormalization: x / ||x||_p along `axis` (p 1 or 2); where the norm is
/// 0 (all of x is), the result is 0 (x / 1).
LogicalResult lpNormalization(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  if (!isa<FloatType>(type.getElementType()))
    return nc.fail("expects a floating-point input");
  int64_t p = nc.getInt("p", 2);
  if (p != 1 && p != 2)
    return nc.fail("p = " + Twine(p) + " is not supported (expected 1 or 2)");
  FailureOr<int64_t> axis =
      nc.axis(nc.getInt("axis", -1), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  FailureOr<Value> norm = nc.create<ReduceOp>(
      {nc.input(0)},
      {nc.named("kind",
                ReduceKindAttr::get(nc.b.getContext(),
                                    p == 1 ? ReduceKind::L1 : ReduceKind::L2)),
       nc.named("axes", nc.i64s({*axis})),
       nc.named("keep_dims", nc.b.getBoolAttr(true))});
  if (failed(norm))
    return failure();
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Value zero = nc.splat(scalarType, 0), one = nc.splat(scalarType, 1);
  FailureOr<Value> isZero = nc.binary(BinaryKind::Equal, *norm, zero);
  FailureOr<Value> divisor =
      failed(isZero) ? isZero : nc.create<SelectOp>({*isZero, one, *norm});
  if (failed(divisor))
    return failure();
  return nc.result(nc.binary(BinaryKind::Div, nc.input(0), *divisor));
}

FailureOr<Value> meanOver(NodeContext &nc, Value v, ArrayRef<int64_t> axes) {
  return nc.create<ReduceOp>(
      {v}, {nc.named("kind",
                     ReduceKindAttr::get(nc.b.getContext(), ReduceKind::Mean)),
            nc.named("axes", nc.i64s(axes)),
            nc.named("keep_dims", nc.b.getBoolAttr(true))});
}

/// MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
/// over `axes` (default 0, 2, 3), as ONNX's function body computes it.
LogicalResult meanVarianceNormalization(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  SmallVector<int64_t> axes = nc.getInts("axes");
  if (axes.empty())
    axes = {0, 2, 3};
  for (int64_t &a : axes) {
    FailureOr<int64_t> n = nc.axis(a, type.getRank(), "axes");
    if (failed(n))
      return failure();
    a = *n;
  }
  llvm::sort(axes);
  Value x = nc.input(0);
  FailureOr<Value> mean = meanOver(nc, x, axes);
  FailureOr<Value> square =
      failed(mean) ? mean : nc.binary(BinaryKind::Mul, x, x);
  FailureOr<Value> meanOfSquare =
      failed(square) ? square : meanOver(nc, *square, axes);
  FailureOr<Value> squareOfMean =
      failed(meanOfSquare) ? meanOfSquare
                           : nc.binary(BinaryKind::Mul, *mean, *mean);
  FailureOr<Value> variance =
      failed(squareOfMean)
          ? squareOfMean
          : nc.binary(BinaryKind::Sub, *meanOfSquare, *squareOfMean);
  if (failed(variance))
    return failure();
  FailureOr<Value> deviation = nc.create<UnaryOp>(
      {*variance}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                        UnaryKind::Sqrt))});
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  FailureOr<Value> denominator =
      failed(deviation)
          ? deviation
          : nc.binary(BinaryKind::Add, *deviation, nc.splat(scalarType, 1e-9));
  FailureOr<Value> centered =
      failed(denominator) ? denominator : nc.binary(BinaryKind::Sub, x, *mean);
  if (failed(centered))
    return failure();
  return nc.result(nc.binary(BinaryKind::Div, *centered, *denominator));
}

/// GroupNormalization (18, 21): x of N x C x ... viewed as N x G x (C/G
/// ...), each group normalized as an instance (kiln.instance_norm over the
/// last dimension), viewed back; 21 then scales and shifts per channel, 18
/// per group (inside the instance_norm). stash_type 1 computes a 16-bit
/// input in f32.
LogicalResult groupNormalization(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  auto type = nc.inputType(0);
  int64_t groups = nc.getInt("num_groups", 0);
  if (type.getRank() < 2)
    return nc.fail("expects an input of rank >= 2 (N x C x ...), got " +
                   Twine(type.getRank()));
  int64_t channels = type.getDimSize(1);
  if (groups <= 0 || groups > std::max<int64_t>(channels, 1) ||
      channels % groups != 0)
    return nc.fail("num_groups " + Twine(groups) + " does not divide the " +
                   Twine(channels) + " channels");
  bool perChannel = nc.opset >= 21;
  int64_t perParameter = perChannel ? channels : groups;
  for (unsigned i : {1u, 2u})
    if (nc.inputType(i).getNumElements() != perParameter)
      return nc.fail(Twine(i == 1 ? "scale" : "bias") + " has " +
                     Twine(nc.inputType(i).getNumElements()) +
                     " elements, expected " + Twine(perParameter) +
                     " (one per " + (perChannel ? "channel" : "group") + ")");
  Type element = type.getElementType();
  Type compute = nc.getInt("stash_type", 1) == 1 && !element.isF64()
                     ? nc.b.getF32Type()
                     : element;
  int64_t n = type.getDimSize(0),
          rest = type.getNumElements() / std::max<int64_t>(n * groups, 1);
  FailureOr<Value> x = nc.castTo(nc.input(0), compute);
  if (failed(x) || failed(x = nc.reshape(*x, {n, groups, rest})))
    return failure();
  auto groupType = RankedTensorType::get({groups}, compute);
  Value unitScale = nc.splat(groupType, 1.0), noBias = nc.splat(groupType, 0.0);
  FailureOr<Value> scale = perChannel ? FailureOr<Value>(unitScale)
                                      : nc.castTo(nc.input(1), compute);
  FailureOr<Value> bias =
      perChannel ? FailureOr<Value>(noBias) : nc.castTo(nc.input(2), compute);
  if (failed(scale) || failed(bias) ||
      failed(scale = nc.reshape(*scale, {groups})) ||
      failed(bias = nc.reshape(*bias, {groups})))
    return failure();
  FailureOr<Value> y = nc.create<InstanceNormOp>(
      {*x, *scale, *bias},
      {nc.named("epsilon",
                nc.b.getF32FloatAttr(nc.getFloat("epsilon", 1e-5f)))});
  if (failed(y) || failed(y = nc.reshape(*y, type.getShape())))
    return failure();
  if (perChannel) {
    SmallVector<int64_t> channelShape(type.getRank() - 1, 1);
    channelShape[0] = channels;
    FailureOr<Value> s = nc.castTo(nc.input(1), compute);
    FailureOr<Value> b = nc.castTo(nc.input(2), compute);
    if (failed(s) || failed(b) || failed(s = nc.reshape(*s, channelShape)) ||
        failed(b = nc.reshape(*b, channelShape)) ||
        failed(y = nc.binary(BinaryKind::Mul, *y, *s)) ||
        failed(y = nc.binary(BinaryKind::Add, *y, *b)))
      return failure();
  }
  return nc.result(nc.castTo(*y, element));
}

/// OneHot(indices, depth, values = [off, on]): on where the (wrapped) index
/// equals the position along the new axis, else off. Computed at run time;
/// the positions are a constant only up to kMaxGeneratedConstantBytes.
LogicalResult oneHot(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  FailureOr<SmallVector<double>> depthValue = nc.floatInput(1);
  if (failed(depthValue))
    return failure();
  if (depthValue->size() != 1 || !((*depthValue)[0] >= 1))
    return nc.fail("expects a positive scalar depth");
  if (!((*depthValue)[0] < 0x1p62))
    return nc.fail("expects a depth of at most 2^62");
  int64_t depth = static_cast<int64_t>((*depthValue)[0]);
  auto indicesType = nc.inputType(0);
  int64_t rank = indicesType.getRank() + 1;
  FailureOr<int64_t> axis = nc.axis(nc.getInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  auto valuesType = nc.inputType(2);
  if (valuesType.getNumElements() != 2)
    return nc.fail("expects 2 values (off, on)");
  // The output first (then the positions); the i1 comparison takes no more
  // bytes than the output.
  SmallVector<int64_t> outShape(indicesType.getShape());
  outShape.insert(outShape.begin() + *axis, depth);
  SmallVector<int64_t> iotaShape(rank, 1);
  iotaShape[*axis] = depth;
  if (failed(nc.checkOutputBudget(0, outShape, valuesType.getElementType())))
    return failure();
  // Indices as i64 (they may be floats), negative ones wrapped.
  FailureOr<Value> idx = nc.castTo(nc.input(0), nc.b.getI64Type());
  if (failed(idx))
    return failure();
  auto i64Scalar = RankedTensorType::get({}, nc.b.getI64Type());
  FailureOr<Value> negative =
      nc.binary(BinaryKind::Less, *idx, nc.splat(i64Scalar, 0));
  FailureOr<Value> wrapped =
      failed(negative)
          ? negative
          : nc.binary(BinaryKind::Add, *idx, nc.splat(i64Scalar, depth));
  if (failed(wrapped))
    return failure();
  FailureOr<Value> index = nc.create<SelectOp>({*negative, *wrapped, *idx});
  if (failed(index))
    return failure();
  SmallVector<int64_t> unsqueezed(indicesType.getShape());
  unsqueezed.insert(unsqueezed.begin() + *axis, 1);
  index = nc.reshape(*index, unsqueezed);
  if (failed(index))
    return failure();
  FailureOr<Value> positions =
      nc.ramp("the one-hot positions",
              RankedTensorType::get(iotaShape, nc.b.getI64Type()), *axis);
  if (failed(positions))
    return failure();
  FailureOr<Value> hot = nc.binary(BinaryKind::Equal, *index, *positions);
  FailureOr<Value> flat = failed(hot) ? hot : nc.reshape(nc.input(2), {2});
  if (failed(flat))
    return failure();
  FailureOr<Value> off = nc.create<SliceOp>(
      {*flat}, {nc.named("start", nc.i64s({0})), nc.named("size", nc.i64s({1})),
                nc.named("stride", nc.i64s({1}))});
  FailureOr<Value> on =
      failed(off)
          ? off
          : nc.create<SliceOp>({*flat}, {nc.named("start", nc.i64s({1})),
                                         nc.named("size", nc.i64s({1})),
                                         nc.named("stride", nc.i64s({1}))});
  if (failed(on))
    return failure();
  return nc.result(nc.create<SelectOp>({*hot, *on, *off}));
}

/// Reshapes a 1-D per-axis parameter to broadcast along `axis` of a tensor
/// of `rank` (a scalar stays).
FailureOr<Value> alongAxis(NodeContext &nc, Value v, int64_t axis,
                           int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 0 || type.getNumElements() == 1)
    return nc.reshape(v, {});
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = type.getNumElements();
  return nc.reshape(v, shape);
}

/// The axis of per-axis and blocked scales; 0 (unused) for a per-tensor
/// scale, where the default axis 1 may not exist (a 1-D input).
FailureOr<int64_t> quantizationAxis(NodeContext &nc, RankedTensorType type,
                                    int64_t blockSize) {
  if (!blockSize && nc.inputType(1).getNumElements() == 1)
    return int64_t(0);
  return nc.axis(nc.getInt("axis", 1), type.getRank(), "axis");
}

/// Version 21's block_size: 0 (per tensor or per axis) or positive.
FailureOr<int64_t> quantizationBlockSize(NodeContext &nc) {
  int64_t blockSize = nc.getInt("block_size", 0);
  if (blockSize < 0)
    return nc.fail("block_size " + Twine(blockSize) + " is negative");
  return blockSize;
}

/// A scale or zero point `v` for `x`, made to broadcast against it: a
/// scalar, a 1-D tensor along `axis`, or (a positive `blockSize`) a
/// tensor of x's shape but ceil(D / blockSize) along `axis`, whose entries
/// repeat blockSize times along it (a Gather of i / blockSize; a constant up
/// to kMaxGeneratedConstantBytes, else computed at run time).
FailureOr<Value> quantizationParameter(NodeContext &nc, Value v,
                                       RankedTensorType x, int64_t axis,
                                       int64_t blockSize) {
  if (!blockSize)
    return alongAxis(nc, v, axis, x.getRank());
  auto type = cast<RankedTensorType>(v.getType());
  int64_t size = x.getDimSize(axis);
  bool fits = type.getRank() == x.getRank();
  for (int64_t d = 0; fits && d < x.getRank(); ++d)
    fits = type.getDimSize(d) ==
           (d == axis ? size / blockSize + (size % blockSize != 0)
                      : x.getDimSize(d));
  if (!fits)
    return nc.fail("a blocked scale or zero point must have the input's "
                   "shape, with ceil(" +
                   Twine(size) + " / block_size " + Twine(blockSize) +
                   ") along axis " + Twine(axis));
  auto blockType = RankedTensorType::get({size}, nc.b.getI64Type());
  if (failed(nc.checkBudget("the block indices", {size}, nc.b.getI64Type())))
    return failure();
  Value blockOf;
  if (NodeContext::isSmallGenerated(blockType)) {
    blockOf = nc.generatedConstant(
        blockType, [&](int64_t i) { return double(i / blockSize); });
  } else {
    FailureOr<Value> q = nc.binary(
        BinaryKind::Div, nc.iota(blockType, 0, 0, 1),
        nc.splat(RankedTensorType::get({}, nc.b.getI64Type()), blockSize));
    if (failed(q))
      return failure();
    blockOf = *q;
  }
  return nc.create<GatherOp>({v, blockOf},
                             {nc.named("axis", nc.b.getI64IntegerAttr(axis))});
}

/// Whether `type` is a float of at most 8 bits (float8, float4).
bool isSmallFloat(Type type) {
  return isa<FloatType>(type) && type.getIntOrFloatBitWidth() <= 8;
}

/// Whether `type` is a type kiln quantizes to or from: integers of 2, 4, 8
/// or 16 bits (and 32 bits to dequantize), the 8-bit floats and float4.
bool isQuantizedType(Type type, bool dequantize) {
  return type.isInteger(2) || type.isInteger(4) || type.isInteger(8) ||
         type.isInteger(16) || (dequantize && type.isInteger(32)) ||
         (isSmallFloat(type) && !isa<Float8E8M0FNUType>(type));
}

/// QuantizeLinear (10; 13's axis; 19's saturate, which concerns float8
/// only; 21's block_size and output_dtype; 23's precision):
/// saturate(round(x / scale) + zero_point), rounding half to even, into
/// the zero point's type (output_dtype, or uint8 by default), in f32. To a
/// float8 or float4 it is x / scale + zero_point, cast with `saturate`.
LogicalResult quantizeLinear(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto type = nc.inputType(0);
  MLIRContext *context = nc.b.getContext();
  int64_t outputDtype = nc.getInt("output_dtype", 0);
  Type out = nc.hasInput(2) ? nc.inputType(2).getElementType()
             : outputDtype
                 ? convertElementType(context, int32_t(outputDtype))
                 : IntegerType::get(context, 8, IntegerType::Unsigned);
  if (outputDtype && out != convertElementType(context, int32_t(outputDtype)))
    return nc.fail("output_dtype " + dataTypeName(int32_t(outputDtype)) +
                   " differs from the zero point's type");
  if (!out || !isQuantizedType(out, false))
    return nc.unsupported("quantizing to types other than 2-, 4-, 8- and "
                          "16-bit integers, float8 and float4 is not "
                          "supported");
  if (int64_t precision = nc.getInt("precision", 0); precision > 1)
    return nc.unsupported("precision " + dataTypeName(int32_t(precision)) +
                          " is not supported (kiln divides in float)");
  FailureOr<int64_t> blockSize = quantizationBlockSize(nc);
  FailureOr<int64_t> axis =
      failed(blockSize) ? blockSize : quantizationAxis(nc, type, *blockSize);
  if (failed(axis))
    return failure();
  Type f32 = nc.b.getF32Type();
  // The output, and the f32 values it is computed from.
  if (failed(nc.checkOutputBudget(0, type.getShape(), out)) ||
      failed(nc.checkBudget("the f32 values", type.getShape(), f32)))
    return failure();
  FailureOr<Value> x = nc.castTo(nc.input(0), f32);
  FailureOr<Value> scale =
      failed(x)
          ? x
          : quantizationParameter(nc, nc.input(1), type, *axis, *blockSize);
  if (failed(scale) || failed(scale = nc.castTo(*scale, f32)))
    return failure();
  FailureOr<Value> q = nc.binary(BinaryKind::Div, *x, *scale);
  if (failed(q))
    return failure();
  bool toFloat = isa<FloatType>(out);
  if (!toFloat)
    q = nc.create<UnaryOp>(
        {*q},
        {nc.named("kind", UnaryKindAttr::get(context, UnaryKind::Round))});
  if (failed(q))
    return failure();
  if (nc.hasInput(2)) {
    FailureOr<Value> zero =
        quantizationParameter(nc, nc.input(2), type, *axis, *blockSize);
    if (failed(zero) || failed(zero = nc.castTo(*zero, f32)) ||
        failed(q = nc.binary(BinaryKind::Add, *q, *zero)))
      return failure();
  }
  if (toFloat) {
    SmallVector<NamedAttribute, 1> attrs;
    if (!nc.getInt("saturate", 1))
      attrs.push_back(nc.named("saturate", nc.b.getBoolAttr(false)));
    auto qType = cast<RankedTensorType>(q->getType());
    return nc.result(nc.createTyped<CastOp>(
        RankedTensorType::get(qType.getShape(), out), {*q}, attrs));
  }
  unsigned width = out.getIntOrFloatBitWidth();
  bool isUnsigned = out.isUnsignedInteger();
  double lo = isUnsigned ? 0 : -std::ldexp(1.0, width - 1);
  double hi =
      isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  auto scalarType = RankedTensorType::get({}, f32);
  q = nc.binary(BinaryKind::Max, *q, nc.splat(scalarType, lo));
  if (failed(q) ||
      failed(q = nc.binary(BinaryKind::Min, *q, nc.splat(scalarType, hi))))
    return failure();
  return nc.result(nc.castTo(*q, out));
}

/// DequantizeLinear (10; 13's axis; 21's block_size; 23's output_dtype):
/// (x - zero_point) * scale in f32, into output_dtype (by default the
/// scale's type).
LogicalResult dequantizeLinear(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  auto type = nc.inputType(0);
  if (!isQuantizedType(type.getElementType(), true))
    return nc.unsupported("dequantizing other than 2-, 4-, 8-, 16- or "
                          "32-bit integers, float8 and float4 is not "
                          "supported");
  Type out = nc.inputType(1).getElementType();
  if (int64_t outputDtype = nc.getInt("output_dtype", 0)) {
    out = convertElementType(nc.b.getContext(), int32_t(outputDtype));
    if (!out || !isa<FloatType>(out))
      return nc.unsupported("output_dtype " +
                            dataTypeName(int32_t(outputDtype)) +
                            " is not supported");
  }
  FailureOr<int64_t> blockSize = quantizationBlockSize(nc);
  FailureOr<int64_t> axis =
      failed(blockSize) ? blockSize : quantizationAxis(nc, type, *blockSize);
  if (failed(axis))
    return failure();
  Type f32 = nc.b.getF32Type();
  // The output, and the f32 values it is computed from.
  if (failed(nc.checkOutputBudget(0, type.getShape(), out)) ||
      failed(nc.checkBudget("the f32 values", type.getShape(), f32)))
    return failure();
  FailureOr<Value> x = nc.castTo(nc.input(0), f32);
  if (failed(x))
    return failure();
  if (nc.hasInput(2)) {
    FailureOr<Value> zero =
        quantizationParameter(nc, nc.input(2), type, *axis, *blockSize);
    if (failed(zero) || failed(zero = nc.castTo(*zero, f32)) ||
        failed(x = nc.binary(BinaryKind::Sub, *x, *zero)))
      return failure();
  }
  FailureOr<Value> scale =
      quantizationParameter(nc, nc.input(1), type, *axis, *blockSize);
  if (failed(scale) || failed(scale = nc.castTo(*scale, f32)))
    return failure();
  FailureOr<Value> y = nc.binary(BinaryKind::Mul, *x, *scale);
  if (failed(y))
    return failure();
  return nc.result(nc.castTo(*y, out));
}

/// `v` (already whole numbers) clamped to [0, 255] and cast to uint8.
FailureOr<Value> saturateU8(NodeContext &nc, Value v) {
  auto scalarType = RankedTensorType::get({}, nc.b.getF32Type());
  FailureOr<Value> r = nc.binary(BinaryKind::Max, v, nc.splat(scalarType, 0));
  if (failed(r) ||
      failed(r = nc.binary(BinaryKind::Min, *r, nc.splat(scalarType, 255))))
    return failure();
  return nc.castTo(
      *r, IntegerType::get(nc.b.getContext(), 8, IntegerType::Unsigned));
}

/// DynamicQuantizeLinear: uint8 quantization whose range [min(0, min x),
/// max(0, max x)] maps to [0, 255]: scale = range / 255, zero point =
/// saturate(round(-min / scale)), y = saturate(round(x / scale) + zp).
LogicalResult dynamicQuantizeLinear(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  Value x = nc.input(0);
  auto type = nc.inputType(0);
  if (!type.getElementType().isF32())
    return nc.fail("expects a float input");
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  auto extreme = [&](ReduceKind kind) {
    return nc.create<ReduceOp>(
        {x}, {nc.named("kind", ReduceKindAttr::get(nc.b.getContext(), kind)),
              nc.named("axes", nc.i64s(all))});
  };
  auto scalarType = RankedTensorType::get({}, nc.b.getF32Type());
  Value zero = nc.splat(scalarType, 0);
  FailureOr<Value> lo = extreme(ReduceKind::Min);
  FailureOr<Value> hi = failed(lo) ? lo : extreme(ReduceKind::Max);
  if (failed(hi) || failed(lo = nc.binary(BinaryKind::Min, *lo, zero)) ||
      failed(hi = nc.binary(BinaryKind::Max, *hi, zero)))
    return failure();
  FailureOr<Value> scale = nc.binary(BinaryKind::Sub, *hi, *lo);
  if (failed(scale) || failed(scale = nc.binary(BinaryKind::Div, *scale,
                                                nc.splat(scalarType, 255))))
    return failure();
  FailureOr<Value> zp = nc.binary(BinaryKind::Sub, zero, *lo);
  if (failed(zp) || failed(zp = nc.binary(BinaryKind::Div, *zp, *scale)))
    return failure();
  FailureOr<Value> zpRounded = nc.create<UnaryOp>(
      {*zp}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                  UnaryKind::Round))});
  FailureOr<Value> zpU8 =
      failed(zpRounded) ? zpRounded : saturateU8(nc, *zpRounded);
  FailureOr<Value> y =
      failed(zpU8) ? zpU8 : nc.binary(BinaryKind::Div, x, *scale);
  if (failed(y) ||
      failed(y = nc.create<UnaryOp>(
                 {*y},
                 {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(),
                                                      UnaryKind::Round))})) ||
      failed(y = nc.binary(BinaryKind::Add, *y, *zpRounded)))
    return failure();
  FailureOr<Value> yU8 = saturateU8(nc, *y);
  if (failed(yU8))
    return failure();
  nc.setOutput(0, *yU8);
  if (nc.hasOutput(1))
    nc.setOutput(1, *scale);
  if (nc.hasOutput(2))
    nc.setOutput(2, *zpU8);
  return success();
}

} // namespace

void mlir::kiln::onnx_import::appendComposedHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"EyeLike", 9, eyeLike},
      {"HannWindow", 17, window<0>},
      {"HammingWindow", 17, window<1>},
      {"BlackmanWindow", 17, window<2>},
      {"Celu", 12, celu},
      {"Swish", 24, swish},
      {"Mish", 18, mish},
      {"SwiGLU", 28, swiGlu},
      {"LpNormalization", 1, lpNormalization},
      {"MeanVarianceNormalization", 9, meanVarianceNormalization},
      {"GroupNormalization", 18, groupNormalization},
      {"OneHot", 9, oneHot},
      {"QuantizeLinear", 10, quantizeLinear},
      {"DequantizeLinear", 10, dequantizeLinear},
      {"DynamicQuantizeLinear", 11, dynamicQuantizeLinear},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
