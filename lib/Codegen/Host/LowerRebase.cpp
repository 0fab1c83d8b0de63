//===- LowerRebase.cpp - kiln-lower-rebase ----------------------*- C++ -*-===//
//
// kiln_gpu.rebase on the host, for the CPU reference: the source's memref
// descriptor with its aligned pointer moved to the result's base (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNLOWERREBASEPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct LowerRebaseOp : public ConvertOpToLLVMPattern<RebaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RebaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto from = cast<MemRefType>(op.getSource().getType());
    auto to = cast<MemRefType>(op.getType());
    int64_t fromOffset = from.getStridesAndOffset().second;
    int64_t toOffset = to.getStridesAndOffset().second;
    Type element = getTypeConverter()->convertType(to.getElementType());
    if (!element)
      return rewriter.notifyMatchFailure(op, "element type not convertible");
    Location loc = op.getLoc();
    MemRefDescriptor desc(adaptor.getSource());
    Value aligned = desc.alignedPtr(rewriter, loc);
    Value delta = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getI64Type(),
        rewriter.getI64IntegerAttr(fromOffset - toOffset));
    Value moved = LLVM::GEPOp::create(rewriter, loc, aligned.getType(), element,
                                      aligned, ArrayRef<LLVM::GEPArg>{delta});
    desc.setAlignedPtr(rewriter, loc, moved);
    desc.setConstantOffset(rewriter, loc, toOffset);
    rewriter.replaceOp(op, {static_cast<Value>(desc)});
    return success();
  }
};

struct LowerRebase : public kiln::impl::KilnLowerRebasePassBase<LowerRebase> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<LowerRebaseOp>(converter);
    ConversionTarget target(*ctx);
    target.addIllegalOp<RebaseOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
