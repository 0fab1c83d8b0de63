//===- StructuralHash.h - a hash of operations alike ------------*- C++ -*-===//
//
// Passes that keep one copy of things alike (kiln-outline-linalg-ops,
// kiln-gpu-form-kernels, kiln-gpu-dedup-kernels) bucket candidates by a
// hash of their operations' kinds, attributes and types, in order, that
// ignores values and locations; they then compare a bucket's candidates in
// full.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_HOST_STRUCTURALHASH_H
#define KILN_CODEGEN_HOST_STRUCTURALHASH_H

#include "llvm/ADT/Hashing.h"

namespace mlir {
class Region;
namespace kiln {

/// `seed` combined with the hash of every operation in `region` (nested
/// ones included), values and locations aside.
llvm::hash_code hashStructure(Region &region, llvm::hash_code seed);

} // namespace kiln
} // namespace mlir

#endif // KILN_CODEGEN_HOST_STRUCTURALHASH_H
