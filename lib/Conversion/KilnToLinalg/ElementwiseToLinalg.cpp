//===- ElementwiseToLinalg.cpp - lower elementwise kiln ops -----*- C++ -*-===//
//
// kiln.activation, kiln.unary, kiln.binary, kiln.select, kiln.scale and
// kiln.cast become one elementwise linalg.generic each, with numpy
// broadcasting in the indexing maps. Transcendental functions on f16/bf16
// are computed in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::lowering;

namespace {

using UnaryFn = llvm::function_ref<Value(OpBuilder &, Location, Value)>;

/// Runs `fn` on `x` in f32 when x is a 16-bit float (f32 and f64 run in
/// their own type).
Value inF32(OpBuilder &b, Location loc, Value x, UnaryFn fn) {
  Type type = x.getType();
  if (!isa<FloatType>(type) || type.getIntOrFloatBitWidth() >= 32)
    return fn(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type, fn(b, loc, wide));
}

Value cst(OpBuilder &b, Location loc, Value like, double v) {
  return scalar(b, loc, like.getType(), v);
}

/// Floored remainder of floats (ONNX Mod with fmod = 0): the truncated
/// remainder, moved by y where its sign differs from y's; a zero takes y's
/// sign. NaN and infinite operands follow remf (an infinite y leaves a
/// finite x of its sign as it is, and x + y = y otherwise).
Value flooredRemF(OpBuilder &b, Location loc, Value x, Value y) {
  return inF32(b, loc, x, [&](OpBuilder &b, Location loc, Value xf) -> Value {
    Value yf = xf.getType() == y.getType()
                   ? y
                   : Value(arith::ExtFOp::create(b, loc, xf.getType(), y));
    Value r = arith::RemFOp::create(b, loc, xf, yf);
    Value zero = cst(b, loc, r, 0);
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, r, zero);
    Value rNeg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    Value yNeg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, yf, zero);
    Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
    Value moved = arith::SelectOp::create(
        b, loc, differ, arith::AddFOp::create(b, loc, r, yf), r);
    return arith::SelectOp::create(
        b, loc, isZero, math::CopySignOp::create(b, loc, zero, yf), moved);
  });
}

Value exp(OpBuilder &b, Location loc, Value x) {
  return math::ExpOp::create(b, loc, x);
}

Value lessThanZero(OpBuilder &b, Location loc, Value x) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                               cst(b, loc, x, 0));
}

/// 1 / (1 + exp(-x))
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value e = exp(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(
      b, loc, cst(b, loc, x, 1),
      arith::AddFOp::create(b, loc, cst(b, loc, x, 1), e));
}

Value activation(OpBuilder &b, Location loc, ActivationKind kind, Value x,
                 double alpha, double beta) {
  return inF32(b, loc, x, [&](OpBuilder &b, Location loc, Value x) -> Value {
    auto c = [&](double v) { return cst(b, loc, x, v); };
    switch (kind) {
    case ActivationKind::Relu:
      return arith::MaximumFOp::create(b, loc, x, c(0));
    case ActivationKind::LeakyRelu:
      return arith::SelectOp::create(b, loc, lessThanZero(b, loc, x),
                                     mul(b, loc, x, c(alpha)), x);
    case ActivationKind::Sigmoid:
      return sigmoid(b, loc, x);
    case ActivationKind::Tanh:
      return math::TanhOp::create(b, loc, x);
    case ActivationKind::Elu:
    case ActivationKind::Selu: {
      Value em1 = math::ExpM1Op::create(b, loc, x);
      Value r = arith::SelectOp::create(b, loc, lessThanZero(b, loc, x),
                                        mul(b, loc, em1, c(alpha)), x);
      return kind == ActivationKind::Selu ? mul(b, loc, r, c(beta)) : r;
    }
    case ActivationKind::Softplus: {
      // max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|.
      Value absx = math::AbsFOp::create(b, loc, x);
      Value tail = math::Log1pOp::create(
          b, loc, exp(b, loc, arith::NegFOp::create(b, loc, absx)));
      return add(b, loc, arith::MaximumFOp::create(b, loc, x, c(0)), tail);
    }
    case ActivationKind::Softsign:
      return div(b, loc, x, add(b, loc, c(1), math::AbsFOp::create(b, loc, x)));
    case ActivationKind::Clip:
      return arith::MinimumFOp::create(
          b, loc, arith::MaximumFOp::create(b, loc, x, c(alpha)), c(beta));
    case ActivationKind::HardSigmoid: {
      Value v = add(b, loc, mul(b, loc, x, c(alpha)), c(beta));
      return arith::MaximumFOp::create(
          b, loc, c(0), arith::MinimumFOp::create(b, loc, c(1), v));
    }
    case ActivationKind::GeluErf: {
      Value e = math::ErfOp::create(b, loc, mul(b, loc, x, c(M_SQRT1_2)));
      return mul(b, loc, mul(b, loc, x, c(0.5)), add(b, loc, c(1), e));
    }
    case ActivationKind::GeluTanh: {
      Value x3 = mul(b, loc, mul(b, loc, x, x), x);
      Value inner = mul(b, loc, c(std::sqrt(2.0 / M_PI)),
                        add(b, loc, x, mul(b, loc, x3, c(0.044715))));
      Value t = math::TanhOp::create(b, loc, inner);
      return mul(b, loc, mul(b, loc, x, c(0.5)), add(b, loc, c(1), t));
    }
    case ActivationKind::ScaledTanh:
      return mul(b, loc, c(alpha),
                 math::TanhOp::create(b, loc, mul(b, loc, x, c(beta))));
    case ActivationKind::ThresholdedRelu: {
      Value above =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(alpha));
      return arith::SelectOp::create(b, loc, above, x, c(0));
    }
    case ActivationKind::HardSwish: {
      Value v = add(b, loc, mul(b, loc, x, c(1.0 / 6)), c(0.5));
      Value h = arith::MaximumFOp::create(
          b, loc, c(0), arith::MinimumFOp::create(b, loc, c(1), v));
      return mul(b, loc, x, h);
    }
    }
    llvm_unreachable("unknown activation");
  });
}

