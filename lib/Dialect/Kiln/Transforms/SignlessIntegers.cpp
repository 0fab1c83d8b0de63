//===- SignlessIntegers.cpp - unsigned tensors made signless ----*- C++ -*-===//
//
// kiln-signless-integers: rewrites every ui8...ui64 in a module to the
// signless integer of its width (tensor types, block arguments, function
// signatures, constants' values) and records where values were unsigned:
// kiln.unsigned_operands / kiln.unsigned_results on ops, kiln.unsigned on
// network inputs and outputs.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSIGNLESSINTEGERSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

static bool isUnsigned(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return getElementTypeOrSelf(shaped ? shaped.getElementType() : type)
      .isUnsignedInteger();
}

static bool anyUnsigned(TypeRange types) {
  return llvm::any_of(types, isUnsigned);
}

/// `type` with an unsigned element type made signless.
static Type signless(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  Type element = shaped ? shaped.getElementType() : type;
  if (!element.isUnsignedInteger())
    return type;
  Type to =
      IntegerType::get(type.getContext(), element.getIntOrFloatBitWidth());
  return shaped ? Type(shaped.clone(to)) : to;
}

/// The value of a kiln.constant of unsigned type, retyped (same bits).
static ElementsAttr signlessValue(ElementsAttr value) {
  auto type = cast<ShapedType>(signless(value.getType()));
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.bitcast(type.getElementType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  return nullptr;
}

namespace mlir::kiln {
namespace {

struct SignlessIntegersPass
    : impl::KilnSignlessIntegersPassBase<SignlessIntegersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    UnitAttr unit = UnitAttr::get(ctx);
    bool failedConstant = false;
    module.walk([&](Operation *op) {
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        for (unsigned i = 0; i < func.getNumArguments(); ++i)
          if (isUnsigned(func.getArgumentTypes()[i]))
            func.setArgAttr(i, KilnDialect::getUnsignedAttrName(), unit);
        for (unsigned i = 0; i < func.getNumResults(); ++i)
          if (isUnsigned(func.getResultTypes()[i]))
            func.setResultAttr(i, KilnDialect::getUnsignedAttrName(), unit);
        return;
      }
      if (!isa<KilnDialect>(op->getDialect()))
        return;
      if (auto constant = dyn_cast<kiln::ConstantOp>(op)) {
        if (!isUnsigned(constant.getType()))
          return;
        ElementsAttr value = signlessValue(constant.getValue());
        if (!value) {
          constant.emitOpError("has an unsigned value of a kind "
                               "kiln-signless-integers cannot retype");
          failedConstant = true;
          return;
        }
        constant.setValueAttr(value);
        return;
      }
      bool operands = anyUnsigned(op->getOperandTypes());
      bool results = anyUnsigned(op->getResultTypes());
      if (operands)
        op->setAttr(KilnDialect::getUnsignedOperandsAttrName(), unit);
      if (results)
        op->setAttr(KilnDialect::getUnsignedResultsAttrName(), unit);
      numMarked += operands || results;
    });
    if (failedConstant)
      return signalPassFailure();
    // Every other type and attribute: tensor types of values and block
    // arguments, function types, typed attributes.
    AttrTypeReplacer replacer;
    replacer.addReplacement([](IntegerType type) -> std::optional<Type> {
      if (!type.isUnsigned())
        return std::nullopt;
      return IntegerType::get(type.getContext(), type.getWidth());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};

} // namespace
} // namespace mlir::kiln
