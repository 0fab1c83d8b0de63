//===- KilnCanonicalize.cpp - canonicalization patterns ---------*- C++ -*-===//
//
// The canonical forms kiln ops are rewritten to by `--canonicalize`:
//   - flatten, squeeze and unsqueeze become kiln.reshape (one op to fuse and
//     lower for every pure change of shape);
//   - transpose(transpose(x)) becomes one transpose;
//   - x * 1, x / 1, x - 0 and (integer) x + 0 with a splat constant become x.
// The folds (identity reshape, transpose, slice, pad, cast, ...) are defined
// with their ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Rewrites an op that only changes its input's shape into kiln.reshape.
template <typename OpTy> struct ShapeOpToReshape : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// transpose(transpose(x, inner), outer) -> transpose(x, inner o outer).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t p : op.getPermutation())
      composed.push_back(inner.getPermutation()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), inner.getInput(),
        rewriter.getDenseI64ArrayAttr(composed));
    return success();
  }
};

/// True when `value` is a splat constant equal to `expected`.
bool isSplatOf(Value value, double expected) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return false;
  Type element = attr.getElementType();
  if (isa<FloatType>(element))
    return attr.getSplatValue<APFloat>().convertToDouble() == expected;
  if (element.isInteger(1))
    return false;
  if (isa<IntegerType>(element))
    return attr.getSplatValue<APInt>().getSExtValue() ==
           static_cast<int64_t>(expected);
  return false;
}

/// x * 1, 1 * x, x / 1, x - 0 and integer x + 0 / 0 + x -> x, when the
/// constant does not broadcast x to a larger shape.
struct FoldBinaryIdentity : OpRewritePattern<BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rewriter) const override {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    bool isInt = isa<IntegerType>(op.getLhs().getType().getElementType());
    Value keep;
    switch (op.getKind()) {
    case BinaryKind::Mul:
      keep = isSplatOf(rhs, 1) ? lhs : isSplatOf(lhs, 1) ? rhs : Value();
      break;
    case BinaryKind::Div:
      keep = isSplatOf(rhs, 1) ? lhs : Value();
      break;
    case BinaryKind::Sub:
      keep = isSplatOf(rhs, 0) ? lhs : Value();
      break;
    case BinaryKind::Add:
      // Float x + 0.0 is not x for x = -0.0, so only integers.
      if (isInt)
        keep = isSplatOf(rhs, 0) ? lhs : isSplatOf(lhs, 0) ? rhs : Value();
      break;
    default:
      break;
    }
    if (!keep || keep.getType() != op.getType())
      return failure();
    rewriter.replaceOp(op, keep);
    return success();
  }
};

} // namespace

void FlattenOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOpToReshape<FlattenOp>>(context);
}

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOpToReshape<SqueezeOp>>(context);
}

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOpToReshape<UnsqueezeOp>>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void BinaryOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldBinaryIdentity>(context);
}
