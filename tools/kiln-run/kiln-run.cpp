//===- kiln-run.cpp - run a model -------------------------------*- C++ -*-===//
//
// kiln-run model.kplan|model.onnx|model.mlir [--backend=reference|gpu]
//          [--input name=file.pb|.npy ...] [--reference-dir test_data_set_0]
//          [--check-reference] [--seed N] [--warmup N --iterations N] [--profile N]
//
// Runs a plan bundle on the GPU, or imports a model (ONNX, or kiln IR in a
// .mlir file), optimizes it and runs it on the CPU reference backend or, with
// --backend=gpu, compiles it to a plan in memory and runs that. Inputs come
// from TensorProto or NumPy files (inputs not given get seeded random values),
// each output is summarized; with --reference-dir the outputs are compared
// with output_K.pb there, with --check-reference (a model on the GPU) with the
// reference backend's outputs on the same inputs (exit status 1 on a
// mismatch). --iterations N times N runs on the GPU after --warmup runs and
// prints the median, min and p99 of GPU and host time; --profile N prints the
// median GPU time of every step over N runs.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Import/OnnxImporter.h"
#include "kiln/Import/TensorFile.h"
#include "kiln/InitAll.h"
#include "kiln/Reference/ReferenceExecutor.h"
#include "kiln/Runner/PlanExecutor.h"
#include "kiln/Target/Plan/PlanCompiler.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <random>

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

static cl::opt<std::string> modelPath(cl::Positional,
                                      cl::desc("<model.kplan|model.onnx|model.mlir>"),
                                      cl::Required);
static cl::opt<std::string>
    backend("backend",
            cl::desc("reference (CPU) or gpu (compile a plan and run it); a "
                     ".kplan always runs on the GPU"),
            cl::init("reference"));
static cl::opt<bool> checkReference(
    "check-reference",
    cl::desc("With --backend=gpu: also run the reference backend on the same "
             "inputs and compare"));
static cl::opt<int> warmup("warmup", cl::desc("Untimed GPU runs first"),
                           cl::init(10));
static cl::opt<int> iterations("iterations",
                               cl::desc("Timed GPU runs (0: no timing)"),
                               cl::init(0));
static cl::opt<int> profileRuns(
    "profile",
    cl::desc("Profile N runs: the median GPU time of every step (an event "
             "around each; the runs are synchronous)"),
    cl::init(0));
static cl::opt<std::string> targets("target",
                                    cl::desc("GPU architectures for --backend=gpu "
                                             "(default: the device's)"),
                                    cl::init(""));
static cl::list<std::string> inputs("input", cl::desc("An input: name=file.pb or name=file.npy"),
                                    cl::value_desc("name=file"));
static cl::opt<std::string> referenceDir(
    "reference-dir",
    cl::desc("Compare with output_K.pb (or output_K.npy) in this folder"));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(1));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "kiln-run: error: " << message << "\n";
  return 1;
}

