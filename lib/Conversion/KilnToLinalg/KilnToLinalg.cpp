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
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCONVERTTOLINALGPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

void mlir::kiln::populateKilnToLinalgPatterns(RewritePatternSet &patterns) {
  lowering::populateElementwisePatterns(patterns);
  lowering::populateConvPoolPatterns(patterns);
  lowering::populateMatrixPatterns(patterns);
  lowering::populateNormalizationPatterns(patterns);
  lowering::populateDataMovementPatterns(patterns);
  lowering::populateResizePatterns(patterns);
}

namespace mlir::kiln {
namespace {
struct ConvertToLinalgPass
    : impl::KilnConvertToLinalgPassBase<ConvertToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<KilnDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateKilnToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
} // namespace mlir::kiln
