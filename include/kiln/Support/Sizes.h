//===- Sizes.h - byte sizes of shaped types, checked -----------*- C++ -*-===//
//
// How many bytes a statically shaped tensor or buffer takes, with overflow
// checked, and the memory budget every compilation is held to: a small
// model file must not make the importer or the compiler allocate far more
// than the budget allows (CompilerOptions::maxMemoryBytes, --max-memory).
// Also the shape text (formatDims) of the importers' errors.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_SIZES_H
#define KILN_SUPPORT_SIZES_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::kiln {

/// The default memory budget: 16 GiB.
inline constexpr uint64_t kDefaultMemoryBudget = uint64_t(16) << 30;

/// The most bytes a generated tensor (an iota, eye matrix, one-hot code,
/// window, range, band mask, block index or diagonal mask) may take as a
/// constant: the importers write a smaller one into the IR once, and build a
/// larger one from kiln.iota, computed at run time, so it costs neither host
/// memory at import nor room in the plan.
inline constexpr uint64_t kMaxGeneratedConstantBytes = uint64_t(64) << 10;

/// The highest rank of a model's tensors, as in TensorRT: loops nested
/// deeper than this are refused at import, not compiled.
inline constexpr int64_t kMaxTensorRank = 8;

/// The default work budget of the CPU reference (--max-work): the most
/// iterations one layer may have, 2^36 (about 6.9e10, a 4096 x 4096 x 4096
/// matrix product). The reference runs about 10^9 iterations a second, so a
/// layer it accepts by default runs in about a minute at most; a layer of a
/// real model at batch 1 has well under 10^10.
inline constexpr uint64_t kDefaultMaxWork = uint64_t(1) << 36;

/// Bytes of one element in memory (i1 takes a byte, sub-byte types round
/// up).
inline uint64_t getElementByteSize(Type element) {
  if (!element.isIntOrFloat())
    return 8;
  return std::max<uint64_t>(
      1, llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
}

/// The bytes of a statically shaped `type`, or nullopt when the shape is
/// dynamic, a dimension is negative, or the count overflows 64 bits.
inline std::optional<uint64_t> getByteSize(ShapedType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  uint64_t bytes = getElementByteSize(type.getElementType());
  for (int64_t d : type.getShape()) {
    if (d < 0)
      return std::nullopt;
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      return std::nullopt;
  }
  return bytes;
}

/// "1x3x224x224" ("?x3" with a dynamic dimension, "scalar" for rank 0), as
/// the importers' errors write shapes.
inline std::string formatDims(ArrayRef<int64_t> dims) {
  if (dims.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") + (ShapedType::isDynamic(dims[i])
                               ? std::string("?")
                               : std::to_string(dims[i]));
  return s;
}

} // namespace mlir::kiln

#endif // KILN_SUPPORT_SIZES_H
