//===- LibraryCall.h - handlers for library-call steps ----------*- C++ -*-===//
//
// A library-call step (Step::Kind::LibraryCall, Plan.h) names a callee, such
// as "cublaslt.matmul", and carries buffers and an opaque payload. The code
// that runs it is a handler registered under that name in a process-wide
// registry, by a library of the runtime (cuBLASLt), a plugin or the
// application:
//
//   class Matmul : public kiln::rt::LibraryCallInstance {
//     kiln::rt::Status enqueue(void *stream, const uint64_t *buffers,
//                              size_t numBuffers) override;
//   };
//   KILN_REGISTER_LIBRARY_CALL("example.matmul",
//       [](const kiln::rt::LibraryCallSetup &setup)
//           ->
//           kiln::rt::StatusOr<std::unique_ptr<kiln::rt::LibraryCallInstance>>
//           {
//         // decode setup.step.payload, or refuse it (InvalidPlan)
//         return std::unique_ptr<kiln::rt::LibraryCallInstance>(new Matmul);
//       });
//
// Runtime::deserializeEngine looks up the handler of every library-call step
// before it loads anything (UnsupportedPlan, naming the step and the callee,
// when there is none), then asks each handler for an instance for its step.
// ExecutionContext::enqueue calls the instance with the stream and the
// device addresses of the step's buffers, resolved for that context.
//
// Threads: the registry's functions are safe to call from any thread at
// once, also while engines are loaded. A handler is called by every thread
// that loads an engine using it, possibly several at once, and an instance's
// enqueue by every context of its engine, possibly several at once (on
// different streams): both must be thread-safe. An instance is destroyed on
// the thread that destroys its engine.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_LIBRARYCALL_H
#define KILN_RUNTIME_LIBRARYCALL_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

class Runtime;

/// What a handler is given to prepare one library-call step of an engine.
struct LibraryCallSetup {
  /// The runtime making the engine (its device, logger and allocator); the
  /// device's primary context is current.
  Runtime &runtime;
  /// The step's index in the plan.
  size_t stepIndex;
  /// The step: its callee, buffers and payload.
  const LibraryCallStep &step;
};

/// One library-call step prepared for one engine, destroyed with the engine
/// (before its module and weights, with the device's context current).
/// Every execution context of the engine calls it, so enqueue may be called
/// from several threads at once (for different contexts, on different
/// streams).
class LibraryCallInstance {
public:
  virtual ~LibraryCallInstance();
  /// Enqueues the call on `stream` (a CUstream; nullptr is the legacy
  /// default stream) without waiting for it; the device's primary context is
  /// current. `buffers[i]` is the device address of step.buffers[i] for the
  /// calling context; `numBuffers` is step.buffers.size(). A failure is
  /// returned with a message naming its cause (DriverError for a failing CUDA
  /// or library call); the runtime adds the step and the callee.
  virtual Status enqueue(void *stream, const uint64_t *buffers,
                         size_t numBuffers) = 0;
};

/// Prepares a step: returns its instance, or a Status that says why the step
/// cannot run (InvalidPlan for a payload it cannot decode; the runtime adds
/// the step and the callee).
using LibraryCallHandler =
    std::function<StatusOr<std::unique_ptr<LibraryCallInstance>>(
        const LibraryCallSetup &setup)>;

/// Registers `handler` for the steps that call `callee`, for every runtime in
/// the process. Fails with InvalidArgument for an empty callee or handler or
/// a callee that already has a handler. Safe to call from any thread.
Status registerLibraryCallHandler(const std::string &callee,
                                  LibraryCallHandler handler);
/// Removes the handler of `callee`; false when it had none. Engines made
/// before keep their instances.
bool unregisterLibraryCallHandler(const std::string &callee);
/// Whether `callee` has a handler.
bool hasLibraryCallHandler(const std::string &callee);
/// The callees that have a handler, sorted.
std::vector<std::string> registeredLibraryCalls();

/// Registers a handler when constructed, for registration by a static object
/// (KILN_REGISTER_LIBRARY_CALL). A failure is printed to stderr (nothing else
/// can be told during static initialization) and kept in status(). In a
/// static library, the object file that holds the registration must be
/// linked in: reference one of its symbols, or link it whole.
class LibraryCallRegistration {
public:
  LibraryCallRegistration(const char *callee, LibraryCallHandler handler);
  const Status &status() const { return status_; }

private:
  Status status_;
};

#define KILN_LIBRARY_CALL_CONCAT_(a, b) a##b
#define KILN_LIBRARY_CALL_CONCAT(a, b) KILN_LIBRARY_CALL_CONCAT_(a, b)
/// Registers `handler` (a LibraryCallHandler) for `callee` (a string
/// literal) at static initialization, at namespace scope.
#define KILN_REGISTER_LIBRARY_CALL(callee, handler)                            \
  static ::kiln::rt::LibraryCallRegistration KILN_LIBRARY_CALL_CONCAT(         \
      kilnLibraryCallRegistration, __LINE__)(callee, handler)

} // namespace kiln::rt

#endif // KILN_RUNTIME_LIBRARYCALL_H
