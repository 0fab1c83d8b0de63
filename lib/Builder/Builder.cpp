//===- Builder.cpp - compiling a network definition to a plan ---*- C++ -*-===//
//
// The network is built again as kiln IR in the compiler's context (its own
// module lives in another) and compiled from the import phase on, as
// kiln-compile compiles an ONNX model: the config becomes kiln-compile's
// settings (CompileSettings.h), checked and applied by applyCompileSettings.
//
//===----------------------------------------------------------------------===//

#include "kiln/Builder/Builder.h"

#include "NetworkState.h"
#include "kiln/Compiler/Compiler.h"
#include "kiln/Compiler/CompilerOptions.h"
#include "kiln/Target/CUDA/CudaTarget.h"

namespace kiln {

rt::StatusOr<std::string>
Builder::buildSerializedPlan(const NetworkDefinition &network,
                             const BuilderConfig &config) {
  auto refuse = [&](rt::StatusCode code, const std::string &why) {
    logger.log(rt::Logger::Severity::Error, "buildSerializedPlan: " + why);
    return rt::Status(code, why);
  };
  detail::NetworkState &state = *network.state();
  std::vector<std::string> errors = network.getErrors();
  if (!errors.empty())
    return refuse(rt::StatusCode::InvalidArgument,
                  "the network has " + std::to_string(errors.size()) +
                      " error(s), the first: " + errors.front());
  if (config.int8)
    return refuse(rt::StatusCode::InvalidArgument,
                  "INT8 is not supported yet (fp32, fp16 and bf16 are)");
  for (int64_t id : state.inputs) {
    const detail::TensorDesc &t = state.tensors[id];
    if (!t.dims.empty() && t.dims.front() > config.maxBatchSize)
      return refuse(rt::StatusCode::InvalidArgument,
                    "input '" + t.name + "' has a batch of " +
                        std::to_string(t.dims.front()) +
                        ", more than maxBatchSize " +
                        std::to_string(config.maxBatchSize));
  }

  // The config as kiln-compile's settings, checked as kiln-compile checks
  // them.
  CompileSettings settings;
  settings.fp16 = config.fp16;
  settings.bf16 = config.bf16;
  settings.targets = mlir::kiln::formatTargets(config.archs);
  settings.optLevel = config.optLevel;
  settings.maxMemory = std::to_string(config.maxWorkspaceBytes);
  settings.tune = config.tune;
  mlir::kiln::CompilerOptions options;
  if (std::string error;
      mlir::failed(mlir::kiln::applyCompileSettings(settings, options, error)))
    return refuse(rt::StatusCode::InvalidArgument, error);
  mlir::kiln::Compiler compiler(options);
  mlir::kiln::DiagnosticCollector diagnostics(compiler.getContext());
  std::string error;
  auto module = state.buildModule(compiler.getContext(), error);
  if (mlir::failed(module))
    return refuse(rt::StatusCode::InvalidArgument, error);
  mlir::FailureOr<std::string> plan =
      compiler.compileToPlan(**module, mlir::kiln::Phase::Import);
  if (mlir::failed(plan))
    return refuse(rt::StatusCode::Internal,
                  "compiling the network failed: " + diagnostics.errors());
  return std::move(*plan);
}

rt::Status Builder::runReference(const NetworkDefinition &network,
                                 const std::vector<tooling::HostTensor> &inputs,
                                 std::vector<tooling::HostTensor> &outputs) {
  detail::NetworkState &state = *network.state();
  std::vector<std::string> errors = network.getErrors();
  if (!errors.empty())
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "the network has errors, the first: " + errors.front());
  mlir::kiln::Compiler compiler;
  mlir::kiln::DiagnosticCollector diagnostics(compiler.getContext());
  std::string error;
  auto module = state.buildModule(compiler.getContext(), error);
  if (mlir::failed(module))
    return rt::Status(rt::StatusCode::InvalidArgument, error);
  auto executor =
      compiler.compileReference(std::move(*module), mlir::kiln::Phase::Import);
  if (mlir::failed(executor))
    return rt::Status(rt::StatusCode::Internal,
                      "compiling the reference failed: " +
                          diagnostics.errors());
  return (*executor)->run(inputs, outputs);
}

} // namespace kiln
