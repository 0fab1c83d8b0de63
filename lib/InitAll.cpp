//===- InitAll.cpp - register everything kiln tools use --------*- C++ -*-===//
//
// Registers the kiln dialect with the upstream dialects its IR and pipelines
// use, and the kiln and upstream passes, in one place for every tool.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::kiln::registerAllDialects(DialectRegistry &registry) {
  registry.insert<KilnDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, func::FuncDialect,
                  gpu::GPUDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
}

void mlir::kiln::registerAllPasses() {
  // Upstream: canonicalize, cse, inline, symbol-dce, ...
  mlir::registerTransformsPasses();
  registerKilnPassesAndPipelines();
  registerKilnConversionPasses();
}
