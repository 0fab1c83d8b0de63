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
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Compiler.h"
#include "kiln/Import/TensorFile.h"
#include "kiln/tooling/PlanRunner.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

namespace {

/// The compiler options from the command line (read once in main).
CompilerOptions compilerOptions;

struct Outcome {
  std::string status; // PASS, FAIL, SKIP
  std::string detail;
};

/// Data sets of a case, sorted; files of one set sorted by index.
std::vector<std::string> listSorted(const std::string &dir,
                                    llvm::StringRef prefix) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.consume_front(prefix))
      continue;
    name.consume_back(".pb");
    int index;
    if (!name.getAsInteger(10, index))
      found.push_back({index, it->path()});
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto &f : found)
    out.push_back(f.second);
  return out;
}

/// Reads a tensor file into `t`; the error message, or "".
std::string readTensor(const std::string &path, tooling::HostTensor &t) {
  auto read = readTensorFile(path);
  if (!read.isOk())
    return read.status().message();
  t = std::move(*read);
  return "";
}

/// onnx's test data holds bfloat16 tensors as UINT16 (numpy has no
/// bfloat16): read such a tensor as the bf16 the model has, bit for bit.
void asModelType(tooling::HostTensor &t, rt::DataType modelType) {
  if (t.type == rt::DataType::U16 && modelType == rt::DataType::BF16)
    t.type = rt::DataType::BF16;
}

/// Runs one case (in the child process).
Outcome runCase(const std::string &dir) {
  std::vector<std::string> sets = listSorted(dir, "test_data_set_");
  if (sets.empty())
    return {"SKIP", "no test_data_set_N folders"};

  // The backend's device and the architecture plans are compiled for.
  CompilerOptions options = compilerOptions;
  std::unique_ptr<rt::Runtime> runtime;
  if (backend == "gpu" && !compileOnly) {
    auto created = rt::Runtime::create();
    if (!created.isOk())
      return {"SKIP", "no GPU: " + created.status().toString()};
    runtime = std::move(*created);
    const auto &device = runtime->device();
    if (!targetsGivenOnCL())
      options.target.archs = {static_cast<unsigned>(
          device.computeCapabilityMajor * 10 + device.computeCapabilityMinor)};
  }
  Compiler compiler(options);
  MLIRContext &context = compiler.getContext();
  context.disableMultithreading();
  std::string firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
      firstError = diag.str();
    return success();
  });

  // Import; inputs that must be constants (shapes, axes) are taken from the
  // first data set.
  OnnxImportOptions &import = compiler.options().import;
  std::map<std::string, std::string> inputFiles; // graph input name -> .pb
  for (const std::string &file : listSorted(sets[0], "input_")) {
    tooling::HostTensor t;
    if (!readTensor(file, t).empty())
      continue;
    inputFiles[t.name] = file;
    // Dynamic dimensions take the test data's shape.
    import.inputShapes[t.name] =
        SmallVector<int64_t>(t.shape.begin(), t.shape.end());
  }
  // Each failed import may name another input that must be a constant.
  OwningOpRef<ModuleOp> module;
  for (int attempt = 0;; ++attempt) {
    firstError.clear();
    OnnxImportResult details;
    auto imported = compiler.importFile(dir + "/model.onnx", &details);
    if (succeeded(imported)) {
      module = std::move(*imported);
      break;
    }
    bool retry = false;
    for (const std::string &name : details.needConstant)
      if (inputFiles.count(name) && !import.constantInputs.count(name)) {
        import.constantInputs[name] = inputFiles[name];
        retry = true;
      }
    if (!retry || attempt > 16)
      return {"SKIP", "import: " + firstError};
  }
  if (failed(compiler.compile(*module, Phase::Import, Phase::Graph)))
    return {"FAIL", "optimization pipeline: " + firstError};
  // The backend: specs of its inputs and a function that runs it.
  std::vector<std::string> inputNames;
  std::function<rt::Status(const std::vector<tooling::HostTensor> &,
                           std::vector<tooling::HostTensor> &)>
      execute;
  std::unique_ptr<ReferenceExecutor> reference;
  std::unique_ptr<tooling::PlanRunner> planRunner;
  std::vector<rt::DataType> inputTypes;
  if (backend == "gpu") {
    FailureOr<std::string> bytes =
        compiler.compileToPlan(*module, Phase::Graph);
    if (failed(bytes))
      return {"FAIL", "plan compiler: " + firstError};
    if (compileOnly) {
      auto back = rt::readPlan(bytes->data(), bytes->size());
      if (!back.isOk())
        return {"FAIL", "reading the plan back: " + back.status().toString()};
      return {"PASS", ""};
    }
    auto runner = tooling::PlanRunner::create(*runtime, *bytes);
    if (!runner.isOk())
      return {"FAIL", "loading the plan: " + runner.status().toString()};
    planRunner = std::move(*runner);
    for (const rt::TensorDesc &spec : planRunner->inputs()) {
      inputNames.push_back(spec.name);
      inputTypes.push_back(spec.type);
    }
    execute = [&](const std::vector<tooling::HostTensor> &in,
                  std::vector<tooling::HostTensor> &out) {
      return planRunner->run(in, out);
    };
  } else {
    auto exec = compiler.compileReference(std::move(module), Phase::Graph);
    if (failed(exec))
      return {"SKIP", "reference lowering: " + firstError};
    reference = std::move(*exec);
    for (const rt::TensorDesc &spec : reference->inputs()) {
      inputNames.push_back(spec.name);
      inputTypes.push_back(spec.type);
    }
    execute = [&](const std::vector<tooling::HostTensor> &in,
                  std::vector<tooling::HostTensor> &out) {
      return reference->run(in, out);
    };
  }

  for (const std::string &set : sets) {
    std::map<std::string, tooling::HostTensor> given;
    std::vector<tooling::HostTensor> ordered;
    for (const std::string &file : listSorted(set, "input_")) {
      tooling::HostTensor t;
      std::string error = readTensor(file, t);
      if (!error.empty())
        return {"SKIP", "test data: " + error};
      given[t.name] = t;
      ordered.push_back(t);
    }
    // Inputs frozen into constants must hold the same values in every set.
    for (const auto &frozen : import.constantInputs) {
      auto it = given.find(frozen.first().str());
      tooling::HostTensor first;
      if (it != given.end() && readTensor(frozen.second, first).empty() &&
          !tooling::compareTensors(it->second, first, {}).isOk())
        return {"SKIP", "input '" + frozen.first().str() +
                            "' is needed as a constant but differs between "
                            "data sets"};
    }
    std::vector<tooling::HostTensor> inputs;
    for (auto [i, name] : llvm::enumerate(inputNames)) {
      auto it = given.find(name);
      if (it != given.end())
        inputs.push_back(it->second);
      else if (i < ordered.size())
        inputs.push_back(ordered[i]);
      else
        return {"FAIL", "no test data for input '" + name + "'"};
      asModelType(inputs.back(), inputTypes[i]);
    }
    std::vector<tooling::HostTensor> outputs;
    if (rt::Status s = execute(inputs, outputs); !s)
      return {"FAIL", s.message()};
    std::vector<std::string> expectedFiles = listSorted(set, "output_");
    if (expectedFiles.size() != outputs.size())
      return {"FAIL", "the model has " + std::to_string(outputs.size()) +
                          " outputs, the test data " +
                          std::to_string(expectedFiles.size())};
    for (auto [i, file] : llvm::enumerate(expectedFiles)) {
      tooling::HostTensor expected;
      std::string error = readTensor(file, expected);
      if (!error.empty())
        return {"SKIP", "test data: " + error};
      asModelType(expected, outputs[i].type);
      rt::Status diff = tooling::compareTensors(
          outputs[i], expected, tooling::defaultTolerance(expected.type));
      if (!diff.isOk())
        return {"FAIL", llvm::sys::path::filename(set).str() + " output " +
                            std::to_string(i) + " '" + outputs[i].name +
                            "': " + diff.message()};
    }
  }
  return {"PASS", ""};
}

