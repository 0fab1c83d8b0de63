//===- KilnToLinalg.cpp - the kiln-convert-to-linalg pass -------*- C++ -*-===//
//
// Applies every kiln-to-linalg pattern as a partial conversion in which the
// kiln dialect is illegal: an op without a lowering fails the pass with an
// error naming it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "Patterns.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCONVERTTOLINALGPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

void mlir::kiln::populateKilnToLinalgPatterns(RewritePatternSet &patterns,
                                              int64_t convProductMinFlops) {
  lowering::populateElementwisePatterns(patterns);
  lowering::populateConvPoolPatterns(patterns, convProductMinFlops);
  lowering::populateMatrixPatterns(patterns);
  lowering::populateNormalizationPatterns(patterns);
  lowering::populateDataMovementPatterns(patterns);
  lowering::populateResizePatterns(patterns);
}

bool mlir::kiln::hasLayerName(Location loc) {
  bool named = false;
  loc->walk([&](Location l) {
    auto name = dyn_cast<NameLoc>(l);
    named = name && !name.getName().getValue().empty();
    return named ? WalkResult::interrupt() : WalkResult::advance();
  });
  return named;
}

namespace mlir::kiln {
namespace {
struct ConvertToLinalgPass
    : impl::KilnConvertToLinalgPassBase<ConvertToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Run-time shapes stop here for now: the lowering sizes its tensors
    // from static types (issue 32, docs/design/run-time-shapes.md).
    WalkResult dynamicFound = getOperation()->walk([&](Operation *op) {
      auto isDynamic = [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && !tensor.hasStaticShape();
      };
      if (llvm::any_of(op->getOperandTypes(), isDynamic) ||
          llvm::any_of(op->getResultTypes(), isDynamic)) {
        op->emitOpError("has dynamic dimensions (run-time shapes), which "
                        "code generation does not take yet; build with "
                        "--input-shape or --batch");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (dynamicFound.wasInterrupted())
      return signalPassFailure();
    // The arith ops the lowering builds take signless integers only.
    WalkResult unsignedFound = getOperation()->walk([&](Operation *op) {
      auto isUnsigned = [](Type t) {
        return getElementTypeOrSelf(t).isUnsignedInteger();
      };
      if (llvm::any_of(op->getOperandTypes(), isUnsigned) ||
          llvm::any_of(op->getResultTypes(), isUnsigned)) {
        op->emitOpError("has unsigned integer types; run "
                        "kiln-signless-integers before kiln-convert-to-linalg");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsignedFound.wasInterrupted())
      return signalPassFailure();
    // The ops a layer lowers to inherit its location: a layer without a name
    // (kiln IR written by hand) is named after its kind, so that the GPU
    // kernels made from it say which layer they compute (k5_convolution).
    getOperation()->walk([&](Operation *op) {
      if (!isa<KilnDialect>(op->getDialect()) || isa<kiln::ConstantOp>(op) ||
          hasLayerName(op->getLoc()))
        return;
      op->setLoc(NameLoc::get(
          StringAttr::get(ctx, op->getName().stripDialect()), op->getLoc()));
    });
    ConversionTarget target(*ctx);
    target.addIllegalDialect<KilnDialect>();
    // Plugins stay layers: they bufferize into library calls.
    target.addLegalOp<PluginOp>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateKilnToLinalgPatterns(patterns, convProductMinFlops);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
} // namespace mlir::kiln
