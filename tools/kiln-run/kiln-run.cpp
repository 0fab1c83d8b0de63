//===- kiln-run.cpp - run a model -------------------------------*- C++ -*-===//
//
// kiln-run model.onnx [--backend=reference] [--input name=file.pb|.npy ...]
//          [--reference-dir test_data_set_0] [--seed N]
//
// Imports a model, optimizes it, compiles it for the backend and runs it once:
// inputs come from TensorProto or NumPy files (inputs not given get seeded random
// values), each output is summarized, and with --reference-dir the outputs
// are compared with output_K.pb there (exit status 1 on a mismatch).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Import/OnnxImporter.h"
#include "kiln/Import/TensorFile.h"
#include "kiln/InitAll.h"
#include "kiln/Reference/ReferenceExecutor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <random>

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::Required);
static cl::opt<std::string> backend("backend", cl::desc("reference (CPU)"),
                                    cl::init("reference"));
static cl::list<std::string> inputs("input", cl::desc("An input: name=file.pb or name=file.npy"),
                                    cl::value_desc("name=file"));
static cl::opt<std::string> referenceDir(
    "reference-dir", cl::desc("Compare with output_K.pb in this folder"));
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "kiln model runner\n");
  if (backend != "reference")
    return fail("--backend=" + backend +
                " is not available yet (available: reference)");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerReferenceExecutorDialects(registry);
  MLIRContext context(registry);
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    llvm::errs() << "kiln-run: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: " : "note: ");
    if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation()))
      llvm::errs() << file.getFilename().getValue() << ": ";
    llvm::errs() << diag.str() << "\n";
    return success();
  });

  std::map<std::string, HostTensor> given;
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
  OnnxImportResult result;
  if (failed(importOnnxFile(&context, modelPath, options, result)))
    return 1;
  PassManager pm(&context);
  buildKilnOptimizePipeline(pm);
  if (failed(pm.run(*result.module)))
    return 1;
  FailureOr<std::unique_ptr<ReferenceExecutor>> exec =
      ReferenceExecutor::compile(std::move(result.module));
  if (failed(exec))
    return 1;

  std::mt19937 rng(seed);
  std::vector<HostTensor> args;
  for (const TensorSpec &spec : (*exec)->inputs()) {
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
  std::vector<HostTensor> outputs;
  std::string error = (*exec)->run(args, outputs);
  if (!error.empty())
    return fail(error);

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
    if (referenceDir.empty())
      continue;
    std::string file = referenceDir + "/output_" + std::to_string(k) + ".pb";
    HostTensor expected;
    error = readTensorFile(file, expected);
    if (!error.empty())
      return fail(error);
    double rtol, atol;
    defaultTolerance(expected.kind, rtol, atol);
    std::string diff = compareTensors(out, expected, rtol, atol);
    llvm::outs() << "  vs " << file << ": " << (diff.empty() ? "match" : diff) << "\n";
    mismatches += !diff.empty();
  }
  return mismatches ? 1 : 0;
}
