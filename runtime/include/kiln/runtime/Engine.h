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

  /// Bytes of device memory (the arena) one execution context needs, at
  /// the largest shapes of every profile.
  uint64_t deviceMemorySize() const { return plan_.arenaBytes; }

  /// Whether input shapes are set per context (setInputShape): the plan was
  /// built for a range of shapes (format 1.4).
  bool hasDynamicShapes() const { return !plan_.symbols.empty(); }
  /// The plan's optimization profiles (0 for a plan of one shape).
  int numOptimizationProfiles() const;

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
  /// setTensorAddress of a buffer of `bytes` bytes: enqueue refuses shapes
  /// for which the tensor needs more (InvalidArgument naming the tensor, its
  /// shape and both sizes).
  Status setTensorAddress(const std::string &name, uint64_t ptr,
                          uint64_t bytes);
  /// The address bound to `name`, or 0 (unbound or unknown).
  uint64_t tensorAddress(const std::string &name) const;

  /// Run-time shapes (plans built with --shapes or --max-batch). The
  /// optimization profile whose ranges setInputShape and enqueue check
  /// (TensorRT's setOptimizationProfile); 0 at first. Fails
  /// (InvalidArgument) for an index outside [0, numOptimizationProfiles()),
  /// leaving the profile as it was.
  Status setOptimizationProfile(int index);
  int optimizationProfile() const { return profile_; }
  /// Sets the shape of input `name` for the next enqueues. Fails, changing
  /// nothing, with NotFound for an unknown name and InvalidArgument for an
  /// output or a shape outside the current profile (naming the input, the
  /// dimension, the value and the range). A static input takes its own
  /// shape only.
  Status setInputShape(const std::string &name,
                       const std::vector<int64_t> &dims);
  /// The shape of tensor `name` at the shapes set, before any enqueue: an
  /// input's as set (its plan shape, -1 where dynamic, until then), an
  /// output's computed by the plan's shape program (-1 where it depends on
  /// an input whose shape is not set). NotFound for an unknown name,
  /// InvalidArgument when two set inputs disagree on a size the plan
  /// computes as one.
  StatusOr<std::vector<int64_t>> getTensorShape(const std::string &name) const;

  /// The seeds' call (TensorRT 5's `enqueue(batchSize, bindings, stream,
  /// inputConsumed)`) for a plan whose inputs vary in their first dimension
  /// only, as `--max-batch` builds them: every input takes `batchSize` as
  /// its first dimension, tensor i is bound to bindings[i] (plan order), and
  /// `inputConsumed` (a CUevent or nullptr) is recorded for this call as
  /// setInputConsumedEvent's is. Fails, enqueueing nothing, for any other
  /// plan (naming the input), a batch outside the profile or null bindings
  /// (changing nothing), and as setTensorAddress and enqueue(stream) do.
  Status enqueue(int32_t batchSize, void *const *bindings, void *stream,
                 void *inputConsumed);

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
  /// Off by default. With run-time shapes, a graph is kept for each shape
  /// (at most graphCacheSize(), the least recently used one updated to the
  /// new shape beyond that), so that changing back to a shape launches its
  /// graph as it was.
  void setCudaGraphs(bool on) { cudaGraphs_ = on; }
  bool cudaGraphs() const { return cudaGraphs_; }
  /// How many times enqueue() captured the steps into a graph.
  int graphCaptures() const { return graphCaptures_; }
  /// The most graphs kept (8 by default, at least 1); a smaller bound
  /// destroys the least recently used ones.
  void setGraphCacheSize(int size);
  int graphCacheSize() const { return graphCacheSize_; }
  /// The graphs kept now.
  int cachedGraphs() const { return static_cast<int>(graphs_.size()); }

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
  /// when a tensor is unbound or the arena is not set, when a dynamic input
  /// has no shape or the shapes set are outside the current profile or
  /// disagree, or a tensor's buffer (setTensorAddress with bytes) is smaller
  /// than the shapes need; DriverError (naming
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
  void destroyGraph(void *exec);
  /// Every kept graph is to be captured again (an address changed).
  void markGraphsStale();
  bool cudaGraphs_ = false;
  /// An instantiated graph (a CUgraphExec) of the steps at the shapes
  /// `symbols` (none for a plan of one shape), and whether an address
  /// changed since it was captured. Least recently launched first.
  struct CachedGraph {
    std::vector<int64_t> symbols;
    void *exec = nullptr;
    bool stale = true;
  };
  std::vector<CachedGraph> graphs_;
  int graphCacheSize_ = 8;
  int graphCaptures_ = 0;

  /// Run-time shapes (ContextShapes.cpp). Checks the shapes set and writes
  /// the shape expressions' values into the steps when they changed.
  Status bindShapes();
  /// Each symbol's value from the inputs' shapes set, -1 where none is;
  /// fails when set inputs disagree, or (`all`) when a dynamic input has no
  /// shape.
  Status resolveSymbols(std::vector<int64_t> &symbols, bool all) const;
  /// The shape of tensor `index` at the bound shapes.
  std::vector<int64_t> boundShape(size_t index) const;
  int profile_ = 0;
  /// Per tensor: the shape set for an input (empty until then).
  std::vector<std::vector<int64_t>> inputShapes_;
  /// Per tensor: the bytes of its buffer, UINT64_MAX when not given.
  std::vector<uint64_t> tensorCapacity_;
  /// The symbols and expression values the steps hold (empty before the
  /// first enqueue), and the symbol values already verified.
  std::vector<int64_t> boundSymbols_, boundExprs_;
  std::vector<std::vector<int64_t>> verifiedShapes_;
  void *inputConsumed_ = nullptr;
  int64_t lastInputReader_ = -1;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_ENGINE_H
