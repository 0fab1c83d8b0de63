//===- OutlineLinalgOps.cpp - one function per linalg op --------*- C++ -*-===//
//
// kiln-outline-linalg-ops: each linalg op on buffers (and each memref.copy)
// becomes a call of a private function holding only it (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Codegen/Host/StructuralHash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOUTLINELINALGOPSPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct OutlineLinalgOps
    : public kiln::impl::KilnOutlineLinalgOpsPassBase<OutlineLinalgOps> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    outlined.clear(); // the functions of an earlier run are gone
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      SmallVector<Operation *> ops, selfCopies;
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
          if (linalgOp.hasPureBufferSemantics())
            ops.push_back(op);
          return WalkResult::skip();
        }
        // A buffer copied onto itself (an output its last layer wrote in
        // place) is erased, not outlined and run.
        if (auto copy = dyn_cast<memref::CopyOp>(op))
          (copy.getSource() == copy.getTarget() ? selfCopies : ops)
              .push_back(op);
        return WalkResult::advance();
      });
      for (Operation *copy : selfCopies)
        copy->erase();
      // The functions follow `func` in the order of their ops.
      Operation *after = func;
      unsigned index = 0;
      for (Operation *op : ops)
        outline(symbols, func, op, index, after);
    }
  }

  void outline(SymbolTable &symbols, func::FuncOp func, Operation *op,
               unsigned &index, Operation *&after) {
    // Arguments: what the op uses that is defined outside it, but for the
    // constants, which are cloned in.
    llvm::SetVector<Value> used;
    used.insert(op->getOperands().begin(), op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    llvm::SetVector<Value> args;
    llvm::SetVector<Operation *> constants;
    for (Value v : used) {
      Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>() &&
          def->getNumResults() == 1) {
        constants.insert(def);
        continue;
      }
      if (!isBarePointerType(v.getType()))
        return;
      args.insert(v);
    }

    OpBuilder b(func);
    b.setInsertionPointAfter(after);
    std::string name =
        (func.getName() + "_" + op->getName().stripDialect().str() + "_" +
         std::to_string(index++))
            .str();
    // A part of a buffer is passed rebased (its offset in its type 0), so
    // that the parts of a concat or split share one function.
    SmallVector<Value> passed;
    SmallVector<Type> types;
    {
      OpBuilder atOp(op);
      for (Value v : args) {
        passed.push_back(rebasePart(atOp, v, /*granule=*/1, op));
        types.push_back(passed.back().getType());
      }
    }
    auto callee = func::FuncOp::create(b, op->getLoc(), name,
                                       b.getFunctionType(types, {}));
    callee.setPrivate();
    Block *entry = callee.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [v, arg] : llvm::zip(args, entry->getArguments()))
      mapping.map(v, arg);
    for (Operation *c : constants)
      mapping.map(c->getResult(0), b.clone(*c)->getResult(0));
    b.clone(*op, mapping);
    func::ReturnOp::create(b, op->getLoc());
    // A layer like one outlined before (the same op on the same types) calls
    // that function: LLVM then compiles each kind of layer once, not once a
    // layer.
    if (func::FuncOp same = findEquivalent(callee)) {
      callee.erase();
      callee = same;
    } else {
      symbols.insert(callee); // it is in place: this only names it uniquely
      after = callee;
      outlined[hashBody(callee)].push_back(callee);
    }

    b.setInsertionPoint(op);
    auto call = func::CallOp::create(b, op->getLoc(), callee, passed);
    call.setNoInline(true);
    op->erase();
    ++numOutlined;
  }

  /// A hash of `callee`'s type and of its operations' kinds, attributes and
  /// types, in order (not of their locations or operands: equal functions
  /// hash equal, and findEquivalent compares the candidates in full).
  static llvm::hash_code hashBody(func::FuncOp callee) {
    return hashStructure(callee.getBody(),
                         hash_value(callee.getFunctionType()));
  }

  /// A function outlined before whose body and type equal `callee`'s.
  func::FuncOp findEquivalent(func::FuncOp callee) {
    auto it = outlined.find(hashBody(callee));
    if (it == outlined.end())
      return {};
    for (func::FuncOp candidate : it->second)
      if (candidate.getFunctionType() == callee.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &candidate.getBody(), &callee.getBody(),
              OperationEquivalence::IgnoreLocations))
        return candidate;
    return {};
  }

  /// The functions outlined so far, by hashBody.
  DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> outlined;
};

} // namespace
