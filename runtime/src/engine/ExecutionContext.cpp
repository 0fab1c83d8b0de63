//===- ExecutionContext.cpp - bind addresses, enqueue the steps -*- C++ -*-===//
//
// An ExecutionContext prepares the engine's steps once, each by its kind
// (StepKinds.h), into a Program; binding the arena and the tensors patches
// the addresses into the prepared steps' slots, and enqueue walks the
// prepared steps, with CUDA events around each when a profiler is set.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"

#include "engine/StepKinds.h"
#include "plan/PlanFormat.h"
#include "plan/ShapeProgram.h"

#include <algorithm>

namespace kiln::rt {

//===----------------------------------------------------------------------===//
// ExecutionContext
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<ExecutionContext>>
Engine::createExecutionContextWithoutDeviceMemory() {
  auto program = std::make_unique<detail::Program>();
  program->tensorFixups.resize(plan_.tensors.size());
  program->steps.reserve(plan_.steps.size());
  detail::ProgramBuilder builder(*program, plan_, functions_, weights_,
                                 stepStates_);
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    const Step &step = plan_.steps[i];
    const detail::StepKind *kind = detail::findStepKind(step.kind);
    if (!kind)
      return Status(StatusCode::Internal,
                    "step " + std::to_string(i) + " has kind " +
                        std::to_string(static_cast<int>(step.kind)) +
                        ", which the engine cannot run");
    program->steps.push_back(kind->prepare(builder, step, i));
  }
  std::unique_ptr<ExecutionContext> context(
      new ExecutionContext(*this, std::move(program)));
  if (plan_.arenaBytes == 0)
    context->bindArena(0);
  return context;
}

StatusOr<std::unique_ptr<ExecutionContext>> Engine::createExecutionContext() {
  auto context = createExecutionContextWithoutDeviceMemory();
  if (!context || plan_.arenaBytes == 0)
    return context;
  GpuAllocator *allocator = runtime_.allocator_;
  auto arena = allocator->allocate(plan_.arenaBytes, kPlanSectionAlignment);
  if (!arena)
    return Status(arena.status().code(),
                  "allocating the context's " +
                      std::to_string(plan_.arenaBytes) +
                      "-byte arena: " + arena.status().message());
  if (*arena % kPlanSectionAlignment != 0) {
    allocator->free(*arena);
    return Status(StatusCode::InvalidArgument,
                  "the GpuAllocator returned an arena at " +
                      std::to_string(*arena) + ", not a multiple of " +
                      std::to_string(kPlanSectionAlignment));
  }
  (*context)->arenaAllocator_ = allocator;
  (*context)->bindArena(*arena);
  return context;
}

/// The index of the last step of `plan` that reads an input tensor (a
/// kernel argument it reads, a copy's source, a library call's buffer), or
/// -1 when none does.
static int64_t findLastInputReader(const PlanContents &plan) {
  auto isInput = [&](const Address &a) {
    return a.space == MemorySpace::Tensor && a.index < plan.tensors.size() &&
           plan.tensors[a.index].isInput;
  };
  int64_t last = -1;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    bool reads = false;
    switch (step.kind) {
    case Step::Kind::Launch:
      for (const KernelArg &arg : step.launch.args)
        reads |= arg.kind == KernelArg::Kind::Pointer &&
                 (arg.access == KernelArg::Access::Read ||
                  arg.access == KernelArg::Access::ReadWrite) &&
                 isInput(arg.address);
      break;
    case Step::Kind::Copy:
      reads = isInput(step.copy.src);
      break;
    case Step::Kind::Fill:
      break;
    case Step::Kind::LibraryCall:
      for (const LibraryCallBuffer &buffer : step.libraryCall.buffers)
        reads |= isInput(buffer.address);
      break;
    }
    if (reads)
      last = static_cast<int64_t>(i);
  }
  return last;
}

ExecutionContext::ExecutionContext(Engine &engine,
                                   std::unique_ptr<detail::Program> program)
    : engine_(engine), program_(std::move(program)),
      tensorAddresses_(engine.plan_.tensors.size(), 0),
      tensorBound_(engine.plan_.tensors.size(), false),
      unboundTensors_(engine.plan_.tensors.size()),
      inputShapes_(engine.plan_.tensors.size()),
      tensorCapacity_(engine.plan_.tensors.size(), UINT64_MAX),
      lastInputReader_(findLastInputReader(engine.plan_)) {}

