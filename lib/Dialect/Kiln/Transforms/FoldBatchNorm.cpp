//===- FoldBatchNorm.cpp - Fold batch norm into convolutions ----*- C++ -*-===//
//
// Inference batch normalization after a convolution (or a 2-D fully
// connected layer) is a per-channel scale and shift of the layer's output,
// so it folds into the filter and the bias at build time (kiln-fold-batch-norm;
// Passes.td shows the IR). The new weights are computed on the host in double
// and stored as f32, dense for small tensors and as resource blobs for large
// ones, as the importer stores weights.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "Weights.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/Sizes.h"

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

/// The f32 values of `v` when it is a kiln.constant of f32 elements.
std::optional<std::vector<float>> floatConstant(Value v) {
  auto constant = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant || !constant.getType().getElementType().isF32())
    return std::nullopt;
  ElementsAttr value = constant.getValue();
  std::optional<uint64_t> bytes = getByteSize(constant.getType());
  auto dense = dyn_cast<DenseElementsAttr>(value);
  // A splat of a few bytes is not expanded to gigabytes.
  if (!bytes ||
      (dense && dense.isSplat() && *bytes > weights::kMaxExpandedSplatBytes))
    return std::nullopt;
  std::vector<float> out(static_cast<size_t>(*bytes / sizeof(float)));
  if (dense) {
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
  ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
  return weights::createConstant(rewriter, loc, type, bytes, name);
}

/// A layer's weights with `bn` folded in: output channels along dimension 0
/// of `weight`, `bias` optional.
struct FoldedWeights {
  Value weight, bias;
};

/// Folds `bn` into the layer weights `weight` and `bias` (null if none),
/// or fails naming why.
FailureOr<FoldedWeights> foldIntoWeights(Value weight, Value bias,
                                         BatchNormOp bn,
                                         PatternRewriter &rewriter) {
  auto weightType = cast<RankedTensorType>(weight.getType());
  std::optional<std::vector<float>> filter = floatConstant(weight);
  std::optional<std::vector<float>> scale = floatConstant(bn.getScale());
  std::optional<std::vector<float>> shift = floatConstant(bn.getBias());
  std::optional<std::vector<float>> mean = floatConstant(bn.getMean());
  std::optional<std::vector<float>> variance = floatConstant(bn.getVariance());
  std::optional<std::vector<float>> oldBias =
      bias ? floatConstant(bias) : std::optional<std::vector<float>>();
  if (!filter || !scale || !shift || !mean || !variance || (bias && !oldBias) ||
      !bn.getType().getElementType().isF32())
    return rewriter.notifyMatchFailure(
        bn, "weights or statistics are not f32 constants");
  int64_t channels = weightType.getDimSize(0);
  if (channels == 0 || static_cast<int64_t>(scale->size()) != channels ||
      static_cast<int64_t>(shift->size()) != channels ||
      static_cast<int64_t>(mean->size()) != channels ||
      static_cast<int64_t>(variance->size()) != channels ||
      (oldBias && static_cast<int64_t>(oldBias->size()) != channels))
    return rewriter.notifyMatchFailure(bn, "not one parameter per channel");

  int64_t perChannel = weightType.getNumElements() / channels;
  double epsilon = bn.getEpsilon().convertToDouble();
  std::vector<float> newFilter(filter->size()), newBias(channels);
  for (int64_t k = 0; k < channels; ++k) {
    double f =
        double((*scale)[k]) / std::sqrt(double((*variance)[k]) + epsilon);
    for (int64_t i = 0; i < perChannel; ++i)
      newFilter[k * perChannel + i] =
          static_cast<float>(double((*filter)[k * perChannel + i]) * f);
    double b = oldBias ? double((*oldBias)[k]) : 0.0;
    newBias[k] =
        static_cast<float>((b - double((*mean)[k])) * f + double((*shift)[k]));
  }

  // The new weights keep the names of the old (a resource blob's key)
  // with ".bn", so reports and outlined weights still name the layer.
  auto nameOf = [](Value v, StringRef fallback) {
    std::string name = weights::getWeightName(v, "");
    return name.empty() ? fallback.str() : name + ".bn";
  };
  Location loc = bn.getLoc();
  FoldedWeights folded;
  folded.weight = makeConstant(rewriter, loc, weightType, newFilter,
                               nameOf(weight, "bn_folded_filter"));
  folded.bias = makeConstant(
      rewriter, loc,
      RankedTensorType::get({channels}, weightType.getElementType()), newBias,
      nameOf(bn.getBias(), "bn_folded_bias"));
  return folded;
}

/// True for the layers whose output features batch normalization's
/// channels (dimension 1) are, with weights [features, ...] and a bias
/// [features] or none as operands 1 and 2: a convolution, a 2-D fully
/// connected layer, a Gemm A * B^T + C with alpha and beta 1 (an exported
/// Linear layer) and C one value per column or none. (A channels-last
/// convolution's channels are its last dimension: it does not qualify.)
bool canFoldInto(Operation *layer) {
  if (auto conv = dyn_cast<ConvolutionOp>(layer))
    return conv.getLayout() == Layout::ChannelsFirst;
  if (auto fc = dyn_cast<FullyConnectedOp>(layer))
    return fc.getType().getRank() == 2;
  auto gemm = dyn_cast<GemmOp>(layer);
  return gemm && !gemm.getTransposeA() && gemm.getTransposeB() &&
         gemm.getAlpha().isExactlyValue(1.0) &&
         gemm.getBeta().isExactlyValue(1.0) &&
         (!gemm.getC() ||
          cast<RankedTensorType>(gemm.getC().getType()).getRank() == 1);
}

struct FoldBatchNormIntoLayer : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    Operation *layer = bn.getInput().getDefiningOp();
    if (!layer || !layer->hasOneUse() || !canFoldInto(layer))
      return rewriter.notifyMatchFailure(
          bn, "input is not a convolution, a 2-D fully connected layer or a "
              "Gemm A * B^T + C, used only here");
    rewriter.setInsertionPoint(layer);
    Value bias = layer->getNumOperands() > 2 ? layer->getOperand(2) : Value();
    FailureOr<FoldedWeights> w =
        foldIntoWeights(layer->getOperand(1), bias, bn, rewriter);
    if (failed(w))
      return failure();
    // The same layer (attributes, location) with the new weights and a
    // bias, which it may not have had.
    Operation *folded = rewriter.clone(*layer);
    folded->setOperands({layer->getOperand(0), w->weight, w->bias});
    folded->getResult(0).setType(bn.getType());
    rewriter.replaceOp(bn, folded->getResults());
    rewriter.eraseOp(layer);
    return success();
  }
};

struct FoldBatchNormPass
    : mlir::kiln::impl::KilnFoldBatchNormPassBase<FoldBatchNormPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoLayer>(&getContext());
    int64_t before = 0, after = 0;
    getOperation().walk([&](BatchNormOp) { ++before; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation().walk([&](BatchNormOp) { ++after; });
    numFolded += before - after;
  }
};

} // namespace
