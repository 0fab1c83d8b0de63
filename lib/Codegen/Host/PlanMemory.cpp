//===- PlanMemory.cpp - place buffers in the activation arena ---*- C++ -*-===//
//
// kiln-plan-memory: every statically shaped allocation of the host function
// gets a byte offset in one arena, chosen by the liveness of the buffers
// over the operations that become plan steps (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "kiln/Codegen/Host/Buffers.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNPLANMEMORYPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {
/// One allocation: its size and the first and last step that use it.
struct Buffer {
  Operation *alloc;
  uint64_t bytes = 0;
  int64_t first = -1, last = -1;
  uint64_t offset = 0;
  /// The buffer whose bytes this one takes (written in place), or -1.
  int64_t into = -1;
};

/// A launch that may write `written` over `read` (kiln_gpu.in_place).
struct InPlaceCandidate {
  int64_t step;
  Value read, written;
};

struct PlanMemory : public kiln::impl::KilnPlanMemoryPassBase<PlanMemory> {
  using Base::Base;

  void runOnOperation() override;
};
} // namespace

/// True for host operations that become no plan step.
static bool isBookkeeping(Operation &op) {
  if (isa<func::ReturnOp, memref::DeallocOp, memref::GetGlobalOp,
          memref::AllocOp, memref::AllocaOp, ViewLikeOpInterface>(op))
    return true;
  if (matchPattern(&op, m_Constant()))
    return true;
  auto copy = dyn_cast<memref::CopyOp>(op);
  return copy && isSelfCopy(copy);
}

/// Best fit by decreasing size: a buffer goes at the lowest aligned offset
/// that overlaps no placed buffer whose steps overlap its own. Returns the
/// end of the highest buffer.
static uint64_t place(std::vector<Buffer> &buffers, uint64_t alignment) {
  std::vector<unsigned> order;
  for (unsigned i = 0; i < buffers.size(); ++i)
    if (buffers[i].first >= 0 && buffers[i].bytes > 0 && buffers[i].into < 0)
      order.push_back(i);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::vector<unsigned> placed;
  uint64_t total = 0;
  for (unsigned i : order) {
    Buffer &buf = buffers[i];
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (unsigned j : placed) {
      const Buffer &other = buffers[j];
      if (other.last >= buf.first && buf.last >= other.first)
        busy.push_back({other.offset, other.offset + other.bytes});
    }
    llvm::sort(busy);
    uint64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + buf.bytes <= begin)
        break;
      offset = std::max(offset, llvm::alignTo(end, alignment));
    }
    buf.offset = offset;
    total = std::max(total, offset + buf.bytes);
    placed.push_back(i);
  }
  for (Buffer &buf : buffers)
    if (buf.into >= 0)
      buf.offset = buffers[buf.into].offset;
  return total;
}

/// Merges each candidate's output into the buffer of its input where the
/// input dies at the launch and the output is born there: the merged buffer
/// lives from the input's first step to the output's last. Returns how many
/// outputs were merged.
static unsigned mergeInPlace(std::vector<Buffer> &buffers,
                             const DenseMap<Value, unsigned> &index,
                             ArrayRef<InPlaceCandidate> candidates) {
  unsigned merged = 0;
  for (const InPlaceCandidate &c : candidates) {
    auto x = index.find(c.read), y = index.find(c.written);
    if (x == index.end() || y == index.end())
      continue; // not an allocation passed whole
    Buffer &out = buffers[y->second];
    int64_t root = x->second;
    while (buffers[root].into >= 0)
      root = buffers[root].into;
    Buffer &in = buffers[root];
    if (buffers[x->second].last != c.step || in.last != c.step ||
        out.first != c.step || out.into >= 0 || &in == &out ||
        buffers[x->second].bytes != out.bytes || out.bytes > in.bytes)
      continue;
    out.into = root;
    in.last = out.last;
    ++merged;
  }
  return merged;
}

void PlanMemory::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  // Kernels move up to 16 bytes at once from buffers it places
  // (InnerVectors.h).
  if (alignment < 16 || !llvm::isPowerOf2_64(alignment)) {
    func.emitError("kiln-plan-memory: alignment must be a power of two of at "
                   "least 16 bytes, got ")
        << static_cast<int64_t>(alignment);
    return signalPassFailure();
  }
  if (!func.getBody().hasOneBlock()) {
    func.emitError("kiln-plan-memory: expects a host function with one block");
    return signalPassFailure();
  }
  std::vector<Buffer> buffers;
  DenseMap<Value, unsigned> index;
  SmallVector<InPlaceCandidate> candidates;
  int64_t step = 0;
  for (Operation &op : func.getBody().front()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      auto type = cast<MemRefType>(op.getResult(0).getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        op.emitError("kiln-plan-memory: allocation of ")
            << type << " is not static";
        return signalPassFailure();
      }
      index[op.getResult(0)] = buffers.size();
      buffers.push_back({&op, type.getNumElements() *
                                  getElementBytes(type.getElementType())});
      continue;
    }
    if (isBookkeeping(op))
      continue;
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      if (auto pairs = launch->getAttrOfType<DenseI64ArrayAttr>(
              KilnGPUDialect::getInPlaceAttrName())) {
        // The kernel's analysis saw each argument alone: a buffer that it
        // also reaches through another argument (a view) stays apart.
        auto passedOnce = [&](Value v) {
          return llvm::count_if(launch.getKernelOperands(), [&](Value o) {
                   return getRootBuffer(o) == getRootBuffer(v);
                 }) == 1;
        };
        for (unsigned i = 0; i + 1 < pairs.size(); i += 2) {
          Value read = launch.getKernelOperands()[pairs[i]];
          Value written = launch.getKernelOperands()[pairs[i + 1]];
          if (passedOnce(read) && passedOnce(written))
            candidates.push_back({step, read, written});
        }
      }
    for (Value operand : op.getOperands()) {
      if (!isa<MemRefType>(operand.getType()))
        continue;
      auto it = index.find(getRootBuffer(operand));
      if (it == index.end())
        continue; // an I/O tensor or a weight
      Buffer &b = buffers[it->second];
      if (b.first < 0)
        b.first = step;
      b.last = step;
    }
    ++step;
  }

  numInPlace += mergeInPlace(buffers, index, candidates);
  uint64_t total = llvm::alignTo(place(buffers, alignment), alignment);
  Builder b(&getContext());
  for (Buffer &buf : buffers) {
    buf.alloc->setAttr(KilnGPUDialect::getArenaOffsetAttrName(),
                       b.getI64IntegerAttr(buf.offset));
    if (buf.first >= 0 && buf.bytes > 0) {
      ++numBuffers;
      bufferBytes += buf.bytes;
    }
  }
  func->setAttr(KilnGPUDialect::getArenaBytesAttrName(),
                b.getI64IntegerAttr(total));
  arenaBytes += total;
}