ExecutionContext::~ExecutionContext() {
  Runtime &runtime = engine_.runtime_;
  for (CachedGraph &g : graphs_)
    destroyGraph(g.exec);
  for (void *event : events_)
    if (Status s = runtime.destroyEvent(event); !s)
      runtime.logger_->log(Logger::Severity::Error,
                           "destroying the context's profiling event: " +
                               s.message());
  if (stream_)
    if (Status s = runtime.destroyStream(stream_); !s)
      runtime.logger_->log(Logger::Severity::Error,
                           "destroying the context's stream: " + s.message());
  if (arenaAllocator_)
    arenaAllocator_->free(arena_);
}

void ExecutionContext::markGraphsStale() {
  for (CachedGraph &g : graphs_)
    g.stale = true;
}

void ExecutionContext::bindArena(uint64_t ptr) {
  if (!arenaSet_ || arena_ != ptr)
    markGraphsStale();
  arena_ = ptr;
  arenaSet_ = true;
  for (const detail::Program::Fixup &f : program_->arenaFixups)
    *f.slot = ptr + f.offset;
}

Status ExecutionContext::setDeviceMemory(uint64_t ptr) {
  uint64_t bytes = engine_.plan_.arenaBytes;
  if (arenaAllocator_)
    return Status(StatusCode::InvalidArgument,
                  "this context allocated its own device memory; create it "
                  "with createExecutionContextWithoutDeviceMemory to provide "
                  "the arena");
  if (ptr % kPlanSectionAlignment != 0)
    return Status(StatusCode::InvalidArgument,
                  "device memory at " + std::to_string(ptr) +
                      " is not a multiple of " +
                      std::to_string(kPlanSectionAlignment) + " bytes");
  if (ptr == 0 && bytes != 0)
    return Status(StatusCode::InvalidArgument,
                  "device memory is null; the engine needs " +
                      std::to_string(bytes) + " bytes");
  bindArena(ptr);
  return Status::ok();
}

Status ExecutionContext::setTensorAddress(const std::string &name,
                                          uint64_t ptr) {
  return setTensorAddress(name, ptr, UINT64_MAX);
}

Status ExecutionContext::setTensorAddress(const std::string &name, uint64_t ptr,
                                          uint64_t bytes) {
  int index = engine_.findTensor(name);
  if (index < 0) {
    std::string known;
    for (const TensorDesc &t : engine_.plan_.tensors)
      known += (known.empty() ? "'" : ", '") + t.name + "' (" +
               (t.isInput ? "input" : "output") + ")";
    return Status(StatusCode::NotFound, "the engine has no tensor named '" +
                                            name + "'; its tensors are " +
                                            (known.empty() ? "none" : known));
  }
  const TensorDesc &t = engine_.plan_.tensors[index];
  uint64_t elementBytes = static_cast<uint64_t>(dataTypeBytes(t.type));
  if (ptr == 0 && (t.isDynamic() || t.numBytes() != 0))
    return Status(StatusCode::InvalidArgument,
                  "null address for tensor '" + name + "' (" +
                      (t.isDynamic()
                           ? "shape " + detail::shapeText(t.shape)
                           : std::to_string(t.numBytes()) + " bytes") +
                      ")");
  if (ptr % elementBytes != 0)
    return Status(StatusCode::InvalidArgument,
                  "address " + std::to_string(ptr) + " of tensor '" + name +
                      "' is not a multiple of its element size (" +
                      std::to_string(elementBytes) + " bytes, " +
                      dataTypeName(t.type) + ")");
  if (!tensorBound_[index]) {
    tensorBound_[index] = true;
    --unboundTensors_;
  }
  if (tensorAddresses_[index] != ptr)
    markGraphsStale();
  tensorAddresses_[index] = ptr;
  tensorCapacity_[index] = bytes;
  for (const detail::Program::Fixup &f : program_->tensorFixups[index])
    *f.slot = ptr + f.offset;
  return Status::ok();
}

uint64_t ExecutionContext::tensorAddress(const std::string &name) const {
  int index = engine_.findTensor(name);
  return index < 0 ? 0 : tensorAddresses_[index];
}

