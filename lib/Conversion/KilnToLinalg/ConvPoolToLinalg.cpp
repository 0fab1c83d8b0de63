//===- ConvPoolToLinalg.cpp - lower convolution and pooling -----*- C++ -*-===//
//
// kiln.convolution: pad the input, view channels as groups x channels per
// group, and accumulate in one linalg.generic whose input map carries the
// strides and dilations: x[n, g, c, o*s + r*d] * w[g, k, c, r]. Bias is an
// elementwise add.
// kiln.deconvolution: the same convolution over the input with stride - 1
// zeros inserted between elements, padded by dilation * (R - 1) - pads, with
// the filter flipped and its channel dimensions swapped per group.
// kiln.pool: pad (with -inf for max), reduce over a window operand; average
// divides by how many elements each window counted, found by pooling ones.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::lowering;

namespace {

SmallVector<utils::IteratorType> iterators(int64_t parallel,
                                           int64_t reduction) {
  SmallVector<utils::IteratorType> it(parallel, utils::IteratorType::parallel);
  it.append(reduction, utils::IteratorType::reduction);
  return it;
}

/// Grouped convolution of an already padded input; returns N x K x O...
Value convolve(OpBuilder &b, Location loc, Value padded, Value filter,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
               int64_t groups, RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(padded.getType());
  auto fType = cast<RankedTensorType>(filter.getType());
  Type element = resultType.getElementType();
  int64_t s = inType.getRank() - 2;
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
  int64_t k = fType.getDimSize(0), cg = c / groups, kg = k / groups;

  SmallVector<int64_t> xShape = {n, groups, cg};
  llvm::append_range(xShape, inType.getShape().drop_front(2));
  SmallVector<int64_t> wShape = {groups, kg, cg};
  llvm::append_range(wShape, fType.getShape().drop_front(2));
  SmallVector<int64_t> oShape = {n, groups, kg};
  llvm::append_range(oShape, resultType.getShape().drop_front(2));
  Value x = reshape(b, loc, padded, RankedTensorType::get(xShape, element));
  Value w = reshape(b, loc, filter, RankedTensorType::get(wShape, element));
  Value init = filledTensor(b, loc, RankedTensorType::get(oShape, element), 0);

  // Loops: n, g, k, o_1..o_s | c, r_1..r_s
  int64_t numDims = 3 + s + 1 + s;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t cDim = 3 + s;
  SmallVector<AffineExpr> xExprs = {d(0), d(1), d(cDim)};
  SmallVector<AffineExpr> wExprs = {d(1), d(2), d(cDim)};
  SmallVector<AffineExpr> oExprs = {d(0), d(1), d(2)};
  for (int64_t i = 0; i < s; ++i) {
    AffineExpr o = d(3 + i), r = d(cDim + 1 + i);
    xExprs.push_back(o * strides[i] + r * dilations[i]);
    wExprs.push_back(r);
    oExprs.push_back(o);
  }
  Value out =
      generic(b, loc, init, {x, w},
              {AffineMap::get(numDims, 0, xExprs, ctx),
               AffineMap::get(numDims, 0, wExprs, ctx)},
              AffineMap::get(numDims, 0, oExprs, ctx), iterators(3 + s, 1 + s),
              [](OpBuilder &b, Location loc, ValueRange args) {
                return add(b, loc, args[2], mul(b, loc, args[0], args[1]));
              });
  return reshape(b, loc, out, resultType);
}

/// Adds a per-channel bias (K values) to N x K x ...
Value addBias(OpBuilder &b, Location loc, Value x, Value bias) {
  if (!bias)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getRank() - 1, 1);
  shape[0] = type.getDimSize(1);
  Value bcast = reshape(b, loc, bias,
                        RankedTensorType::get(shape, type.getElementType()));
  return elementwise(b, loc, type, {x, bcast},
                     [](OpBuilder &b, Location loc, ValueRange args) {
                       return add(b, loc, args[0], args[1]);
                     });
}

struct LowerConvolution : OpRewritePattern<ConvolutionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t s = op.getStrides().size();
    SmallVector<int64_t> low(2, 0), high(2, 0);
    for (int64_t i = 0; i < s; ++i) {
      low.push_back(op.getPads()[i]);
      high.push_back(op.getPads()[s + i]);
    }
    Value padded = padOrCrop(rewriter, loc, op.getInput(), low, high, 0);
    Value out = convolve(rewriter, loc, padded, op.getFilter(), op.getStrides(),
                         op.getDilations(),
                         static_cast<int64_t>(op.getGroups()), op.getType());
    rewriter.replaceOp(op, addBias(rewriter, loc, out, op.getBias()));
    return success();
  }
};

