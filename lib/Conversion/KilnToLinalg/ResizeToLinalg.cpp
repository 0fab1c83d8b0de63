//===- ResizeToLinalg.cpp - lower kiln.resize -------------------*- C++ -*-===//
//
// kiln.resize as a linalg.generic over the output: each output index maps to
// an input coordinate by the coordinate transform; nearest rounds it (by the
// nearest-rounding mode) and reads one element, linear blends the 2 and cubic
// (Keys, parameter cubic_coeff_a) the 4 neighbours of every resized dimension
// (taps^k reads for k resized dimensions). Indices clamp to the input, which
// matches ONNX's edge padding.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::lowering;

namespace {

struct LowerResize : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    RankedTensorType outType = op.getType();
    int64_t rank = inType.getRank();
    SmallVector<double> scales;
    SmallVector<int64_t> resized;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t in = inType.getDimSize(i), out = outType.getDimSize(i);
      double scale = op.getScales() ? double((*op.getScales())[i])
                                    : double(out) / double(in);
      scales.push_back(scale);
      if (in != out || scale != 1.0)
        resized.push_back(i);
    }
    bool nearestMode = op.getMode() == ResizeMode::Nearest;
    bool cubic = op.getMode() == ResizeMode::Cubic;
    int64_t taps = cubic ? 4 : 2;
    double a = op.getCubicCoeffA().convertToDouble();
    double reads = std::pow(double(taps), double(resized.size()));
    if (!nearestMode && reads > 256)
      return rewriter.notifyMatchFailure(op, "too many resized dimensions");
    CoordinateTransform transform = op.getCoordinateTransform();
    NearestRounding rounding = op.getNearestRounding();
    Value input = op.getInput();
    Type element = inType.getElementType();

    SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
    Value result = generic(
        rewriter, loc, emptyTensor(rewriter, loc, outType), {}, {},
        rewriter.getMultiDimIdentityMap(rank), it,
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Type f32 = b.getF32Type();
          auto f = [&](double v) { return scalar(b, l, f32, v); };
          auto toIndex = [&](Value v) {
            Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), v);
            return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
          };
          auto clampIndex = [&](Value v, int64_t dim) {
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            Value last = arith::ConstantIndexOp::create(b, l, dim - 1);
            return arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, v, zero), last);
          };
          // Per dimension: the nearest index, or the first tap's index and
          // the weight of each tap.
          SmallVector<Value> base;
          SmallVector<SmallVector<Value>> weights(rank);
          for (int64_t i = 0; i < rank; ++i) {
            Value idx = linalg::IndexOp::create(b, l, i);
            if (!llvm::is_contained(resized, i)) {
              base.push_back(idx);
              continue;
            }
            int64_t in = inType.getDimSize(i), out = outType.getDimSize(i);
            Value x = arith::SIToFPOp::create(
                b, l, f32,
                arith::IndexCastOp::create(b, l, b.getI64Type(), idx));
            Value orig;
            switch (transform) {
            case CoordinateTransform::HalfPixel:
              orig = arith::SubFOp::create(
                  b, l,
                  arith::DivFOp::create(b, l,
                                        arith::AddFOp::create(b, l, x, f(0.5)),
                                        f(scales[i])),
                  f(0.5));
              break;
            case CoordinateTransform::PytorchHalfPixel:
              orig = out > 1
                         ? Value(arith::SubFOp::create(
                               b, l,
                               arith::DivFOp::create(
                                   b, l, arith::AddFOp::create(b, l, x, f(0.5)),
                                   f(scales[i])),
                               f(0.5)))
                         : f(0);
              break;
            case CoordinateTransform::AlignCorners: {
              // ONNX uses the unrounded output length in * scale.
              double length =
                  op.getScales() ? double(in) * scales[i] : double(out);
              orig = length <= 1
                         ? f(0)
                         : Value(arith::MulFOp::create(
                               b, l, x, f(double(in - 1) / (length - 1))));
              break;
            }
            case CoordinateTransform::Asymmetric:
              orig = arith::DivFOp::create(b, l, x, f(scales[i]));
              break;
            case CoordinateTransform::TfHalfPixelForNn:
              orig = arith::DivFOp::create(
                  b, l, arith::AddFOp::create(b, l, x, f(0.5)), f(scales[i]));
              break;
            case CoordinateTransform::HalfPixelSymmetric: {
              // Half pixel, shifted so that the rounded output length stays
              // centred on the input: offset = in / 2 * (1 - out / (in *
              // scale)).
              double length = double(in) * scales[i];
              double offset = double(in) / 2 * (1 - double(out) / length);
              orig = arith::AddFOp::create(
                  b, l, f(offset),
                  arith::SubFOp::create(
                      b, l,
                      arith::DivFOp::create(
                          b, l, arith::AddFOp::create(b, l, x, f(0.5)),
                          f(scales[i])),
                      f(0.5)));
              break;
            }
            }
            if (nearestMode) {
              Value r;
              switch (rounding) {
              case NearestRounding::RoundPreferFloor:
                r = math::CeilOp::create(
                    b, l, arith::SubFOp::create(b, l, orig, f(0.5)));
                break;
              case NearestRounding::RoundPreferCeil:
                r = math::FloorOp::create(
                    b, l, arith::AddFOp::create(b, l, orig, f(0.5)));
                break;
              case NearestRounding::Floor:
                r = math::FloorOp::create(b, l, orig);
                break;
              case NearestRounding::Ceil:
                r = math::CeilOp::create(b, l, orig);
                break;
              }
              base.push_back(clampIndex(toIndex(r), in));
              continue;
            }
            Value lo = math::FloorOp::create(b, l, orig);
            Value t = arith::SubFOp::create(b, l, orig, lo);
            base.push_back(toIndex(lo));
            auto mulf = [&](Value p, Value q) {
              return arith::MulFOp::create(b, l, p, q);
            };
            auto subf = [&](Value p, Value q) {
              return arith::SubFOp::create(b, l, p, q);
            };
            auto addf = [&](Value p, Value q) {
              return arith::AddFOp::create(b, l, p, q);
            };
            if (!cubic) {
              weights[i] = {subf(f(1), t), t};
              continue;
            }
            // Keys' cubic convolution with parameter a, taps at -1..2.
            auto outer =
                [&](Value d) { // ((a d - 5a) d + 8a) d - 4a, |d| in [1, 2)
                  return subf(mulf(addf(mulf(subf(mulf(f(a), d), f(5 * a)), d),
                                        f(8 * a)),
                                   d),
                              f(4 * a));
                };
            auto inner =
                [&](Value d) { // ((a + 2) d - (a + 3)) d^2 + 1, |d| < 1
                  return addf(
                      mulf(mulf(subf(mulf(f(a + 2), d), f(a + 3)), d), d),
                      f(1));
                };
            weights[i] = {outer(addf(t, f(1))), inner(t), inner(subf(f(1), t)),
                          outer(subf(f(2), t))};
          }
          if (nearestMode)
            return tensor::ExtractOp::create(b, l, input, base);
          int64_t first = cubic ? -1 : 0;
          Value acc = f(0);
          int64_t corners = static_cast<int64_t>(reads);
          for (int64_t corner = 0; corner < corners; ++corner) {
            SmallVector<Value> at(base);
            Value w = f(1);
            int64_t rest = corner;
            for (int64_t dim : resized) {
              int64_t tap = rest % taps;
              rest /= taps;
              Value shifted = arith::AddIOp::create(
                  b, l, base[dim],
                  arith::ConstantIndexOp::create(b, l, first + tap));
              at[dim] = clampIndex(shifted, inType.getDimSize(dim));
              w = arith::MulFOp::create(b, l, w, weights[dim][tap]);
            }
            Value v =
                convert(b, l, tensor::ExtractOp::create(b, l, input, at), f32);
            acc = arith::AddFOp::create(b, l, acc,
                                        arith::MulFOp::create(b, l, w, v));
          }
          return convert(b, l, acc, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateResizePatterns(RewritePatternSet &patterns) {
  patterns.add<LowerResize>(patterns.getContext());
}
