//===- DeviceOps.h - what the runtime does without a kernel -----*- C++ -*-===//
//
// The one definition of the host operations that the runtime performs with
// the driver instead of a generated kernel: a device copy (a Copy step) and
// a memset (a Fill step). kiln-gpu-form-kernels leaves exactly these on the
// host, and the plan translation accepts exactly these.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_DEVICEOPS_H
#define KILN_CODEGEN_GPU_DEVICEOPS_H

#include <cstdint>
#include <optional>

namespace mlir {
namespace memref {
class CopyOp;
} // namespace memref
namespace linalg {
class FillOp;
} // namespace linalg
namespace kiln {

/// True when the runtime can do `copy` as one device copy (a Copy step):
/// contiguous buffers of the same shape and element type.
bool isDeviceCopy(memref::CopyOp copy);

/// The byte the runtime can memset `fill`'s output with (a Fill step): the
/// output is contiguous and the constant value's bytes are all equal.
std::optional<uint8_t> getMemsetByte(linalg::FillOp fill);

} // namespace kiln
} // namespace mlir

#endif // KILN_CODEGEN_GPU_DEVICEOPS_H
