//===- SpecializeShapes.h - a dynamic network at one shape ------*- C++ -*-===//
//
// Run-time shapes (issue 32) on the CPU reference: the reference compiles a
// network with dynamic (`?`) dimensions once per input shape, after giving
// its arguments that shape and inferring every layer's type again.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_SPECIALIZESHAPES_H
#define KILN_DIALECT_KILN_TRANSFORMS_SPECIALIZESHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::kiln {

/// Gives argument i of `func` the shape `shapes[i]` (of its rank, equal in
/// its static dimensions), infers the result types of its operations in
/// order (each must implement InferTypeOpInterface where a type changes),
/// and sets the function's type and its results'. `kiln.profile` argument
/// attributes are dropped: the function has static shapes after. Errors
/// name the argument or the operation.
LogicalResult specializeShapes(func::FuncOp func,
                               ArrayRef<SmallVector<int64_t>> shapes);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_SPECIALIZESHAPES_H
