//===- ElementwiseOps.cpp - elementwise ops ---------------------*- C++ -*-===//
//
// Verification, shape inference and folding of kiln.activation, kiln.unary,
// kiln.binary, kiln.select, kiln.scale and kiln.cast.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

/// Shape inference of an op whose result has its input's type.
static LogicalResult inferSameType(std::optional<Location> loc,
                                   StringRef opName, Value input,
                                   SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, opName, inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(input, "input");
  if (failed(in))
    return failure();
  return s.result(*in);
}

//===----------------------------------------------------------------------===//
// ActivationOp
//===----------------------------------------------------------------------===//

LogicalResult ActivationOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  return inferSameType(loc, getOperationName(), adaptor.getInput(), inferred);
}

/// Which of alpha and beta an activation kind takes.
static std::pair<bool, bool> activationParameters(ActivationKind kind) {
  switch (kind) {
  case ActivationKind::LeakyRelu:
  case ActivationKind::Elu:
  case ActivationKind::ThresholdedRelu:
    return {true, false};
  case ActivationKind::Selu:
  case ActivationKind::Clip:
  case ActivationKind::HardSigmoid:
  case ActivationKind::ScaledTanh:
    return {true, true};
  default:
    return {false, false};
  }
}

LogicalResult ActivationOp::verify() {
  auto [takesAlpha, takesBeta] = activationParameters(getKind());
  StringRef kind = stringifyActivationKind(getKind());
  if (takesAlpha != getAlpha().has_value())
    return emitOpError() << "'" << kind << "' "
                         << (takesAlpha ? "requires" : "does not take")
                         << " attribute 'alpha'";
  if (takesBeta != getBeta().has_value())
    return emitOpError() << "'" << kind << "' "
                         << (takesBeta ? "requires" : "does not take")
                         << " attribute 'beta'";
  if (getKind() == ActivationKind::Clip &&
      getAlpha()->convertToFloat() > getBeta()->convertToFloat())
    return emitOpError("'clip' expects alpha (min) <= beta (max)");
  return success();
}

/// The ReLU-like kinds (piecewise, without exp, erf or tanh) run in 16 bits;
/// the others stay f32.
bool ActivationOp::allowsReducedPrecision() {
  switch (getKind()) {
  case ActivationKind::Relu:
  case ActivationKind::LeakyRelu:
  case ActivationKind::Clip:
  case ActivationKind::HardSigmoid:
  case ActivationKind::HardSwish:
  case ActivationKind::ThresholdedRelu:
    return true;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// UnaryOp
//===----------------------------------------------------------------------===//

LogicalResult UnaryOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  return inferSameType(loc, getOperationName(), adaptor.getInput(), inferred);
}

LogicalResult UnaryOp::verify() {
  Type element = getInput().getType().getElementType();
  StringRef kind = stringifyUnaryKind(getKind());
  switch (getKind()) {
  case UnaryKind::Not: // logical on i1, bitwise on other integers
    if (!isa<IntegerType>(element))
      return emitOpError() << "'" << kind << "' expects integer elements";
    return success();
  case UnaryKind::Abs:
  case UnaryKind::Neg:
  case UnaryKind::Sign:
    if (element.isInteger(1))
      return emitOpError() << "'" << kind << "' expects numeric elements";
    return success();
  default:
    if (!isKilnFloat(element))
      return emitOpError() << "'" << kind
                           << "' expects floating-point elements";
    return success();
  }
}

//===----------------------------------------------------------------------===//
// BinaryOp
//===----------------------------------------------------------------------===//

static bool isComparison(BinaryKind kind) {
  return kind >= BinaryKind::Equal && kind <= BinaryKind::GreaterEqual;
}

LogicalResult BinaryOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> lhs = s.rankedTensor(adaptor.getLhs(), "lhs");
  FailureOr<RankedTensorType> rhs =
      failed(lhs) ? FailureOr<RankedTensorType>(failure())
                  : s.rankedTensor(adaptor.getRhs(), "rhs");
  if (failed(rhs))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs->getShape(), rhs->getShape());
  if (!shape)
    return s.fail("expects operands that broadcast, got " +
                  formatShape(lhs->getShape()) + " and " +
                  formatShape(rhs->getShape()));
  Type element = isComparison(adaptor.getKind()) ? IntegerType::get(context, 1)
                                                 : lhs->getElementType();
  return s.result(*shape, element);
}

