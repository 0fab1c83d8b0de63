//===- DeallocAfterLastUse.cpp - free buffers early -------------*- C++ -*-===//
//
// kiln-dealloc-after-last-use: the allocations of a block that
// ownership-based deallocation frees at the block's end are freed right
// after their last use instead (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDEALLOCAFTERLASTUSEPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The last op of `block` that uses `alloc` (through views), but for
/// `dealloc` and the metadata extractions that only feed it; null when a
/// use is of a kind that could keep the buffer alive or is outside `block`.
Operation *findLastUse(memref::AllocOp alloc, bufferization::DeallocOp dealloc,
                       Block *block) {
  Operation *last = alloc;
  SmallVector<Value> worklist = {alloc.getResult()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == dealloc)
        continue;
      if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
        // Its index results read no memory; its base buffer is followed.
        worklist.push_back(meta.getBaseBuffer());
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() != v)
          return nullptr;
        worklist.append(user->result_begin(), user->result_end());
      } else if (!isa<func::CallOp, linalg::LinalgOp, memref::CopyOp,
                      memref::LoadOp, memref::StoreOp>(user)) {
        return nullptr;
      } else if (isa<memref::StoreOp>(user) &&
                 cast<memref::StoreOp>(user).getValueToStore() == v) {
        return nullptr;
      }
      Operation *at = block->findAncestorOpInBlock(*user);
      if (!at)
        return nullptr;
      if (last->isBeforeInBlock(at))
        last = at;
    }
  }
  return last;
}

struct DeallocAfterLastUse
    : public kiln::impl::KilnDeallocAfterLastUsePassBase<DeallocAfterLastUse> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation().walk(
        [&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    for (bufferization::DeallocOp dealloc : deallocs)
      split(dealloc);
  }

  void split(bufferization::DeallocOp dealloc) {
    if (!dealloc.getRetained().empty())
      return;
    Block *block = dealloc->getBlock();
    SmallVector<memref::AllocOp> allocs;
    DenseMap<Operation *, unsigned> count;
    for (Value m : dealloc.getMemrefs()) {
      auto alloc = dyn_cast_or_null<memref::AllocOp>(getAllocation(m));
      if (alloc && alloc->getBlock() != block)
        alloc = nullptr;
      allocs.push_back(alloc);
      if (alloc)
        ++count[alloc];
    }
    // Decide everything before changing the block: inserting ops drops its
    // cached op order, which every isBeforeInBlock would then recompute.
    SmallVector<std::pair<memref::AllocOp, Operation *>> freed;
    SmallVector<Value> keptMemrefs, keptConditions;
    for (auto [alloc, m, cond] :
         llvm::zip(allocs, dealloc.getMemrefs(), dealloc.getConditions())) {
      Operation *last = nullptr;
      if (alloc && count[alloc] == 1 && matchPattern(cond, m_One()))
        last = findLastUse(alloc, dealloc, block);
      if (last) {
        freed.push_back({alloc, last});
        continue;
      }
      keptMemrefs.push_back(m);
      keptConditions.push_back(cond);
    }
    if (freed.empty())
      return;
    for (auto [alloc, last] : freed) {
      OpBuilder b(last->getContext());
      b.setInsertionPointAfter(last);
      memref::DeallocOp::create(b, alloc.getLoc(), alloc);
    }
    numFreed += freed.size();
    if (keptMemrefs.empty()) {
      dealloc.erase();
      return;
    }
    dealloc.getMemrefsMutable().assign(keptMemrefs);
    dealloc.getConditionsMutable().assign(keptConditions);
  }
};

} // namespace
