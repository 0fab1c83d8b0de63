//===- CublasLtProduct.cpp - one product's cuBLASLt descriptors -*- C++ -*-===//
//
// The row-major product of kiln/runtime/CublasLtMatmul.h runs as a
// column-major one: D^T = op(B)^T op(A)^T, so B is cuBLASLt's A and A its B.
//
//===----------------------------------------------------------------------===//

#include "cublas/CublasLtProduct.h"

#include <cstdint>

namespace kiln::rt::detail {

namespace {
// cuBLASLt's enum values (cublasLt.h, library_types.h).
constexpr int kSuccess = 0;
constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;
constexpr int kCompute32F = 68, kCompute32FFastTF32 = 77;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7,
              kDescBiasPointer = 8;
constexpr int kEpilogueBias = 4, kEpilogueReluBias = 6;
constexpr int kLayoutBatchCount = 5, kLayoutBatchStride = 6;
constexpr int kPrefMaxWorkspace = 1;
constexpr int kConfigId = 0, kConfigTile = 1, kConfigSplitK = 2,
              kConfigStages = 6;

int cudaType(DataType t) {
  return t == DataType::F16 ? kR16F : t == DataType::BF16 ? kR16BF : kR32F;
}

void *pointer(uint64_t address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}
} // namespace

StatusOr<std::unique_ptr<CublasLtProduct>>
CublasLtProduct::create(const CublasLt &lt, const CublasLtMatmulParams &p) {
  std::unique_ptr<CublasLtProduct> product(new CublasLtProduct(lt, p));
  if (Status s = product->init(); !s)
    return s;
  return product;
}

CublasLtProduct::~CublasLtProduct() {
  for (void *layout : {layoutA, layoutB, layoutD})
    if (layout)
      (void)lt.api.layoutDestroy(layout);
  if (desc)
    (void)lt.api.descDestroy(desc);
  if (handle)
    (void)lt.api.destroy(handle);
}

Status CublasLtProduct::init() {
  const auto &api = lt.api;
  const CublasLtMatmulParams &p = params_;
  if (Status s = lt.check("cublasLtCreate", api.create(&handle)); !s)
    return s;
  int compute = p.tf32 ? kCompute32FFastTF32 : kCompute32F;
  if (Status s = lt.check("cublasLtMatmulDescCreate",
                          api.descCreate(&desc, compute, kR32F));
      !s)
    return s;
  // cuBLASLt's A is our B, its B our A (see the file comment).
  int32_t opA = p.transB ? kOpT : kOpN, opB = p.transA ? kOpT : kOpN;
  Status s = lt.check("cublasLtMatmulDescSetAttribute",
                      api.descSetAttribute(desc, kDescTransA, &opA, 4));
  if (s)
    s = lt.check("cublasLtMatmulDescSetAttribute",
                 api.descSetAttribute(desc, kDescTransB, &opB, 4));
  if (s && p.epilogue != CublasLtMatmulParams::Epilogue::None) {
    // The bias runs along cuBLASLt's rows (our columns); its address is the
    // context's, set at enqueue.
    int32_t epilogue = p.epilogue == CublasLtMatmulParams::Epilogue::Bias
                           ? kEpilogueBias
                           : kEpilogueReluBias;
    s = lt.check("cublasLtMatmulDescSetAttribute",
                 api.descSetAttribute(desc, kDescEpilogue, &epilogue, 4));
  }
  auto layout = [&](void *&out, int64_t rows, int64_t cols, int64_t ld,
                    int64_t stride, DataType element) {
    if (!s)
      return;
    s = lt.check("cublasLtMatrixLayoutCreate",
                 api.layoutCreate(&out, cudaType(element), rows, cols, ld));
    if (!s || p.batch == 1)
      return;
    int32_t count = static_cast<int32_t>(p.batch);
    s = lt.check("cublasLtMatrixLayoutSetAttribute",
                 api.layoutSetAttribute(out, kLayoutBatchCount, &count, 4));
    if (s)
      s = lt.check("cublasLtMatrixLayoutSetAttribute",
                   api.layoutSetAttribute(out, kLayoutBatchStride, &stride, 8));
  };
  layout(layoutA, p.transB ? p.k : p.n, p.transB ? p.n : p.k, p.ldb, p.strideB,
         p.type);
  layout(layoutB, p.transA ? p.m : p.k, p.transA ? p.k : p.m, p.lda, p.strideA,
         p.type);
  layout(layoutD, p.n, p.m, p.ldd, p.strideD, p.outType);
  return s;
}

StatusOr<std::vector<CublasLtHeuristicResult>>
CublasLtProduct::candidates(int count) const {
  const auto &api = lt.api;
  void *preference = nullptr;
  Status s = lt.check("cublasLtMatmulPreferenceCreate",
                      api.preferenceCreate(&preference));
  if (!s)
    return s;
  uint64_t workspace = params_.workspaceBytes;
  s = lt.check(
      "cublasLtMatmulPreferenceSetAttribute",
      api.preferenceSetAttribute(preference, kPrefMaxWorkspace, &workspace, 8));
  std::vector<CublasLtHeuristicResult> results(count > 0 ? count : 1);
  int returned = 0;
  if (s)
    s = lt.check("cublasLtMatmulAlgoGetHeuristic",
                 api.heuristic(handle, desc, layoutA, layoutB, layoutD, layoutD,
                               preference, static_cast<int>(results.size()),
                               results.data(), &returned));
  (void)api.preferenceDestroy(preference);
  if (!s)
    return s;
  std::vector<CublasLtHeuristicResult> usable;
  for (int i = 0; i < returned && i < static_cast<int>(results.size()); ++i)
    if (results[i].state == kSuccess &&
        results[i].workspaceSize <= params_.workspaceBytes)
      usable.push_back(results[i]);
  if (usable.empty())
    return Status(StatusCode::UnsupportedPlan,
                  "cuBLASLt has no algorithm for this product (" + problem() +
                      ") within a workspace of " +
                      std::to_string(params_.workspaceBytes) + " bytes");
  return usable;
}

Status CublasLtProduct::check(const CublasLtAlgo &algo,
                              uint64_t &needed) const {
  CublasLtHeuristicResult result{};
  int status = lt.api.algoCheck(handle, desc, layoutA, layoutB, layoutD,
                                layoutD, &algo, &result);
  if (Status s = lt.check("cublasLtMatmulAlgoCheck", status); !s)
    return s;
  needed = result.workspaceSize;
  return Status::ok();
}

Status CublasLtProduct::run(const CublasLtAlgo &algo, void *stream,
                            const uint64_t *buffers) {
  const CublasLtMatmulParams &p = params_;
  // With a residual, C (of D's layout) is the last buffer and adds in.
  const float alpha = 1, beta = p.residual ? 1 : 0;
  void *d = pointer(buffers[2]);
  void *c = p.residual ? pointer(buffers[p.numBuffers() - 1]) : d;
  auto matmul = [&] {
    return lt.check("cublasLtMatmul",
                    lt.api.matmul(handle, desc, &alpha, pointer(buffers[1]),
                                  layoutA, pointer(buffers[0]), layoutB, &beta,
                                  c, layoutD, d, layoutD, &algo,
                                  pointer(buffers[3]), p.workspaceBytes,
                                  stream));
  };
  if (p.epilogue == CublasLtMatmulParams::Epilogue::None)
    return matmul();
  // Each context has its own bias address, set in the shared descriptor for
  // the call: one context at a time.
  std::lock_guard<std::mutex> lock(biasMutex);
  void *bias = pointer(buffers[4]);
  if (Status s = lt.check(
          "cublasLtMatmulDescSetAttribute",
          lt.api.descSetAttribute(desc, kDescBiasPointer, &bias, sizeof(bias)));
      !s)
    return s;
  return matmul();
}

std::string CublasLtProduct::problem() const {
  const CublasLtMatmulParams &p = params_;
  const char *epilogue[] = {"", ", bias epilogue", ", relu-bias epilogue"};
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
         std::to_string(p.k) + ", batch " + std::to_string(p.batch) + ", " +
         dataTypeName(p.type) + (p.tf32 ? " (tf32)" : "") + " -> " +
         dataTypeName(p.outType) + epilogue[static_cast<int>(p.epilogue)] +
         (p.residual ? ", residual" : "");
}

std::string CublasLtProduct::describe(const CublasLtAlgo &algo) const {
  auto attribute = [&](int which) -> std::string {
    uint32_t value = 0;
    size_t written = 0;
    if (lt.api.algoConfigGetAttribute(&algo, which, &value, sizeof(value),
                                      &written) != kSuccess)
      return "?";
    return std::to_string(value);
  };
  return "algorithm " + attribute(kConfigId) + " (tile " +
         attribute(kConfigTile) + ", stages " + attribute(kConfigStages) +
         ", split-k " + attribute(kConfigSplitK) + ")";
}

} // namespace kiln::rt::detail
