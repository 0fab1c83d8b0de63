//===- PlanExecutor.cpp - run a plan on host tensors ------------*- C++ -*-===//

#include "kiln/Runner/PlanExecutor.h"

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace mlir::kiln;
namespace rt = ::kiln::rt;

ElementKind mlir::kiln::elementKindOf(rt::DataType type) {
  switch (type) {
  case rt::DataType::F32:
    return ElementKind::F32;
  case rt::DataType::F16:
    return ElementKind::F16;
  case rt::DataType::BF16:
    return ElementKind::BF16;
  case rt::DataType::I8:
    return ElementKind::I8;
  case rt::DataType::I32:
    return ElementKind::I32;
  case rt::DataType::I64:
    return ElementKind::I64;
  case rt::DataType::Bool:
    return ElementKind::Bool;
  }
  return ElementKind::F32;
}

double mlir::kiln::quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(q * v.size())) - (q > 0 ? 1 : 0);
  return v[std::min(i, v.size() - 1)];
}

std::string PlanExecutor::create(rt::Runtime &runtime, const std::string &plan,
                                 std::unique_ptr<PlanExecutor> &out) {
  std::unique_ptr<PlanExecutor> exec(new PlanExecutor(runtime));
  auto engine = runtime.deserializeEngine(plan.data(), plan.size());
  if (!engine.isOk())
    return engine.status().toString();
  exec->engine_ = std::move(*engine);
  auto context = exec->engine_->createExecutionContext();
  if (!context.isOk())
    return context.status().toString();
  exec->context = std::move(*context);
  for (int i = 0; i < exec->engine_->numTensors(); ++i) {
    const rt::TensorDesc &desc = exec->engine_->tensor(i);
    HostTensor spec(desc.name, elementKindOf(desc.type), desc.shape);
    (desc.isInput ? exec->inputSpecs : exec->outputSpecs).push_back(spec);
    // Zero-size tensors still get a (1-byte) buffer to bind.
    auto ptr = runtime.allocate(std::max<int64_t>(desc.numBytes(), 1));
    if (!ptr.isOk())
      return ptr.status().toString();
    exec->buffers.push_back(*ptr);
    rt::Status s = exec->context->setTensorAddress(desc.name, *ptr);
    if (!s.isOk())
      return s.toString();
  }
  auto stream = runtime.createStream();
  if (!stream.isOk())
    return stream.status().toString();
  exec->stream = *stream;
  out = std::move(exec);
  return "";
}

PlanExecutor::~PlanExecutor() {
  context.reset();
  for (uint64_t p : buffers)
    runtime.free(p);
  if (stream)
    (void)runtime.destroyStream(stream);
}

std::string PlanExecutor::run(const std::vector<HostTensor> &inputs,
                              std::vector<HostTensor> &outputs) {
  if (inputs.size() != inputSpecs.size())
    return "expected " + std::to_string(inputSpecs.size()) + " inputs, got " +
           std::to_string(inputs.size());
  size_t in = 0;
  outputs.clear();
  for (int i = 0; i < engine_->numTensors(); ++i) {
    const rt::TensorDesc &desc = engine_->tensor(i);
    if (!desc.isInput)
      continue;
    const HostTensor &t = inputs[in];
    const HostTensor &spec = inputSpecs[in++];
    if (t.kind != spec.kind || t.shape != spec.shape)
      return "input '" + spec.name + "' is " + t.typeString() + ", expected " +
             spec.typeString();
    rt::Status s = runtime.copyToDevice(buffers[i], t.data(), t.numBytes());
    if (!s.isOk())
      return s.toString();
  }
  rt::Status s = context->enqueue(stream);
  if (s.isOk())
    s = runtime.synchronize(stream);
  if (!s.isOk())
    return s.toString();
  for (int i = 0; i < engine_->numTensors(); ++i) {
    const rt::TensorDesc &desc = engine_->tensor(i);
    if (desc.isInput)
      continue;
    HostTensor t(desc.name, elementKindOf(desc.type), desc.shape);
    s = runtime.copyToHost(t.data(), buffers[i], t.numBytes());
    if (!s.isOk())
      return s.toString();
    outputs.push_back(t);
  }
  return "";
}

std::string PlanExecutor::time(int warmup, int iterations,
                               std::vector<double> &gpuMs,
                               std::vector<double> &hostMs) {
  auto start = runtime.createEvent();
  auto end = runtime.createEvent();
  if (!start.isOk() || !end.isOk())
    return (start.isOk() ? end.status() : start.status()).toString();
  std::string error;
  for (int i = 0; i < warmup + iterations && error.empty(); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    rt::Status s = runtime.recordEvent(*start, stream);
    if (s.isOk())
      s = context->enqueue(stream);
    if (s.isOk())
      s = runtime.recordEvent(*end, stream);
    if (s.isOk())
      s = runtime.synchronize(stream);
    auto t1 = std::chrono::steady_clock::now();
    auto ms = runtime.elapsedMs(*start, *end);
    if (!s.isOk() || !ms.isOk()) {
      error = (s.isOk() ? ms.status() : s).toString();
      break;
    }
    if (i < warmup)
      continue;
    gpuMs.push_back(*ms);
    hostMs.push_back(
        std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  (void)runtime.destroyEvent(*start);
  (void)runtime.destroyEvent(*end);
  return error;
}

namespace {
struct Collector : rt::Profiler {
  std::vector<PlanExecutor::StepProfile> &steps;
  explicit Collector(std::vector<PlanExecutor::StepProfile> &steps)
      : steps(steps) {}
  void reportStepTime(int step, const std::string &name, float ms) override {
    if (static_cast<size_t>(step) >= steps.size())
      steps.resize(step + 1);
    steps[step].name = name;
    steps[step].ms.push_back(ms);
  }
};
} // namespace

std::string PlanExecutor::profile(int runs,
                                  std::vector<StepProfile> &steps) {
  auto collector = std::make_unique<Collector>(steps);
  context->setProfiler(collector.get());
  std::string error;
  for (int i = 0; i < runs && error.empty(); ++i)
    if (rt::Status s = context->enqueue(stream); !s.isOk())
      error = s.toString();
  context->setProfiler(nullptr);
  return error;
}
