//===- Compiler.cpp - import, compile to a phase, emit ----------*- C++ -*-===//

#include "kiln/Compiler/Compiler.h"
#include "VerifyLaunches.h"
#include "kiln/runtime/Runtime.h"

#include "kiln/InitAll.h"
#include "kiln/Parser/Parser.h"
#include "kiln/Target/Plan/TranslateToPlan.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

using namespace mlir;
using namespace mlir::kiln;

Compiler::Compiler(CompilerOptions options) : options_(std::move(options)) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context = std::make_unique<MLIRContext>(registry);
  // The pipelines create ops of most of these dialects.
  context->loadAllAvailableDialects();
}

Compiler::~Compiler() = default;

/// The module of an import, and its findings for the caller.
static FailureOr<OwningOpRef<ModuleOp>>
finishImport(LogicalResult imported, OnnxImportResult &result,
             OnnxImportResult *details) {
  if (details) {
    details->unsupported = result.unsupported;
    details->needConstant = result.needConstant;
  }
  if (failed(imported))
    return failure();
  return std::move(result.module);
}

/// Refuses IR with a value whose type takes more bytes than `budget` (or
/// than 64 bits count), naming the op.
static LogicalResult checkMemoryBudget(ModuleOp module, uint64_t budget) {
  auto check = [&](Type type, Operation *op, const char *what,
                   unsigned index) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape())
      return success();
    std::optional<uint64_t> bytes = getByteSize(shaped);
    if (bytes && *bytes <= budget)
      return success();
    InFlightDiagnostic diag = op->emitError()
                              << what << " " << index << " (" << type << ") ";
    if (!bytes)
      return diag << "has more bytes than 64 bits can count";
    return diag << "would take " << *bytes
                << " bytes, more than the memory budget of " << budget
                << " bytes (raise it with --max-memory)";
  };
  WalkResult result = module.walk([&](Operation *op) {
    for (auto [i, r] : llvm::enumerate(op->getResults()))
      if (failed(check(r.getType(), op, "result", i)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (auto [i, arg] : llvm::enumerate(block.getArguments()))
          if (failed(check(arg.getType(), op, "argument", i)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

FailureOr<OwningOpRef<ModuleOp>>
Compiler::importFile(StringRef path, OnnxImportResult *details) {
  if (path.ends_with(".mlir")) {
    OwningOpRef<ModuleOp> module = kiln::parseSourceFile(path, context.get());
    if (!module || failed(checkMemoryBudget(*module, options_.maxMemoryBytes)))
      return failure();
    return module;
  }
  options_.import.maxTensorBytes = options_.maxMemoryBytes;
  if (isCaffePrototxtPath(path))
    return importCaffe(path);
  if (!options_.caffeModel.empty() || !options_.outputs.empty()) {
    emitError(FileLineColLoc::get(context.get(), path, 0, 0))
        << "--caffemodel and --output are for Caffe networks (a .prototxt)";
    return failure();
  }
  OnnxImportResult result;
  return finishImport(
      importOnnxFile(context.get(), path, options_.import, result), result,
      details);
}

FailureOr<OwningOpRef<ModuleOp>> Compiler::importCaffe(StringRef path) {
  CaffeImportOptions caffe;
  caffe.outputs = options_.outputs;
  caffe.inputShapes = options_.import.inputShapes;
  caffe.batch = options_.import.batch;
  caffe.maxFileBytes = options_.import.maxFileBytes;
  caffe.maxRecursionDepth = options_.import.maxRecursionDepth;
  caffe.maxTensorBytes = options_.maxMemoryBytes;
  caffe.functionName = options_.import.functionName;
  OwningOpRef<ModuleOp> module;
  if (failed(importCaffeFiles(context.get(), path, options_.caffeModel, caffe,
                              module)))
    return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>>
Compiler::importBuffer(StringRef bytes, StringRef name,
                       OnnxImportResult *details) {
  options_.import.maxTensorBytes = options_.maxMemoryBytes;
  OnnxImportResult result;
  return finishImport(
      importOnnxBuffer(context.get(), bytes, name, options_.import, result),
      result, details);
}

std::unique_ptr<PassManager> Compiler::makePassManager() {
  auto pm = std::make_unique<PassManager>(context.get());
  if (timing)
    pm->enableTiming(*timing);
  return pm;
}

LogicalResult Compiler::compile(ModuleOp module, Phase from, Phase to) {
  // The phases before kernels are verified after every pass. Once there
  // are launches, MLIR's verifier costs launches x kernels: each phase
  // from Kernels on is verified once, by verifyLaunches, in linear time.
  std::unique_ptr<PassManager> pm = makePassManager();
  bool launches = false;
  auto flush = [&]() -> LogicalResult {
    if (pm->size() == 0)
      return success();
    if (failed(pm->run(module)) || (launches && failed(verifyLaunches(module))))
      return failure();
    pm = makePassManager();
    return success();
  };
  for (int p = static_cast<int>(from) + 1; p <= static_cast<int>(to); ++p) {
    auto phase = static_cast<Phase>(p);
    if ((phase == Phase::Graph && options_.optLevel < 1) ||
        (phase == Phase::Groups && options_.optLevel < 2))
      continue;
    if (phase >= Phase::Kernels) {
      if (failed(flush()))
        return failure();
      launches = true;
      pm->enableVerifier(false);
    }
    GraphOptions graph;
    graph.channelsLast = options_.optLevel >= 3;
    buildPhasePipeline(*pm, phase, options_.kernels, options_.target, graph);
  }
  return flush();
}

FailureOr<std::string> Compiler::getPtx(ModuleOp module, unsigned arch) {
  auto binary = module.lookupSymbol<gpu::BinaryOp>("kiln_kernels");
  if (!binary)
    return std::string(); // no kernels: copies and fills only
  for (Attribute a : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(a);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (target && target.getChip() == "sm_" + std::to_string(arch) &&
        object.getFormat() == gpu::CompilationTarget::Assembly)
      return object.getObject().getValue().str();
  }
  return binary.emitError("no PTX for sm_") << arch << " in the kernels";
}

FailureOr<::kiln::rt::PlanContents> Compiler::translateToPlan(ModuleOp module) {
  PlanTranslationOptions translation;
  translation.archs = options_.target.archs;
  translation.buildOptions = options_.buildOptions.empty()
                                 ? describeBuildOptions(options_)
                                 : options_.buildOptions;
  translation.maxBytes = options_.maxMemoryBytes;
  translation.precision = options_.kernels.precision;
  return kiln::translateToPlan(module, translation);
}

FailureOr<std::string> Compiler::compileToPlan(ModuleOp module, Phase from) {
  if (failed(compile(module, from, Phase::Target)))
    return failure();
  std::optional<TimingScope> translation;
  if (timing)
    translation = timing->nest("translate to plan");
  FailureOr<::kiln::rt::PlanContents> plan = translateToPlan(module);
  if (translation)
    translation->stop();
  if (failed(plan))
    return failure();
  if (options_.tune && failed(tune(module, *plan)))
    return failure();
  auto bytes = ::kiln::rt::writePlan(*plan);
  if (!bytes.isOk())
    return module.emitError("writing the plan: ") << bytes.status().toString();
  return std::move(*bytes);
}

LogicalResult Compiler::tune(ModuleOp module, ::kiln::rt::PlanContents &plan) {
  tacticChoices_.clear();
  auto runtime = ::kiln::rt::Runtime::create();
  if (!runtime.isOk())
    return module.emitError("--tune times cuBLASLt's algorithms on this "
                            "machine's GPU, and there is none to use: ")
           << runtime.status().message();
  ::kiln::rt::TacticOptions tactics;
  tactics.candidates = options_.tuneCandidates;
  auto choices = ::kiln::rt::selectTactics(**runtime, plan, tactics);
  if (!choices.isOk())
    return module.emitError("--tune: ") << choices.status().message();
  tacticChoices_ = std::move(*choices);
  return success();
}

ReferenceOptions Compiler::referenceOptions() const {
  ReferenceOptions reference;
  reference.fusionGroups = options_.referenceFusionGroups;
  reference.maxWork = options_.maxWork;
  reference.maxMemory = options_.maxMemoryBytes;
  return reference;
}

LogicalResult Compiler::lowerForReference(ModuleOp module, Phase from) {
  if (from == Phase::Import && failed(compile(module, from, Phase::Graph)))
    return failure();
  std::unique_ptr<PassManager> owned = makePassManager();
  PassManager &pm = *owned;
  buildReferencePipeline(pm, referenceOptions());
  return pm.run(module);
}

FailureOr<std::unique_ptr<ReferenceExecutor>>
Compiler::compileReference(OwningOpRef<ModuleOp> module, Phase from) {
  if (from == Phase::Import && failed(compile(*module, from, Phase::Graph)))
    return failure();
  return ReferenceExecutor::compile(std::move(module), referenceOptions());
}

/// "<file>:<line>:<col>: <message>", or the message alone when the
/// diagnostic has no file location.
static std::string formatDiagnostic(Diagnostic &diag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation())) {
    os << file.getFilename().getValue();
    if (file.getLine())
      os << ":" << file.getLine() << ":" << file.getColumn();
    os << ": ";
  }
  os << diag.str();
  return text;
}

DiagnosticPrinter::DiagnosticPrinter(MLIRContext &context, std::string tool)
    : context(context) {
  id = context.getDiagEngine().registerHandler(
      [tool = std::move(tool)](Diagnostic &diag) {
        llvm::raw_ostream &os = llvm::errs();
        os << tool << ": ";
        switch (diag.getSeverity()) {
        case DiagnosticSeverity::Error:
          os << "error: ";
          break;
        case DiagnosticSeverity::Warning:
          os << "warning: ";
          break;
        case DiagnosticSeverity::Remark:
          os << "remark: ";
          break;
        case DiagnosticSeverity::Note:
          os << "note: ";
          break;
        }
        os << formatDiagnostic(diag) << "\n";
        return success();
      });
}

DiagnosticPrinter::~DiagnosticPrinter() {
  context.getDiagEngine().eraseHandler(id);
}

DiagnosticCollector::DiagnosticCollector(MLIRContext &context)
    : context(context) {
  id = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      errors_.push_back(formatDiagnostic(diag));
    else if (diag.getSeverity() == DiagnosticSeverity::Warning)
      warnings_.push_back(formatDiagnostic(diag));
    return success();
  });
}

DiagnosticCollector::~DiagnosticCollector() {
  context.getDiagEngine().eraseHandler(id);
}

std::string DiagnosticCollector::errors() const {
  std::string text;
  for (const std::string &error : errors_)
    text += (text.empty() ? "" : "; ") + error;
  return text;
}
