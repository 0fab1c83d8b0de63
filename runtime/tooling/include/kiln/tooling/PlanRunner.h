//===- PlanRunner.h - run a plan on host tensors ----------------*- C++ -*-===//
//
// Runs a plan bundle through the runtime with inputs and outputs in host
// memory, for the tools: one engine, one execution context, a device buffer
// for every I/O tensor, a stream, and GPU timing and per-step profiles.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_PLANRUNNER_H
#define KILN_TOOLING_PLANRUNNER_H

#include "kiln/runtime/Runtime.h"
#include "kiln/tooling/HostTensor.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::tooling {

class PlanRunner {
public:
  /// Loads `plan` (the bytes of a .kplan) on `runtime`'s device, which must
  /// outlive the runner.
  static rt::StatusOr<std::unique_ptr<PlanRunner>>
  create(rt::Runtime &runtime, const std::string &plan);
  ~PlanRunner();

  /// The I/O tensors in plan order, split into inputs and outputs.
  const std::vector<rt::TensorDesc> &inputs() const { return inputSpecs; }
  const std::vector<rt::TensorDesc> &outputs() const { return outputSpecs; }
  const rt::Engine &engine() const { return *engine_; }
  /// The context that runs the plan (to set its options).
  rt::ExecutionContext &executionContext() { return *context; }

  /// Copies `inputs` (in inputs() order, checked against it) to the device,
  /// runs the plan and copies the outputs back.
  rt::Status run(const std::vector<HostTensor> &inputs,
                 std::vector<HostTensor> &outputs);

  /// Runs the plan `warmup` + `iterations` times on the inputs already on
  /// the device (after run()); per iteration, the GPU time between two
  /// events around enqueue() and the host time of enqueue() + synchronize,
  /// in ms.
  rt::Status time(int warmup, int iterations, std::vector<double> &gpuMs,
                  std::vector<double> &hostMs);

  /// Runs the plan `iterations` times back to back on the inputs already on
  /// the device, with one synchronize at the end (as a serving loop that
  /// keeps the stream full, so the GPU never waits for the host's launch):
  /// per run, the GPU time between the events recorded before and after it,
  /// and the host time of its enqueue() alone, in ms.
  rt::Status timeBackToBack(int iterations, std::vector<double> &gpuMs,
                            std::vector<double> &hostMs);

  /// The GPU time of each step over `runs` profiled runs (rt::Profiler), on
  /// the inputs already on the device.
  struct StepProfile {
    std::string name;
    std::vector<double> ms; // one per run
  };
  rt::Status profile(int runs, std::vector<StepProfile> &steps);

private:
  explicit PlanRunner(rt::Runtime &runtime) : runtime(runtime) {}
  rt::Runtime &runtime;
  std::unique_ptr<rt::Engine> engine_;
  std::unique_ptr<rt::ExecutionContext> context;
  std::vector<rt::TensorDesc> inputSpecs, outputSpecs;
  std::vector<uint64_t> buffers; // one per tensor, plan order
  void *stream = nullptr;
};

/// The q-quantile of `v` (0: min, 0.5: median, 1: max); 0 when empty.
double quantile(std::vector<double> v, double q);

} // namespace kiln::tooling

#endif // KILN_TOOLING_PLANRUNNER_H
