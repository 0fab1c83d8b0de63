//===- ConcatDestinations.cpp - concat chains into one buffer ---*- C++ -*-===//
//
// kiln-concat-destinations: a chain of tensor.insert_slice ops from a
// tensor.empty (a concatenation) gets its buffer before bufferization, each
// part written into a view of it, so that one-shot bufferization analyzes
// each part alone (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCONCATDESTINATIONSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The chain of insert_slice ops that starts at `empty`: each link is the
/// only use of the one before. Empty unless it has two links or more, all
/// static and of the destination's rank.
static SmallVector<tensor::InsertSliceOp> getChain(tensor::EmptyOp empty) {
  SmallVector<tensor::InsertSliceOp> chain;
  Value link = empty.getResult();
  while (link.hasOneUse()) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(*link.getUsers().begin());
    if (!insert || insert.getDest() != link ||
        insert->getBlock() != empty->getBlock() ||
        insert.getSourceType().getRank() != insert.getType().getRank())
      break;
    if (ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
        ShapedType::isDynamicShape(insert.getStaticSizes()) ||
        ShapedType::isDynamicShape(insert.getStaticStrides()) ||
        !insert.getSourceType().hasStaticShape())
      break;
    chain.push_back(insert);
    link = insert.getResult();
  }
  if (chain.size() < 2)
    chain.clear();
  return chain;
}

/// Rewrites `chain` (starting at `empty`) as described in Passes.td.
static void rewriteChain(tensor::EmptyOp empty,
                         ArrayRef<tensor::InsertSliceOp> chain) {
  Block *block = empty->getBlock();
  // The buffer and its views go before the first part's producer (or the
  // chain's start), so that empty-tensor elimination can make every
  // producer write into its view.
  Operation *start = empty;
  for (tensor::InsertSliceOp insert : chain)
    if (Operation *def = insert.getSource().getDefiningOp())
      if (Operation *inBlock = block->findAncestorOpInBlock(*def))
        if (inBlock->isBeforeInBlock(start))
          start = inBlock;
  OpBuilder b(start);
  Location loc = empty.getLoc();
  RankedTensorType type = empty.getType();
  auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::AllocOp::create(b, loc, bufferType,
                                         b.getI64IntegerAttr(kBufferAlignment));
  SmallVector<Value> views;
  for (tensor::InsertSliceOp insert : chain) {
    auto viewType = memref::SubViewOp::inferResultType(
        bufferType, insert.getStaticOffsets(), insert.getStaticSizes(),
        insert.getStaticStrides());
    views.push_back(memref::SubViewOp::create(
        b, insert.getLoc(), cast<MemRefType>(viewType), buffer,
        insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides()));
  }
  for (auto [i, view] : llvm::enumerate(views)) {
    tensor::InsertSliceOp insert = chain[i];
    b.setInsertionPoint(insert);
    Value part = insert.getSource();
    auto write = bufferization::MaterializeInDestinationOp::create(
        b, insert.getLoc(), part, view);
    write.setRestrict(true);
    write.setWritable(true);
    // Readers of the part after it is written read the view, not writable:
    // one that wrote into the part in place would write into the concat,
    // which the analysis cannot see through the restrict buffer.
    if (isa_and_nonnull<bufferization::ToTensorOp>(part.getDefiningOp()))
      continue; // not writable already
    SmallVector<OpOperand *> later;
    for (OpOperand &use : part.getUses()) {
      Operation *user = block->findAncestorOpInBlock(*use.getOwner());
      if (user && user != insert && insert->isBeforeInBlock(user))
        later.push_back(&use);
    }
    for (OpOperand *use : later) {
      b.setInsertionPoint(use->getOwner());
      auto read = bufferization::ToTensorOp::create(b, insert.getLoc(),
                                                    part.getType(), view);
      read.setRestrict(true);
      use->set(read.getResult());
    }
  }
  tensor::InsertSliceOp last = chain.back();
  b.setInsertionPoint(last);
  auto result =
      bufferization::ToTensorOp::create(b, last.getLoc(), type, buffer);
  result.setRestrict(true);
  last.getResult().replaceAllUsesWith(result.getResult());
  for (tensor::InsertSliceOp insert : llvm::reverse(chain))
    insert.erase();
  empty.erase();
}

namespace {
struct ConcatDestinations
    : public kiln::impl::KilnConcatDestinationsPassBase<ConcatDestinations> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<tensor::EmptyOp, SmallVector<tensor::InsertSliceOp>>>
        chains;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty.getType().hasStaticShape())
        return;
      SmallVector<tensor::InsertSliceOp> chain = getChain(empty);
      if (!chain.empty())
        chains.push_back({empty, std::move(chain)});
    });
    for (auto &[empty, chain] : chains) {
      rewriteChain(empty, chain);
      ++numChains;
    }
  }
};
} // namespace
