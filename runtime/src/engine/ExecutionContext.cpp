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
      lastInputReader_(findLastInputReader(engine.plan_)) {}

ExecutionContext::~ExecutionContext() {
  Runtime &runtime = engine_.runtime_;
  destroyGraph();
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

void ExecutionContext::bindArena(uint64_t ptr) {
  graphStale_ |= !arenaSet_ || arena_ != ptr;
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
  if (ptr == 0 && t.numBytes() != 0)
    return Status(StatusCode::InvalidArgument,
                  "null address for tensor '" + name + "' (" +
                      std::to_string(t.numBytes()) + " bytes)");
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
  graphStale_ |= tensorAddresses_[index] != ptr;
  tensorAddresses_[index] = ptr;
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
  if (graphStale_ || !graphExec_) {
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
    auto exec = static_cast<CUgraphExec>(graphExec_);
    if (exec) {
      // The same steps with new addresses: update the instantiated graph,
      // or instantiate it anew when the driver refuses.
      CUgraphExecUpdateResultInfo info;
      if (CUresult u = api.graphExecUpdate(exec, graph, &info);
          u != CUDA_SUCCESS) {
        runtime.logger_->log(Logger::Severity::Verbose,
                             "the driver did not update the context's CUDA "
                             "graph in place (" +
                                 api.describe("cuGraphExecUpdate", u) +
                                 "): instantiating it anew");
        destroyGraph();
      }
    }
    if (!graphExec_) {
      r = api.graphInstantiate(&exec, graph, 0);
      if (r != CUDA_SUCCESS) {
        release();
        return driverError("cuGraphInstantiate", r);
      }
      graphExec_ = exec;
    }
    release();
    graphStale_ = false;
    ++graphCaptures_;
  }
  CUresult r = api.graphLaunch(static_cast<CUgraphExec>(graphExec_), cuStream);
  if (r != CUDA_SUCCESS)
    return driverError("cuGraphLaunch", r);
  return inputConsumed_ ? runtime.recordEvent(inputConsumed_, stream)
                        : Status::ok();
}

void ExecutionContext::destroyGraph() {
  if (!graphExec_)
    return;
  Runtime &runtime = engine_.runtime_;
  CUresult r = runtime.driver_->api().graphExecDestroy(
      static_cast<CUgraphExec>(graphExec_));
  if (r != CUDA_SUCCESS)
    runtime.logger_->log(
        Logger::Severity::Error,
        "destroying the context's CUDA graph: " +
            runtime.driver_->api().describe("cuGraphExecDestroy", r));
  graphExec_ = nullptr;
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
