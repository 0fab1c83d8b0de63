//===- StructuralHash.cpp - a hash of operations alike ----------*- C++ -*-===//

#include "kiln/Codegen/Host/StructuralHash.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Region.h"

using namespace mlir;

llvm::hash_code kiln::hashStructure(Region &region, llvm::hash_code seed) {
  region.walk([&](Operation *op) {
    seed =
        llvm::hash_combine(seed, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return seed;
}
