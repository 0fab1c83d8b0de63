//===- MatrixToLinalg.cpp - lower matrix products ---------------*- C++ -*-===//
//
// kiln.matmul: one linalg.generic over (batch..., m, n, k) whose maps apply
// numpy broadcasting to the batch dimensions and the transposes (f16 and
// bf16 accumulate in f32, then round once).
// kiln.fully_connected: flatten to M x C, multiply by the K x C weights
// transposed, add the bias. kiln.gemm: alpha * op(a) op(b) + beta * c.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::lowering;

namespace {

/// Batched product: lhs [..., M, K] (or [..., K, M] if transposed) times
/// rhs [..., K, N] (or [..., N, K]) into `resultType` [batch..., M, N].
Value product(OpBuilder &b, Location loc, Value lhs, Value rhs,
              bool transposeLhs, bool transposeRhs,
              RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  int64_t rank = resultType.getRank(), batch = rank - 2;
  int64_t numDims = rank + 1; // batch..., m, n, k
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr m = d(batch), n = d(batch + 1), k = d(batch + 2);
  auto operandMap = [&](RankedTensorType t, AffineExpr row, AffineExpr col) {
    SmallVector<AffineExpr> exprs;
    int64_t offset = batch - (t.getRank() - 2);
    for (int64_t i = 0; i < t.getRank() - 2; ++i) {
      bool stretched =
          t.getDimSize(i) == 1 && resultType.getDimSize(offset + i) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : d(offset + i));
    }
    exprs.push_back(row);
    exprs.push_back(col);
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  AffineMap lmap = transposeLhs ? operandMap(lt, k, m) : operandMap(lt, m, k);
  AffineMap rmap = transposeRhs ? operandMap(rt, n, k) : operandMap(rt, k, n);
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i)
    outExprs.push_back(d(i));
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  it.push_back(utils::IteratorType::reduction);
  Value acc = generic(
      b, loc, filledTensor(b, loc, accumulatorType(resultType), 0), {lhs, rhs},
      {lmap, rmap}, AffineMap::get(numDims, 0, outExprs, ctx), it,
      [](OpBuilder &b, Location loc, ValueRange args) {
        return multiplyAccumulate(b, loc, args[2], args[0], args[1]);
      });
  return finishAccumulation(b, loc, acc, resultType);
}

struct LowerMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, product(rewriter, op.getLoc(), op.getLhs(),
                                   op.getRhs(), op.getTransposeLhs(),
                                   op.getTransposeRhs(), op.getType()));
    return success();
  }
};

struct LowerFullyConnected : OpRewritePattern<FullyConnectedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FullyConnectedOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    Type element = inType.getElementType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < inType.getRank(); ++i)
      (i < axis ? outer : inner) *= inType.getDimSize(i);
    int64_t k = op.getWeight().getType().getDimSize(0);
    Value flat = reshape(rewriter, loc, op.getInput(),
                         RankedTensorType::get({outer, inner}, element));
    auto matType = RankedTensorType::get({outer, k}, element);
    Value y =
        product(rewriter, loc, flat, op.getWeight(), false, true, matType);
    if (Value bias = op.getBias())
      y = elementwise(rewriter, loc, matType, {y, bias},
                      [](OpBuilder &b, Location loc, ValueRange a) {
                        return add(b, loc, a[0], a[1]);
                      });
    rewriter.replaceOp(op, reshape(rewriter, loc, y, op.getType()));
    return success();
  }
};

struct LowerGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value y = product(rewriter, loc, op.getA(), op.getB(), op.getTransposeA(),
                      op.getTransposeB(), op.getType());
    SmallVector<Value> inputs = {y};
    if (op.getC())
      inputs.push_back(op.getC());
    bool hasC = bool(op.getC());
    y = elementwise(
        rewriter, loc, op.getType(), inputs,
        [&](OpBuilder &b, Location loc, ValueRange a) {
          Value v = mul(b, loc, a[0], scalar(b, loc, a[0].getType(), alpha));
          if (hasC)
            v = add(b, loc, v,
                    mul(b, loc, a[1], scalar(b, loc, a[1].getType(), beta)));
          return v;
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateMatrixPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMatmul, LowerFullyConnected, LowerGemm>(
      patterns.getContext());
}
