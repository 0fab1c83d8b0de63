//===- Engine.cpp - load a plan on a device ---------------------*- C++ -*-===//
//
// Runtime::deserializeEngine (verify the plan, check that every step can run
// here, pick the image for the device, load it, find the kernels, upload the
// weights, free the host copies of the images and weights) and the Engine
// that owns the result. ExecutionContext.cpp runs the
// steps.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"

#include "cuda/DriverApi.h"
#include "engine/StepKinds.h"
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
  // Every step's kind can run it here (a library call has a handler), before
  // anything is loaded.
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    const detail::StepKind *kind = detail::findStepKind(plan->steps[i].kind);
    if (!kind)
      return Status(StatusCode::Internal,
                    "step " + std::to_string(i) + " has kind " +
                        std::to_string(static_cast<int>(plan->steps[i].kind)) +
                        ", which the engine cannot run");
    if (kind->check)
      if (Status s = kind->check(plan->steps[i], i); !s)
        return s;
  }
  if (Status s = makeCurrent(); !s)
    return s;

  std::unique_ptr<Engine> engine(new Engine(*this, std::move(*plan)));
  const PlanContents &contents = engine->plan_;
  engine->image_ = image;
  engine->stepStates_.resize(contents.steps.size());
  for (size_t i = 0; i < contents.steps.size(); ++i) {
    const detail::StepKind *kind = detail::findStepKind(contents.steps[i].kind);
    if (!kind->load)
      continue;
    auto state = kind->load(*this, contents.steps[i], i);
    if (!state)
      return state.status();
    engine->stepStates_[i] = std::move(*state);
  }

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

  // The device has the code (cuModuleLoadDataEx copies the image) and the
  // weights (copyToDevice is complete on return): free the host copies,
  // keeping their sizes (Engine.h).
  engine->weightsBytes_ = contents.weights.size();
  for (KernelImage &code : engine->plan_.images) {
    engine->imageBytes_.push_back(code.data.size());
    std::string().swap(code.data);
  }
  std::string().swap(engine->plan_.weights);

  logger_->log(Logger::Severity::Info,
               "engine: " + imageName + " for device " +
                   std::to_string(device_.ordinal) + " (" + device_.smArch() +
                   "), " + std::to_string(contents.kernels.size()) +
                   " kernel(s), " + std::to_string(contents.steps.size()) +
                   " step(s), " + std::to_string(engine->weightsBytes_) +
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
  // What the steps' kinds made (library-call instances) goes first, with the
  // device's context current: it may refer to the module or the weights.
  if (std::any_of(stepStates_.begin(), stepStates_.end(),
                  [](const auto &state) { return state != nullptr; }))
    if (Status s = runtime_.makeCurrent(); !s)
      runtime_.logger_->log(Logger::Severity::Error,
                            "releasing the engine's library calls: " +
                                s.message());
  stepStates_.clear();
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

std::string Engine::stepName(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= plan_.steps.size())
    return "";
  return detail::stepProfileName(plan_, plan_.steps[index]);
}

uint64_t Engine::imageBytes(int index) const {
  return index >= 0 && static_cast<size_t>(index) < imageBytes_.size()
             ? imageBytes_[index]
             : 0;
}

int Engine::findTensor(const std::string &name) const {
  auto it = tensorIndex_.find(name);
  return it == tensorIndex_.end() ? -1 : it->second;
}

} // namespace kiln::rt
