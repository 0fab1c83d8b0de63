//===- NormalizationToLinalg.cpp - lower normalization ops ------*- C++ -*-===//
//
// kiln.softmax / kiln.log_softmax (max-subtracted), kiln.batch_norm,
// kiln.instance_norm, kiln.layer_norm, kiln.lrn and kiln.reduce, as
// reductions (linalg.generic with reduction iterators) and elementwise
// generics that broadcast the reduced values back.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::lowering;

namespace {

/// `type` with the listed axes set to 1.
RankedTensorType keepDims(RankedTensorType type, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  return RankedTensorType::get(shape, type.getElementType());
}

Value sumOver(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  Value r = reduce(b, loc, x, axes, scalar(b, loc, type.getElementType(), 0),
                   [](OpBuilder &b, Location loc, ValueRange a) {
                     return add(b, loc, a[1], a[0]);
                   });
  return reshape(b, loc, r, keepDims(type, axes));
}

Value maxOver(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  Value r = reduce(b, loc, x, axes, lowest(b, loc, type.getElementType()),
                   [](OpBuilder &b, Location loc, ValueRange a) {
                     return max(b, loc, a[1], a[0]);
                   });
  return reshape(b, loc, r, keepDims(type, axes));
}

template <typename OpTy, bool isLog>
struct LowerSoftmax : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value x = op.getInput();
    Value m = maxOver(rewriter, loc, x, {axis});
    Value e = elementwise(rewriter, loc, type, {x, m},
                          [](OpBuilder &b, Location loc, ValueRange a) {
                            return math::ExpOp::create(b, loc,
                                                       sub(b, loc, a[0], a[1]));
                          });
    Value s = sumOver(rewriter, loc, e, {axis});
    Value r = isLog
                  ? elementwise(rewriter, loc, type, {x, m, s},
                                [](OpBuilder &b, Location loc, ValueRange a) {
                                  return sub(b, loc, sub(b, loc, a[0], a[1]),
                                             math::LogOp::create(b, loc, a[2]));
                                })
                  : elementwise(rewriter, loc, type, {e, s},
                                [](OpBuilder &b, Location loc, ValueRange a) {
                                  return div(b, loc, a[0], a[1]);
                                });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// (x - mean) / sqrt(var + eps) * scale + bias, every operand broadcasting.
Value normalize(OpBuilder &b, Location loc, RankedTensorType type, Value x,
                Value mean, Value var, Value scale, Value bias, double eps) {
  SmallVector<Value> inputs = {x, mean, var, scale};
  if (bias)
    inputs.push_back(bias);
  bool hasBias = bool(bias);
  return elementwise(
      b, loc, type, inputs, [&](OpBuilder &b, Location loc, ValueRange a) {
        Value e = scalar(b, loc, a[0].getType(), eps);
        Value denom = math::SqrtOp::create(b, loc, add(b, loc, a[2], e));
        Value v =
            mul(b, loc, div(b, loc, sub(b, loc, a[0], a[1]), denom), a[3]);
        return hasBias ? add(b, loc, v, a[4]) : v;
      });
}

/// Mean and (biased) variance over `axes`, kept as size-1 dimensions.
std::pair<Value, Value> moments(OpBuilder &b, Location loc, Value x,
                                ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t count = 1;
  for (int64_t a : axes)
    count *= type.getDimSize(a);
  RankedTensorType kept = keepDims(type, axes);
  auto byCount = [count](OpBuilder &b, Location loc, ValueRange a) {
    return div(b, loc, a[0], scalar(b, loc, a[0].getType(), count));
  };
  Value mean = elementwise(b, loc, kept, {sumOver(b, loc, x, axes)}, byCount);
  Value sq = elementwise(b, loc, type, {x, mean},
                         [](OpBuilder &b, Location loc, ValueRange a) {
                           Value d = sub(b, loc, a[0], a[1]);
                           return mul(b, loc, d, d);
                         });
  Value var = elementwise(b, loc, kept, {sumOver(b, loc, sq, axes)}, byCount);
  return {mean, var};
}

/// A C-vector reshaped to C x 1 x ... x 1 for an N x C x ... tensor.
Value perChannel(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  SmallVector<int64_t> shape(type.getRank() - 1, 1);
  shape[0] = type.getDimSize(1);
  return reshape(b, loc, v,
                 RankedTensorType::get(shape, type.getElementType()));
}

struct LowerBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto pc = [&](Value v) { return perChannel(rewriter, loc, v, type); };
    rewriter.replaceOp(op, normalize(rewriter, loc, type, op.getInput(),
                                     pc(op.getMean()), pc(op.getVariance()),
                                     pc(op.getScale()), pc(op.getBias()),
                                     op.getEpsilon().convertToDouble()));
    return success();
  }
};

