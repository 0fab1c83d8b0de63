//===- CublasLtProduct.cpp - one product's cuBLASLt descriptors -*- C++ -*-===//
//
// The row-major product of kiln/runtime/CublasLtMatmul.h runs as a
// column-major one: D^T = op(B)^T op(A)^T, so B is cuBLASLt's A and A its B.
//
//===----------------------------------------------------------------------===//

#include "cublas/CublasLtProduct.h"

#include <algorithm>
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

/// The bytes of configuration attribute `i`: 16-bit shapes, 32-bit others.
size_t configBytes(int i) { return i >= 7 ? 2 : 4; }
// cublasLtMatmulAlgoCapAttributes_t, and the ends of the inner and cluster
// shape enums (cublasLt.h of CUDA 13.0).
constexpr int kCapSplitK = 0, kCapReductionMask = 1, kCapSwizzling = 2,
              kCapTiles = 6, kCapCustomOptionMax = 7, kCapStages = 13;
constexpr uint32_t kInnerShapeEnd = 5, kClusterShapeEnd = 52;
constexpr uint32_t kMaxSplitK = 1024;

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
  computeType = p.tf32 ? kCompute32FFastTF32 : kCompute32F;
  inType = cudaType(p.type);
  outType = cudaType(p.outType);
  if (Status s = lt.check("cublasLtMatmulDescCreate",
                          api.descCreate(&desc, computeType, kR32F));
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

CublasLtAlgorithm CublasLtProduct::record(const CublasLtAlgo &algo) const {
  CublasLtAlgorithm recorded;
  for (int i = 0; i < CublasLtAlgorithm::kConfigs; ++i) {
    uint32_t value = 0; // little-endian: a 16-bit value fills the low half
    size_t written = 0;
    if (lt.api.algoConfigGetAttribute(&algo, i, &value, configBytes(i),
                                      &written) == kSuccess)
      recorded.config[i] = value;
  }
  return recorded;
}

Status
CublasLtProduct::checkCapabilities(const CublasLtAlgo &algo,
                                   const CublasLtAlgorithm &recorded) const {
  auto capability = [&](int which, void *value, size_t bytes) {
    size_t written = 0;
    return lt.api.algoCapGetAttribute(&algo, which, value, bytes, &written) ==
                   kSuccess
               ? written
               : size_t(0);
  };
  auto listed = [&](int which, uint32_t value) {
    std::vector<uint32_t> ids(1024);
    size_t n = capability(which, ids.data(), ids.size() * 4) / 4;
    // An algorithm without a list takes only 0, "undefined".
    return n == 0 ? value == 0
                  : std::find(ids.begin(), ids.begin() + n, value) !=
                        ids.begin() + n;
  };
  int32_t splitK = 0, customMax = 0;
  uint32_t reductionMask = 0, swizzling = 0;
  capability(kCapSplitK, &splitK, 4);
  capability(kCapReductionMask, &reductionMask, 4);
  capability(kCapSwizzling, &swizzling, 4);
  capability(kCapCustomOptionMax, &customMax, 4);
  const uint32_t *c = recorded.config;
  std::string wrong;
  if (!listed(kCapTiles, c[kConfigTile]))
    wrong = "tile " + std::to_string(c[kConfigTile]);
  else if (!listed(kCapStages, c[kConfigStages]))
    wrong = "stages " + std::to_string(c[kConfigStages]);
  else if (c[kConfigSplitK] > (splitK ? kMaxSplitK : 1))
    wrong = "split-k " + std::to_string(c[kConfigSplitK]);
  else if (c[3] & ~reductionMask)
    wrong = "reduction scheme " + std::to_string(c[3]);
  else if (c[4] > swizzling)
    wrong = "CTA swizzling " + std::to_string(c[4]);
  else if (c[5] > uint32_t(std::max(customMax, 0)))
    wrong = "custom option " + std::to_string(c[5]);
  else if (c[7] >= kInnerShapeEnd || c[8] >= kClusterShapeEnd)
    wrong = "inner shape " + std::to_string(c[7]) + " or cluster shape " +
            std::to_string(c[8]);
  if (wrong.empty())
    return Status::ok();
  return Status(StatusCode::UnsupportedPlan,
                "algorithm " + std::to_string(c[kConfigId]) + " cannot take " +
                    wrong + " here");
}

StatusOr<CublasLtAlgo>
CublasLtProduct::rebuild(const CublasLtAlgorithm &recorded) const {
  CublasLtAlgo algo{};
  if (Status s = lt.check(
          "cublasLtMatmulAlgoInit",
          lt.api.algoInit(handle, computeType, kR32F, inType, inType, outType,
                          outType, static_cast<int>(recorded.config[kConfigId]),
                          &algo));
      !s)
    return s;
  // Values outside what the algorithm can take are refused here, not given
  // to cuBLASLt (which indexes its tables with some of them).
  if (Status s = checkCapabilities(algo, recorded); !s)
    return s;
  for (int i = kConfigId + 1; i < CublasLtAlgorithm::kConfigs; ++i) {
    uint32_t value = recorded.config[i];
    uint16_t shape = static_cast<uint16_t>(value);
    const void *bytes =
        configBytes(i) == 2 ? static_cast<const void *>(&shape) : &value;
    if (Status s = lt.check(
            "cublasLtMatmulAlgoConfigSetAttribute",
            lt.api.algoConfigSetAttribute(&algo, i, bytes, configBytes(i)));
        !s)
      return s;
  }
  return algo;
}

std::string CublasLtProduct::describe(const CublasLtAlgorithm &a) {
  return "algorithm " + std::to_string(a.config[kConfigId]) + " (tile " +
         std::to_string(a.config[kConfigTile]) + ", stages " +
         std::to_string(a.config[kConfigStages]) + ", split-k " +
         std::to_string(a.config[kConfigSplitK]) + ")";
}

} // namespace kiln::rt::detail
