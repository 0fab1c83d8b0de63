//===- Engine.cpp - load a plan, run its steps ------------------*- C++ -*-===//
//
// Runtime::deserializeEngine (verify the plan, pick the image for the device,
// load it, find the kernels, upload the weights), the Engine that owns the
// result, and the ExecutionContext that runs the steps.
//
// A context compiles the plan's steps once into a Program: every kernel
// parameter and every copy/fill address gets an 8-byte slot, immediates are
// filled in at once, weights addresses too, and arena and tensor addresses
// are patched into their slots when they are bound. enqueue then only walks
// the program and calls the driver.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"

#include "cuda/DriverApi.h"
#include "plan/PlanFormat.h"

#include <algorithm>

namespace kiln::rt {

namespace {

/// The image for a device of compute capability major.minor, or -1: the
/// highest cubin of the same major version and an arch <= the device's, else
/// the highest PTX with an arch <= the device's.
int selectImage(const PlanContents &plan, int major, int minor) {
  uint32_t capability = static_cast<uint32_t>(major * 10 + minor);
  int best = -1;
  for (KernelImage::Format format :
       {KernelImage::Format::Cubin, KernelImage::Format::PTX}) {
    for (size_t i = 0; i < plan.images.size(); ++i) {
      const KernelImage &image = plan.images[i];
      if (image.format != format || image.arch > capability)
        continue;
      if (format == KernelImage::Format::Cubin &&
          image.arch / 10 != static_cast<uint32_t>(major))
        continue;
      if (best < 0 || image.arch > plan.images[best].arch)
        best = static_cast<int>(i);
    }
    if (best >= 0)
      return best;
  }
  return -1;
}

/// "plan has code for sm_80, sm_90 (cubin), compute_90 (PTX)".
std::string describeImages(const PlanContents &plan) {
  std::string text = "plan has code for ";
  bool first = true;
  for (KernelImage::Format format :
       {KernelImage::Format::Cubin, KernelImage::Format::PTX}) {
    std::vector<uint32_t> archs;
    for (const KernelImage &image : plan.images)
      if (image.format == format)
        archs.push_back(image.arch);
    if (archs.empty())
      continue;
    std::sort(archs.begin(), archs.end());
    for (uint32_t arch : archs) {
      text += first ? "" : ", ";
      text += detail::imageArchName(format, arch);
      first = false;
    }
    text += format == KernelImage::Format::Cubin ? " (cubin)" : " (PTX)";
  }
  if (first)
    text += "no architecture";
  return text;
}

std::string driverVersionName(uint32_t version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10) + " (" + std::to_string(version) +
         ")";
}

} // namespace

