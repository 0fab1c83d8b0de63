//===- Runtime.h - the entry point of the kiln runtime ----------*- C++ -*-===//
//
// A Runtime is the driver, one device and its primary context: it turns plan
// bytes into Engines (Engine.h) and offers the few memory, stream and event
// utilities that programs around an engine need, without CUDA headers:
// device pointers are uint64_t (CUdeviceptr), streams and events void*
// (CUstream, CUevent).
//
//   auto runtime = Runtime::create();
//   auto engine = (*runtime)->deserializeEngine(bytes.data(), bytes.size());
//   auto context = (*engine)->createExecutionContext();
//   (*context)->setTensorAddress("input", in);  // ... every I/O tensor
//   (*context)->enqueue(stream);
//
// Lifetimes: keep the Runtime alive longer than every Engine it made (and
// each Engine longer than its contexts). Every public call that touches the
// GPU first makes the device's primary context current on the calling thread.
//
// Threads: a Runtime may be used from several threads at once. Its methods
// (deserializeEngine, allocate and free, the copies, streams and events) are
// safe to call concurrently, deserializeEngine too, for the same plan or
// different ones, except setGpuAllocator, which must not run while anything
// allocates, and the destructor, which runs once nothing else uses the
// runtime. Its Logger and GpuAllocator are called from whichever threads call
// into the runtime, several at once: they must be thread-safe. Engine.h says
// what holds for engines and contexts, LibraryCall.h for library calls; the
// tests in runtime/test/ConcurrencyTest.cpp exercise each promise.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_RUNTIME_H
#define KILN_RUNTIME_RUNTIME_H

#include "kiln/runtime/Driver.h"
#include "kiln/runtime/Engine.h"
#include "kiln/runtime/GpuAllocator.h"
#include "kiln/runtime/LibraryCall.h"
#include "kiln/runtime/Logger.h"
#include "kiln/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::rt {

class Runtime {
public:
  /// Loads the driver (Driver::load), retains the primary context of device
  /// `deviceOrdinal` and makes it current. Messages go to `logger`, which
  /// must outlive the runtime, or, when null, to a StderrLogger showing
  /// warnings and errors.
  static StatusOr<std::unique_ptr<Runtime>>
  create(Logger *logger = nullptr, int deviceOrdinal = 0,
         const std::string &driverLibrary = Driver::kDefaultLibrary);

  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// Reads the plan (readPlan: every corruption is reported before anything
  /// touches the device), checks that the driver is new enough and that the
  /// plan has code for the device (a cubin of the device's major version and
  /// an arch <= the device's, the highest such; else the highest PTX with an
  /// arch <= the device's: UnsupportedPlan otherwise) and that every library
  /// call has a handler (LibraryCall.h; UnsupportedPlan naming the step and
  /// callee otherwise), has each handler prepare its step (its status,
  /// naming the step, when it refuses), loads the image, finds every kernel
  /// in it and uploads the weights.
  StatusOr<std::unique_ptr<Engine>> deserializeEngine(const void *data,
                                                      std::size_t size);

  /// The allocator for engines and contexts created from now on; nullptr
  /// restores the driver's. Memory is freed with the allocator it came from,
  /// so `allocator` must outlive what it allocated. Not while another thread
  /// allocates (creates an engine or a context, or calls allocate).
  void setGpuAllocator(GpuAllocator *allocator);
  /// The allocator in use.
  GpuAllocator &gpuAllocator() const { return *allocator_; }

  const DeviceInfo &device() const { return device_; }
  const Driver &driver() const { return *driver_; }
  Logger &logger() const { return *logger_; }

  /// `bytes` of device memory from the current allocator, at a multiple of
  /// 256 bytes; free it with free() while the same allocator is set (a
  /// failure to free is logged as an Error).
  StatusOr<uint64_t> allocate(uint64_t bytes);
  void free(uint64_t ptr);
  /// Synchronous copies and fill: the bytes are in place on return, so work
  /// enqueued afterwards on any stream sees them. copyToHost does not wait
  /// for other streams: synchronize the stream that wrote `src` first.
  Status copyToDevice(uint64_t dst, const void *src, uint64_t bytes);
  Status copyToHost(void *dst, uint64_t src, uint64_t bytes);
  Status memset(uint64_t dst, uint8_t value, uint64_t bytes);

  /// A non-blocking stream (CUstream).
  StatusOr<void *> createStream();
  /// Waits until all work on `stream` has finished.
  Status synchronize(void *stream);
  /// Destroys `stream` (nullptr: nothing). The stream is released even when
  /// this fails: the error is for the caller to report.
  Status destroyStream(void *stream);

  /// An event (CUevent) that records timing.
  StatusOr<void *> createEvent();
  Status recordEvent(void *event, void *stream);
  /// Milliseconds between two recorded events; waits for `end` first.
  StatusOr<float> elapsedMs(void *start, void *end);
  /// Destroys `event` (nullptr: nothing), released even when this fails.
  Status destroyEvent(void *event);

private:
  friend class Engine;
  friend class ExecutionContext;
  class DriverAllocator;
  Runtime(std::unique_ptr<Driver> driver, DeviceInfo device, int cuDevice,
          void *context, Logger *logger, std::unique_ptr<Logger> ownedLogger);

  /// Makes the primary context current on this thread.
  Status makeCurrent() const;
  Status finishDefaultStream() const;
  /// A DriverError for a failed driver call.
  Status driverError(const char *call, int result) const;

  std::unique_ptr<Driver> driver_;
  DeviceInfo device_;
  /// The CUdevice and its retained primary context (CUcontext).
  int cuDevice_;
  void *context_;
  Logger *logger_;
  std::unique_ptr<Logger> ownedLogger_;
  std::unique_ptr<GpuAllocator> driverAllocator_;
  GpuAllocator *allocator_;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_RUNTIME_H
