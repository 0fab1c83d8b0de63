//===- NormalizationOps.cpp - normalization, softmax, reduce ----*- C++ -*-===//
//
// Shape inference of kiln.softmax, kiln.log_softmax, kiln.lrn,
// kiln.batch_norm, kiln.instance_norm, kiln.layer_norm, kiln.reduce and
// kiln.arg_reduce.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

/// Softmax-like ops: the result has the input's type; `axis` is in range.
static LogicalResult inferAxisOp(std::optional<Location> loc, StringRef opName,
                                 Value input, int64_t axis,
                                 SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, opName, inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(input, "input");
  if (failed(in) || failed(s.checkAxis("axis", axis, in->getRank())))
    return failure();
  return s.result(*in);
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferAxisOp(loc, getOperationName(), adaptor.getInput(),
                     static_cast<int64_t>(adaptor.getAxis()), inferred);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  return inferAxisOp(loc, getOperationName(), adaptor.getInput(),
                     static_cast<int64_t>(adaptor.getAxis()), inferred);
}

/// Checks an N x C x ... input of at least `minRank` and that each of
/// `params` holds C values of its element type.
static LogicalResult
inferChannelNorm(ShapeInference &s, Value input, int64_t minRank,
                 ArrayRef<std::pair<Value, StringRef>> params) {
  FailureOr<RankedTensorType> in = s.rankedTensor(input, "input");
  if (failed(in))
    return failure();
  if (in->getRank() < minRank)
    return s.fail("expects input of rank >= " + Twine(minRank) +
                  " (N x C x ...), got " + formatShape(in->getShape()));
  if (!params.empty() && failed(s.checkStatic(*in, 1, "the channel count")))
    return failure();
  for (auto [value, name] : params) {
    FailureOr<RankedTensorType> type = s.tensor(value, name);
    if (failed(type) || failed(s.checkVector(name, *type, in->getDimSize(1),
                                             in->getElementType())))
      return failure();
  }
  return s.result(*in);
}

LogicalResult LrnOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  int64_t size = static_cast<int64_t>(adaptor.getSize());
  if (size <= 0)
    return s.fail("expects 'size' to be positive, got " + Twine(size));
  return inferChannelNorm(s, adaptor.getInput(), 3, {});
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  return inferChannelNorm(s, adaptor.getInput(), 2,
                          {{adaptor.getScale(), "scale"},
                           {adaptor.getBias(), "bias"},
                           {adaptor.getMean(), "mean"},
                           {adaptor.getVariance(), "variance"}});
}

LogicalResult
InstanceNormOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  return inferChannelNorm(
      s, adaptor.getInput(), 3,
      {{adaptor.getScale(), "scale"}, {adaptor.getBias(), "bias"}});
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(in) || failed(s.checkAxis("axis", axis, in->getRank())))
    return failure();
  if (adaptor.getScale() || adaptor.getBias())
    for (int64_t d = axis; d < in->getRank(); ++d)
      if (failed(s.checkStatic(*in, d, "a normalized dimension")))
        return failure();
  ArrayRef<int64_t> normalized = in->getShape().drop_front(axis);
  std::pair<Value, StringRef> params[] = {{adaptor.getScale(), "scale"},
                                          {adaptor.getBias(), "bias"}};
  for (auto [value, name] : params) {
    if (!value)
      continue;
    FailureOr<RankedTensorType> type = s.tensor(value, name);
    if (failed(type))
      return failure();
    if (type->getElementType() != in->getElementType())
      return s.fail("expects " + name + " to have the input's element type");
    std::optional<SmallVector<int64_t>> joint =
        broadcastShapes(normalized, type->getShape());
    if (!joint || ArrayRef<int64_t>(*joint) != normalized)
      return s.fail("expects " + name + " to broadcast to the normalized " +
                    "dimensions " + formatShape(normalized) + ", got " +
                    formatShape(type->getShape()));
  }
  return s.result(*in);
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (axes.empty())
    return s.fail("expects at least one axis to reduce");
  if (failed(s.checkAxes("axes", axes, in->getRank())))
    return failure();
  switch (adaptor.getKind()) {
  case ReduceKind::L2:
  case ReduceKind::LogSum:
  case ReduceKind::LogSumExp:
    if (!isKilnFloat(in->getElementType()))
      return s.fail("'" + stringifyReduceKind(adaptor.getKind()) +
                    "' expects floating-point elements");
    break;
  default:
    break;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0, e = in->getRank(); i < e; ++i) {
    if (!llvm::is_contained(axes, i))
      shape.push_back(in->getDimSize(i));
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  return s.result(shape, in->getElementType());
}

/// The result type of kiln.cumsum and kiln.cumprod: the input's.
template <typename Adaptor>
static LogicalResult inferCumulative(std::optional<Location> loc,
                                     StringRef name, Adaptor adaptor,
                                     SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, name, inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(in) || failed(s.checkAxis("axis", axis, in->getRank())))
    return failure();
  inferred.push_back(*in);
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferCumulative(loc, getOperationName(), adaptor, inferred);
}

LogicalResult CumProdOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferCumulative(loc, getOperationName(), adaptor, inferred);
}

LogicalResult ArgReduceOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(in) || failed(s.checkAxis("axis", axis, in->getRank())))
    return failure();
  SmallVector<int64_t> shape(in->getShape());
  if (adaptor.getKeepDims())
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  return s.result(shape, IntegerType::get(context, 64));
}
