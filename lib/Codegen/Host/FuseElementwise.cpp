//===- FuseElementwise.cpp - elementwise layers into readers ----*- C++ -*-===//
//
// kiln-fuse-elementwise: upstream's elementwise fusion of a linalg.generic
// into its one reader, with a bound on the fused body (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFUSEELEMENTWISEPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct FuseElementwise
    : public kiln::impl::KilnFuseElementwisePassBase<FuseElementwise> {
  using Base::Base;

  void runOnOperation() override {
    int64_t limit = maxBodyOps;
    auto bodySize = [](Operation *op) {
      return static_cast<int64_t>(
          op->getRegion(0).front().getOperations().size());
    };
    linalg::ControlFusionFn control = [&](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      Operation *consumer = operand->getOwner();
      return producer && producer->hasOneUse() &&
             producer->getBlock() == consumer->getBlock() &&
             bodySize(producer) + bodySize(consumer) <= limit;
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
