//===- KilnGPUDialect.h - kiln code generation dialect ----------*- C++ -*-===//
//
// Declares the kiln_gpu dialect and its attributes (KilnGPU.td).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILNGPU_IR_KILNGPUDIALECT_H
#define KILN_DIALECT_KILNGPU_IR_KILNGPUDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/KilnGPU/IR/KilnGPUAttrs.h.inc"

#endif // KILN_DIALECT_KILNGPU_IR_KILNGPUDIALECT_H
