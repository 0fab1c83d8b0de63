//===- kiln-opt.cpp - kiln's mlir-opt ---------------------------*- C++ -*-===//
//
// Runs any pipeline of kiln and upstream passes over kiln IR, like mlir-opt.
// `kiln-opt --help` lists the kiln passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::kiln::registerAllDialects(registry);
  mlir::kiln::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry));
}
