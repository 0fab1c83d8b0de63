//===- kiln-compile.cpp - build from a model file ---------------*- C++ -*-===//
//
// kiln-compile model.onnx|model.mlir [-o out] [--emit=PHASE|ptx|plan]
// kiln-compile net.prototxt --caffemodel weights.caffemodel [--output BLOB]
//              [--target=sm_80,sm_90] [--input-shape x=1x3x224x224] [--batch N]
//              [--no-optimize] [--check-support]
//              [--report=FILE] [--dump-graph=FILE.dot] [--tune]
//
// Imports a model (ONNX, a Caffe network, or kiln IR in a .mlir file),
// compiles it with the
// compiler library up to a phase and writes the result: IR after a phase
// (import, kiln, linalg, buffers, kernels, memory, target, reference), the
// PTX of its kernels, or a plan bundle (the default when -o names a .kplan
// file). Every phase is a named pipeline that kiln-opt runs too.
// --check-support lists every node kiln cannot import, at once. With a
// plan, --report writes a table of its steps and memory and --dump-graph a
// DOT picture of its steps (kiln/Compiler/PlanReport.h). --tune times the
// candidate cuBLASLt algorithms of each matrix product on this machine's GPU,
// records the fastest in the plan and prints what it chose.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Compiler.h"
#include "kiln/Compiler/PlanReport.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"));
static cl::opt<bool>
    listOnnxOps("list-onnx-ops",
                cl::desc("List the ONNX ops the importer supports and exit"),
                cl::cat(getCLCategory(CLCategory::Model)));
static cl::opt<bool> listCaffeLayers(
    "list-caffe-layers",
    cl::desc("List the Caffe layer types the importer supports and exit"),
    cl::cat(getCLCategory(CLCategory::Model)));
