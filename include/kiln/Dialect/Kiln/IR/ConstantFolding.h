//===- ConstantFolding.h - Evaluate kiln ops on constants -------*- C++ -*-===//
//
// The value of a kiln op whose operands are all constants, computed on the
// host. Exported networks compute shapes, masks and position ids at run time
// (Shape, Gather, Concat, Where, Range, ...); with static shapes all of that
// is constant, and folding it is what lets the importer read a Reshape's
// target or an Expand's shape. The kiln dialect's fold interface, the
// importer and kiln-fold-constants all use this one evaluator.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_CONSTANTFOLDING_H
#define KILN_DIALECT_KILN_IR_CONSTANTFOLDING_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"

namespace mlir::kiln {

/// The most elements a folded result may have by default (8 MiB of f64s
/// while it is computed): shape subgraphs and masks are far smaller, and a
/// larger result is cheaper to compute on the GPU than to store in a plan.
constexpr int64_t kDefaultMaxFoldedElements = int64_t(1) << 20;

/// The most elements a result computed from resource-blob weights may have;
/// a reshape of such weights never folds (it copies them and saves nothing).
constexpr int64_t kMaxElementsFromBlobs = int64_t(1) << 16;

/// The result of `op` computed from `operands` (one attribute per operand,
/// null where the operand is not a constant). Null when it cannot fold: an
/// operand is not constant, the op is one the evaluator does not compute, the
/// result has more than `maxElements` elements (kMaxElementsFromBlobs when an
/// operand is a resource blob), or the value is one that
/// generated code defines differently (integer division by zero, a float to
/// integer cast out of range, an index out of range).
ElementsAttr evaluateConstant(Operation *op, ArrayRef<Attribute> operands,
                              int64_t maxElements = kDefaultMaxFoldedElements);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_CONSTANTFOLDING_H
