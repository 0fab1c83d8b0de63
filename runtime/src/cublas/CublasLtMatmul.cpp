//===- CublasLtMatmul.cpp - the cublaslt.matmul handler ---------*- C++ -*-===//
//
// cuBLASLt, loaded at run time like the driver (once per process, on the
// first engine that calls it; KILN_CUBLASLT_LIBRARY names the library to
// load instead of the usual names), runs the products of
// kiln/runtime/CublasLtMatmul.h (CublasLtProduct.h). Each step gets its
// descriptors when its engine is made, and its algorithm: the plan's, checked
// with cublasLtMatmulAlgoCheck, or else the best of cuBLASLt's heuristic
// (within the plan's workspace); enqueue is one cublasLtMatmul.
//
//===----------------------------------------------------------------------===//

#include "cublas/CublasLt.h"
#include "cublas/CublasLtProduct.h"

#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/LibraryCall.h"
#include "kiln/runtime/Runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace kiln::rt::detail {

namespace {
constexpr int kSuccess = 0; // CUBLAS_STATUS_SUCCESS
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

/// One step's product and algorithm; its enqueue is thread-safe.
class MatmulInstance : public LibraryCallInstance {
public:
  MatmulInstance(std::unique_ptr<CublasLtProduct> product, CublasLtAlgo algo)
      : product(std::move(product)), algo(algo) {}

  Status enqueue(void *stream, const uint64_t *buffers,
                 size_t numBuffers) override {
    if (numBuffers != product->params().numBuffers())
      return Status(StatusCode::Internal,
                    "expected " +
                        std::to_string(product->params().numBuffers()) +
                        " buffers");
    return product->run(algo, stream, buffers);
  }

private:
  std::unique_ptr<CublasLtProduct> product;
  CublasLtAlgo algo;
};

/// The step's recorded algorithm, checked against this GPU and cuBLASLt, or
/// the heuristic's best.
StatusOr<CublasLtAlgo> chooseAlgorithm(const CublasLt &lt,
                                       const CublasLtProduct &product,
                                       const DeviceInfo &device) {
  const CublasLtMatmulParams &p = product.params();
  if (!p.algorithm) {
    auto candidates = product.candidates(1);
    if (!candidates.isOk())
      return candidates.status();
    return candidates->front().algo;
  }
  auto algo = product.rebuild(*p.algorithm);
  uint64_t needed = 0;
  Status s = algo.isOk() ? product.check(*algo, needed) : algo.status();
  if (s && needed > p.workspaceBytes)
    s = Status(StatusCode::UnsupportedPlan,
               "it needs " + std::to_string(needed) +
                   " bytes of workspace here, the plan gives " +
                   std::to_string(p.workspaceBytes));
  if (s)
    return *algo;
  return Status(
      StatusCode::UnsupportedPlan,
      "the plan's cuBLASLt " + CublasLtProduct::describe(*p.algorithm) +
          " for " + product.problem() + ", chosen by cuBLASLt " +
          std::to_string(p.algorithm->cublasLtVersion) + " on sm_" +
          std::to_string(p.algorithm->computeCapability) +
          ", does not fit this " + device.smArch() + " GPU with cuBLASLt " +
          std::to_string(lt.api.getVersion()) + ": " + s.message() +
          "; rebuild the plan on this GPU (kiln-compile --tune) "
          "or without --tune");
}

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
  auto product = CublasLtProduct::create(**lt, *params);
  if (!product.isOk())
    return product.status();
  auto algo = chooseAlgorithm(**lt, **product, setup.runtime.device());
  if (!algo.isOk())
    return algo.status();
  return std::unique_ptr<LibraryCallInstance>(
      new MatmulInstance(std::move(*product), *algo));
}

} // namespace kiln::rt::detail
