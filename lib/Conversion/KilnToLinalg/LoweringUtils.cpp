//===- LoweringUtils.cpp - helpers for lowering kiln to linalg --*- C++ -*-===//
//
// Implements the builders shared by the kiln-to-linalg patterns.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::kiln::lowering;

Value mlir::kiln::lowering::emptyTensor(OpBuilder &b, Location loc,
                                        RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value mlir::kiln::lowering::scalar(OpBuilder &b, Location loc, Type type,
                                   double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, FloatAttr::get(f, value));
  if (type.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(value != 0));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(type, static_cast<int64_t>(value)));
}

Value mlir::kiln::lowering::lowest(OpBuilder &b, Location loc, Type type,
                                   bool isUnsigned) {
  if (isa<FloatType>(type))
    return scalar(b, loc, type, -std::numeric_limits<double>::infinity());
  auto width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      IntegerAttr::get(type, isUnsigned ? APInt::getZero(width)
                                        : APInt::getSignedMinValue(width)));
}

Value mlir::kiln::lowering::highest(OpBuilder &b, Location loc, Type type,
                                    bool isUnsigned) {
  if (isa<FloatType>(type))
    return scalar(b, loc, type, std::numeric_limits<double>::infinity());
  auto width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      IntegerAttr::get(type, isUnsigned ? APInt::getMaxValue(width)
                                        : APInt::getSignedMaxValue(width)));
}

bool mlir::kiln::lowering::hasUnsignedOperands(Operation *op) {
  return op->hasAttr(KilnDialect::getUnsignedOperandsAttrName());
}

bool mlir::kiln::lowering::hasUnsignedResults(Operation *op) {
  return op->hasAttr(KilnDialect::getUnsignedResultsAttrName());
}

Value mlir::kiln::lowering::filledTensor(OpBuilder &b, Location loc,
                                         RankedTensorType type, double value) {
  Value fill = scalar(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, fill, emptyTensor(b, loc, type))
      .getResult(0);
}

Value mlir::kiln::lowering::generic(OpBuilder &b, Location loc, Value init,
                                    ValueRange inputs,
                                    ArrayRef<AffineMap> inputMaps,
                                    AffineMap outputMap,
                                    ArrayRef<utils::IteratorType> iterators,
                                    ScalarFn fn) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outputMap);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, /*doc=*/"", /*libraryCall=*/"",
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, fn(nb, nloc, args));
      });
  return op.getResult(0);
}

Value mlir::kiln::lowering::elementwise(OpBuilder &b, Location loc,
                                        RankedTensorType resultType,
                                        ValueRange inputs, ScalarFn fn) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      bool stretched =
          type.getDimSize(i) == 1 && resultType.getDimSize(offset + i) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + i, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return generic(b, loc, emptyTensor(b, loc, resultType), inputs, maps,
                 b.getMultiDimIdentityMap(rank), iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange args) {
                   return fn(nb, nloc, args.drop_back());
                 });
}

/// The reassociation that groups all `rank` dimensions into one.
static SmallVector<ReassociationIndices> allInOne(int64_t rank) {
  ReassociationIndices group;
  for (int64_t i = 0; i < rank; ++i)
    group.push_back(i);
  return {group};
}

RankedTensorType mlir::kiln::lowering::accumulatorType(RankedTensorType type) {
  Type element = type.getElementType();
  return isa<Float16Type, BFloat16Type>(element)
             ? type.clone(Float32Type::get(type.getContext()))
             : type;
}

Value mlir::kiln::lowering::multiplyAccumulate(OpBuilder &b, Location loc,
                                               Value acc, Value x, Value y) {
  Type wide = acc.getType();
  auto extend = [&](Value v) -> Value {
    return v.getType() == wide ? v : arith::ExtFOp::create(b, loc, wide, v);
  };
  return add(b, loc, acc, mul(b, loc, extend(x), extend(y)));
}

Value mlir::kiln::lowering::finishAccumulation(OpBuilder &b, Location loc,
                                               Value acc,
                                               RankedTensorType type) {
  if (acc.getType() == type)
    return acc;
  return elementwise(
      b, loc, type, {acc}, [&](OpBuilder &b, Location loc, ValueRange args) {
        return arith::TruncFOp::create(b, loc, type.getElementType(), args[0]);
      });
}

Value mlir::kiln::lowering::reshape(OpBuilder &b, Location loc, Value value,
                                    RankedTensorType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == type)
    return value;
  Type element = source.getElementType();
  // One element: collapse to, or expand from, rank 0 (no groups).
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           ArrayRef<ReassociationIndices>{});
  if (source.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         ArrayRef<ReassociationIndices>{});
  // Otherwise through one dimension: collapse all, expand all.
  Value flat = value;
  if (source.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({source.getNumElements()}, element),
        value, allInOne(source.getRank()));
  if (type.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       allInOne(type.getRank()));
}

Value mlir::kiln::lowering::padOrCrop(OpBuilder &b, Location loc, Value value,
                                      ArrayRef<int64_t> low,
                                      ArrayRef<int64_t> high, double fill) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  // Crop first (negative amounts), then pad (positive amounts).
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  bool crop = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (low[i] < 0) {
      offsets[i] = -low[i];
      sizes[i] += low[i];
      crop = true;
    }
    if (high[i] < 0) {
      sizes[i] += high[i];
      crop = true;
    }
  }
  if (crop) {
    auto cropped = RankedTensorType::get(sizes, type.getElementType());
    value = tensor::ExtractSliceOp::create(b, loc, cropped, value, ValueRange{},
                                           ValueRange{}, ValueRange{}, offsets,
                                           sizes, strides);
  }
  SmallVector<int64_t> lo, hi, padded(sizes);
  bool pad = false;
  for (int64_t i = 0; i < rank; ++i) {
    lo.push_back(std::max<int64_t>(low[i], 0));
    hi.push_back(std::max<int64_t>(high[i], 0));
    padded[i] += lo.back() + hi.back();
    pad |= lo.back() || hi.back();
  }
  if (!pad)
    return value;
  auto paddedType = RankedTensorType::get(padded, type.getElementType());
  Value fillValue = scalar(b, loc, type.getElementType(), fill);
  SmallVector<OpFoldResult> loF, hiF;
  for (int64_t i = 0; i < rank; ++i) {
    loF.push_back(b.getIndexAttr(lo[i]));
    hiF.push_back(b.getIndexAttr(hi[i]));
  }
  return tensor::PadOp::create(b, loc, paddedType, value, loF, hiF, fillValue);
}

