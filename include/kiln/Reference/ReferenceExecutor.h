//===- ReferenceExecutor.h - run kiln IR on the CPU -------------*- C++ -*-===//
//
// The CPU reference executor: lowers a kiln network function through linalg
// and LLVM for the host, compiles it with MLIR's ExecutionEngine and runs it
// on host tensors. Weights stored as resource blobs are passed to the
// compiled code by pointer, not compiled into it. CI (no GPU) checks the
// importers and graph passes with it; accuracy tools compare GPU layers
// against it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_REFERENCE_REFERENCEEXECUTOR_H
#define KILN_REFERENCE_REFERENCEEXECUTOR_H

#include "kiln/Reference/HostTensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
namespace kiln {

/// Name, element kind and shape of one input or output.
struct TensorSpec {
  std::string name;
  ElementKind kind;
  std::vector<int64_t> shape;
};

class ReferenceExecutor {
public:
  /// Compiles the single function of `module` (kiln IR, consumed). Errors go
  /// to the context's diagnostic handler.
  static FailureOr<std::unique_ptr<ReferenceExecutor>>
  compile(OwningOpRef<ModuleOp> module);
  ~ReferenceExecutor();

  const std::vector<TensorSpec> &inputs() const { return inputSpecs; }
  const std::vector<TensorSpec> &outputs() const { return outputSpecs; }

  /// Runs on `inputs` (in inputs() order, checked against the specs) and
  /// fills `outputs`. Returns an empty string or what went wrong.
  std::string run(const std::vector<HostTensor> &inputs,
                  std::vector<HostTensor> &outputs);

private:
  ReferenceExecutor() = default;
  std::unique_ptr<ExecutionEngine> engine;
  OwningOpRef<ModuleOp> module;
  std::vector<TensorSpec> inputSpecs, outputSpecs;
  /// Weight blobs passed after the inputs.
  std::vector<const void *> weights;
};

/// Registers the dialects and translations compile() needs.
void registerReferenceExecutorDialects(DialectRegistry &registry);

} // namespace kiln
} // namespace mlir

#endif // KILN_REFERENCE_REFERENCEEXECUTOR_H
