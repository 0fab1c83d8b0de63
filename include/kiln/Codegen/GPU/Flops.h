//===- Flops.h - arithmetic a kernel does -----------------------*- C++ -*-===//
//
// kiln-gpu-form-kernels records on each launch the floating-point operations
// of its kernel (kiln_gpu.flops), which kiln-compile --report prints per
// step. The count is static: each floating-point arith or math op of a
// linalg op's body (not constants, selects or casts) counts once per
// iteration of the op's loops, so a multiply-accumulate counts two.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_FLOPS_H
#define KILN_CODEGEN_GPU_FLOPS_H

#include <cstdint>

namespace mlir {
class Operation;
namespace kiln {

/// The floating-point operations of `op`: a linalg op on static shapes, or
/// a fusion group's scf.forall (its trip count times the linalg ops in it).
/// Saturates at INT64_MAX.
int64_t countFlops(Operation *op);

} // namespace kiln
} // namespace mlir

#endif // KILN_CODEGEN_GPU_FLOPS_H
