//===- AssembleCubins.cpp - cubins from the PTX of gpu.binary ---*- C++ -*-===//
//
// kiln-assemble-cubins: runs ptxas on every PTX object of the module's
// gpu.binary ops and adds the cubin for the same target (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/CUDA/Passes.h"

#include "kiln/Target/CUDA/CudaTarget.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNASSEMBLECUBINSPASS
#include "kiln/Target/CUDA/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Runs `ptxas` on `ptx` for `chip` (sm_XY); the cubin, or an error message.
static FailureOr<std::string> runPtxas(StringRef ptxas, StringRef ptx,
                                       StringRef chip, std::string &error) {
  SmallString<128> in, out, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("kiln", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("kiln", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("kiln", "log", log)) {
    error = "cannot create temporary files for ptxas";
    return failure();
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string archFlag = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, archFlag, "-O3", in, "-o", out};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, 0, &error);
  auto cubin = llvm::MemoryBuffer::getFile(out);
  auto logText = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  if (rc != 0 || !cubin) {
    error = ("ptxas failed for " + chip + ": " +
             (logText ? (*logText)->getBuffer().trim().str() : error))
                .str();
    return failure();
  }
  return (*cubin)->getBuffer().str();
}

/// The compute capability of an NVVM target (90 for sm_90), or 0.
static unsigned archOf(NVVM::NVVMTargetAttr target) {
  unsigned arch = 0;
  StringRef chip = target.getChip();
  if (!chip.consume_front("sm_") || chip.getAsInteger(10, arch))
    return 0;
  return arch;
}

namespace {
struct AssembleCubins
    : public kiln::impl::KilnAssembleCubinsPassBase<AssembleCubins> {
  using Base::Base;

  void runOnOperation() override {
    std::string tool = findPtxas(ptxas, cudaPath);
    if (!ptxas.empty() && !llvm::sys::fs::can_execute(tool)) {
      getOperation().emitError("kiln-assemble-cubins: ptxas '")
          << tool << "' cannot be run";
      return signalPassFailure();
    }
    if (tool.empty())
      return; // PTX only: the driver JIT-compiles it.
    auto result = getOperation().walk([&](gpu::BinaryOp binary) {
      return succeeded(assemble(binary, tool)) ? WalkResult::advance()
                                               : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult assemble(gpu::BinaryOp binary, StringRef tool) {
    // The newest target keeps its PTX for GPUs newer than every target.
    unsigned newest = 0;
    for (Attribute a : binary.getObjects())
      if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(
              cast<gpu::ObjectAttr>(a).getTarget()))
        newest = std::max(newest, archOf(target));
    SmallVector<Attribute> objects;
    for (Attribute a : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(a);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly) {
        objects.push_back(object);
        continue;
      }
      std::string error;
      FailureOr<std::string> cubin = runPtxas(
          tool, object.getObject().getValue(), target.getChip(), error);
      if (failed(cubin))
        return binary.emitError("kiln-assemble-cubins: ") << error;
      objects.push_back(gpu::ObjectAttr::get(
          &getContext(), target, gpu::CompilationTarget::Binary,
          StringAttr::get(&getContext(), *cubin), object.getProperties(),
          object.getKernels()));
      if (keepAllPtx || archOf(target) == newest)
        objects.push_back(object);
    }
    binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
    return success();
  }
};
} // namespace
