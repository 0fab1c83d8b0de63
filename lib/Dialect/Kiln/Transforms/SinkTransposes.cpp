//===- SinkTransposes.cpp - cancel opposite layout conversions --*- C++ -*-===//
//
// kiln-sink-transposes (Passes.td shows the IR): transposes move below the
// elementwise layers, concats and slices they feed, until the conversion
// back to channels first after one channels-last layer meets the conversion
// to channels last before the next and the two compose into the identity
// (TransposeOp's canonicalization and fold). A transpose that only moves
// dimensions of size 1 becomes a reshape (a view, no kernel).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "Weights.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/Layout.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSINKTRANSPOSESPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// True when permuting `shape` by `perm` keeps the order of its dimensions
/// larger than 1, so that the transpose is a reshape.
bool movesOnlyUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t previous = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < previous)
      return false;
    previous = p;
  }
  return true;
}

/// The transpose of `v` by `perm` when `v` is one, of rank `rank`; with
/// `perm` empty, when `v` is a conversion back to channels first (only
/// those move: moving the conversions to channels last too could undo a
/// move when a tensor is converted both ways).
TransposeOp getTranspose(Value v, ArrayRef<int64_t> perm, int64_t rank) {
  auto t = v.getDefiningOp<TransposeOp>();
  if (!t || t.getType().getRank() != rank || rank < 3)
    return nullptr;
  SmallVector<int64_t> expected =
      perm.empty() ? getToChannelsFirst(rank) : SmallVector<int64_t>(perm);
  return t.getPermutation() == ArrayRef<int64_t>(expected) ? t : nullptr;
}

/// `v`'s shape with leading 1s up to `rank` (numpy broadcasting).
SmallVector<int64_t> atRank(Value v, int64_t rank) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
  SmallVector<int64_t> full(rank - shape.size(), 1);
  llvm::append_range(full, shape);
  return full;
}

/// A transpose of `v` by `perm` that the network computes already (the
/// block input of a residual connection, converted for the block's first
/// convolution), in `v`'s block.
TransposeOp findTransposeOf(Value v, ArrayRef<int64_t> perm) {
  for (Operation *user : v.getUsers()) {
    auto t = dyn_cast<TransposeOp>(user);
    if (t && t.getPermutation() == perm && t->getBlock() == v.getParentBlock())
      return t;
  }
  return nullptr;
}

/// What operand `v` of the elementwise layer `op` becomes when a transpose
/// by `perm` moves below the layer: the transpose's input, or the operand
/// transposed by `inverse` (a transpose the network already computes, moved
/// before `op` if it is after; a constant, on the host; a tensor that only
/// moves dimensions of size 1, as a reshape). Null where it cannot; with
/// `build` false, only checks (returning the operand itself).
Value untranspose(PatternRewriter &rewriter, Operation *op, Value v,
                  ArrayRef<int64_t> perm, ArrayRef<int64_t> inverse,
                  int64_t rank, bool build) {
  Location loc = op->getLoc();
  if (TransposeOp t = getTranspose(v, perm, rank))
    return t.getInput();
  if (TransposeOp t = findTransposeOf(v, inverse);
      t && op->getBlock() == t->getBlock()) {
    if (build && !t->isBeforeInBlock(op))
      rewriter.moveOpBefore(t, op);
    return t.getResult();
  }
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() > rank)
    return nullptr;
  SmallVector<int64_t> shape = atRank(v, rank);
  if (movesOnlyUnitDims(shape, inverse)) {
    auto to = RankedTensorType::get(permute(ArrayRef<int64_t>(shape), inverse),
                                    type.getElementType());
    if (!isPlainReshape(type, to))
      return nullptr;
    if (!build)
      return v;
    return ReshapeOp::create(rewriter, loc, to, v);
  }
  if (!weights::hasConstantBytes(v))
    return nullptr;
  if (!build)
    return v;
  return weights::transposeConstant(rewriter, loc, v, inverse, ".t", shape);
}

/// Replaces `op` with `moved` transposed by `perm` (the transpose moved
/// below `op`), and counts the move.
void replaceWithTranspose(PatternRewriter &rewriter, Operation *op, Value moved,
                          ArrayRef<int64_t> perm, int64_t &count) {
  rewriter.replaceOpWithNewOp<TransposeOp>(op, moved,
                                           rewriter.getDenseI64ArrayAttr(perm));
  ++count;
}

