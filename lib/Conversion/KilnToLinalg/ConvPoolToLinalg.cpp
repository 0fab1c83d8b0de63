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
// Channels last (#kiln<layout channels_last>): the same loops with the
// channel loop innermost of the parallel ones, so that consecutive threads
// write consecutive channels and read consecutive filter elements.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/Layout.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

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

/// `exprs`, given in the channels-first order of an activation (N, C,
/// D1..Dk) or a filter (K, C/g, R1..Rk), in the order of `last` (channels
/// last) or as they are.
SmallVector<AffineExpr> activationOrder(ArrayRef<AffineExpr> exprs, bool last) {
  if (!last)
    return SmallVector<AffineExpr>(exprs);
  return permute(exprs, getToChannelsLast(exprs.size()));
}
SmallVector<AffineExpr> filterOrder(ArrayRef<AffineExpr> exprs, bool last) {
  if (!last)
    return SmallVector<AffineExpr>(exprs);
  return permute(exprs, getFilterToChannelsLast(exprs.size()));
}
SmallVector<int64_t> activationOrder(ArrayRef<int64_t> values, bool last) {
  if (!last)
    return SmallVector<int64_t>(values);
  return permute(values, getToChannelsLast(values.size()));
}

/// Loops of a convolution with `s` spatial dimensions: n, k, o_1..o_s
/// (channels last: n, o_1..o_s, k) | c, r_1..r_s.
struct ConvLoops {
  int64_t k, oFirst, c, rFirst, count;
  ConvLoops(int64_t s, bool last)
      : k(last ? 1 + s : 1), oFirst(last ? 1 : 2), c(2 + s), rFirst(3 + s),
        count(3 + 2 * s) {}
};

/// Channels-last convolution (one group) of an already padded input, N x
/// D1.. x C by R1.. x C x K into N x O1.. x K.
Value convolveChannelsLast(OpBuilder &b, Location loc, Value padded,
                           Value filter, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations,
                           RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  int64_t s = strides.size();
  ConvLoops l(s, /*last=*/true);
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> x = {d(0), d(l.c)}, w = {d(l.k), d(l.c)},
                          o = {d(0), d(l.k)};
  for (int64_t i = 0; i < s; ++i) {
    x.push_back(d(l.oFirst + i) * strides[i] + d(l.rFirst + i) * dilations[i]);
    w.push_back(d(l.rFirst + i));
    o.push_back(d(l.oFirst + i));
  }
  Value init = filledTensor(b, loc, accumulatorType(resultType), 0);
  Value acc = generic(
      b, loc, init, {padded, filter},
      {AffineMap::get(l.count, 0, activationOrder(x, true), ctx),
       AffineMap::get(l.count, 0, filterOrder(w, true), ctx)},
      AffineMap::get(l.count, 0, activationOrder(o, true), ctx),
      iterators(2 + s, 1 + s), [](OpBuilder &b, Location loc, ValueRange args) {
        return multiplyAccumulate(b, loc, args[2], args[0], args[1]);
      });
  return finishAccumulation(b, loc, acc, resultType);
}

