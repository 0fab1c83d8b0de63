//===- CompileModel.cpp - model to plan, without MLIR in sight ------------===//

#include "kiln/Compiler/CompileModel.h"

#include "kiln/Compiler/Compiler.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using mlir::failed;
using mlir::FailureOr;
using mlir::ModuleOp;
using mlir::OwningOpRef;
using mlir::kiln::applyCompileSettings;
using mlir::kiln::Compiler;
using mlir::kiln::CompilerOptions;
using mlir::kiln::DiagnosticCollector;

namespace kiln {

rt::StatusOr<std::string> compileModel(const ModelSource &model,
                                       const CompileSettings &settings,
                                       rt::Logger &logger) {
  auto refuse = [&](rt::StatusCode code, const std::string &why) {
    logger.log(rt::Logger::Severity::Error, why);
    return rt::Status(code, why);
  };
  std::string error;
  CompilerOptions options;
  if (failed(applyCompileSettings(settings, options, error)))
    return refuse(rt::StatusCode::InvalidArgument, error);
  if (model.path.empty() && model.bytes.empty())
    return refuse(rt::StatusCode::InvalidArgument,
                  "no model: give a file or the bytes of an ONNX model");

  Compiler compiler(options);
  DiagnosticCollector diagnostics(compiler.getContext());
  auto logWarnings = [&] {
    for (const std::string &warning : diagnostics.warnings())
      logger.log(rt::Logger::Severity::Warning, warning);
  };
  FailureOr<OwningOpRef<ModuleOp>> module =
      model.path.empty() ? compiler.importBuffer(model.bytes, model.name)
                         : compiler.importFile(model.path);
  if (failed(module)) {
    logWarnings();
    std::string source = model.path.empty() ? model.name : model.path;
    return refuse(rt::StatusCode::InvalidArgument,
                  "importing " + source + " failed: " + diagnostics.errors());
  }
  FailureOr<std::string> plan = compiler.compileToPlan(**module);
  logWarnings();
  if (failed(plan))
    return refuse(rt::StatusCode::Internal,
                  "compiling failed: " + diagnostics.errors());
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

} // namespace kiln
