//===- ReferenceExecutor.cpp - run kiln IR on the CPU -----------*- C++ -*-===//
//
// compile(): kiln-reference-pipeline lowers the network function to the LLVM
// dialect (resource-blob weights outlined as arguments after the inputs,
// destination-passing style: inputs, weights, then outputs, bare-pointer
// arguments), and the ExecutionEngine JIT-compiles it at -O2. run() passes
// one pointer per argument. Outputs that are parts of one tensor (a Split's)
// are written in that tensor, returned once (kiln-join-output-parts), and
// run() copies them out.
//
// Memory: kiln-check-memory refuses, before anything is compiled, a network
// whose inputs, weights, outputs and live buffers would take more than the
// budget. When the code runs, every buffer it allocates comes from the
// allocator below (the generic functions of finalize-memref-to-llvm), which
// counts it against the same budget and returns null when the budget or
// the system refuses it. kiln-check-allocations makes the code return at
// once on a null allocation (and after a call that saw one); run() then
// frees what the code left allocated and reports the failure. Nothing is
// written through a null pointer, and no longjmp crosses the compiled code.
//
//===----------------------------------------------------------------------===//

#include "kiln/Reference/ReferenceExecutor.h"

#include "kiln/Codegen/Host/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Dialect/Kiln/Transforms/SpecializeShapes.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/DataType.h"
#include "kiln/runtime/Plugin.h"
#include "kiln/tooling/HostMemory.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::kiln;

/// The JIT-compiled entry point (a name no model clashes with in the JIT).
static constexpr llvm::StringLiteral kEntry = "kiln_entry";

//===----------------------------------------------------------------------===//
// The allocator of compiled code
//===----------------------------------------------------------------------===//

namespace {
/// The buffers one run of compiled code has allocated, and what it may.
struct RunMemory {
  /// The bytes the buffers may take together.
  uint64_t available = 0;
  uint64_t live = 0;
  /// Inputs, weights and outputs, and the budget (for the error).
  uint64_t arguments = 0, budget = 0;
  llvm::DenseMap<void *, uint64_t> sizes;
  /// Why an allocation failed; empty while none has.
  std::string failure;
};
} // namespace

/// The run in progress on this thread (compiled code calls back into it).
static thread_local RunMemory *currentRun = nullptr;

static void *allocate(uint64_t bytes, uint64_t alignment) {
  RunMemory *run = currentRun;
  if (!run || !run->failure.empty())
    return nullptr;
  if (bytes > run->available - run->live) {
    run->failure = "a buffer of " + std::to_string(bytes) + " bytes, with " +
                   std::to_string(run->live) + " bytes of buffers and " +
                   std::to_string(run->arguments) +
                   " bytes of inputs, weights and outputs held, is more than "
                   "the memory budget of " +
                   std::to_string(run->budget) +
                   " bytes (raise it with --max-memory)";
    return nullptr;
  }
  // Compiled code writes its buffers before it reads them: no clearing.
  void *p = tooling::allocateHost(bytes, alignment, /*zero=*/false);
  if (!p) {
    run->failure = "the system refused a buffer of " + std::to_string(bytes) +
                   " bytes (with " + std::to_string(run->live) +
                   " bytes of buffers and " + std::to_string(run->arguments) +
                   " bytes of inputs, weights and outputs held): out of "
                   "memory";
    return nullptr;
  }
  run->sizes[p] = bytes;
  run->live += bytes;
  return p;
}

static void *kilnAlloc(uint64_t bytes) { return allocate(bytes, 0); }

static void *kilnAlignedAlloc(uint64_t alignment, uint64_t bytes) {
  return allocate(bytes, alignment);
}

static void kilnFree(void *p) {
  if (RunMemory *run = currentRun) {
    auto it = run->sizes.find(p);
    if (it != run->sizes.end()) {
      tooling::freeHost(p, it->second);
      run->live -= it->second;
      run->sizes.erase(it);
      return;
    }
  }
  std::free(p); // Not from allocate(): none of its buffers.
}

static bool kilnAllocationFailed() {
  return currentRun && !currentRun->failure.empty();
}

static FailureOr<rt::TensorDesc> specOf(func::FuncOp func, Type type,
                                        StringAttr name, std::string fallback,
                                        bool isInput) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<rt::DataType> dtype =
      tensor ? getRuntimeDataType(tensor.getElementType()) : std::nullopt;
  if (!dtype)
    return func.emitError("reference executor: unsupported type ") << type;
  rt::TensorDesc desc;
  desc.name = name ? name.str() : fallback;
  desc.type = *dtype;
  for (int64_t d : tensor.getShape())
    desc.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  desc.isInput = isInput;
  return desc;
}

