//===- PlanExecutor.h - run a plan on host tensors --------------*- C++ -*-===//
//
// Runs a plan bundle through the runtime with inputs and outputs in host
// memory, for kiln-run and kiln-conformance: one engine, one execution
// context, device buffers for every I/O tensor, a stream, and GPU timing.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNNER_PLANEXECUTOR_H
#define KILN_RUNNER_PLANEXECUTOR_H

#include "kiln/Reference/HostTensor.h"
#include "kiln/runtime/Runtime.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::kiln {

class PlanExecutor {
public:
  /// Loads `plan` (the bytes of a .kplan) on `runtime`'s device. Returns an
  /// empty string or what went wrong.
  static std::string create(::kiln::rt::Runtime &runtime,
                            const std::string &plan,
                            std::unique_ptr<PlanExecutor> &out);
  ~PlanExecutor();

  /// I/O tensors (name, kind, shape), inputs first.
  const std::vector<HostTensor> &inputs() const { return inputSpecs; }
  const std::vector<HostTensor> &outputs() const { return outputSpecs; }
  const ::kiln::rt::Engine &engine() const { return *engine_; }

  /// Copies `inputs` (in inputs() order, checked against it) to the device,
  /// runs the plan and copies the outputs back. Empty string or the error.
  std::string run(const std::vector<HostTensor> &inputs,
                  std::vector<HostTensor> &outputs);

  /// Runs the plan `warmup` + `iterations` times on the inputs already on the
  /// device (after run()); per iteration, the GPU time between two events
  /// around enqueue() and the host time of enqueue() + synchronize, in ms.
  std::string time(int warmup, int iterations, std::vector<double> &gpuMs,
                   std::vector<double> &hostMs);

  /// The GPU time of each step over `runs` profiled runs (see
  /// rt::Profiler), on the inputs already on the device.
  struct StepProfile {
    std::string name;
    std::vector<double> ms; // one per run
  };
  std::string profile(int runs, std::vector<StepProfile> &steps);

private:
  PlanExecutor(::kiln::rt::Runtime &runtime) : runtime(runtime) {}
  ::kiln::rt::Runtime &runtime;
  std::unique_ptr<::kiln::rt::Engine> engine_;
  std::unique_ptr<::kiln::rt::ExecutionContext> context;
  std::vector<HostTensor> inputSpecs, outputSpecs;
  std::vector<uint64_t> buffers; // one per tensor, plan order
  void *stream = nullptr;
};

/// The element kind of a plan data type.
ElementKind elementKindOf(::kiln::rt::DataType type);

/// "median 0.123 ms, min ..., p99 ..." helpers: the q-quantile of `v`.
double quantile(std::vector<double> v, double q);

} // namespace mlir::kiln

#endif // KILN_RUNNER_PLANEXECUTOR_H