struct LowerActivation : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    double alpha = op.getAlpha() ? op.getAlpha()->convertToDouble() : 0;
    double beta = op.getBeta() ? op.getBeta()->convertToDouble() : 0;
    ActivationKind kind = op.getKind();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return activation(b, loc, kind, args[0], alpha, beta);
                        }));
    return success();
  }
};

Value sign(OpBuilder &b, Location loc, Value x, bool isUnsigned) {
  Value zero = cst(b, loc, x, 0), one = cst(b, loc, x, 1),
        minus = cst(b, loc, x, -1);
  Value pos, neg;
  if (isUnsigned) {
    pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
    return arith::SelectOp::create(b, loc, pos, one, zero);
  }
  if (isa<FloatType>(x.getType())) {
    pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
    neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  }
  return arith::SelectOp::create(
      b, loc, pos, one, arith::SelectOp::create(b, loc, neg, minus, zero));
}

Value unary(OpBuilder &b, Location loc, UnaryKind kind, Value x,
            bool isUnsigned) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case UnaryKind::Abs:
    if (isUnsigned)
      return x;
    return isFloat ? Value(math::AbsFOp::create(b, loc, x))
                   : Value(math::AbsIOp::create(b, loc, x));
  case UnaryKind::Neg:
    return isFloat ? Value(arith::NegFOp::create(b, loc, x))
                   : sub(b, loc, cst(b, loc, x, 0), x);
  case UnaryKind::Sign:
    return sign(b, loc, x, isUnsigned);
  case UnaryKind::Not: // all ones: true for i1
    return arith::XOrIOp::create(
        b, loc, x, cst(b, loc, x, x.getType().isInteger(1) ? 1 : -1));
  default:
    break;
  }
  return inF32(b, loc, x, [&](OpBuilder &b, Location loc, Value x) -> Value {
    switch (kind) {
    case UnaryKind::Exp:
      return math::ExpOp::create(b, loc, x);
    case UnaryKind::Log:
      return math::LogOp::create(b, loc, x);
    case UnaryKind::Sqrt:
      return math::SqrtOp::create(b, loc, x);
    case UnaryKind::Recip:
      return div(b, loc, cst(b, loc, x, 1), x);
    case UnaryKind::Sin:
      return math::SinOp::create(b, loc, x);
    case UnaryKind::Cos:
      return math::CosOp::create(b, loc, x);
    case UnaryKind::Tan:
      return math::TanOp::create(b, loc, x);
    case UnaryKind::Sinh:
      return math::SinhOp::create(b, loc, x);
    case UnaryKind::Cosh:
      return math::CoshOp::create(b, loc, x);
    case UnaryKind::Asin:
      return math::AsinOp::create(b, loc, x);
    case UnaryKind::Acos:
      return math::AcosOp::create(b, loc, x);
    case UnaryKind::Atan:
      return math::AtanOp::create(b, loc, x);
    case UnaryKind::Asinh:
      return math::AsinhOp::create(b, loc, x);
    case UnaryKind::Acosh:
      return math::AcoshOp::create(b, loc, x);
    case UnaryKind::Atanh:
      return math::AtanhOp::create(b, loc, x);
    case UnaryKind::Ceil:
      return math::CeilOp::create(b, loc, x);
    case UnaryKind::Floor:
      return math::FloorOp::create(b, loc, x);
    case UnaryKind::Round:
      return math::RoundEvenOp::create(b, loc, x);
    case UnaryKind::Erf:
      return math::ErfOp::create(b, loc, x);
    default:
      llvm_unreachable("handled above");
    }
  });
}

