//===- ShapeUtils.cpp - shared shape inference helpers ----------*- C++ -*-===//
//
// Implements the checks and shape arithmetic shared by the op families.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::kiln::detail;

std::string mlir::kiln::detail::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::interleave(
      shape,
      [&](int64_t d) {
        s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
      },
      [&] { s += "x"; });
  return s;
}

std::string mlir::kiln::detail::formatNumber(double value) {
  SmallString<16> text;
  llvm::APFloat(value).toString(text);
  return std::string(text);
}

std::optional<int64_t>
mlir::kiln::detail::elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    int64_t next;
    if (llvm::MulOverflow(count, d, next))
      return std::nullopt;
    count = next;
  }
  return count;
}

std::optional<SmallVector<int64_t>>
mlir::kiln::detail::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    // A dynamic dimension is taken not to broadcast (the plan checks it
    // when shapes are set): with 1 or `?` it stays `?`, with d it is d.
    if (ShapedType::isDynamic(da) || ShapedType::isDynamic(db)) {
      int64_t other = ShapedType::isDynamic(da) ? db : da;
      out[i] = other == 1 ? ShapedType::kDynamic : other;
      continue;
    }
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool mlir::kiln::detail::isKilnFloat(Type element) {
  return element.isF32() || element.isF16() || element.isBF16() ||
         element.isF64();
}

LogicalResult ShapeInference::fail(const Twine &msg) const {
  if (loc)
    return emitError(*loc) << "'" << opName << "' op " << msg;
  return failure();
}

LogicalResult ShapeInference::result(ArrayRef<int64_t> shape,
                                     Type elementType) {
  return result(RankedTensorType::get(shape, elementType));
}

LogicalResult ShapeInference::result(Type type) {
  results.push_back(type);
  return success();
}

FailureOr<RankedTensorType> ShapeInference::tensor(Value value,
                                                   StringRef what) const {
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
  if (type && !type.hasStaticShape()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return fail("does not take dynamic dimensions yet (run-time shapes): " +
                what + " is " + text);
  }
  if (!type)
    return fail("expects " + what + " to be a statically shaped tensor");
  return type;
}

FailureOr<RankedTensorType> ShapeInference::rankedTensor(Value value,
                                                         StringRef what) const {
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
  if (!type)
    return fail("expects " + what + " to be a ranked tensor");
  return type;
}

LogicalResult ShapeInference::checkStatic(RankedTensorType type, int64_t dim,
                                          StringRef what) const {
  if (!type.isDynamicDim(dim))
    return success();
  return fail("expects " + what + " (dimension " + Twine(dim) + " of " +
              formatShape(type.getShape()) +
              ") to be static: it sizes the layer's weights or its loops");
}

LogicalResult ShapeInference::checkSize(StringRef name,
                                        ArrayRef<int64_t> values,
                                        size_t expected) const {
  if (values.size() != expected)
    return fail("expects '" + name + "' to have " + Twine(expected) +
                " entries, got " + Twine(values.size()));
  return success();
}

LogicalResult ShapeInference::checkPositive(StringRef name,
                                            ArrayRef<int64_t> values) const {
  for (auto [i, v] : llvm::enumerate(values))
    if (v <= 0)
      return fail("expects '" + name + "' entries to be positive, got " +
                  Twine(v) + " at index " + Twine(i));
  return success();
}

LogicalResult ShapeInference::checkNonNegative(StringRef name,
                                               ArrayRef<int64_t> values) const {
  for (auto [i, v] : llvm::enumerate(values))
    if (v < 0)
      return fail("expects '" + name + "' entries to be non-negative, got " +
                  Twine(v) + " at index " + Twine(i));
  return success();
}

LogicalResult ShapeInference::checkAxis(StringRef name, int64_t axis,
                                        int64_t rank, bool allowRank) const {
  int64_t end = allowRank ? rank + 1 : rank;
  if (axis < 0 || axis >= end)
    return fail("expects '" + name + "' in [0, " + Twine(end) + "), got " +
                Twine(axis));
  return success();
}

LogicalResult ShapeInference::checkAxes(StringRef name, ArrayRef<int64_t> axes,
                                        int64_t rank) const {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (failed(checkAxis(name, axis, rank)))
      return failure();
    if (!seen.insert(axis).second)
      return fail("expects '" + name + "' to be distinct, " + Twine(axis) +
                  " appears twice");
  }
  return success();
}

LogicalResult ShapeInference::checkVector(StringRef what, RankedTensorType type,
                                          int64_t count, Type element) const {
  if (type.getRank() != 1 || type.getDimSize(0) != count)
    return fail("expects " + what + " to have shape " + Twine(count) +
                ", got " + formatShape(type.getShape()));
  if (type.getElementType() != element)
    return fail("expects " + what + " to have the input's element type");
  return success();
}

FailureOr<int64_t> ShapeInference::checkedExtent(__int128 value,
                                                 const Twine &what) const {
  if (value > std::numeric_limits<int64_t>::max() ||
      value < std::numeric_limits<int64_t>::min())
    return fail(what + " overflows 64 bits");
  return static_cast<int64_t>(value);
}
