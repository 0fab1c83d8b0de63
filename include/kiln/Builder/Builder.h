//===- Builder.h - compiling a network definition to a plan -----*- C++ -*-===//
//
// TensorRT's IBuilder and IBuilderConfig: a Builder compiles a
// NetworkDefinition (NetworkDefinition.h) to the bytes of a plan with the
// compiler library kiln-compile uses (kiln/Compiler/Compiler.h), under the
// settings of a BuilderConfig:
//
//   kiln::rt::StderrLogger logger(kiln::rt::Logger::Severity::Warning);
//   kiln::NetworkDefinition network(logger);
//   ... add layers, markOutput ...
//   kiln::Builder builder(logger);
//   kiln::BuilderConfig config;
//   config.fp16 = true;
//   auto plan = builder.buildSerializedPlan(network, config);
//   if (!plan) ... plan.status().message() ...
//   // plan->data(), plan->size(): a .kplan for kiln::rt::Runtime
//
//===----------------------------------------------------------------------===//

#ifndef KILN_BUILDER_BUILDER_H
#define KILN_BUILDER_BUILDER_H

#include "kiln/Builder/NetworkDefinition.h"
#include "kiln/runtime/Status.h"
#include "kiln/tooling/HostTensor.h"

#include <string>
#include <vector>

namespace kiln {

struct BuilderConfig {
  /// The largest batch the plan serves. Shapes are static in kiln: the
  /// network's inputs carry their batch, so this is checked against them
  /// (each input's first dimension must be at most this).
  int64_t maxBatchSize = 1 << 20;
  /// The memory budget: no tensor and no plan (weights and arena) may take
  /// more (kiln-compile --max-memory).
  uint64_t maxWorkspaceBytes = uint64_t(16) << 30;
  /// Precision: fp32 unless one of these; layers that need it stay f32
  /// (kiln-compile --fp16 / --bf16).
  bool fp16 = false, bf16 = false;
  /// INT8 is not supported yet: building with it set is an error saying so.
  bool int8 = false;
  /// GPU architectures, compute capability times ten (default sm_90).
  std::vector<unsigned> archs = {90};
  /// 0 to 3, as kiln-compile --opt-level.
  int optLevel = 3;
  /// Time cuBLASLt's algorithms on this machine's GPU and record the
  /// fastest (kiln-compile --tune; needs a GPU).
  bool tune = false;
};

class Builder {
public:
  /// Messages go to `logger`, which must outlive the builder.
  explicit Builder(rt::Logger &logger) : logger(logger) {}

  /// The bytes of a plan for `network`, or InvalidArgument with the reason
  /// (the network's own errors, no outputs, an unsupported setting) or
  /// Internal (a compiler failure, with its diagnostics). The reasons are
  /// also logged.
  rt::StatusOr<std::string>
  buildSerializedPlan(const NetworkDefinition &network,
                      const BuilderConfig &config);

  /// Runs `network` on kiln's CPU reference executor (the graph phase, then
  /// the reference pipeline, JIT-compiled): `inputs` in the order of the
  /// network's inputs (checked), `outputs` in the order of markOutput. The
  /// reference path of kiln-run --backend=reference.
  rt::Status runReference(const NetworkDefinition &network,
                          const std::vector<tooling::HostTensor> &inputs,
                          std::vector<tooling::HostTensor> &outputs);

private:
  rt::Logger &logger;
};

} // namespace kiln

#endif // KILN_BUILDER_BUILDER_H
