//===- Engine.h - a loaded plan and the contexts that run it ----*- C++ -*-===//
//
// An Engine is a plan made ready on one device: its kernel module loaded and
// its weights uploaded (Runtime::deserializeEngine makes one), after which it
// keeps no host copy of the code or the weights. An ExecutionContext runs the
// engine's steps with its own activation memory (the arena) and its own I/O
// tensor addresses, so one engine serves many contexts, which may run
// concurrently on different streams.
//
// Lifetimes: destroy every ExecutionContext before its Engine, and every
// Engine before the Runtime that made it.
//
// Threads: an Engine's methods are safe to call from several threads at once
// (createExecutionContext included), and engines are independent of each
// other: one may be created or destroyed while others run. One
// ExecutionContext is used by one thread at a time; different contexts, of
// one engine or several, run at once from different threads, each on a stream
// of its own, and may be created and destroyed while others run. A context's
// Profiler is called on the thread that calls enqueue.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_ENGINE_H
#define KILN_RUNTIME_ENGINE_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

class ExecutionContext;
namespace detail {
class EngineStepState;
struct Program;
} // namespace detail

/// Receives the GPU time of every step of a profiled run (the role of
/// TensorRT's IProfiler).
class Profiler {
public:
  virtual ~Profiler() = default;
  /// Step `step` (plan order) took `ms` of GPU time. `name` is "launch
  /// <kernel>", "copy", "fill" or "call <callee>" (a library call).
  virtual void reportStepTime(int step, const std::string &name, float ms) = 0;
};
class GpuAllocator;
class Runtime;

/// A plan loaded on a device. Its methods are safe to call from several
/// threads at once; destroy it once no thread uses it and it has no
/// contexts.
class Engine {
public:
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// The I/O tensors, in plan order.
  int numTensors() const { return static_cast<int>(plan_.tensors.size()); }
  /// Tensor `index` (0 <= index < numTensors()).
  const TensorDesc &tensor(int index) const { return plan_.tensors[index]; }
  /// The index of the tensor called `name`, or -1 if there is none.
  int findTensor(const std::string &name) const;

  /// Bytes of device memory (the arena) one execution context needs.
  uint64_t deviceMemorySize() const { return plan_.arenaBytes; }

  /// The plan the engine was made from, as readPlan returned it, less the
  /// bytes of its kernel images and weights: once the module is loaded and
  /// the weights are uploaded, the engine frees its host copies, so every
  /// plan().images[i].data and plan().weights are empty (imageBytes and
  /// weightsBytes give their sizes). Everything else is there; with weights,
  /// it is not a plan verifyPlan or writePlan accepts any more.
  const PlanContents &plan() const { return plan_; }
  /// The index in plan().images of the image that was loaded (-1 for a plan
  /// without kernels).
  int imageIndex() const { return image_; }
  /// The size of plan().images[index] in the file (0 for an index out of
  /// range).
  uint64_t imageBytes(int index) const;
  /// The size of the weights, uploaded once to the device.
  uint64_t weightsBytes() const { return weightsBytes_; }
  /// Step `index` of plan() as profiles name it ("launch k3 (conv_0)",
  /// "copy ..."); empty for an index out of range.
  std::string stepName(int index) const;

  /// A context with its own arena, allocated with the runtime's allocator
  /// and freed with the context.
  StatusOr<std::unique_ptr<ExecutionContext>> createExecutionContext();
  /// A context whose arena the caller provides with setDeviceMemory (at least
  /// deviceMemorySize() bytes) before the first enqueue.
  StatusOr<std::unique_ptr<ExecutionContext>>
  createExecutionContextWithoutDeviceMemory();

private:
  friend class Runtime;
  friend class ExecutionContext;
  Engine(Runtime &runtime, PlanContents plan);

  Runtime &runtime_;
  PlanContents plan_;
  std::map<std::string, int> tensorIndex_;
  int image_ = -1;
  /// CUmodule and one CUfunction per plan kernel.
  void *module_ = nullptr;
  std::vector<void *> functions_;
  /// The sizes of the images' and the weights' bytes, freed from plan_.
  std::vector<uint64_t> imageBytes_;
  uint64_t weightsBytes_ = 0;
  /// The uploaded weights (0 when the plan has none) and their allocator.
  uint64_t weights_ = 0;
  GpuAllocator *weightsAllocator_ = nullptr;
  /// Per step, what its kind keeps per engine (null for most kinds).
  std::vector<std::unique_ptr<detail::EngineStepState>> stepStates_;
};

