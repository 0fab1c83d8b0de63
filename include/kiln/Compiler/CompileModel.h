//===- CompileModel.h - model to plan, without MLIR in sight ----*- C++ -*-===//
//
// The compiler library's entry point for front ends built without MLIR's
// headers (and without its build flags: the Python package is built with
// RTTI and exceptions, LLVM without): a model file or ONNX bytes in, the
// bytes of a plan out, under kiln-compile's options (CompileSettings.h).
// What kiln-compile -o model.kplan does, with the errors returned instead of
// printed:
//
//   kiln::CompileSettings settings;
//   settings.fp16 = true;
//   auto plan = kiln::compileModel({"model.onnx"}, settings, logger);
//   if (!plan) ... plan.status().message() ...
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILEMODEL_H
#define KILN_COMPILER_COMPILEMODEL_H

#include "kiln/Compiler/CompileSettings.h"
#include "kiln/runtime/Logger.h"
#include "kiln/runtime/Status.h"
#include "kiln/tooling/HostTensor.h"

#include <string>
#include <vector>

namespace kiln {

/// A model: the file at `path` (ONNX, binary or text; kiln IR in a .mlir
/// file) or, when `path` is empty, ONNX `bytes`, called `name` in messages.
struct ModelSource {
  std::string path;
  std::string bytes;
  std::string name = "<bytes>";
};

/// The bytes of a plan for `model`. Errors: InvalidArgument for a setting
/// (named as its flag: "--target: ...") or a model the importer refuses
/// (its diagnostics, with the node), Internal for a compilation that fails
/// (its diagnostics). Error diagnostics are logged as errors, warnings as
/// warnings, and with settings.tune each recorded choice as Info.
rt::StatusOr<std::string> compileModel(const ModelSource &model,
                                       const CompileSettings &settings,
                                       rt::Logger &logger);

/// Runs `model` on kiln's CPU reference executor (the graph phase, then the
/// reference pipeline, JIT-compiled; kiln-run --backend=reference):
/// `inputs` in the order of the model's inputs (checked), `outputs` in the
/// order of its outputs. Errors as compileModel's, and the executor's.
rt::Status runModelReference(const ModelSource &model,
                             const CompileSettings &settings,
                             const std::vector<tooling::HostTensor> &inputs,
                             std::vector<tooling::HostTensor> &outputs,
                             rt::Logger &logger);

} // namespace kiln

#endif // KILN_COMPILER_COMPILEMODEL_H
