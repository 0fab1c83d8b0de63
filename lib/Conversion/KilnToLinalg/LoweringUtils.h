//===- LoweringUtils.h - helpers for lowering kiln to linalg ----*- C++ -*-===//
//
// Builders shared by the kiln-to-linalg patterns: linalg.generic with
// broadcasting or explicit indexing maps, filled and empty tensors, reshapes,
// padding (negative amounts crop), and scalar arithmetic that picks the
// float or integer op from the element type.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::kiln::lowering {

/// Computes one output element from the block arguments (inputs, then the
/// output's current value).
using ScalarFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A tensor.empty of `type`.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);
/// A tensor of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   double value);
/// A scalar constant of `type` (float or integer).
Value scalar(OpBuilder &b, Location loc, Type type, double value);
/// The lowest (for max) or highest (for min) value of `type`; integers are
/// read as unsigned when `isUnsigned`.
Value lowest(OpBuilder &b, Location loc, Type type, bool isUnsigned = false);
Value highest(OpBuilder &b, Location loc, Type type, bool isUnsigned = false);

/// Whether kiln-signless-integers marked `op`'s integer operands (results)
/// as unsigned.
bool hasUnsignedOperands(Operation *op);
bool hasUnsignedResults(Operation *op);

/// An elementwise linalg.generic producing `resultType`; each input
/// broadcasts numpy-style (right-aligned, size-1 dimensions stretch).
Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                  ValueRange inputs, ScalarFn fn);

/// A linalg.generic with explicit maps writing into `init`.
Value generic(OpBuilder &b, Location loc, Value init, ValueRange inputs,
              ArrayRef<AffineMap> inputMaps, AffineMap outputMap,
              ArrayRef<utils::IteratorType> iterators, ScalarFn fn);

/// Sums of products (matrix products, convolutions) of f16 or bf16 values
/// accumulate in f32, as tensor cores do: the accumulator tensor's type for
/// a result of `type`.
RankedTensorType accumulatorType(RankedTensorType type);
/// acc + x * y with x and y extended to acc's type first (a body of such a
/// sum).
Value multiplyAccumulate(OpBuilder &b, Location loc, Value acc, Value x,
                         Value y);
/// The accumulator `acc` as `type` (an elementwise truncation when the types
/// differ).
Value finishAccumulation(OpBuilder &b, Location loc, Value acc,
                         RankedTensorType type);

/// `value` with the (same-size) shape of `type`.
Value reshape(OpBuilder &b, Location loc, Value value, RankedTensorType type);

/// Pads (positive amounts) or crops (negative amounts) each dimension.
Value padOrCrop(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, double fill);

/// Reduces `input` over `axes` (dropped from the result) with `combine`,
/// starting from `init`.
Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
             Value init, ScalarFn combine);

/// Scalar arithmetic choosing float or integer ops by type.
Value add(OpBuilder &b, Location loc, Value x, Value y);
Value sub(OpBuilder &b, Location loc, Value x, Value y);
Value mul(OpBuilder &b, Location loc, Value x, Value y);
/// Integer division, min and max read their operands as unsigned when
/// `isUnsigned`.
Value div(OpBuilder &b, Location loc, Value x, Value y,
          bool isUnsigned = false);
Value max(OpBuilder &b, Location loc, Value x, Value y,
          bool isUnsigned = false);
Value min(OpBuilder &b, Location loc, Value x, Value y,
          bool isUnsigned = false);
/// Converts a scalar between element types (float/int, any width, i1);
/// `fromUnsigned`/`toUnsigned` say how the integers are read. `saturate`
/// is kiln.cast's, for a conversion to an 8-bit float.
Value convert(OpBuilder &b, Location loc, Value x, Type to,
              bool fromUnsigned = false, bool toUnsigned = false,
              bool saturate = true);

/// Whether `type` is a float of at most 8 bits that kiln converts with
/// integer arithmetic (SmallFloats.cpp): f8E4M3FN, f8E4M3FNUZ, f8E5M2,
/// f8E5M2FNUZ, f4E2M1FN.
bool isSmallFloat(Type type);
/// The f32 `x` as the small float type `to`, rounding to nearest even;
/// `saturate` clamps to its largest finite value first (kiln.cast).
Value truncateToSmallFloat(OpBuilder &b, Location loc, Value x, Type to,
                           bool saturate);
/// The small float `x` as f32 (exact).
Value extendSmallFloat(OpBuilder &b, Location loc, Value x);

} // namespace mlir::kiln::lowering

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
