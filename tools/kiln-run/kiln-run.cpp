//===- kiln-run.cpp - run a model -------------------------------*- C++ -*-===//
//
// kiln-run model.kplan|model.onnx|net.prototxt|model.mlir
//          [--backend=reference|gpu]
//          [--input name=file.pb|.npy ...] [--run-shape name=AxB ...]
//          [--reference-dir test_data_set_0]
//          [--check-reference] [--seed N] [--warmup N --iterations N]
//          [--profile N] [--cuda-graphs] [--output-dir DIR] [compiler options]
//
// Runs a plan bundle on the GPU, or imports a model (ONNX, a Caffe .prototxt
// with --caffemodel, or kiln IR in a .mlir file), optimizes it and runs it
// on the CPU reference backend or, with --backend=gpu, compiles it to a plan
// in memory (with the compiler options of kiln-compile) and runs that. Inputs
// come from TensorProto or NumPy files (inputs not given get seeded random
// values); each output is summarized, compared with output_K.pb/.npy in
// --reference-dir, and with --check-reference (a model on the GPU) with the
// reference backend's outputs on the same inputs (exit status 1 on a
// mismatch). Running and timing is the runtime tooling's (kiln-run-plan runs
// plans without the compiler).
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Compiler.h"
#include "kiln/Import/TensorFile.h"
#include "kiln/runtime/Plugin.h"
#include "kiln/tooling/RunPlan.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <iostream>
#include <map>

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

static cl::opt<std::string>
    modelPath(cl::Positional, cl::desc("<model.kplan|model.onnx|model.mlir>"),
              cl::Required);