/// A pattern on `OpTy` that moves transposes below it, counting the moves.
template <typename OpTy> struct SinkPattern : OpRewritePattern<OpTy> {
  SinkPattern(MLIRContext *ctx, int64_t &count)
      : OpRewritePattern<OpTy>(ctx), count(count) {}
  int64_t &count;
};

/// elementwise(transpose(x), c...) -> transpose(elementwise(x, c'...)).
/// `elementwise` is any op with the Kiln_Elementwise trait.
struct SinkThroughElementwise : RewritePattern {
  SinkThroughElementwise(MLIRContext *ctx, int64_t &count)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), count(count) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::kiln::Elementwise>())
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    TransposeOp first;
    for (Value v : op->getOperands())
      if ((first = getTranspose(v, {}, rank)))
        break;
    if (!first)
      return failure();
    ArrayRef<int64_t> perm = first.getPermutation();
    SmallVector<int64_t> inverse = invert(perm);
    for (Value v : op->getOperands())
      if (!untranspose(rewriter, op, v, perm, inverse, rank, false))
        return failure();
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(
          untranspose(rewriter, op, v, perm, inverse, rank, true));
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(RankedTensorType::get(
        permute(resultType.getShape(), inverse), resultType.getElementType()));
    replaceWithTranspose(rewriter, op, moved->getResult(0), perm, count);
    return success();
  }

  int64_t &count;
};

/// concat(transpose(x_i), axis) -> transpose(concat(x_i, perm[axis])).
struct SinkThroughConcat : SinkPattern<ConcatOp> {
  using SinkPattern::SinkPattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    TransposeOp first = getTranspose(op.getInputs().front(), {}, rank);
    if (!first)
      return failure();
    ArrayRef<int64_t> perm = first.getPermutation();
    SmallVector<Value> inputs;
    for (Value v : op.getInputs()) {
      TransposeOp t = getTranspose(v, perm, rank);
      if (!t)
        return failure();
      inputs.push_back(t.getInput());
    }
    Value joined =
        ConcatOp::create(rewriter, op.getLoc(), inputs,
                         rewriter.getI64IntegerAttr(perm[op.getAxis()]));
    replaceWithTranspose(rewriter, op, joined, perm, count);
    return success();
  }
};

/// slice(transpose(x)) -> transpose(slice(x)) with the window permuted.
struct SinkThroughSlice : SinkPattern<SliceOp> {
  using SinkPattern::SinkPattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    TransposeOp t = getTranspose(op.getInput(), {}, op.getType().getRank());
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPermutation();
    SmallVector<int64_t> inverse = invert(perm);
    Value sliced = SliceOp::create(
        rewriter, op.getLoc(), t.getInput(),
        rewriter.getDenseI64ArrayAttr(permute(op.getStart(), inverse)),
        rewriter.getDenseI64ArrayAttr(permute(op.getSize(), inverse)),
        rewriter.getDenseI64ArrayAttr(permute(op.getStride(), inverse)));
    replaceWithTranspose(rewriter, op, sliced, perm, count);
    return success();
  }
};

/// A transpose that only moves dimensions of size 1 -> kiln.reshape.
struct TransposeToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!movesOnlyUnitDims(op.getInput().getType().getShape(),
                           op.getPermutation()) ||
        !isPlainReshape(op.getInput().getType(), op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

struct SinkTransposesPass
    : mlir::kiln::impl::KilnSinkTransposesPassBase<SinkTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t count = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<SinkThroughElementwise, SinkThroughConcat, SinkThroughSlice>(
        ctx, count);
    patterns.add<TransposeToReshape>(ctx);
    TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    // Transposes shared by several layers can move back and forth without
    // end (a layer norm whose mean feeds both a subtraction and a negation,
    // as tf2onnx writes it): the moves are bounded, and where the bound
    // stops them the IR is correct, only less tidy.
    int64_t ops = 0;
    getOperation()->walk([&](Operation *) { ++ops; });
    GreedyRewriteConfig config;
    config.setMaxNumRewrites(8 * ops + 64);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    numSunk += count;
  }
};

} // namespace
