//===- InnerVectors.h - vectors along the innermost loop --------*- C++ -*-===//
//
// A kernel which reads and writes its buffers contiguously along its
// innermost parallel loop (an elementwise op over channels-last tensors,
// the im2col gather of a convolution, a channels-last pool or depthwise
// convolution, a transpose that keeps the last axis), runs V consecutive
// iterations of that loop in one thread: V elements per 128-bit load and store
// instead of one 16- or 32-bit access each, and the index arithmetic of one
// iteration for V.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_INNERVECTORS_H
#define KILN_CODEGEN_GPU_INNERVECTORS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::kiln {

/// Bytes of the widest access a thread makes at once.
constexpr int64_t kVectorBytes = 16;

/// Whether a kernel's buffer (an argument of the kernel) starts at a
/// multiple of kVectorBytes bytes: buffers the plan places (arena buffers,
/// weights) do, the network's inputs and outputs (the user's pointers) need
/// not.
using AlignedBufferFn = function_ref<bool(Value)>;

/// The number V > 1 of consecutive iterations of the innermost parallel loop
/// `inner` (of `size` iterations) that one thread can run as one, working on
/// vector<V x T> values, when `body` (the parallel loop's body, lowered from
/// a linalg op; its reduction loops are scf.for loops in it) allows it; 1
/// when it does not:
/// - `inner` is used only as the last index of memref.load and memref.store
///   on buffers whose last dimension is contiguous, and every store is such
///   a store, and their elements are whole bytes (not i1);
/// - the ops that depend on such loads are arith or math ops on scalars
///   (not indices); the only ops with regions are scf.for loops whose
///   bounds are the same for all iterations and which carry no values;
/// - V divides `size`; an aligned buffer's offset and strides are multiples
///   of V, so that each vector access is V * sizeof(T)-byte aligned (other
///   buffers are read and written one element at a time);
/// - V * sizeof(T) <= kVectorBytes for the widest T accessed so, and at
///   least one vector access is to an aligned buffer.
int64_t getInnerVectorWidth(Block &body, Value inner, int64_t size,
                            AlignedBufferFn aligned);

/// Clones `body` (without its terminator) at `b`'s insertion point for the
/// `width` iterations `first`, ..., `first` + width - 1 of `inner`, as
/// getInnerVectorWidth allowed: loads and stores indexed by `inner` move
/// vectors (vector.load/vector.store on aligned buffers, one element at a
/// time on the others), the ops depending on them work on vectors, and the
/// rest (uniform over the iterations) stays scalar. `mapping` maps values
/// defined outside `body` (the other loop indices, kernel arguments).
void cloneAsVectors(OpBuilder &b, Block &body, Value inner, Value first,
                    int64_t width, IRMapping &mapping, AlignedBufferFn aligned);

} // namespace mlir::kiln

#endif // KILN_CODEGEN_GPU_INNERVECTORS_H
