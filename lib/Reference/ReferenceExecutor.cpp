//===- ReferenceExecutor.cpp - run kiln IR on the CPU -----------*- C++ -*-===//
//
// compile(): resource-blob weights become extra arguments, kiln lowers to
// linalg on tensors, the function takes memrefs in destination-passing style
// (inputs, weights, then outputs), one-shot bufferization and the standard
// conversions lower it to the LLVM dialect with bare-pointer arguments, and
// the ExecutionEngine JIT-compiles it at -O2. run() passes one pointer per
// argument.
//
//===----------------------------------------------------------------------===//

#include "kiln/Reference/ReferenceExecutor.h"

#include "kiln/Conversion/DestinationPassing.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::kiln;

static constexpr llvm::StringLiteral kEntry = "kiln_entry";

void mlir::kiln::registerReferenceExecutorDialects(DialectRegistry &registry) {
  registry.insert<KilnDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

static std::optional<ElementKind> kindOf(Type t) {
  if (t.isF32())
    return ElementKind::F32;
  if (t.isF16())
    return ElementKind::F16;
  if (t.isBF16())
    return ElementKind::BF16;
  if (t.isInteger(1))
    return ElementKind::Bool;
  if (t.isInteger(8))
    return ElementKind::I8;
  if (t.isInteger(32))
    return ElementKind::I32;
  if (t.isInteger(64))
    return ElementKind::I64;
  return std::nullopt;
}

static FailureOr<TensorSpec> specOf(func::FuncOp func, Type type,
                                    StringAttr name, std::string fallback) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<ElementKind> kind =
      tensor ? kindOf(tensor.getElementType()) : std::nullopt;
  if (!kind || !tensor.hasStaticShape())
    return func.emitError("reference executor: unsupported type ") << type;
  return TensorSpec{name ? name.str() : fallback, *kind,
                    std::vector<int64_t>(tensor.getShape().begin(),
                                         tensor.getShape().end())};
}

FailureOr<std::unique_ptr<ReferenceExecutor>>
ReferenceExecutor::compile(OwningOpRef<ModuleOp> module) {
  MLIRContext *ctx = module->getContext();
  // Lowering creates ops of dialects the kiln IR does not use yet.
  ctx->loadAllAvailableDialects();
  auto funcs = llvm::to_vector(module->getOps<func::FuncOp>());
  if (funcs.size() != 1 || funcs[0].isExternal())
    return module->emitError("reference executor: expects one network function");
  func::FuncOp func = funcs[0];
  std::unique_ptr<ReferenceExecutor> exec(new ReferenceExecutor());

  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    FailureOr<TensorSpec> spec =
        specOf(func, type, func.getArgAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName()),
               "input" + std::to_string(i));
    if (failed(spec))
      return failure();
    exec->inputSpecs.push_back(*spec);
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    FailureOr<TensorSpec> spec =
        specOf(func, type, func.getResultAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName()),
               "output" + std::to_string(i));
    if (failed(spec))
      return failure();
    exec->outputSpecs.push_back(*spec);
  }

  // Resource-blob weights become arguments after the inputs.
  Block &body = func.getBody().front();
  SmallVector<ConstantOp> outlined;
  func.walk([&](ConstantOp op) {
    if (isa<DenseResourceElementsAttr>(op.getValue()))
      outlined.push_back(op);
  });
  for (ConstantOp op : outlined) {
    auto attr = cast<DenseResourceElementsAttr>(op.getValue());
    AsmResourceBlob *blob = attr.getRawHandle().getBlob();
    if (!blob)
      return op.emitError("reference executor: weight blob '")
             << attr.getRawHandle().getKey() << "' has no data";
    BlockArgument arg = body.addArgument(op.getType(), op.getLoc());
    op.getResult().replaceAllUsesWith(arg);
    op.erase();
    exec->weights.push_back(blob->getData().data());
  }
  SmallVector<Type> results(func.getResultTypes());
  func.setType(FunctionType::get(ctx, body.getArgumentTypes(), results));

  PassManager pm(ctx);
  pm.addNestedPass<func::FuncOp>(createKilnConvertToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return failure();
  convertToDestinationPassing(func, /*keepNames=*/false);
  func.setSymName(kEntry);

  PassManager lower(ctx);
  bufferization::OneShotBufferizePassOptions bufferize;
  lower.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(lower);
  if (failed(lower.run(*module)))
    return module->emitError("reference executor: bufferization failed");
  // Copies become loops, not calls into MLIR's C runner library.
  module->walk([](memref::CopyOp copy) {
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
    copy.erase();
  });

  lower.clear();
  lower.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  lower.addPass(createLowerAffinePass());
  lower.addPass(createSCFToControlFlowPass());
  lower.addPass(memref::createExpandStridedMetadataPass());
  lower.addPass(createLowerAffinePass());
  lower.addPass(createFinalizeMemRefToLLVMConversionPass());
  lower.addPass(createConvertMathToFuncs()); // math.ipowi
  lower.addPass(createConvertMathToLLVMPass());
  lower.addPass(createConvertMathToLibmPass());
  lower.addPass(createArithToLLVMConversionPass());
  lower.addPass(createConvertIndexToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  lower.addPass(createConvertFuncToLLVMPass(funcOptions));
  lower.addPass(createConvertControlFlowToLLVMPass());
  lower.addPass(createReconcileUnrealizedCastsPass());
  if (failed(lower.run(*module)))
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
      for (const TensorSpec &spec : *specs)
        empty |= llvm::is_contained(spec.shape, 0);
    return leftover->emitError("reference executor: '")
           << leftover->getName() << "' was not lowered to LLVM"
           << (empty ? " (an input or output has a zero-size dimension, which "
                       "this path does not always support)"
                     : "");
  }

  static bool targetsReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetsReady;
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(2, 0, nullptr);
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return module->emitError("reference executor: JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  exec->engine = std::move(*engine);
  exec->module = std::move(module);
  return exec;
}

ReferenceExecutor::~ReferenceExecutor() = default;

std::string ReferenceExecutor::run(const std::vector<HostTensor> &inputs,
                                   std::vector<HostTensor> &outputs) {
  if (inputs.size() != inputSpecs.size())
    return "expected " + std::to_string(inputSpecs.size()) + " inputs, got " +
           std::to_string(inputs.size());
  std::vector<void *> pointers;
  for (auto [tensor, spec] : llvm::zip(inputs, inputSpecs)) {
    if (tensor.kind != spec.kind || tensor.shape != spec.shape) {
      HostTensor expected(spec.name, spec.kind, spec.shape);
      return "input '" + spec.name + "' is " + tensor.typeString() +
             ", expected " + expected.typeString();
    }
    pointers.push_back(const_cast<void *>(tensor.data()));
  }
  for (const void *w : weights)
    pointers.push_back(const_cast<void *>(w));
  outputs.clear();
  for (const TensorSpec &spec : outputSpecs)
    outputs.emplace_back(spec.name, spec.kind, spec.shape);
  for (HostTensor &t : outputs)
    pointers.push_back(t.data());
  SmallVector<void *> args;
  for (void *&p : pointers)
    args.push_back(&p);
  if (llvm::Error error = engine->invokePacked(kEntry, args))
    return "invocation failed: " + llvm::toString(std::move(error));
  return "";
}
