//===- WarpRows.cpp - fusion groups run one warp per row --------*- C++ -*-===//
//
// See WarpRows.h. The analysis checks that lane ownership is the same in
// every op of the group (element i of a row is always at loop value i, and
// lane i % 32 computes it), so that each lane's private temporaries hold
// what it reads back; the lowering emits lane-strided loops and, for a
// reduction over the row, a shuffle tree over the warp.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/WarpRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <iterator>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The op that combines a reduction's output with each new value, when it
/// is one a warp can combine: yield(out <op> h), `out` used only there, on a
/// 32-bit float or integer.
Operation *getCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Block *body = op.getBlock();
  BlockArgument out = body->getArgument(body->getNumArguments() - 1);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != body ||
      combine->getNumOperands() != 2 || !out.hasOneUse() ||
      !llvm::is_contained(combine->getOperands(), Value(out)) ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MaxSIOp,
           arith::MinSIOp>(combine))
    return nullptr;
  Type t = out.getType();
  return t.isF32() || t.isInteger(32) ? combine : nullptr;
}

/// The value `combine` leaves unchanged.
Value getIdentity(OpBuilder &b, Location loc, Operation *combine) {
  Type t = combine->getResult(0).getType();
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    llvm::APFloat v = llvm::APFloat::getZero(sem);
    if (isa<arith::MulFOp>(combine))
      v = llvm::APFloat::getOne(sem);
    else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combine))
      v = llvm::APFloat::getInf(sem, /*Negative=*/true);
    else if (isa<arith::MinimumFOp, arith::MinNumFOp>(combine))
      v = llvm::APFloat::getInf(sem, /*Negative=*/false);
    return arith::ConstantFloatOp::create(b, loc, ft, v);
  }
  int64_t v = 0;
  if (isa<arith::MaxSIOp>(combine))
    v = std::numeric_limits<int32_t>::min();
  else if (isa<arith::MinSIOp>(combine))
    v = std::numeric_limits<int32_t>::max();
  return arith::ConstantIntOp::create(b, loc, t, v);
}

/// The loop of `op` with more than one iteration: its position (-1: none),
/// or failure when there are several or a range is not static.
FailureOr<int64_t> getRowLoop(linalg::LinalgOp op) {
  int64_t big = -1;
  for (auto [i, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (ShapedType::isDynamic(range))
      return failure();
    if (range > 1) {
      if (big >= 0)
        return failure();
      big = i;
    }
  }
  return big;
}

/// Whether every operand of `op` puts its elements of more than one along
/// the row loop `big` (so that loop value i is element i), through a
/// projected permutation.
bool ownsRowsAlike(linalg::LinalgOp op, int64_t big) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return false;
    if (!type)
      continue;
    for (auto [dim, size] : llvm::enumerate(type.getShape())) {
      if (size == 1)
        continue;
      auto d = dyn_cast<AffineDimExpr>(map.getResult(dim));
      if (!d || static_cast<int64_t>(d.getPosition()) != big)
        return false;
    }
  }
  return true;
}

} // namespace

std::optional<int64_t> mlir::kiln::getWarpRowLength(scf::ForallOp loop,
                                                    int64_t minRow) {
  int64_t row = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<memref::AllocOp, ViewLikeOpInterface>(op) ||
        op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      // As a linalg.copy: one loop per dimension, identity maps.
      // Its row is its one dimension of more than one element, if any.
      SmallVector<int64_t> longDims;
      llvm::copy_if(cast<MemRefType>(copy.getSource().getType()).getShape(),
                    std::back_inserter(longDims),
                    [](int64_t s) { return s > 1; });
      if (longDims.size() > 1 ||
          (!longDims.empty() && row && longDims[0] != row))
        return std::nullopt;
      if (!longDims.empty())
        row = longDims[0];
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return std::nullopt;
    FailureOr<int64_t> big = getRowLoop(linalgOp);
    if (failed(big) || !ownsRowsAlike(linalgOp, *big))
      return std::nullopt;
    if (*big < 0)
      continue;
    int64_t range = linalgOp.getStaticLoopRanges()[*big];
    if (row && range != row)
      return std::nullopt;
    row = range;
    if (linalgOp.getIteratorTypesArray()[*big] ==
            utils::IteratorType::reduction &&
        !getCombiner(linalgOp))
      return std::nullopt;
  }
  if (row < minRow)
    return std::nullopt;
  return row;
}

