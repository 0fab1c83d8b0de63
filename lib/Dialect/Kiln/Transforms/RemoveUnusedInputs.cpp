//===- RemoveUnusedInputs.cpp - drop inputs nothing reads -------*- C++ -*-===//
//
// kiln-remove-unused-inputs: removes the arguments that no op reads from
// every function that nothing calls (a called function keeps them, with a
// remark). A module pass: whether a signature may change depends on the
// module's other functions.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNREMOVEUNUSEDINPUTSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace mlir::kiln {
namespace {

struct RemoveUnusedInputsPass
    : impl::KilnRemoveUnusedInputsPassBase<RemoveUnusedInputsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      llvm::BitVector unused(func.getNumArguments());
      // An argument with dynamic dimensions stays: they number the symbols
      // of shape maps (SymbolicShapes.h).
      for (BlockArgument arg : func.getArguments()) {
        auto type = dyn_cast<RankedTensorType>(arg.getType());
        if (arg.use_empty() && (!type || type.hasStaticShape()))
          unused.set(arg.getArgNumber());
      }
      if (unused.none())
        continue;
      if (!users.getUsers(func).empty()) {
        func.emitRemark("kept unused inputs: the function has callers");
        continue;
      }
      numInputsRemoved += unused.count();
      if (failed(func.eraseArguments(unused)))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace mlir::kiln