//===----------------------------------------------------------------------===//
// Runtime::deserializeEngine
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<Engine>> Runtime::deserializeEngine(const void *data,
                                                             std::size_t size) {
  auto plan = readPlan(data, size);
  if (!plan)
    return plan.status();
  const Driver::Api &api = driver_->api();

  uint32_t driverVersion = static_cast<uint32_t>(driver_->driverVersion());
  uint32_t needed = plan->compatibility.minDriverVersion;
  if (driverVersion < needed)
    return Status(StatusCode::UnsupportedPlan,
                  "the plan needs CUDA driver " + driverVersionName(needed) +
                      " or newer; the driver '" + driver_->library() + "' is " +
                      driverVersionName(driverVersion));

  int image = -1;
  if (!plan->kernels.empty()) {
    image = selectImage(*plan, device_.computeCapabilityMajor,
                        device_.computeCapabilityMinor);
    if (image < 0)
      return Status(StatusCode::UnsupportedPlan,
                    describeImages(*plan) + "; device " +
                        std::to_string(device_.ordinal) + " '" + device_.name +
                        "' is " + device_.smArch());
  }
  if (Status s = makeCurrent(); !s)
    return s;

  std::unique_ptr<Engine> engine(new Engine(*this, std::move(*plan)));
  const PlanContents &contents = engine->plan_;
  engine->image_ = image;
  std::string imageName = "no kernel image";
  if (image >= 0) {
    const KernelImage &code = contents.images[image];
    imageName =
        "the " + detail::imageArchName(code.format, code.arch) +
        (code.format == KernelImage::Format::Cubin ? " cubin" : " PTX") +
        " (image " + std::to_string(image) + ")";
    // The JIT compiler writes its logs here (PTX); a cubin leaves them empty.
    std::string errorLog(16384, '\0'), infoLog(16384, '\0');
    CUjit_option options[] = {
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {
        &errorLog[0], reinterpret_cast<void *>(uintptr_t(errorLog.size() - 1)),
        &infoLog[0], reinterpret_cast<void *>(uintptr_t(infoLog.size() - 1))};
    CUmodule module = nullptr;
    // std::string keeps a NUL after its bytes, as PTX text needs.
    CUresult result =
        api.moduleLoadDataEx(&module, code.data.c_str(), 4, options, values);
    errorLog.resize(errorLog.find('\0'));
    infoLog.resize(infoLog.find('\0'));
    if (result != CUDA_SUCCESS)
      return Status(StatusCode::DriverError,
                    "loading " + imageName + " failed: " +
                        api.describe("cuModuleLoadDataEx", result) +
                        (errorLog.empty() ? "" : "; JIT log:\n" + errorLog));
    engine->module_ = module;
    if (!infoLog.empty())
      logger_->log(Logger::Severity::Verbose,
                   "JIT log for " + imageName + ":\n" + infoLog);

    for (size_t k = 0; k < contents.kernels.size(); ++k) {
      const std::string &name = contents.kernels[k].name;
      CUfunction function = nullptr;
      result = api.moduleGetFunction(&function, module, name.c_str());
      if (result == CUDA_ERROR_NOT_FOUND)
        return Status(StatusCode::InvalidPlan,
                      "kernel '" + name + "' (kernel " + std::to_string(k) +
                          ") is not in " + imageName + ": " +
                          api.describe("cuModuleGetFunction", result));
      if (result != CUDA_SUCCESS)
        return Status(StatusCode::DriverError,
                      "looking up kernel '" + name +
                          "': " + api.describe("cuModuleGetFunction", result));
      engine->functions_.push_back(function);
    }
  }

  if (!contents.weights.empty()) {
    auto weights =
        allocator_->allocate(contents.weights.size(), kPlanSectionAlignment);
    if (!weights)
      return Status(
          weights.status().code(),
          "allocating " + std::to_string(contents.weights.size()) +
              " bytes for the weights: " + weights.status().message());
    engine->weights_ = *weights;
    engine->weightsAllocator_ = allocator_;
    if (Status s = copyToDevice(engine->weights_, contents.weights.data(),
                                contents.weights.size());
        !s)
      return Status(s.code(), "uploading the weights: " + s.message());
  }

  logger_->log(Logger::Severity::Info,
               "engine: " + imageName + " for device " +
                   std::to_string(device_.ordinal) + " (" + device_.smArch() +
                   "), " + std::to_string(contents.kernels.size()) +
                   " kernel(s), " + std::to_string(contents.steps.size()) +
                   " step(s), " + std::to_string(contents.weights.size()) +
                   " bytes of weights, arena " +
                   std::to_string(contents.arenaBytes) + " bytes");
  return engine;
}

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

Engine::Engine(Runtime &runtime, PlanContents plan)
    : runtime_(runtime), plan_(std::move(plan)) {
  for (size_t i = 0; i < plan_.tensors.size(); ++i)
    tensorIndex_.emplace(plan_.tensors[i].name, static_cast<int>(i));
}

Engine::~Engine() {
  if (weights_)
    weightsAllocator_->free(weights_);
  if (module_) {
    Status current = runtime_.makeCurrent();
    CUresult result =
        runtime_.driver_->api().moduleUnload(static_cast<CUmodule>(module_));
    if (!current || result != CUDA_SUCCESS)
      runtime_.logger_->log(Logger::Severity::Error,
                            "unloading the engine's module: " +
                                (current ? runtime_.driver_->api().describe(
                                               "cuModuleUnload", result)
                                         : current.message()));
  }
}

int Engine::findTensor(const std::string &name) const {
  auto it = tensorIndex_.find(name);
  return it == tensorIndex_.end() ? -1 : it->second;
}

//===----------------------------------------------------------------------===//
// ExecutionContext::Program
//===----------------------------------------------------------------------===//

/// The steps of a plan, ready for the driver.
struct ExecutionContext::Program {
  struct Launch {
    CUfunction function;
    unsigned grid[3], block[3], sharedMemoryBytes;
    /// Into params; nullptr for a kernel without parameters.
    void **params;
  };
  struct Op {
    Step::Kind kind;
    /// Launch: index into launches; otherwise unused.
    uint32_t launch = 0;
    /// Copy and fill: slots of the resolved addresses.
    size_t dst = 0, src = 0;
    uint64_t bytes = 0;
    uint8_t value = 0;
  };
  /// A slot that holds base(space) + offset.
  struct Fixup {
    size_t slot;
    uint64_t offset;
  };

  /// Kernel parameter values and copy/fill addresses, 8 bytes each. A 4-byte
  /// parameter (I32, F32) is the slot's low half, which is its first 4 bytes
  /// on the little-endian hosts CUDA supports.
  std::vector<uint64_t> slots;
  /// cuLaunchKernel's kernelParams: pointers into slots, launch by launch.
  std::vector<void *> params;
  std::vector<Launch> launches;
  std::vector<Op> ops;
  std::vector<Fixup> arenaFixups;
  std::vector<std::vector<Fixup>> tensorFixups;

  void build(const Engine &engine);
  void addAddress(const Address &address, size_t slot, uint64_t weights);
};

void ExecutionContext::Program::addAddress(const Address &address, size_t slot,
                                           uint64_t weights) {
  switch (address.space) {
  case MemorySpace::Arena:
    arenaFixups.push_back({slot, address.offset});
    break;
  case MemorySpace::Weights:
    slots[slot] = weights + address.offset;
    break;
  case MemorySpace::Tensor:
    tensorFixups[address.index].push_back({slot, address.offset});
    break;
  }
}

void ExecutionContext::Program::build(const Engine &engine) {
  const PlanContents &plan = engine.plan_;
  size_t slotCount = 0, paramCount = 0;
  for (const Step &step : plan.steps) {
    if (step.kind == Step::Kind::Launch) {
      slotCount += step.launch.args.size();
      paramCount += step.launch.args.size();
      launches.emplace_back();
    } else {
      slotCount += step.kind == Step::Kind::Copy ? 2 : 1;
    }
  }
  // Sized once: params and fixups point into slots by address and index.
  slots.assign(slotCount, 0);
  params.assign(paramCount, nullptr);
  tensorFixups.resize(plan.tensors.size());
  ops.reserve(plan.steps.size());

  size_t slot = 0, param = 0;
  uint32_t launchIndex = 0;
  for (const Step &step : plan.steps) {
    Op op;
    op.kind = step.kind;
    switch (step.kind) {
    case Step::Kind::Launch: {
      const LaunchStep &l = step.launch;
      Launch &launch = launches[launchIndex];
      launch.function = static_cast<CUfunction>(engine.functions_[l.kernel]);
      for (int d = 0; d < 3; ++d) {
        launch.grid[d] = l.grid[d];
        launch.block[d] = l.block[d];
      }
      launch.sharedMemoryBytes = l.sharedMemoryBytes;
      launch.params = l.args.empty() ? nullptr : &params[param];
      for (const KernelArg &arg : l.args) {
        switch (arg.kind) {
        case KernelArg::Kind::Pointer:
          addAddress(arg.address, slot, engine.weights_);
          break;
        case KernelArg::Kind::I32:
        case KernelArg::Kind::F32:
          slots[slot] = arg.bits & 0xFFFFFFFFu;
          break;
        case KernelArg::Kind::I64:
          slots[slot] = arg.bits;
          break;
        }
        params[param++] = &slots[slot++];
      }
      op.launch = launchIndex++;
      break;
    }
    case Step::Kind::Copy:
      op.dst = slot++;
      op.src = slot++;
      op.bytes = step.copy.bytes;
      addAddress(step.copy.dst, op.dst, engine.weights_);
      addAddress(step.copy.src, op.src, engine.weights_);
      break;
    case Step::Kind::Fill:
      op.dst = slot++;
      op.bytes = step.fill.bytes;
      op.value = step.fill.value;
      addAddress(step.fill.dst, op.dst, engine.weights_);
      break;
    }
    ops.push_back(op);
  }
}

//===----------------------------------------------------------------------===//
// ExecutionContext
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<ExecutionContext>>
Engine::createExecutionContextWithoutDeviceMemory() {
  auto program = std::make_unique<ExecutionContext::Program>();
  program->build(*this);
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

ExecutionContext::ExecutionContext(Engine &engine,
                                   std::unique_ptr<Program> program)
    : engine_(engine), program_(std::move(program)),
      tensorAddresses_(engine.plan_.tensors.size(), 0),
      tensorBound_(engine.plan_.tensors.size(), false),
      unboundTensors_(engine.plan_.tensors.size()) {}

ExecutionContext::~ExecutionContext() {
  Runtime &runtime = engine_.runtime_;
  for (void *event : events_)
    (void)runtime.destroyEvent(event);
  if (stream_)
    if (Status s = runtime.destroyStream(stream_); !s)
      runtime.logger_->log(Logger::Severity::Error,
                           "destroying the context's stream: " + s.message());
  if (arenaAllocator_)
    arenaAllocator_->free(arena_);
}

void ExecutionContext::bindArena(uint64_t ptr) {
  arena_ = ptr;
  arenaSet_ = true;
  for (const Program::Fixup &f : program_->arenaFixups)
    program_->slots[f.slot] = ptr + f.offset;
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
  tensorAddresses_[index] = ptr;
  for (const Program::Fixup &f : program_->tensorFixups[index])
    program_->slots[f.slot] = ptr + f.offset;
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
  Runtime &runtime = engine_.runtime_;
  if (Status s = runtime.makeCurrent(); !s)
    return s;
  const Driver::Api &api = runtime.driver_->api();
  auto *cuStream = static_cast<CUstream>(stream);
  const std::vector<uint64_t> &slots = program_->slots;
  if (profiler_) {
    while (events_.size() < program_->ops.size() + 1) {
      auto event = runtime.createEvent();
      if (!event)
        return event.status();
      events_.push_back(*event);
    }
    if (Status s = runtime.recordEvent(events_[0], stream); !s)
      return s;
  }
  for (size_t i = 0; i < program_->ops.size(); ++i) {
    if (profiler_ && i > 0)
      if (Status s = runtime.recordEvent(events_[i], stream); !s)
        return s;
    const Program::Op &op = program_->ops[i];
    CUresult result = CUDA_SUCCESS;
    const char *call = "";
    switch (op.kind) {
    case Step::Kind::Launch: {
      const Program::Launch &l = program_->launches[op.launch];
      call = "cuLaunchKernel";
      result = api.launchKernel(
          l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
          l.block[2], l.sharedMemoryBytes, cuStream, l.params, nullptr);
      break;
    }
    case Step::Kind::Copy:
      if (op.bytes == 0)
        continue;
      call = "cuMemcpyDtoDAsync";
      result =
          api.memcpyDtoDAsync(slots[op.dst], slots[op.src], op.bytes, cuStream);
      break;
    case Step::Kind::Fill:
      if (op.bytes == 0)
        continue;
      call = "cuMemsetD8Async";
      result = api.memsetD8Async(slots[op.dst], op.value, op.bytes, cuStream);
      break;
    }
    if (result != CUDA_SUCCESS) {
      const Step &step = plan.steps[i];
      std::string what =
          step.kind == Step::Kind::Launch
              ? "launch '" + plan.kernels[step.launch.kernel].name + "'"
          : step.kind == Step::Kind::Copy ? "copy"
                                          : "fill";
      return Status(StatusCode::DriverError,
                    "step " + std::to_string(i) + " (" + what +
                        "): " + api.describe(call, result));
    }
  }
  return profiler_ ? reportProfile(stream) : Status::ok();
}

Status ExecutionContext::reportProfile(void *stream) {
  const PlanContents &plan = engine_.plan_;
  Runtime &runtime = engine_.runtime_;
  size_t n = program_->ops.size();
  if (Status s = runtime.recordEvent(events_[n], stream); !s)
    return s;
  for (size_t i = 0; i < n; ++i) {
    auto ms = runtime.elapsedMs(events_[i], events_[i + 1]); // waits for it
    if (!ms)
      return ms.status();
    const Step &step = plan.steps[i];
    std::string name = step.kind == Step::Kind::Launch
                           ? "launch " + plan.kernels[step.launch.kernel].name
                       : step.kind == Step::Kind::Copy ? "copy"
                                                       : "fill";
    profiler_->reportStepTime(static_cast<int>(i), name, *ms);
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
