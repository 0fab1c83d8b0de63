//===- PlanCompiler.cpp - kiln IR to a plan bundle --------------*- C++ -*-===//
//
// The front half of the GPU back end: registration, target parsing, and the
// lowering of the kiln function to a host function on buffers that launches
// one kernel per linalg op (lowerToGpu); compileToPlan runs all steps.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Plan/PlanCompiler.h"

#include "kiln/Conversion/DestinationPassing.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::registerPlanCompilerDialects(DialectRegistry &registry) {
  registry.insert<KilnDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
                  linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, scf::SCFDialect,
                  tensor::TensorDialect, ub::UBDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // convert-gpu-to-nvvm lowers the other dialects through these.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // Serialization to PTX.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

FailureOr<std::vector<unsigned>> mlir::kiln::parseTargets(StringRef list,
                                                    std::string &error) {
  std::vector<unsigned> archs;
  SmallVector<StringRef> items;
  list.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    StringRef digits = item.trim();
    unsigned arch = 0;
    if (!digits.consume_front("sm_") || digits.getAsInteger(10, arch) ||
        arch < 50 || arch > 1210) {
      error = "bad target '" + item.str() +
              "': expected sm_<major><minor> such as sm_80 or sm_90";
      return failure();
    }
    if (!llvm::is_contained(archs, arch))
      archs.push_back(arch);
  }
  if (archs.empty()) {
    error = "no target architecture given";
    return failure();
  }
  return archs;
}

LogicalResult mlir::kiln::lowerToGpu(ModuleOp module, const PlanOptions &options) {
  MLIRContext *ctx = module.getContext();
  ctx->loadAllAvailableDialects();
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1 || funcs[0].isExternal())
    return module.emitError("plan compiler: expects one network function, got ")
           << funcs.size();
  func::FuncOp func = funcs[0];
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError("plan compiler: inputs and outputs must be "
                            "statically shaped tensors, got ")
             << t;
  }

  PassManager pm(ctx);
  pm.addNestedPass<func::FuncOp>(createKilnConvertToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(module)))
    return failure();
  convertToDestinationPassing(func, /*keepNames=*/true);

  PassManager lower(ctx);
  // Results are computed in the output buffers where possible (no copy).
  lower.addPass(bufferization::createEmptyTensorEliminationPass());
  lower.addPass(bufferization::createOneShotBufferizePass());
  lower.addPass(createCanonicalizerPass());
  KilnGpuFormKernelsPassOptions form;
  form.threads = options.threads;
  form.itemsPerThread = options.itemsPerThread;
  lower.addPass(createKilnGpuFormKernelsPass(form));
  lower.addPass(createCanonicalizerPass());
  lower.addPass(createCSEPass());
  if (failed(lower.run(module)))
    return module.emitError("plan compiler: lowering to GPU kernels failed");
  return success();
}

FailureOr<rt::PlanContents> mlir::kiln::compileToPlan(ModuleOp module,
                                                const PlanOptions &options) {
  if (failed(lowerToGpu(module, options)))
    return failure();
  std::vector<rt::KernelDesc> kernels;
  FailureOr<std::vector<rt::KernelImage>> images =
      serializeKernels(module, options, kernels);
  if (failed(images))
    return failure();
  return buildPlan(module, std::move(kernels), std::move(*images), options);
}
