//===- DataMovementToLinalg.cpp - lower shape and data movement -*- C++ -*-===//
//
// kiln.constant becomes arith.constant; reshape, flatten, squeeze and
// unsqueeze become tensor.collapse_shape/expand_shape; transpose becomes
// linalg.transpose; concat, tensor.insert_slice into an empty tensor; slice,
// tensor.extract_slice (negative strides: a generic reading start + i *
// stride); pad, tensor.pad (constant) or a gather-style generic (reflect,
// edge); gather, a generic that reads the data tensor at clamped indices;
// iota, a generic whose body computes start + step * linalg.index.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::lowering;

namespace {

struct LowerConstant : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op,
                                         "constant is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

template <typename OpTy> struct LowerToReshape : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, reshape(rewriter, op.getLoc(), op.getInput(), op.getType()));
    return success();
  }
};

struct LowerTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getInput(),
                                         init, op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

struct LowerConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value result = emptyTensor(rewriter, loc, type);
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      auto t = cast<RankedTensorType>(input.getType());
      // An empty operand adds nothing (and its offset may be the end of
      // the axis, which tensor.insert_slice refuses).
      if (t.getNumElements() == 0)
        continue;
      SmallVector<int64_t> offsets(type.getRank(), 0),
          strides(type.getRank(), 1);
      offsets[axis] = offset;
      result = tensor::InsertSliceOp::create(
          rewriter, loc, input, result, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, t.getShape(), strides);
      offset += t.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A generic over `type` whose body reads `source` at coordinates computed
