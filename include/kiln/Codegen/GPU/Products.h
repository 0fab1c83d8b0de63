//===- Products.h - matrix products that a library can compute --*- C++ -*-===//
//
// Recognizes the linalg.generic that kiln.matmul, kiln.gemm and
// kiln.fully_connected lower to (MatrixToLinalg.cpp): loops (batch..., m,
// n, k), D[batch, m, n] += A[batch?, m, k] * B[batch?, k, n] with either
// operand transposed, on f32, f16 or bf16. cuBLASLt computes such a product
// (kiln-gpu-select-library-calls, kiln-gpu-form-library-calls).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_PRODUCTS_H
#define KILN_CODEGEN_GPU_PRODUCTS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::kiln {

struct Product {
  /// The output's rank: batch dimensions, then m and n.
  int64_t rank = 2;
  int64_t m = 1, n = 1, k = 1;
  /// A (B) is stored k x m (n x k).
  bool transA = false, transB = false;
  /// A (B) has every batch dimension of D; otherwise none (one matrix for
  /// all batches).
  bool batchedA = false, batchedB = false;
  /// A's and B's element type (f32, f16, bf16), and D's: the same, or f32
  /// for f16 and bf16 inputs (extended to f32 before they multiply).
  Type element, accumulator;
};

/// `op` as a product, when it is one: two inputs and one init, the loops and
/// maps above (batch dimensions of an operand all there or all absent /
/// broadcast), a body that is acc + a * b, static sizes, one element type.
std::optional<Product> matchProduct(linalg::GenericOp op);

} // namespace mlir::kiln

#endif // KILN_CODEGEN_GPU_PRODUCTS_H