/// The range of argument `index` of `func` (kiln.profile), if it has one.
static void readProfile(func::FuncOp func, unsigned index,
                        rt::TensorDesc &desc) {
  auto profile = func.getArgAttrOfType<DictionaryAttr>(
      index, KilnDialect::getProfileAttrName());
  if (!profile)
    return;
  auto get = [&](StringRef key, std::vector<int64_t> &out) {
    if (auto a = profile.getAs<DenseI64ArrayAttr>(key))
      out.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  };
  rt::ShapeRange range;
  get("min", range.min);
  get("opt", range.opt);
  get("max", range.max);
  desc.profiles = {std::move(range)};
}

FailureOr<std::unique_ptr<ReferenceExecutor>>
ReferenceExecutor::compile(OwningOpRef<ModuleOp> module,
                           const ReferenceOptions &options) {
  auto funcs = llvm::to_vector(module->getOps<func::FuncOp>());
  if (funcs.size() != 1 || funcs[0].isExternal())
    return module->emitError(
        "reference executor: expects one network function");
  func::FuncOp func = funcs[0];
  // The cheap built-in plugins become kiln layers; other plugins are CUDA
  // code the application supplies: nothing to run here.
  PassManager expand(module->getContext());
  expand.addNestedPass<func::FuncOp>(createKilnExpandBuiltinPluginsPass());
  if (failed(expand.run(*module)))
    return failure();
  PluginOp plugin;
  func.walk([&](PluginOp op) {
    plugin = op;
    return WalkResult::interrupt();
  });
  if (plugin)
    return plugin.emitError("reference executor: the layer is the plugin ")
           << ::kiln::rt::pluginKey(plugin.getPlugin().str(),
                                    plugin.getVersion().str(),
                                    plugin.getPluginNamespace().str())
           << ", which runs only on the GPU (plugins are CUDA code); run "
              "the plan with kiln-run instead";
  std::unique_ptr<ReferenceExecutor> exec(new ReferenceExecutor());
  exec->maxMemory = options.maxMemory;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    FailureOr<rt::TensorDesc> spec = specOf(
        func, type,
        func.getArgAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName()),
        "input" + std::to_string(i), /*isInput=*/true);
    if (failed(spec))
      return failure();
    readProfile(func, i, *spec);
    exec->inputSpecs.push_back(*spec);
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    FailureOr<rt::TensorDesc> spec = specOf(
        func, type,
        func.getResultAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName()),
        "output" + std::to_string(i), /*isInput=*/false);
    if (failed(spec))
      return failure();
    exec->outputSpecs.push_back(*spec);
  }
  // Run-time shapes: the network is compiled at each input shape it runs
  // at (run()), within its inputs' profiles.
  if (llvm::any_of(exec->inputSpecs, [](const rt::TensorDesc &spec) {
        return spec.isDynamic();
      })) {
    exec->options = options;
    exec->module = std::move(module);
    return exec;
  }
  if (llvm::any_of(exec->outputSpecs,
                   [](const rt::TensorDesc &spec) { return spec.isDynamic(); }))
    return func.emitError("reference executor: an output has a dynamic "
                          "shape but no input does");
  // Outputs that are parts of one tensor come back in that tensor, once;
  // run() copies them out.
  PassManager join(module->getContext());
  join.addPass(createKilnJoinOutputPartsPass());
  if (failed(join.run(*module)))
    return failure();
  if (auto parts =
          func->getAttrOfType<DenseI64ArrayAttr>(kOutputPartsAttrName)) {
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      FailureOr<rt::TensorDesc> spec =
          specOf(func, type, {}, "result" + std::to_string(i),
                 /*isInput=*/false);
      if (failed(spec))
        return failure();
      exec->resultSpecs.push_back(*spec);
    }
    exec->outputParts.assign(parts.asArrayRef().begin(),
                             parts.asArrayRef().end());
    if (exec->outputParts.size() != 2 * exec->outputSpecs.size() ||
        llvm::any_of(llvm::seq<size_t>(0, exec->outputSpecs.size()),
                     [&](size_t i) {
                       return exec->outputParts[2 * i] < 0 ||
                              exec->outputParts[2 * i] >=
                                  int64_t(exec->resultSpecs.size());
                     }))
      return func.emitError("reference executor: malformed ")
             << kOutputPartsAttrName;
  }
  func.setSymName(kEntry);

  PassManager pm(module->getContext());
  buildReferencePipeline(pm, options);
  // A pass that fails says why (a budget, an unsupported op); the generic
  // line is only for one that does not.
  bool reported = false;
  LogicalResult lowered = failure();
  {
    ScopedDiagnosticHandler seen(module->getContext(), [&](Diagnostic &d) {
      reported |= d.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // passed on to the caller's handler
    });
    lowered = pm.run(*module);
  }
  if (failed(lowered))
    return reported ? failure()
                    : module->emitError(
                          "reference executor: lowering to LLVM failed");
  // Everything must now be in the LLVM dialect; name what is not.
  Operation *leftover = nullptr;
  module->walk([&](Operation *op) {
    if (!leftover && op != module->getOperation() &&
        !isa<LLVM::LLVMDialect>(op->getDialect()))
      leftover = op;
  });
  if (leftover) {
    bool empty = false;
    for (const auto *specs : {&exec->inputSpecs, &exec->outputSpecs})
      for (const rt::TensorDesc &spec : *specs)
        empty |= llvm::is_contained(spec.shape, 0);
    return leftover->emitError("reference executor: '")
           << leftover->getName() << "' was not lowered to LLVM"
           << (empty ? " (an input or output has a zero-size dimension, which "
                       "this path does not always support)"
                     : "");
  }
  // The outlined weights, in argument order after the inputs.
  auto entry = module->lookupSymbol<LLVM::LLVMFuncOp>(kEntry);
  if (!entry)
    return module->emitError("reference executor: no '")
           << kEntry << "' after lowering";
  if (auto outlined = entry->getAttrOfType<ArrayAttr>(kOutlinedWeightsAttrName))
    for (Attribute a : outlined) {
      auto blob = dyn_cast<DenseResourceElementsAttr>(a);
      AsmResourceBlob *data = blob ? blob.getRawHandle().getBlob() : nullptr;
      if (!data)
        return entry.emitError("reference executor: an outlined weight has "
                               "no data");
      exec->weights.push_back(data->getData().data());
      exec->weightBytes += data->getData().size();
    }

  static bool targetsReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetsReady;
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive create().
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(2, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine)
    return module->emitError("reference executor: JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("_mlir_memref_to_llvm_alloc", &kilnAlloc);
    add("_mlir_memref_to_llvm_aligned_alloc", &kilnAlignedAlloc);
    add("_mlir_memref_to_llvm_free", &kilnFree);
    add("kiln_reference_allocation_failed", &kilnAllocationFailed);
    return symbols;
  });
  exec->engine = std::move(*engine);
  exec->module = std::move(module);
  return exec;
}

