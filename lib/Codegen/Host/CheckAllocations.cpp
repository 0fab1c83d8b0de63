//===- CheckAllocations.cpp - return early on a failed allocation -*- C++
//-*-===//
//
// kiln-check-allocations: on the LLVM dialect, every call to an allocation
// function is followed by a null check, and every call to a function that
// allocates by a check of the executor's failure flag; either returns from
// the function at once, so that generated code never writes through a
// failed allocation (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCHECKALLOCATIONSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The functions whose null result means an allocation failed.
bool isAllocationFunction(StringRef name) {
  return llvm::is_contained({StringRef("malloc"), StringRef("aligned_alloc"),
                             StringRef("_mlir_memref_to_llvm_alloc"),
                             StringRef("_mlir_memref_to_llvm_aligned_alloc")},
                            name);
}

struct CheckAllocations
    : kiln::impl::KilnCheckAllocationsPassBase<CheckAllocations> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The functions that allocate, directly or through a callee: a fixed
    // point over the calls, callers after callees.
    DenseMap<StringAttr, SmallVector<LLVM::LLVMFuncOp>> callers;
    SmallVector<LLVM::LLVMFuncOp> worklist;
    DenseSet<Operation *> allocating;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      func.walk([&](LLVM::CallOp call) {
        std::optional<StringRef> callee = call.getCallee();
        if (!callee)
          return;
        if (isAllocationFunction(*callee)) {
          if (allocating.insert(func).second)
            worklist.push_back(func);
        } else {
          callers[StringAttr::get(&getContext(), *callee)].push_back(func);
        }
      });
    while (!worklist.empty()) {
      LLVM::LLVMFuncOp func = worklist.pop_back_val();
      for (LLVM::LLVMFuncOp caller : callers.lookup(func.getSymNameAttr()))
        if (allocating.insert(caller).second)
          worklist.push_back(caller);
    }
    if (allocating.empty())
      return;

    // By name: a lookup in the module for each call would walk the module.
    DenseSet<StringAttr> allocatingNames;
    for (Operation *func : allocating)
      allocatingNames.insert(cast<LLVM::LLVMFuncOp>(func).getSymNameAttr());

    bool needFlag = false;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!allocating.contains(func))
        continue;
      SmallVector<LLVM::CallOp> calls;
      func.walk([&](LLVM::CallOp call) {
        std::optional<StringRef> callee = call.getCallee();
        if (callee &&
            (isAllocationFunction(*callee) ||
             allocatingNames.contains(call.getCalleeAttr().getAttr())))
          calls.push_back(call);
      });
      Block *exit = nullptr;
      // Last call first: each split then moves only the operations up to the
      // next call already split off, not the rest of the function (a
      // network's entry function holds one call a layer).
      for (LLVM::CallOp call : llvm::reverse(calls)) {
        if (!exit)
          exit = createExit(func);
        OpBuilder b(call->getContext());
        b.setInsertionPointAfter(call);
        Location loc = call.getLoc();
        Value failed;
        if (isAllocationFunction(*call.getCallee())) {
          Value null = LLVM::ZeroOp::create(b, loc, call.getResult().getType());
          failed = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                        call.getResult(), null);
        } else {
          needFlag = true;
          failed = LLVM::CallOp::create(b, loc, TypeRange{b.getI1Type()},
                                        failedSymbol.getValue(), ValueRange())
                       .getResult();
        }
        Block *block = call->getBlock();
        Block *rest =
            block->splitBlock(std::next(failed.getDefiningOp()->getIterator()));
        b.setInsertionPointToEnd(block);
        LLVM::CondBrOp::create(b, loc, failed, exit, ValueRange(), rest,
                               ValueRange());
      }
    }
    if (needFlag && !module.lookupSymbol(failedSymbol.getValue())) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::LLVMFuncOp::create(b, module.getLoc(), failedSymbol.getValue(),
                               LLVM::LLVMFunctionType::get(b.getI1Type(), {}));
    }
  }

  /// A block at the end of `func` that returns at once.
  Block *createExit(LLVM::LLVMFuncOp func) {
    Block *exit = new Block();
    func.getBody().push_back(exit);
    OpBuilder b = OpBuilder::atBlockEnd(exit);
    Type result = func.getFunctionType().getReturnType();
    if (isa<LLVM::LLVMVoidType>(result)) {
      LLVM::ReturnOp::create(b, func.getLoc(), ValueRange());
    } else {
      Value zero = LLVM::ZeroOp::create(b, func.getLoc(), result);
      LLVM::ReturnOp::create(b, func.getLoc(), zero);
    }
    return exit;
  }
};

} // namespace
