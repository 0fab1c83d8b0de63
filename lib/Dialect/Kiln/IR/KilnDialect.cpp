//===- KilnDialect.cpp - kiln dialect ---------------------------*- C++ -*-===//
//
// Registers the kiln ops and attributes, folds any kiln op whose operands
// are all constants (ConstantFolding.h), materializes folded constants as
// kiln.constant, and verifies the kiln.* argument and result attributes
// (the names of network inputs and outputs).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "kiln/Dialect/Kiln/IR/ConstantFolding.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/KilnTraits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FoldInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnDialect.cpp.inc"
#include "kiln/Dialect/Kiln/IR/KilnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"

namespace {
/// The fallback of every kiln op's fold hook: when all operands are
/// constants, the op's value (within the evaluator's size bound).
struct KilnFoldInterface : public DialectFoldInterface {
  using DialectFoldInterface::DialectFoldInterface;
  LogicalResult fold(Operation *op, ArrayRef<Attribute> operands,
                     SmallVectorImpl<OpFoldResult> &results) const final {
    if (llvm::is_contained(operands, Attribute()))
      return failure();
    ElementsAttr value = evaluateConstant(op, operands);
    if (!value)
      return failure();
    results.push_back(value);
    return success();
  }
};
} // namespace

void KilnDialect::initialize() {
  addInterfaces<KilnFoldInterface>();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"
      >();
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// Checks a kiln.profile on argument `index` of function `op`: min, opt and
/// max of the argument's rank, min <= opt <= max, and a static dimension's
/// range that one size.
static LogicalResult verifyProfile(Operation *op, StringRef kind,
                                   unsigned index, Attribute value) {
  auto fail = [&]() {
    return op->emitError() << "'" << KilnDialect::getProfileAttrName()
                           << "' on " << kind << " " << index << " ";
  };
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (kind != "argument" || !func)
    return fail() << "belongs on a function's argument";
  auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes()[index]);
  auto dict = dyn_cast<DictionaryAttr>(value);
  auto get = [&](StringRef name) {
    return dict ? dict.getAs<DenseI64ArrayAttr>(name) : nullptr;
  };
  DenseI64ArrayAttr min = get("min"), opt = get("opt"), max = get("max");
  if (!type || !min || !opt || !max || dict.size() != 3)
    return fail() << "must be {min, opt, max} (array<i64>) on a ranked tensor";
  for (DenseI64ArrayAttr a : {min, opt, max})
    if (a.size() != type.getRank())
      return fail() << "must have " << type.getRank()
                    << " sizes in each of min, opt and max";
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t d = type.getDimSize(i);
    if (min[i] < 0 || min[i] > opt[i] || opt[i] > max[i] ||
        (!ShapedType::isDynamic(d) && (min[i] != d || max[i] != d)))
      return fail() << "gives dimension " << i << " of " << type << " min "
                    << min[i] << ", opt " << opt[i] << " and max " << max[i];
  }
  return success();
}

/// Checks a kiln.* attribute on argument or result `index` of `op`.
static LogicalResult verifyValueAttribute(Operation *op, StringRef kind,
                                          unsigned index,
                                          NamedAttribute attribute) {
  if (attribute.getName() == KilnDialect::getUnsignedAttrName()) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError()
             << "'" << KilnDialect::getUnsignedAttrName() << "' on " << kind
             << " " << index << " must be a unit attribute";
    return success();
  }
  if (attribute.getName() == KilnDialect::getProfileAttrName())
    return verifyProfile(op, kind, index, attribute.getValue());
  if (attribute.getName() != KilnDialect::getNameAttrName())
    return op->emitError() << "unknown kiln " << kind << " attribute '"
                           << attribute.getName().getValue() << "'";
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << KilnDialect::getNameAttrName() << "' on "
                           << kind << " " << index
                           << " must be a non-empty string";
  return success();
}

LogicalResult KilnDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  // The back end's function attributes (kiln.num_inputs, ...) are checked
  // where they are read.
  StringRef name = attribute.getName().getValue();
  if (name != getUnsignedOperandsAttrName() &&
      name != getUnsignedResultsAttrName())
    return success();
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError() << "'" << name << "' must be a unit attribute";
  return success();
}

LogicalResult KilnDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned /*regionIndex*/,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  return verifyValueAttribute(op, "argument", argIndex, attribute);
}

LogicalResult KilnDialect::verifyRegionResultAttribute(
    Operation *op, unsigned /*regionIndex*/, unsigned resultIndex,
    NamedAttribute attribute) {
  return verifyValueAttribute(op, "result", resultIndex, attribute);
}

LogicalResult mlir::OpTrait::kiln::verifyStaticShapes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.hasStaticShape())
      return success();
    return op->emitOpError()
           << "does not take dynamic dimensions yet (run-time shapes): " << kind
           << " #" << index << " is " << type;
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}