static cl::opt<std::string>
    backend("backend",
            cl::desc("reference (CPU) or gpu (compile a plan and run it); a "
                     ".kplan always runs on the GPU"),
            cl::init("reference"), cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<bool> checkReference(
    "check-reference",
    cl::desc("With --backend=gpu: also run the reference backend on the same "
             "inputs and compare"),
    cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<int> warmup("warmup", cl::desc("Untimed GPU runs first"),
                           cl::init(10),
                           cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<int> iterations("iterations",
                               cl::desc("Timed GPU runs (0: no timing)"),
                               cl::init(0),
                               cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<int> profileRuns(
    "profile",
    cl::desc("Profile N runs: the median GPU time of every step (an event "
             "around each; the runs are synchronous)"),
    cl::init(0), cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<bool> cudaGraph(
    "cuda-graphs",
    cl::desc("Enqueue the plan's steps as one CUDA graph (captured once; "
             "profiled runs still run them one by one)"),
    cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<bool> backToBack(
    "back-to-back",
    cl::desc("Time the --iterations runs enqueued back to back, one "
             "synchronize at the end: each run's GPU time without the host's "
             "launch latency in it"),
    cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<bool> kernelTrace(
    "kernel-trace",
    cl::desc("Time each GPU operation of the --iterations runs with CUPTI "
             "(GPU timestamps, no events between steps) and print the gaps "
             "between them, inside a CUDA graph too"),
    cl::cat(getCLCategory(CLCategory::Debugging)));
static cl::opt<std::string>
    cupti("cupti",
          cl::desc("The CUPTI library for --kernel-trace (default: "
                   "libcupti.so, then the CUDA toolkit's folders)"),
          cl::value_desc("path"),
          cl::cat(getCLCategory(CLCategory::Debugging)));
static cl::list<std::string>
    inputs("input", cl::desc("An input: name=file.pb or name=file.npy"),
           cl::value_desc("name=file"),
           cl::cat(getCLCategory(CLCategory::Run)));
static cl::list<std::string> runShapes(
    "run-shape",
    cl::desc("The shape a random input with dynamic dimensions takes in this "
             "run: name=AxBxC (repeatable; default: its profile's opt shape; "
             "an --input file gives its own)"),
    cl::value_desc("name=shape"), cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<double> rtolOption(
    "rtol",
    cl::desc("Relative tolerance of the output comparisons (default: "
             "by type, 1e-3 for f32)"),
    cl::init(-1), cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<double> atolOption(
    "atol",
    cl::desc("Absolute tolerance of the output comparisons (default: by "
             "type, 1e-5 for f32; 0 compares relative to the output's "
             "magnitude only)"),
    cl::init(-1), cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<std::string> referenceDir(
    "reference-dir",
    cl::desc("Compare with output_K.pb (or output_K.npy) in this folder"),
    cl::cat(getCLCategory(CLCategory::Run)));
static cl::opt<std::string>
    outputDir("output-dir", cl::desc("Write output_K.npy to this folder"),
              cl::cat(getCLCategory(CLCategory::Output)));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(1),
                              cl::cat(getCLCategory(CLCategory::Run)));

static int fail(const std::string &message) {
  std::cout.flush();
  llvm::errs() << "kiln-run: error: " << message << "\n";
  return 1;
}

/// The runtime on GPU 0, with --plugin-lib's libraries loaded, or null after
/// printing why there is none.
static std::unique_ptr<rt::Runtime> createRuntime(rt::Logger &logger) {
  for (const std::string &library : getCompileSettingsFromCL().pluginLibraries)
    if (rt::Status s = rt::loadPluginLibrary(library); !s) {
      fail(s.message());
      return nullptr;
    }
  auto runtime = rt::Runtime::create(&logger);
  if (!runtime.isOk()) {
    fail("cannot run on the GPU: " + runtime.status().toString());
    return nullptr;
  }
  return std::move(*runtime);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerCodegenCLOptions();
  registerImportCLOptions();
  hideNonKilnCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "kiln model runner\n");
  if (backend != "reference" && backend != "gpu")
    return fail("unknown --backend=" + backend +
                " (expected reference or gpu)");

  std::string error;
  FailureOr<CompilerOptions> options =
      getCompilerOptionsFromCL(CompilerOptions(), error);
  if (failed(options))
    return fail(error);
  tooling::PlanRunOptions run;
  run.seed = seed;
  run.warmup = warmup;
  run.iterations = iterations;
  run.profileRuns = profileRuns;
  run.cudaGraph = cudaGraph;
  run.kernelTrace = kernelTrace;
  run.backToBack = backToBack;
  run.cuptiLibrary = cupti;
  run.referenceDir = referenceDir;
  run.rtol = rtolOption;
  run.atol = atolOption;
  run.outputDir = outputDir;
  run.readTensor = readTensorFile;
  for (const std::string &spec : inputs) {
    auto [name, file] = StringRef(spec).rsplit('=');
    if (name.empty() || file.empty())
      return fail("--input expects name=file.pb or name=file.npy, got '" +
                  spec + "'");
    auto t = readTensorFile(file.str());
    if (!t.isOk())
      return fail(t.status().message());
    t->name = name.str();
    // An input with a range (--shapes, --max-batch) stays dynamic: the
    // network runs at the file's shape. Others are built at it.
    if (!options->import.profiles.count(name) && !options->import.maxBatch)
      options->import.inputShapes[name] =
          SmallVector<int64_t>(t->shape.begin(), t->shape.end());
    run.inputs[name.str()] = *t;
  }
  std::map<std::string, std::vector<int64_t>> shapeOfRun;
  for (const std::string &spec : runShapes) {
    auto [name, text] = StringRef(spec).split('=');
    std::vector<int64_t> shape;
    SmallVector<StringRef> dims;
    text.split(dims, 'x');
    for (StringRef d : dims) {
      int64_t v;
      if (d.getAsInteger(10, v) || v < 0)
        return fail("--run-shape expects name=AxBxC, got '" + spec + "'");
      shape.push_back(v);
    }
    if (name.empty() || text.empty())
      return fail("--run-shape expects name=AxBxC, got '" + spec + "'");
    shapeOfRun[name.str()] = shape;
  }
  rt::StderrLogger logger(rt::Logger::Severity::Warning);

  if (StringRef(modelPath).ends_with(".kplan")) {
    auto file = llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file)
      return fail("cannot read '" + modelPath +
                  "': " + file.getError().message());
    // A corrupt plan is reported whether or not there is a GPU.
    llvm::StringRef bytes = (*file)->getBuffer();
    if (auto plan = rt::readPlan(bytes.data(), bytes.size()); !plan.isOk())
      return fail(plan.status().toString());
    std::unique_ptr<rt::Runtime> runtime = createRuntime(logger);
    if (!runtime)
      return 1;
    return tooling::runPlan(*runtime, (*file)->getBuffer().str(), run,
                            std::cout, std::cerr, "kiln-run");
  }

  std::unique_ptr<rt::Runtime> runtime;
  if (backend == "gpu") {
    if (!(runtime = createRuntime(logger)))
      return 1;
    // Plans are for the device here unless --target says otherwise.
    if (!targetsGivenOnCL()) {
      const rt::DeviceInfo &device = runtime->device();
      options->target.archs = {static_cast<unsigned>(
          device.computeCapabilityMajor * 10 + device.computeCapabilityMinor)};
    }
  }
  Compiler compiler(*options);
  DiagnosticPrinter printer(compiler.getContext(), "kiln-run");
  FailureOr<OwningOpRef<ModuleOp>> module = compiler.importFile(modelPath);
  if (failed(module) ||
      failed(compiler.compile(**module, Phase::Import, Phase::Graph)))
    return 1;

  // The reference backend: on the given or random inputs.
  std::vector<tooling::HostTensor> referenceOutputs;
  auto runReference = [&](OwningOpRef<ModuleOp> graph) -> int {
    auto exec = compiler.compileReference(std::move(graph), Phase::Graph);
    if (failed(exec))
      return 1;
    // A dynamic input not given takes --run-shape or its opt shape.
    std::vector<rt::TensorDesc> specs = (*exec)->inputs();
    for (rt::TensorDesc &spec : specs) {
      if (!spec.isDynamic() || run.inputs.count(spec.name))
        continue;
      auto it = shapeOfRun.find(spec.name);
      spec.shape = it != shapeOfRun.end()  ? it->second
                   : spec.profiles.empty() ? std::vector<int64_t>{}
                                           : spec.profiles[0].opt;
      if (spec.shape.empty())
        return fail("input '" + spec.name +
                    "' has dynamic dimensions: give --run-shape or --input");
    }
    for (const auto &[name, shape] : shapeOfRun)
      if (llvm::none_of(specs, [&](const rt::TensorDesc &spec) {
            return spec.name == name;
          }))
        return fail("--run-shape names '" + name +
                    "', which is not an input of the network");
    auto args = tooling::makeInputs(specs, run.inputs, seed, std::cout);
    if (!args.isOk())
      return fail(args.status().message());
    if (rt::Status s = (*exec)->run(*args, referenceOutputs); !s)
      return fail("reference backend: " + s.message());
    // The GPU runs on the inputs the reference used.
    for (const tooling::HostTensor &t : *args)
      run.inputs[t.name] = t;
    return 0;
  };

  if (backend == "gpu") {
    OwningOpRef<ModuleOp> copy = (*module)->clone();
    FailureOr<std::string> plan = compiler.compileToPlan(*copy, Phase::Graph);
    if (failed(plan))
      return 1;
    if (checkReference) {
      if (runReference(std::move(*module)))
        return 1;
      run.expected = &referenceOutputs;
      run.expectedFrom = "reference backend";
    }
    return tooling::runPlan(*runtime, *plan, run, std::cout, std::cerr,
                            "kiln-run");
  }
  if (runReference(std::move(*module)))
    return 1;
  auto mismatches = tooling::reportOutputs(referenceOutputs, run, std::cout);
  if (!mismatches.isOk())
    return fail(mismatches.status().message());
  return *mismatches ? 1 : 0;
}
