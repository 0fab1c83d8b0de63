//===- ElementwiseHandlers.cpp - ONNX elementwise ops -----------*- C++ -*-===//
//
// Handlers for ONNX's elementwise ops: binary arithmetic, logic and
// comparison (numpy broadcasting), variadic Sum/Mean/Max/Min, Where, the
// unary math functions, the activations, Clip, PRelu, Cast and CastLike,
// Identity and inference-mode Dropout.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// The second operand of a binary op before opset 7: with `broadcast` and
/// `axis`, B's dimensions line up with A's from `axis` on, so trailing 1s
/// are appended to make numpy broadcasting do the same.
FailureOr<Value> legacyBroadcast(NodeContext &nc, Value a, Value b) {
  if (nc.opset >= 7 || !nc.getInt("broadcast", 0) || !nc.hasAttr("axis"))
    return b;
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  FailureOr<int64_t> axis = nc.axis(nc.getInt("axis", 0), at.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t trailing = at.getRank() - *axis - bt.getRank();
  if (trailing < 0)
    return nc.fail("B does not fit A from axis " + Twine(*axis));
  SmallVector<int64_t> shape(bt.getShape());
  shape.append(trailing, 1);
  return nc.reshape(b, shape);
}

template <BinaryKind kind> LogicalResult binary(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<Value> rhs = legacyBroadcast(nc, nc.input(0), nc.input(1));
  if (failed(rhs))
    return failure();
  return nc.result(nc.create<BinaryOp>(
      {nc.input(0), *rhs},
      {nc.named("kind", BinaryKindAttr::get(nc.b.getContext(), kind))}));
}

/// Mod: fmod = 1 is C fmod (floats), 0 the floored integer remainder.
LogicalResult mod(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  BinaryKind kind = nc.getInt("fmod", 0) ? BinaryKind::FMod : BinaryKind::Mod;
  return nc.result(nc.binary(kind, nc.input(0), nc.input(1)));
}

/// Sum, Max, Min (and Mean, which divides by the count): a left fold.
template <BinaryKind kind, bool mean = false>
LogicalResult variadic(NodeContext &nc) {
  if (nc.numInputs() == 0 || failed(nc.requireInputs(nc.numInputs())))
    return nc.fail("expects at least one input");
  Value acc = nc.input(0);
  for (unsigned i = 1; i < nc.numInputs(); ++i) {
    FailureOr<Value> r = nc.binary(kind, acc, nc.input(i));
    if (failed(r))
      return failure();
    acc = *r;
  }
  if (mean && nc.numInputs() > 1) {
    auto type = cast<RankedTensorType>(acc.getType());
    Value count = nc.splat(RankedTensorType::get({}, type.getElementType()),
                           static_cast<double>(nc.numInputs()));
    FailureOr<Value> r = nc.binary(BinaryKind::Div, acc, count);
    if (failed(r))
      return failure();
    acc = *r;
  }
  nc.setOutput(0, acc);
  return success();
}

LogicalResult where(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  FailureOr<Value> r =
      nc.create<SelectOp>({nc.input(0), nc.input(1), nc.input(2)});
  if (failed(r))
    return failure();
  nc.setOutput(0, *r);
  return success();
}

LogicalResult unaryOn(NodeContext &nc, UnaryKind kind, Value x) {
  return nc.result(nc.create<UnaryOp>(
      {x}, {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(), kind))}));
}

template <UnaryKind kind> LogicalResult unary(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  return nc.result(nc.create<UnaryOp>(
      {nc.input(0)},
      {nc.named("kind", UnaryKindAttr::get(nc.b.getContext(), kind))}));
}

FailureOr<Value> makeActivation(NodeContext &nc, ActivationKind kind, Value x,
                                std::optional<float> alpha,
                                std::optional<float> beta) {
  SmallVector<NamedAttribute> attrs = {
      nc.named("kind", ActivationKindAttr::get(nc.b.getContext(), kind))};
  if (alpha)
    attrs.push_back(nc.named("alpha", nc.b.getF32FloatAttr(*alpha)));
  if (beta)
    attrs.push_back(nc.named("beta", nc.b.getF32FloatAttr(*beta)));
  return nc.create<ActivationOp>({x}, attrs);
}

