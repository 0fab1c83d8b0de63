//===- CublasLtMatmul.cpp - the cublaslt.matmul handler ---------*- C++ -*-===//
//
// cuBLASLt, loaded at run time like the driver (once per process, on the
// first engine that calls it; KILN_CUBLASLT_LIBRARY names the library to
// load instead of the usual names), runs the row-major products of
// kiln/runtime/CublasLtMatmul.h as column-major ones: D^T = op(B)^T op(A)^T,
// so B is cuBLASLt's A and A its B. Each step gets its descriptors and the
// algorithm of cuBLASLt's heuristic (within the plan's workspace) when its
// engine is made; enqueue is one cublasLtMatmul.
//
//===----------------------------------------------------------------------===//

#include "cublas/CublasLt.h"

#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/LibraryCall.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

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

int cudaType(DataType t) {
  return t == DataType::F16 ? kR16F : t == DataType::BF16 ? kR16BF : kR32F;
}
} // namespace

StatusOr<const CublasLt *> CublasLt::get() {
  static std::once_flag once;
  static CublasLt *library = nullptr;
  static Status failure;
  std::call_once(once, [] {
    std::string tried;
    void *handle = nullptr;
    std::vector<std::string> names = {"libcublasLt.so", "libcublasLt.so.13",
                                      "libcublasLt.so.12",
                                      "/usr/local/cuda/lib64/libcublasLt.so"};
    if (const char *chosen = std::getenv("KILN_CUBLASLT_LIBRARY");
        chosen && *chosen)
      names = {chosen};
    for (const std::string &name : names) {
      dlerror();
      handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      const char *why = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
    }
    if (!handle) {
      failure = Status(StatusCode::DriverUnavailable,
                       "cannot load cuBLASLt, the CUDA toolkit's matrix "
                       "library (" +
                           tried + ")");
      return;
    }
    auto lt = new CublasLt;
    std::string missing;
#define KILN_CUBLASLT_SYMBOL(member, symbol, type)                             \
  lt->api.member = reinterpret_cast<Same<type>>(dlsym(handle, #symbol));       \
  if (!lt->api.member && missing.empty())                                      \
    missing = #symbol;
#include "cublas/CublasLtSymbols.def"
    if (!missing.empty()) {
      failure = Status(StatusCode::DriverUnavailable,
                       "the cuBLASLt library loaded has no '" + missing +
                           "': too old a cuBLASLt");
      delete lt;
      dlclose(handle);
      return;
    }
    library = lt; // kept for the process, as the driver is
  });
  if (!library)
    return failure;
  return static_cast<const CublasLt *>(library);
}

Status CublasLt::check(const char *call, int status) const {
  if (status == kSuccess)
    return Status::ok();
  const char *text = api.statusString ? api.statusString(status) : nullptr;
  return Status(StatusCode::DriverError,
                std::string(call) + " failed with " +
                    (text ? text : "cuBLAS status " + std::to_string(status)));
}

namespace {

/// One step's descriptors and algorithm; its enqueue is thread-safe (the
/// handle and descriptors are only read).
class MatmulInstance : public LibraryCallInstance {
public:
  MatmulInstance(const CublasLt &lt, const CublasLtMatmulParams &p)
      : lt(lt), params(p) {}
  ~MatmulInstance() override {
    for (void *layout : {layoutA, layoutB, layoutD})
      if (layout)
        (void)lt.api.layoutDestroy(layout);
    if (desc)
      (void)lt.api.descDestroy(desc);
    if (handle)
      (void)lt.api.destroy(handle);
  }

  Status prepare() {
    const auto &api = lt.api;
    const CublasLtMatmulParams &p = params;
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
      // The bias runs along cuBLASLt's rows (our columns); its address is
      // the context's, set at enqueue.
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
        s = lt.check(
            "cublasLtMatrixLayoutSetAttribute",
            api.layoutSetAttribute(out, kLayoutBatchStride, &stride, 8));
    };
    layout(layoutA, p.transB ? p.k : p.n, p.transB ? p.n : p.k, p.ldb,
           p.strideB, p.type);
    layout(layoutB, p.transA ? p.m : p.k, p.transA ? p.k : p.m, p.lda,
           p.strideA, p.type);
    layout(layoutD, p.n, p.m, p.ldd, p.strideD, p.outType);
    if (!s)
      return s;
    void *preference = nullptr;
    s = lt.check("cublasLtMatmulPreferenceCreate",
                 api.preferenceCreate(&preference));
    if (!s)
      return s;
    uint64_t workspace = p.workspaceBytes;
    s = lt.check("cublasLtMatmulPreferenceSetAttribute",
                 api.preferenceSetAttribute(preference, kPrefMaxWorkspace,
                                            &workspace, 8));
    CublasLtHeuristicResult result{};
    int returned = 0;
    if (s)
      s = lt.check("cublasLtMatmulAlgoGetHeuristic",
                   api.heuristic(handle, desc, layoutA, layoutB, layoutD,
                                 layoutD, preference, 1, &result, &returned));
    (void)api.preferenceDestroy(preference);
    if (!s)
      return s;
    if (returned < 1 || result.state != kSuccess)
      return Status(StatusCode::UnsupportedPlan,
                    "cuBLASLt has no algorithm for this product (" +
                        std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                        std::to_string(p.k) + ", batch " +
                        std::to_string(p.batch) + ") within a workspace of " +
                        std::to_string(p.workspaceBytes) + " bytes");
    algo = result.algo;
    return Status::ok();
  }

  Status enqueue(void *stream, const uint64_t *buffers,
                 size_t numBuffers) override {
    if (numBuffers != params.numBuffers())
      return Status(StatusCode::Internal,
                    "expected " + std::to_string(params.numBuffers()) +
                        " buffers");
    if (params.epilogue == CublasLtMatmulParams::Epilogue::None)
      return run(stream, buffers);
    // Each context has its own bias address, set in the shared descriptor
    // for the call: one context at a time.
    std::lock_guard<std::mutex> lock(biasMutex);
    void *bias = pointer(buffers[4]);
    if (Status s = lt.check("cublasLtMatmulDescSetAttribute",
                            lt.api.descSetAttribute(desc, kDescBiasPointer,
                                                    &bias, sizeof(bias)));
        !s)
      return s;
    return run(stream, buffers);
  }

private:
  static void *pointer(uint64_t address) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
  }

  Status run(void *stream, const uint64_t *buffers) {
    // With a residual, C (of D's layout) is the last buffer and adds in.
    const float alpha = 1, beta = params.residual ? 1 : 0;
    void *d = pointer(buffers[2]);
    void *c = params.residual ? pointer(buffers[params.numBuffers() - 1]) : d;
    return lt.check("cublasLtMatmul",
                    lt.api.matmul(handle, desc, &alpha, pointer(buffers[1]),
                                  layoutA, pointer(buffers[0]), layoutB, &beta,
                                  c, layoutD, d, layoutD, &algo,
                                  pointer(buffers[3]), params.workspaceBytes,
                                  stream));
  }

  const CublasLt &lt;
  CublasLtMatmulParams params;
  std::mutex biasMutex;
  void *handle = nullptr, *desc = nullptr;
  void *layoutA = nullptr, *layoutB = nullptr, *layoutD = nullptr;
  CublasLtAlgo algo{};
};

} // namespace

