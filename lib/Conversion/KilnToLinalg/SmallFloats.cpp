//===- SmallFloats.cpp - 8-bit and 4-bit float conversions ------*- C++ -*-===//
//
// Converts scalars between f32 and the floats of at most 8 bits (f8E4M3FN,
// f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f4E2M1FN) with integer arithmetic on their
// bits. Neither the CPU nor the NVPTX lowering of arith.extf/truncf handles
// these types, so kiln.cast's lowering emits these instead; the results are
// those of onnx's reference implementation (ml_dtypes): round to nearest
// even, and what overflow and NaN become follows each format's rules.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln::lowering;

namespace {
/// What a small float's codes mean: its field widths, its exponent bias, and
/// which codes are infinities and NaNs.
struct Format {
  enum class Special {
    IEEE, ///< all-ones exponent: infinity (mantissa 0) or NaN
    FN,   ///< no infinity; only the all-ones magnitude is NaN
    FNUZ, ///< no infinity, no -0: the code of -0 is the one NaN
    None  ///< neither infinity nor NaN (f4E2M1FN)
  };
  unsigned exponentBits, mantissaBits;
  int bias;
  Special special;

  /// Bits below the sign bit.
  unsigned magnitudeBits() const { return exponentBits + mantissaBits; }
  uint32_t allOnesExponent() const { return (1u << exponentBits) - 1; }
  /// The code of the largest finite magnitude.
  uint32_t maxCode() const {
    uint32_t mantissa = (1u << mantissaBits) - 1;
    switch (special) {
    case Special::IEEE:
      return ((allOnesExponent() - 1) << mantissaBits) | mantissa;
    case Special::FN:
      return (allOnesExponent() << mantissaBits) | (mantissa - 1);
    default:
      return (allOnesExponent() << mantissaBits) | mantissa;
    }
  }
};

Format formatOf(Type type) {
  using S = Format::Special;
  if (isa<Float8E4M3FNType>(type))
    return {4, 3, 7, S::FN};
  if (isa<Float8E4M3FNUZType>(type))
    return {4, 3, 8, S::FNUZ};
  if (isa<Float8E5M2Type>(type))
    return {5, 2, 15, S::IEEE};
  if (isa<Float8E5M2FNUZType>(type))
    return {5, 2, 16, S::FNUZ};
  assert(isa<Float4E2M1FNType>(type) && "not a small float kiln converts");
  return {2, 1, 1, S::None};
}

/// Builds i32 and f32 arithmetic at one place.
struct Bits {
  OpBuilder &b;
  Location loc;

  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
  }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, int64_t n) {
    return arith::ShLIOp::create(b, loc, x, i32(n));
  }
  Value shr(Value x, int64_t n) {
    return arith::ShRUIOp::create(b, loc, x, i32(n));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value toBits(Value f) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), f);
  }
  Value toFloat(Value i) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), i);
  }
};
} // namespace

bool mlir::kiln::lowering::isSmallFloat(Type type) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType, Float4E2M1FNType>(type);
}

