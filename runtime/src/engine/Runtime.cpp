//===- Runtime.cpp - driver, device and primary context ---------*- C++ -*-===//
//
// Creating a Runtime (driver, device, primary context), the driver's own
// allocator, and the memory, stream and event utilities. Engines are made in
// Engine.cpp.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"

#include "cuda/DriverApi.h"

namespace kiln::rt {

/// cuMemAlloc/cuMemFree, the allocator unless the application sets one.
class Runtime::DriverAllocator : public GpuAllocator {
public:
  explicit DriverAllocator(Runtime &runtime) : runtime_(runtime) {}

  StatusOr<uint64_t> allocate(uint64_t bytes, uint64_t alignment) override {
    if (bytes == 0)
      return Status(StatusCode::InvalidArgument,
                    "cannot allocate 0 bytes of device memory");
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 256)
      return Status(StatusCode::InvalidArgument,
                    "the driver's allocator aligns to 256 bytes; alignment " +
                        std::to_string(alignment) +
                        " needs an application GpuAllocator");
    if (Status s = runtime_.makeCurrent(); !s)
      return s;
    CUdeviceptr ptr = 0;
    CUresult result =
        runtime_.driver_->api().memAlloc(&ptr, static_cast<size_t>(bytes));
    if (result != CUDA_SUCCESS)
      return Status(StatusCode::DriverError,
                    runtime_.driver_->api().describe("cuMemAlloc", result) +
                        " allocating " + std::to_string(bytes) + " bytes");
    if (ptr % alignment != 0) {
      runtime_.driver_->api().memFree(ptr);
      return Status(StatusCode::DriverError,
                    "cuMemAlloc returned an address that is not a multiple "
                    "of " +
                        std::to_string(alignment));
    }
    return static_cast<uint64_t>(ptr);
  }

  void free(uint64_t ptr) override {
    if (ptr == 0)
      return;
    // Freed even when the context cannot be made current: the one that is
    // current on this thread is most likely the device's already.
    if (Status s = runtime_.makeCurrent(); !s)
      runtime_.logger_->log(Logger::Severity::Error,
                            "freeing device memory: " + s.message());
    CUresult result = runtime_.driver_->api().memFree(ptr);
    if (result != CUDA_SUCCESS)
      runtime_.logger_->log(
          Logger::Severity::Error,
          runtime_.driver_->api().describe("cuMemFree", result));
  }

private:
  Runtime &runtime_;
};

StatusOr<std::unique_ptr<Runtime>>
Runtime::create(Logger *logger, int deviceOrdinal,
                const std::string &driverLibrary) {
  auto driver = Driver::load(driverLibrary);
  if (!driver)
    return driver.status();
  auto info = (*driver)->device(deviceOrdinal);
  if (!info)
    return info.status();
  const Driver::Api &api = (*driver)->api();
  CUdevice device = 0;
  CUresult result = api.deviceGet(&device, deviceOrdinal);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError, api.describe("cuDeviceGet", result));
  CUcontext context = nullptr;
  result = api.devicePrimaryCtxRetain(&context, device);
  if (result != CUDA_SUCCESS)
    return Status(StatusCode::DriverError,
                  api.describe("cuDevicePrimaryCtxRetain", result));
  result = api.ctxSetCurrent(context);
  if (result != CUDA_SUCCESS) {
    api.devicePrimaryCtxRelease(device);
    return Status(StatusCode::DriverError,
                  api.describe("cuCtxSetCurrent", result));
  }

  std::unique_ptr<Logger> ownedLogger;
  if (!logger) {
    ownedLogger = std::make_unique<StderrLogger>();
    logger = ownedLogger.get();
  }
  std::unique_ptr<Runtime> runtime(
      new Runtime(std::move(*driver), std::move(*info), device, context, logger,
                  std::move(ownedLogger)));
  int version = runtime->driver_->driverVersion();
  runtime->logger_->log(
      Logger::Severity::Info,
      "runtime: device " + std::to_string(deviceOrdinal) + " '" +
          runtime->device_.name + "' (" + runtime->device_.smArch() + ", " +
          std::to_string(runtime->device_.multiprocessorCount) +
          " SMs), CUDA driver " + std::to_string(version / 1000) + "." +
          std::to_string(version % 1000 / 10) + " from '" +
          runtime->driver_->library() + "'");
  return runtime;
}

Runtime::Runtime(std::unique_ptr<Driver> driver, DeviceInfo device,
                 int cuDevice, void *context, Logger *logger,
                 std::unique_ptr<Logger> ownedLogger)
    : driver_(std::move(driver)), device_(std::move(device)),
      cuDevice_(cuDevice), context_(context), logger_(logger),
      ownedLogger_(std::move(ownedLogger)),
      driverAllocator_(std::make_unique<DriverAllocator>(*this)),
      allocator_(driverAllocator_.get()) {}

Runtime::~Runtime() {
  CUresult result = driver_->api().devicePrimaryCtxRelease(cuDevice_);
  if (result != CUDA_SUCCESS)
    logger_->log(Logger::Severity::Error,
                 driver_->api().describe("cuDevicePrimaryCtxRelease", result));
}

void Runtime::setGpuAllocator(GpuAllocator *allocator) {
  allocator_ = allocator ? allocator : driverAllocator_.get();
}