Status ExecutionContext::enqueue(void *stream) {
  const PlanContents &plan = engine_.plan_;
  if (!arenaSet_)
    return Status(StatusCode::InvalidArgument,
                  "the context has no device memory: call setDeviceMemory "
                  "with " +
                      std::to_string(plan.arenaBytes) +
                      " bytes before enqueue");
  if (unboundTensors_ != 0) {
    std::string names;
    for (size_t i = 0; i < plan.tensors.size(); ++i)
      if (!tensorBound_[i])
        names += (names.empty() ? "'" : ", '") + plan.tensors[i].name + "' (" +
                 (plan.tensors[i].isInput ? "input" : "output") + ")";
    return Status(StatusCode::InvalidArgument,
                  "tensor " + names +
                      (unboundTensors_ == 1 ? " has" : " have") +
                      " no address: call setTensorAddress before enqueue");
  }
  if (engine_.hasDynamicShapes())
    if (Status s = bindShapes(); !s)
      return s;
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    if (tensorCapacity_[i] == UINT64_MAX)
      continue;
    const TensorDesc &t = plan.tensors[i];
    std::vector<int64_t> shape =
        t.isDynamic() ? boundShape(i) : plan.tensors[i].shape;
    uint64_t need = static_cast<uint64_t>(dataTypeBytes(t.type));
    for (int64_t d : shape)
      need *= static_cast<uint64_t>(d);
    if (need > tensorCapacity_[i])
      return Status(StatusCode::InvalidArgument,
                    detail::tensorLabel(t) + " of shape " +
                        detail::shapeText(shape) + " needs " +
                        std::to_string(need) + " bytes, but its buffer holds " +
                        std::to_string(tensorCapacity_[i]));
  }
  if (Status s = engine_.runtime_.makeCurrent(); !s)
    return s;
  if (cudaGraphs_ && !profiler_)
    return enqueueGraph(stream);
  return enqueueSteps(stream, /*recordInputConsumed=*/true);
}

Status ExecutionContext::enqueueSteps(void *stream, bool recordInputConsumed) {
  const PlanContents &plan = engine_.plan_;
  Runtime &runtime = engine_.runtime_;
  const Driver::Api &api = runtime.driver_->api();
  auto *cuStream = static_cast<CUstream>(stream);
  const size_t n = program_->steps.size();
  if (profiler_) {
    while (events_.size() < n + 1) {
      auto event = runtime.createEvent();
      if (!event)
        return event.status();
      events_.push_back(*event);
    }
    if (Status s = runtime.recordEvent(events_[0], stream); !s)
      return s;
  }
  // The input-consumed event goes after the last step that reads an input.
  void *consumed = recordInputConsumed ? inputConsumed_ : nullptr;
  if (consumed && lastInputReader_ < 0)
    if (Status s = runtime.recordEvent(consumed, stream); !s)
      return s;
  for (size_t i = 0; i < n; ++i) {
    if (profiler_ && i > 0)
      if (Status s = runtime.recordEvent(events_[i], stream); !s)
        return s;
    if (Status s = program_->steps[i]->enqueue(api, cuStream); !s)
      return Status(s.code(), "step " + std::to_string(i) + " (" +
                                  detail::describeStep(plan, plan.steps[i]) +
                                  "): " + s.message());
    if (consumed && static_cast<int64_t>(i) == lastInputReader_)
      if (Status s = runtime.recordEvent(consumed, stream); !s)
        return s;
  }
  return profiler_ ? reportProfile(stream) : Status::ok();
}

