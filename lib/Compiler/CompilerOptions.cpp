//===- CompilerOptions.cpp - compiler options on the command line ---------===//
//
// The command-line options of every tool that compiles, registered once
// (as mlir's registerPassManagerCLOptions does, in a ManagedStatic) and read
// into a CompilerOptions over a tool's defaults.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/CompilerOptions.h"

#include "kiln/Target/CUDA/CudaTarget.h"
#include "kiln/runtime/Plugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

namespace {
struct CodegenCLOptions {
  cl::opt<std::string> targets{
      "target",
      cl::desc("GPU architectures, comma-separated (default sm_90; kiln-run "
               "and kiln-conformance on a GPU: the device's)"),
      cl::init("sm_90")};
  cl::opt<std::string> cudaPath{
      "cuda-path",
      cl::desc("CUDA toolkit with libdevice and ptxas (/usr/local/cuda)"),
      cl::init("/usr/local/cuda")};
  cl::opt<std::string> ptxas{
      "ptxas",
      cl::desc("ptxas to make cubins with (default: the toolkit's, then PATH)"),
      cl::init("")};
  cl::opt<bool> cubin{
      "cubin",
      cl::desc("Make cubins with ptxas (the default of kiln-compile and "
               "kiln-run; kiln-conformance ships PTX unless given)")};
  cl::opt<bool> noCubin{"no-cubin",
                        cl::desc("Ship PTX only, even when ptxas is found")};
  cl::opt<int64_t> kernelThreads{
      "kernel-threads",
      cl::desc("Threads per block of kernels without a tile_config"),
      cl::init(256)};
  cl::opt<int64_t> itemsPerThread{
      "items-per-thread",
      cl::desc("Iterations per thread of kernels without a tile_config"),
      cl::init(1)};
  cl::opt<bool> noCublasLt{
      "no-cublaslt",
      cl::desc("Matrix products as generated kernels, not cuBLASLt calls")};
  cl::opt<int64_t> cublasLtMinFlops{
      "cublaslt-min-flops",
      cl::desc("Matrix products of fewer floating-point operations stay "
               "generated kernels (default 2^20)"),
      cl::init(1 << 20)};
  cl::opt<bool> noTf32{
      "no-tf32",
      cl::desc("f32 cuBLASLt products in full f32, not on TF32 tensor cores "
               "(TF32 is the default, as in TensorRT)")};
  cl::opt<bool> tune{
      "tune",
      cl::desc("Time the candidate cuBLASLt algorithms of every matrix product "
               "on this machine's GPU and record the fastest in the plan, "
               "which then loads only where cuBLASLt accepts them (needs a "
               "GPU)")};
  cl::opt<int> tuneCandidates{
      "tune-candidates",
      cl::desc("With --tune: how many of cuBLASLt's heuristic's algorithms "
               "to time per product (default 8)"),
      cl::init(8)};
  cl::opt<bool> fp16{
      "fp16", cl::desc("Run the layers that allow it in fp16 (f32 "
                       "accumulation; softmax, normalization, reductions and "
                       "exp/log stay f32)")};
  cl::opt<bool> bf16{
      "bf16", cl::desc("Run the layers that allow it in bf16 (as --fp16)")};
  cl::list<std::string> layerPrecision{
      "layer-precision",
      cl::desc("One layer's precision, by its name (the ONNX node's): "
               "NAME=fp32, NAME=fp16 or NAME=bf16 (repeatable)"),
      cl::value_desc("name=precision")};
  cl::opt<int> optLevel{
      "opt-level",
      cl::desc("Optimization: 0 (none: the IR as imported, one kernel per "
               "linalg op), 1 (the graph passes, kiln-optimize), 2 (and "
               "fusion groups, one kernel each; the default) or 3 (and "
               "convolutions and pools channels last)"),
      cl::init(2)};
  cl::opt<bool> referenceFusionGroups{
      "reference-fusion-groups",
      cl::desc("The CPU reference forms the GPU path's fusion groups too and "
               "runs their loops on the host (checks fusion without a GPU)")};
  cl::opt<bool> noOptimize{"no-optimize",
                           cl::desc("No graph optimization (--opt-level=0)")};
  cl::opt<std::string> maxMemory{
      "max-memory",
      cl::desc("Memory budget: the largest tensor and plan, in bytes, with "
               "an optional K, M, G or T (default 16G)"),
      cl::init("16G")};
};

struct ImportCLOptions {
  cl::list<std::string> inputShapes{
      "input-shape", cl::desc("Static shape of an input: name=1x3x224x224"),
      cl::value_desc("name=shape")};
  cl::opt<int64_t> batch{"batch", cl::desc("Size of a dynamic first dimension"),
                         cl::init(-1)};
  cl::list<std::string> constantInputs{
      "constant-input",
      cl::desc("Treat an input as a constant read from a TensorProto file: "
               "name=file.pb"),
      cl::value_desc("name=file")};
  cl::opt<uint64_t> maxModelBytes{
      "max-model-bytes",
      cl::desc("Largest model file accepted (default 2 GiB)"),
      cl::init(uint64_t(2) << 30)};
  cl::list<std::string> pluginLibraries{
      "plugin-lib",
      cl::desc("Load a plugin library (KILN_PLUGIN_LIBRARY): its plugins "
               "implement layers kiln does not know, and plans using them"),
      cl::value_desc("lib.so")};
  cl::opt<std::string> caffeModel{
      "caffemodel",
      cl::desc("The weights (binary protobuf) of a Caffe network given as "
               "a .prototxt"),
      cl::value_desc("file")};
  cl::list<std::string> outputs{
      "output",
      cl::desc("A blob of a Caffe network that becomes an output, in order "
               "(repeatable; default: the blobs no layer consumes)"),
      cl::value_desc("blob")};
};

llvm::ManagedStatic<CodegenCLOptions> codegenOptions;
llvm::ManagedStatic<ImportCLOptions> importOptions;
bool codegenRegistered = false, importRegistered = false;

/// Parses "name=1x3x224x224".
bool parseShape(llvm::StringRef spec, std::string &name,
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

/// Parses "16G", "512M", "1048576": bytes with an optional K/M/G/T (powers
/// of 1024).
std::optional<uint64_t> parseBytes(llvm::StringRef text) {
  unsigned shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    case 'T':
    case 't':
      shift = 40;
      break;
    default:
      break;
    }
  }
  if (shift)
    text = text.drop_back();
  uint64_t value;
  if (text.getAsInteger(10, value) || value == 0 ||
      value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

template <typename T> bool given(const T &option) {
  return option.getNumOccurrences() > 0;
}
} // namespace

void mlir::kiln::registerCodegenCLOptions() {
  *codegenOptions;
  codegenRegistered = true;
}

void mlir::kiln::registerImportCLOptions() {
  *importOptions;
  importRegistered = true;
}

bool mlir::kiln::targetsGivenOnCL() {
  return codegenRegistered && given(codegenOptions->targets);
}

namespace {
template <typename T, typename Option>
void copyIfGiven(std::optional<T> &to, const Option &option) {
  if (given(option))
    to = option;
}
} // namespace

::kiln::CompileSettings mlir::kiln::getCompileSettingsFromCL() {
  ::kiln::CompileSettings s;
  if (codegenRegistered) {
    CodegenCLOptions &cl = *codegenOptions;
    copyIfGiven(s.targets, cl.targets);
    copyIfGiven(s.cudaPath, cl.cudaPath);
    copyIfGiven(s.ptxas, cl.ptxas);
    copyIfGiven(s.cubin, cl.cubin);
    if (given(cl.noCubin) && cl.noCubin)
      s.cubin = false;
    copyIfGiven(s.kernelThreads, cl.kernelThreads);
    copyIfGiven(s.itemsPerThread, cl.itemsPerThread);
    if (given(cl.noCublasLt) && cl.noCublasLt)
      s.cublasLt = false;
    if (given(cl.noTf32) && cl.noTf32)
      s.tf32 = false;
    copyIfGiven(s.cublasLtMinFlops, cl.cublasLtMinFlops);
    copyIfGiven(s.tune, cl.tune);
    copyIfGiven(s.tuneCandidates, cl.tuneCandidates);
    copyIfGiven(s.fp16, cl.fp16);
    copyIfGiven(s.bf16, cl.bf16);
    s.layerPrecision.assign(cl.layerPrecision.begin(), cl.layerPrecision.end());
    copyIfGiven(s.optLevel, cl.optLevel);
    copyIfGiven(s.referenceFusionGroups, cl.referenceFusionGroups);
    if (given(cl.noOptimize) && cl.noOptimize)
      s.optLevel = 0;
    copyIfGiven(s.maxMemory, cl.maxMemory);
  }
  if (importRegistered) {
    ImportCLOptions &cl = *importOptions;
    s.inputShapes.assign(cl.inputShapes.begin(), cl.inputShapes.end());
    s.constantInputs.assign(cl.constantInputs.begin(), cl.constantInputs.end());
    if (cl.batch >= 0)
      s.batch = cl.batch;
    copyIfGiven(s.maxModelBytes, cl.maxModelBytes);
    s.pluginLibraries.assign(cl.pluginLibraries.begin(),
                             cl.pluginLibraries.end());
    copyIfGiven(s.caffeModel, cl.caffeModel);
    s.outputs.assign(cl.outputs.begin(), cl.outputs.end());
  }
  return s;
}

FailureOr<CompilerOptions>
mlir::kiln::getCompilerOptionsFromCL(CompilerOptions options,
                                     std::string &error) {
  if (failed(applyCompileSettings(getCompileSettingsFromCL(), options, error)))
    return failure();
  return options;
}

LogicalResult mlir::kiln::applyCompileSettings(const ::kiln::CompileSettings &s,
                                               CompilerOptions &options,
                                               std::string &error) {
  auto fail = [&](std::string why) {
    error = std::move(why);
    return failure();
  };
  if (s.targets) {
    FailureOr<std::vector<unsigned>> archs = parseTargets(*s.targets, error);
    if (failed(archs))
      return fail("--target: " + error);
    options.target.archs = *archs;
  }
  if (s.cudaPath)
    options.target.cudaPath = *s.cudaPath;
  if (s.ptxas)
    options.target.ptxas = *s.ptxas;
  if (s.cubin)
    options.target.cubin = *s.cubin;
  if (s.kernelThreads)
    options.kernels.threads = *s.kernelThreads;
  if (s.itemsPerThread)
    options.kernels.itemsPerThread = *s.itemsPerThread;
  if (s.cublasLt)
    options.kernels.cublasLt = *s.cublasLt;
  if (s.tf32)
    options.kernels.tf32 = *s.tf32;
  if (s.cublasLtMinFlops) {
    if (*s.cublasLtMinFlops < 0)
      return fail("--cublaslt-min-flops must be at least 0, got " +
                  std::to_string(*s.cublasLtMinFlops));
    options.kernels.cublasLtMinFlops = *s.cublasLtMinFlops;
  }
  if (s.tune)
    options.tune = *s.tune;
  if (s.tuneCandidates) {
    if (*s.tuneCandidates < 1 || *s.tuneCandidates > 64)
      return fail("--tune-candidates must be between 1 and 64, got " +
                  std::to_string(*s.tuneCandidates));
    options.tuneCandidates = *s.tuneCandidates;
  }
  if (s.fp16.value_or(false) && s.bf16.value_or(false))
    return fail("--fp16 and --bf16 exclude each other (choose one reduced "
                "precision; --layer-precision sets single layers)");
  if (s.fp16.value_or(false))
    options.kernels.precision = "fp16";
  if (s.bf16.value_or(false))
    options.kernels.precision = "bf16";
  for (const std::string &spec : s.layerPrecision) {
    auto [name, value] = llvm::StringRef(spec).rsplit('=');
    if (name.empty() || !llvm::is_contained({"fp32", "fp16", "bf16"}, value))
      return fail("--layer-precision expects NAME=fp32, NAME=fp16 or "
                  "NAME=bf16, got '" +
                  spec + "'");
    options.kernels.layerPrecision.push_back(spec);
  }
  if (s.optLevel) {
    if (*s.optLevel < 0 || *s.optLevel > 3)
      return fail("--opt-level must be 0, 1, 2 or 3, got " +
                  std::to_string(*s.optLevel));
    options.optLevel = *s.optLevel;
  }
  if (s.referenceFusionGroups)
    options.referenceFusionGroups = *s.referenceFusionGroups;
  if (s.maxMemory) {
    std::optional<uint64_t> bytes = parseBytes(*s.maxMemory);
    if (!bytes)
      return fail("--max-memory expects a positive byte count with an "
                  "optional K, M, G or T, got '" +
                  *s.maxMemory + "'");
    options.maxMemoryBytes = *bytes;
  }
  for (const std::string &library : s.pluginLibraries)
    if (::kiln::rt::Status loaded = ::kiln::rt::loadPluginLibrary(library);
        !loaded)
      return fail("--plugin-lib: " + loaded.message());
  for (const std::string &spec : s.inputShapes) {
    std::string name;
    SmallVector<int64_t> shape;
    if (!parseShape(spec, name, shape))
      return fail("--input-shape expects name=AxBxC, got '" + spec + "'");
    options.import.inputShapes[name] = shape;
  }
  for (const std::string &spec : s.constantInputs) {
    auto [name, file] = llvm::StringRef(spec).rsplit('=');
    if (name.empty() || file.empty())
      return fail("--constant-input expects name=file, got '" + spec + "'");
    options.import.constantInputs[name] = file.str();
  }
  if (s.batch) {
    if (*s.batch < 0)
      return fail("--batch must be at least 0, got " +
                  std::to_string(*s.batch));
    options.import.batch = *s.batch;
  }
  if (s.maxModelBytes)
    options.import.maxFileBytes = *s.maxModelBytes;
  if (s.caffeModel)
    options.caffeModel = *s.caffeModel;
  for (const std::string &output : s.outputs) {
    if (output.empty())
      return fail("--output expects the name of a blob");
    options.outputs.push_back(output);
  }
  return success();
}

std::string mlir::kiln::describeBuildOptions(const CompilerOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "targets=" << formatTargets(options.target.archs)
     << " cubin=" << (options.target.cubin ? "yes" : "no")
     << " kernel-threads=" << options.kernels.threads
     << " items-per-thread=" << options.kernels.itemsPerThread
     << " opt-level=" << options.optLevel
     << " cublaslt=" << (options.kernels.cublasLt ? "yes" : "no")
     << " tf32=" << (options.kernels.tf32 ? "yes" : "no")
     << " precision=" << options.kernels.precision;
  for (const std::string &layer : options.kernels.layerPrecision)
    os << " layer-precision=" << layer;
  if (options.kernels.cublasLtMinFlops != KernelOptions().cublasLtMinFlops)
    os << " cublaslt-min-flops=" << options.kernels.cublasLtMinFlops;
  if (options.tune)
    os << " tune=" << options.tuneCandidates;
  // Sorted, so that the order of the flags does not matter.
  std::vector<std::string> shapes, constants;
  for (const auto &entry : options.import.inputShapes) {
    std::string shape = entry.first().str() + "=";
    for (auto [i, d] : llvm::enumerate(entry.second))
      shape += (i ? "x" : "") + std::to_string(d);
    shapes.push_back(shape);
  }
  for (const auto &entry : options.import.constantInputs)
    constants.push_back(entry.first().str());
  llvm::sort(shapes);
  llvm::sort(constants);
  for (const std::string &shape : shapes)
    os << " input-shape=" << shape;
  if (options.import.batch)
    os << " batch=" << *options.import.batch;
  for (const std::string &name : constants)
    os << " constant-input=" << name;
  for (const std::string &output : options.outputs)
    os << " output=" << output;
  os << " max-memory=" << options.maxMemoryBytes;
  return text;
}
