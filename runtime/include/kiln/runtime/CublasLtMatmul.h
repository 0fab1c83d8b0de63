//===- CublasLtMatmul.h - the cublaslt.matmul library call ------*- C++ -*-===//
//
// The parameters of a "cublaslt.matmul" library-call step and their payload
// bytes, shared by the compiler (which writes them) and the runtime's handler
// (which reads them and runs cuBLASLt, loaded at run time). The step's
// buffers are A, B, D, a workspace and, with an epilogue, a bias; per batch b,
//
//   D[b] (m x n) = epilogue(op(A[b]) (m x k) * op(B[b]) (k x n))
//
// where the epilogue adds bias[j] to column j (then maybe takes max(x, 0)),
// all row-major: A[b] starts strideA elements after A[b-1] (0: one A for
// every batch), its rows are lda elements apart, and op(A) is A's transpose
// when transA (A is then stored k x m); likewise B and D. Products
// accumulate in f32 (TF32 tensor cores for f32 when tf32 is set).
//
// A payload may record the cuBLASLt algorithm to run (kiln/runtime/Tactics.h
// measures the candidates and records the fastest); the handler then checks
// it with cublasLtMatmulAlgoCheck when the engine is made and refuses the
// plan, saying where the algorithm was chosen, when it does not fit this GPU
// or this cuBLASLt. Without one, cuBLASLt's heuristic chooses at that time.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CUBLASLTMATMUL_H
#define KILN_RUNTIME_CUBLASLTMATMUL_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln::rt {

/// A cuBLASLt algorithm, as recorded in a plan: its configuration, which
/// the runtime gives back to cublasLtMatmulAlgoInit and
/// cublasLtMatmulAlgoConfigSetAttribute (the documented way to keep one;
/// cublasLtMatmulAlgo_t's bytes are opaque).
struct CublasLtAlgorithm {
  /// cublasLtMatmulAlgoConfigAttributes_t: the algorithm's id, tile,
  /// split-k, reduction scheme, CTA swizzling, custom option, stages, inner
  /// shape and cluster shape, by attribute number (the last two are 16-bit).
  static constexpr int kConfigs = 9;
  uint32_t config[kConfigs] = {};
  /// cublasLtGetVersion() of the library that chose it, e.g. 130100.
  uint64_t cublasLtVersion = 0;
  /// The compute capability times ten of the GPU it was chosen on.
  uint32_t computeCapability = 0;
  /// The workspace it needs (at most the step's workspace).
  uint64_t workspaceBytes = 0;
};

struct CublasLtMatmulParams {
  /// The callee's name in a plan.
  static constexpr const char *kCallee = "cublaslt.matmul";
  /// A and B: F32, F16 or BF16.
  DataType type = DataType::F32;
  /// D and the bias: `type`, or F32 when `type` is F16 or BF16 (the f32
  /// accumulator written as is), or F16/BF16 from F32 inputs never.
  DataType outType = DataType::F32;
  /// F32 only: TF32 tensor cores (10-bit mantissa inputs, f32 accumulation).
  bool tf32 = false;
  bool transA = false, transB = false;
  int64_t m = 1, n = 1, k = 1, batch = 1;
  int64_t lda = 1, ldb = 1, ldd = 1;
  int64_t strideA = 0, strideB = 0, strideD = 0;
  /// The workspace buffer's size, the most cuBLASLt may use.
  uint64_t workspaceBytes = 0;
  /// What cuBLASLt does to D before it writes it: nothing, or adds a bias of
  /// n elements (the buffer after the workspace) to every row, then maybe a
  /// ReLU.
  enum class Epilogue : uint8_t { None, Bias, ReluBias };
  Epilogue epilogue = Epilogue::None;
  /// D = A B + C before the epilogue (beta 1), C a matrix of D's type and
  /// layout: a residual (the step's last buffer).
  bool residual = false;
  /// The algorithm to run; none: cuBLASLt's heuristic chooses at load.
  std::optional<CublasLtAlgorithm> algorithm;

  /// The bytes of A, B and D a call touches (from the first element);
  /// UINT64_MAX when that count overflows, so that no buffer is enough.
  uint64_t bytesA() const;
  uint64_t bytesB() const;
  uint64_t bytesD() const;
  /// The bias's bytes (0 without one).
  uint64_t bytesBias() const;
  /// The step's buffers: A, B, D, the workspace, the bias if any, and C if
  /// any.
  size_t numBuffers() const {
    return 4 + (epilogue != Epilogue::None) + residual;
  }
};

/// The payload of a step (versioned little-endian fields).
std::string encodeCublasLtMatmul(const CublasLtMatmulParams &params);
/// The parameters in `payload`, checked: a supported type, positive sizes,
/// leading dimensions that hold a row, batches of D that do not overlap, an
/// algorithm's workspace within the step's. InvalidPlan, saying what is
/// wrong, otherwise. Payloads of version 4 (before algorithms) still read.
StatusOr<CublasLtMatmulParams> decodeCublasLtMatmul(const std::string &payload);

} // namespace kiln::rt

#endif // KILN_RUNTIME_CUBLASLTMATMUL_H