/// Fills `t` with random values: floats uniform in [-1, 1] (f16 from
/// {0, +-0.25, +-0.5, +-1}), integers 0..9, booleans 0/1.
static void randomFill(HostTensor &t, std::mt19937 &rng) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  auto *p = static_cast<uint8_t *>(t.data());
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    switch (t.kind) {
    case ElementKind::F32: {
      float v = real(rng);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case ElementKind::BF16: {
      float v = real(rng);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      uint16_t h = static_cast<uint16_t>(bits >> 16); // truncated to bf16
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case ElementKind::F16: {
      // One of 0, +-0.25, +-0.5, +-1 (exact in f16).
      static const uint16_t values[] = {0x0000, 0x3400, 0xB400, 0x3800,
                                        0xB800, 0x3C00, 0xBC00};
      uint16_t h = values[small(rng) % 7];
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case ElementKind::I8:
      p[i] = static_cast<uint8_t>(small(rng));
      break;
    case ElementKind::I32: {
      int32_t v = small(rng);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case ElementKind::I64: {
      int64_t v = small(rng);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case ElementKind::Bool:
      p[i] = small(rng) & 1;
      break;
    }
  }
}

/// Inputs in `specs` order: given ones (checked later against the spec),
/// random ones otherwise.
static std::vector<HostTensor>
makeInputs(const std::vector<HostTensor> &specs,
           const std::map<std::string, HostTensor> &given) {
  std::mt19937 rng(seed);
  std::vector<HostTensor> args;
  for (const HostTensor &spec : specs) {
    auto it = given.find(spec.name);
    if (it != given.end()) {
      args.push_back(it->second);
      continue;
    }
    HostTensor t(spec.name, spec.kind, spec.shape);
    randomFill(t, rng);
    llvm::outs() << "input '" << spec.name << "' " << t.typeString()
                 << ": random (seed " << seed << ")\n";
    args.push_back(t);
  }
  return args;
}

/// Prints each output's summary and compares it with --reference-dir and
/// `expected` (when not empty). Returns the number of mismatches, or -1.
static int report(const std::vector<HostTensor> &outputs,
                  const std::vector<HostTensor> &expected,
                  const std::string &expectedFrom) {
  int mismatches = 0;
  for (auto [k, out] : llvm::enumerate(outputs)) {
    double lo = 0, hi = 0, sum = 0;
    for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
      double v = out.at(i);
      lo = i ? std::min(lo, v) : v;
      hi = i ? std::max(hi, v) : v;
      sum += v;
    }
    llvm::outs() << "output '" << out.name << "' " << out.typeString()
                 << ": min " << lo << ", max " << hi << ", mean "
                 << (out.numElements() ? sum / out.numElements() : 0.0) << "\n";
    auto compare = [&](const HostTensor &want, const std::string &from) {
      double rtol, atol;
      defaultTolerance(want.kind, rtol, atol);
      std::string diff = compareTensors(out, want, rtol, atol);
      llvm::outs() << "  vs " << from << ": "
                   << (diff.empty() ? "match" : diff) << " (rtol " << rtol
                   << ", atol " << atol << ")\n";
      mismatches += !diff.empty();
    };
    if (k < expected.size())
      compare(expected[k], expectedFrom);
    if (referenceDir.empty())
      continue;
    std::string file = referenceDir + "/output_" + std::to_string(k) + ".pb";
    if (!llvm::sys::fs::exists(file)) // NumPy files serve too
      file = referenceDir + "/output_" + std::to_string(k) + ".npy";
    HostTensor want;
    std::string error = readTensorFile(file, want);
    if (!error.empty()) {
      fail(error);
      return -1;
    }
    compare(want, file);
  }
  return mismatches;
}

static void printTiming(const std::vector<double> &gpu,
                        const std::vector<double> &host) {
  llvm::outs() << "timing: " << gpu.size() << " runs after " << warmup
               << " warmup runs\n";
  llvm::outs() << "| time (ms)                      | median   | min      | p99      |\n"
               << "|--------------------------------|----------|----------|----------|\n";
  auto row = [](const char *name, const std::vector<double> &v) {
    llvm::outs() << llvm::format("| %-30s | %8.4f | %8.4f | %8.4f |\n", name,
                                 quantile(v, 0.5), quantile(v, 0.0),
                                 quantile(v, 0.99));
  };
  row("GPU (events around enqueue)", gpu);
  row("host (enqueue + synchronize)", host);
}

static ::kiln::rt::StderrLogger logger(::kiln::rt::Logger::Severity::Warning);

/// The runtime on GPU 0, or null after printing why there is none.
static std::unique_ptr<::kiln::rt::Runtime> createRuntime() {
  auto runtime = ::kiln::rt::Runtime::create(&logger);
  if (!runtime.isOk()) {
    fail("cannot run on the GPU: " + runtime.status().toString());
    return nullptr;
  }
  return std::move(*runtime);
}

/// Runs `planBytes` on the GPU; compares with `expected` when given.
static int runPlan(::kiln::rt::Runtime &runtime, const std::string &planBytes,
                   const std::map<std::string, HostTensor> &given,
                   const std::vector<HostTensor> *reference) {
  std::unique_ptr<PlanExecutor> exec;
  std::string error = PlanExecutor::create(runtime, planBytes, exec);
  if (!error.empty())
    return fail(error);
  const auto &device = runtime.device();
  llvm::outs() << "device: " << device.name << " (" << device.smArch()
               << "), plan image "
               << (exec->engine().imageIndex() >= 0 ? "loaded" : "none") << ", "
               << exec->engine().plan().steps.size() << " steps, arena "
               << exec->engine().deviceMemorySize() << " bytes\n";
  std::vector<HostTensor> args = makeInputs(exec->inputs(), given);
  std::vector<HostTensor> outputs;
  error = exec->run(args, outputs);
  if (!error.empty())
    return fail(error);
  int mismatches =
      report(outputs, reference ? *reference : std::vector<HostTensor>(),
             "reference backend");
  if (mismatches < 0)
    return 1;
  if (profileRuns > 0) {
    std::vector<PlanExecutor::StepProfile> steps;
    error = exec->profile(profileRuns, steps);
    if (!error.empty())
      return fail(error);
    double total = 0;
    for (const auto &step : steps)
      total += quantile(step.ms, 0.5);
    llvm::outs() << "profile: median GPU time per step over " << profileRuns
                 << " runs (an event around each step)\n"
                 << "| step | what                                     | ms       | share  |\n"
                 << "|------|------------------------------------------|----------|--------|\n";
    for (auto [i, step] : llvm::enumerate(steps)) {
      double ms = quantile(step.ms, 0.5);
      llvm::outs() << llvm::format("| %4zu | %-40s | %8.4f | %5.1f%% |\n", i,
                                   step.name.c_str(), ms,
                                   total > 0 ? 100 * ms / total : 0.0);
    }
    llvm::outs() << llvm::format("| sum  | %-40s | %8.4f | 100.0%% |\n", "",
                                 total);
  }
  if (iterations > 0) {
    std::vector<double> gpu, host;
    error = exec->time(warmup, iterations, gpu, host);
    if (!error.empty())
      return fail(error);
    printTiming(gpu, host);
  }
  return mismatches ? 1 : 0;
}

static std::map<std::string, HostTensor> given;

/// Runs `module` on the CPU reference backend: inputs from `given` or random
/// (returned in `args`), outputs in `outputs`. 0, or 1 after an error.
static int runReference(OwningOpRef<ModuleOp> module,
                        std::vector<HostTensor> &args,
                        std::vector<HostTensor> &outputs) {
  FailureOr<std::unique_ptr<ReferenceExecutor>> exec =
      ReferenceExecutor::compile(std::move(module));
  if (failed(exec))
    return 1;
  std::vector<HostTensor> specs;
  for (const TensorSpec &spec : (*exec)->inputs())
    specs.emplace_back(spec.name, spec.kind, spec.shape);
  args = makeInputs(specs, given);
  std::string error = (*exec)->run(args, outputs);
  if (!error.empty())
    return fail("reference backend: " + error);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "kiln model runner\n");
  if (backend != "reference" && backend != "gpu")
    return fail("unknown --backend=" + backend + " (expected reference or gpu)");

  OnnxImportOptions options;
  for (const std::string &spec : inputs) {
    auto [name, file] = llvm::StringRef(spec).rsplit('=');
    if (name.empty() || file.empty())
      return fail("--input expects name=file.pb or name=file.npy, got '" + spec + "'");
    HostTensor t;
    std::string error = readTensorFile(file.str(), t);
    if (!error.empty())
      return fail(error);
    t.name = name.str();
    options.inputShapes[name] = SmallVector<int64_t>(t.shape.begin(), t.shape.end());
    given[name.str()] = t;
  }

  if (llvm::StringRef(modelPath).ends_with(".kplan")) {
    auto file = llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file)
      return fail("cannot read '" + modelPath + "': " + file.getError().message());
    std::unique_ptr<::kiln::rt::Runtime> runtime = createRuntime();
    if (!runtime)
      return 1;
    return runPlan(*runtime, (*file)->getBuffer().str(), given, nullptr);
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerReferenceExecutorDialects(registry);
  registerPlanCompilerDialects(registry);
  MLIRContext context(registry);
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    llvm::errs() << "kiln-run: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: " : "note: ");
    if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation()))
      llvm::errs() << file.getFilename().getValue() << ": ";
    llvm::errs() << diag.str() << "\n";
    return success();
  });

  OnnxImportResult result;
  if (llvm::StringRef(modelPath).ends_with(".mlir")) {
    result.module = parseSourceFile<ModuleOp>(modelPath.getValue(), &context);
    if (!result.module)
      return 1;
  } else if (failed(importOnnxFile(&context, modelPath, options, result))) {
    return 1;
  }
  PassManager pm(&context);
  buildKilnOptimizePipeline(pm);
  if (failed(pm.run(*result.module)))
    return 1;

  std::vector<HostTensor> referenceOutputs;
  if (backend == "gpu") {
    std::unique_ptr<::kiln::rt::Runtime> runtime = createRuntime();
    if (!runtime)
      return 1;
    PlanOptions planOptions;
    if (!targets.empty()) {
      std::string error;
      auto archs = parseTargets(targets, error);
      if (failed(archs))
        return fail("--target: " + error);
      planOptions.archs = *archs;
    } else {
      const auto &device = runtime->device();
      planOptions.archs = {static_cast<unsigned>(
          device.computeCapabilityMajor * 10 + device.computeCapabilityMinor)};
    }
    OwningOpRef<ModuleOp> copy = result.module->clone();
    FailureOr<::kiln::rt::PlanContents> plan = compileToPlan(*copy, planOptions);
    if (failed(plan))
      return 1;
    auto bytes = ::kiln::rt::writePlan(*plan);
    if (!bytes.isOk())
      return fail("writing the plan: " + bytes.status().toString());
    if (!checkReference)
      return runPlan(*runtime, *bytes, given, nullptr);
    // The GPU runs on the inputs the reference used.
    std::vector<HostTensor> args;
    if (runReference(std::move(result.module), args, referenceOutputs))
      return 1;
    for (const HostTensor &t : args)
      given[t.name] = t;
    return runPlan(*runtime, *bytes, given, &referenceOutputs);
  }

  std::vector<HostTensor> args, outputs;
  if (runReference(std::move(result.module), args, outputs))
    return 1;
  int mismatches = report(outputs, {}, "");
  return mismatches ? 1 : 0;
}