/// Grouped convolution of an already padded input; returns N x K x O...
/// With one group the loops have no group dimension (and the operands no
/// reshape), so that the result is the convolution's own tensor.
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
  // With one group, the group dimension is left out.
  int64_t g = groups == 1 ? 0 : 1;

  SmallVector<int64_t> xShape = {n, groups, cg};
  llvm::append_range(xShape, inType.getShape().drop_front(2));
  SmallVector<int64_t> wShape = {groups, kg, cg};
  llvm::append_range(wShape, fType.getShape().drop_front(2));
  SmallVector<int64_t> oShape = {n, groups, kg};
  llvm::append_range(oShape, resultType.getShape().drop_front(2));
  if (!g) {
    xShape.erase(xShape.begin() + 1);
    wShape.erase(wShape.begin());
    oShape.erase(oShape.begin() + 1);
  }
  Value x = reshape(b, loc, padded, RankedTensorType::get(xShape, element));
  Value w = reshape(b, loc, filter, RankedTensorType::get(wShape, element));
  auto oType = RankedTensorType::get(oShape, element);
  Value init = filledTensor(b, loc, accumulatorType(oType), 0);

  // Loops: n, [g,] k, o_1..o_s | c, r_1..r_s
  int64_t first = 2 + g; // the first output position loop
  int64_t numDims = first + s + 1 + s;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t cDim = first + s;
  SmallVector<AffineExpr> xExprs = {d(0)}, wExprs, oExprs = {d(0)};
  if (g) {
    xExprs.push_back(d(1));
    wExprs.push_back(d(1));
    oExprs.push_back(d(1));
  }
  xExprs.push_back(d(cDim));
  wExprs.append({d(1 + g), d(cDim)});
  oExprs.push_back(d(1 + g));
  for (int64_t i = 0; i < s; ++i) {
    AffineExpr o = d(first + i), r = d(cDim + 1 + i);
    xExprs.push_back(o * strides[i] + r * dilations[i]);
    wExprs.push_back(r);
    oExprs.push_back(o);
  }
  Value out = generic(
      b, loc, init, {x, w},
      {AffineMap::get(numDims, 0, xExprs, ctx),
       AffineMap::get(numDims, 0, wExprs, ctx)},
      AffineMap::get(numDims, 0, oExprs, ctx), iterators(first + s, 1 + s),
      [](OpBuilder &b, Location loc, ValueRange args) {
        return multiplyAccumulate(b, loc, args[2], args[0], args[1]);
      });
  return reshape(b, loc, finishAccumulation(b, loc, out, oType), resultType);
}

/// Reads x[n, channel, o_i * stride_i + r_i * dilation_i - low_i ...] (x
/// channels `last`: the channel at the end) in a linalg body whose loops
/// `oDim + i` and `rDim + i` are the output and window positions: `fill`
/// where the position falls outside x (its padding), so that no padded copy
/// of x is made.
Value readPadded(OpBuilder &b, Location loc, Value x, Value n, Value channel,
                 int64_t oDim, int64_t rDim, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> dilations, ArrayRef<int64_t> low, Value fill,
                 bool last) {
  auto type = cast<RankedTensorType>(x.getType());
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = cst(0), inside;
  SmallVector<Value> at = {n};
  if (!last)
    at.push_back(channel);
  int64_t firstSpatial = last ? 1 : 2;
  for (size_t i = 0; i < strides.size(); ++i) {
    Value o = linalg::IndexOp::create(b, loc, oDim + i);
    Value r = linalg::IndexOp::create(b, loc, rDim + i);
    Value pos = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, o, cst(strides[i])),
        arith::MulIOp::create(b, loc, r, cst(dilations[i])));
    pos = arith::SubIOp::create(b, loc, pos, cst(low[i]));
    // pos as unsigned is below the size exactly when 0 <= pos < size.
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, pos,
                                     cst(type.getDimSize(firstSpatial + i)));
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
    at.push_back(arith::SelectOp::create(b, loc, ok, pos, zero));
  }
  if (last)
    at.push_back(channel);
  Value v = tensor::ExtractOp::create(b, loc, x, at);
  return inside ? arith::SelectOp::create(b, loc, inside, v, fill) : v;
}

