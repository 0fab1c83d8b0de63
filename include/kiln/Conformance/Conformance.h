//===- Conformance.h - run ONNX backend test cases --------------*- C++ -*-===//
//
// The conformance runner behind kiln-conformance. A case is a folder in the
// ONNX backend-test layout (model.onnx, test_data_set_N/input_K.pb,
// output_K.pb). Each case is imported (inputs that must be constants are
// frozen from the first data set, one more per failed import), optimized,
// compiled for the backend (the CPU reference executor, or a plan run on the
// GPU) and run on each data set; its outputs are compared with the expected
// ones at the element type's default tolerance. A case kiln cannot import or
// lower is skipped with the reason, never passed. Cases run in a pool of
// forked processes, so a crash or a timeout fails that case only.
//
//   ConformanceOptions options;            // options.compiler: kiln-compile's
//   std::string error;
//   auto summary = runConformance({"data/node"}, options, llvm::outs(), error);
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONFORMANCE_CONFORMANCE_H
#define KILN_CONFORMANCE_CONFORMANCE_H

#include "kiln/Compiler/CompilerOptions.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::kiln {

/// Where the cases run.
enum class ConformanceBackend {
  /// The CPU reference executor.
  Reference,
  /// A plan on GPU 0 (or, with compileOnly, no device at all).
  Gpu,
};

/// "reference" or "gpu".
llvm::StringRef getBackendName(ConformanceBackend backend);

struct ConformanceOptions {
  /// How each case is compiled (kiln-compile's options).
  CompilerOptions compiler;
  ConformanceBackend backend = ConformanceBackend::Reference;
  /// With the GPU backend: compile each case to a plan and read it back; a
  /// case passes when it compiles (no GPU needed).
  bool compileOnly = false;
  /// With the GPU backend: compile for compiler.target as given, not for
  /// the device's architecture.
  bool keepTargets = false;
  /// Cases run at once, each in its own process.
  unsigned jobs = 1;
  /// Run cases in this process instead (for debugging: a crash ends the run).
  bool inProcess = false;
  /// Seconds a case process may run before it fails as timed out.
  unsigned timeoutSeconds = 120;
  /// A JSON report of every case, when not empty.
  std::string jsonPath;
  /// Cases that must pass (one name a line, `#` comments), when not empty.
  std::string baselinePath;
  /// Where to write the names of the passing cases, when not empty.
  std::string writeBaselinePath;
};

/// How a case ended: "PASS", "FAIL" or "SKIP", and why.
struct CaseOutcome {
  std::string status;
  std::string detail;
};

/// Runs the case in folder `dir` in this process.
CaseOutcome runConformanceCase(const std::string &dir,
                               const ConformanceOptions &options);

/// The case folders under `path`: itself if it holds model.onnx, else its
/// children that do, sorted.
void collectConformanceCases(const std::string &path,
                             std::vector<std::string> &cases);

/// "node/test_abs" for /usr/share/.../data/node/test_abs.
std::string getCaseName(llvm::StringRef dir);

/// Runs `cases` (options.jobs processes at once, or in this process) and
/// prints one line per case to `os`, in order, as each ends:
/// `PASS  node/test_abs` or `FAIL  node/test_x: <detail>`. Fails with the
/// reason in `error` when a process cannot be started.
LogicalResult runConformanceCases(llvm::ArrayRef<std::string> cases,
                                  const ConformanceOptions &options,
                                  llvm::raw_ostream &os,
                                  std::vector<CaseOutcome> &outcomes,
                                  std::string &error);

struct ConformanceSummary {
  int passed = 0, failed = 0, skipped = 0;
  /// Cases of the baseline that no longer pass.
  int regressions = 0;
};

/// The whole run: collects the cases of `paths` (each a case or a folder of
/// them), runs them, writes the JSON report and the baseline when asked,
/// prints a `REGRESSION` line for each baseline case that does not pass and
/// then `N passed, N failed, N skipped`. Fails with the reason in `error`
/// for a path that is not a folder, or a report or baseline that cannot be
/// written or read.
FailureOr<ConformanceSummary> runConformance(llvm::ArrayRef<std::string> paths,
                                             const ConformanceOptions &options,
                                             llvm::raw_ostream &os,
                                             std::string &error);

} // namespace mlir::kiln

#endif // KILN_CONFORMANCE_CONFORMANCE_H