Status Runtime::makeCurrent() const {
  CUresult result =
      driver_->api().ctxSetCurrent(static_cast<CUcontext>(context_));
  if (result != CUDA_SUCCESS)
    return driverError("cuCtxSetCurrent", result);
  return Status::ok();
}

Status Runtime::driverError(const char *call, int result) const {
  return Status(StatusCode::DriverError,
                driver_->api().describe(call, static_cast<CUresult>(result)));
}

StatusOr<uint64_t> Runtime::allocate(uint64_t bytes) {
  return allocator_->allocate(bytes, kPlanSectionAlignment);
}

void Runtime::free(uint64_t ptr) { allocator_->free(ptr); }

Status Runtime::copyToDevice(uint64_t dst, const void *src, uint64_t bytes) {
  if (bytes == 0)
    return Status::ok();
  if (Status s = makeCurrent(); !s)
    return s;
  CUresult result = driver_->api().memcpyHtoD(dst, src, bytes);
  if (result != CUDA_SUCCESS)
    return driverError("cuMemcpyHtoD", result);
  return finishDefaultStream();
}

// From pageable memory, cuMemcpyHtoD returns once the bytes are staged, and
// cuMemsetD8 may return before it is done: work on a non-blocking stream
// (enqueue) could then read the old contents. Waiting for the default stream
// makes both complete on return, as documented.
Status Runtime::finishDefaultStream() const {
  CUresult result = driver_->api().streamSynchronize(nullptr);
  return result == CUDA_SUCCESS ? Status::ok()
                                : driverError("cuStreamSynchronize", result);
}

Status Runtime::copyToHost(void *dst, uint64_t src, uint64_t bytes) {
  if (bytes == 0)
    return Status::ok();
  if (Status s = makeCurrent(); !s)
    return s;
  CUresult result = driver_->api().memcpyDtoH(dst, src, bytes);
  return result == CUDA_SUCCESS ? Status::ok()
                                : driverError("cuMemcpyDtoH", result);
}

Status Runtime::memset(uint64_t dst, uint8_t value, uint64_t bytes) {
  if (bytes == 0)
    return Status::ok();
  if (Status s = makeCurrent(); !s)
    return s;
  CUresult result = driver_->api().memsetD8(dst, value, bytes);
  if (result != CUDA_SUCCESS)
    return driverError("cuMemsetD8", result);
  return finishDefaultStream();
}

StatusOr<void *> Runtime::createStream() {
  if (Status s = makeCurrent(); !s)
    return s;
  CUstream stream = nullptr;
  CUresult result =
      driver_->api().streamCreate(&stream, CU_STREAM_NON_BLOCKING);
  if (result != CUDA_SUCCESS)
    return driverError("cuStreamCreate", result);
  return static_cast<void *>(stream);
}

Status Runtime::synchronize(void *stream) {
  if (Status s = makeCurrent(); !s)
    return s;
  CUresult result =
      driver_->api().streamSynchronize(static_cast<CUstream>(stream));
  return result == CUDA_SUCCESS ? Status::ok()
                                : driverError("cuStreamSynchronize", result);
}

// The destroy functions release even when the context cannot be made
// current (the one current on this thread most likely is the device's), so
// that a failure leaks nothing; the first error is returned.
Status Runtime::destroyStream(void *stream) {
  if (!stream)
    return Status::ok();
  Status current = makeCurrent();
  CUresult result = driver_->api().streamDestroy(static_cast<CUstream>(stream));
  if (!current)
    return current;
  return result == CUDA_SUCCESS ? Status::ok()
                                : driverError("cuStreamDestroy", result);
}

StatusOr<void *> Runtime::createEvent() {
  if (Status s = makeCurrent(); !s)
    return s;
  CUevent event = nullptr;
  CUresult result = driver_->api().eventCreate(&event, CU_EVENT_DEFAULT);
  if (result != CUDA_SUCCESS)
    return driverError("cuEventCreate", result);
  return static_cast<void *>(event);
}

Status Runtime::recordEvent(void *event, void *stream) {
  if (Status s = makeCurrent(); !s)
    return s;
  CUresult result = driver_->api().eventRecord(static_cast<CUevent>(event),
                                               static_cast<CUstream>(stream));
  return result == CUDA_SUCCESS ? Status::ok()
                                : driverError("cuEventRecord", result);
}

StatusOr<float> Runtime::elapsedMs(void *start, void *end) {
  if (Status s = makeCurrent(); !s)
    return s;
  CUresult result = driver_->api().eventSynchronize(static_cast<CUevent>(end));
  if (result != CUDA_SUCCESS)
    return driverError("cuEventSynchronize", result);
  float ms = 0;
  result = driver_->api().eventElapsedTime(&ms, static_cast<CUevent>(start),
                                           static_cast<CUevent>(end));
  if (result != CUDA_SUCCESS)
    return driverError("cuEventElapsedTime", result);
  return ms;
}

Status Runtime::destroyEvent(void *event) {
  if (!event)
    return Status::ok();
  Status current = makeCurrent();
  CUresult result = driver_->api().eventDestroy(static_cast<CUevent>(event));
  if (!current)
    return current;
  return result == CUDA_SUCCESS ? Status::ok()
                                : driverError("cuEventDestroy", result);
}

} // namespace kiln::rt
