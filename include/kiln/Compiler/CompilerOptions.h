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

#include "kiln/Compiler/CompileSettings.h"
#include "kiln/Import/OnnxImporter.h"
#include "kiln/Pipelines/Options.h"
#include "kiln/Support/Sizes.h"

#include <string>

namespace llvm::cl {
class OptionCategory;
} // namespace llvm::cl

namespace mlir::kiln {

struct CompilerOptions {
  /// How ONNX models are imported (static shapes, constant inputs, limits).
  OnnxImportOptions import;
  /// The weights of a Caffe network (a .prototxt model; --caffemodel), and
  /// the blobs that become its outputs (--output; by default those no layer
  /// consumes). Its shapes, batch and limits are those of `import`.
  std::string caffeModel;
  std::vector<std::string> outputs;
  /// 0: no optimization (the IR as imported, one kernel per linalg op);
  /// 1: the graph passes (kiln-optimize); 2: and fusion groups (the groups
  /// phase), one kernel each; 3: and convolutions and pools channels last.
  int optLevel = 3;
  /// The CPU reference forms the GPU path's fusion groups too and runs them
  /// as loops (to check fusion without a GPU).
  bool referenceFusionGroups = false;
  /// How kernels are formed (kiln-kernels-pipeline).
  KernelOptions kernels;
  /// What they are compiled for (kiln-target-pipeline).
  TargetOptions target;
  /// The memory budget of a compilation, in bytes: no tensor of the model
  /// (an input, a weight, a node's result), no plan (weights and arena) and
  /// nothing the CPU reference holds at once (inputs, weights, outputs and
  /// live buffers) may take more. A small model whose shapes ask for more is
  /// refused with an error naming the node or the largest tensors
  /// (--max-memory; the default is 16 GiB).
  uint64_t maxMemoryBytes = kDefaultMemoryBudget;
  /// The work budget of the CPU reference: no layer (linalg op) may have
  /// more iterations (kiln-check-work, --max-work; kDefaultMaxWork).
  uint64_t maxWork = kDefaultMaxWork;
  /// Measure the candidate cuBLASLt algorithms of every matrix product on
  /// this machine's GPU (device 0) and record the fastest in the plan
  /// (kiln/runtime/Tactics.h): tactic selection, as TensorRT's builder does.
  bool tune = false;
  /// How many of cuBLASLt's heuristic's candidates to time per product.
  int tuneCandidates = 8;
  /// Recorded in the plan's compatibility record, for people; when empty,
  /// describeBuildOptions() of these options is recorded.
  std::string buildOptions;
};

/// The options that decide what a plan holds, as one line for its
/// compatibility record: targets, cubins, kernel defaults, optimization
/// level, input shapes, batch and constant inputs (by name), the memory
/// budget. No path and nothing of the command line appear, so the same model
/// and options give byte-identical plans from any folder to any output file.
std::string describeBuildOptions(const CompilerOptions &options);

/// The --help categories of kiln's tools: the options of CompileOptions.def
/// (Model and Shapes hold the import options) and the tools' own (Run: how
/// kiln-run and kiln-conformance run and check a model).
enum class CLCategory {
  Model,
  Shapes,
  Precision,
  Target,
  Tuning,
  Run,
  Output,
  Debugging
};

/// The category `category` of kiln's options ("Model options", ...).
llvm::cl::OptionCategory &getCLCategory(CLCategory category);

/// Hides every registered option outside kiln's categories from --help
/// (LLVM's and MLIR's own; --help-hidden still lists them, which
/// llvm::cl::HideUnrelatedOptions would not), but for the options
/// named in `debugging` (MLIR's "mlir-timing"), which join the Debugging
/// category. Call before llvm::cl::ParseCommandLineOptions.
void hideNonKilnCLOptions(llvm::ArrayRef<llvm::StringRef> debugging = {});

/// Registers the command-line options every tool that compiles takes: those
/// of CompileOptions.def in the Precision, Target, Tuning and Debugging
/// categories. Call before llvm::cl::ParseCommandLineOptions.
void registerCodegenCLOptions();
/// Registers the import options: those of CompileOptions.def in the Model
/// and Shapes categories (--input-shape, --batch, --constant-input,
/// --max-model-bytes, --plugin-lib, Caffe's --caffemodel and --output).
void registerImportCLOptions();

/// Checks `settings` and applies the ones that are set to `options`; fails
/// with the reason in `error` (named after the flag: "--target: ...") for a
/// malformed or out-of-range value, leaving `options` partly applied.
LogicalResult applyCompileSettings(const ::kiln::CompileSettings &settings,
                                   CompilerOptions &options,
                                   std::string &error);

/// What the command line gave, as settings (the registered options that were
/// given; --no-cubin, --no-cublaslt, --no-tf32 and --no-optimize set their
/// positive counterparts, as CompileOptions.def says).
::kiln::CompileSettings getCompileSettingsFromCL();

/// `defaults` with what the command line gave (registered options that were
/// not given keep the default). Fails with a message in `error` for a
/// malformed value (a bad --target, --input-shape or --constant-input).
FailureOr<CompilerOptions> getCompilerOptionsFromCL(CompilerOptions defaults,
                                                    std::string &error);

/// True when --target was given on the command line.
bool targetsGivenOnCL();

} // namespace mlir::kiln

#endif // KILN_COMPILER_COMPILEROPTIONS_H
