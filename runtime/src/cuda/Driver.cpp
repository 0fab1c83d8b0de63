//===- Driver.cpp - the CUDA driver, loaded at run time ---------*- C++ -*-===//
//
// Opens libcuda with dlopen, resolves the driver entry points by name and
// turns every failure on the way (no library, not a driver, no device, a
// failing call) into a Status that says what happened.
//
//===----------------------------------------------------------------------===//

#include "cuda/DriverApi.h"
#include "support/LibraryFile.h"

#include <dlfcn.h>

#include <string>

namespace kiln::rt {

std::string Driver::Api::describe(const char *call, CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (getErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (getErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = nullptr;
  std::string msg = std::string(call) + " failed with ";
  msg += name ? std::string(name) : "CUDA error " + std::to_string(result);
  if (text)
    msg += std::string(" (") + text + ")";
  return msg;
}

std::string DeviceInfo::smArch() const {
  return "sm_" + std::to_string(computeCapabilityMajor) +
         std::to_string(computeCapabilityMinor);
}

namespace {
/// Closes a dlopen handle unless released.
struct HandleCloser {
  void *handle;
  ~HandleCloser() {
    if (handle)
      dlclose(handle);
  }
};

/// Sets `fn` to `symbol`, or else to `fallback` (when not null), in the
/// library `handle`; records the first entry point not found in `missing`.
template <typename Fn>
void resolve(void *handle, const char *symbol, const char *fallback, Fn &fn,
             std::string &missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (!fn && fallback)
    fn = reinterpret_cast<Fn>(dlsym(handle, fallback));
  if (!fn && missing.empty())
    missing = "'" + std::string(symbol) + "'" +
              (fallback ? " (or '" + std::string(fallback) + "')" : "");
}
} // namespace

StatusOr<std::unique_ptr<Driver>> Driver::load(const std::string &library) {
  if (std::string why = whyNotALibraryFile(library); !why.empty())
    return Status(StatusCode::DriverUnavailable,
                  "cannot load the CUDA driver library '" + library +
                      "': " + why);
  dlerror();
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return Status(StatusCode::DriverUnavailable,
                  "cannot load the CUDA driver library '" + library +
                      "': " + (why ? why : "unknown dlopen error") +
                      "; is the NVIDIA driver installed on this machine?");
  }
  HandleCloser closer{handle};

  auto api = std::make_unique<Api>();
  std::string missing;
  // One call per line of DriverSymbols.def.
#define KILN_DRIVER_SYMBOL(member, symbol)                                     \
  resolve(handle, #symbol, nullptr, api->member, missing);
#define KILN_DRIVER_SYMBOL_FALLBACK(member, symbol, fallback)                  \
  resolve(handle, #symbol, #fallback, api->member, missing);
#include "cuda/DriverSymbols.def"
  if (!missing.empty())
    return Status(StatusCode::DriverUnavailable,
                  "'" + library +
                      "' is not a usable CUDA driver: entry point " + missing +
                      " not found");

  CUresult result = api->init(0);
  if (result == CUDA_ERROR_NO_DEVICE)
    return Status(StatusCode::NoDevice,
                  "no CUDA device present: " + api->describe("cuInit", result));
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError, api->describe("cuInit", result));

  int version = 0;
  result = api->driverGetVersion(&version);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError,
                  api->describe("cuDriverGetVersion", result));
  int count = 0;
  result = api->deviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError,
                  api->describe("cuDeviceGetCount", result));
  if (count <= 0)
    return Status(StatusCode::NoDevice,
                  "no CUDA device present: the driver in '" + library +
                      "' reports 0 devices");

  closer.handle = nullptr;
  std::unique_ptr<Driver> driver(new Driver(handle, library, std::move(api)));
  driver->driverVersion_ = version;
  driver->deviceCount_ = count;
  return driver;
}

Driver::Driver(void *handle, std::string library, std::unique_ptr<Api> api)
    : handle_(handle), library_(std::move(library)), api_(std::move(api)) {}

const Driver::Api &Driver::api() const { return *api_; }

Driver::~Driver() {
  if (handle_)
    dlclose(handle_);
}

StatusOr<DeviceInfo> Driver::device(int ordinal) const {
  if (ordinal < 0 || ordinal >= deviceCount_)
    return Status(StatusCode::InvalidArgument,
                  "device ordinal " + std::to_string(ordinal) +
                      " is out of range: the driver reports " +
                      std::to_string(deviceCount_) + " device(s)");
  CUdevice dev = 0;
  CUresult result = api_->deviceGet(&dev, ordinal);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError,
                  api_->describe("cuDeviceGet", result));

  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {0};
  result = api_->deviceGetName(name, sizeof(name) - 1, dev);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError,
                  api_->describe("cuDeviceGetName", result));
  info.name = name;

  struct {
    CUdevice_attribute attribute;
    int *out;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       &info.computeCapabilityMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       &info.computeCapabilityMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessorCount},
  };
  for (auto &a : attributes) {
    result = api_->deviceGetAttribute(a.out, a.attribute, dev);
    if (result != CUDA_SUCCESS)
      return Status(StatusCode::DriverError,
                    api_->describe("cuDeviceGetAttribute", result));
  }
  size_t bytes = 0;
  result = api_->deviceTotalMem(&bytes, dev);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError,
                  api_->describe("cuDeviceTotalMem", result));
  info.totalMemoryBytes = bytes;
  return info;
}

} // namespace kiln::rt