/// A padded or grouped convolution as one linalg.generic over the filter
/// whose body reads the input through readPadded: loops n, k, o_1..o_s
/// (channels `last`: n, o_1..o_s, k) | c, r_1..r_s, input channel
/// (k / (K / groups)) * (C / groups) + c. Returns N x K x O... (N x O... x
/// K).
Value convolvePadded(OpBuilder &b, Location loc, Value x, Value filter,
                     ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                     ArrayRef<int64_t> low, int64_t groups,
                     RankedTensorType resultType, bool last) {
  MLIRContext *ctx = b.getContext();
  auto fType = cast<RankedTensorType>(filter.getType());
  int64_t s = strides.size();
  int64_t rank = fType.getRank();
  int64_t cg = fType.getDimSize(last ? rank - 2 : 1);
  int64_t kg = fType.getDimSize(last ? rank - 1 : 0) / groups;
  Value init = filledTensor(b, loc, accumulatorType(resultType), 0);
  ConvLoops l(s, last);
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> wExprs = {d(l.k), d(l.c)}, oExprs = {d(0), d(l.k)};
  for (int64_t i = 0; i < s; ++i) {
    wExprs.push_back(d(l.rFirst + i));
    oExprs.push_back(d(l.oFirst + i));
  }
  Value acc = generic(
      b, loc, init, {filter},
      {AffineMap::get(l.count, 0, filterOrder(wExprs, last), ctx)},
      AffineMap::get(l.count, 0, activationOrder(oExprs, last), ctx),
      iterators(2 + s, 1 + s),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value n = linalg::IndexOp::create(b, loc, 0);
        Value channel = linalg::IndexOp::create(b, loc, l.c);
        if (groups != 1) {
          Value k = linalg::IndexOp::create(b, loc, l.k);
          Value group = arith::DivUIOp::create(
              b, loc, k, arith::ConstantIndexOp::create(b, loc, kg));
          channel = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, group,
                                    arith::ConstantIndexOp::create(b, loc, cg)),
              channel);
        }
        Value zero = scalar(b, loc, args[0].getType(), 0);
        Value v = readPadded(b, loc, x, n, channel, l.oFirst, l.rFirst, strides,
                             dilations, low, zero, last);
        return multiplyAccumulate(b, loc, args[1], v, args[0]);
      });
  return finishAccumulation(b, loc, acc, resultType);
}

/// An ungrouped convolution as a matrix product. Channels first: the filter
/// (K x C R...) times each image's columns (C R... x O...). Channels last:
/// the rows of all images (N O... x R... C) times the filter (R... C x K),
/// one product. The columns (rows) are gathered first (im2col) unless the
/// convolution is 1x1 with stride 1 and no padding: then they are the input
/// itself. Returns the convolution's result.
Value convolveAsProduct(OpBuilder &b, Location loc, Value x, Value filter,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ArrayRef<int64_t> low, RankedTensorType resultType,
                        bool last) {
  MLIRContext *ctx = b.getContext();
  auto xType = cast<RankedTensorType>(x.getType());
  auto fType = cast<RankedTensorType>(filter.getType());
  Type element = xType.getElementType();
  int64_t s = strides.size(), rank = xType.getRank();
  // Positions of the channel and first spatial dimension, and of the
  // filter's window and output channel.
  int64_t cDim = last ? rank - 1 : 1, first = last ? 1 : 2;
  int64_t rFirst = last ? 0 : 2, kDim = last ? rank - 1 : 0;
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(cDim);
  int64_t k = fType.getDimSize(kDim), depth = c, positions = 1;
  bool pointwise = true;
  SmallVector<int64_t> window, outSpatial;
  for (int64_t i = 0; i < s; ++i) {
    window.push_back(fType.getDimSize(rFirst + i));
    outSpatial.push_back(resultType.getDimSize(first + i));
    depth *= window.back();
    positions *= outSpatial.back();
    pointwise &= window.back() == 1 && strides[i] == 1 && low[i] == 0 &&
                 outSpatial.back() == xType.getDimSize(first + i);
  }
  // The gathered columns: n, c, r..., o... (channels last: n, o..., r..., c).
  SmallVector<int64_t> shape = {n};
  if (!last)
    shape.push_back(c);
  llvm::append_range(shape, last ? outSpatial : window);
  llvm::append_range(shape, last ? window : outSpatial);
  if (last)
    shape.push_back(c);
  auto colsType = last ? RankedTensorType::get({n * positions, depth}, element)
                       : RankedTensorType::get({n, depth, positions}, element);
  Value columns;
  if (pointwise) {
    columns = reshape(b, loc, x, colsType);
  } else {
    int64_t loops = shape.size();
    Value gathered = generic(
        b, loc, emptyTensor(b, loc, RankedTensorType::get(shape, element)), {},
        {}, AffineMap::getMultiDimIdentityMap(loops, ctx), iterators(loops, 0),
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value image = linalg::IndexOp::create(b, loc, 0);
          Value channel = linalg::IndexOp::create(b, loc, last ? loops - 1 : 1);
          Value zero = scalar(b, loc, element, 0);
          return readPadded(b, loc, x, image, channel,
                            /*oDim=*/last ? 1 : 2 + s,
                            /*rDim=*/last ? 1 + s : 2, strides, dilations, low,
                            zero, last);
        });
    columns = reshape(b, loc, gathered, colsType);
  }
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  Value acc;
  RankedTensorType productType;
  if (last) {
    // Loops: row, k | depth.
    Value w =
        reshape(b, loc, filter, RankedTensorType::get({depth, k}, element));
    productType = RankedTensorType::get({n * positions, k}, element);
    acc =
        generic(b, loc, filledTensor(b, loc, accumulatorType(productType), 0),
                {columns, w},
                {AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                 AffineMap::get(3, 0, {d(2), d(1)}, ctx)},
                AffineMap::get(3, 0, {d(0), d(1)}, ctx), iterators(2, 1),
                [](OpBuilder &b, Location loc, ValueRange args) {
                  return multiplyAccumulate(b, loc, args[2], args[0], args[1]);
                });
  } else {
    // Loops: image, k, column | row.
    Value w =
        reshape(b, loc, filter, RankedTensorType::get({k, depth}, element));
    productType = RankedTensorType::get({n, k, positions}, element);
    acc =
        generic(b, loc, filledTensor(b, loc, accumulatorType(productType), 0),
                {w, columns},
                {AffineMap::get(4, 0, {d(1), d(3)}, ctx),
                 AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx)},
                AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx), iterators(3, 1),
                [](OpBuilder &b, Location loc, ValueRange args) {
                  return multiplyAccumulate(b, loc, args[2], args[0], args[1]);
                });
  }
  return reshape(b, loc, finishAccumulation(b, loc, acc, productType),
                 resultType);
}

