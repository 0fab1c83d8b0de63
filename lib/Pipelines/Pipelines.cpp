//===- Pipelines.cpp - kiln's named pass pipelines --------------*- C++ -*-===//
//
// Every pipeline kiln runs, built from registered passes in one place and
// registered by name, so that kiln-opt reproduces each phase of
// kiln-compile (see Pipelines.h and docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Codegen/Host/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Target/CUDA/CudaTarget.h"
#include "kiln/Target/CUDA/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Phases
//===----------------------------------------------------------------------===//

static constexpr std::pair<Phase, llvm::StringLiteral> kPhaseNames[] = {
    {Phase::Import, "import"},   {Phase::Graph, "kiln"},
    {Phase::Linalg, "linalg"},   {Phase::Groups, "groups"},
    {Phase::Buffers, "buffers"}, {Phase::Kernels, "kernels"},
    {Phase::Memory, "memory"},   {Phase::Target, "target"},
};

StringRef mlir::kiln::getPhaseName(Phase phase) {
  for (const auto &[p, name] : kPhaseNames)
    if (p == phase)
      return name;
  return "?";
}

std::optional<Phase> mlir::kiln::parsePhaseName(StringRef name) {
  if (name == "gpu") // the name before the phases had names
    return Phase::Kernels;
  for (const auto &[p, n] : kPhaseNames)
    if (n == name)
      return p;
  return std::nullopt;
}

void mlir::kiln::buildPhasePipeline(OpPassManager &pm, Phase phase,
                                    const KernelOptions &kernels,
                                    const TargetOptions &target,
                                    const GraphOptions &graph) {
  switch (phase) {
  case Phase::Import:
    return;
  case Phase::Graph:
    return buildGraphPipeline(pm, graph);
  case Phase::Linalg:
    if (kernels.precision != Precision::FP32 ||
        !kernels.layerPrecision.empty()) {
      KilnAssignPrecisionPassOptions precision;
      precision.precision = kernels.precision;
      precision.layerPrecision.assign(kernels.layerPrecision.begin(),
                                      kernels.layerPrecision.end());
      OpPassManager &fpm = pm.nest<func::FuncOp>();
      fpm.addPass(createKilnAssignPrecisionPass(precision));
      fpm.addPass(createCanonicalizerPass());
    }
    buildLinalgPipeline(pm, kernels.cublasLt && kernels.convProducts
                                ? kernels.cublasLtMinFlops
                                : -1);
    // A layer whose work is absurd for its data is worth a look (the
    // reference refuses it by its work budget instead).
    pm.addNestedPass<func::FuncOp>(createKilnWarnAbsurdWorkPass());
    // Before fusion, which leaves the chosen products alone.
    if (kernels.cublasLt) {
      KilnGpuSelectLibraryCallsPassOptions select;
      select.minFlops = kernels.cublasLtMinFlops;
      pm.addNestedPass<func::FuncOp>(
          createKilnGpuSelectLibraryCallsPass(select));
    }
    return;
  case Phase::Groups:
    return buildGroupsPipeline(pm);
  case Phase::Buffers:
    return buildBuffersPipeline(pm);
  case Phase::Kernels:
    return buildKernelsPipeline(pm, kernels);
  case Phase::Memory:
    return buildMemoryPipeline(pm);
  case Phase::Target:
    return buildTargetPipeline(pm, target);
  }
}

//===----------------------------------------------------------------------===//
// The pipelines
//===----------------------------------------------------------------------===//

void mlir::kiln::buildGraphPipeline(OpPassManager &pm,
                                    const GraphOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
  fpm.addPass(createKilnFoldBatchNormPass());
  fpm.addPass(createKilnEliminateDeadLayersPass());
  // After dead layers are gone (a dead head is not merged into a live one).
  fpm.addPass(createKilnMergeParallelLayersPass());
  // Layouts last: batch norm and the merge read channels-first filters.
  if (options.channelsLast) {
    fpm.addPass(createKilnChannelsLastPass());
    fpm.addPass(createKilnSinkTransposesPass());
  }
  fpm.addPass(createCanonicalizerPass());
}