StatusOr<std::unique_ptr<LibraryCallInstance>>
prepareCublasLtMatmul(const LibraryCallSetup &setup) {
  auto params = decodeCublasLtMatmul(setup.step.payload);
  if (!params.isOk())
    return params.status();
  const auto &buffers = setup.step.buffers;
  if (buffers.size() != params->numBuffers())
    return Status(StatusCode::InvalidPlan,
                  "cublaslt.matmul takes " +
                      std::to_string(params->numBuffers()) +
                      " buffers (A, B, D, workspace, a bias with an "
                      "epilogue, C with a residual), got " +
                      std::to_string(buffers.size()));
  std::vector<const char *> names = {"A", "B", "D", "the workspace"};
  std::vector<uint64_t> needed = {params->bytesA(), params->bytesB(),
                                  params->bytesD(), params->workspaceBytes};
  if (params->epilogue != CublasLtMatmulParams::Epilogue::None) {
    names.push_back("the bias");
    needed.push_back(params->bytesBias());
  }
  if (params->residual) {
    names.push_back("C");
    needed.push_back(params->bytesD());
  }
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].bytes < needed[i])
      return Status(StatusCode::InvalidPlan,
                    std::string("cublaslt.matmul: ") + names[i] + " has " +
                        std::to_string(buffers[i].bytes) +
                        " bytes, the product reads or writes " +
                        std::to_string(needed[i]));
  auto lt = CublasLt::get();
  if (!lt.isOk())
    return lt.status();
  auto instance = std::make_unique<MatmulInstance>(**lt, *params);
  if (Status s = instance->prepare(); !s)
    return s;
  return std::unique_ptr<LibraryCallInstance>(std::move(instance));
}

} // namespace kiln::rt::detail
