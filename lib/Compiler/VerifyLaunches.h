//===- VerifyLaunches.h - verification linear in the kernels ----*- C++ -*-===//
//
// MLIR's verifier checks a gpu.container_module by looking each launch's
// kernel up with a linear scan of the module and of the gpu.module: after
// every pass, launches x kernels (20,000 distinct layers made each
// verification take 2.6 s). The compiler verifies the phases that have
// launches with verifyLaunches instead, once a phase, in linear time.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_VERIFYLAUNCHES_H
#define KILN_COMPILER_VERIFYLAUNCHES_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln {

/// Verifies `module` as mlir::verify does (every op of it, recursively),
/// but checks the launches of its gpu.container_module attribute through
/// symbol tables: each gpu.launch_func names a gpu.func kernel of a
/// gpu.module of `module` and passes it operands of its arguments' types
/// (or names a gpu.binary: the kernels serialized).
LogicalResult verifyLaunches(ModuleOp module);

} // namespace mlir::kiln

#endif // KILN_COMPILER_VERIFYLAUNCHES_H
