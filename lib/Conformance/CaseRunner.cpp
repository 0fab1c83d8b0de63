//===- CaseRunner.cpp - one ONNX backend test case --------------*- C++ -*-===//
//
// Runs one case of the ONNX backend tests: import (freezing the inputs that
// must be constants, one more per failed import), the graph phase, the
// backend (the reference executor or a plan on the GPU), then every data set
// through it, compared with the expected outputs.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Compiler.h"
#include "kiln/Conformance/Conformance.h"
#include "kiln/Import/TensorFile.h"
#include "kiln/tooling/PlanRunner.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::kiln;

namespace {

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

} // namespace

CaseOutcome mlir::kiln::runConformanceCase(const std::string &dir,
                                           const ConformanceOptions &conf) {
  std::vector<std::string> sets = listSorted(dir, "test_data_set_");
  if (sets.empty())
    return {"SKIP", "no test_data_set_N folders"};

  // The backend's device and the architecture plans are compiled for.
  CompilerOptions options = conf.compiler;
  std::unique_ptr<rt::Runtime> runtime;
  bool gpu = conf.backend == ConformanceBackend::Gpu;
  if (gpu && !conf.compileOnly) {
    auto created = rt::Runtime::create();
    if (!created.isOk())
      return {"SKIP", "no GPU: " + created.status().toString()};
    runtime = std::move(*created);
    const auto &device = runtime->device();
    if (!conf.keepTargets)
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
  if (gpu) {
    FailureOr<std::string> bytes =
        compiler.compileToPlan(*module, Phase::Graph);
    if (failed(bytes))
      return {"FAIL", "plan compiler: " + firstError};
    if (conf.compileOnly) {
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