struct LowerInstanceNorm : OpRewritePattern<InstanceNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(InstanceNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < type.getRank(); ++i)
      axes.push_back(i);
    auto [mean, var] = moments(rewriter, loc, op.getInput(), axes);
    rewriter.replaceOp(op,
                       normalize(rewriter, loc, type, op.getInput(), mean, var,
                                 perChannel(rewriter, loc, op.getScale(), type),
                                 perChannel(rewriter, loc, op.getBias(), type),
                                 op.getEpsilon().convertToDouble()));
    return success();
  }
};

struct LowerLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    SmallVector<int64_t> axes;
    for (int64_t i = static_cast<int64_t>(op.getAxis()); i < type.getRank();
         ++i)
      axes.push_back(i);
    auto [mean, var] = moments(rewriter, loc, op.getInput(), axes);
    rewriter.replaceOp(op, normalize(rewriter, loc, type, op.getInput(), mean,
                                     var, op.getScale(), op.getBias(),
                                     op.getEpsilon().convertToDouble()));
    return success();
  }
};

/// x / (bias + alpha / size * sum of x^2 over `size` channels) ^ beta; the
/// window is channels [c - (size - 1) / 2, c + size / 2].
struct LowerLrn : OpRewritePattern<LrnOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LrnOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), size = static_cast<int64_t>(op.getSize());
    Value sq = elementwise(rewriter, loc, type, {op.getInput()},
                           [](OpBuilder &b, Location loc, ValueRange a) {
                             return mul(b, loc, a[0], a[0]);
                           });
    // A window wider than 2C - 1 channels sums every channel for every
    // output, as a window of 2C - 1 does: the loops and the padding stay
    // bounded by the channels (an LRN of size 2^31 - 1 on 4 channels sums 7),
    // while alpha is still divided by the size the model gave.
    int64_t span = size;
    if (int64_t channels = type.getDimSize(1); channels > 0)
      span = std::min(size, 2 * channels - 1);
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    low[1] = (span - 1) / 2;
    high[1] = span - 1 - low[1];
    Value padded = padOrCrop(rewriter, loc, sq, low, high, 0);
    Value window = emptyTensor(
        rewriter, loc, RankedTensorType::get({span}, type.getElementType()));
    int64_t numDims = rank + 1;
    SmallVector<AffineExpr> xExprs, oExprs;
    for (int64_t i = 0; i < rank; ++i) {
      AffineExpr d = getAffineDimExpr(i, ctx);
      xExprs.push_back(i == 1 ? d + getAffineDimExpr(rank, ctx) : d);
      oExprs.push_back(d);
    }
    SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
    it.push_back(utils::IteratorType::reduction);
    Value sums = generic(
        rewriter, loc, filledTensor(rewriter, loc, type, 0), {padded, window},
        {AffineMap::get(numDims, 0, xExprs, ctx),
         AffineMap::get(numDims, 0, {getAffineDimExpr(rank, ctx)}, ctx)},
        AffineMap::get(numDims, 0, oExprs, ctx), it,
        [](OpBuilder &b, Location loc, ValueRange a) {
          return add(b, loc, a[2], a[0]);
        });
    double alpha = op.getAlpha().convertToDouble() / size;
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, type, {op.getInput(), sums},
                        [&](OpBuilder &b, Location loc, ValueRange a) {
                          Type t = a[0].getType();
                          Value base =
                              add(b, loc, scalar(b, loc, t, bias),
                                  mul(b, loc, a[1], scalar(b, loc, t, alpha)));
                          Value p = math::PowFOp::create(
                              b, loc, base, scalar(b, loc, t, beta));
                          return div(b, loc, a[0], p);
                        }));
    return success();
  }
};

