//===- CublasLtProduct.h - one product's cuBLASLt descriptors ---*- C++ -*-===//
//
// The cuBLASLt handle, operation descriptor and matrix layouts of one
// cublaslt.matmul step (kiln/runtime/CublasLtMatmul.h), shared by the step's
// handler (CublasLtMatmul.cpp) and tactic selection (CublasLtTactics.cpp):
// the heuristic's candidate algorithms, the check of a recorded one, and the
// product itself. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_CUBLAS_CUBLASLTPRODUCT_H
#define KILN_RUNTIME_SRC_CUBLAS_CUBLASLTPRODUCT_H

#include "cublas/CublasLt.h"
#include "kiln/runtime/CublasLtMatmul.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::rt::detail {

class CublasLtProduct {
public:
  /// The descriptors of `params`' product.
  static StatusOr<std::unique_ptr<CublasLtProduct>>
  create(const CublasLt &lt, const CublasLtMatmulParams &params);
  ~CublasLtProduct();
  CublasLtProduct(const CublasLtProduct &) = delete;
  CublasLtProduct &operator=(const CublasLtProduct &) = delete;

  /// Up to `count` algorithms of cuBLASLt's heuristic, best first, that fit
  /// the step's workspace; UnsupportedPlan when there is none.
  StatusOr<std::vector<CublasLtHeuristicResult>> candidates(int count) const;
  /// cublasLtMatmulAlgoCheck of `algo` for this product: OK and its
  /// workspace in `needed`, or the cuBLASLt status that refuses it.
  Status check(const CublasLtAlgo &algo, uint64_t &needed) const;
  /// `algo`'s configuration, for a plan (workspace, version and compute
  /// capability are left to the caller).
  CublasLtAlgorithm record(const CublasLtAlgo &algo) const;
  /// The algorithm of a recorded configuration, made with
  /// cublasLtMatmulAlgoInit and cublasLtMatmulAlgoConfigSetAttribute (not
  /// yet checked), or the cuBLASLt status that refuses it.
  StatusOr<CublasLtAlgo> rebuild(const CublasLtAlgorithm &recorded) const;
  /// Enqueues D = epilogue(A B [+ C]) with `algo`; `buffers` as the step's.
  /// Thread-safe (a bias address is set in the shared descriptor under a
  /// lock).
  Status run(const CublasLtAlgo &algo, void *stream, const uint64_t *buffers);

  /// "512x768x3072, batch 1, f16 -> f16, bias epilogue".
  std::string problem() const;
  /// "algorithm 21 (tile 18, stages 8, split-k 1)".
  static std::string describe(const CublasLtAlgorithm &algorithm);
  const CublasLtMatmulParams &params() const { return params_; }

private:
  CublasLtProduct(const CublasLt &lt, const CublasLtMatmulParams &params)
      : lt(lt), params_(params) {}
  Status init();
  /// Whether `algo` (of the recorded id) can take the recorded configuration,
  /// by cuBLASLt's capability attributes.
  Status checkCapabilities(const CublasLtAlgo &algo,
                           const CublasLtAlgorithm &recorded) const;

  const CublasLt &lt;
  CublasLtMatmulParams params_;
  std::mutex biasMutex;
  int computeType = 0, inType = 0, outType = 0;
  void *handle = nullptr, *desc = nullptr;
  void *layoutA = nullptr, *layoutB = nullptr, *layoutD = nullptr;
};

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_CUBLAS_CUBLASLTPRODUCT_H