Value mlir::kiln::lowering::reduce(OpBuilder &b, Location loc, Value input,
                                   ArrayRef<int64_t> axes, Value init,
                                   ScalarFn combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(axes, i);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      shape.push_back(type.getDimSize(i));
      outExprs.push_back(getAffineDimExpr(i, ctx));
    }
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value acc =
      linalg::FillOp::create(b, loc, init, emptyTensor(b, loc, resultType))
          .getResult(0);
  return generic(b, loc, acc, input, b.getMultiDimIdentityMap(rank),
                 AffineMap::get(rank, 0, outExprs, ctx), iterators, combine);
}

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value mlir::kiln::lowering::add(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x) ? Value(arith::AddFOp::create(b, loc, x, y))
                    : Value(arith::AddIOp::create(b, loc, x, y));
}
Value mlir::kiln::lowering::sub(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x) ? Value(arith::SubFOp::create(b, loc, x, y))
                    : Value(arith::SubIOp::create(b, loc, x, y));
}
Value mlir::kiln::lowering::mul(OpBuilder &b, Location loc, Value x, Value y) {
  return isFloat(x) ? Value(arith::MulFOp::create(b, loc, x, y))
                    : Value(arith::MulIOp::create(b, loc, x, y));
}
Value mlir::kiln::lowering::div(OpBuilder &b, Location loc, Value x, Value y,
                                bool isUnsigned) {
  if (isFloat(x))
    return arith::DivFOp::create(b, loc, x, y);
  return isUnsigned ? Value(arith::DivUIOp::create(b, loc, x, y))
                    : Value(arith::DivSIOp::create(b, loc, x, y));
}
Value mlir::kiln::lowering::max(OpBuilder &b, Location loc, Value x, Value y,
                                bool isUnsigned) {
  if (isFloat(x))
    return arith::MaximumFOp::create(b, loc, x, y);
  return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x, y))
                    : Value(arith::MaxSIOp::create(b, loc, x, y));
}
Value mlir::kiln::lowering::min(OpBuilder &b, Location loc, Value x, Value y,
                                bool isUnsigned) {
  if (isFloat(x))
    return arith::MinimumFOp::create(b, loc, x, y);
  return isUnsigned ? Value(arith::MinUIOp::create(b, loc, x, y))
                    : Value(arith::MinSIOp::create(b, loc, x, y));
}

Value mlir::kiln::lowering::convert(OpBuilder &b, Location loc, Value x,
                                    Type to, bool fromUnsigned, bool toUnsigned,
                                    bool saturate) {
  Type from = x.getType();
  if (from == to)
    return x;
  // The small floats go through f32 (f64 is rounded twice).
  if (isSmallFloat(from))
    return convert(b, loc, extendSmallFloat(b, loc, x), to, false, toUnsigned,
                   saturate);
  if (isSmallFloat(to))
    return truncateToSmallFloat(
        b, loc, convert(b, loc, x, b.getF32Type(), fromUnsigned), to, saturate);
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (fromF && toF && fromF.getWidth() == toF.getWidth()) {
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, x))
               : Value(arith::TruncFOp::create(b, loc, to, x));
  if (fromF) {
    if (to.isInteger(1))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   scalar(b, loc, from, 0));
    unsigned width = to.getIntOrFloatBitWidth();
    if (width < 8) {
      // Sub-byte integers: truncated toward zero, and 0 out of range (as
      // onnx's reference implementation, ml_dtypes, does).
      double lo = toUnsigned ? 0 : -std::ldexp(1.0, width - 1);
      double hi = toUnsigned ? std::ldexp(1.0, width) - 1
                             : std::ldexp(1.0, width - 1) - 1;
      // One statement per op: the IR's order must not depend on the order
      // in which a compiler evaluates arguments (gcc and clang differ).
      Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                          scalar(b, loc, from, hi + 1));
      Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                          scalar(b, loc, from, lo - 1));
      Value inRange = arith::AndIOp::create(b, loc, above, below);
      Value safe =
          arith::SelectOp::create(b, loc, inRange, x, scalar(b, loc, from, 0));
      Value whole = arith::FPToSIOp::create(b, loc, b.getI32Type(), safe);
      return arith::TruncIOp::create(b, loc, to, whole);
    }
    return toUnsigned ? Value(arith::FPToUIOp::create(b, loc, to, x))
                      : Value(arith::FPToSIOp::create(b, loc, to, x));
  }
  if (toF)
    return from.isInteger(1) || fromUnsigned
               ? Value(arith::UIToFPOp::create(b, loc, to, x))
               : Value(arith::SIToFPOp::create(b, loc, to, x));
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 scalar(b, loc, from, 0));
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
    return x; // i8 <-> ui8 and the like: the same bits
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, loc, to, x);
  return fromUnsigned ? Value(arith::ExtUIOp::create(b, loc, to, x))
                      : Value(arith::ExtSIOp::create(b, loc, to, x));
}
