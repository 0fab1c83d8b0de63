//===- DeviceOps.cpp - what the runtime does without a kernel ---*- C++ -*-===//

#include "kiln/Codegen/GPU/DeviceOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

/// True for a memref the runtime can treat as one contiguous byte range.
static bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref::isStaticShapeAndContiguousRowMajor(memref);
}

/// The byte every element of `value` consists of, if they are all equal.
static std::optional<uint8_t> repeatedByte(Attribute value) {
  APInt bits;
  if (auto f = dyn_cast<FloatAttr>(value))
    bits = f.getValue().bitcastToAPInt();
  else if (auto i = dyn_cast<IntegerAttr>(value))
    bits = i.getValue();
  else
    return std::nullopt;
  if (bits.getBitWidth() == 1) // i1 is stored as one byte
    return static_cast<uint8_t>(bits.getZExtValue());
  if (bits.getBitWidth() % 8 != 0)
    return std::nullopt;
  uint8_t first = bits.extractBitsAsZExtValue(8, 0);
  for (unsigned i = 8; i < bits.getBitWidth(); i += 8)
    if (bits.extractBitsAsZExtValue(8, i) != first)
      return std::nullopt;
  return first;
}

bool mlir::kiln::isDeviceCopy(memref::CopyOp copy) {
  auto src = dyn_cast<MemRefType>(copy.getSource().getType());
  auto dst = dyn_cast<MemRefType>(copy.getTarget().getType());
  return src && dst && isContiguous(src) && isContiguous(dst) &&
         src.getShape() == dst.getShape() &&
         src.getElementType() == dst.getElementType();
}

std::optional<uint8_t> mlir::kiln::getMemsetByte(linalg::FillOp fill) {
  Attribute value;
  if (!matchPattern(fill.getInputs()[0], m_Constant(&value)) ||
      !isContiguous(fill.getOutputs()[0].getType()))
    return std::nullopt;
  return repeatedByte(value);
}
