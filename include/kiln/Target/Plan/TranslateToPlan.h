//===- TranslateToPlan.h - compiled IR to plan contents ---------*- C++ -*-===//
//
// The last step of the GPU back end: a module after the target phase (a host
// function on buffers whose allocations have arena offsets, launching the
// kernels of `gpu.binary @kiln_kernels`) becomes the runtime's PlanContents.
// This is a translation only: every decision (kernels, launch dimensions,
// the memory plan, the images) is already in the IR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_PLAN_TRANSLATETOPLAN_H
#define KILN_TARGET_PLAN_TRANSLATETOPLAN_H

#include "kiln/Support/Precision.h"
#include "kiln/runtime/Plan.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::kiln {
/// The runtime's plan types (kiln::rt) seen from the compiler (mlir::kiln).
namespace rt = ::kiln::rt;

struct PlanTranslationOptions {
  /// The architectures the plan was compiled for, times ten (80, 90); every
  /// image must be for one of them. Recorded in the compatibility record.
  std::vector<unsigned> archs = {90};
  /// The options the plan was compiled with, recorded for people.
  std::string buildOptions;
  /// The largest plan: the weights and the arena together may not take
  /// more bytes (the compilation's memory budget).
  uint64_t maxBytes = uint64_t(16) << 30;
  /// The lowest precision of the plan's layers, recorded (spelled fp32,
  /// fp16 or bf16) in the compatibility record.
  Precision precision = Precision::FP32;
};

/// Translates `module` into plan contents: the I/O tensors (the host
/// function's arguments; `kiln.num_inputs` says where outputs start), the
/// weights (memref.globals), the kernel table (from the launches and their
/// `kiln_gpu.tile_config`), the images (the gpu.binary's objects), the arena
/// (`kiln_gpu.arena_bytes`, `kiln_gpu.arena_offset`) and one step per
/// launch, device copy and memset. Errors name the op that cannot be
/// expressed.
FailureOr<rt::PlanContents>
translateToPlan(ModuleOp module, const PlanTranslationOptions &options);

} // namespace mlir::kiln

#endif // KILN_TARGET_PLAN_TRANSLATETOPLAN_H
