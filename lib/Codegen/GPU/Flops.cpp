//===- Flops.cpp - arithmetic a kernel does ---------------------*- C++ -*-===//
//
// See Flops.h.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Flops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;

static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// a * b, saturated.
static int64_t times(int64_t a, int64_t b) {
  int64_t r;
  return llvm::MulOverflow(a, b, r) ? kMax : r;
}

/// a + b, saturated.
static int64_t plus(int64_t a, int64_t b) {
  int64_t r;
  return llvm::AddOverflow(a, b, r) ? kMax : r;
}

/// True for an op that does floating-point arithmetic.
static bool isFlop(Operation &op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
      op.getNumResults() != 1 || !isa<FloatType>(op.getResult(0).getType()))
    return false;
  return !isa<arith::ConstantOp, arith::SelectOp, CastOpInterface>(op);
}

/// Flops of one linalg op: its iterations times the flops of its body.
static int64_t countLinalgFlops(linalg::LinalgOp op) {
  int64_t perIteration = 0;
  op->walk([&](Operation *inner) {
    if (inner != op && isFlop(*inner))
      ++perIteration;
  });
  if (perIteration == 0)
    return 0;
  int64_t iterations = 1;
  for (int64_t range : op.getStaticLoopRanges())
    iterations =
        ShapedType::isDynamic(range) ? iterations : times(iterations, range);
  return times(iterations, perIteration);
}

int64_t mlir::kiln::countFlops(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return countLinalgFlops(linalgOp);
  auto loop = dyn_cast<scf::ForallOp>(op);
  if (!loop)
    return 0;
  int64_t inner = 0;
  loop.getBody()->walk(
      [&](linalg::LinalgOp l) { inner = plus(inner, countLinalgFlops(l)); });
  int64_t trips = 1;
  for (int64_t ub : loop.getStaticUpperBound())
    trips = ShapedType::isDynamic(ub) ? trips : times(trips, ub);
  return times(trips, inner);
}
