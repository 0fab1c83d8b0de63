//===- PlanCompiler.h - kiln IR to a plan bundle ----------------*- C++ -*-===//
//
// The GPU back end: the network function of a module in the kiln dialect
// becomes kernels (linalg -> one gpu.func per op -> NVVM -> PTX, and a cubin
// through ptxas when it is present) and a plan: the steps that launch them,
// with every buffer placed in the weights or in one activation arena.
//
//   lowerToGpu          kiln -> linalg -> buffers -> gpu.launch_func + gpu.module
//   serializeKernels    gpu.module -> NVVM -> PTX / cubin per architecture
//   buildPlan           the host function -> kiln::rt::PlanContents
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_PLAN_PLANCOMPILER_H
#define KILN_TARGET_PLAN_PLANCOMPILER_H

#include "kiln/runtime/Plan.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace kiln {
/// The runtime's plan types (kiln::rt) seen from the compiler (mlir::kiln).
namespace rt = ::kiln::rt;

struct PlanOptions {
  /// Target architectures, compute capability times ten (80, 90). The first
  /// is the one --emit=ptx prints; the highest also ships as PTX.
  std::vector<unsigned> archs = {90};
  /// The CUDA toolkit: libdevice (for math functions) and ptxas.
  std::string cudaPath = "/usr/local/cuda";
  /// ptxas to make cubins with; empty: <cudaPath>/bin/ptxas, then PATH.
  std::string ptxas;
  /// Make cubins when ptxas is found (PTX only otherwise).
  bool cubin = true;
  /// Defaults for kernels without a #kiln.tile_config.
  int64_t threads = 256;
  int64_t itemsPerThread = 1;
  /// Recorded in the plan's compatibility record.
  std::string buildOptions;
};

/// Registers the dialects and interfaces the GPU back end needs.
void registerPlanCompilerDialects(DialectRegistry &registry);

/// Parses "sm_80,sm_90" into {80, 90}; an error message otherwise.
FailureOr<std::vector<unsigned>> parseTargets(StringRef list,
                                              std::string &error);

/// Lowers the single network function of `module` (kiln IR) to a host
/// function on buffers (inputs, then outputs; see DestinationPassing.h) that
/// launches the kernels of `gpu.module @kiln_kernels`.
LogicalResult lowerToGpu(ModuleOp module, const PlanOptions &options);

/// Lowers the kernels of `module` (after lowerToGpu) to NVVM and serializes
/// them: PTX for every target, and cubins when options.cubin and ptxas is
/// found. The gpu.module becomes a gpu.binary. `kernels` receives every
/// kernel's name and tile configuration.
FailureOr<std::vector<rt::KernelImage>>
serializeKernels(ModuleOp module, const PlanOptions &options,
                 std::vector<rt::KernelDesc> &kernels);

/// The PTX ISA version (times ten) kernels for `arch` are generated in.
unsigned ptxIsaVersion(unsigned arch);

/// Builds the plan from the host function of `module` (after
/// serializeKernels): tensors, weights, steps and the arena layout.
FailureOr<rt::PlanContents> buildPlan(ModuleOp module,
                                      std::vector<rt::KernelDesc> kernels,
                                      std::vector<rt::KernelImage> images,
                                      const PlanOptions &options);

/// All three steps.
FailureOr<rt::PlanContents> compileToPlan(ModuleOp module,
                                          const PlanOptions &options);

} // namespace kiln
} // namespace mlir

#endif // KILN_TARGET_PLAN_PLANCOMPILER_H
