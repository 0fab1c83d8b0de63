//===- DriverApi.h - the driver entry points the runtime calls --*- C++ -*-===//
//
// Driver::Api, the table of CUDA driver functions resolved by name when the
// driver is loaded. Only the runtime's own sources include this header (it
// needs cuda.h); the public headers see Driver::Api as an incomplete type.
//
// Entry points that cuda.h renames with a macro (cuMemAlloc is cuMemAlloc_v2)
// are resolved by the versioned name the macro gives, the one the driver
// exports for the current ABI.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_CUDA_DRIVERAPI_H
#define KILN_RUNTIME_SRC_CUDA_DRIVERAPI_H

#include "kiln/runtime/Driver.h"

#include <cuda.h>

#include <string>

namespace kiln::rt {

/// The driver entry points the runtime uses, resolved by name.
struct Driver::Api {
  // Loading and describing devices.
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
  decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetName) deviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDeviceTotalMem_v2) deviceTotalMem = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuGetErrorString) getErrorString = nullptr;

  // Contexts.
  decltype(&::cuDevicePrimaryCtxRetain) devicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease_v2) devicePrimaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;

  // Memory.
  decltype(&::cuMemAlloc_v2) memAlloc = nullptr;
  decltype(&::cuMemFree_v2) memFree = nullptr;
  decltype(&::cuMemcpyHtoD_v2) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH_v2) memcpyDtoH = nullptr;
  decltype(&::cuMemcpyDtoDAsync_v2) memcpyDtoDAsync = nullptr;
  decltype(&::cuMemsetD8_v2) memsetD8 = nullptr;
  decltype(&::cuMemsetD8Async) memsetD8Async = nullptr;

  // Modules and launches.
  decltype(&::cuModuleLoadDataEx) moduleLoadDataEx = nullptr;
  decltype(&::cuModuleUnload) moduleUnload = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;

  // Streams and events.
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamDestroy_v2) streamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuEventCreate) eventCreate = nullptr;
  decltype(&::cuEventRecord) eventRecord = nullptr;
  decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
  /// cuEventElapsedTime_v2 (CUDA 12.8 and later), else cuEventElapsedTime:
  /// the same signature.
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  decltype(&::cuEventDestroy_v2) eventDestroy = nullptr;

  /// "cuInit failed with CUDA_ERROR_NO_DEVICE (no CUDA-capable device is
  /// detected)".
  std::string describe(const char *call, CUresult result) const;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_SRC_CUDA_DRIVERAPI_H
