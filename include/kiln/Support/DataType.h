//===- DataType.h - MLIR element types as the runtime's ---------*- C++ -*-===//
//
// The one mapping from MLIR element types to the runtime's DataType, for
// everything that describes I/O tensors of compiled code (the plan
// translation, the CPU reference executor).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_DATATYPE_H
#define KILN_SUPPORT_DATATYPE_H

#include "kiln/runtime/Plan.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::kiln {

/// The runtime's type for elements of `type`, or nullopt when the runtime
/// has none. Signless integers are signed; ui8...ui64 are the unsigned ones
/// (kiln-signless-integers records them as `kiln.unsigned` on the I/O of
/// the signless function it makes: see getRuntimeDataType(Type, bool)).
inline std::optional<::kiln::rt::DataType> getRuntimeDataType(Type type) {
  using ::kiln::rt::DataType;
  if (type.isF32())
    return DataType::F32;
  if (type.isF16())
    return DataType::F16;
  if (type.isBF16())
    return DataType::BF16;
  if (type.isInteger(1))
    return DataType::Bool;
  if (type.isUnsignedInteger(8))
    return DataType::U8;
  if (type.isUnsignedInteger(16))
    return DataType::U16;
  if (type.isUnsignedInteger(32))
    return DataType::U32;
  if (type.isUnsignedInteger(64))
    return DataType::U64;
  if (isa<Float8E4M3FNType>(type))
    return DataType::F8E4M3FN;
  if (isa<Float8E4M3FNUZType>(type))
    return DataType::F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(type))
    return DataType::F8E5M2;
  if (isa<Float8E5M2FNUZType>(type))
    return DataType::F8E5M2FNUZ;
  if (isa<Float4E2M1FNType>(type))
    return DataType::F4E2M1;
  if (type.isUnsignedInteger(4))
    return DataType::U4;
  if (type.isUnsignedInteger(2))
    return DataType::U2;
  if (type.isSignedInteger())
    return std::nullopt;
  if (type.isInteger(4))
    return DataType::I4;
  if (type.isInteger(2))
    return DataType::I2;
  if (type.isInteger(8))
    return DataType::I8;
  if (type.isInteger(32))
    return DataType::I32;
  if (type.isInteger(64))
    return DataType::I64;
  if (type.isF64())
    return DataType::F64;
  if (type.isInteger(16))
    return DataType::I16;
  return std::nullopt;
}

/// The runtime's type for elements of `type` of an I/O tensor that
/// kiln-signless-integers marked `kiln.unsigned` when `isUnsigned`.
inline std::optional<::kiln::rt::DataType> getRuntimeDataType(Type type,
                                                              bool isUnsigned) {
  if (isUnsigned && type.isSignlessInteger() && !type.isInteger(1))
    type = IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth(),
                            IntegerType::Unsigned);
  return getRuntimeDataType(type);
}

} // namespace mlir::kiln

#endif // KILN_SUPPORT_DATATYPE_H