void mlir::kiln::buildLinalgPipeline(OpPassManager &pm,
                                     int64_t convProductMinFlops) {
  pm.addPass(createKilnSignlessIntegersPass());
  KilnConvertToLinalgPassOptions convert;
  convert.convProductMinFlops = convProductMinFlops;
  pm.addNestedPass<func::FuncOp>(createKilnConvertToLinalgPass(convert));
  pm.addPass(createCanonicalizerPass());
  // Large splats are written where they are needed, not stored.
  pm.addNestedPass<func::FuncOp>(createKilnSplatsToFillsPass());
}

void mlir::kiln::buildGroupsPipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createKilnGpuFormFusionGroupsPass());
  // No CSE here: fills merged into one tensor that two ops accumulate into
  // make empty-tensor elimination put both results in one output buffer.
  fpm.addPass(createCanonicalizerPass());
}

/// Before one-shot bufferization: constants, concatenations and tensors
/// with many readers are given their buffers, in linear time, where the
/// analysis would take quadratic time or worse in the network's size.
static void addBufferizationInputs(OpPassManager &pm) {
  pm.addPass(createKilnConstantsToGlobalsPass());
  pm.addNestedPass<func::FuncOp>(createKilnConcatDestinationsPass());
  pm.addNestedPass<func::FuncOp>(createKilnSharedReadsPass());
}

void mlir::kiln::buildBuffersPipeline(OpPassManager &pm) {
  pm.addPass(createKilnDestinationPassingPass());
  addBufferizationInputs(pm);
  // Results are computed in the output buffers where possible (no copy).
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::kiln::buildKernelsPipeline(OpPassManager &pm,
                                      const KernelOptions &options) {
  KilnGpuFormLibraryCallsPassOptions calls;
  calls.tf32 = options.tf32;
  calls.workspace = options.cublasLtWorkspace;
  pm.addNestedPass<func::FuncOp>(createKilnGpuFormLibraryCallsPass(calls));
  KilnGpuFormKernelsPassOptions form;
  form.threads = options.threads;
  form.itemsPerThread = options.itemsPerThread;
  pm.addPass(createKilnGpuFormKernelsPass(form));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Layers that repeat share one kernel, compiled once.
  pm.addPass(createKilnGpuDedupKernelsPass());
}

void mlir::kiln::buildMemoryPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createKilnPlanMemoryPass());
}

void mlir::kiln::buildTargetPipeline(OpPassManager &pm,
                                     const TargetOptions &options) {
  for (unsigned arch : options.archs) {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = "sm_" + std::to_string(arch);
    attach.features = "+ptx" + std::to_string(getPtxIsaVersion(arch));
    attach.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(attach));
  }
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
  if (options.cubin) {
    KilnAssembleCubinsPassOptions cubins;
    cubins.cudaPath = options.cudaPath;
    cubins.ptxas = options.ptxas;
    pm.addPass(createKilnAssembleCubinsPass(cubins));
  }
}