/// Case folders under `path`: itself if it holds model.onnx, else children.
void collectCases(const std::string &path, std::vector<std::string> &cases) {
  if (llvm::sys::fs::exists(path + "/model.onnx")) {
    cases.push_back(path);
    return;
  }
  std::vector<std::string> children;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::fs::exists(it->path() + "/model.onnx"))
      children.push_back(it->path());
  std::sort(children.begin(), children.end());
  cases.insert(cases.end(), children.begin(), children.end());
}

/// "node/test_abs" for /usr/share/.../data/node/test_abs.
std::string caseName(const std::string &dir) {
  llvm::StringRef name = llvm::sys::path::filename(dir);
  llvm::StringRef parent =
      llvm::sys::path::filename(llvm::sys::path::parent_path(dir));
  return (parent + "/" + name).str();
}

struct Running {
  pid_t pid;
  int fd;
  size_t index;
};

/// Reads what a child wrote and how it ended.
Outcome finish(const Running &r) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(r.fd, buf, sizeof(buf))) > 0)
    text.append(buf, n);
  close(r.fd);
  int status = 0;
  waitpid(r.pid, &status, 0);
  if (WIFSIGNALED(status))
    return {"FAIL",
            WTERMSIG(status) == SIGALRM
                ? "timed out after " + std::to_string(timeoutSeconds) + " s"
                : "crashed with signal " + std::to_string(WTERMSIG(status))};
  size_t nl = text.find('\n');
  if (nl == std::string::npos)
    return {"FAIL", "the case process ended without a result (exit status " +
                        std::to_string(WEXITSTATUS(status)) + ")"};
  std::string detail = text.substr(nl + 1);
  std::replace(detail.begin(), detail.end(), '\n', ' ');
  return {text.substr(0, nl), detail};
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerCodegenCLOptions();
  hideNonKilnCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "kiln ONNX conformance runner\n");
  {
    // The driver JIT-compiles PTX; cubins only when asked for.
    CompilerOptions defaults;
    defaults.target.cubin = false;
    std::string error;
    FailureOr<CompilerOptions> options =
        getCompilerOptionsFromCL(defaults, error);
    if (failed(options)) {
      llvm::errs() << "kiln-conformance: error: " << error << "\n";
      return 2;
    }
    compilerOptions = std::move(*options);
  }
  if (backend != "reference" && backend != "gpu") {
    llvm::errs() << "kiln-conformance: error: unknown --backend=" << backend
                 << " (expected reference or gpu)\n";
    return 2;
  }
  std::vector<std::string> cases;
  for (const std::string &p : paths) {
    if (!llvm::sys::fs::is_directory(p)) {
      llvm::errs() << "kiln-conformance: error: '" << p
                   << "' is not a folder\n";
      return 2;
    }
    collectCases(p, cases);
  }

  std::vector<Outcome> outcomes(cases.size());
  std::vector<Running> running;
  size_t next = 0;
  auto reap = [&](size_t keep) {
    while (running.size() > keep) {
      // Finish the oldest child first, so lines come out in order.
      Running r = running.front();
      running.erase(running.begin());
      outcomes[r.index] = finish(r);
      const Outcome &o = outcomes[r.index];
      llvm::outs() << o.status << "  " << caseName(cases[r.index])
                   << (o.detail.empty() ? "" : ": " + o.detail) << "\n";
      llvm::outs().flush();
    }
  };
  while (inProcess && next < cases.size()) {
    outcomes[next] = runCase(cases[next]);
    llvm::outs() << outcomes[next].status << "  " << caseName(cases[next])
                 << (outcomes[next].detail.empty()
                         ? ""
                         : ": " + outcomes[next].detail)
                 << "\n";
    ++next;
  }
  while (next < cases.size()) {
    reap(jobs - 1);
    int fds[2];
    if (pipe(fds) != 0) {
      llvm::errs() << "kiln-conformance: error: pipe failed\n";
      return 2;
    }
    llvm::outs().flush();
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      // A crash is reported as the case's failure, without a stack dump.
      if (!std::freopen("/dev/null", "w", stderr))
        _exit(3);
      alarm(timeoutSeconds);
      Outcome o = runCase(cases[next]);
      std::string text = o.status + "\n" + o.detail;
      ssize_t unused = write(fds[1], text.data(), text.size());
      (void)unused;
      _exit(0);
    }
    close(fds[1]);
    running.push_back({pid, fds[0], next});
    ++next;
  }
  reap(0);

  int passed = 0, failedCount = 0, skipped = 0;
  for (const Outcome &o : outcomes)
    (o.status == "PASS"   ? passed
     : o.status == "SKIP" ? skipped
                          : failedCount)++;

  if (!jsonPath.empty()) {
    llvm::json::Array list;
    for (auto [dir, o] : llvm::zip(cases, outcomes))
      list.push_back(llvm::json::Object{
          {"case", caseName(dir)}, {"status", o.status}, {"detail", o.detail}});
    llvm::json::Object report{{"backend", backend.getValue()},
                              {"passed", passed},
                              {"failed", failedCount},
                              {"skipped", skipped},
                              {"cases", std::move(list)}};
    std::error_code ec;
    llvm::raw_fd_ostream os(jsonPath, ec);
    if (ec) {
      llvm::errs() << "kiln-conformance: error: cannot write " << jsonPath
                   << "\n";
      return 2;
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  }
  if (!writeBaseline.empty()) {
    std::ofstream os(writeBaseline);
    os << "# Cases that pass on the reference backend; CI fails if one stops "
          "passing.\n";
    for (auto [dir, o] : llvm::zip(cases, outcomes))
      if (o.status == "PASS")
        os << caseName(dir) << "\n";
  }
  int regressions = 0;
  if (!baselinePath.empty()) {
    std::ifstream in(baselinePath);
    if (!in) {
      llvm::errs() << "kiln-conformance: error: cannot read " << baselinePath
                   << "\n";
      return 2;
    }
    llvm::StringMap<std::string> status;
    for (auto [dir, o] : llvm::zip(cases, outcomes))
      status[caseName(dir)] = o.status;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#')
        continue;
      auto it = status.find(line);
      if (it != status.end() && it->second != "PASS") {
        llvm::outs() << "REGRESSION  " << line
                     << " passed in the baseline, now " << it->second << "\n";
        ++regressions;
      }
    }
  }
  llvm::outs() << passed << " passed, " << failedCount << " failed, " << skipped
               << " skipped\n";
  return regressions ? 1 : 0;
}