Status ExecutionContext::enqueueGraph(void *stream) {
  Runtime &runtime = engine_.runtime_;
  const Driver::Api &api = runtime.driver_->api();
  auto *cuStream = static_cast<CUstream>(stream);
  if (!stream)
    return Status(StatusCode::InvalidArgument,
                  "CUDA graphs need a stream of the application's: the legacy "
                  "default stream (nullptr) cannot be captured");
  auto driverError = [&](const char *call, CUresult result) {
    return Status(StatusCode::DriverError,
                  std::string("CUDA graph: ") + api.describe(call, result));
  };
  // The graph of the bound shapes, or a slot for it: a new one, or the
  // least recently used beyond the cache's bound (updated in place).
  size_t slot = graphs_.size();
  for (size_t i = 0; i < graphs_.size(); ++i)
    if (graphs_[i].symbols == boundSymbols_)
      slot = i;
  if (slot == graphs_.size() || graphs_[slot].stale) {
    CUresult r =
        api.streamBeginCapture(cuStream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    if (r != CUDA_SUCCESS)
      return driverError("cuStreamBeginCapture", r);
    // The application's event is recorded after the graph, not captured.
    Status captured = enqueueSteps(stream, /*recordInputConsumed=*/false);
    // The capture ends whatever happened, so the stream stays usable.
    CUgraph graph = nullptr;
    r = api.streamEndCapture(cuStream, &graph);
    // The captured graph is released however this ends.
    auto release = [&] {
      if (!graph)
        return;
      if (CUresult d = api.graphDestroy(graph); d != CUDA_SUCCESS)
        runtime.logger_->log(Logger::Severity::Error,
                             "destroying a captured CUDA graph: " +
                                 api.describe("cuGraphDestroy", d));
    };
    if (!captured || r != CUDA_SUCCESS) {
      release();
      return captured ? driverError("cuStreamEndCapture", r) : captured;
    }
    if (slot == graphs_.size()) {
      if (graphs_.size() >= static_cast<size_t>(graphCacheSize_))
        slot = 0;
      else
        graphs_.push_back({});
    }
    CachedGraph &entry = graphs_[slot];
    auto exec = static_cast<CUgraphExec>(entry.exec);
    if (exec) {
      // The same steps with new addresses or sizes: update the
      // instantiated graph, or instantiate it anew when the driver refuses.
      CUgraphExecUpdateResultInfo info;
      if (CUresult u = api.graphExecUpdate(exec, graph, &info);
          u != CUDA_SUCCESS) {
        runtime.logger_->log(Logger::Severity::Verbose,
                             "the driver did not update a CUDA graph of the "
                             "context in place (" +
                                 api.describe("cuGraphExecUpdate", u) +
                                 "): instantiating it anew");
        destroyGraph(entry.exec);
        entry.exec = nullptr;
      }
    }
    if (!entry.exec) {
      r = api.graphInstantiate(&exec, graph, 0);
      if (r != CUDA_SUCCESS) {
        release();
        graphs_.erase(graphs_.begin() + static_cast<std::ptrdiff_t>(slot));
        return driverError("cuGraphInstantiate", r);
      }
      entry.exec = exec;
    }
    release();
    entry.symbols = boundSymbols_;
    entry.stale = false;
    ++graphCaptures_;
  }
  // Most recently used last.
  std::rotate(graphs_.begin() + static_cast<std::ptrdiff_t>(slot),
              graphs_.begin() + static_cast<std::ptrdiff_t>(slot) + 1,
              graphs_.end());
  CUresult r =
      api.graphLaunch(static_cast<CUgraphExec>(graphs_.back().exec), cuStream);
  if (r != CUDA_SUCCESS)
    return driverError("cuGraphLaunch", r);
  return inputConsumed_ ? runtime.recordEvent(inputConsumed_, stream)
                        : Status::ok();
}

void ExecutionContext::destroyGraph(void *exec) {
  if (!exec)
    return;
  Runtime &runtime = engine_.runtime_;
  CUresult r =
      runtime.driver_->api().graphExecDestroy(static_cast<CUgraphExec>(exec));
  if (r != CUDA_SUCCESS)
    runtime.logger_->log(
        Logger::Severity::Error,
        "destroying a CUDA graph of the context: " +
            runtime.driver_->api().describe("cuGraphExecDestroy", r));
}

void ExecutionContext::setGraphCacheSize(int size) {
  graphCacheSize_ = size < 1 ? 1 : size;
  while (graphs_.size() > static_cast<size_t>(graphCacheSize_)) {
    destroyGraph(graphs_.front().exec);
    graphs_.erase(graphs_.begin());
  }
}

Status ExecutionContext::reportProfile(void *stream) {
  const PlanContents &plan = engine_.plan_;
  Runtime &runtime = engine_.runtime_;
  size_t n = program_->steps.size();
  if (Status s = runtime.recordEvent(events_[n], stream); !s)
    return s;
  for (size_t i = 0; i < n; ++i) {
    auto ms = runtime.elapsedMs(events_[i], events_[i + 1]); // waits for it
    if (!ms)
      return ms.status();
    profiler_->reportStepTime(
        static_cast<int>(i), detail::stepProfileName(plan, plan.steps[i]), *ms);
  }
  return Status::ok();
}

Status ExecutionContext::execute() {
  Runtime &runtime = engine_.runtime_;
  if (!stream_) {
    auto stream = runtime.createStream();
    if (!stream)
      return stream.status();
    stream_ = *stream;
  }
  if (Status s = enqueue(stream_); !s)
    return s;
  return runtime.synchronize(stream_);
}

} // namespace kiln::rt
