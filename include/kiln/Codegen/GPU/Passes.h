//===- Passes.h - kiln GPU code generation passes ---------------*- C++ -*-===//
//
// Declares the GPU code generation passes (Passes.td) and their
// registration.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_PASSES_H
#define KILN_CODEGEN_GPU_PASSES_H

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/GPU/Passes.h.inc"

/// What kiln-gpu-dedup-kernels does, for passes that make many kernels:
/// keeps one kernel of each set of identical kernels in every gpu.module of
/// `module` and points the launches of the others at it.
void deduplicateKernels(ModuleOp module);

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/GPU/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_CODEGEN_GPU_PASSES_H