/// Adds a per-channel bias (K values) to N x K x ... (channels `last`:
/// N x ... x K).
Value addBias(OpBuilder &b, Location loc, Value x, Value bias, bool last) {
  if (!bias)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  // Broadcast from the right: K x 1 x ... 1, or 1 x ... x 1 x K.
  SmallVector<int64_t> shape(type.getRank() - 1, 1);
  shape[last ? shape.size() - 1 : 0] =
      type.getDimSize(last ? type.getRank() - 1 : 1);
  Value bcast = reshape(b, loc, bias,
                        RankedTensorType::get(shape, type.getElementType()));
  return elementwise(b, loc, type, {x, bcast},
                     [](OpBuilder &b, Location loc, ValueRange args) {
                       return add(b, loc, args[0], args[1]);
                     });
}

struct LowerConvolution : OpRewritePattern<ConvolutionOp> {
  LowerConvolution(MLIRContext *ctx, int64_t productMinFlops)
      : OpRewritePattern(ctx), productMinFlops(productMinFlops) {}

  /// Whether `op` is to be a matrix product (convolveAsProduct).
  bool asProduct(ConvolutionOp op) const {
    if (productMinFlops < 0 || op.getGroups() != 1 ||
        !op.getType().hasStaticShape())
      return false;
    // 2 N K O... C R... operations: the filter's elements but K. Saturated
    // at 2^64 - 1 (a huge layer is a product; the budgets refuse it later).
    bool last = op.getLayout() == Layout::ChannelsLast;
    RankedTensorType filter = op.getFilter().getType();
    int64_t k = last ? filter.getRank() - 1 : 0;
    uint64_t flops = 2;
    for (int64_t d : op.getType().getShape())
      flops = llvm::SaturatingMultiply(flops, static_cast<uint64_t>(d));
    for (auto [i, d] : llvm::enumerate(filter.getShape()))
      if (static_cast<int64_t>(i) != k)
        flops = llvm::SaturatingMultiply(flops, static_cast<uint64_t>(d));
    return flops >= static_cast<uint64_t>(productMinFlops);
  }