struct LowerDeconvolution : OpRewritePattern<DeconvolutionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DeconvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inType = op.getInput().getType();
    auto fType = op.getFilter().getType();
    Type element = inType.getElementType();
    int64_t s = inType.getRank() - 2;
    int64_t groups = static_cast<int64_t>(op.getGroups());
    int64_t c = inType.getDimSize(1), cg = c / groups, kg = fType.getDimSize(1);
    ArrayRef<int64_t> strides = op.getStrides(), dil = op.getDilations(),
                      pads = op.getPads(), outPad = op.getOutputPadding();

    // Insert stride - 1 zeros between input elements.
    SmallVector<int64_t> dilatedShape(inType.getShape());
    for (int64_t i = 0; i < s; ++i)
      dilatedShape[2 + i] = (inType.getDimSize(2 + i) - 1) * strides[i] + 1;
    Value zeros = filledTensor(rewriter, loc,
                               RankedTensorType::get(dilatedShape, element), 0);
    SmallVector<int64_t> offsets(s + 2, 0), sizes(inType.getShape()),
        steps(2, 1);
    steps.append(strides.begin(), strides.end());
    Value dilated = tensor::InsertSliceOp::create(
        rewriter, loc, op.getInput(), zeros, ValueRange{}, ValueRange{},
        ValueRange{}, offsets, sizes, steps);
    SmallVector<int64_t> low(2, 0), high(2, 0);
    for (int64_t i = 0; i < s; ++i) {
      int64_t full = dil[i] * (fType.getDimSize(2 + i) - 1);
      low.push_back(full - pads[i]);
      high.push_back(full - pads[s + i] + outPad[i]);
    }
    Value padded = padOrCrop(rewriter, loc, dilated, low, high, 0);

    // W'[g, k, c, r] = W[g, c, k, R - 1 - r], as K x C/groups x R...
    SmallVector<int64_t> wShape = {groups, cg, kg};
    llvm::append_range(wShape, fType.getShape().drop_front(2));
    Value w = reshape(rewriter, loc, op.getFilter(),
                      RankedTensorType::get(wShape, element));
    SmallVector<int64_t> fShape = {groups, kg, cg};
    llvm::append_range(fShape, fType.getShape().drop_front(2));
    int64_t numDims = 3 + s;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs = {d(0), d(2), d(1)};
    for (int64_t i = 0; i < s; ++i)
      inExprs.push_back(fType.getDimSize(2 + i) - 1 - d(3 + i));
    Value flipped = generic(
        rewriter, loc,
        emptyTensor(rewriter, loc, RankedTensorType::get(fShape, element)), {w},
        {AffineMap::get(numDims, 0, inExprs, ctx)},
        rewriter.getMultiDimIdentityMap(numDims), iterators(numDims, 0),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    SmallVector<int64_t> kShape = {groups * kg, cg};
    llvm::append_range(kShape, fType.getShape().drop_front(2));
    Value filter =
        reshape(rewriter, loc, flipped, RankedTensorType::get(kShape, element));

    SmallVector<int64_t> unit(s, 1);
    Value out = convolve(rewriter, loc, padded, filter, unit, dil, groups,
                         op.getType());
    rewriter.replaceOp(op, addBias(rewriter, loc, out, op.getBias()));
    return success();
  }
};

/// Sums or maxes `padded` over windows into N x C x O...
Value poolWindows(OpBuilder &b, Location loc, Value padded, Value init,
                  ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dilations, bool isMax,
                  bool isUnsigned = false) {
  MLIRContext *ctx = b.getContext();
  int64_t s = window.size();
  auto element = cast<RankedTensorType>(padded.getType()).getElementType();
  Value windowOperand =
      emptyTensor(b, loc, RankedTensorType::get(window, element));
  int64_t numDims = 2 + 2 * s;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xExprs = {d(0), d(1)}, wExprs, oExprs = {d(0), d(1)};
  for (int64_t i = 0; i < s; ++i) {
    xExprs.push_back(d(2 + i) * strides[i] + d(2 + s + i) * dilations[i]);
    wExprs.push_back(d(2 + s + i));
    oExprs.push_back(d(2 + i));
  }
  return generic(b, loc, init, {padded, windowOperand},
                 {AffineMap::get(numDims, 0, xExprs, ctx),
                  AffineMap::get(numDims, 0, wExprs, ctx)},
                 AffineMap::get(numDims, 0, oExprs, ctx), iterators(2 + s, s),
                 [=](OpBuilder &b, Location loc, ValueRange args) {
                   return isMax ? max(b, loc, args[2], args[0], isUnsigned)
                                : add(b, loc, args[2], args[0]);
                 });
}

