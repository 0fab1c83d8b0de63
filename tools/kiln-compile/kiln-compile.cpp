//===- kiln-compile.cpp - build from a model file ---------------*- C++ -*-===//
//
// kiln-compile model.onnx|model.mlir [-o out] [--emit=kiln|linalg|gpu|ptx|plan]
//              [--target=sm_80,sm_90] [--input-shape x=1x3x224x224] [--batch N]
//              [--no-optimize] [--check-support]
//
// Imports a model (ONNX, or kiln IR in a .mlir file), runs the default
// optimization pipeline and writes the result: IR at some stage, the PTX of
// its kernels, or a plan bundle (the default when -o names a .kplan file).
// --check-support lists every node kiln cannot import, at once.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Import/OnnxImporter.h"
#include "kiln/InitAll.h"
#include "kiln/Target/Plan/PlanCompiler.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"));
static cl::opt<bool> listOnnxOps(
    "list-onnx-ops", cl::desc("List the ONNX ops the importer supports and exit"));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<std::string> emit(
    "emit",
    cl::desc("What to write: kiln (the optimized kiln IR), linalg (lowered to "
             "linalg/tensor/arith/math), gpu (host function launching "
             "gpu.func kernels), ptx (the kernels' PTX for the first target) "
             "or plan (a .kplan bundle; the default for -o *.kplan)"),
    cl::init(""));
static cl::opt<std::string>
    targets("target", cl::desc("GPU architectures, comma-separated (sm_90)"),
            cl::init("sm_90"));
static cl::opt<std::string>
    cudaPath("cuda-path",
             cl::desc("CUDA toolkit with libdevice and ptxas (/usr/local/cuda)"),
             cl::init("/usr/local/cuda"));
static cl::opt<std::string> ptxasPath(
    "ptxas", cl::desc("ptxas to make cubins with (default: the toolkit's, then PATH)"),
    cl::init(""));
static cl::opt<bool> noCubin("no-cubin",
                             cl::desc("Ship PTX only, even when ptxas is found"));
static cl::opt<int64_t> kernelThreads(
    "kernel-threads", cl::desc("Threads per block of kernels without a tile_config"),
    cl::init(256));
static cl::opt<int64_t> itemsPerThread(
    "items-per-thread",
    cl::desc("Iterations per thread of kernels without a tile_config"),
    cl::init(1));
static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Static shape of an input: name=1x3x224x224"),
                cl::value_desc("name=shape"));
static cl::opt<int64_t> batch("batch",
                              cl::desc("Size of a dynamic first dimension"),
                              cl::init(-1));
static cl::list<std::string> constantInputs(
    "constant-input",
    cl::desc("Treat an input as a constant read from a TensorProto file: name=file.pb"),
    cl::value_desc("name=file"));
static cl::opt<bool> noOptimize("no-optimize",
                                cl::desc("Write the IR as imported"));
static cl::opt<bool> checkSupport(
    "check-support",
    cl::desc("List every node that cannot be imported and exit (1 if any)"));
static cl::opt<uint64_t> maxModelBytes(
    "max-model-bytes", cl::desc("Largest model file accepted (default 2 GiB)"),
    cl::init(uint64_t(2) << 30));
static cl::opt<unsigned> elideLarger(
    "elide-weights-larger-than",
    cl::desc("Print weights with more bytes than this elided (0: print all)"),
    cl::init(0));

