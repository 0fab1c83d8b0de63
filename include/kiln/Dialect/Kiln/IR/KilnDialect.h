//===- KilnDialect.h - kiln dialect -----------------------------*- C++ -*-===//
//
// Declares the kiln dialect class and its enums and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h.inc"
#include "kiln/Dialect/Kiln/IR/KilnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
