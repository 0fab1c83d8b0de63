//===- InPlace.h - may a kernel write an output over an input ---*- C++ -*-===//
//
// kiln-gpu-form-kernels records on each launch the pairs of its buffer
// arguments (X read, Y written, same type) whose kernel stays correct when
// Y is X's memory: every element of X it reads is read before, or by the
// same elementwise step as, the write of the same element of Y, and no other
// element of Y is written while it is read. kiln-plan-memory then places Y
// where X was when X dies at that launch (docs/gpu-codegen.md, "Memory").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_INPLACE_H
#define KILN_CODEGEN_GPU_INPLACE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace mlir {
class Value;
namespace linalg {
class GenericOp;
} // namespace linalg
namespace scf {
class ForallOp;
} // namespace scf
namespace kiln {

/// A pair of indices into a kernel's buffer arguments: (read, written).
using InPlacePair = std::pair<unsigned, unsigned>;

/// The pairs of `buffers` (the kernel's arguments, in order) that a fusion
/// group's bufferized loop may compute in place.
SmallVector<InPlacePair> findInPlacePairs(scf::ForallOp loop,
                                          ArrayRef<Value> buffers);

/// The pairs of `buffers` that one bufferized generic op may compute in
/// place: an input and an init of the same type, read and written by the
/// same permutation of all-parallel loops, the input read nowhere else.
SmallVector<InPlacePair> findInPlacePairs(linalg::GenericOp op,
                                          ArrayRef<Value> buffers);

} // namespace kiln
} // namespace mlir

#endif // KILN_CODEGEN_GPU_INPLACE_H