void mlir::kiln::compactRowTemporaries(Region &region, int64_t row) {
  SmallVector<memref::AllocaOp> allocas;
  region.walk([&](memref::AllocaOp a) { allocas.push_back(a); });
  for (memref::AllocaOp alloca : allocas) {
    MemRefType type = alloca.getType();
    if (llvm::count(type.getShape(), row) != 1 ||
        !llvm::all_of(alloca->getUses(), [](OpOperand &use) {
          if (auto store = dyn_cast<memref::StoreOp>(use.getOwner()))
            return use.get() == store.getMemRef() &&
                   store.getValueToStore() != use.get();
          return isa<memref::LoadOp>(use.getOwner());
        }))
      continue;
    int64_t dim = llvm::find(type.getShape(), row) - type.getShape().begin();
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = llvm::divideCeil(row, kWarpLanes);
    OpBuilder b(alloca);
    auto compact = memref::AllocaOp::create(
        b, alloca.getLoc(), MemRefType::get(shape, type.getElementType()));
    for (OpOperand &use : llvm::make_early_inc_range(alloca->getUses())) {
      Operation *user = use.getOwner();
      b.setInsertionPoint(user);
      auto indices = isa<memref::LoadOp>(user)
                         ? cast<memref::LoadOp>(user).getIndicesMutable()
                         : cast<memref::StoreOp>(user).getIndicesMutable();
      Value at = indices[dim].get();
      indices[dim].set(arith::DivUIOp::create(
          b, user->getLoc(), at,
          arith::ConstantIndexOp::create(b, user->getLoc(), kWarpLanes)));
      use.set(compact);
    }
    alloca.erase();
  }
}