/// An activation; `alpha`/`beta` name the ONNX attributes and defaults.
template <ActivationKind kind> LogicalResult activation(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  std::optional<float> alpha, beta;
  switch (kind) {
  case ActivationKind::LeakyRelu:
    alpha = nc.getFloat("alpha", 0.01f);
    break;
  case ActivationKind::Elu:
  case ActivationKind::ThresholdedRelu:
    alpha = nc.getFloat("alpha", 1.0f);
    break;
  case ActivationKind::Selu:
    alpha = nc.getFloat("alpha", 1.67326319217681884765625f);
    beta = nc.getFloat("gamma", 1.05070102214813232421875f);
    break;
  case ActivationKind::HardSigmoid:
    alpha = nc.getFloat("alpha", 0.2f);
    beta = nc.getFloat("beta", 0.5f);
    break;
  default:
    break;
  }
  return nc.result(makeActivation(nc, kind, nc.input(0), alpha, beta));
}

/// BitShift-11: direction LEFT or RIGHT (unsigned integers).
LogicalResult bitShift(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  std::string direction = nc.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return nc.fail("direction '" + direction +
                   "' is not supported (expected LEFT or RIGHT)");
  return nc.result(nc.binary(direction == "LEFT" ? BinaryKind::ShiftLeft
                                                 : BinaryKind::ShiftRight,
                             nc.input(0), nc.input(1)));
}

/// Gelu-20: approximate "none" (x/2 * (1 + erf(x/sqrt(2)))) or "tanh".
LogicalResult gelu(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  std::string approximate = nc.getString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return nc.fail("approximate '" + approximate +
                   "' is not supported (expected 'none' or 'tanh')");
  return nc.result(makeActivation(nc,
                                  approximate == "tanh"
                                      ? ActivationKind::GeluTanh
                                      : ActivationKind::GeluErf,
                                  nc.input(0), std::nullopt, std::nullopt));
}

/// Clip-6: min/max attributes (an activation). Clip-11: optional min and
/// max inputs; constant float bounds make an activation, any others a
/// max/min pair (which also covers integer tensors and runtime bounds).
LogicalResult clip(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  bool isFloat = isa<FloatType>(nc.inputType(0).getElementType());
  if (nc.opset < 11) {
    lo = nc.getFloat("min", lo);
    hi = nc.getFloat("max", hi);
  } else if (!isFloat || (nc.hasInput(1) && !nc.isConstantInput(1)) ||
             (nc.hasInput(2) && !nc.isConstantInput(2))) {
    Value y = nc.input(0);
    if (nc.hasInput(1)) {
      FailureOr<Value> r = nc.binary(BinaryKind::Max, y, nc.input(1));
      if (failed(r))
        return failure();
      y = *r;
    }
    if (nc.hasInput(2)) {
      FailureOr<Value> r = nc.binary(BinaryKind::Min, y, nc.input(2));
      if (failed(r))
        return failure();
      y = *r;
    }
    nc.setOutput(0, y);
    return success();
  } else {
    for (unsigned i : {1u, 2u}) {
      if (!nc.hasInput(i))
        continue;
      FailureOr<SmallVector<double>> v = nc.floatInput(i);
      if (failed(v))
        return failure();
      if (v->size() != 1)
        return nc.fail("expects a scalar " + Twine(i == 1 ? "min" : "max"));
      (i == 1 ? lo : hi) = static_cast<float>((*v)[0]);
    }
  }
  if (lo > hi) {
    // ONNX: every element becomes max when min > max.
    lo = hi;
  }
  FailureOr<Value> r =
      makeActivation(nc, ActivationKind::Clip, nc.input(0), lo, hi);
  if (failed(r))
    return failure();
  nc.setOutput(0, *r);
  return success();
}

