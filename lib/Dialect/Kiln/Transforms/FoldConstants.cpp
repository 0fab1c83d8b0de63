//===- FoldConstants.cpp - compute constant layers on the host --*- C++ -*-===//
//
// One walk in program order: a kiln op whose operands are all kiln.constant
// becomes a kiln.constant with its value (ConstantFolding.h), so the next op
// of a chain sees constants too. Constants left unused are erased.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFOLDCONSTANTSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace mlir::kiln {
namespace {

struct FoldConstantsPass : impl::KilnFoldConstantsPassBase<FoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    llvm::SetVector<Operation *> maybeDead;
    func.walk([&](Operation *op) {
      if (isa<ConstantOp>(op) || op->getNumResults() != 1 ||
          !isa<KilnDialect>(op->getDialect()))
        return;
      SmallVector<Attribute> operands;
      for (Value v : op->getOperands()) {
        auto constant = v.getDefiningOp<ConstantOp>();
        if (!constant)
          return;
        operands.push_back(constant.getValue());
      }
      ElementsAttr value = evaluateConstant(op, operands, maxElements);
      if (!value)
        return;
      OpBuilder b(op);
      auto folded = ConstantOp::create(b, op->getLoc(), value);
      op->getResult(0).replaceAllUsesWith(folded.getResult());
      for (Value v : op->getOperands())
        maybeDead.insert(v.getDefiningOp());
      op->erase();
      ++numFolded;
    });
    for (Operation *op : maybeDead)
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
} // namespace mlir::kiln
