//===- OutlineSegments.cpp - split a long function into segments -*- C++
//-*-===//
//
// kiln-outline-segments: a function of more than `max-ops` operations in one
// block is cut into runs of at most `max-ops`, each moved into a private
// function of its own and called in its place (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOUTLINESEGMENTSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct OutlineSegments
    : public kiln::impl::KilnOutlineSegmentsPassBase<OutlineSegments> {
  using Base::Base;

  /// Whether segments clone `op` rather than take its result as an argument:
  /// an operation without regions or side effects whose operands are all
  /// cloned too (a constant, a global's address, a view of one). A global
  /// must never cross a call as a result: the bare-pointer convention
  /// returns a buffer's allocated pointer, which a constant global has not.
  bool isCloned(Operation *op) {
    auto [it, inserted] = cloned.try_emplace(op, false);
    if (!inserted)
      return it->second;
    bool result = op->getNumRegions() == 0 && op->getNumResults() == 1 &&
                  isMemoryEffectFree(op) &&
                  llvm::all_of(op->getOperands(), [&](Value v) {
                    Operation *def = v.getDefiningOp();
                    return def && isCloned(def);
                  });
    cloned[op] = result;
    return result;
  }

  /// Adds `op` to `ops` after the cloned operations it uses.
  void addCloned(Operation *op, llvm::SetVector<Operation *> &ops) {
    if (ops.contains(op))
      return;
    for (Value v : op->getOperands())
      addCloned(v.getDefiningOp(), ops);
    ops.insert(op);
  }

  DenseMap<Operation *, bool> cloned;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (maxOps < 1) {
      module.emitError("kiln-outline-segments: max-ops must be at least 1");
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (!func.getBody().hasOneBlock())
        continue;
      Block &block = func.getBody().front();
      // Memoized by address: nothing from another function or run.
      cloned.clear();
      // The operations before the terminator, in order; constants stay, and
      // each segment clones the ones it uses.
      SmallVector<Operation *> ops;
      for (Operation &op : block.without_terminator())
        if (!isCloned(&op))
          ops.push_back(&op);
      if (ops.size() <= maxOps)
        continue;
      // Each operation's segment: a use is outside its segment when the
      // user's ancestor in the block is in another one (or is no segment's,
      // the terminator or a call made here).
      // A segment ends after maxOps operations, but not right after a
      // kiln_gpu.rebase: its call follows it (a rebased pointer cannot be a
      // segment's result, see `bare` below).
      DenseMap<Operation *, unsigned> segmentOf;
      SmallVector<size_t> starts = {0};
      for (auto [i, op] : llvm::enumerate(ops)) {
        if (i - starts.back() >= maxOps && !isa<RebaseOp>(ops[i - 1]))
          starts.push_back(i);
        segmentOf[op] = starts.size() - 1;
      }
      starts.push_back(ops.size());
      Operation *after = func;
      for (size_t index = 0; index + 1 < starts.size(); ++index) {
        ArrayRef<Operation *> segment = ArrayRef(ops).slice(
            starts[index], starts[index + 1] - starts[index]);
        outline(symbols, func, block, segment, index, segmentOf, after);
      }
      // The cloned operations no segment left here a use of.
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (op.use_empty() && isCloned(&op))
          op.erase();
    }
  }

  void outline(SymbolTable &symbols, func::FuncOp func, Block &block,
               ArrayRef<Operation *> segment, size_t index,
               const DenseMap<Operation *, unsigned> &segmentOf,
               Operation *&after) {
    unsigned id = segmentOf.lookup(segment.front());
    auto inSegment = [&](Operation *op) {
      Operation *ancestor = op ? block.findAncestorOpInBlock(*op) : nullptr;
      auto it = ancestor ? segmentOf.find(ancestor) : segmentOf.end();
      return it != segmentOf.end() && it->second == id;
    };
    // Arguments: the values used here and defined before (constants without
    // operands are cloned in instead). Results: the values defined here and
    // used after.
    llvm::SetVector<Value> args;
    llvm::SetVector<Operation *> constants;
    SmallVector<Value> results;
    auto use = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (inSegment(def))
        return;
      if (def && isCloned(def))
        addCloned(def, constants);
      else
        args.insert(v);
    };
    for (Operation *op : segment) {
      for (Value v : op->getOperands())
        use(v);
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(op->getRegions(), above);
      for (Value v : above)
        use(v);
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(),
                         [&](Operation *user) { return !inSegment(user); }))
          results.push_back(r);
    }

    // The reference's calling convention passes a memref as one pointer:
    // a segment whose arguments or results it cannot carry stays in place.
    // A result is returned as its allocated pointer, which a rebased part
    // (kiln_gpu.rebase) does not start at.
    auto bare = [](Value v) { return isBarePointerType(v.getType()); };
    auto rebased = [](Value v) { return v.getDefiningOp<RebaseOp>(); };
    if (!llvm::all_of(args, bare) || !llvm::all_of(results, bare) ||
        llvm::any_of(results, rebased))
      return;

    OpBuilder b(func);
    b.setInsertionPointAfter(after);
    SmallVector<Type> argTypes, resultTypes;
    for (Value v : args)
      argTypes.push_back(v.getType());
    for (Value v : results)
      resultTypes.push_back(v.getType());
    auto callee = func::FuncOp::create(
        b, segment.front()->getLoc(),
        (func.getName() + "_segment_" + Twine(index)).str(),
        b.getFunctionType(argTypes, resultTypes));
    callee.setPrivate();
    symbols.insert(callee); // it is in place: this only names it uniquely
    after = callee;
    Block *entry = callee.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [v, arg] : llvm::zip(args, entry->getArguments()))
      mapping.map(v, arg);
    for (Operation *c : constants)
      b.clone(*c, mapping);
    for (Operation *op : segment)
      b.clone(*op, mapping);
    SmallVector<Value> returned;
    for (Value v : results)
      returned.push_back(mapping.lookup(v));
    func::ReturnOp::create(b, callee.getLoc(), returned);

    b.setInsertionPoint(segment.front());
    auto call =
        func::CallOp::create(b, callee.getLoc(), callee, args.getArrayRef());
    call.setNoInline(true);
    for (auto [v, r] : llvm::zip(results, call.getResults()))
      v.replaceUsesWithIf(r, [&](OpOperand &operand) {
        return !inSegment(operand.getOwner());
      });
    for (Operation *op : llvm::reverse(segment))
      op->erase();
    ++numSegments;
  }
};

} // namespace
