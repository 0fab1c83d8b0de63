//===- InPlace.cpp - may a kernel write an output over an input -*- C++ -*-===//
//
// See InPlace.h. A fusion group qualifies when, in each iteration of its
// loop, it touches X and Y only through slices with the same offsets, sizes
// and strides, one element apart in every loop dimension (so iterations
// touch disjoint elements), and reads its slice of X before its first write
// of the slice of Y, or in that write itself when the writer is elementwise
// over the two slices.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/InPlace.h"

#include "kiln/Codegen/Host/Buffers.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::kiln;

/// True when `a` and `b` view the same elements of their sources.
static bool sameSlice(memref::SubViewOp a, memref::SubViewOp b) {
  return a.getMixedOffsets() == b.getMixedOffsets() &&
         a.getMixedSizes() == b.getMixedSizes() &&
         a.getMixedStrides() == b.getMixedStrides();
}

/// True when the slice `view` differs between any two iterations of `loop`:
/// each of its induction variables (over more than one value) is the offset
/// of a dimension of size 1.
static bool separatesIterations(memref::SubViewOp view, scf::ForallOp loop) {
  for (auto [iv, ub] :
       llvm::zip(loop.getInductionVars(), loop.getStaticUpperBound())) {
    if (ub == 1)
      continue;
    bool found = false;
    for (auto [offset, size] :
         llvm::zip(view.getMixedOffsets(), view.getMixedSizes()))
      found |= dyn_cast<Value>(offset) == iv && isConstantIntValue(size, 1);
    if (!found)
      return false;
  }
  return true;
}

/// The ops in `op`'s regions that use each of `values` (a walk of the
/// regions: a value read by thousands of ops outside costs nothing).
static DenseMap<Value, SmallVector<Operation *>>
getUsersInside(Operation *op, ArrayRef<Value> values) {
  DenseMap<Value, SmallVector<Operation *>> users;
  DenseSet<Value> wanted(values.begin(), values.end());
  for (Region &region : op->getRegions())
    region.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (wanted.contains(operand)) {
          SmallVector<Operation *> &list = users[operand];
          if (list.empty() || list.back() != nested)
            list.push_back(nested);
        }
    });
  return users;
}

/// The slices of a buffer taken in `loop`'s body (`users`: its users
/// there), when every use of it there is one slice (always the same
/// elements) that separates iterations.
static std::optional<SmallVector<memref::SubViewOp>>
getSlices(ArrayRef<Operation *> users, scf::ForallOp loop) {
  SmallVector<memref::SubViewOp> slices;
  for (Operation *user : users) {
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || (!slices.empty() && !sameSlice(view, slices.front())) ||
        !separatesIterations(view, loop))
      return std::nullopt;
    slices.push_back(view);
  }
  if (slices.empty())
    return std::nullopt;
  return slices;
}

/// True when `op` reads operand `read` and writes init `written` at the
/// same element in each step of all-parallel loops that visit every element
/// once.
static bool isElementwise(linalg::LinalgOp op, OpOperand &read,
                          OpOperand &written) {
  if (op.getNumLoops() != op.getNumParallelLoops())
    return false;
  AffineMap map = op.getMatchingIndexingMap(&read);
  return map == op.getMatchingIndexingMap(&written) && map.isPermutation();
}

/// True when `op` writes one of `ySlices`.
static bool writesSlice(Operation *op, ArrayRef<memref::SubViewOp> ySlices) {
  auto isY = [&](Value v) {
    return llvm::is_contained(ySlices, v.getDefiningOp<memref::SubViewOp>());
  };
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return !isSelfCopy(copy) && isY(copy.getTarget());
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return llvm::any_of(linalgOp.getDpsInits(), isY);
  return false;
}

/// True when the reads of `xSlices` in `loop` all come before the first
/// write of `ySlices`, or in it as an elementwise step.
static bool readsBeforeWrite(scf::ForallOp loop,
                             ArrayRef<memref::SubViewOp> xSlices,
                             ArrayRef<memref::SubViewOp> ySlices) {
  Block *body = loop.getBody();
  Operation *firstWrite = nullptr;
  for (memref::SubViewOp y : ySlices)
    for (Operation *user : y->getUsers()) {
      if (isa<memref::CopyOp>(user) && isSelfCopy(cast<memref::CopyOp>(user)))
        continue;
      if (!isa<linalg::LinalgOp, memref::CopyOp>(user))
        return false; // a use this analysis does not know
      Operation *op = body->findAncestorOpInBlock(*user);
      if (op && writesSlice(op, ySlices) &&
          (!firstWrite || op->isBeforeInBlock(firstWrite)))
        firstWrite = op;
    }
  if (!firstWrite)
    return false;
  for (memref::SubViewOp x : xSlices)
    for (OpOperand &use : x->getUses()) {
      // Only read, by an op of the body.
      Operation *user = use.getOwner();
      auto copy = dyn_cast<memref::CopyOp>(user);
      auto op = dyn_cast<linalg::LinalgOp>(user);
      if (user->getBlock() != body ||
          !(copy ? use.getOperandNumber() == 0 : op && op.isDpsInput(&use)))
        return false;
      if (user->isBeforeInBlock(firstWrite))
        continue;
      if (user != firstWrite)
        return false;
      if (copy)
        continue; // the same elements of X to Y
      bool elementwise = false;
      for (OpOperand &init : op.getDpsInitsMutable())
        if (llvm::is_contained(ySlices,
                               init.get().getDefiningOp<memref::SubViewOp>()))
          elementwise = isElementwise(op, use, init);
      if (!elementwise)
        return false;
    }
  return true;
}

SmallVector<InPlacePair> mlir::kiln::findInPlacePairs(scf::ForallOp loop,
                                                      ArrayRef<Value> buffers) {
  SmallVector<InPlacePair> pairs;
  DenseMap<Value, SmallVector<Operation *>> inside =
      getUsersInside(loop, buffers);
  for (auto [yi, y] : llvm::enumerate(buffers)) {
    auto ySlices = getSlices(inside.lookup(y), loop);
    if (!ySlices)
      continue;
    for (auto [xi, x] : llvm::enumerate(buffers)) {
      if (xi == yi || x.getType() != y.getType())
        continue;
      auto xSlices = getSlices(inside.lookup(x), loop);
      if (xSlices && sameSlice(xSlices->front(), ySlices->front()) &&
          readsBeforeWrite(loop, *xSlices, *ySlices)) {
        pairs.push_back({static_cast<unsigned>(xi), static_cast<unsigned>(yi)});
        break; // one input per output
      }
    }
  }
  return pairs;
}

SmallVector<InPlacePair> mlir::kiln::findInPlacePairs(linalg::GenericOp op,
                                                      ArrayRef<Value> buffers) {
  SmallVector<InPlacePair> pairs;
  auto indexOf = [&](Value v) -> std::optional<unsigned> {
    auto it = llvm::find(buffers, v);
    if (it == buffers.end())
      return std::nullopt;
    return it - buffers.begin();
  };
  for (OpOperand &init : op.getDpsInitsMutable())
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value x = input->get();
      if (x == init.get() || x.getType() != init.get().getType() ||
          !isElementwise(op, *input, init))
        continue;
      // X is read through this operand only.
      if (llvm::count_if(op->getOperands(), [&](Value v) { return v == x; }) !=
              1 ||
          !getUsersInside(op, x).empty())
        continue;
      std::optional<unsigned> xi = indexOf(x), yi = indexOf(init.get());
      if (xi && yi) {
        pairs.push_back({*xi, *yi});
        break;
      }
    }
  return pairs;
}
