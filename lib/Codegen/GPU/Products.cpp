//===- Products.cpp - matrix products that a library can compute ---------===//

#include "kiln/Codegen/GPU/Products.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::kiln;

/// Whether `map`'s results are the batch dimensions 0..batch-1 (all of them,
/// `*batched` set) or none (constant 0s or no batch results), followed by
/// dims `row` and `col`.
static bool matchOperandMap(AffineMap map, int64_t batch, unsigned row,
                            unsigned col, bool &batched) {
  unsigned n = map.getNumResults();
  if (n < 2 || n > batch + 2)
    return false;
  auto isDim = [](AffineExpr e, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  };
  if (!isDim(map.getResult(n - 2), row) || !isDim(map.getResult(n - 1), col))
    return false;
  unsigned leading = n - 2;
  bool all = leading == batch, none = true;
  for (unsigned i = 0; i < leading; ++i) {
    AffineExpr e = map.getResult(i);
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!(c && c.getValue() == 0))
      none = false;
    if (!isDim(e, batch - leading + i))
      all = false;
  }
  if (leading == 0)
    all = batch == 0;
  batched = all && batch > 0;
  return all || none;
}

/// `v` without an arith.extf in front.
static Value skipExtension(Value v) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext ? ext.getIn() : v;
}

/// Whether the body is yield(acc + a * b) (in either order), a and b
/// extended to acc's type first when `extended`.
static bool isMultiplyAccumulate(linalg::GenericOp op, bool extended) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3 ||
      body.getOperations().size() != (extended ? 5u : 3u))
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1),
        acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value x = mul.getLhs(), y = mul.getRhs();
  if (extended) {
    if (x.getDefiningOp<arith::ExtFOp>() == nullptr ||
        y.getDefiningOp<arith::ExtFOp>() == nullptr)
      return false;
    x = skipExtension(x);
    y = skipExtension(y);
  }
  return (x == a && y == b) || (x == b && y == a);
}

std::optional<Product> mlir::kiln::matchProduct(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  SmallVector<utils::IteratorType> it = op.getIteratorTypesArray();
  int64_t loops = it.size();
  if (loops < 3 || it.back() != utils::IteratorType::reduction ||
      llvm::count(it, utils::IteratorType::reduction) != 1)
    return std::nullopt;
  Product p;
  p.rank = loops - 1;
  int64_t batch = p.rank - 2;
  unsigned m = batch, n = batch + 1, k = batch + 2;
  auto types = llvm::map_to_vector(op->getOperandTypes(), [](Type t) {
    return cast<ShapedType>(t).getElementType();
  });
  p.element = types[0];
  p.accumulator = types[2];
  bool extended = isa<Float16Type, BFloat16Type>(p.element) &&
                  isa<Float32Type>(p.accumulator);
  if (types[1] != p.element || (p.accumulator != p.element && !extended) ||
      !isa<Float32Type, Float16Type, BFloat16Type>(p.element))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2].getNumResults() != p.rank ||
      maps[2] != AffineMap::getMultiDimIdentityMap(loops, op.getContext())
                     .getMajorSubMap(p.rank))
    return std::nullopt;
  bool plainA = matchOperandMap(maps[0], batch, m, k, p.batchedA);
  p.transA = !plainA && matchOperandMap(maps[0], batch, k, m, p.batchedA);
  bool plainB = matchOperandMap(maps[1], batch, k, n, p.batchedB);
  p.transB = !plainB && matchOperandMap(maps[1], batch, n, k, p.batchedB);
  if ((!plainA && !p.transA) || (!plainB && !p.transB) ||
      !isMultiplyAccumulate(op, extended))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges,
                   [](int64_t r) { return ShapedType::isDynamic(r) || r < 1; }))
    return std::nullopt;
  p.m = ranges[m];
  p.n = ranges[n];
  p.k = ranges[k];
  return p;
}
