//===- GpuAllocator.h - device memory for engines and contexts --*- C++ -*-===//
//
// The runtime takes device memory (the weights of an engine, the arena of an
// execution context) from a GpuAllocator: the driver's cuMemAlloc/cuMemFree
// unless the application sets its own on the Runtime, to draw from a pool or
// to account for memory.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_GPUALLOCATOR_H
#define KILN_RUNTIME_GPUALLOCATOR_H

#include "kiln/runtime/Status.h"

#include <cstdint>

namespace kiln::rt {

/// Device memory, as CUdeviceptr values in uint64_t. Implementations must be
/// safe to call from several threads if the application creates engines or
/// contexts from several threads.
class GpuAllocator {
public:
  virtual ~GpuAllocator() = default;
  /// `bytes` (> 0) of device memory at a multiple of `alignment` (a power of
  /// two; the runtime asks for kPlanSectionAlignment, 256), on the runtime's
  /// device.
  virtual StatusOr<uint64_t> allocate(uint64_t bytes, uint64_t alignment) = 0;
  /// Returns memory from allocate().
  virtual void free(uint64_t ptr) = 0;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_GPUALLOCATOR_H
