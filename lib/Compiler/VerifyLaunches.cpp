//===- VerifyLaunches.cpp - verification linear in the kernels --*- C++ -*-===//

#include "VerifyLaunches.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

LogicalResult mlir::kiln::verifyLaunches(ModuleOp module) {
  // The module's own attributes are the container's (checked below) and
  // names: its ops are verified one by one, without it.
  for (Operation &op : *module.getBody())
    if (failed(verify(&op)))
      return failure();
  SymbolTable symbols(module);
  DenseMap<Operation *, std::unique_ptr<SymbolTable>> kernelTables;
  WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
    Operation *symbol = symbols.lookup(launch.getKernelModuleName());
    // (Serialized, the kernels are a gpu.binary: nothing to look into.)
    if (isa_and_nonnull<gpu::BinaryOp>(symbol))
      return WalkResult::advance();
    auto container = dyn_cast_or_null<gpu::GPUModuleOp>(symbol);
    if (!container) {
      launch.emitOpError("kernel module '")
          << launch.getKernelModuleName().getValue() << "' is undefined";
      return WalkResult::interrupt();
    }
    std::unique_ptr<SymbolTable> &table = kernelTables[container];
    if (!table)
      table = std::make_unique<SymbolTable>(container);
    auto kernel = table->lookup<gpu::GPUFuncOp>(launch.getKernelName());
    if (!kernel || !kernel.isKernel()) {
      launch.emitOpError("kernel function '")
          << launch.getKernel() << "' is undefined or not a kernel";
      return WalkResult::interrupt();
    }
    if (kernel.getNumArguments() != launch.getNumKernelOperands()) {
      launch.emitOpError("got ")
          << launch.getNumKernelOperands() << " kernel operands but expected "
          << kernel.getNumArguments();
      return WalkResult::interrupt();
    }
    for (auto [operand, argument] :
         llvm::zip(launch.getKernelOperands(), kernel.getArguments()))
      if (operand.getType() != argument.getType()) {
        launch.emitOpError("type of kernel operand ")
            << operand << " does not match the kernel's argument";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