struct LowerUnary : OpRewritePattern<UnaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnaryOp op,
                                PatternRewriter &rewriter) const override {
    UnaryKind kind = op.getKind();
    bool isUnsigned = hasUnsignedOperands(op);
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return unary(b, loc, kind, args[0], isUnsigned);
                        }));
    return success();
  }
};

Value compare(OpBuilder &b, Location loc, BinaryKind kind, Value x, Value y,
              bool isUnsigned) {
  if (isa<FloatType>(x.getType())) {
    arith::CmpFPredicate p =
        kind == BinaryKind::Equal       ? arith::CmpFPredicate::OEQ
        : kind == BinaryKind::Less      ? arith::CmpFPredicate::OLT
        : kind == BinaryKind::LessEqual ? arith::CmpFPredicate::OLE
        : kind == BinaryKind::Greater   ? arith::CmpFPredicate::OGT
                                        : arith::CmpFPredicate::OGE;
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  using P = arith::CmpIPredicate;
  P p = kind == BinaryKind::Equal       ? P::eq
        : kind == BinaryKind::Less      ? (isUnsigned ? P::ult : P::slt)
        : kind == BinaryKind::LessEqual ? (isUnsigned ? P::ule : P::sle)
        : kind == BinaryKind::Greater   ? (isUnsigned ? P::ugt : P::sgt)
                                        : (isUnsigned ? P::uge : P::sge);
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value binary(OpBuilder &b, Location loc, BinaryKind kind, Value x, Value y,
             bool isUnsigned) {
  switch (kind) {
  case BinaryKind::Add:
    return add(b, loc, x, y);
  case BinaryKind::Sub:
    return sub(b, loc, x, y);
  case BinaryKind::Mul:
    return mul(b, loc, x, y);
  case BinaryKind::Div:
    return div(b, loc, x, y, isUnsigned);
  case BinaryKind::Max:
    return max(b, loc, x, y, isUnsigned);
  case BinaryKind::Min:
    return min(b, loc, x, y, isUnsigned);
  case BinaryKind::Pow:
    if (!isa<FloatType>(x.getType()))
      return math::IPowIOp::create(b, loc, x, y);
    return inF32(b, loc, x, [&](OpBuilder &b, Location loc, Value xf) -> Value {
      Value yf = convert(b, loc, y, xf.getType());
      return math::PowFOp::create(b, loc, xf, yf);
    });
  case BinaryKind::FMod:
    if (isUnsigned)
      return arith::RemUIOp::create(b, loc, x, y);
    return isa<FloatType>(x.getType())
               ? Value(arith::RemFOp::create(b, loc, x, y))
               : Value(arith::RemSIOp::create(b, loc, x, y));
  case BinaryKind::Mod: {
    if (isUnsigned) // no signs to fix
      return arith::RemUIOp::create(b, loc, x, y);
    if (isa<FloatType>(x.getType()))
      return flooredRemF(b, loc, x, y);
    // Floored: the result takes the divisor's sign.
    Value r = arith::RemSIOp::create(b, loc, x, y);
    Value zero = cst(b, loc, x, 0);
    Value nonZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    Value rNeg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    Value yNeg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
    Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
    Value fix = arith::AndIOp::create(b, loc, nonZero, differ);
    return arith::SelectOp::create(b, loc, fix, add(b, loc, r, y), r);
  }
  case BinaryKind::And:
    return arith::AndIOp::create(b, loc, x, y);
  case BinaryKind::Or:
    return arith::OrIOp::create(b, loc, x, y);
  case BinaryKind::Xor:
    return arith::XOrIOp::create(b, loc, x, y);
  case BinaryKind::ShiftLeft:
  case BinaryKind::ShiftRight: {
    // Shifting by the width or more gives 0 (LLVM leaves it undefined).
    Value shifted = kind == BinaryKind::ShiftLeft
                        ? Value(arith::ShLIOp::create(b, loc, x, y))
                    : isUnsigned ? Value(arith::ShRUIOp::create(b, loc, x, y))
                                 : Value(arith::ShRSIOp::create(b, loc, x, y));
    // A signed right shift out of range fills with the sign bit.
    unsigned width = x.getType().getIntOrFloatBitWidth();
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, y,
                                          cst(b, loc, y, width));
    Value outOfRange = kind == BinaryKind::ShiftRight && !isUnsigned
                           ? Value(arith::ShRSIOp::create(
                                 b, loc, x, cst(b, loc, x, width - 1)))
                           : cst(b, loc, x, 0);
    return arith::SelectOp::create(b, loc, inRange, shifted, outOfRange);
  }
  default:
    return compare(b, loc, kind, x, y, isUnsigned);
  }
}

struct LowerBinary : OpRewritePattern<BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rewriter) const override {
    BinaryKind kind = op.getKind();
    bool isUnsigned = hasUnsignedOperands(op);
    rewriter.replaceOp(
        op, elementwise(
                rewriter, op.getLoc(), op.getType(), {op.getLhs(), op.getRhs()},
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  return binary(b, loc, kind, args[0], args[1], isUnsigned);
                }));
    return success();
  }
};

