//===- Passes.h - kiln host code generation passes --------------*- C++ -*-===//
//
// Declares the host code generation passes (Passes.td), their registration,
// and the attributes they leave for executors and the plan translation.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_HOST_PASSES_H
#define KILN_CODEGEN_HOST_PASSES_H

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "kiln/Support/Sizes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

/// The function attribute kiln-destination-passing sets (with keep-names):
/// the number of buffers before the outputs.
inline constexpr llvm::StringLiteral kNumInputsAttrName = "kiln.num_inputs";

/// The function attribute kiln-outline-weights sets: the outlined blobs
/// (DenseResourceElementsAttr), in argument order.
inline constexpr llvm::StringLiteral kOutlinedWeightsAttrName =
    "kiln.outlined_weights";

/// The alignment of the buffers and globals that passes make before one-shot
/// bufferization: one-shot bufferization's own.
inline constexpr int64_t kBufferAlignment = 64;

/// The layer's name in `loc` (the importers' NameLoc, maybe inside a fused
/// or call-site location), or "".
std::string getLayerName(Location loc);

#define GEN_PASS_DECL
#include "kiln/Codegen/Host/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/Host/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_CODEGEN_HOST_PASSES_H
