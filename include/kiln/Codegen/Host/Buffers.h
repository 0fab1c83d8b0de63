//===- Buffers.h - tracing host buffers to their roots ----------*- C++ -*-===//
//
// On the bufferized host function every buffer is a view (expand_shape,
// subview, cast, ...) of a root: a function argument (an I/O tensor), a
// memref.get_global (a weight) or a memref.alloc (an intermediate). Memory
// planning and the plan translation both need the root and the static byte
// offset of a view; this is the one place that computes them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_HOST_BUFFERS_H
#define KILN_CODEGEN_HOST_BUFFERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <optional>

namespace mlir {
class OpBuilder;
class Type;
namespace memref {
class CopyOp;
} // namespace memref
namespace kiln {

/// The buffer `v` is a view of (views stripped; `v` itself if none).
Value getRootBuffer(Value v);

/// The memref.alloc or memref.alloca that `v` is, or is a view of (through
/// views and extract_strided_metadata); null when it comes from elsewhere.
Operation *getAllocation(Value v);

/// The static byte offset of the first element of memref `v` from its
/// root's start, or nullopt when the layout's offset is dynamic.
std::optional<int64_t> getStaticByteOffset(Value v);

/// The byte offset of `v`'s base (the pointer a kernel given `v` receives)
/// from its root's start: 0 but for a kiln_gpu.rebase on the way.
std::optional<int64_t> getBaseByteOffset(Value v);

/// Bytes of one element in memory (i1 takes a byte).
uint64_t getElementBytes(Type elementType);

/// Whether a bare pointer can carry `type`: a static shape, strides and
/// offset (what kernels and the reference's calling convention need).
bool hasStaticLayout(MemRefType type);

/// Whether a bare pointer can carry a value of `type` across a call: a value
/// that is not a memref, or a memref of static layout.
bool isBarePointerType(Type type);

/// True when `copy` copies a buffer onto the same bytes (same root, same
/// static offset and type): nothing to do.
bool isSelfCopy(memref::CopyOp copy);

/// `v` for a function or kernel made of `scope` to take: when `v` is a part
/// of a buffer starting `granule` elements or more into it and `scope` only
/// indexes it (no view of it is taken there, whose type would follow
/// `v`'s), a kiln_gpu.rebase built at `b` whose base is the element at a
/// multiple of `granule` at or before the part and whose type keeps the
/// rest of the offset; else `v`. Functions alike but for where their part
/// lies then take one type.
Value rebasePart(OpBuilder &b, Value v, int64_t granule, Operation *scope);

} // namespace kiln
} // namespace mlir

#endif // KILN_CODEGEN_HOST_BUFFERS_H
