//===- CompileModel.cpp - model to plan, without MLIR in sight ------------===//

#include "kiln/Compiler/CompileModel.h"

#include "kiln/Compiler/Compiler.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using mlir::failed;
using mlir::FailureOr;
using mlir::ModuleOp;
using mlir::OwningOpRef;
using mlir::kiln::applyCompileSettings;
using mlir::kiln::Compiler;
using mlir::kiln::CompilerOptions;
using mlir::kiln::DiagnosticCollector;

namespace kiln {

namespace {
/// A compiler for `settings` that reports to `logger`, and `model` imported
/// into it.
struct Session {
  Session(const ModelSource &model, const CompileSettings &settings,
          rt::Logger &logger)
      : logger(logger) {
    std::string error;
    CompilerOptions options;
    if (failed(applyCompileSettings(settings, options, error))) {
      status = refuse(rt::StatusCode::InvalidArgument, error);
      return;
    }
    if (model.path.empty() && model.bytes.empty()) {
      status = refuse(rt::StatusCode::InvalidArgument,
                      "no model: give a file or the bytes of an ONNX model");
      return;
    }
    compiler = std::make_unique<Compiler>(options);
    diagnostics = std::make_unique<DiagnosticCollector>(compiler->getContext());
    FailureOr<OwningOpRef<ModuleOp>> imported =
        model.path.empty() ? compiler->importBuffer(model.bytes, model.name)
                           : compiler->importFile(model.path);
    if (failed(imported)) {
      std::string source = model.path.empty() ? model.name : model.path;
      status = diagnosed("importing " + source + " failed",
                         rt::StatusCode::InvalidArgument);
      return;
    }
    module = std::move(*imported);
  }

  rt::Status refuse(rt::StatusCode code, const std::string &why) {
    logger.log(rt::Logger::Severity::Error, why);
    return rt::Status(code, why);
  }
  /// `what` failed: the warnings logged, the errors returned.
  rt::Status diagnosed(const std::string &what,
                       rt::StatusCode code = rt::StatusCode::Internal) {
    logWarnings();
    return refuse(code, what + ": " + diagnostics->errors());
  }
  void logWarnings() {
    for (const std::string &warning : diagnostics->warnings())
      logger.log(rt::Logger::Severity::Warning, warning);
  }

  rt::Logger &logger;
  rt::Status status;
  std::unique_ptr<Compiler> compiler;
  std::unique_ptr<DiagnosticCollector> diagnostics;
  OwningOpRef<ModuleOp> module;
};
} // namespace

rt::StatusOr<std::string> compileModel(const ModelSource &model,
                                       const CompileSettings &settings,
                                       rt::Logger &logger) {
  Session session(model, settings, logger);
  if (!session.status)
    return session.status;
  Compiler &compiler = *session.compiler;
  FailureOr<std::string> plan = compiler.compileToPlan(*session.module);
  if (failed(plan))
    return session.diagnosed("compiling failed");
  session.logWarnings();
  for (const rt::TacticChoice &c : compiler.tacticChoices()) {
    if (c.reused)
      continue;
    std::string line;
    llvm::raw_string_ostream(line)
        << llvm::format("step %zu: %s: %s, %.1f us (the heuristic's first, "
                        "%s: %.1f us; %d timed)",
                        c.step, c.problem.c_str(), c.chosen.c_str(), c.chosenUs,
                        c.heuristic.c_str(), c.heuristicUs, c.timed);
    logger.log(rt::Logger::Severity::Info, line);
  }
  return std::move(*plan);
}

rt::Status runModelReference(const ModelSource &model,
                             const CompileSettings &settings,
                             const std::vector<tooling::HostTensor> &inputs,
                             std::vector<tooling::HostTensor> &outputs,
                             rt::Logger &logger) {
  Session session(model, settings, logger);
  if (!session.status)
    return session.status;
  auto executor = session.compiler->compileReference(std::move(session.module));
  if (failed(executor))
    return session.diagnosed("compiling for the reference executor failed");
  session.logWarnings();
  return (*executor)->run(inputs, outputs);
}

} // namespace kiln