/// Pow: the exponent is cast to the base's type; an integer base with a
/// float exponent is computed in f32 and cast back, integer powers are exact.
LogicalResult pow(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  FailureOr<Value> rhs = legacyBroadcast(nc, nc.input(0), nc.input(1));
  if (failed(rhs))
    return failure();
  auto baseType = nc.inputType(0);
  auto expType = cast<RankedTensorType>(rhs->getType());
  Type element = baseType.getElementType();
  bool intPower =
      isa<IntegerType>(element) && isa<IntegerType>(expType.getElementType());
  Type compute =
      isa<FloatType>(element) || intPower ? element : nc.b.getF32Type();
  auto castTo = [&](Value v, RankedTensorType t) -> FailureOr<Value> {
    if (t.getElementType() == compute)
      return v;
    return nc.createTyped<CastOp>(RankedTensorType::get(t.getShape(), compute),
                                  {v});
  };
  FailureOr<Value> base = castTo(nc.input(0), baseType);
  FailureOr<Value> exponent =
      failed(base) ? FailureOr<Value>(failure()) : castTo(*rhs, expType);
  if (failed(exponent))
    return failure();
  FailureOr<Value> r = nc.binary(BinaryKind::Pow, *base, *exponent);
  if (failed(r))
    return failure();
  if (compute != element) {
    auto type = cast<RankedTensorType>(r->getType());
    r = nc.createTyped<CastOp>(RankedTensorType::get(type.getShape(), element),
                               {*r});
    if (failed(r))
      return failure();
  }
  nc.setOutput(0, *r);
  return success();
}

/// PRelu: x < 0 ? slope * x : x, slope broadcasting to x.
LogicalResult prelu(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  Value x = nc.input(0), slope = nc.input(1);
  auto type = nc.inputType(0);
  auto slopeType = nc.inputType(1);
  // Before opset 7 a 1-D slope of C values applies per channel (dim 1).
  if (nc.opset < 7 && type.getRank() >= 2 && slopeType.getRank() == 1 &&
      slopeType.getDimSize(0) == type.getDimSize(1) &&
      slopeType.getDimSize(0) != type.getDimSize(type.getRank() - 1)) {
    SmallVector<int64_t> shape(type.getRank() - 1, 1);
    shape[0] = slopeType.getDimSize(0);
    FailureOr<Value> r = nc.reshape(slope, shape);
    if (failed(r))
      return failure();
    slope = *r;
  }
  Value zero = nc.splat(RankedTensorType::get({}, type.getElementType()), 0.0);
  FailureOr<Value> negative = nc.binary(BinaryKind::Less, x, zero);
  FailureOr<Value> scaled = failed(negative)
                                ? FailureOr<Value>(failure())
                                : nc.binary(BinaryKind::Mul, x, slope);
  if (failed(scaled))
    return failure();
  return nc.result(nc.create<SelectOp>({*negative, *scaled, x}));
}

/// Cast and CastLike: `saturate` (Cast-19) matters for the 8-bit floats.
LogicalResult castTo(NodeContext &nc, Type element) {
  auto type = nc.inputType(0);
  SmallVector<NamedAttribute, 1> attrs;
  if (!nc.getInt("saturate", 1))
    attrs.push_back(nc.named("saturate", nc.b.getBoolAttr(false)));
  return nc.result(nc.createTyped<CastOp>(
      RankedTensorType::get(type.getShape(), element), {nc.input(0)}, attrs));
}

LogicalResult castHandler(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  int64_t to = nc.getInt("to", 0);
  Type element =
      convertElementType(nc.b.getContext(), static_cast<int32_t>(to));
  if (!element)
    return nc.unsupported("cast to " + dataTypeName(static_cast<int32_t>(to)) +
                          " is not supported");
  return castTo(nc, element);
}

LogicalResult castLikeHandler(NodeContext &nc) {
  if (failed(nc.requireInputs(2)))
    return failure();
  return castTo(nc, nc.inputType(1).getElementType());
}

/// Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0.
LogicalResult shrink(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  double lambd = nc.getFloat("lambd", 0.5f), bias = nc.getFloat("bias", 0.0f);
  Value x = nc.input(0);
  FailureOr<Value> below =
      nc.binary(BinaryKind::Less, x, nc.splat(scalarType, -lambd));
  FailureOr<Value> above =
      nc.binary(BinaryKind::Greater, x, nc.splat(scalarType, lambd));
  FailureOr<Value> up =
      nc.binary(BinaryKind::Add, x, nc.splat(scalarType, bias));
  FailureOr<Value> down =
      nc.binary(BinaryKind::Sub, x, nc.splat(scalarType, bias));
  if (failed(below) || failed(above) || failed(up) || failed(down))
    return failure();
  FailureOr<Value> inner =
      nc.create<SelectOp>({*above, *down, nc.splat(scalarType, 0)});
  return nc.result(failed(inner) ? FailureOr<Value>(failure())
                                 : nc.create<SelectOp>({*below, *up, *inner}));
}

/// IsNaN: x != x.
LogicalResult isNaN(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  FailureOr<Value> eq = nc.binary(BinaryKind::Equal, nc.input(0), nc.input(0));
  if (failed(eq))
    return failure();
  return unaryOn(nc, UnaryKind::Not, *eq);
}

/// IsInf: x == +inf (detect_positive) or x == -inf (detect_negative).
LogicalResult isInf(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  auto type = nc.inputType(0);
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  bool positive = nc.getInt("detect_positive", 1) != 0;
  bool negative = nc.getInt("detect_negative", 1) != 0;
  Value result;
  for (auto [detect, sign] :
       {std::pair{positive, 1.0}, std::pair{negative, -1.0}}) {
    if (!detect)
      continue;
    Value inf =
        nc.splat(scalarType, sign * std::numeric_limits<double>::infinity());
    FailureOr<Value> eq = nc.binary(BinaryKind::Equal, nc.input(0), inf);
    if (failed(eq))
      return failure();
    if (result) {
      FailureOr<Value> either = nc.binary(BinaryKind::Or, result, *eq);
      if (failed(either))
        return failure();
      result = *either;
    } else {
      result = *eq;
    }
  }
  if (!result)
    result = nc.constant(DenseElementsAttr::get(
        RankedTensorType::get(type.getShape(), nc.b.getI1Type()), false));
  nc.setOutput(0, result);
  return success();
}

LogicalResult identity(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  nc.setOutput(0, nc.input(0));
  return success();
}

/// Dropout at inference is the identity; its mask output is not supported.
LogicalResult dropout(NodeContext &nc) {
  if (failed(nc.requireInputs(1)))
    return failure();
  if (nc.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> mode = nc.intInput(2);
    if (failed(mode))
      return failure();
    // Training mode drops at random, except with a ratio of 0.
    bool training = !mode->empty() && (*mode)[0] != 0;
    bool zeroRatio = false;
    if (training && nc.hasInput(1)) {
      FailureOr<SmallVector<double>> ratio = nc.floatInput(1);
      zeroRatio = succeeded(ratio) && ratio->size() == 1 && (*ratio)[0] == 0;
    }
    if (training && !zeroRatio)
      return nc.unsupported(
          "training mode is not supported (random; only a ratio of 0 is)");
  }
  nc.setOutput(0, nc.input(0));
  // At inference nothing is dropped: the mask is all true.
  if (nc.hasOutput(1)) {
    auto type = nc.inputType(0);
    auto maskType = RankedTensorType::get(type.getShape(), nc.b.getI1Type());
    nc.setOutput(1, nc.constant(DenseElementsAttr::get(maskType, true)));
  }
  return success();
}

} // namespace

