//===- SymbolicShapes.cpp - dimensions as expressions of symbols -*- C++
//-*-===//
//
// See SymbolicShapes.h.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::kiln;

SmallVector<std::pair<unsigned, unsigned>>
mlir::kiln::dynamicArgumentDims(Block &body) {
  SmallVector<std::pair<unsigned, unsigned>> dims;
  for (BlockArgument arg : body.getArguments())
    if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dims.push_back({arg.getArgNumber(), static_cast<unsigned>(d)});
  return dims;
}

/// The value of `expr`; fails, setting `why`, where it has none.
static FailureOr<int64_t> evaluate(AffineExpr expr, ArrayRef<int64_t> symbols,
                                   std::string &why) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue();
  if (auto s = dyn_cast<AffineSymbolExpr>(expr)) {
    if (s.getPosition() >= symbols.size()) {
      why = "symbol s" + std::to_string(s.getPosition()) + " has no value (" +
            std::to_string(symbols.size()) + " dynamic dimensions)";
      return failure();
    }
    return symbols[s.getPosition()];
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin) {
    why = "a dimension expression has dimension inputs";
    return failure();
  }
  FailureOr<int64_t> l = evaluate(bin.getLHS(), symbols, why);
  if (failed(l))
    return failure();
  FailureOr<int64_t> r = evaluate(bin.getRHS(), symbols, why);
  if (failed(r))
    return failure();
  int64_t out;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    if (__builtin_add_overflow(*l, *r, &out))
      break;
    return out;
  case AffineExprKind::Mul:
    if (__builtin_mul_overflow(*l, *r, &out))
      break;
    return out;
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
  case AffineExprKind::Mod: {
    if (*r == 0) {
      why = "a dimension expression divides by zero";
      return failure();
    }
    if (*l == INT64_MIN && *r == -1)
      break;
    int64_t q = *l / *r, m = *l % *r;
    bool inexact = m != 0, negative = (*l < 0) != (*r < 0);
    if (expr.getKind() == AffineExprKind::Mod)
      return m != 0 && (m < 0) != (*r < 0) ? m + *r : m;
    if (expr.getKind() == AffineExprKind::FloorDiv)
      return inexact && negative ? q - 1 : q;
    return inexact && !negative ? q + 1 : q;
  }
  default:
    break;
  }
  why = "a dimension expression overflows 64 bits";
  return failure();
}

FailureOr<SmallVector<int64_t>>
mlir::kiln::evaluateShapeMap(AffineMap shape, ArrayRef<int64_t> symbols,
                             std::string &why) {
  SmallVector<int64_t> dims;
  for (AffineExpr expr : shape.getResults()) {
    FailureOr<int64_t> d = evaluate(expr, symbols, why);
    if (failed(d))
      return failure();
    if (*d < 0) {
      why = "dimension " + std::to_string(dims.size()) + " would be " +
            std::to_string(*d);
      return failure();
    }
    dims.push_back(*d);
  }
  return dims;
}

bool mlir::kiln::isPlainReshape(RankedTensorType in, RankedTensorType out) {
  return out.hasStaticShape() ||
         (!in.hasStaticShape() && out.getNumDynamicDims() == 1);
}

LogicalResult mlir::kiln::verifyShapeMap(Operation *op, AffineMap shape,
                                         RankedTensorType type) {
  if (shape.getNumDims() != 0 ||
      shape.getNumResults() != static_cast<unsigned>(type.getRank()))
    return op->emitOpError()
           << "expects a shape map with no dimension inputs and one result "
              "per dimension of "
           << type << ", got " << AffineMapAttr::get(shape);
  for (auto [i, expr] : llvm::enumerate(shape.getResults())) {
    auto c = dyn_cast<AffineConstantExpr>(expr);
    if (type.isDynamicDim(i) ? c != nullptr
                             : !c || c.getValue() != type.getDimSize(i)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      expr.print(os);
      return op->emitOpError()
             << "expects its shape map to give the static dimensions of "
             << type << " as constants and only those, but result " << i
             << " is " << text;
    }
  }
  return success();
}
