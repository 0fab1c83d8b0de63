//===- Pipelines.cpp - named kiln pass pipelines ----------------*- C++ -*-===//
//
// Registers the kiln passes and the named pipelines built from them, shared
// by kiln-opt (`--kiln-optimize`) and kiln-compile.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::kiln::buildKilnOptimizePipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
  fpm.addPass(createKilnEliminateDeadLayersPass());
  fpm.addPass(createCanonicalizerPass());
}

void mlir::kiln::registerKilnPassesAndPipelines() {
  registerKilnPasses();
  PassPipelineRegistration<>(
      "kiln-optimize",
      "The default kiln graph optimization pipeline: canonicalize, CSE, "
      "dead-layer elimination",
      buildKilnOptimizePipeline);
}
