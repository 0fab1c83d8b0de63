//===- SymbolicShapes.h - dimensions as expressions of symbols --*- C++ -*-===//
//
// Run-time shapes (issue 32): a dimension that varies at run time is `?` in
// a kiln type. Where an op cannot infer it from its operands (a reshape to
// several `?`, a generated range or mask), the op carries it as an affine
// map whose symbols are the dynamic dimensions of the enclosing function's
// arguments, numbered argument by argument, dimension by dimension.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_SYMBOLICSHAPES_H
#define KILN_DIALECT_KILN_IR_SYMBOLICSHAPES_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>

namespace mlir {
class Block;
class Operation;
} // namespace mlir

namespace mlir::kiln {

/// A function attribute: pairs of symbols (flattened, `a0, b0, a1, b1...`)
/// that the network's layers combine element by element, so they must be
/// equal; checked when the shapes are known.
inline constexpr llvm::StringLiteral kEqualSymbolsAttrName =
    "kiln.equal_symbols";

/// The symbols of `body`'s shape maps: (argument, dimension) of each dynamic
/// dimension of its ranked tensor arguments, in order.
SmallVector<std::pair<unsigned, unsigned>> dynamicArgumentDims(Block &body);

/// The dimensions `shape` gives when its symbols take `symbols`. Fails,
/// saying why in `why`, on a missing symbol, a division by zero, a
/// negative dimension or an overflow.
FailureOr<SmallVector<int64_t>>
evaluateShapeMap(AffineMap shape, ArrayRef<int64_t> symbols, std::string &why);

/// Whether a kiln.reshape from `in` to `out` needs no shape map: `out` is
/// static, or `in` is dynamic and `out` has one `?` (the element count
/// gives it). Rewrites that make reshapes check it, since they cannot write
/// a map.
bool isPlainReshape(RankedTensorType in, RankedTensorType out);

/// Checks `shape` against `type` for `op`'s verifier: no dimension inputs,
/// one result per dimension, a constant result exactly where `type` is
/// static (and equal to it).
LogicalResult verifyShapeMap(Operation *op, AffineMap shape,
                             RankedTensorType type);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_SYMBOLICSHAPES_H