ReferenceExecutor::~ReferenceExecutor() = default;

FailureOr<ReferenceExecutor *>
ReferenceExecutor::specialize(const std::vector<tooling::HostTensor> &inputs,
                              std::string &error) {
  std::vector<int64_t> key;
  SmallVector<SmallVector<int64_t>> shapes;
  for (const tooling::HostTensor &t : inputs) {
    shapes.emplace_back(t.shape.begin(), t.shape.end());
    key.push_back(static_cast<int64_t>(t.shape.size()));
    key.insert(key.end(), t.shape.begin(), t.shape.end());
  }
  for (auto &[shape, exec] : specialized)
    if (shape == key)
      return exec.get();
  // A bounded cache: the oldest shape goes first.
  if (specialized.size() >= kMaxSpecializedShapes)
    specialized.erase(specialized.begin());
  MLIRContext *context = module->getContext();
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      llvm::raw_string_ostream(error)
          << (error.empty() ? "" : "; ") << d.getLocation() << ": " << d.str();
    return success();
  });
  OwningOpRef<ModuleOp> copy = module->clone();
  func::FuncOp func = *copy->getOps<func::FuncOp>().begin();
  if (failed(specializeShapes(func, shapes)) || failed(verify(*copy)))
    return failure();
  FailureOr<std::unique_ptr<ReferenceExecutor>> exec =
      compile(std::move(copy), options);
  if (failed(exec))
    return failure();
  specialized.emplace_back(std::move(key), std::move(*exec));
  return specialized.back().second.get();
}

