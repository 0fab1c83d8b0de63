//===- GeneratedOps.cpp - tensors computed from their indices --*- C++ -*-===//
//
// Verification of kiln.iota, the op that generated tensors (eye matrices,
// one-hot codes, windows, ranges, band masks, block indices) are built from
// when they are too large to be constants.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

// Verify

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  int64_t dimension = static_cast<int64_t>(getDimension());
  if (dimension < 0 || dimension >= type.getRank())
    return emitOpError() << "dimension " << dimension
                         << " is out of range for a result of rank "
                         << type.getRank();
  if (std::optional<AffineMap> shape = getShape()) {
    if (failed(verifyShapeMap(*this, *shape, type)))
      return failure();
  } else if (!type.hasStaticShape()) {
    return emitOpError() << "expects a shape map for its dynamic result "
                         << type;
  }
  bool isFloat = isa<FloatType>(type.getElementType());
  Type expected = isFloat ? Type(Float64Type::get(getContext()))
                          : Type(IntegerType::get(getContext(), 64));
  for (auto [name, attr] :
       {std::pair<StringRef, TypedAttr>{"start", getStart()},
        {"step", getStep()}}) {
    bool fits = isFloat ? isa<FloatAttr>(attr) : isa<IntegerAttr>(attr);
    if (!fits || attr.getType() != expected)
      return emitOpError() << "expects " << name << " as " << expected
                           << " for a result of " << type.getElementType();
  }
  return success();
}
