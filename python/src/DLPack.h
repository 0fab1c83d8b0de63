//===- DLPack.h - DLPack tensors in and out of kiln._runtime ----*- C++ -*-===//
//
// DLPack (Debian's libdlpack-dev, the 0.6 ABI: unversioned "dltensor"
// capsules, which torch, CuPy, JAX and numpy all still exchange) lets a
// context bind another library's CUDA tensors without a copy, and lets
// another library take kiln's device arrays.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_DLPACK_H
#define KILN_PYTHON_DLPACK_H

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::python {

namespace py = pybind11;

/// The (device type, ordinal) of a DLPack tensor: `obj.__dlpack_device__()`,
/// or nothing when `obj` has no such method.
std::optional<std::pair<int, int>> dlpackDevice(py::handle obj);
/// Whether a DLPack device type is CUDA memory (kDLCUDA, kDLCUDAManaged).
bool isCudaDevice(int deviceType);

/// What a binding must be: tensor `name`'s type, dimensions and device.
struct Expected {
  const std::string &name;
  int type;
  /// A copy: with run-time shapes it is computed per run.
  std::vector<int64_t> shape;
  int deviceOrdinal;
};

/// Takes the DLPack tensor `obj` (on `device`, as dlpackDevice says) for
/// `expected`, to be used on `stream`
/// (a CUstream; 0: the legacy default stream), as the DLPack protocol says:
/// the producer orders its pending writes before `stream`'s work. Checks the
/// device (CUDA, the runtime's), the type, the shape and that it is
/// contiguous, row-major; an InvalidArgumentError names the tensor and what
/// differs. Returns the device address; `capsule` keeps the tensor alive.
uint64_t takeDLPack(py::handle obj, std::pair<int, int> device,
                    const Expected &expected, uint64_t stream,
                    py::object &capsule);

/// A "dltensor" capsule for `count` elements of `type` at device address
/// `ptr` on device `deviceOrdinal`, of dimensions `shape`, that keeps `owner`
/// alive until the consumer deletes it.
py::capsule makeDLPackCapsule(uint64_t ptr, int type,
                              const std::vector<int64_t> &shape,
                              int deviceOrdinal, py::object owner);

} // namespace kiln::python

#endif // KILN_PYTHON_DLPACK_H