struct LowerReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind();
    Value x = op.getInput();
    auto type = op.getInput().getType();
    Type element = type.getElementType();
    ArrayRef<int64_t> axes = op.getAxes();
    if (kind == ReduceKind::LogSumExp) {
      // m + log(sum(exp(x - m))), m the (finite) maximum: no overflow.
      Value m = maxOver(rewriter, loc, x, axes);
      auto keptType = cast<RankedTensorType>(m.getType());
      Value safe = elementwise(
          rewriter, loc, keptType, {m},
          [](OpBuilder &b, Location loc, ValueRange a) -> Value {
            Value finite =
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                      math::AbsFOp::create(b, loc, a[0]),
                                      highest(b, loc, a[0].getType()));
            return arith::SelectOp::create(b, loc, finite, a[0],
                                           scalar(b, loc, a[0].getType(), 0));
          });
      Value e = elementwise(
          rewriter, loc, type, {x, safe},
          [](OpBuilder &b, Location loc, ValueRange a) -> Value {
            return math::ExpOp::create(b, loc, sub(b, loc, a[0], a[1]));
          });
      Value s = sumOver(rewriter, loc, e, axes);
      Value r = elementwise(
          rewriter, loc, keptType, {s, safe},
          [](OpBuilder &b, Location loc, ValueRange a) -> Value {
            return add(b, loc, math::LogOp::create(b, loc, a[0]), a[1]);
          });
      rewriter.replaceOp(op, reshape(rewriter, loc, r, op.getType()));
      return success();
    }
    // Before: |x| or x^2.
    bool isUnsigned = hasUnsignedOperands(op);
    if (kind == ReduceKind::L1 || kind == ReduceKind::L2 ||
        kind == ReduceKind::SumSquare)
      x = elementwise(rewriter, loc, type, {x},
                      [=](OpBuilder &b, Location loc, ValueRange a) -> Value {
                        if (kind == ReduceKind::L1 && isUnsigned)
                          return a[0];
                        if (kind == ReduceKind::L1)
                          return isa<FloatType>(a[0].getType())
                                     ? Value(math::AbsFOp::create(b, loc, a[0]))
                                     : Value(
                                           math::AbsIOp::create(b, loc, a[0]));
                        return mul(b, loc, a[0], a[0]);
                      });
    Value init;
    if (kind == ReduceKind::Max)
      init = lowest(rewriter, loc, element, isUnsigned);
    else if (kind == ReduceKind::Min)
      init = highest(rewriter, loc, element, isUnsigned);
    else
      init = scalar(rewriter, loc, element, kind == ReduceKind::Prod ? 1 : 0);
    Value r = reduce(rewriter, loc, x, axes, init,
                     [=](OpBuilder &b, Location loc, ValueRange a) {
                       switch (kind) {
                       case ReduceKind::Max:
                         return max(b, loc, a[1], a[0], isUnsigned);
                       case ReduceKind::Min:
                         return min(b, loc, a[1], a[0], isUnsigned);
                       case ReduceKind::Prod:
                         return mul(b, loc, a[1], a[0]);
                       default:
                         return add(b, loc, a[1], a[0]);
                       }
                     });
    r = reshape(rewriter, loc, r, op.getType());
    int64_t count = 1;
    for (int64_t a : axes)
      count *= type.getDimSize(a);
    // After: mean divides, l2 takes the root, log_sum the log.
    if (kind == ReduceKind::Mean || kind == ReduceKind::L2 ||
        kind == ReduceKind::LogSum)
      r = elementwise(rewriter, loc, op.getType(), {r},
                      [=](OpBuilder &b, Location loc, ValueRange a) -> Value {
                        if (kind == ReduceKind::Mean)
                          return div(b, loc, a[0],
                                     scalar(b, loc, a[0].getType(), count),
                                     isUnsigned);
                        if (kind == ReduceKind::L2)
                          return math::SqrtOp::create(b, loc, a[0]);
                        return math::LogOp::create(b, loc, a[0]);
                      });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// One generic with two outputs, the best value and its index so far.