Value mlir::kiln::lowering::truncateToSmallFloat(OpBuilder &b, Location loc,
                                                 Value x, Type to,
                                                 bool saturate) {
  using S = Format::Special;
  using P = arith::CmpIPredicate;
  Format f = formatOf(to);
  Bits k{b, loc};
  if (saturate && f.special != S::None) {
    // Clamp to the largest finite value; NaN stays NaN.
    double largest =
        llvm::APFloat::getLargest(cast<FloatType>(to).getFloatSemantics())
            .convertToDouble();
    x = arith::MaximumFOp::create(b, loc, x, k.f32(-largest));
    x = arith::MinimumFOp::create(b, loc, x, k.f32(largest));
  }
  unsigned m = f.mantissaBits, w = f.magnitudeBits(), shift = 23 - m;
  Value bits = k.toBits(x);
  Value sign = k.shr(bits, 31);
  Value magnitude = k.band(bits, k.i32(0x7fffffff));
  Value signBit = k.shl(sign, w);
  // Normal results: round the f32 mantissa to m bits (ties to even) and
  // rebias the exponent.
  Value roundUp = k.add(k.i32((1 << (shift - 1)) - 1),
                        k.band(k.shr(magnitude, shift), k.i32(1)));
  Value normal = k.sub(k.shr(k.add(magnitude, roundUp), shift),
                       k.i32(int64_t(127 - f.bias) << m));
  // Subnormal results: |x| scaled so that one unit is the smallest
  // subnormal, rounded to an integer by adding 2^23 in f32 (ties to even).
  // A result that rounds up to 2^m is the smallest normal's code.
  Value scaled = arith::MulFOp::create(b, loc, k.toFloat(magnitude),
                                       k.f32(std::ldexp(1.0, m - 1 + f.bias)));
  Value rounded = arith::AddFOp::create(b, loc, scaled, k.f32(8388608.0));
  Value subnormal = k.sub(k.toBits(rounded), k.i32(0x4b000000));
  Value isNormal =
      k.cmp(P::uge, magnitude, k.i32(int64_t(127 + 1 - f.bias) << 23));
  Value code = k.select(isNormal, normal, subnormal);
  // Past the largest finite code (infinity included): infinity, NaN, or
  // the largest value for a format without either.
  Value overflow = k.cmp(P::ugt, code, k.i32(f.maxCode()));
  Value overflowCode, nanCode;
  switch (f.special) {
  case S::IEEE:
    overflowCode = k.bor(signBit, k.i32(f.allOnesExponent() << m));
    nanCode = k.bor(overflowCode, k.i32(1 << (m - 1)));
    break;
  case S::FN:
    overflowCode = nanCode = k.bor(signBit, k.i32((1 << w) - 1));
    break;
  case S::FNUZ:
    overflowCode = nanCode = k.i32(1 << w);
    break;
  case S::None:
    overflowCode = k.bor(signBit, k.i32(f.maxCode()));
    // ml_dtypes turns NaN into a zero of the opposite sign.
    nanCode = k.shl(k.sub(k.i32(1), sign), w);
    break;
  }
  Value result = k.select(overflow, overflowCode, k.bor(signBit, code));
  if (f.special == S::FNUZ) // no -0: its code is NaN
    result = k.select(k.cmp(P::eq, code, k.i32(0)), k.i32(0), result);
  Value isNaN = k.cmp(P::ugt, magnitude, k.i32(0x7f800000));
  result = k.select(isNaN, nanCode, result);
  Value narrow =
      arith::TruncIOp::create(b, loc, b.getIntegerType(w + 1), result);
  return arith::BitcastOp::create(b, loc, to, narrow);
}

Value mlir::kiln::lowering::extendSmallFloat(OpBuilder &b, Location loc,
                                             Value x) {
  using S = Format::Special;
  using P = arith::CmpIPredicate;
  Format f = formatOf(x.getType());
  Bits k{b, loc};
  unsigned m = f.mantissaBits, w = f.magnitudeBits();
  Value narrow = arith::BitcastOp::create(b, loc, b.getIntegerType(w + 1), x);
  Value code = arith::ExtUIOp::create(b, loc, b.getI32Type(), narrow);
  Value sign = k.shl(k.shr(code, w), 31);
  Value exponent = k.band(k.shr(code, m), k.i32(f.allOnesExponent()));
  Value mantissa = k.band(code, k.i32((1 << m) - 1));
  // Normal codes: rebias the exponent, widen the mantissa.
  Value normal =
      k.bor(sign, k.bor(k.shl(k.add(exponent, k.i32(127 - f.bias)), 23),
                        k.shl(mantissa, 23 - m)));
  // Subnormal codes: mantissa * 2^(1 - bias - m), exact in f32.
  Value magnitude = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
      k.f32(std::ldexp(1.0, 1 - f.bias - int(m))));
  Value subnormal = k.bor(sign, k.toBits(magnitude));
  Value result = k.select(k.cmp(P::ne, exponent, k.i32(0)), normal, subnormal);
  Value nan = k.bor(sign, k.i32(0x7fc00000));
  switch (f.special) {
  case S::IEEE: {
    Value special = k.cmp(P::eq, exponent, k.i32(f.allOnesExponent()));
    Value inf = k.bor(sign, k.i32(0x7f800000));
    Value value = k.select(k.cmp(P::ne, mantissa, k.i32(0)), nan, inf);
    result = k.select(special, value, result);
    break;
  }
  case S::FN:
    result = k.select(
        k.cmp(P::eq, k.band(code, k.i32((1 << w) - 1)), k.i32((1 << w) - 1)),
        nan, result);
    break;
  case S::FNUZ:
    result =
        k.select(k.cmp(P::eq, code, k.i32(1 << w)), k.i32(0x7fc00000), result);
    break;
  case S::None:
    break;
  }
  return k.toFloat(result);
}
