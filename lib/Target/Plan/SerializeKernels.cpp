//===- SerializeKernels.cpp - kernels to PTX and cubins ---------*- C++ -*-===//
//
// Lowers `gpu.module @kiln_kernels` to NVVM (bare-pointer kernel arguments),
// attaches one #nvvm.target per architecture, and serializes it to PTX with
// gpu-module-to-binary (libdevice from the CUDA toolkit provides the math
// functions). Cubins come from running ptxas on that PTX when it is found.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Plan/PlanCompiler.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace mlir::kiln;

/// The PTX ISA version (times ten) kernels for `arch` are written in: 8.0
/// covers sm_50 to sm_90; newer architectures need newer ISAs.
static unsigned ptxIsaFor(unsigned arch) {
  if (arch >= 120)
    return 87;
  if (arch >= 100)
    return 86;
  return 80;
}

/// Runs ptxas on `ptx` for `arch`; the cubin, or an error message.
static FailureOr<std::string> runPtxas(StringRef ptxas, StringRef ptx,
                                       unsigned arch, std::string &error) {
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
  std::string archFlag = "-arch=sm_" + std::to_string(arch);
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
    error = "ptxas failed for sm_" + std::to_string(arch) + ": " +
            (logText ? (*logText)->getBuffer().trim().str() : error);
    return failure();
  }
  return (*cubin)->getBuffer().str();
}

/// The ptxas to use: the given one, the toolkit's, or one on PATH.
static std::string findPtxas(const PlanOptions &options) {
  if (!options.ptxas.empty())
    return options.ptxas;
  SmallString<128> inToolkit(options.cudaPath);
  llvm::sys::path::append(inToolkit, "bin", "ptxas");
  if (llvm::sys::fs::can_execute(inToolkit))
    return inToolkit.str().str();
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return "";
}

FailureOr<std::vector<rt::KernelImage>>
mlir::kiln::serializeKernels(ModuleOp module, const PlanOptions &options,
                       std::vector<rt::KernelDesc> &kernels) {
  MLIRContext *ctx = module.getContext();
  std::vector<rt::KernelImage> images;
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("kiln_kernels");
  if (!gpuModule)
    return images; // nothing to launch: copies and fills only

  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
    std::string tiling;
    if (Attribute config = func->getAttr(KilnDialect::getTileConfigAttrName()))
      llvm::raw_string_ostream(tiling) << config;
    kernels.push_back({func.getName().str(), tiling});
  }

  SmallVector<Attribute> targets;
  for (unsigned arch : options.archs)
    targets.push_back(NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
        "sm_" + std::to_string(arch),
        "+ptx" + std::to_string(ptxIsaFor(arch))));
  gpuModule.setTargetsAttr(ArrayAttr::get(ctx, targets));

  PassManager pm(ctx);
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  gm.addPass(createLowerAffinePass());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(memref::createExpandStridedMetadataPass());
  gm.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  gm.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  gm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaPath;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(module)))
    return module.emitError("plan compiler: lowering kernels to PTX failed");

  auto bin = module.lookupSymbol<gpu::BinaryOp>("kiln_kernels");
  if (!bin)
    return module.emitError("plan compiler: no gpu.binary after serialization");
  std::string ptxas = options.cubin ? findPtxas(options) : "";
  unsigned highest = *llvm::max_element(options.archs);
  for (Attribute a : bin.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(a);
    auto target = cast<NVVM::NVVMTargetAttr>(object.getTarget());
    unsigned arch = 0;
    StringRef(target.getChip()).drop_front(3).getAsInteger(10, arch);
    std::string ptx = object.getObject().getValue().str();
    if (!ptxas.empty()) {
      std::string error;
      FailureOr<std::string> cubin = runPtxas(ptxas, ptx, arch, error);
      if (failed(cubin))
        return module.emitError("plan compiler: ") << error;
      images.push_back({rt::KernelImage::Format::Cubin, arch, *cubin});
    }
    // PTX runs on this and newer GPUs (JIT-compiled by the driver): ship it
    // for every target without a cubin, and for the newest one always.
    if (ptxas.empty() || arch == highest)
      images.push_back({rt::KernelImage::Format::PTX, arch, std::move(ptx)});
  }
  return images;
}

unsigned mlir::kiln::ptxIsaVersion(unsigned arch) { return ptxIsaFor(arch); }
