//===- FoldBatchNorm.cpp - Fold batch norm into convolutions ----*- C++ -*-===//
//
// Inference batch normalization after a convolution is a per-channel scale
// and shift of the convolution's output, so it folds into the filter and the
// bias at build time (kiln-fold-batch-norm; Passes.td shows the IR). The new
// weights are computed on the host in double and stored as f32, dense for
// small tensors and as resource blobs for large ones, as the importer stores
// weights.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <cstring>
#include <optional>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFOLDBATCHNORMPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Tensors with at most this many elements stay dense attributes (as the
/// importer's kDenseLimit); larger ones become resource blobs.
constexpr int64_t kDenseLimit = 64;

/// The f32 values of `v` when it is a kiln.constant of f32 elements.
std::optional<std::vector<float>> floatConstant(Value v) {
  auto constant = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant || !constant.getType().getElementType().isF32())
    return std::nullopt;
  ElementsAttr value = constant.getValue();
  int64_t n = constant.getType().getNumElements();
  std::vector<float> out(static_cast<size_t>(n));
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat())
      std::fill(out.begin(), out.end(), dense.getSplatValue<float>());
    else
      llvm::copy(dense.getValues<float>(), out.begin());
    return out;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || blob->getData().size() < out.size() * sizeof(float))
    return std::nullopt;
  std::memcpy(out.data(), blob->getData().data(), out.size() * sizeof(float));
  return out;
}

/// A kiln.constant of `type` holding `values`: dense when small, else a
/// resource blob named after `name`.
Value makeConstant(PatternRewriter &rewriter, Location loc,
                   RankedTensorType type, ArrayRef<float> values,
                   StringRef name) {
  ElementsAttr attr;
  if (type.getNumElements() <= kDenseLimit)
    attr = DenseElementsAttr::get(type, values);
  else
    attr = DenseResourceElementsAttr::get(
        type, name, HeapAsmResourceBlob::allocateAndCopyInferAlign(values));
  return ConstantOp::create(rewriter, loc, attr);
}

struct FoldBatchNormIntoConvolution : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<ConvolutionOp>();
    if (!conv || !conv->hasOneUse())
      return rewriter.notifyMatchFailure(bn, "input is not a convolution "
                                             "used only here");
    RankedTensorType filterType = conv.getFilter().getType();
    std::optional<std::vector<float>> filter = floatConstant(conv.getFilter());
    std::optional<std::vector<float>> scale = floatConstant(bn.getScale());
    std::optional<std::vector<float>> shift = floatConstant(bn.getBias());
    std::optional<std::vector<float>> mean = floatConstant(bn.getMean());
    std::optional<std::vector<float>> variance =
        floatConstant(bn.getVariance());
    std::optional<std::vector<float>> bias =
        conv.getBias() ? floatConstant(conv.getBias())
                       : std::optional<std::vector<float>>();
    if (!filter || !scale || !shift || !mean || !variance ||
        (conv.getBias() && !bias) || !bn.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(
          bn, "weights or statistics are not f32 constants");
    int64_t channels = filterType.getDimSize(0);
    if (channels == 0 || static_cast<int64_t>(scale->size()) != channels ||
        static_cast<int64_t>(shift->size()) != channels ||
        static_cast<int64_t>(mean->size()) != channels ||
        static_cast<int64_t>(variance->size()) != channels)
      return rewriter.notifyMatchFailure(bn, "not one parameter per channel");

    int64_t perChannel = filterType.getNumElements() / channels;
    double epsilon = bn.getEpsilon().convertToDouble();
    std::vector<float> newFilter(filter->size()), newBias(channels);
    for (int64_t k = 0; k < channels; ++k) {
      double f =
          double((*scale)[k]) / std::sqrt(double((*variance)[k]) + epsilon);
      for (int64_t i = 0; i < perChannel; ++i)
        newFilter[k * perChannel + i] =
            static_cast<float>(double((*filter)[k * perChannel + i]) * f);
      double b = bias ? double((*bias)[k]) : 0.0;
      newBias[k] = static_cast<float>((b - double((*mean)[k])) * f +
                                      double((*shift)[k]));
    }

    Location loc = conv.getLoc();
    rewriter.setInsertionPoint(conv);
    // The new weights keep the names of the old (a resource blob's key)
    // with ".bn", so reports and outlined weights still name the layer.
    auto nameOf = [](Value v, StringRef fallback) {
      auto resource = dyn_cast<DenseResourceElementsAttr>(
          v.getDefiningOp<ConstantOp>().getValue());
      return resource ? (resource.getRawHandle().getKey() + ".bn").str()
                      : fallback.str();
    };
    Value w = makeConstant(rewriter, loc, filterType, newFilter,
                           nameOf(conv.getFilter(), "bn_folded_filter"));
    Value b = makeConstant(
        rewriter, loc,
        RankedTensorType::get({channels}, filterType.getElementType()), newBias,
        nameOf(bn.getBias(), "bn_folded_bias"));
    auto folded = ConvolutionOp::create(
        rewriter, conv.getLoc(), bn.getType(), conv.getInput(), w, b,
        conv.getStridesAttr(), conv.getPadsAttr(), conv.getDilationsAttr(),
        conv.getGroupsAttr());
    folded->setDiscardableAttrs(conv->getDiscardableAttrDictionary());
    rewriter.replaceOp(bn, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct FoldBatchNormPass
    : mlir::kiln::impl::KilnFoldBatchNormPassBase<FoldBatchNormPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoConvolution>(&getContext());
    int64_t before = 0, after = 0;
    getOperation().walk([&](BatchNormOp) { ++before; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation().walk([&](BatchNormOp) { ++after; });
    numFolded += before - after;
  }
};

} // namespace