/// Parses "name=1x3x224x224".
static bool parseShape(llvm::StringRef spec, std::string &name,
                       SmallVector<int64_t> &shape) {
  auto [lhs, rhs] = spec.rsplit('=');
  if (lhs.empty() || rhs.empty())
    return false;
  name = lhs.str();
  SmallVector<llvm::StringRef> dims;
  rhs.split(dims, 'x');
  for (llvm::StringRef d : dims) {
    int64_t v;
    if (d.getAsInteger(10, v) || v < 0)
      return false;
    shape.push_back(v);
  }
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "kiln compiler: model file to kiln IR\n");

  if (listOnnxOps) {
    for (const auto &[op, since] : mlir::kiln::supportedOnnxOps())
      llvm::outs() << op << " " << since << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "kiln-compile: error: no model file given\n";
    return 2;
  }

  DialectRegistry registry;
  mlir::kiln::registerAllDialects(registry);
  mlir::kiln::registerPlanCompilerDialects(registry);
  MLIRContext context(registry);
  mlir::kiln::registerOnnxImporterDialects(&context);
  // "kiln-compile: error: model.onnx: node 3 'conv' (Conv, ...): ..."
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    llvm::raw_ostream &os = llvm::errs();
    os << "kiln-compile: ";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    default:
      os << "note: ";
      break;
    }
    if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation())) {
      os << file.getFilename().getValue();
      if (file.getLine())
        os << ":" << file.getLine() << ":" << file.getColumn();
      os << ": ";
    }
    os << diag.str() << "\n";
    return success();
  });

  mlir::kiln::OnnxImportOptions options;
  for (const std::string &spec : inputShapes) {
    std::string name;
    SmallVector<int64_t> shape;
    if (!parseShape(spec, name, shape)) {
      llvm::errs() << "kiln-compile: error: --input-shape expects name=AxBxC, got '"
                   << spec << "'\n";
      return 2;
    }
    options.inputShapes[name] = shape;
  }
  for (const std::string &spec : constantInputs) {
    auto [name, file] = llvm::StringRef(spec).rsplit('=');
    if (name.empty() || file.empty()) {
      llvm::errs() << "kiln-compile: error: --constant-input expects name=file, got '"
                   << spec << "'\n";
      return 2;
    }
    options.constantInputs[name] = file.str();
  }
  if (batch >= 0)
    options.batch = batch;
  options.collectUnsupported = checkSupport;
  options.maxFileBytes = maxModelBytes;

  if (emit.empty())
    emit = llvm::StringRef(outputFile).ends_with(".kplan") ? "plan" : "kiln";
  if (!llvm::is_contained({"kiln", "linalg", "gpu", "ptx", "plan"}, emit)) {
    llvm::errs() << "kiln-compile: error: unknown --emit=" << emit
                 << " (expected kiln, linalg, gpu, ptx or plan)\n";
    return 2;
  }
  mlir::kiln::PlanOptions planOptions;
  {
    std::string error;
    auto archs = mlir::kiln::parseTargets(targets, error);
    if (failed(archs)) {
      llvm::errs() << "kiln-compile: error: --target: " << error << "\n";
      return 2;
    }
    planOptions.archs = *archs;
  }
  planOptions.cudaPath = cudaPath;
  planOptions.ptxas = ptxasPath;
  planOptions.cubin = !noCubin && emit == "plan";
  planOptions.threads = kernelThreads;
  planOptions.itemsPerThread = itemsPerThread;
  for (int i = 1; i < argc; ++i)
    planOptions.buildOptions += (i > 1 ? " " : "") + std::string(argv[i]);

  mlir::kiln::OnnxImportResult result;
  if (llvm::StringRef(inputFile).ends_with(".mlir")) {
    if (checkSupport) {
      llvm::errs() << "kiln-compile: error: --check-support needs an ONNX model\n";
      return 2;
    }
    result.module = parseSourceFile<ModuleOp>(inputFile.getValue(), &context);
    if (!result.module)
      return 1;
  } else if (failed(mlir::kiln::importOnnxFile(&context, inputFile, options, result))) {
    return 1;
  }
  if (checkSupport) {
    for (const std::string &line : result.unsupported)
      llvm::outs() << "unsupported: " << line << "\n";
    llvm::outs() << inputFile << ": " << result.unsupported.size()
                 << " unsupported node(s)\n";
    return result.unsupported.empty() ? 0 : 1;
  }

  if (!noOptimize || emit == "linalg") {
    PassManager pm(&context);
    if (!noOptimize)
      mlir::kiln::buildKilnOptimizePipeline(pm);
    if (emit == "linalg")
      pm.addNestedPass<func::FuncOp>(mlir::kiln::createKilnConvertToLinalgPass());
    if (failed(pm.run(*result.module)))
      return 1;
  }

  std::string planBytes, ptx;
  if (emit == "gpu" && failed(mlir::kiln::lowerToGpu(*result.module, planOptions)))
    return 1;
  if (emit == "ptx") {
    std::vector<::kiln::rt::KernelDesc> kernels;
    if (failed(mlir::kiln::lowerToGpu(*result.module, planOptions)))
      return 1;
    auto images = mlir::kiln::serializeKernels(*result.module, planOptions, kernels);
    if (failed(images))
      return 1;
    for (const auto &image : *images)
      if (image.arch == planOptions.archs.front())
        ptx = image.data;
  }
  if (emit == "plan") {
    auto plan = mlir::kiln::compileToPlan(*result.module, planOptions);
    if (failed(plan))
      return 1;
    auto bytes = ::kiln::rt::writePlan(*plan);
    if (!bytes.isOk()) {
      llvm::errs() << "kiln-compile: error: writing the plan: "
                   << bytes.status().message() << "\n";
      return 1;
    }
    planBytes = std::move(*bytes);
  }

  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "kiln-compile: error: " << error << "\n";
    return 1;
  }
  if (emit == "plan" || emit == "ptx") {
    output->os() << (emit == "plan" ? planBytes : ptx);
    output->keep();
    return 0;
  }
  OpPrintingFlags flags;
  if (elideLarger > 0)
    flags.elideLargeResourceString(elideLarger);
  result.module->print(output->os(), flags);
  output->os() << "\n";
  output->keep();
  return 0;
}
