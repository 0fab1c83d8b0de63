//===- ShapeProgram.h - a plan's symbols, profiles and shape expressions --===//
//
// The checks of format 1.4's run-time shapes that do not depend on steps:
// every dynamic input dimension belongs to exactly one symbol, every dynamic
// input has one range per profile (the same number for all), ranges are
// ordered and agree with the static dimensions, the dimensions of one symbol
// have a common range in every profile, every output dimension that varies
// has an expression, and every expression is a well-formed program that
// does not overflow at the largest shapes. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_PLAN_SHAPEPROGRAM_H
#define KILN_RUNTIME_SRC_PLAN_SHAPEPROGRAM_H

#include "kiln/runtime/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt::detail {

/// What checkShapeProgram learns about a plan.
struct ShapeSpace {
  /// Per symbol: its smallest and largest value over every profile.
  std::vector<int64_t> low, high;
  /// Per tensor and dimension: the symbol of a dynamic input dimension, -1
  /// elsewhere.
  std::vector<std::vector<int32_t>> symbolOf;
  /// Per expression: its value at `low` and at `high`.
  std::vector<int64_t> exprLow, exprHigh;
};

/// Checks the symbols, the profiles and the expressions of `plan` (see the
/// file comment); failures carry `code` and name what is wrong.
Status checkShapeProgram(const PlanContents &plan, StatusCode code,
                         ShapeSpace &space);

/// The dimensions of tensor `index` when the symbols are `symbols` and the
/// expressions' values `exprs`.
std::vector<int64_t> shapeAt(const PlanContents &plan, const ShapeSpace &space,
                             size_t index, const std::vector<int64_t> &symbols,
                             const std::vector<int64_t> &exprs);

/// "input 'x'" or "output 'y'", as messages name a tensor.
std::string tensorLabel(const TensorDesc &t);

/// "1x?x8" (a scalar is "scalar").
std::string shapeText(const std::vector<int64_t> &shape);

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_PLAN_SHAPEPROGRAM_H
