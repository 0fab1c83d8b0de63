//===- Driver.h - the CUDA driver, loaded at run time -----------*- C++ -*-===//
//
// The runtime's only link to the GPU: the CUDA driver API, loaded with dlopen
// so that programs built against the runtime start (and report why they cannot
// run) on machines without a driver or a device.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_DRIVER_H
#define KILN_RUNTIME_DRIVER_H

#include "kiln/runtime/Status.h"

#include <cstddef>
#include <memory>
#include <string>

namespace kiln::rt {

/// What the driver reports about one device.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
  int multiprocessorCount = 0;
  std::size_t totalMemoryBytes = 0;

  /// "sm_90" for compute capability 9.0.
  std::string smArch() const;
};

/// A loaded and initialized CUDA driver with at least one device.
class Driver {
public:
  /// The library `load()` opens unless told otherwise.
  static constexpr const char *kDefaultLibrary = "libcuda.so.1";

  /// Opens the driver library `library` (a soname searched as dlopen does, or
  /// a path), resolves the entry points the runtime uses and calls cuInit.
  /// Fails with DriverUnavailable when the library is missing or lacks an
  /// entry point, NoDevice when it reports no device, DriverError otherwise.
  static StatusOr<std::unique_ptr<Driver>>
  load(const std::string &library = kDefaultLibrary);

  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  /// The library that was opened.
  const std::string &library() const { return library_; }
  /// The driver's CUDA version, e.g. 13000 for 13.0.
  int driverVersion() const { return driverVersion_; }
  /// The number of devices (at least 1).
  int deviceCount() const { return deviceCount_; }
  /// Describes device `ordinal` (0 <= ordinal < deviceCount()).
  StatusOr<DeviceInfo> device(int ordinal) const;

  /// The resolved driver entry points (defined in the runtime's internal
  /// src/cuda/DriverApi.h, which needs cuda.h).
  struct Api;
  const Api &api() const;

private:
  Driver(void *handle, std::string library, std::unique_ptr<Api> api);

  void *handle_;
  std::string library_;
  std::unique_ptr<Api> api_;
  int driverVersion_ = 0;
  int deviceCount_ = 0;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_DRIVER_H
