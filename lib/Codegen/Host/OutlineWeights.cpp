//===- OutlineWeights.cpp - weights as function arguments -------*- C++ -*-===//
//
// kiln-outline-weights: constants whose value is a dense_resource blob
// become arguments of their function, recorded in kiln.outlined_weights, so
// that an executor passes the blob's bytes by pointer (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOUTLINEWEIGHTSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct OutlineWeights
    : public kiln::impl::KilnOutlineWeightsPassBase<OutlineWeights> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !users.getUsers(func).empty() ||
          !func.getBody().hasOneBlock())
        continue;
      if (failed(outline(func)))
        return signalPassFailure();
    }
  }

  LogicalResult outline(func::FuncOp func) {
    SmallVector<std::pair<Operation *, DenseResourceElementsAttr>> weights;
    func.walk([&](Operation *op) {
      Attribute value;
      if (op->getNumResults() == 1 && matchPattern(op, m_Constant(&value)))
        if (auto blob = dyn_cast<DenseResourceElementsAttr>(value))
          weights.push_back({op, blob});
    });
    if (weights.empty())
      return success();
    SmallVector<Attribute> outlined;
    if (auto earlier = func->getAttrOfType<ArrayAttr>(kOutlinedWeightsAttrName))
      outlined.append(earlier.begin(), earlier.end());
    for (auto [op, blob] : weights) {
      if (!blob.getRawHandle().getBlob())
        return op->emitError("kiln-outline-weights: weight blob '")
               << blob.getRawHandle().getKey() << "' has no data";
      unsigned index = func.getNumArguments();
      if (failed(func.insertArgument(index, op->getResult(0).getType(),
                                     DictionaryAttr(), op->getLoc())))
        return op->emitError("kiln-outline-weights: cannot add an argument");
      op->getResult(0).replaceAllUsesWith(func.getArgument(index));
      op->erase();
      outlined.push_back(blob);
      ++numOutlined;
    }
    func->setAttr(kOutlinedWeightsAttrName,
                  ArrayAttr::get(func.getContext(), outlined));
    return success();
  }
};
} // namespace
