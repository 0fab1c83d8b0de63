//===- Passes.h - kiln conversion passes ------------------------*- C++ -*-===//
//
// Declares the passes that lower kiln to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_PASSES_H
#define KILN_CONVERSION_PASSES_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Conversion/Passes.h.inc"

/// True if `loc` holds a NameLoc with a non-empty name (the layer's name).
bool hasLayerName(Location loc);

/// Adds the patterns that lower every kiln op to linalg/tensor/arith/math.
/// `convProductMinFlops`: as kiln-convert-to-linalg's option (-1: off).
void populateKilnToLinalgPatterns(RewritePatternSet &patterns,
                                  int64_t convProductMinFlops = -1);

#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/Passes.h.inc"

} // namespace kiln
} // namespace mlir

#endif // KILN_CONVERSION_PASSES_H
