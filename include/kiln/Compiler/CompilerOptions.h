//===- CompilerOptions.h - what a compilation is told -----------*- C++ -*-===//
//
// One struct holds every option of a compilation, from import to plan, and
// one function binds it to the command line, so that kiln-compile, kiln-run
// and kiln-conformance (and later the network API and the Python package)
// build plans under the same settings. Precision, the tuning cache and
// plugins will join it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILEROPTIONS_H
#define KILN_COMPILER_COMPILEROPTIONS_H

#include "kiln/Import/OnnxImporter.h"
#include "kiln/Pipelines/Options.h"

#include <string>

namespace mlir::kiln {

struct CompilerOptions {
  /// How ONNX models are imported (static shapes, constant inputs, limits).
  OnnxImportOptions import;
  /// 0: no graph optimization (the IR as imported); 1: kiln-optimize.
  int optLevel = 1;
  /// How kernels are formed (kiln-kernels-pipeline).
  KernelOptions kernels;
  /// What they are compiled for (kiln-target-pipeline).
  TargetOptions target;
  /// Recorded in the plan's compatibility record, for people.
  std::string buildOptions;
};

/// Registers the command-line options every tool that compiles takes:
/// --target, --cuda-path, --ptxas, --cubin/--no-cubin, --kernel-threads,
/// --items-per-thread, --opt-level/--no-optimize. Call before
/// llvm::cl::ParseCommandLineOptions.
void registerCodegenCLOptions();
/// Registers the import options: --input-shape, --batch, --constant-input,
/// --max-model-bytes.
void registerImportCLOptions();

/// `defaults` with what the command line gave (registered options that were
/// not given keep the default). Fails with a message in `error` for a
/// malformed value (a bad --target, --input-shape or --constant-input).
FailureOr<CompilerOptions> getCompilerOptionsFromCL(CompilerOptions defaults,
                                                    std::string &error);

/// True when --target was given on the command line.
bool targetsGivenOnCL();

} // namespace mlir::kiln

#endif // KILN_COMPILER_COMPILEROPTIONS_H
