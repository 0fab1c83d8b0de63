//===- Compiler.h - import, compile to a phase, emit ------------*- C++ -*-===//
//
// The one compiler library every front end uses (the tools today; the
// network API and the Python package next), in the manner of mlir-tensorrt's
// CompilerClient: a Compiler owns an MLIRContext with every kiln dialect and
// pass registered, imports a model from a path or bytes, runs the named
// pipelines up to a phase, and gives IR, PTX or plan bytes. Errors are
// diagnostics on its context: install a handler to print them.
//
//   Compiler compiler(options);
//   auto module = compiler.importFile("model.onnx");
//   auto plan = compiler.compileToPlan(**module);   // bytes of a .kplan
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILER_H
#define KILN_COMPILER_COMPILER_H

#include "kiln/Compiler/CompilerOptions.h"
#include "kiln/Import/CaffeImporter.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Reference/ReferenceExecutor.h"
#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Tactics.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
class TimingScope;
} // namespace mlir

namespace mlir::kiln {

class Compiler {
public:
  explicit Compiler(CompilerOptions options = {});
  ~Compiler();

  MLIRContext &getContext() { return *context; }
  CompilerOptions &options() { return options_; }
  const CompilerOptions &options() const { return options_; }

  /// Imports the model at `path`: ONNX (binary or text), a Caffe network
  /// (a `.prototxt`, with options().caffeModel's weights) or, for a `.mlir`
  /// file, kiln IR. The result is at Phase::Import. `details` receives the
  /// importer's findings (unsupported nodes with import.collectUnsupported,
  /// inputs needed as constants).
  FailureOr<OwningOpRef<ModuleOp>>
  importFile(StringRef path, OnnxImportResult *details = nullptr);
  /// Imports an ONNX model from `bytes`; `name` names it in messages.
  FailureOr<OwningOpRef<ModuleOp>>
  importBuffer(StringRef bytes, StringRef name,
               OnnxImportResult *details = nullptr);

  /// Runs the pipelines of the phases after `from` up to and including
  /// `to` on `module`. The graph phase runs only at optLevel >= 1 (with
  /// channels-last layouts at 3), the groups phase at optLevel >= 2.
  LogicalResult compile(ModuleOp module, Phase from, Phase to);

  /// The PTX of `module`'s kernels for `arch` (after Phase::Target, with
  /// PTX kept for that arch: target.cubin off, or the newest target).
  FailureOr<std::string> getPtx(ModuleOp module, unsigned arch);
  /// The plan of `module` (after Phase::Target).
  FailureOr<::kiln::rt::PlanContents> translateToPlan(ModuleOp module);
  /// The bytes of a .kplan for `module`, compiled from phase `from` on;
  /// with options().tune, its cuBLASLt algorithms measured on this
  /// machine's GPU and recorded (tacticChoices() tells what was chosen).
  FailureOr<std::string> compileToPlan(ModuleOp module,
                                       Phase from = Phase::Import);
  /// What the last compileToPlan with options().tune chose, step by step.
  const std::vector<::kiln::rt::TacticChoice> &tacticChoices() const {
    return tacticChoices_;
  }

  /// Lowers `module` for the CPU reference (kiln-reference-pipeline, after
  /// the graph phase when `from` is Import): the IR the executor JITs.
  LogicalResult lowerForReference(ModuleOp module, Phase from = Phase::Import);

  /// The CPU reference executor for `module` (consumed), compiled from
  /// phase `from` (Import or Graph) on.
  FailureOr<std::unique_ptr<ReferenceExecutor>>
  compileReference(OwningOpRef<ModuleOp> module, Phase from = Phase::Import);

  /// Times every pass that compile and lowerForReference run under `scope`
  /// (kiln-compile --mlir-timing); nullptr stops timing. `scope` must
  /// outlive the calls.
  void setTimingScope(TimingScope *scope) { timing = scope; }

private:
  /// The reference pipeline's options from the compiler's.
  ReferenceOptions referenceOptions() const;

  /// A pass manager on the context, timed under `timing` when it is set.
  std::unique_ptr<PassManager> makePassManager();
  /// Imports the Caffe network of the prototxt `path`.
  FailureOr<OwningOpRef<ModuleOp>> importCaffe(StringRef path);
  /// Records the measured algorithms in `plan` (options().tune).
  LogicalResult tune(ModuleOp module, ::kiln::rt::PlanContents &plan);

  CompilerOptions options_;
  std::unique_ptr<MLIRContext> context;
  std::vector<::kiln::rt::TacticChoice> tacticChoices_;
  TimingScope *timing = nullptr;
};

/// Prints every diagnostic of `context` to stderr while it lives, as
/// "<tool>: error: <file>:<line>:<col>: <message>" (notes and warnings too).
class DiagnosticPrinter {
public:
  DiagnosticPrinter(MLIRContext &context, std::string tool);
  ~DiagnosticPrinter();

private:
  MLIRContext &context;
  uint64_t id;
};

/// Keeps the errors and warnings of `context` while it lives, each as
/// "<file>:<line>:<col>: <message>" (the location when it has one), for
/// front ends that report them instead of printing them (the network API,
/// the Python package).
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context);
  ~DiagnosticCollector();
  /// The errors so far, joined with "; " ("" when none).
  std::string errors() const;
  const std::vector<std::string> &warnings() const { return warnings_; }

private:
  MLIRContext &context;
  uint64_t id;
  std::vector<std::string> errors_, warnings_;
};

} // namespace mlir::kiln

#endif // KILN_COMPILER_COMPILER_H