struct LowerArgReduce : OpRewritePattern<ArgReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ArgReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getInput().getType();
    Type element = type.getElementType();
    int64_t rank = type.getRank(), axis = static_cast<int64_t>(op.getAxis());
    bool isMax = op.getKind() == ArgReduceKind::Max;
    bool isUnsigned = hasUnsignedOperands(op);
    bool last = op.getSelectLastIndex();
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> it;
    for (int64_t i = 0; i < rank; ++i) {
      it.push_back(i == axis ? utils::IteratorType::reduction
                             : utils::IteratorType::parallel);
      if (i != axis) {
        shape.push_back(type.getDimSize(i));
        outExprs.push_back(getAffineDimExpr(i, ctx));
      }
    }
    auto valType = RankedTensorType::get(shape, element);
    auto idxType = RankedTensorType::get(shape, rewriter.getI64Type());
    Value valInit = linalg::FillOp::create(
                        rewriter, loc,
                        isMax ? lowest(rewriter, loc, element, isUnsigned)
                              : highest(rewriter, loc, element, isUnsigned),
                        emptyTensor(rewriter, loc, valType))
                        .getResult(0);
    Value idxInit = filledTensor(rewriter, loc, idxType, 0);
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valType, idxType}, ValueRange{op.getInput()},
        ValueRange{valInit, idxInit},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), outMap,
                            outMap},
        it, "", "", [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value idx = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value better;
          if (isa<FloatType>(element)) {
            auto pred = isMax ? (last ? arith::CmpFPredicate::OGE
                                      : arith::CmpFPredicate::OGT)
                              : (last ? arith::CmpFPredicate::OLE
                                      : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, pred, x, best);
          } else {
            using P = arith::CmpIPredicate;
            auto pred = isUnsigned ? (isMax ? (last ? P::uge : P::ugt)
                                            : (last ? P::ule : P::ult))
                                   : (isMax ? (last ? P::sge : P::sgt)
                                            : (last ? P::sle : P::slt));
            better = arith::CmpIOp::create(b, l, pred, x, best);
          }
          // The first element always wins, so an all -inf (or NaN-free
          // extreme) row still reports index 0.
          Value first =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx,
                                    scalar(b, l, b.getI64Type(), 0));
          better = arith::OrIOp::create(b, l, better, first);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, idx, bestIdx)});
        });
    rewriter.replaceOp(
        op, reshape(rewriter, loc, generic.getResult(1), op.getType()));
    return success();
  }
};

/// kiln.cumsum and kiln.cumprod: one generic over the result's dims and a
/// reduction dim `j` along the axis: result[i] = sum over j of
/// (j <= i ? x[j] : 0), or the product of (j <= i ? x[j] : 1) (the
/// comparison flips with `reverse` and becomes strict with `exclusive`).
/// Quadratic in the axis length, which is a sequence length where
/// exporters use it.
template <typename CumOp, bool product>
struct LowerCumulative : OpRewritePattern<CumOp> {
  using OpRewritePattern<CumOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getInput().getType();
    int64_t rank = type.getRank(), axis = static_cast<int64_t>(op.getAxis());
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    SmallVector<AffineExpr> inExprs;
    SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
    it.push_back(utils::IteratorType::reduction);
    for (int64_t i = 0; i < rank; ++i)
      inExprs.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    AffineMap inMap = AffineMap::get(rank + 1, 0, inExprs, ctx);
    AffineMap outMap =
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank);
    Value init = filledTensor(rewriter, loc, type, product ? 1 : 0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getInput()},
        ValueRange{init}, ArrayRef<AffineMap>{inMap, outMap}, it, "", "",
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          auto pred = reverse ? (exclusive ? arith::CmpIPredicate::ugt
                                           : arith::CmpIPredicate::uge)
                              : (exclusive ? arith::CmpIPredicate::ult
                                           : arith::CmpIPredicate::ule);
          Value take = arith::CmpIOp::create(b, l, pred, j, i);
          Value x = arith::SelectOp::create(
              b, l, take, args[0],
              scalar(b, l, args[0].getType(), product ? 1 : 0));
          linalg::YieldOp::create(
              b, l, product ? mul(b, l, args[1], x) : add(b, l, args[1], x));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateNormalizationPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerSoftmax<SoftmaxOp, false>, LowerSoftmax<LogSoftmaxOp, true>,
               LowerBatchNorm, LowerInstanceNorm, LowerLayerNorm, LowerLrn,
               LowerReduce, LowerArgReduce, LowerCumulative<CumSumOp, false>,
               LowerCumulative<CumProdOp, true>>(patterns.getContext());
}