  LogicalResult matchAndRewrite(ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t s = op.getStrides().size();
    SmallVector<int64_t> low;
    for (int64_t i = 0; i < s; ++i)
      low.push_back(op.getPads()[i]);
    int64_t groups = static_cast<int64_t>(op.getGroups());
    bool last = op.getLayout() == Layout::ChannelsLast;
    bool padded = llvm::any_of(op.getPads(), [](int64_t p) { return p; });
    // A padded or grouped convolution reads its input in place (no padded
    // copy, no reshape), so that it fuses as one kernel with its epilogue.
    Value out;
    if (asProduct(op))
      out = convolveAsProduct(rewriter, loc, op.getInput(), op.getFilter(),
                              op.getStrides(), op.getDilations(), low,
                              op.getType(), last);
    else if (padded || groups != 1)
      out = convolvePadded(rewriter, loc, op.getInput(), op.getFilter(),
                           op.getStrides(), op.getDilations(), low, groups,
                           op.getType(), last);
    else if (last)
      out = convolveChannelsLast(rewriter, loc, op.getInput(), op.getFilter(),
                                 op.getStrides(), op.getDilations(),
                                 op.getType());
    else
      out = convolve(rewriter, loc, op.getInput(), op.getFilter(),
                     op.getStrides(), op.getDilations(), 1, op.getType());
    rewriter.replaceOp(op, addBias(rewriter, loc, out, op.getBias(), last));
    return success();
  }

private:
  int64_t productMinFlops;
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
    rewriter.replaceOp(op, addBias(rewriter, loc, out, op.getBias(),
                                   /*last=*/false));
    return success();
  }
};

/// Loops of a pool with `s` spatial dimensions: n, c, o_1..o_s (channels
/// last: n, o_1..o_s, c) | r_1..r_s.
struct PoolLoops {
  int64_t c, oFirst, rFirst, count;
  PoolLoops(int64_t s, bool last)
      : c(last ? 1 + s : 1), oFirst(last ? 1 : 2), rFirst(2 + s),
        count(2 + 2 * s) {}
};

/// Sums or maxes `padded` over windows into N x C x O... (channels `last`:
/// N x O... x C).
Value poolWindows(OpBuilder &b, Location loc, Value padded, Value init,
                  ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dilations, bool isMax, bool last,
                  bool isUnsigned = false) {
  MLIRContext *ctx = b.getContext();
  int64_t s = window.size();
  auto element = cast<RankedTensorType>(padded.getType()).getElementType();
  Value windowOperand =
      emptyTensor(b, loc, RankedTensorType::get(window, element));
  PoolLoops l(s, last);
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xExprs = {d(0), d(l.c)}, wExprs,
                          oExprs = {d(0), d(l.c)};
  for (int64_t i = 0; i < s; ++i) {
    xExprs.push_back(d(l.oFirst + i) * strides[i] +
                     d(l.rFirst + i) * dilations[i]);
    wExprs.push_back(d(l.rFirst + i));
    oExprs.push_back(d(l.oFirst + i));
  }
  return generic(
      b, loc, init, {padded, windowOperand},
      {AffineMap::get(l.count, 0, activationOrder(xExprs, last), ctx),
       AffineMap::get(l.count, 0, wExprs, ctx)},
      AffineMap::get(l.count, 0, activationOrder(oExprs, last), ctx),
      iterators(2 + s, s), [=](OpBuilder &b, Location loc, ValueRange args) {
        return isMax ? max(b, loc, args[2], args[0], isUnsigned)
                     : add(b, loc, args[2], args[0]);
      });
}

