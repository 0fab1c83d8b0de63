//===- ReferenceExecutor.h - run kiln IR on the CPU -------------*- C++ -*-===//
//
// The CPU reference executor: lowers a kiln network function to the LLVM
// dialect with kiln-reference-pipeline, compiles it with MLIR's
// ExecutionEngine and runs it on host tensors. Weights stored as resource
// blobs are passed to the compiled code by pointer, not compiled into it.
// CI (no GPU) checks the importers and graph passes with it; accuracy tools
// compare GPU layers against it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_REFERENCE_REFERENCEEXECUTOR_H
#define KILN_REFERENCE_REFERENCEEXECUTOR_H

#include "kiln/Pipelines/Options.h"
#include "kiln/tooling/HostTensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class ExecutionEngine;
namespace kiln {
namespace rt = ::kiln::rt;
namespace tooling = ::kiln::tooling;

class ReferenceExecutor {
public:
  /// Compiles the single function of `module` (kiln IR, consumed). Errors go
  /// to the context's diagnostic handler. With `options.fusionGroups` the
  /// fusion groups of the GPU path are formed and run as loops on the host.
  /// A layer of more than `options.maxWork` iterations is refused, and so is
  /// a network whose inputs, weights, outputs and live buffers would take
  /// more than `options.maxMemory` bytes at once (naming the largest).
  static FailureOr<std::unique_ptr<ReferenceExecutor>>
  compile(OwningOpRef<ModuleOp> module, const ReferenceOptions &options = {});
  ~ReferenceExecutor();

  /// Name, element type and shape of every input and output. A network
  /// with dynamic dimensions (run-time shapes) has -1 there, and its inputs
  /// carry their profiles (min, opt and max shapes).
  const std::vector<rt::TensorDesc> &inputs() const { return inputSpecs; }
  const std::vector<rt::TensorDesc> &outputs() const { return outputSpecs; }

  /// Runs on `inputs` (in inputs() order, checked against the specs) and
  /// fills `outputs`. Every buffer the compiled code allocates is counted
  /// against the memory budget with the inputs, weights and outputs; an
  /// allocation over it, or one the system refuses, ends the run with an
  /// error naming its size (the code returns at once; what it allocated is
  /// freed).
  ///
  /// A network with dynamic dimensions is compiled at the inputs' shapes
  /// (each checked against its profile first: rank, static dimensions,
  /// range) and kept for the next runs at those shapes, up to
  /// kMaxSpecializedShapes shapes.
  rt::Status run(const std::vector<tooling::HostTensor> &inputs,
                 std::vector<tooling::HostTensor> &outputs);

  static constexpr size_t kMaxSpecializedShapes = 8;

private:
  ReferenceExecutor() = default;
  /// The network compiled at the shapes of `inputs`, from the cache or
  /// now; errors are collected in `error`.
  FailureOr<ReferenceExecutor *>
  specialize(const std::vector<tooling::HostTensor> &inputs,
             std::string &error);
  std::unique_ptr<ExecutionEngine> engine;
  OwningOpRef<ModuleOp> module;
  std::vector<rt::TensorDesc> inputSpecs, outputSpecs;
  /// Where the code writes outputs that are parts of one tensor
  /// (kiln-join-output-parts): the results it returns, and for each output
  /// its result and element offset there (-1: the result is the output).
  /// Empty when every output is a result.
  std::vector<rt::TensorDesc> resultSpecs;
  std::vector<int64_t> outputParts;
  /// Weight blobs passed after the inputs, and their bytes.
  std::vector<const void *> weights;
  uint64_t weightBytes = 0;
  /// The memory budget of a run.
  uint64_t maxMemory = 0;
  /// A network with dynamic dimensions: `module` is its kiln IR, compiled
  /// with `options` at each shape it runs at (key: each input's rank, then
  /// its dimensions), oldest first.
  ReferenceOptions options;
  std::vector<
      std::pair<std::vector<int64_t>, std::unique_ptr<ReferenceExecutor>>>
      specialized;
};

} // namespace kiln
} // namespace mlir

#endif // KILN_REFERENCE_REFERENCEEXECUTOR_H
