//===- KilnOps.cpp - kiln op definitions ------------------------*- C++ -*-===//
//
// Instantiates the ODS-generated op classes. The hand-written parts of the
// ops (shape inference, verifiers, folders) live in one file per op family:
// ConvPoolOps, MatrixOps, ElementwiseOps, NormalizationOps and
// DataMovementOps, with the canonicalization patterns in KilnCanonicalize.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }
