//===- ConstantsToGlobals.cpp - tensor constants as globals -----*- C++ -*-===//
//
// kiln-constants-to-globals: every tensor constant becomes a read of a
// private constant memref.global, equal constants sharing one, in time
// linear in the constants (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCONSTANTSTOGLOBALSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// "__constant_2x4xf32": the name one-shot bufferization gives a global.
static std::string getBaseName(RankedTensorType type) {
  std::string name = "__constant_";
  llvm::raw_string_ostream os(name);
  for (int64_t d : type.getShape())
    os << d << "x";
  type.getElementType().print(os);
  return name;
}

namespace {
struct ConstantsToGlobals
    : public kiln::impl::KilnConstantsToGlobalsPassBase<ConstantsToGlobals> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> taken;
    for (Operation &op : *module.getBody())
      if (auto name =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        taken.insert(name.getValue());
    SmallVector<arith::ConstantOp> constants;
    module.walk([&](arith::ConstantOp op) {
      if (isa<RankedTensorType>(op.getType()) &&
          isa<ElementsAttr>(op.getValue()))
        constants.push_back(op);
    });
    // The globals go before the first function, in the order of first use.
    OpBuilder globals(module.getBody(), module.getBody()->begin());
    DenseMap<std::pair<Attribute, Type>, memref::GlobalOp> byValue;
    llvm::StringMap<unsigned> suffixes;
    for (arith::ConstantOp op : constants) {
      auto type = cast<RankedTensorType>(op.getType());
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      memref::GlobalOp &global = byValue[{op.getValue(), memrefType}];
      if (!global) {
        std::string base = getBaseName(type), name = base;
        unsigned &next = suffixes[base];
        while (!taken.insert(name).second)
          name = base + "_" + std::to_string(next++);
        global = memref::GlobalOp::create(
            globals, op.getLoc(), name, globals.getStringAttr("private"),
            memrefType, cast<ElementsAttr>(op.getValue()), /*constant=*/true,
            globals.getI64IntegerAttr(kBufferAlignment));
      }
      OpBuilder b(op);
      Value buffer = memref::GetGlobalOp::create(b, op.getLoc(), memrefType,
                                                 global.getSymName());
      auto tensor =
          bufferization::ToTensorOp::create(b, op.getLoc(), type, buffer);
      tensor.setRestrict(true);
      op.replaceAllUsesWith(tensor.getResult());
      op.erase();
    }
  }
};
} // namespace
