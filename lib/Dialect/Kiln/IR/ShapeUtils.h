//===- ShapeUtils.h - shared shape inference helpers ------------*- C++ -*-===//
//
// Helpers the op families share to check attributes and compute result
// shapes, with every failure reported as "'kiln.op' op <what is wrong>".
// Private to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_IR_SHAPEUTILS_H
#define KILN_LIB_DIALECT_KILN_IR_SHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::kiln::detail {

/// Prints a shape as "1x3x224x224" ("scalar" for rank 0).
std::string formatShape(ArrayRef<int64_t> shape);

/// Prints a number as briefly as it round-trips ("0.5", "12").
std::string formatNumber(double value);

/// Number of elements of `shape`, or nullopt when it overflows int64.
std::optional<int64_t> elementCount(ArrayRef<int64_t> shape);

/// Broadcasts two shapes numpy-style; nullopt when they do not broadcast.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b);

/// True when `element` is f32, f16 or bf16.
bool isKilnFloat(Type element);

/// Collects the result type of one op's shape inference and reports its
/// errors, prefixed with the op's name like verifier errors are.
class ShapeInference {
public:
  ShapeInference(std::optional<Location> loc, StringRef opName,
                 SmallVectorImpl<Type> &results)
      : loc(loc), opName(opName), results(results) {}

  /// Emits "'<op>' op <msg>" (when there is a location) and fails.
  LogicalResult fail(const Twine &msg) const;

  /// Records the result type and succeeds.
  LogicalResult result(ArrayRef<int64_t> shape, Type elementType);
  LogicalResult result(Type type);

  /// The operand's type as a statically shaped tensor, or a failure naming
  /// `what` (a dynamic dimension: the op does not take run-time shapes).
  FailureOr<RankedTensorType> tensor(Value value, StringRef what) const;
  /// The operand's type as a ranked tensor, `?` allowed (for the ops that
  /// take run-time shapes, Kiln_DynamicShapes).
  FailureOr<RankedTensorType> rankedTensor(Value value, StringRef what) const;

  /// Checks that dimension `dim` of `type` is static; the error names it as
  /// `what` ("the channel count").
  LogicalResult checkStatic(RankedTensorType type, int64_t dim,
                            StringRef what) const;
  /// Checks that attribute `name` has `expected` entries.
  LogicalResult checkSize(StringRef name, ArrayRef<int64_t> values,
                          size_t expected) const;
  /// Checks that every entry of attribute `name` is > 0 (or >= 0).
  LogicalResult checkPositive(StringRef name, ArrayRef<int64_t> values) const;
  LogicalResult checkNonNegative(StringRef name,
                                 ArrayRef<int64_t> values) const;
  /// Checks 0 <= axis < rank (or <= rank when `allowRank`).
  LogicalResult checkAxis(StringRef name, int64_t axis, int64_t rank,
                          bool allowRank = false) const;
  /// Checks that `axes` are distinct and each in [0, rank).
  LogicalResult checkAxes(StringRef name, ArrayRef<int64_t> axes,
                          int64_t rank) const;
  /// Checks that `type` is a 1-D tensor of `count` elements of `element`.
  LogicalResult checkVector(StringRef what, RankedTensorType type,
                            int64_t count, Type element) const;
  /// Checks that `value` fits int64 and returns it.
  FailureOr<int64_t> checkedExtent(__int128 value, const Twine &what) const;

private:
  std::optional<Location> loc;
  StringRef opName;
  SmallVectorImpl<Type> &results;
};

} // namespace mlir::kiln::detail

#endif // KILN_LIB_DIALECT_KILN_IR_SHAPEUTILS_H