struct LowerPool : OpRewritePattern<PoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    RankedTensorType outType = op.getType();
    Type element = inType.getElementType();
    int64_t s = inType.getRank() - 2;
    ArrayRef<int64_t> window = op.getWindow(), strides = op.getStrides(),
                      pads = op.getPads(), dil = op.getDilations();
    bool isMax = op.getKind() == PoolKind::Max;
    // Explicit pads, plus what ceil mode's last windows reach past them.
    SmallVector<int64_t> low(2, 0), high(2, 0), extra(2, 0);
    for (int64_t i = 0; i < s; ++i) {
      int64_t in = inType.getDimSize(2 + i);
      int64_t reach = (outType.getDimSize(2 + i) - 1) * strides[i] +
                      dil[i] * (window[i] - 1) + 1;
      low.push_back(pads[i]);
      high.push_back(pads[s + i]);
      extra.push_back(
          std::max<int64_t>(0, reach - (in + pads[i] + pads[s + i])));
    }
    SmallVector<int64_t> highAll(high);
    for (int64_t i = 0; i < s + 2; ++i)
      highAll[i] += extra[i];
    // Max pads with the lowest value of the type: -inf, or the integers'.
    bool isUnsigned = hasUnsignedOperands(op);
    double fill = 0.0;
    if (isMax && isa<FloatType>(element))
      fill = -std::numeric_limits<double>::infinity();
    else if (isMax && !isUnsigned)
      fill = static_cast<double>(
          APInt::getSignedMinValue(element.getIntOrFloatBitWidth())
              .getSExtValue());
    Value padded = padOrCrop(rewriter, loc, op.getInput(), low, highAll, fill);
    Value init = filledTensor(rewriter, loc, outType, fill);
    Value pooled = poolWindows(rewriter, loc, padded, init, window, strides,
                               dil, isMax, isUnsigned);
    if (isMax) {
      rewriter.replaceOp(op, pooled);
      return success();
    }
    // Divisors: pool a 1 x 1 x D... tensor of ones whose explicit padding
    // counts (count_include_pad) or not, and whose ceil-mode reach never does.
    SmallVector<int64_t> onesShape(2, 1);
    llvm::append_range(onesShape, inType.getShape().drop_front(2));
    Value ones = filledTensor(rewriter, loc,
                              RankedTensorType::get(onesShape, element), 1);
    Value counted = padOrCrop(rewriter, loc, ones, low, high,
                              op.getCountIncludePad() ? 1.0 : 0.0);
    SmallVector<int64_t> noPad(s + 2, 0);
    counted = padOrCrop(rewriter, loc, counted, noPad, extra, 0.0);
    SmallVector<int64_t> countShape(2, 1);
    llvm::append_range(countShape, outType.getShape().drop_front(2));
    auto countType = RankedTensorType::get(countShape, element);
    Value counts = poolWindows(rewriter, loc, counted,
                               filledTensor(rewriter, loc, countType, 0),
                               window, strides, dil, /*isMax=*/false);
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, outType, {pooled, counts},
                        [](OpBuilder &b, Location loc, ValueRange a) {
                          return div(b, loc, a[0], a[1]);
                        }));
    return success();
  }
};

struct LowerGlobalPool : OpRewritePattern<GlobalPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GlobalPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    Type element = inType.getElementType();
    bool isMax = op.getKind() == PoolKind::Max;
    SmallVector<int64_t> axes;
    int64_t count = 1;
    for (int64_t i = 2; i < inType.getRank(); ++i) {
      axes.push_back(i);
      count *= inType.getDimSize(i);
    }
    bool isUnsigned = hasUnsignedOperands(op);
    Value init = isMax ? lowest(rewriter, loc, element, isUnsigned)
                       : scalar(rewriter, loc, element, 0);
    Value r = reduce(rewriter, loc, op.getInput(), axes, init,
                     [=](OpBuilder &b, Location loc, ValueRange args) {
                       return isMax ? max(b, loc, args[1], args[0], isUnsigned)
                                    : add(b, loc, args[1], args[0]);
                     });
    r = reshape(rewriter, loc, r, op.getType());
    if (!isMax)
      r = elementwise(rewriter, loc, op.getType(), {r},
                      [count](OpBuilder &b, Location loc, ValueRange a) {
                        return div(b, loc, a[0],
                                   scalar(b, loc, a[0].getType(), count));
                      });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateConvPoolPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<LowerConvolution, LowerDeconvolution, LowerPool, LowerGlobalPool>(
          patterns.getContext());
}