struct LowerSelect : OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    // A splat condition (Expand's, a concat's copies as one broadcast): the
    // chosen input broadcast, with no condition to store and read.
    DenseElementsAttr condition;
    if (matchPattern(op.getCondition(), m_Constant(&condition)) &&
        condition.isSplat()) {
      Value chosen =
          condition.getSplatValue<bool>() ? op.getOnTrue() : op.getOnFalse();
      rewriter.replaceOp(
          op, elementwise(rewriter, op.getLoc(), op.getType(), {chosen},
                          [](OpBuilder &, Location, ValueRange args) {
                            return args[0];
                          }));
      return success();
    }
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        {op.getCondition(), op.getOnTrue(), op.getOnFalse()},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return arith::SelectOp::create(b, loc, args[0],
                                                         args[1], args[2]);
                        }));
    return success();
  }
};

struct LowerCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Type to = op.getType().getElementType();
    bool fromUnsigned = hasUnsignedOperands(op),
         toUnsigned = hasUnsignedResults(op);
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return convert(b, loc, args[0], to, fromUnsigned,
                                         toUnsigned, op.getSaturate());
                        }));
    return success();
  }
};

/// (x * scale + shift) ^ power, the weights reshaped to broadcast: channel
/// weights to C x 1 x ... x 1, elementwise weights to the trailing dims.
struct LowerScale : OpRewritePattern<ScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = static_cast<int64_t>(op.getChannelAxis());
    SmallVector<int64_t> shape;
    if (op.getMode() == ScaleMode::Uniform) {
      shape = {1};
    } else if (op.getMode() == ScaleMode::Channel) {
      shape.assign(type.getRank() - axis, 1);
      shape[0] = type.getDimSize(axis);
    } else {
      shape.assign(type.getShape().begin() + axis, type.getShape().end());
    }
    auto weightType = RankedTensorType::get(shape, type.getElementType());
    SmallVector<Value> inputs = {op.getInput()};
    Value parts[3] = {op.getScale(), op.getShift(), op.getPower()};
    for (Value w : parts)
      if (w)
        inputs.push_back(reshape(rewriter, loc, w, weightType));
    bool hasScale = bool(parts[0]), hasShift = bool(parts[1]),
         hasPower = bool(parts[2]);
    rewriter.replaceOp(
        op, elementwise(
                rewriter, loc, type, inputs,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value v = args[0];
                  unsigned next = 1;
                  if (hasScale)
                    v = mul(b, l, v, args[next++]);
                  if (hasShift)
                    v = add(b, l, v, args[next++]);
                  if (hasPower) {
                    Value p = args[next++];
                    v = inF32(b, l, v,
                              [&](OpBuilder &b, Location l, Value vf) -> Value {
                                return math::PowFOp::create(
                                    b, l, vf, convert(b, l, p, vf.getType()));
                              });
                  }
                  return v;
                }));
    return success();
  }
};

} // namespace

void mlir::kiln::lowering::populateElementwisePatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerActivation, LowerUnary, LowerBinary, LowerSelect, LowerCast,
               LowerScale>(patterns.getContext());
}
