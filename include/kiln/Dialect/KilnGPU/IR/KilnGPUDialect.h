//===- KilnGPUDialect.h - kiln code generation dialect ----------*- C++ -*-===//
//
// Declares the kiln_gpu dialect, its attributes and its op (KilnGPU.td).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILNGPU_IR_KILNGPUDIALECT_H
#define KILN_DIALECT_KILNGPU_IR_KILNGPUDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/KilnGPU/IR/KilnGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/KilnGPU/IR/KilnGPUOps.h.inc"

#endif // KILN_DIALECT_KILNGPU_IR_KILNGPUDIALECT_H
