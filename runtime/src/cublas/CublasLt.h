//===- CublasLt.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// The runtime's built-in library calls on cuBLASLt: the library's entry
// points (CublasLtSymbols.def), loaded once per process, and the handler of
// "cublaslt.matmul" steps. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_CUBLAS_CUBLASLT_H
#define KILN_RUNTIME_SRC_CUBLAS_CUBLASLT_H

#include "kiln/runtime/LibraryCall.h"

#include <cstddef>
#include <cstdint>

namespace kiln::rt::detail {

/// cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t (cublasLt.h).
struct CublasLtAlgo {
  uint64_t data[8];
};
struct CublasLtHeuristicResult {
  CublasLtAlgo algo;
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(CublasLtHeuristicResult) == 96,
              "cublasLtMatmulHeuristicResult_t is 96 bytes");

/// `type` as written, so that a function pointer type can declare a member.
template <typename T> using Same = T;

struct CublasLt {
  struct Api {
#define KILN_CUBLASLT_SYMBOL(member, symbol, type) Same<type> member = nullptr;
#include "cublas/CublasLtSymbols.def"
  } api;

  /// The process's cuBLASLt, loaded on first use, or why it cannot be.
  static StatusOr<const CublasLt *> get();
  /// OK for CUBLAS_STATUS_SUCCESS, else a DriverError naming `call`.
  Status check(const char *call, int status) const;
};

/// The handler of "cublaslt.matmul" steps (kiln/runtime/CublasLtMatmul.h),
/// registered by the runtime itself.
StatusOr<std::unique_ptr<LibraryCallInstance>>
prepareCublasLtMatmul(const LibraryCallSetup &setup);

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_CUBLAS_CUBLASLT_H
