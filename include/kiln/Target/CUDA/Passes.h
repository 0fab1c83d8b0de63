//===- Passes.h - kiln CUDA target passes -----------------------*- C++ -*-===//
//
// Declares the CUDA target passes (Passes.td) and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_CUDA_PASSES_H
#define KILN_TARGET_CUDA_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Target/CUDA/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_TARGET_CUDA_PASSES_H
