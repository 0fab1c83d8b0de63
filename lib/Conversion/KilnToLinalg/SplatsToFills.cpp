//===- SplatsToFills.cpp - large splat constants as fills -------*- C++ -*-===//
//
// kiln-splats-to-fills: a splat constant of at least min-bytes becomes a
// linalg.fill of a tensor.empty (see Passes.td), so that its bytes are
// written where they are needed, not stored in the plan or the JIT's code.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "kiln/Support/Sizes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSPLATSTOFILLSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {
struct SplatsToFills
    : public kiln::impl::KilnSplatsToFillsPassBase<SplatsToFills> {
  using Base::Base;

  void runOnOperation() override {
    if (minBytes < 1) {
      getOperation().emitError("kiln-splats-to-fills: min-bytes must be "
                               "positive, got ")
          << static_cast<int64_t>(minBytes);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](arith::ConstantOp op) {
      auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
      auto type = dyn_cast<RankedTensorType>(op.getType());
      if (!splat || !type || !type.hasStaticShape())
        return;
      std::optional<uint64_t> bytes = kiln::getByteSize(type);
      if (!bytes || *bytes < static_cast<uint64_t>(minBytes))
        return;
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value scalar = arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      Value fill =
          linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
      rewriter.replaceOp(op, fill);
    });
  }
};
} // namespace
