//===- Passes.h - kiln graph passes -----------------------------*- C++ -*-===//
//
// Declares the kiln graph passes and their registration. The graph pipeline
// built from them (kiln-optimize) lives in kiln/Pipelines/Pipelines.h.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "kiln/Dialect/Kiln/IR/ConstantFolding.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Support/Precision.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
