//===- PlanRunner.cpp - run a plan on host tensors --------------*- C++ -*-===//

#include "kiln/tooling/PlanRunner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace kiln::tooling {

double quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(q * v.size())) - (q > 0 ? 1 : 0);
  return v[std::min(i, v.size() - 1)];
}

rt::StatusOr<std::unique_ptr<PlanRunner>>
PlanRunner::create(rt::Runtime &runtime, const std::string &plan) {
  std::unique_ptr<PlanRunner> runner(new PlanRunner(runtime));
  auto engine = runtime.deserializeEngine(plan.data(), plan.size());
  if (!engine.isOk())
    return engine.status();
  runner->engine_ = std::move(*engine);
  auto context = runner->engine_->createExecutionContext();
  if (!context.isOk())
    return context.status();
  runner->context = std::move(*context);
  std::vector<std::vector<int64_t>> largestShapes =
      rt::largestShapes(runner->engine_->plan());
  for (int i = 0; i < runner->engine_->numTensors(); ++i) {
    const rt::TensorDesc &desc = runner->engine_->tensor(i);
    (desc.isInput ? runner->inputSpecs : runner->outputSpecs).push_back(desc);
    // A dynamic tensor's buffer holds its largest shape; zero-size tensors
    // still get a (1-byte) buffer to bind.
    rt::TensorDesc largest = desc;
    largest.shape = largestShapes[i];
    uint64_t bytes = std::max<int64_t>(largest.numBytes(), 1);
    auto ptr = runtime.allocate(bytes);
    if (!ptr.isOk())
      return ptr.status();
    runner->buffers.push_back(*ptr);
    if (rt::Status s =
            runner->context->setTensorAddress(desc.name, *ptr, bytes);
        !s)
      return s;
  }
  auto stream = runtime.createStream();
  if (!stream.isOk())
    return stream.status();
  runner->stream = *stream;
  return runner;
}

PlanRunner::~PlanRunner() {
  context.reset();
  for (uint64_t p : buffers)
    runtime.free(p);
  if (stream)
    (void)runtime.destroyStream(stream);
}

rt::Status PlanRunner::run(const std::vector<HostTensor> &inputs,
                           std::vector<HostTensor> &outputs) {
  if (inputs.size() != inputSpecs.size())
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "expected " + std::to_string(inputSpecs.size()) +
                          " inputs, got " + std::to_string(inputs.size()));
  size_t in = 0;
  outputs.clear();
  for (int i = 0; i < engine_->numTensors(); ++i) {
    const rt::TensorDesc &desc = engine_->tensor(i);
    if (!desc.isInput)
      continue;
    const HostTensor &t = inputs[in++];
    if (t.type != desc.type || (!desc.isDynamic() && t.shape != desc.shape))
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "input '" + desc.name + "' is " + t.typeString() +
                            ", expected " + typeString(desc.shape, desc.type));
    // A dynamic input runs at the shape of its tensor.
    if (desc.isDynamic())
      if (rt::Status s = context->setInputShape(desc.name, t.shape); !s)
        return s;
    if (rt::Status s = runtime.copyToDevice(buffers[i], t.data(), t.numBytes());
        !s)
      return s;
  }
  rt::Status s = context->enqueue(stream);
  if (s.isOk())
    s = runtime.synchronize(stream);
  if (!s.isOk())
    return s;
  for (int i = 0; i < engine_->numTensors(); ++i) {
    const rt::TensorDesc &desc = engine_->tensor(i);
    if (desc.isInput)
      continue;
    auto shape = context->getTensorShape(desc.name);
    if (!shape.isOk())
      return shape.status();
    auto t = HostTensor::create(desc.name, desc.type, *shape);
    if (!t.isOk())
      return t.status();
    if (rt::Status c = runtime.copyToHost(t->data(), buffers[i], t->numBytes());
        !c)
      return c;
    outputs.push_back(std::move(*t));
  }
  return rt::Status::ok();
}

rt::Status PlanRunner::time(int warmup, int iterations,
                            std::vector<double> &gpuMs,
                            std::vector<double> &hostMs) {
  auto start = runtime.createEvent();
  auto end = runtime.createEvent();
  if (!start.isOk() || !end.isOk())
    return start.isOk() ? end.status() : start.status();
  rt::Status error;
  for (int i = 0; i < warmup + iterations; ++i) {
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
      error = s.isOk() ? ms.status() : s;
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

rt::Status PlanRunner::timeBackToBack(int iterations,
                                      std::vector<double> &gpuMs,
                                      std::vector<double> &hostMs) {
  std::vector<void *> events;
  rt::Status error;
  for (int i = 0; i <= iterations && error.isOk(); ++i) {
    auto event = runtime.createEvent();
    if (event.isOk())
      events.push_back(*event);
    else
      error = event.status();
  }
  if (error.isOk())
    error = runtime.recordEvent(events[0], stream);
  std::vector<double> enqueueMs;
  for (int i = 0; i < iterations && error.isOk(); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    error = context->enqueue(stream);
    auto t1 = std::chrono::steady_clock::now();
    enqueueMs.push_back(
        std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (error.isOk())
      error = runtime.recordEvent(events[i + 1], stream);
  }
  if (error.isOk())
    error = runtime.synchronize(stream);
  for (int i = 0; i < iterations && error.isOk(); ++i) {
    auto ms = runtime.elapsedMs(events[i], events[i + 1]);
    if (!ms.isOk()) {
      error = ms.status();
      break;
    }
    gpuMs.push_back(*ms);
    hostMs.push_back(enqueueMs[i]);
  }
  for (void *event : events)
    (void)runtime.destroyEvent(event);
  return error;
}

namespace {
struct Collector : rt::Profiler {
  std::vector<PlanRunner::StepProfile> &steps;
  explicit Collector(std::vector<PlanRunner::StepProfile> &steps)
      : steps(steps) {}
  void reportStepTime(int step, const std::string &name, float ms) override {
    if (static_cast<size_t>(step) >= steps.size())
      steps.resize(step + 1);
    steps[step].name = name;
    steps[step].ms.push_back(ms);
  }
};
} // namespace

rt::Status PlanRunner::profile(int runs, std::vector<StepProfile> &steps) {
  // On the heap: the context holds the pointer until it is reset below.
  auto collector = std::make_unique<Collector>(steps);
  context->setProfiler(collector.get());
  rt::Status error;
  for (int i = 0; i < runs && error.isOk(); ++i)
    error = context->enqueue(stream);
  context->setProfiler(nullptr);
  return error;
}

} // namespace kiln::tooling