void mlir::kiln::onnx_import::appendElementwiseHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Add", 1, binary<BinaryKind::Add>},
      {"Sub", 1, binary<BinaryKind::Sub>},
      {"Mul", 1, binary<BinaryKind::Mul>},
      {"Div", 1, binary<BinaryKind::Div>},
      {"Pow", 1, pow},
      {"Mod", 10, mod},
      {"And", 7, binary<BinaryKind::And>},
      {"Or", 7, binary<BinaryKind::Or>},
      {"Xor", 7, binary<BinaryKind::Xor>},
      {"BitwiseAnd", 18, binary<BinaryKind::And>},
      {"BitwiseOr", 18, binary<BinaryKind::Or>},
      {"BitwiseXor", 18, binary<BinaryKind::Xor>},
      {"BitwiseNot", 18, unary<UnaryKind::Not>},
      {"BitShift", 11, bitShift},
      {"Equal", 7, binary<BinaryKind::Equal>},
      {"Less", 7, binary<BinaryKind::Less>},
      {"LessOrEqual", 12, binary<BinaryKind::LessEqual>},
      {"Greater", 7, binary<BinaryKind::Greater>},
      {"GreaterOrEqual", 12, binary<BinaryKind::GreaterEqual>},
      {"Sum", 6, variadic<BinaryKind::Add>},
      {"Mean", 6, variadic<BinaryKind::Add, true>},
      {"Max", 6, variadic<BinaryKind::Max>},
      {"Min", 6, variadic<BinaryKind::Min>},
      {"Where", 9, where},
      {"Abs", 6, unary<UnaryKind::Abs>},
      {"Neg", 6, unary<UnaryKind::Neg>},
      {"Exp", 6, unary<UnaryKind::Exp>},
      {"Log", 6, unary<UnaryKind::Log>},
      {"Sqrt", 6, unary<UnaryKind::Sqrt>},
      {"Reciprocal", 6, unary<UnaryKind::Recip>},
      {"Ceil", 6, unary<UnaryKind::Ceil>},
      {"Floor", 6, unary<UnaryKind::Floor>},
      {"Sin", 7, unary<UnaryKind::Sin>},
      {"Cos", 7, unary<UnaryKind::Cos>},
      {"Tan", 7, unary<UnaryKind::Tan>},
      {"Asin", 7, unary<UnaryKind::Asin>},
      {"Acos", 7, unary<UnaryKind::Acos>},
      {"Atan", 7, unary<UnaryKind::Atan>},
      {"Sinh", 9, unary<UnaryKind::Sinh>},
      {"Cosh", 9, unary<UnaryKind::Cosh>},
      {"Asinh", 9, unary<UnaryKind::Asinh>},
      {"Acosh", 9, unary<UnaryKind::Acosh>},
      {"Atanh", 9, unary<UnaryKind::Atanh>},
      {"Erf", 9, unary<UnaryKind::Erf>},
      {"Sign", 9, unary<UnaryKind::Sign>},
      {"Round", 11, unary<UnaryKind::Round>},
      {"Not", 1, unary<UnaryKind::Not>},
      {"Relu", 6, activation<ActivationKind::Relu>},
      {"LeakyRelu", 6, activation<ActivationKind::LeakyRelu>},
      {"Sigmoid", 6, activation<ActivationKind::Sigmoid>},
      {"Tanh", 6, activation<ActivationKind::Tanh>},
      {"Elu", 6, activation<ActivationKind::Elu>},
      {"Selu", 6, activation<ActivationKind::Selu>},
      {"Softplus", 1, activation<ActivationKind::Softplus>},
      {"Softsign", 1, activation<ActivationKind::Softsign>},
      {"HardSigmoid", 6, activation<ActivationKind::HardSigmoid>},
      {"ThresholdedRelu", 10, activation<ActivationKind::ThresholdedRelu>},
      {"HardSwish", 14, activation<ActivationKind::HardSwish>},
      {"Gelu", 20, gelu},
      {"Clip", 6, clip},
      {"PRelu", 6, prelu},
      {"Cast", 6, castHandler},
      {"CastLike", 15, castLikeHandler},
      {"Identity", 1, identity},
      {"IsNaN", 9, isNaN},
      {"Shrink", 9, shrink},
      {"IsInf", 10, isInf},
      {"Dropout", 7, dropout},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