LogicalResult BinaryOp::verify() {
  Type element = getLhs().getType().getElementType();
  BinaryKind kind = getKind();
  StringRef name = stringifyBinaryKind(kind);
  bool isBool = element.isInteger(1), isFloat = isKilnFloat(element);
  switch (kind) {
  case BinaryKind::And: // logical on i1, bitwise on other integers
  case BinaryKind::Or:
  case BinaryKind::Xor:
    if (isFloat)
      return emitOpError() << "'" << name << "' expects integer elements";
    return success();
  case BinaryKind::ShiftLeft:
  case BinaryKind::ShiftRight:
    if (isBool || isFloat)
      return emitOpError() << "'" << name << "' expects integer elements";
    return success();
  case BinaryKind::Mod:
  case BinaryKind::FMod:
    if (isBool)
      return emitOpError() << "'" << name << "' expects numeric elements";
    return success();
  case BinaryKind::Pow:
    if (isBool)
      return emitOpError() << "'" << name << "' expects numeric elements";
    return success();
  case BinaryKind::Equal:
    return success();
  default:
    if (isBool)
      return emitOpError() << "'" << name << "' expects numeric elements";
    return success();
  }
}

/// Add, sub, mul, div, max and min run in 16 bits; pow, the comparisons and
/// the integer and logical kinds stay f32.
bool BinaryOp::allowsReducedPrecision() {
  switch (getKind()) {
  case BinaryKind::Add:
  case BinaryKind::Sub:
  case BinaryKind::Mul:
  case BinaryKind::Div:
  case BinaryKind::Max:
  case BinaryKind::Min:
    return true;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> cond =
      s.rankedTensor(adaptor.getCondition(), "condition");
  FailureOr<RankedTensorType> onTrue =
      failed(cond) ? FailureOr<RankedTensorType>(failure())
                   : s.rankedTensor(adaptor.getOnTrue(), "on_true");
  FailureOr<RankedTensorType> onFalse =
      failed(onTrue) ? FailureOr<RankedTensorType>(failure())
                     : s.rankedTensor(adaptor.getOnFalse(), "on_false");
  if (failed(onFalse))
    return failure();
  if (onTrue->getElementType() != onFalse->getElementType())
    return s.fail("expects on_true and on_false of one element type");
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(onTrue->getShape(), onFalse->getShape());
  if (shape)
    shape = broadcastShapes(cond->getShape(), *shape);
  if (!shape)
    return s.fail("expects operands that broadcast, got " +
                  formatShape(cond->getShape()) + ", " +
                  formatShape(onTrue->getShape()) + " and " +
                  formatShape(onFalse->getShape()));
  return s.result(*shape, onTrue->getElementType());
}

//===----------------------------------------------------------------------===//
// ScaleOp
//===----------------------------------------------------------------------===//

LogicalResult ScaleOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getChannelAxis());
  if (failed(s.checkAxis("channel_axis", axis, in->getRank())))
    return failure();
  // The weights hold one value per channel (or per item from the axis on).
  if (adaptor.getMode() != ScaleMode::Uniform)
    for (int64_t d = axis, e = adaptor.getMode() == ScaleMode::Channel
                                   ? axis + 1
                                   : in->getRank();
         d < e; ++d)
      if (failed(s.checkStatic(*in, d, "a dimension the weights cover")))
        return failure();
  std::optional<int64_t> count = 1;
  switch (adaptor.getMode()) {
  case ScaleMode::Uniform:
    break;
  case ScaleMode::Channel:
    count = in->getDimSize(axis);
    break;
  case ScaleMode::Elementwise:
    count = elementCount(in->getShape().drop_front(axis));
    break;
  }
  if (!count)
    return s.fail("expects fewer than 2^63 elements per batch item");
  std::pair<Value, StringRef> weights[] = {{adaptor.getShift(), "shift"},
                                           {adaptor.getScale(), "scale"},
                                           {adaptor.getPower(), "power"}};
  for (auto [value, name] : weights) {
    if (!value)
      continue;
    FailureOr<RankedTensorType> type = s.tensor(value, name);
    if (failed(type) ||
        failed(s.checkVector(name, *type, *count, in->getElementType())))
      return failure();
  }
  return s.result(*in);
}

OpFoldResult ScaleOp::fold(FoldAdaptor) {
  if (!getShift() && !getScale() && !getPower())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getResult().getType().getShape())
    return emitOpError() << "expects the result to have the input's shape "
                         << formatShape(getInput().getType().getShape())
                         << ", got "
                         << formatShape(getResult().getType().getShape());
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}
