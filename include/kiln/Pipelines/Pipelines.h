//===- Pipelines.h - kiln's named pass pipelines ----------------*- C++ -*-===//
//
// The phases of compilation, each a pipeline of registered passes built in
// one place (Pipelines.cpp) and registered by name, so that `kiln-opt` runs
// exactly what `kiln-compile --emit=<phase>` runs:
//
//   import ─ kiln-optimize ─ kiln-linalg-pipeline ─ kiln-buffers-pipeline
//     ─ kiln-kernels-pipeline ─ kiln-memory-pipeline ─ kiln-target-pipeline
//     ─ (translation to a plan)
//
// and, for the CPU reference executor, kiln-reference-pipeline (from the
// optimized kiln IR to the LLVM dialect for the host).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "kiln/Pipelines/Options.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>

namespace mlir {
class OpPassManager;
namespace kiln {

/// The phases, in order; each names the IR after it.
enum class Phase {
  /// As imported.
  Import,
  /// After the graph passes (kiln-optimize): kiln IR.
  Graph,
  /// Lowered to linalg/tensor/arith/math on tensors.
  Linalg,
  /// Fusion groups formed: each scf.forall (kiln_gpu.fusion_group) becomes
  /// one kernel.
  Groups,
  /// In destination-passing style on buffers (one-shot bufferization).
  Buffers,
  /// One gpu.func per linalg op, launched from the host function.
  Kernels,
  /// The host buffers placed in the arena.
  Memory,
  /// The kernels lowered to NVVM and serialized (gpu.binary).
  Target,
};

/// The phase's name as --emit spells it: import, kiln, linalg, groups, buffers,
/// kernels, memory, target.
StringRef getPhaseName(Phase phase);
/// The phase --emit=`name` stops after (also accepts `gpu` for kernels).
std::optional<Phase> parsePhaseName(StringRef name);

/// Adds the pipeline that takes a module from the phase before `phase` to
/// `phase` (nothing for Import).
void buildPhasePipeline(OpPassManager &pm, Phase phase,
                        const KernelOptions &kernels,
                        const TargetOptions &target,
                        const GraphOptions &graph = {});

/// kiln-optimize: canonicalize, CSE, batch-norm folding, dead-layer
/// elimination, horizontal merge; with `channelsLast`, kiln-channels-last
/// and kiln-sink-transposes.
void buildGraphPipeline(OpPassManager &pm, const GraphOptions &options = {});
/// kiln-linalg-pipeline: kiln-signless-integers, kiln-convert-to-linalg,
/// canonicalize,
/// kiln-splats-to-fills.
/// `convProductMinFlops`: as kiln-convert-to-linalg's option (-1: off).
void buildLinalgPipeline(OpPassManager &pm, int64_t convProductMinFlops = -1);
/// kiln-groups-pipeline: kiln-gpu-form-fusion-groups, canonicalize.
void buildGroupsPipeline(OpPassManager &pm);
/// kiln-buffers-pipeline: kiln-destination-passing, eliminate-empty-tensors,
/// one-shot-bufferize, canonicalize.
void buildBuffersPipeline(OpPassManager &pm);
/// kiln-kernels-pipeline: kiln-gpu-form-kernels, canonicalize, CSE.
void buildKernelsPipeline(OpPassManager &pm, const KernelOptions &options);
/// kiln-memory-pipeline: kiln-plan-memory.
void buildMemoryPipeline(OpPassManager &pm);
/// kiln-target-pipeline: the kernels to NVVM, one nvvm-attach-target per
/// architecture, gpu-module-to-binary (PTX), kiln-assemble-cubins.
void buildTargetPipeline(OpPassManager &pm, const TargetOptions &options);
/// kiln-reference-pipeline: from kiln IR to the LLVM dialect on the host
/// (weights outlined as arguments, bare-pointer calling convention).
/// With `fusionGroups`, the groups phase runs too and its loops run on the
/// host (scf-forall-to-for), so that fusion is checked without a GPU.
/// A linalg op of more than `maxWork` iterations is refused
/// (kiln-check-work), and so is a network that would hold more than
/// `maxMemory` bytes at once (kiln-check-memory). Allocations call
/// `_mlir_memref_to_llvm_alloc` and `_mlir_memref_to_llvm_free`, which the
/// executor supplies, and a failed one returns from the network at once
/// (kiln-check-allocations).
void buildReferencePipeline(OpPassManager &pm,
                            const ReferenceOptions &options = {});

/// Registers every pipeline above by name.
void registerKilnPipelines();

} // namespace kiln
} // namespace mlir

#endif // KILN_PIPELINES_PIPELINES_H
