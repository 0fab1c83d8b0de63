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
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Conversion/Passes.h.inc"

/// True when the runtime can do `copy` as one device copy (a Copy step):
/// contiguous buffers of the same shape and element type.
bool isDeviceCopy(memref::CopyOp copy);

/// The byte the runtime can memset `fill`'s output with (a Fill step): the
/// output is contiguous and the constant value's bytes are all equal.
std::optional<uint8_t> getMemsetByte(linalg::FillOp fill);

/// True if `loc` holds a NameLoc with a non-empty name (the layer's name).
bool hasLayerName(Location loc);

/// Adds the patterns that lower every kiln op to linalg/tensor/arith/math.
void populateKilnToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/Passes.h.inc"

} // namespace kiln
} // namespace mlir

#endif // KILN_CONVERSION_PASSES_H
