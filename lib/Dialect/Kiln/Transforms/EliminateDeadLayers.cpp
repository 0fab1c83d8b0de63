//===- EliminateDeadLayers.cpp - remove layers no output needs --*- C++ -*-===//
//
// Walks back from the values a network function returns (its marked outputs)
// and erases every op none of them depends on, as the TensorRT builder's
// dead-layer elimination does. Ops with side effects are roots and stay.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNELIMINATEDEADLAYERSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace mlir::kiln {
namespace {

struct EliminateDeadLayersPass
    : impl::KilnEliminateDeadLayersPassBase<EliminateDeadLayersPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitError("kiln-eliminate-dead-layers expects a network function "
                     "with one block");
      return signalPassFailure();
    }
    Block &body = func.getBody().front();

    // Mark: the terminator and every op with effects are roots; everything
    // their operands come from (transitively, through nested regions too) is
    // live.
    llvm::SmallPtrSet<Operation *, 32> live;
    SmallVector<Operation *> worklist;
    for (Operation &op : body)
      if (op.hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(&op))
        worklist.push_back(&op);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!live.insert(op).second)
        continue;
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (def && def->getBlock() == &body)
            worklist.push_back(def);
        }
      });
    }

    // Sweep in reverse order so users go before their producers.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
      if (live.contains(&op))
        continue;
      op.dropAllUses();
      op.erase();
      ++numLayersRemoved;
    }
  }
};

} // namespace
} // namespace mlir::kiln
