//===- CompilerOptions.cpp - compiler options on the command line ---------===//
//
// The command-line options of every tool that compiles, made from
// CompileOptions.def when a tool registers them (in a ManagedStatic, as
// mlir's registerPassManagerCLOptions does) and read into a CompilerOptions
// over the tool's defaults through CompileSettings and applyCompileSettings.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/CompilerOptions.h"

#include "kiln/Target/CUDA/CudaTarget.h"
#include "kiln/runtime/Plugin.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"

using namespace mlir;
using namespace mlir::kiln;
namespace cl = llvm::cl;

namespace {
/// The command-line option of an option of kind `Kind`.
template <typename Kind>
using CLOption = std::conditional_t<Kind::repeatable, cl::list<std::string>,
                                    cl::opt<typename Kind::Value>>;

/// One cl::opt or cl::list per line of CompileOptions.def, made when its
/// group (import or codegen) is registered.
struct CompileCLOptions {
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  std::optional<CLOption<::kiln::option::Kind>> field;
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)        \
  KILN_OPTION(field, flag, keyword, Kind, Category, , help)
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)            \
  std::optional<cl::opt<bool>> name;
#include "kiln/Compiler/CompileOptions.def"
};

llvm::ManagedStatic<CompileCLOptions> clOptions;

/// Whether options of `category` are import options.
bool isImportCategory(CLCategory category) {
  return category == CLCategory::Model || category == CLCategory::Shapes;
}

/// Makes the options of one group.
void registerCLOptions(bool import) {
  CompileCLOptions &o = *clOptions;
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  if (isImportCategory(CLCategory::Category) == import && !o.field)            \
    o.field.emplace(flag, cl::desc(help),                                      \
                    cl::value_desc(::kiln::option::Kind::valueDesc),           \
                    cl::cat(getCLCategory(CLCategory::Category)));
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)        \
  KILN_OPTION(field, flag, keyword, Kind, Category, , help)
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)            \
  if (isImportCategory(CLCategory::Category) == import && !o.name)             \
    o.name.emplace(flag, cl::desc(help),                                       \
                   cl::cat(getCLCategory(CLCategory::Category)));
#include "kiln/Compiler/CompileOptions.def"
}

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

