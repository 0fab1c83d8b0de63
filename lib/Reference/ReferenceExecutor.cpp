//===- ReferenceExecutor.cpp - run kiln IR on the CPU -----------*- C++ -*-===//
//
// compile(): kiln-reference-pipeline lowers the network function to the LLVM
// dialect (resource-blob weights outlined as arguments after the inputs,
// destination-passing style: inputs, weights, then outputs, bare-pointer
// arguments), and the ExecutionEngine JIT-compiles it at -O2. run() passes
// one pointer per argument.
//
//===----------------------------------------------------------------------===//

#include "kiln/Reference/ReferenceExecutor.h"

#include "kiln/Codegen/Host/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/DataType.h"
#include "kiln/runtime/Plugin.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::kiln;

/// The JIT-compiled entry point (a name no model clashes with in the JIT).
static constexpr llvm::StringLiteral kEntry = "kiln_entry";

static FailureOr<rt::TensorDesc> specOf(func::FuncOp func, Type type,
                                        StringAttr name, std::string fallback,
                                        bool isInput) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<rt::DataType> dtype =
      tensor ? getRuntimeDataType(tensor.getElementType()) : std::nullopt;
  if (!dtype || !tensor.hasStaticShape())
    return func.emitError("reference executor: unsupported type ") << type;
  rt::TensorDesc desc;
  desc.name = name ? name.str() : fallback;
  desc.type = *dtype;
  desc.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  desc.isInput = isInput;
  return desc;
}

FailureOr<std::unique_ptr<ReferenceExecutor>>
ReferenceExecutor::compile(OwningOpRef<ModuleOp> module, bool fusionGroups,
                           uint64_t maxWork) {
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
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    FailureOr<rt::TensorDesc> spec = specOf(
        func, type,
        func.getArgAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName()),
        "input" + std::to_string(i), /*isInput=*/true);
    if (failed(spec))
      return failure();
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
  func.setSymName(kEntry);

  PassManager pm(module->getContext());
  buildReferencePipeline(pm, fusionGroups, maxWork);
  if (failed(pm.run(*module)))
    return module->emitError("reference executor: lowering to LLVM failed");
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
  // With every layer in a function of its own, the entry function is one
  // block of allocations, calls and frees: optimizing it gains nothing, and
  // LLVM's greedy register allocator is superlinear on a block that long
  // (2 s at 2,000 layers, 9 s at 4,000). optnone compiles it at -O0.
  if (entry.getBody().hasOneBlock()) {
    Builder b(module->getContext());
    entry.setPassthroughAttr(b.getArrayAttr(
        {b.getStringAttr("noinline"), b.getStringAttr("optnone")}));
  }
  if (auto outlined = entry->getAttrOfType<ArrayAttr>(kOutlinedWeightsAttrName))
    for (Attribute a : outlined) {
      auto blob = dyn_cast<DenseResourceElementsAttr>(a);
      AsmResourceBlob *data = blob ? blob.getRawHandle().getBlob() : nullptr;
      if (!data)
        return entry.emitError("reference executor: an outlined weight has "
                               "no data");
      exec->weights.push_back(data->getData().data());
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
  ExecutionEngineOptions options;
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return module->emitError("reference executor: JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  exec->engine = std::move(*engine);
  exec->module = std::move(module);
  return exec;
}

ReferenceExecutor::~ReferenceExecutor() = default;

rt::Status
ReferenceExecutor::run(const std::vector<tooling::HostTensor> &inputs,
                       std::vector<tooling::HostTensor> &outputs) {
  if (inputs.size() != inputSpecs.size())
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "expected " + std::to_string(inputSpecs.size()) +
                          " inputs, got " + std::to_string(inputs.size()));
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
  for (tooling::HostTensor &t : outputs)
    pointers.push_back(t.data());
  SmallVector<void *> args;
  for (void *&p : pointers)
    args.push_back(&p);
  if (llvm::Error error = engine->invokePacked(kEntry, args))
    return rt::Status(rt::StatusCode::Internal,
                      "invocation failed: " + llvm::toString(std::move(error)));
  return rt::Status::ok();
}