/// Max over windows of x read in place (readPadded with `fill` outside x)
/// into `init`, N x C x O... (channels `last`: N x O... x C).
Value maxPoolPadded(OpBuilder &b, Location loc, Value x, Value init,
                    ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                    ArrayRef<int64_t> dilations, ArrayRef<int64_t> low,
                    double fill, bool isUnsigned, bool last) {
  MLIRContext *ctx = b.getContext();
  int64_t s = window.size();
  auto element = cast<RankedTensorType>(x.getType()).getElementType();
  Value windowOperand =
      emptyTensor(b, loc, RankedTensorType::get(window, element));
  PoolLoops l(s, last);
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> wExprs, oExprs = {d(0), d(l.c)};
  for (int64_t i = 0; i < s; ++i) {
    wExprs.push_back(d(l.rFirst + i));
    oExprs.push_back(d(l.oFirst + i));
  }
  return generic(
      b, loc, init, {windowOperand}, {AffineMap::get(l.count, 0, wExprs, ctx)},
      AffineMap::get(l.count, 0, activationOrder(oExprs, last), ctx),
      iterators(2 + s, s), [&](OpBuilder &b, Location loc, ValueRange args) {
        Value v = readPadded(b, loc, x, linalg::IndexOp::create(b, loc, 0),
                             linalg::IndexOp::create(b, loc, l.c), l.oFirst,
                             l.rFirst, strides, dilations, low,
                             scalar(b, loc, element, fill), last);
        return max(b, loc, args[1], v, isUnsigned);
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
    bool last = op.getLayout() == Layout::ChannelsLast;
    int64_t firstSpatial = last ? 1 : 2;
    // Explicit pads, plus what ceil mode's last windows reach past them
    // (per dimension in the channels-first order, then in the tensors').
    SmallVector<int64_t> low(2, 0), high(2, 0), extra(2, 0);
    for (int64_t i = 0; i < s; ++i) {
      int64_t in = inType.getDimSize(firstSpatial + i);
      int64_t reach = (outType.getDimSize(firstSpatial + i) - 1) * strides[i] +
                      dil[i] * (window[i] - 1) + 1;
      low.push_back(pads[i]);
      high.push_back(pads[s + i]);
      extra.push_back(
          std::max<int64_t>(0, reach - (in + pads[i] + pads[s + i])));
    }
    SmallVector<int64_t> spatialLow(llvm::drop_begin(low, 2));
    low = activationOrder(low, last);
    high = activationOrder(high, last);
    extra = activationOrder(extra, last);
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
    Value init = filledTensor(rewriter, loc, outType, fill);
    if (isMax) {
      // Max reads the input in place: a position in the padding is `fill`.
      rewriter.replaceOp(op, maxPoolPadded(rewriter, loc, op.getInput(), init,
                                           window, strides, dil, spatialLow,
                                           fill, isUnsigned, last));
      return success();
    }
    Value padded = padOrCrop(rewriter, loc, op.getInput(), low, highAll, fill);
    Value pooled = poolWindows(rewriter, loc, padded, init, window, strides,
                               dil, isMax, last, isUnsigned);
    // Divisors: pool a 1 x 1 x D... tensor of ones whose explicit padding
    // counts (count_include_pad) or not, and whose ceil-mode reach never does.
    SmallVector<int64_t> onesShape(inType.getShape());
    onesShape[0] = 1;
    onesShape[last ? s + 1 : 1] = 1;
    Value ones = filledTensor(rewriter, loc,
                              RankedTensorType::get(onesShape, element), 1);
    Value counted = padOrCrop(rewriter, loc, ones, low, high,
                              op.getCountIncludePad() ? 1.0 : 0.0);
    SmallVector<int64_t> noPad(s + 2, 0);
    counted = padOrCrop(rewriter, loc, counted, noPad, extra, 0.0);
    SmallVector<int64_t> countShape(outType.getShape());
    countShape[0] = 1;
    countShape[last ? s + 1 : 1] = 1;
    auto countType = RankedTensorType::get(countShape, element);
    Value counts = poolWindows(rewriter, loc, counted,
                               filledTensor(rewriter, loc, countType, 0),
                               window, strides, dil, /*isMax=*/false, last);
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
    bool last = op.getLayout() == Layout::ChannelsLast;
    int64_t rank = inType.getRank();
    for (int64_t i = last ? 1 : 2; i < (last ? rank - 1 : rank); ++i) {
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
    // The mean divides before the reshape, so that the division fuses with
    // the reduction.
    if (!isMax)
      r = elementwise(rewriter, loc, cast<RankedTensorType>(r.getType()), {r},
                      [count](OpBuilder &b, Location loc, ValueRange a) {
                        return div(b, loc, a[0],
                                   scalar(b, loc, a[0].getType(), count));
                      });
    rewriter.replaceOp(op, reshape(rewriter, loc, r, op.getType()));
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateConvPoolPatterns(
    RewritePatternSet &patterns, int64_t convProductMinFlops) {
  patterns.add<LowerConvolution>(patterns.getContext(), convProductMinFlops);
  patterns.add<LowerDeconvolution, LowerPool, LowerGlobalPool>(
      patterns.getContext());
}
