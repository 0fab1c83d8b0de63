//===- KilnTraits.h - kiln op traits and interfaces -------------*- C++ -*-===//
//
// The op properties the graph passes query instead of lists of op classes:
// the traits and interfaces declared in KilnBase.td. A trait is a fact about
// every instance of an op; an interface answers per instance, from the op's
// attributes (an activation is safe in 16 bits or not by its kind).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNTRAITS_H
#define KILN_DIALECT_KILN_IR_KILNTRAITS_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::kiln {

/// Each result element is a function of the operand elements at the same
/// index, after numpy broadcasting; the op commutes with a permutation of
/// dimensions applied to all its operands and its result.
template <typename ConcreteType>
class Elementwise : public TraitBase<ConcreteType, Elementwise> {};

/// The result holds the operand's elements in the same row-major order; only
/// the shape changes.
template <typename ConcreteType>
class ReshapeLike : public TraitBase<ConcreteType, ReshapeLike> {};

/// The op takes dynamic (`?`) dimensions (run-time shapes): its inference
/// and its lowering handle them. Other kiln ops refuse them (ShapeGuard).
template <typename ConcreteType>
class DynamicShapes : public TraitBase<ConcreteType, DynamicShapes> {};

/// Fails, naming the first tensor of `op` with a dynamic dimension.
LogicalResult verifyStaticShapes(Operation *op);

/// Every kiln op: its tensors have static shapes unless it has
/// DynamicShapes, so that an op whose inference or lowering assumes static
/// shapes never meets `?`.
template <typename ConcreteType>
class ShapeGuard : public TraitBase<ConcreteType, ShapeGuard> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    if (op->hasTrait<DynamicShapes>())
      return success();
    return verifyStaticShapes(op);
  }
};

} // namespace mlir::OpTrait::kiln

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNTRAITS_H
