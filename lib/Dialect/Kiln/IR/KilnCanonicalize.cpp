//===- KilnCanonicalize.cpp - canonicalization patterns ---------*- C++ -*-===//
//
// The canonical forms kiln ops are rewritten to by `--canonicalize`:
//   - flatten, squeeze and unsqueeze become kiln.reshape (one op to fuse and
//     lower for every pure change of shape);
//   - transpose(transpose(x)) becomes one transpose;
//   - x * 1, x / 1, x - 0 and (integer) x + 0 with a splat constant become x;
//   - a run of copies of one concat input becomes one broadcast.
// The folds (identity reshape, transpose, slice, pad, cast, ...) are defined
// with their ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"
#include "kiln/Support/Sizes.h"
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
    if (!isPlainReshape(op.getInput().getType(), op.getType()))
      return failure();
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

/// concat(.., x, x, .., x, ..): a run of r >= 2 copies of one input along
/// axis a is x broadcast over a new dimension of r before a (kiln.select of
/// a splat true of `r` elements), reshaped back: one layer
/// instead of r parts to copy (Tile's copies, a Caffe Concat of 50,000
/// bottoms of one blob). Skipped where the new dimension would pass the rank
/// limit.
struct ConcatRunsToBroadcast : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    OperandRange inputs = op.getInputs();
    auto first = cast<RankedTensorType>(inputs.front().getType());
    bool repeated = false;
    for (size_t i = 1; i < inputs.size() && !repeated; ++i)
      repeated = inputs[i] == inputs[i - 1];
    if (!repeated || first.getRank() >= kMaxTensorRank ||
        !first.hasStaticShape())
      return failure();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Type element = first.getElementType();
    Location loc = op.getLoc();
    SmallVector<Value> parts;
    for (size_t i = 0, e = inputs.size(); i < e;) {
      size_t end = i + 1;
      while (end < e && inputs[end] == inputs[i])
        ++end;
      Value x = inputs[i];
      int64_t copies = static_cast<int64_t>(end - i);
      i = end;
      if (copies == 1) {
        parts.push_back(x);
        continue;
      }
      ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
      if (llvm::any_of(shape, ShapedType::isDynamic))
        return failure();
      SmallVector<int64_t> unit(shape), merged(shape);
      unit.insert(unit.begin() + axis, 1);
      SmallVector<int64_t> wide(unit);
      wide[axis] = copies;
      // No more than the concat's extent, which its verifier bounded.
      merged[axis] *= copies;
      Value u = ReshapeOp::create(rewriter, loc,
                                  RankedTensorType::get(unit, element), x);
      // The condition broadcasts too: `copies` elements, not the result's.
      SmallVector<int64_t> mask(unit.size(), 1);
      mask[axis] = copies;
      Value all = ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(
              RankedTensorType::get(mask, rewriter.getI1Type()), true));
      Value b = SelectOp::create(
          rewriter, loc, RankedTensorType::get(wide, element), all, u, u);
      parts.push_back(ReshapeOp::create(
          rewriter, loc, RankedTensorType::get(merged, element), b));
    }
    if (parts.size() == 1)
      rewriter.replaceOp(op, parts.front());
    else
      rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getType(), parts,
                                            op.getAxisAttr());
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

void ConcatOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<ConcatRunsToBroadcast>(context);
}
