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

#include <optional>

namespace mlir::kiln {

/// The function attribute kiln-destination-passing sets (with keep-names):
/// the number of buffers before the outputs.
inline constexpr llvm::StringLiteral kNumInputsAttrName = "kiln.num_inputs";

/// The function attribute kiln-outline-weights sets: the outlined blobs
/// (DenseResourceElementsAttr), in argument order.
inline constexpr llvm::StringLiteral kOutlinedWeightsAttrName =
    "kiln.outlined_weights";

/// The function attribute kiln-join-output-parts sets: for each output in
/// order, the result it is in and its element offset there (-1: the result
/// is the output), as a flat i64 array of pairs.
inline constexpr llvm::StringLiteral kOutputPartsAttrName = "kiln.output_parts";

/// The alignment of the buffers and globals that passes make before one-shot
/// bufferization: one-shot bufferization's own.
inline constexpr int64_t kBufferAlignment = 64;

/// The layer's name in `loc` (the importers' NameLoc, maybe inside a fused
/// or call-site location), or "".
std::string getLayerName(Location loc);

/// The points of `op`'s iteration space (the product of its static loop
/// ranges; a dynamic range counts 1): the work that kiln-check-work bounds
/// and kiln-warn-absurd-work compares with the elements `op` touches;
/// nullopt when they overflow 64 bits.
std::optional<uint64_t> countIterations(linalg::LinalgOp op);

/// The elements `op` reads and writes: its outputs, the inputs its body
/// reads, and the tensors its body reads from above (a window read in
/// place); a scalar counts 1, a dynamic dimension 1. Saturates at 2^64 - 1.
uint64_t countElementsAccessed(linalg::LinalgOp op);

/// Work is absurd for its data when it is more than kAbsurdWorkPerElement
/// operations for each element read and written and more than
/// kAbsurdWorkTotal operations in all (docs/reliability.md): a real layer
/// reuses an element at most a few thousand times (a matmul's ratio is at
/// most its smallest dimension), so only a window or a loop far larger than
/// its input gets there. `work` nullopt: more than 2^64.
inline constexpr uint64_t kAbsurdWorkPerElement = uint64_t(1) << 20;
inline constexpr uint64_t kAbsurdWorkTotal = uint64_t(1) << 32;
bool isAbsurdWork(std::optional<uint64_t> work, uint64_t elements);

/// Starts "layer 'name' work of N operations" (N "more than 2^64" when
/// `work` is nullopt) at `op`'s location, as an error or a warning: the
/// words kiln-check-work and kiln-warn-absurd-work share.
InFlightDiagnostic emitWorkDiagnostic(linalg::LinalgOp op,
                                      std::optional<uint64_t> work,
                                      DiagnosticSeverity severity);

#define GEN_PASS_DECL
#include "kiln/Codegen/Host/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/Host/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_CODEGEN_HOST_PASSES_H