/// from the output's indices.
Value gatherGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                    llvm::function_ref<Value(OpBuilder &, Location,
                                             ArrayRef<Value>, ValueRange)>
                        body) {
  int64_t rank = type.getRank();
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  return generic(b, loc, emptyTensor(b, loc, type), inputs, inputMaps,
                 b.getMultiDimIdentityMap(rank), it,
                 [&](OpBuilder &b, Location loc, ValueRange args) {
                   SmallVector<Value> idx;
                   for (int64_t i = 0; i < rank; ++i)
                     idx.push_back(linalg::IndexOp::create(b, loc, i));
                   return body(b, loc, idx, args);
                 });
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// An index read from an index tensor: negative counts from the end of a
/// dimension of `dim`, and out of range clamps into it.
Value normalizedIndex(OpBuilder &b, Location loc, Value raw, int64_t dim) {
  Value k = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  Value zero = indexConst(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k, zero);
  k = arith::SelectOp::create(
      b, loc, neg, arith::AddIOp::create(b, loc, k, indexConst(b, loc, dim)),
      k);
  k = arith::MaxSIOp::create(b, loc, k, zero);
  return arith::MinSIOp::create(b, loc, k, indexConst(b, loc, dim - 1));
}

/// Positive strides: tensor.extract_slice. A negative stride: a generic over
/// the output that reads the input at start + i * stride.
struct LowerSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    // Nothing to read (the source may be empty too, where any offset is out
    // of bounds for tensor.extract_slice).
    if (type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    if (llvm::all_of(op.getStride(), [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, op.getInput(), ValueRange{}, ValueRange{}, ValueRange{},
          op.getStart(), op.getSize(), op.getStride());
      return success();
    }
    // Negative strides: each element read at start + i * stride.
    Value input = op.getInput();
    ArrayRef<int64_t> starts = op.getStart(), strides = op.getStride();
    rewriter.replaceOp(
        op,
        gatherGeneric(
            rewriter, op.getLoc(), type, {}, {},
            [&](OpBuilder &b, Location loc, ArrayRef<Value> idx, ValueRange) {
              SmallVector<Value> at;
              // One statement per op, so that the IR's order does not
              // depend on the compiler's order of evaluating arguments.
              for (int64_t i = 0; i < rank; ++i) {
                Value start = indexConst(b, loc, starts[i]);
                Value step = indexConst(b, loc, strides[i]);
                Value offset = arith::MulIOp::create(b, loc, idx[i], step);
                at.push_back(arith::AddIOp::create(b, loc, offset, start));
              }
              return tensor::ExtractOp::create(b, loc, input, at);
            }));
    return success();
  }
};

struct LowerPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (op.getMode() == PadMode::Constant) {
      rewriter.replaceOp(op,
                         padOrCrop(rewriter, loc, op.getInput(),
                                   pads.take_front(rank), pads.drop_front(rank),
                                   op.getValue().convertToDouble()));
      return success();
    }
    bool reflect = op.getMode() == PadMode::Reflect;
    Value source = op.getInput();
    Value r = gatherGeneric(
        rewriter, loc, op.getType(), {}, {},
        [&](OpBuilder &b, Location loc, ArrayRef<Value> idx, ValueRange) {
          SmallVector<Value> at;
          for (int64_t i = 0; i < rank; ++i) {
            int64_t dim = inType.getDimSize(i);
            Value j = arith::SubIOp::create(b, loc, idx[i],
                                            indexConst(b, loc, pads[i]));
            Value zero = indexConst(b, loc, 0),
                  last = indexConst(b, loc, dim - 1);
            if (reflect) {
              Value neg = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::slt, j, zero);
              j = arith::SelectOp::create(
                  b, loc, neg, arith::SubIOp::create(b, loc, zero, j), j);
              Value over = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::sgt, j, last);
              Value mirrored = arith::SubIOp::create(
                  b, loc, indexConst(b, loc, 2 * (dim - 1)), j);
              j = arith::SelectOp::create(b, loc, over, mirrored, j);
            }
            j = arith::MaxSIOp::create(b, loc, j, zero);
            j = arith::MinSIOp::create(b, loc, j, last);
            at.push_back(j);
          }
          return tensor::ExtractOp::create(b, loc, source, at);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct LowerGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    auto dataType = op.getData().getType();
    auto idxType = op.getIndices().getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = op.getType().getRank(), idxRank = idxType.getRank();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < idxRank; ++i)
      idxExprs.push_back(getAffineDimExpr(axis + i, ctx));
    Value data = op.getData();
    int64_t dim = dataType.getDimSize(axis);
    Value r = gatherGeneric(
        rewriter, loc, op.getType(), {op.getIndices()},
        {AffineMap::get(rank, 0, idxExprs, ctx)},
        [&](OpBuilder &b, Location loc, ArrayRef<Value> idx, ValueRange args) {
          Value k = normalizedIndex(b, loc, args[0], dim);
          SmallVector<Value> at(idx.begin(), idx.begin() + axis);
          at.push_back(k);
          at.append(idx.begin() + axis + idxRank, idx.end());
          return tensor::ExtractOp::create(b, loc, data, at);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// result[i] = data[i with i[axis] = clamp(normalize(indices[i]))].
struct LowerGatherElements : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = op.getType().getRank();
    int64_t dim = op.getData().getType().getDimSize(axis);
    Value data = op.getData();
    Value r = gatherGeneric(
        rewriter, loc, op.getType(), {op.getIndices()},
        {rewriter.getMultiDimIdentityMap(rank)},
        [&](OpBuilder &b, Location loc, ArrayRef<Value> idx, ValueRange args) {
          SmallVector<Value> at(idx.begin(), idx.end());
          at[axis] = normalizedIndex(b, loc, args[0], dim);
          return tensor::ExtractOp::create(b, loc, data, at);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// result[i] = start + step * i[dimension], in i64 (truncated) or f64
/// (rounded once): a generic with no inputs, so a large generated tensor is
/// computed where it is used instead of being stored.
struct LowerIota : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    int64_t dimension = static_cast<int64_t>(op.getDimension());
    auto floatType = dyn_cast<FloatType>(element);
    Type wide =
        floatType ? Type(rewriter.getF64Type()) : Type(rewriter.getI64Type());
    Value r = gatherGeneric(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ArrayRef<Value> idx, ValueRange) {
          Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                               idx[dimension]);
          if (floatType)
            i = arith::SIToFPOp::create(b, loc, wide, i);
          Value start = arith::ConstantOp::create(b, loc, op.getStart());
          Value step = arith::ConstantOp::create(b, loc, op.getStep());
          Value v = add(b, loc, mul(b, loc, i, step), start);
          if (element == wide)
            return v;
          if (floatType)
            return Value(arith::TruncFOp::create(b, loc, element, v));
          return Value(arith::TruncIOp::create(b, loc, element, v));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateDataMovementPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<LowerConstant, LowerToReshape<ReshapeOp>, LowerToReshape<FlattenOp>,
           LowerToReshape<SqueezeOp>, LowerToReshape<UnsqueezeOp>,
           LowerTranspose, LowerConcat, LowerSlice, LowerPad, LowerGather,
           LowerGatherElements, LowerIota>(patterns.getContext());
}