/// Runs an engine's steps: binds the arena and the I/O tensors to device
/// addresses and enqueues the kernel launches, copies, fills and library
/// calls on a stream.
/// One context is used by one thread at a time (its setters, enqueue and
/// execute); contexts of one engine are independent and run concurrently.
/// Destroying a context frees the arena it allocated: wait for the work it
/// enqueued first.
class ExecutionContext {
public:
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext &) = delete;
  ExecutionContext &operator=(const ExecutionContext &) = delete;

  const Engine &engine() const { return engine_; }

  /// Sets the arena: engine().deviceMemorySize() bytes at a multiple of 256.
  /// Fails (InvalidArgument) for an unaligned or null address, or for a
  /// context that allocated its own arena.
  Status setDeviceMemory(uint64_t ptr);
  /// The arena's address (0 until set).
  uint64_t deviceMemory() const { return arena_; }

  /// Binds tensor `name` to `ptr`, which must be a multiple of the tensor's
  /// element size and hold its numBytes(). Fails with NotFound (listing the
  /// tensors) for an unknown name, InvalidArgument for a null or misaligned
  /// address of a non-empty tensor.
  Status setTensorAddress(const std::string &name, uint64_t ptr);
  /// The address bound to `name`, or 0 (unbound or unknown).
  uint64_t tensorAddress(const std::string &name) const;

  /// With a profiler, enqueue() records a CUDA event around every step,
  /// waits for the stream and reports each step's GPU time: profiling makes
  /// enqueue synchronous and adds an event record per step. nullptr turns it
  /// off.
  void setProfiler(Profiler *profiler) { profiler_ = profiler; }
  Profiler *profiler() const { return profiler_; }

  /// With CUDA graphs on, enqueue() captures the steps into a CUDA graph
  /// once and then launches the graph: one launch on the stream instead of
  /// one per step, which at small batch sizes is most of the time. When the
  /// arena or a tensor address has changed since the capture, the next
  /// enqueue captures the steps again and updates the instantiated graph in
  /// place (cuGraphExecUpdate: the same kernels with new arguments), or
  /// instantiates it anew when the driver refuses the update. A profiled
  /// enqueue runs the steps one by one (it needs an event between them). The
  /// stream must not be the legacy default stream, which cannot be captured.
  /// Off by default.
  void setCudaGraphs(bool on) { cudaGraphs_ = on; }
  bool cudaGraphs() const { return cudaGraphs_; }
  /// How many times enqueue() captured the steps into a graph.
  int graphCaptures() const { return graphCaptures_; }

  /// The input-consumed event (the TensorRT guide's `inputConsumed`): with
  /// one set (a CUevent the application created), enqueue() records it on
  /// the stream right after the last step that reads an input tensor (before
  /// the first step when none does), so that when it completes the
  /// application may write the next inputs while the rest still runs. With
  /// CUDA graphs it is recorded after the graph. nullptr (the default)
  /// records none. The event must outlive the enqueues that record it.
  void setInputConsumedEvent(void *event) { inputConsumed_ = event; }
  void *inputConsumedEvent() const { return inputConsumed_; }
  /// The index of the last step that reads an input tensor, -1 if none.
  int64_t lastInputReadingStep() const { return lastInputReader_; }

  /// Enqueues every step on `stream` (a CUstream; nullptr is the legacy
  /// default stream) and returns without waiting. Fails (InvalidArgument)
  /// when a tensor is unbound or the arena is not set, DriverError (naming
  /// the step and kernel) when the driver refuses a launch, copy or fill,
  /// and with a library-call handler's status (naming the step and callee)
  /// when the handler fails.
  /// The addresses can change after it returns; steps already enqueued keep
  /// the ones they were given.
  Status enqueue(void *stream);
  /// enqueue() on a stream the context owns, then waits for it.
  Status execute();

private:
  friend class Engine;
  ExecutionContext(Engine &engine, std::unique_ptr<detail::Program> program);
  void bindArena(uint64_t ptr);

  Engine &engine_;
  /// The steps, prepared by their kinds (src/engine/StepKinds.h).
  std::unique_ptr<detail::Program> program_;
  uint64_t arena_ = 0;
  bool arenaSet_ = false;
  /// The arena this context allocated, and from which allocator.
  GpuAllocator *arenaAllocator_ = nullptr;
  std::vector<uint64_t> tensorAddresses_;
  std::vector<bool> tensorBound_;
  size_t unboundTensors_ = 0;
  /// The stream execute() uses, created on first use.
  void *stream_ = nullptr;
  Profiler *profiler_ = nullptr;
  /// One event before each step and one after the last (profiling only).
  std::vector<void *> events_;
  Status reportProfile(void *stream);
  /// Enqueues the steps themselves (profiled or not), recording the
  /// input-consumed event among them when `recordInputConsumed`.
  Status enqueueSteps(void *stream, bool recordInputConsumed);
  /// Captures the steps (again) when needed, then launches the graph.
  Status enqueueGraph(void *stream);
  void destroyGraph();
  bool cudaGraphs_ = false;
  /// The instantiated graph (a CUgraphExec), and whether an address changed
  /// since it was captured.
  void *graphExec_ = nullptr;
  bool graphStale_ = true;
  int graphCaptures_ = 0;
  void *inputConsumed_ = nullptr;
  int64_t lastInputReader_ = -1;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_ENGINE_H