static cl::opt<std::string>
    outputFile("o", cl::desc("Output file"), cl::value_desc("file"),
               cl::init("-"), cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<std::string> emit(
    "emit",
    cl::desc("What to write: the IR after a phase (import; kiln, the "
             "optimized kiln IR; linalg; groups, the fusion groups; buffers; "
             "kernels (or gpu), the host "
             "function launching gpu.func kernels; memory; target, with the "
             "serialized kernels; reference, the CPU reference's LLVM "
             "dialect), ptx (the kernels' PTX for the first target) or plan "
             "(a .kplan bundle; the default for -o *.kplan)"),
    cl::init(""), cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<std::string>
    from("from",
         cl::desc("The phase the input is already at (default import): e.g. "
                  "--from=target -o x.kplan only translates IR to a plan"),
         cl::init("import"), cl::cat(getCLCategory(CLCategory::Model)));
static cl::opt<bool> checkSupport(
    "check-support",
    cl::desc("List every node that cannot be imported and exit (1 if any)"),
    cl::cat(getCLCategory(CLCategory::Model)));
static cl::opt<std::string> reportFile(
    "report",
    cl::desc("With a plan: write a Markdown report of its steps (per kernel "
             "the layers it computes, its floating-point operations, the "
             "bytes it reads and writes) and its memory (the arena against "
             "the graph's activations) to this file ('-': stdout)"),
    cl::value_desc("file"), cl::init(""),
    cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<std::string> graphFile(
    "dump-graph",
    cl::desc("With a plan: write its steps and the buffers between them as a "
             "Graphviz DOT graph to this file ('-': stdout)"),
    cl::value_desc("file"), cl::init(""),
    cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<unsigned> elideLarger(
    "elide-weights-larger-than",
    cl::desc("Print weights with more bytes than this elided (0: print all)"),
    cl::init(0), cl::cat(getCLCategory(CLCategory::Output)));

static int usageError(const llvm::Twine &message) {
  llvm::errs() << "kiln-compile: error: " << message << "\n";
  return 2;
}

/// Opens `path` for writing ('-': stdout), making its missing folders.
static std::unique_ptr<llvm::ToolOutputFile> openOutput(StringRef path,
                                                        std::string &error) {
  StringRef folder = llvm::sys::path::parent_path(path);
  if (path != "-" && !folder.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(folder)) {
      error = "cannot make the folder '" + folder.str() + "': " + ec.message();
      return nullptr;
    }
  return openOutputFile(path, &error);
}

/// Writes `text` to `path` ('-': stdout).
static LogicalResult writeText(StringRef path, StringRef text) {
  std::string error;
  auto file = openOutput(path, error);
  if (!file) {
    llvm::errs() << "kiln-compile: error: " << error << "\n";
    return failure();
  }
  file->os() << text;
  file->keep();
  return success();
}

/// Compiles `module` to a plan's `bytes` as compileToPlan does, measuring
/// the graph's activations on the way, and writes --report and
/// --dump-graph from the compiled module.
static LogicalResult compilePlanWithReport(Compiler &compiler, ModuleOp module,
                                           Phase from, std::string &bytes) {
  PlanReportHeader header;
  header.model = inputFile;
  header.buildOptions = describeBuildOptions(compiler.options());
  if (from <= Phase::Graph) {
    if (failed(compiler.compile(module, from, Phase::Graph)))
      return failure();
    header.activationBytes = getActivationBytes(module);
    from = Phase::Graph;
  }
  if (failed(compiler.compile(module, from, Phase::Target)))
    return failure();
  std::string report, graph;
  llvm::raw_string_ostream reportOs(report), graphOs(graph);
  if ((!reportFile.empty() &&
       (failed(writePlanReport(module, header, reportOs)) ||
        failed(writeText(reportFile, report)))) ||
      (!graphFile.empty() && (failed(writePlanGraph(module, graphOs)) ||
                              failed(writeText(graphFile, graph)))))
    return failure();
  FailureOr<std::string> plan = compiler.compileToPlan(module, Phase::Target);
  if (failed(plan))
    return failure();
  bytes = std::move(*plan);
  return success();
}

/// With --tune: each distinct product's choice, and the sums over all steps.
static void printTactics(const Compiler &compiler) {
  if (!compiler.options().tune)
    return;
  const auto &choices = compiler.tacticChoices();
  double heuristic = 0, chosen = 0;
  size_t distinct = 0;
  auto &os = llvm::errs();
  for (const auto &c : choices) {
    heuristic += c.heuristicUs;
    chosen += c.chosenUs;
    if (c.reused)
      continue;
    ++distinct;
    os << llvm::format("kiln-compile: step %zu: %s: %s, %.1f us (the "
                       "heuristic's first, %s: %.1f us; %d timed)\n",
                       c.step, c.problem.c_str(), c.chosen.c_str(), c.chosenUs,
                       c.heuristic.c_str(), c.heuristicUs, c.timed);
  }
  os << llvm::format("kiln-compile: --tune: %zu cuBLASLt steps, %zu distinct "
                     "products: %.1f us per run with the chosen algorithms, "
                     "%.1f us with the heuristic's first\n",
                     choices.size(), distinct, chosen, heuristic);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerCodegenCLOptions();
  registerImportCLOptions();
  registerDefaultTimingManagerCLOptions();
  hideNonKilnCLOptions({"mlir-timing"});
  cl::ParseCommandLineOptions(argc, argv,
                              "kiln compiler: model file to IR, PTX or plan\n");

  if (listOnnxOps) {
    for (const auto &[op, since] : supportedOnnxOps())
      llvm::outs() << op << " " << since << "\n";
    return 0;
  }
  if (listCaffeLayers) {
    for (const std::string &type : supportedCaffeLayers())
      llvm::outs() << type << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "kiln-compile: error: no model file given\n";
    return 2;
  }
  if (emit.empty())
    emit = StringRef(outputFile).ends_with(".kplan") ? "plan" : "kiln";
  std::optional<Phase> phase = parsePhaseName(emit);
  bool isReference = emit == "reference";
  if (!phase && !isReference && emit != "ptx" && emit != "plan")
    return usageError("unknown --emit=" + emit +
                      " (expected import, kiln, linalg, buffers, kernels, "
                      "memory, target, reference, ptx or plan)");

  std::optional<Phase> fromPhase = parsePhaseName(from);
  if (!fromPhase)
    return usageError("unknown --from=" + from +
                      " (expected import, kiln, linalg, buffers, kernels, "
                      "memory or target)");
  if (isReference && *fromPhase > Phase::Graph)
    return usageError("--emit=reference starts from kiln IR (--from=import "
                      "or --from=kiln)");
  if (phase && *phase < *fromPhase)
    return usageError("--emit=" + emit + " comes before --from=" + from);
  if ((!reportFile.empty() || !graphFile.empty()) && emit != "plan")
    return usageError("--report and --dump-graph describe a plan (--emit=plan "
                      "or -o FILE.kplan)");

  std::string error;
  FailureOr<CompilerOptions> options =
      getCompilerOptionsFromCL(CompilerOptions(), error);
  if (failed(options))
    return usageError(error);
  if (options->tune && emit != "plan")
    return usageError("--tune records algorithms in a plan (--emit=plan or "
                      "-o FILE.kplan)");
  // PTX is printed for the first target: keep it for every target.
  if (emit == "ptx")
    options->target.cubin = false;
  options->import.collectUnsupported = checkSupport;

  Compiler compiler(*options);
  DiagnosticPrinter printer(compiler.getContext(), "kiln-compile");
  if (checkSupport && (StringRef(inputFile).ends_with(".mlir") ||
                       isCaffePrototxtPath(inputFile)))
    return usageError("--check-support needs an ONNX model");
  // --mlir-timing: the import, the compilation and the output, timed.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  TimingScope importTimer = root.nest("import");
  OnnxImportResult details;
  FailureOr<OwningOpRef<ModuleOp>> module =
      compiler.importFile(inputFile, &details);
  if (failed(module))
    return 1;
  importTimer.stop();
  TimingScope compileTimer = root.nest("compile");
  compiler.setTimingScope(&compileTimer);
  if (checkSupport) {
    for (const std::string &line : details.unsupported)
      llvm::outs() << "unsupported: " << line << "\n";
    llvm::outs() << inputFile << ": " << details.unsupported.size()
                 << " unsupported node(s)\n";
    return details.unsupported.empty() ? 0 : 1;
  }

  std::string bytes;
  if (emit == "plan" && (!reportFile.empty() || !graphFile.empty())) {
    if (failed(compilePlanWithReport(compiler, **module, *fromPhase, bytes)))
      return 1;
    printTactics(compiler);
  } else if (emit == "plan") {
    FailureOr<std::string> plan = compiler.compileToPlan(**module, *fromPhase);
    if (failed(plan))
      return 1;
    bytes = std::move(*plan);
    printTactics(compiler);
  } else if (emit == "ptx") {
    FailureOr<std::string> ptx;
    if (succeeded(compiler.compile(**module, *fromPhase, Phase::Target)))
      ptx = compiler.getPtx(**module, options->target.archs.front());
    if (failed(ptx))
      return 1;
    bytes = std::move(*ptx);
  } else if (isReference) {
    if (failed(compiler.lowerForReference(**module, *fromPhase)))
      return 1;
  } else if (failed(compiler.compile(**module, *fromPhase, *phase))) {
    return 1;
  }

  compiler.setTimingScope(nullptr);
  compileTimer.stop();
  TimingScope outputTimer = root.nest("output");
  auto output = openOutput(outputFile, error);
  if (!output) {
    llvm::errs() << "kiln-compile: error: " << error << "\n";
    return 1;
  }
  if (emit == "plan" || emit == "ptx") {
    output->os() << bytes;
  } else {
    OpPrintingFlags flags;
    if (elideLarger > 0)
      flags.elideLargeResourceString(elideLarger);
    (*module)->print(output->os(), flags);
    output->os() << "\n";
  }
  output->keep();
  return 0;
}
