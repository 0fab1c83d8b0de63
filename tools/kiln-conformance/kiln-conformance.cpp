//===- kiln-conformance.cpp - run ONNX backend test cases -------*- C++ -*-===//
//
// kiln-conformance [--backend=reference|gpu] [--json=report.json]
//                  [--baseline=file] [--write-baseline=file] [-j N]
//                  [compiler options] PATH...
//
// Each PATH is a case folder in the ONNX backend-test layout (model.onnx,
// test_data_set_N/input_K.pb, output_K.pb) or a folder of them. Every case is
// imported, optimized, compiled for the backend and run on each data set; its
// outputs are compared with the expected ones (f32: rtol 1e-3, atol 1e-5;
// f16: 1e-2/1e-3; bf16: 2e-2/1e-2; integers and booleans exactly). One line
// per case, then `N passed, N failed, N skipped`. A case kiln cannot import
// or lower is skipped with the reason, never passed. Each case runs in its
// own process, so a crash fails that case only. Plans are compiled with the
// compiler options of kiln-compile (PTX only unless --cubin: the driver
// JIT-compiles it), for the device's architecture unless --target is given.
// The runner is lib/Conformance; this file parses the command line.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/CompilerOptions.h"
#include "kiln/Conformance/Conformance.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <thread>

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

static cl::list<std::string>
    paths(cl::Positional, cl::desc("<case or folder>..."), cl::OneOrMore);
static cl::opt<bool> compileOnly(
    "compile-only",
    cl::desc("With --backend=gpu: compile each case to a plan for sm_90 and "
             "verify it (no GPU needed); a case passes when it compiles"),
    cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<std::string>
    backend("backend",
            cl::desc("reference (CPU) or gpu (each case "
                     "compiled to a plan and run on GPU 0)"),
            cl::init("reference"), cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<std::string>
    jsonPath("json", cl::desc("Write a JSON report"),
             cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<std::string>
    baselinePath("baseline",
                 cl::desc("Fail if a case listed in this file does not pass"),
                 cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<std::string>
    writeBaseline("write-baseline",
                  cl::desc("Write the names of the passing cases"),
                  cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<unsigned>
    jobs("j", cl::desc("Cases run at once"),
         cl::init(std::max(1u, std::thread::hardware_concurrency())),
         cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<bool> inProcess(
    "in-process",
    cl::desc("Run cases in this process (for debugging: a crash ends the run)"),
    cl::cat(getCLCategory(CLCategory::Debugging)));
static cl::opt<unsigned>
    timeoutSeconds("timeout", cl::desc("Seconds per case"), cl::init(120),
                   cl::cat(getCLCategory(CLCategory::Run)));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerCodegenCLOptions();
  hideNonKilnCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "kiln ONNX conformance runner\n");
  ConformanceOptions options;
  {
    // The driver JIT-compiles PTX; cubins only when asked for.
    CompilerOptions defaults;
    defaults.target.cubin = false;
    std::string error;
    FailureOr<CompilerOptions> compilerOptions =
        getCompilerOptionsFromCL(defaults, error);
    if (failed(compilerOptions)) {
      llvm::errs() << "kiln-conformance: error: " << error << "\n";
      return 2;
    }
    options.compiler = std::move(*compilerOptions);
  }
  if (backend != "reference" && backend != "gpu") {
    llvm::errs() << "kiln-conformance: error: unknown --backend=" << backend
                 << " (expected reference or gpu)\n";
    return 2;
  }
  options.backend = backend == "gpu" ? ConformanceBackend::Gpu
                                     : ConformanceBackend::Reference;
  options.compileOnly = compileOnly;
  options.keepTargets = targetsGivenOnCL();
  options.jobs = jobs;
  options.inProcess = inProcess;
  options.timeoutSeconds = timeoutSeconds;
  options.jsonPath = jsonPath;
  options.baselinePath = baselinePath;
  options.writeBaselinePath = writeBaseline;

  std::string error;
  std::vector<std::string> cases(paths.begin(), paths.end());
  FailureOr<ConformanceSummary> summary =
      runConformance(cases, options, llvm::outs(), error);
  if (failed(summary)) {
    llvm::errs() << "kiln-conformance: error: " << error << "\n";
    return 2;
  }
  return summary->regressions ? 1 : 0;
}