rt::Status
ReferenceExecutor::run(const std::vector<tooling::HostTensor> &inputs,
                       std::vector<tooling::HostTensor> &outputs) {
  if (inputs.size() != inputSpecs.size())
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "expected " + std::to_string(inputSpecs.size()) +
                          " inputs, got " + std::to_string(inputs.size()));
  if (!engine) {
    for (auto [tensor, spec] : llvm::zip(inputs, inputSpecs)) {
      if (tensor.type != spec.type)
        return rt::Status(rt::StatusCode::InvalidArgument,
                          "input '" + spec.name + "' is " +
                              tensor.typeString() + ", expected " +
                              tooling::typeString(spec.shape, spec.type));
      if (rt::Status s = rt::checkShape(spec, tensor.shape); !s)
        return s;
    }
    std::string error;
    FailureOr<ReferenceExecutor *> exec = specialize(inputs, error);
    if (failed(exec))
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "compiling the network at the inputs' shapes: " +
                            error);
    return (*exec)->run(inputs, outputs);
  }
  std::vector<void *> pointers;
  for (auto [tensor, spec] : llvm::zip(inputs, inputSpecs)) {
    if (tensor.type != spec.type || tensor.shape != spec.shape)
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "input '" + spec.name + "' is " + tensor.typeString() +
                            ", expected " +
                            tooling::typeString(spec.shape, spec.type));
    pointers.push_back(const_cast<void *>(tensor.data()));
  }
  for (const void *w : weights)
    pointers.push_back(const_cast<void *>(w));
  outputs.clear();
  for (const rt::TensorDesc &spec : outputSpecs) {
    auto t = tooling::HostTensor::create(spec.name, spec.type, spec.shape);
    if (!t.isOk())
      return t.status();
    outputs.push_back(std::move(*t));
  }
  // The buffers the code writes: the outputs, or the results that outputs
  // are parts of (copied out after the run).
  std::vector<tooling::HostTensor> joined;
  std::vector<void *> results;
  if (outputParts.empty()) {
    for (tooling::HostTensor &t : outputs)
      results.push_back(t.data());
  } else {
    results.assign(resultSpecs.size(), nullptr);
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputParts[2 * i + 1] < 0)
        results[outputParts[2 * i]] = outputs[i].data();
    joined.reserve(resultSpecs.size());
    for (auto [r, spec] : llvm::enumerate(resultSpecs)) {
      if (results[r])
        continue;
      auto t = tooling::HostTensor::create(spec.name, spec.type, spec.shape);
      if (!t.isOk())
        return t.status();
      joined.push_back(std::move(*t));
      results[r] = joined.back().data();
    }
  }
  pointers.insert(pointers.end(), results.begin(), results.end());
  SmallVector<void *> args;
  for (void *&p : pointers)
    args.push_back(&p);
  // What the buffers may take: the budget less the inputs, weights and
  // outputs (kiln-check-memory counted the same before compiling).
  RunMemory memory;
  memory.budget = maxMemory;
  memory.arguments = weightBytes;
  for (const tooling::HostTensor &t : inputs)
    memory.arguments += t.numBytes();
  for (const auto *tensors : {&outputs, &joined})
    for (const tooling::HostTensor &t : *tensors)
      memory.arguments += t.numBytes();
  memory.available =
      maxMemory > memory.arguments ? maxMemory - memory.arguments : 0;
  RunMemory *outer = std::exchange(currentRun, &memory);
  llvm::Error error = engine->invokePacked(kEntry, args);
  currentRun = outer;
  // After a failed allocation the code returned early: free what it held.
  for (auto &[p, bytes] : memory.sizes)
    tooling::freeHost(p, bytes);
  if (error)
    return rt::Status(rt::StatusCode::Internal,
                      "invocation failed: " + llvm::toString(std::move(error)));
  if (!memory.failure.empty()) {
    outputs.clear();
    return rt::Status(rt::StatusCode::Internal, memory.failure);
  }
  // Elements of whole bytes (kiln-join-output-parts joins no others).
  for (size_t i = 0; i < outputs.size(); ++i)
    if (int64_t offset = outputParts.empty() ? -1 : outputParts[2 * i + 1];
        offset >= 0) {
      tooling::HostTensor &t = outputs[i];
      int64_t bytes = t.numBytes() / t.numElements();
      std::memcpy(t.data(),
                  static_cast<char *>(results[outputParts[2 * i]]) +
                      offset * bytes,
                  t.numBytes());
    }
  return rt::Status::ok();
}
