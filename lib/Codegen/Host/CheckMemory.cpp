//===- CheckMemory.cpp - bound the memory a network holds at once -*- C++
//-*-===//
//
// kiln-check-memory: the bytes of a network function's arguments plus the
// peak of its live allocations, in program order, against the memory
// budget; a function over it is refused before the CPU reference compiles
// anything, naming the largest tensors held at the peak (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Codegen/Host/Passes.h"

#include "kiln/Support/Sizes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <string>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCHECKMEMORYPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// A tensor held in memory, for the error.
struct Held {
  std::string what;
  uint64_t bytes;
};

/// The bytes of a statically shaped memref type; 0 when dynamic.
uint64_t bytesOf(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return 0;
  std::optional<uint64_t> bytes = getByteSize(memref);
  return bytes ? *bytes : 0;
}

/// The bytes `op` (an alloc or alloca) asks for: an aligned heap allocation
/// asks for its alignment more (finalize-memref-to-llvm aligns by hand).
uint64_t bytesAllocated(Operation *op) {
  uint64_t bytes = bytesOf(op->getResult(0).getType());
  if (auto alloc = dyn_cast<memref::AllocOp>(op))
    if (std::optional<uint64_t> alignment = alloc.getAlignment())
      bytes += *alignment;
  return bytes;
}

struct CheckMemory : kiln::impl::KilnCheckMemoryPassBase<CheckMemory> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() && failed(check(func, symbols)))
        return signalPassFailure();
  }

  /// The peak bytes `func` allocates while it runs (memoized), with the op
  /// at which it is reached (null: nothing is allocated).
  std::pair<uint64_t, Operation *> peakOf(func::FuncOp func,
                                          SymbolTableCollection &symbols) {
    auto it = peaks.find(func);
    if (it != peaks.end())
      return it->second;
    peaks[func] = {0, nullptr}; // recursion counts nothing more
    uint64_t live = 0, peak = 0;
    Operation *at = nullptr;
    DenseMap<Operation *, uint64_t> held;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      uint64_t transient = 0;
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        uint64_t bytes = bytesAllocated(op);
        held[op] = bytes;
        live += bytes;
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        Operation *alloc = getAllocation(dealloc.getMemref());
        auto h = alloc ? held.find(alloc) : held.end();
        if (h != held.end()) {
          live -= h->second;
          held.erase(h);
        }
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        if (auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr());
            callee && !callee.isExternal())
          transient = peakOf(callee, symbols).first;
      }
      if (live + transient > peak) {
        peak = live + transient;
        at = op;
      }
    });
    return peaks[func] = {peak, at};
  }

  LogicalResult check(func::FuncOp func, SymbolTableCollection &symbols) {
    // The arguments: inputs, outlined weights (kiln.num_inputs counts
    // both), then outputs.
    auto numInputs = func->getAttrOfType<IntegerAttr>(kNumInputsAttrName);
    auto weights = func->getAttrOfType<ArrayAttr>(kOutlinedWeightsAttrName);
    int64_t firstOutput = numInputs ? numInputs.getInt() : -1;
    int64_t firstWeight = firstOutput - (weights ? weights.size() : 0);
    std::vector<Held> tensors;
    uint64_t total = 0;
    for (BlockArgument arg : func.getArguments()) {
      uint64_t bytes = bytesOf(arg.getType());
      total += bytes;
      int64_t i = arg.getArgNumber();
      const char *role = !numInputs        ? "argument"
                         : i < firstWeight ? "input"
                         : i < firstOutput ? "weight"
                                           : "output";
      std::string name = getLayerName(arg.getLoc());
      tensors.push_back(
          {std::string(role) + " " +
               (name.empty() ? std::to_string(i) : "'" + name + "'"),
           bytes});
    }
    auto [peak, at] = peakOf(func, symbols);
    total += peak;
    if (total <= maxMemory)
      return success();

    // Replay up to the peak for what is held there.
    DenseMap<Operation *, uint64_t> held;
    SmallVector<Operation *> order;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        held[op] = bytesAllocated(op);
        order.push_back(op);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (Operation *alloc = getAllocation(dealloc.getMemref()))
          held.erase(alloc);
      } else if (auto call = dyn_cast<func::CallOp>(op); call && op == at) {
        uint64_t inside = peak;
        for (auto &[alloc, bytes] : held)
          inside -= bytes;
        tensors.push_back(
            {"the buffers of '" + call.getCallee().str() + "'", inside});
      }
      return op == at ? WalkResult::interrupt() : WalkResult::advance();
    });
    for (Operation *op : order) {
      auto h = held.find(op);
      if (h == held.end())
        continue;
      std::string what;
      if (std::string name = getLayerName(op->getLoc()); !name.empty()) {
        what = "layer '" + name + "'";
      } else {
        llvm::raw_string_ostream os(what);
        os << "a buffer at " << op->getLoc();
      }
      tensors.push_back({what, h->second});
    }
    llvm::stable_sort(tensors, [](const Held &a, const Held &b) {
      return a.bytes > b.bytes;
    });
    InFlightDiagnostic diag =
        func.emitError("the CPU reference would hold ")
        << total << " bytes at once, more than the memory budget of "
        << static_cast<uint64_t>(maxMemory)
        << " bytes (raise it with --max-memory); the largest: ";
    for (size_t i = 0; i < std::min<size_t>(tensors.size(), kShown); ++i)
      diag << (i ? ", " : "") << tensors[i].what << " (" << tensors[i].bytes
           << " bytes)";
    if (tensors.size() > kShown)
      diag << " and " << tensors.size() - kShown << " more";
    return failure();
  }

  static constexpr size_t kShown = 5;
  DenseMap<Operation *, std::pair<uint64_t, Operation *>> peaks;
};

} // namespace