LogicalResult mlir::kiln::lowerToWarpLoops(RewriterBase &rewriter,
                                           linalg::LinalgOp op, Value lane,
                                           int64_t row) {
  Location loc = op.getLoc();
  FailureOr<int64_t> bigOr = getRowLoop(op);
  if (failed(bigOr))
    return failure();
  int64_t big = *bigOr;
  int64_t numLoops = op.getNumLoops();
  Block *body = op.getBlock();
  bool reduces = big >= 0 && op.getIteratorTypesArray()[big] ==
                                 utils::IteratorType::reduction;
  Operation *combine = reduces ? getCombiner(op) : nullptr;
  if (reduces && !combine)
    return failure();
  OpBuilder &b = rewriter;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);

  // The operand's indices at loop values `ivs`.
  auto indicesOf = [&](OpBuilder &b, OpOperand &operand, ArrayRef<Value> ivs) {
    SmallVector<Value> indices;
    for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults())
      indices.push_back(isa<AffineDimExpr>(e)
                            ? ivs[cast<AffineDimExpr>(e).getPosition()]
                            : zero);
    return indices;
  };
  // The body at loop values `ivs` (the output's current value `acc` for a
  // reduction's partial): the values it yields.
  auto emitBody = [&](OpBuilder &b, ArrayRef<Value> ivs, Value acc) {
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = body->getArgument(operand.getOperandNumber());
      if (acc && op.isDpsInit(&operand)) {
        mapping.map(arg, acc);
        continue;
      }
      if (!isa<MemRefType>(operand.get().getType())) {
        mapping.map(arg, operand.get());
        continue;
      }
      if (op.isDpsInit(&operand) && !op.payloadUsesValueFromOperand(&operand))
        continue;
      mapping.map(arg, memref::LoadOp::create(b, loc, operand.get(),
                                              indicesOf(b, operand, ivs)));
    }
    for (Operation &inner : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      b.clone(inner, mapping);
    }
    return llvm::map_to_vector(
        body->getTerminator()->getOperands(),
        [&](Value v) { return mapping.lookupOrDefault(v); });
  };
  auto store = [&](OpBuilder &b, ArrayRef<Value> values, ArrayRef<Value> ivs) {
    for (auto [operand, value] : llvm::zip(op.getDpsInitsMutable(), values))
      memref::StoreOp::create(b, loc, value, operand.get(),
                              indicesOf(b, operand, ivs));
  };

  SmallVector<Value> ivs(numLoops, zero);
  if (big < 0) {
    // Every lane computes the one element (the same value).
    store(b, emitBody(b, ivs, Value()), ivs);
    rewriter.eraseOp(op);
    return success();
  }
  // Lane l's k-th element is l + 32 k, for k below ceil(R / 32): a loop of
  // constant trip count, which LLVM unrolls (the loads of a row then overlap
  // instead of waiting on each other, and the lane's temporaries, indexed
  // by k, become registers). When 32 does not divide R, the last k is
  // guarded.
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value perLane = cst(llvm::divideCeil(row, kWarpLanes));
  bool ragged = row % kWarpLanes != 0;
  // The element of lane `lane` at k, and the condition that it exists.
  auto element = [&](OpBuilder &b, Value k) {
    Value i = arith::AddIOp::create(
        b, loc, lane,
        arith::MulIOp::create(
            b, loc, k, arith::ConstantIndexOp::create(b, loc, kWarpLanes)));
    Value inRow =
        ragged
            ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                    arith::ConstantIndexOp::create(b, loc, row))
            : Value();
    return std::make_pair(i, inRow);
  };
  if (!reduces) {
    auto loop = scf::ForOp::create(b, loc, zero, perLane, cst(1));
    OpBuilder inner = OpBuilder::atBlockTerminator(loop.getBody());
    auto [i, inRow] = element(inner, loop.getInductionVar());
    if (inRow) {
      auto guard = scf::IfOp::create(inner, loc, inRow, /*withElse=*/false);
      inner.setInsertionPoint(guard.thenBlock()->getTerminator());
    }
    ivs[big] = i;
    store(inner, emitBody(inner, ivs, Value()), ivs);
    rewriter.eraseOp(op);
    return success();
  }
  // Each lane's partial, from the identity; then the warp's, by shuffles;
  // then combined with the output once (every lane holds the same value).
  Value identity = getIdentity(b, loc, combine);
  auto loop =
      scf::ForOp::create(b, loc, zero, perLane, cst(1), ValueRange{identity});
  {
    OpBuilder inner = OpBuilder::atBlockEnd(loop.getBody());
    auto [i, inRow] = element(inner, loop.getInductionVar());
    ivs[big] = i;
    Value acc = loop.getRegionIterArgs()[0];
    if (!inRow) {
      scf::YieldOp::create(inner, loc, emitBody(inner, ivs, acc));
    } else {
      auto guard = scf::IfOp::create(inner, loc, acc.getType(), inRow,
                                     /*withElseRegion=*/true);
      OpBuilder then = OpBuilder::atBlockEnd(guard.thenBlock());
      scf::YieldOp::create(then, loc, emitBody(then, ivs, acc));
      OpBuilder other = OpBuilder::atBlockEnd(guard.elseBlock());
      scf::YieldOp::create(other, loc, acc);
      scf::YieldOp::create(inner, loc, guard.getResults());
    }
  }
  Value partial = loop.getResult(0);
  auto combineWith = [&](Value x, Value y) {
    IRMapping mapping;
    mapping.map(combine->getOperand(0), x);
    mapping.map(combine->getOperand(1), y);
    return b.clone(*combine, mapping)->getResult(0);
  };
  Value width =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kWarpLanes);
  for (int64_t offset = kWarpLanes / 2; offset >= 1; offset /= 2) {
    Value off = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    Value other = gpu::ShuffleOp::create(b, loc, partial, off, width,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    partial = combineWith(partial, other);
  }
  ivs[big] = zero;
  OpOperand &out = op.getDpsInitsMutable()[0];
  Value old = memref::LoadOp::create(b, loc, out.get(), indicesOf(b, out, ivs));
  // The output's value in the combiner's own operand position.
  BlockArgument outArg = body->getArgument(body->getNumArguments() - 1);
  Value result = combine->getOperand(0) == outArg ? combineWith(old, partial)
                                                  : combineWith(partial, old);
  store(b, {result}, ivs);
  rewriter.eraseOp(op);
  return success();
}
