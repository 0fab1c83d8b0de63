//===- Passes.h - kiln graph passes -----------------------------*- C++ -*-===//
//
// Declares the kiln passes, their registration and the named pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

/// Adds the default graph optimization pipeline (`kiln-optimize`) to `pm`,
/// which must be anchored on a module.
void buildKilnOptimizePipeline(OpPassManager &pm);

/// Registers every kiln pass (generated `registerKilnPasses()`) and the
/// named kiln pipelines.
void registerKilnPassesAndPipelines();

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

} // namespace kiln
} // namespace mlir

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