/// Parses "name=1x3:8x3:64x3" (min:opt:max) into `profile`; the error names
/// what is wrong, or is empty on success.
std::string parseProfile(llvm::StringRef spec, std::string &name,
                         ShapeProfile &profile) {
  auto [lhs, rhs] = spec.rsplit('=');
  SmallVector<llvm::StringRef> parts;
  rhs.split(parts, ':');
  SmallVector<int64_t> *shapes[] = {&profile.min, &profile.opt, &profile.max};
  if (lhs.empty() || parts.size() != 3)
    return "--shapes expects name=MIN:OPT:MAX with shapes AxBxC, got '" +
           spec.str() + "'";
  name = lhs.str();
  for (auto [part, shape] : llvm::zip(parts, shapes))
    if (std::string unused;
        !parseShape(lhs.str() + "=" + part.str(), unused, *shape))
      return "--shapes for '" + name + "': '" + part.str() +
             "' is not a shape AxBxC of non-negative sizes";
  if (profile.min.size() != profile.opt.size() ||
      profile.opt.size() != profile.max.size())
    return "--shapes for '" + name + "': min, opt and max have ranks " +
           std::to_string(profile.min.size()) + ", " +
           std::to_string(profile.opt.size()) + " and " +
           std::to_string(profile.max.size()) + "; they must have one rank";
  for (size_t i = 0; i < profile.min.size(); ++i)
    if (profile.min[i] > profile.opt[i] || profile.opt[i] > profile.max[i])
      return "--shapes for '" + name + "': dimension " + std::to_string(i) +
             " has min " + std::to_string(profile.min[i]) + ", opt " +
             std::to_string(profile.opt[i]) + " and max " +
             std::to_string(profile.max[i]) + "; it needs min <= opt <= max";
  return "";
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

llvm::cl::OptionCategory &mlir::kiln::getCLCategory(CLCategory category) {
  static cl::OptionCategory categories[] = {
      {"Model options", "The model and how it is imported"},
      {"Shape options", "The shapes of the model's inputs"},
      {"Precision options"},
      {"Target options", "What the plan is built for"},
      {"Tuning options", "How kernels are formed and chosen"},
      {"Run options", "How the model runs and what it is compared with"},
      {"Output options"},
      {"Debugging options"}};
  return categories[int(category)];
}

void mlir::kiln::hideNonKilnCLOptions(ArrayRef<StringRef> debugging) {
  auto &&registered = cl::getRegisteredOptions();
  for (StringRef name : debugging)
    if (cl::Option *option = registered.lookup(name))
      option->addCategory(getCLCategory(CLCategory::Debugging));
  // cl::HideUnrelatedOptions, but Hidden, not ReallyHidden: --help-hidden
  // still lists LLVM's options.
  for (cl::Option *option : llvm::make_second_range(registered)) {
    bool kiln = llvm::any_of(option->Categories, [](cl::OptionCategory *c) {
      return c->getName() == "Generic Options" ||
             llvm::any_of(
                 llvm::seq(int(CLCategory::Debugging) + 1),
                 [&](int i) { return c == &getCLCategory(CLCategory(i)); });
    });
    if (!kiln && option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}

void mlir::kiln::registerCodegenCLOptions() { registerCLOptions(false); }

void mlir::kiln::registerImportCLOptions() { registerCLOptions(true); }

bool mlir::kiln::targetsGivenOnCL() {
  return clOptions.isConstructed() && clOptions->targets &&
         given(*clOptions->targets);
}

namespace {
template <typename T>
void copyIfGiven(std::optional<T> &to,
                 const std::optional<cl::opt<T>> &option) {
  if (option && given(*option))
    to = option->getValue();
}
void copyIfGiven(std::vector<std::string> &to,
                 const std::optional<cl::list<std::string>> &option) {
  if (option)
    to.assign(option->begin(), option->end());
}
} // namespace

::kiln::CompileSettings mlir::kiln::getCompileSettingsFromCL() {
  ::kiln::CompileSettings s;
  if (!clOptions.isConstructed())
    return s;
  const CompileCLOptions &o = *clOptions;
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  copyIfGiven(s.field, o.field);
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)        \
  copyIfGiven(s.field, o.field);
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)            \
  if (o.name && given(*o.name) && o.name->getValue())                          \
    s.field = value;
#include "kiln/Compiler/CompileOptions.def"
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
  // The options applied as given.
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  if (s.field)                                                                 \
    options.dest = *s.field;
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)
#include "kiln/Compiler/CompileOptions.def"

  // The options checked here.
  if (s.targets) {
    FailureOr<std::vector<unsigned>> archs = parseTargets(*s.targets, error);
    if (failed(archs))
      return fail("--target: " + error);
    options.target.archs = *archs;
  }
  if (s.cublasLtMinFlops) {
    if (*s.cublasLtMinFlops < 0)
      return fail("--cublaslt-min-flops must be at least 0, got " +
                  std::to_string(*s.cublasLtMinFlops));
    options.kernels.cublasLtMinFlops = *s.cublasLtMinFlops;
  }
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
    options.kernels.precision = Precision::FP16;
  if (s.bf16.value_or(false))
    options.kernels.precision = Precision::BF16;
  for (const std::string &spec : s.layerPrecision) {
    auto [name, value] = llvm::StringRef(spec).rsplit('=');
    if (name.empty() || !parsePrecision(value))
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
  for (const std::string &spec : s.shapes) {
    std::string name;
    ShapeProfile profile;
    if (std::string why = parseProfile(spec, name, profile); !why.empty())
      return fail(why);
    if (options.import.inputShapes.count(name))
      return fail("input '" + name +
                  "' has both --input-shape and --shapes; give one");
    if (!options.import.profiles.try_emplace(name, profile).second)
      return fail("--shapes gives input '" + name + "' twice");
  }
  if (s.maxBatch) {
    if (*s.maxBatch < 1)
      return fail("--max-batch must be at least 1, got " +
                  std::to_string(*s.maxBatch));
    if (options.import.batch)
      return fail("--max-batch and --batch both set the first dimension; "
                  "give one");
    options.import.maxBatch = *s.maxBatch;
  }
  for (const std::string &output : s.outputs) {
    if (output.empty())
      return fail("--output expects the name of a blob");
    options.outputs.push_back(output);
  }
  return success();
}

namespace {
/// Appends " flag=yes|no" to the build record for a boolean option that
/// differs from its default (nothing for other kinds, nor for the booleans
/// the record always names).
template <typename Kind, typename T>
void recordBool(llvm::raw_ostream &os, llvm::StringRef flag, const T &value,
                const T &byDefault) {
  if constexpr (std::is_same_v<typename Kind::Value, bool>) {
    if (value != byDefault &&
        !llvm::is_contained({"cubin", "cublaslt", "tf32", "tune"}, flag))
      os << " " << flag << "=" << (value ? "yes" : "no");
  }
}
} // namespace

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
     << " precision=" << stringifyPrecision(options.kernels.precision);
  for (const std::string &layer : options.kernels.layerPrecision)
    os << " layer-precision=" << layer;
  if (options.kernels.cublasLtMinFlops != KernelOptions().cublasLtMinFlops)
    os << " cublaslt-min-flops=" << options.kernels.cublasLtMinFlops;
  if (options.tune)
    os << " tune=" << options.tuneCandidates;
  // Every other boolean of the table, where it differs from the default: an
  // option added to CompileOptions.def changes the record of the plans it
  // changes with no line here.
  const CompilerOptions defaults;
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  recordBool<::kiln::option::Kind>(os, flag, options.dest, defaults.dest);
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)
#include "kiln/Compiler/CompileOptions.def"
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
  std::vector<std::string> profiles;
  for (const auto &entry : options.import.profiles) {
    std::string text = entry.first().str() + "=";
    const ShapeProfile &p = entry.second;
    const SmallVector<int64_t> *shapes[] = {&p.min, &p.opt, &p.max};
    for (auto [k, shape] : llvm::enumerate(shapes)) {
      text += k ? ":" : "";
      for (auto [i, d] : llvm::enumerate(*shape))
        text += (i ? "x" : "") + std::to_string(d);
    }
    profiles.push_back(text);
  }
  llvm::sort(profiles);
  for (const std::string &profile : profiles)
    os << " shapes=" << profile;
  if (options.import.maxBatch)
    os << " max-batch=" << *options.import.maxBatch;
  for (const std::string &name : constants)
    os << " constant-input=" << name;
  for (const std::string &output : options.outputs)
    os << " output=" << output;
  os << " max-memory=" << options.maxMemoryBytes;
  return text;
}