void mlir::kiln::buildReferencePipeline(OpPassManager &pm,
                                        const ReferenceOptions &options) {
  bool fusionGroups = options.fusionGroups;
  // LReLU_TRT, Clip_TRT, Reorg_TRT, Normalize_TRT and Region_TRT as kiln
  // layers (ReferenceExecutor has run it already; running it again is a
  // no-op there, and kiln-opt's kiln-reference-pipeline needs it).
  pm.addNestedPass<func::FuncOp>(createKilnExpandBuiltinPluginsPass());
  // Outputs that are parts of one tensor: the tensor, returned once (the
  // executor has run it already and copies the parts out).
  pm.addPass(createKilnJoinOutputPartsPass());
  // Weights are passed by pointer, not compiled into the code.
  pm.addPass(createKilnOutlineWeightsPass());
  buildLinalgPipeline(pm);
  // Before anything is compiled: a layer of absurd work is refused by name.
  KilnCheckWorkPassOptions work;
  if (options.maxWork)
    work.maxWork = options.maxWork;
  pm.addNestedPass<func::FuncOp>(createKilnCheckWorkPass(work));
  if (fusionGroups)
    buildGroupsPipeline(pm);
  else {
    // Elementwise layers are computed where they are read, and a chain of
    // them (past what fuses) is written in one buffer, not one each.
    pm.addNestedPass<func::FuncOp>(createKilnFuseElementwisePass());
    pm.addNestedPass<func::FuncOp>(createKilnElementwiseInPlacePass());
  }
  KilnDestinationPassingPassOptions dps;
  dps.keepNames = false;
  pm.addPass(createKilnDestinationPassingPass(dps));
  addBufferizationInputs(pm);
  // Results are computed in the output buffers, not copied there.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass());
  // A fusion group's iterations, one after another.
  if (fusionGroups)
    pm.addPass(createForallToForLoopPass());
  // One function per layer: what follows costs more than linear time in a
  // function's size.
  pm.addPass(createKilnOutlineLinalgOpsPass());
  // Upstream's buffer-deallocation-pipeline, with the buffers of the
  // network function freed after their last use before the (pairwise)
  // simplification sees them.
  memref::ExpandReallocPassOptions realloc;
  realloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(realloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createKilnDeallocAfterLastUsePass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Before anything is compiled: inputs, weights, outputs and the peak of
  // the live buffers against the budget, naming the largest.
  KilnCheckMemoryPassOptions memory;
  memory.maxMemory = options.maxMemory;
  pm.addPass(createKilnCheckMemoryPass(memory));
  // A network of thousands of layers: its entry function in segments, which
  // LLVM compiles in linear time.
  pm.addPass(createKilnOutlineSegmentsPass());
  // Copies become loops, not calls into MLIR's C runner library.
  pm.addNestedPass<func::FuncOp>(createKilnMemRefCopyToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 arithmetic is done in f32, and bf16 conversions become integer
  // arithmetic: the JIT has no __truncsfbf2 to call (LLVM would call it to
  // round a bf16 fdiv).
  pm.addPass(math::createMathExtendToSupportedTypes()); // math.exp on bf16
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // Allocations call the executor's allocator, which counts them against
  // the budget.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  // A buffer's allocated pointer is its aligned one: the bare pointer that
  // carries it from a segment to the one that frees it is the one to free.
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  // The parts of buffers that kiln-outline-linalg-ops passed rebased.
  pm.addPass(createKilnLowerRebasePass());
  pm.addPass(createConvertMathToFuncs()); // math.ipowi
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // A failed allocation returns from the network: nothing is written
  // through a null pointer.
  pm.addPass(createKilnCheckAllocationsPass());
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

namespace {
/// Accepts "sm_80,sm_90" and nothing else.
struct TargetListParser : public llvm::cl::parser<std::string> {
  using llvm::cl::parser<std::string>::parser;
  bool parse(llvm::cl::Option &option, StringRef argName, StringRef arg,
             std::string &value) {
    std::string error;
    if (failed(parseTargets(arg, error)))
      return option.error(error);
    value = arg.str();
    return false;
  }
};

struct GraphPipelineOptions : public PassPipelineOptions<GraphPipelineOptions> {
  Option<bool> channelsLast{
      *this, "channels-last",
      llvm::cl::desc("Convolutions and pools channels last, with the layout "
                     "conversions that do not cancel (--opt-level=3, the "
                     "default)"),
      llvm::cl::init(GraphOptions().channelsLast)};
};

struct LinalgPipelineOptions
    : public PassPipelineOptions<LinalgPipelineOptions> {
  Option<bool> cublasLt{
      *this, "cublaslt",
      llvm::cl::desc("Choose cuBLASLt for the matrix products "
                     "(kiln-gpu-select-library-calls)"),
      llvm::cl::init(KernelOptions().cublasLt)};
  Option<bool> convProducts{
      *this, "conv-products",
      llvm::cl::desc("Convolutions as cuBLASLt products too (im2col)"),
      llvm::cl::init(KernelOptions().convProducts)};
  Option<Precision> precision{
      *this, "precision",
      llvm::cl::desc("Run the layers that allow it in fp16 or bf16 "
                     "(kiln-assign-precision; fp32: none)"),
      llvm::cl::init(KernelOptions().precision), precisionCLValues()};
};

struct KernelsPipelineOptions
    : public PassPipelineOptions<KernelsPipelineOptions> {
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads per block of kernels without a tile_config"),
      llvm::cl::init(KernelOptions().threads)};
  Option<int64_t> itemsPerThread{
      *this, "items-per-thread",
      llvm::cl::desc("Iterations per thread of kernels without a tile_config"),
      llvm::cl::init(KernelOptions().itemsPerThread)};

  Option<bool> tf32{
      *this, "tf32",
      llvm::cl::desc("f32 cuBLASLt products on TF32 tensor cores"),
      llvm::cl::init(KernelOptions().tf32)};
  Option<int64_t> cublasLtWorkspace{
      *this, "cublaslt-workspace",
      llvm::cl::desc("Bytes of cuBLASLt workspace per call"),
      llvm::cl::init(KernelOptions().cublasLtWorkspace)};

  KernelOptions get() const {
    KernelOptions options;
    options.threads = threads;
    options.itemsPerThread = itemsPerThread;
    options.tf32 = tf32;
    options.cublasLtWorkspace = cublasLtWorkspace;
    return options;
  }
};

struct TargetPipelineOptions
    : public PassPipelineOptions<TargetPipelineOptions> {
  Option<std::string, TargetListParser> targets{
      *this, "targets",
      llvm::cl::desc("GPU architectures, comma-separated (sm_80,sm_90)"),
      llvm::cl::init("sm_90")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit with libdevice and ptxas"),
      llvm::cl::init(TargetOptions().cudaPath)};
  Option<std::string> ptxas{
      *this, "ptxas",
      llvm::cl::desc("ptxas to make cubins with (default: the toolkit's, "
                     "then PATH)")};
  Option<bool> cubin{*this, "cubin",
                     llvm::cl::desc("Make cubins when ptxas is found"),
                     llvm::cl::init(true)};

  TargetOptions get() const {
    TargetOptions options;
    std::string error;
    options.archs = *parseTargets(targets, error); // checked when parsed
    options.cudaPath = cudaPath;
    options.ptxas = ptxas;
    options.cubin = cubin;
    return options;
  }
};

/// kiln-gpu-pipeline takes the options of both phases that have some.
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<bool> cublasLt{*this, "cublaslt",
                        llvm::cl::desc("Matrix products as cuBLASLt calls"),
                        llvm::cl::init(KernelOptions().cublasLt)};
  Option<bool> tf32{*this, "tf32", llvm::cl::desc("As kiln-kernels-pipeline"),
                    llvm::cl::init(KernelOptions().tf32)};
  Option<Precision> precision{
      *this, "precision", llvm::cl::desc("As kiln-linalg-pipeline"),
      llvm::cl::init(KernelOptions().precision), precisionCLValues()};
  Option<int64_t> threads{*this, "threads",
                          llvm::cl::desc("As kiln-kernels-pipeline"),
                          llvm::cl::init(KernelOptions().threads)};
  Option<int64_t> itemsPerThread{
      *this, "items-per-thread", llvm::cl::desc("As kiln-kernels-pipeline"),
      llvm::cl::init(KernelOptions().itemsPerThread)};
  Option<std::string, TargetListParser> targets{
      *this, "targets", llvm::cl::desc("As kiln-target-pipeline"),
      llvm::cl::init("sm_90")};
  Option<std::string> cudaPath{*this, "cuda-path",
                               llvm::cl::desc("As kiln-target-pipeline"),
                               llvm::cl::init(TargetOptions().cudaPath)};
  Option<std::string> ptxas{*this, "ptxas",
                            llvm::cl::desc("As kiln-target-pipeline")};
  Option<bool> cubin{*this, "cubin", llvm::cl::desc("As kiln-target-pipeline"),
                     llvm::cl::init(true)};
};
} // namespace

void mlir::kiln::registerKilnPipelines() {
  PassPipelineRegistration<GraphPipelineOptions>(
      "kiln-optimize",
      "The graph phase: canonicalize, CSE, batch-norm folding, dead-layer "
      "elimination, horizontal merge (and channels-last layouts)",
      [](OpPassManager &pm, const GraphPipelineOptions &options) {
        GraphOptions graph;
        graph.channelsLast = options.channelsLast;
        buildGraphPipeline(pm, graph);
      });
  PassPipelineRegistration<LinalgPipelineOptions>(
      "kiln-linalg-pipeline",
      "The linalg phase: kiln layers to linalg on tensors (and the products "
      "chosen for cuBLASLt)",
      [](OpPassManager &pm, const LinalgPipelineOptions &options) {
        KernelOptions kernels;
        kernels.cublasLt = options.cublasLt;
        kernels.convProducts = options.convProducts;
        kernels.precision = options.precision;
        buildPhasePipeline(pm, Phase::Linalg, kernels, TargetOptions());
      });
  PassPipelineRegistration<>(
      "kiln-groups-pipeline",
      "The groups phase: fusion groups, each an scf.forall that becomes one "
      "kernel",
      buildGroupsPipeline);
  PassPipelineRegistration<>(
      "kiln-buffers-pipeline",
      "The buffers phase: destination passing and one-shot bufferization",
      buildBuffersPipeline);
  PassPipelineRegistration<KernelsPipelineOptions>(
      "kiln-kernels-pipeline",
      "The kernels phase: one GPU kernel per linalg op",
      [](OpPassManager &pm, const KernelsPipelineOptions &options) {
        buildKernelsPipeline(pm, options.get());
      });
  PassPipelineRegistration<>(
      "kiln-memory-pipeline",
      "The memory phase: the host buffers placed in one arena",
      buildMemoryPipeline);
  PassPipelineRegistration<TargetPipelineOptions>(
      "kiln-target-pipeline",
      "The target phase: kernels to NVVM, PTX and cubins (gpu.binary)",
      [](OpPassManager &pm, const TargetPipelineOptions &options) {
        buildTargetPipeline(pm, options.get());
      });
  PassPipelineRegistration<GpuPipelineOptions>(
      "kiln-gpu-pipeline",
      "GPU code generation: every phase from linalg to target",
      [](OpPassManager &pm, const GpuPipelineOptions &options) {
        KernelOptions kernels;
        kernels.threads = options.threads;
        kernels.itemsPerThread = options.itemsPerThread;
        kernels.cublasLt = options.cublasLt;
        kernels.tf32 = options.tf32;
        kernels.precision = options.precision;
        TargetOptions target;
        std::string error;
        target.archs = *parseTargets(options.targets, error);
        target.cudaPath = options.cudaPath;
        target.ptxas = options.ptxas;
        target.cubin = options.cubin;
        for (Phase phase : {Phase::Linalg, Phase::Groups, Phase::Buffers,
                            Phase::Kernels, Phase::Memory, Phase::Target})
          buildPhasePipeline(pm, phase, kernels, target);
      });
  PassPipelineRegistration<>(
      "kiln-reference-pipeline",
      "The CPU reference: kiln IR to the LLVM dialect for the host",
      [](OpPassManager &pm) { buildReferencePipeline(pm); });
}
