//===- MatrixOps.cpp - matrix product ops -----------------------*- C++ -*-===//
//
// Shape inference of kiln.fully_connected, kiln.matmul and kiln.gemm.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::detail;

//===----------------------------------------------------------------------===//
// FullyConnectedOp
//===----------------------------------------------------------------------===//

LogicalResult
FullyConnectedOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> in = s.rankedTensor(adaptor.getInput(), "input");
  FailureOr<RankedTensorType> weight =
      failed(in) ? FailureOr<RankedTensorType>(failure())
                 : s.tensor(adaptor.getWeight(), "weight");
  if (failed(weight))
    return failure();
  Type element = in->getElementType();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(s.checkAxis("axis", axis, in->getRank())))
    return failure();
  // The flattened dimensions meet the weight: only those before may vary.
  for (int64_t d = axis; d < in->getRank(); ++d)
    if (failed(s.checkStatic(*in, d, "a dimension the weight multiplies")))
      return failure();
  std::optional<int64_t> inner = elementCount(in->getShape().drop_front(axis));
  if (!inner)
    return s.fail(
        "expects the flattened input to have fewer than 2^63 elements");
  if (weight->getRank() != 2 || weight->getDimSize(1) != *inner)
    return s.fail("expects weight of shape K x " + Twine(*inner) +
                  " (the input flattened from axis " + Twine(axis) + "), got " +
                  formatShape(weight->getShape()));
  if (weight->getElementType() != element)
    return s.fail("expects weight to have the input's element type");
  int64_t outputs = weight->getDimSize(0);
  if (Value bias = adaptor.getBias()) {
    FailureOr<RankedTensorType> biasType = s.tensor(bias, "bias");
    if (failed(biasType) ||
        failed(s.checkVector("bias", *biasType, outputs, element)))
      return failure();
  }
  SmallVector<int64_t> shape(in->getShape().take_front(axis));
  shape.push_back(outputs);
  return s.result(shape, element);
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
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
  if (lhs->getRank() < 2 || rhs->getRank() < 2)
    return s.fail("expects operands of rank >= 2, got " +
                  formatShape(lhs->getShape()) + " and " +
                  formatShape(rhs->getShape()));
  if (lhs->getElementType() != rhs->getElementType())
    return s.fail("expects operands of one element type");
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  size_t ra = a.size(), rb = b.size();
  int64_t m = adaptor.getTransposeLhs() ? a[ra - 1] : a[ra - 2];
  int64_t ka = adaptor.getTransposeLhs() ? a[ra - 2] : a[ra - 1];
  int64_t kb = adaptor.getTransposeRhs() ? b[rb - 1] : b[rb - 2];
  int64_t n = adaptor.getTransposeRhs() ? b[rb - 2] : b[rb - 1];
  // A dynamic side is checked when the shapes are known.
  if (ka != kb && !ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb))
    return s.fail("expects contracted dimensions to match, got " + Twine(ka) +
                  " and " + Twine(kb));
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(a.drop_back(2), b.drop_back(2));
  if (!batch)
    return s.fail("expects batch dimensions that broadcast, got " +
                  formatShape(a.drop_back(2)) + " and " +
                  formatShape(b.drop_back(2)));
  batch->push_back(m);
  batch->push_back(n);
  return s.result(*batch, lhs->getElementType());
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  ShapeInference s(loc, getOperationName(), inferred);
  FailureOr<RankedTensorType> a = s.rankedTensor(adaptor.getA(), "a");
  FailureOr<RankedTensorType> b = failed(a)
                                      ? FailureOr<RankedTensorType>(failure())
                                      : s.rankedTensor(adaptor.getB(), "b");
  if (failed(b))
    return failure();
  if (a->getRank() != 2 || b->getRank() != 2)
    return s.fail("expects matrices, got " + formatShape(a->getShape()) +
                  " and " + formatShape(b->getShape()));
  Type element = a->getElementType();
  if (b->getElementType() != element)
    return s.fail("expects operands of one element type");
  bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  int64_t m = a->getDimSize(ta ? 1 : 0), ka = a->getDimSize(ta ? 0 : 1);
  int64_t kb = b->getDimSize(tb ? 1 : 0), n = b->getDimSize(tb ? 0 : 1);
  if (ka != kb && !ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb))
    return s.fail("expects contracted dimensions to match, got " + Twine(ka) +
                  " and " + Twine(kb));
  SmallVector<int64_t> shape = {m, n};
  if (Value c = adaptor.getC()) {
    FailureOr<RankedTensorType> cType = s.rankedTensor(c, "c");
    if (failed(cType))
      return failure();
    if (cType->getElementType() != element)
      return s.fail("expects c to have the element type of a and b");
    std::optional<SmallVector<int64_t>> joint =
        broadcastShapes(shape, cType->getShape());
    if (cType->getRank() > 2 || !joint ||
        ArrayRef<int64_t>(*joint) != ArrayRef<int64_t>(shape))
      return s.fail("expects c to broadcast to " + formatShape(shape) +
                    ", got " + formatShape(cType->getShape()));
  }
  return s.result(shape, element);
}
